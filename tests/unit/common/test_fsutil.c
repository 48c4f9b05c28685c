// SPDX-License-Identifier: BSD-3-Clause
/* common/fsutil: the cache writer (parents made, mode kept, no temp left,
 * an existing entry replaced whole). */
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

#include "common/alloc.h"
#include "common/fsutil.h"
#include "harness.h"
#define TMPDIR_TAG "fsutil"
#include "tmpdir.h"

static size_t entries(const char *dir)
{
	DIR *d = opendir(dir);
	size_t n = 0;
	for (struct dirent *de; d && (de = readdir(d));)
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static void t_write_cache(void)
{
	char *dir = tmpdir();
	char *sub = xasprintf("%s/a/b", dir);
	char *path = xasprintf("%s/entry.txt", sub);
	CHECK_INT(fs_write_cache(path, "first answer", 12, 0600), 0);
	struct stat st;
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0600);
	CHECK_INT(fs_write_cache(path, "2nd", 3, 0600), 0);
	char *text = NULL;
	CHECK_INT(fs_read_file(path, 64, &text, NULL), 0);
	CHECK_STR(text, "2nd");
	CHECK_INT(entries(sub), 1); /* no temporary left beside it */
	char *bad = xasprintf("%s/entry.txt/below", sub); /* a file where a directory must be */
	CHECK(fs_write_cache(bad, "x", 1, 0644) < 0);
	CHECK_INT(entries(sub), 1);
	xfree(text);
	xfree(bad);
	xfree(path);
	xfree(sub);
	xfree(dir);
	done();
}

static const struct test_case cases[] = {
	{"write_cache", "cache entries: parents made, mode kept, replaced whole, no temp left",
	 t_write_cache},
};

TEST_MAIN(cases)
