// SPDX-License-Identifier: BSD-3-Clause
// Without libFuzzer, a fuzz target is linked to this driver, which feeds it
// every file of its seed corpus (and a few degenerate inputs) so the target
// keeps compiling and its seeds keep passing under ASan.
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			uint8_t *n = realloc(buf, cap);
			if (!n) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = n;
		}
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	fclose(f);
	/* Every prefix length is a truncation case the parser must survive. */
	for (size_t cut = 0; cut <= len; cut += (len > 4096 ? len / 64 + 1 : 1))
		LLVMFuzzerTestOneInput(buf, cut);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int files = 0;
	LLVMFuzzerTestOneInput((const uint8_t *)"", 0);
	for (int i = 1; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		if (!d)
			continue;
		struct dirent *e;
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			if (run_file(path) == 0)
				files++;
		}
		closedir(d);
	}
	printf("replayed %d seed file(s)\n", files);
	return 0;
}
