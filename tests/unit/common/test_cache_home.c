// SPDX-License-Identifier: BSD-3-Clause
#include "common/cache_home.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define MAKERS 6

static void rm_tree(const char *dir)
{
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

/* A fresh directory in base; returns the caller's XDG_CACHE_HOME, kept. */
static char *temp_dir(char *base, size_t cap)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(base, cap, "%s/nunatak-seal-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	CHECK(mkdtemp(base));
	return getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME")) : NULL;
}

static void restore_cache_home(char *old)
{
	if (old)
		setenv("XDG_CACHE_HOME", old, 1);
	else
		unsetenv("XDG_CACHE_HOME");
	free(old);
}

/* Names in dir other than "." and ".."; the first one's name in first. */
static int entries(const char *dir, char *first, size_t cap)
{
	DIR *d = opendir(dir);
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (n++ == 0)
			snprintf(first, cap, "%s", e->d_name);
	}
	if (d)
		closedir(d);
	return n;
}

/* One round: MAKERS processes released at once on an empty cache each ask
 * for the seal key. Every one gets it (none sees a half-written file), all
 * get the same key (no maker replaces another's), it is the file's, 0600,
 * and no temporary file is left beside it. */
static void one_round(const char *xdg)
{
	int go[2], res[2];
	CHECK(pipe(go) == 0 && pipe(res) == 0);
	pid_t pids[MAKERS];
	for (int i = 0; i < MAKERS; i++) {
		pids[i] = fork();
		CHECK(pids[i] >= 0);
		if (pids[i] == 0) {
			close(go[1]);
			close(res[0]);
			char c;
			(void)!read(go[0], &c, 1); /* EOF: released with the others */
			unsigned char out[4 + CACHE_SEAL_KEY_SIZE] = {0};
			int rc = cache_seal_key(out + 4);
			memcpy(out, &rc, 4);
			_exit(write(res[1], out, sizeof(out)) == (ssize_t)sizeof(out) ? 0 : 1);
		}
	}
	close(go[0]);
	close(res[1]);
	close(go[1]); /* all go */
	unsigned char got[MAKERS][4 + CACHE_SEAL_KEY_SIZE];
	for (int i = 0; i < MAKERS; i++)
		CHECK(read(res[0], got[i], sizeof(got[i])) == (ssize_t)sizeof(got[i]));
	close(res[0]);
	for (int i = 0; i < MAKERS; i++) {
		int st = 0;
		CHECK(waitpid(pids[i], &st, 0) == pids[i] && WIFEXITED(st) && !WEXITSTATUS(st));
	}
	char dir[4300], path[4400], name[256] = "";
	snprintf(dir, sizeof(dir), "%s/nunatak", xdg);
	snprintf(path, sizeof(path), "%s/seal.key", dir);
	unsigned char file[CACHE_SEAL_KEY_SIZE + 1];
	int fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	CHECK_INT((int)read(fd, file, sizeof(file)), CACHE_SEAL_KEY_SIZE);
	close(fd);
	struct stat sb;
	CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600);
	for (int i = 0; i < MAKERS; i++) {
		int rc;
		memcpy(&rc, got[i], 4);
		CHECK_INT(rc, 0);
		CHECK(!memcmp(got[i] + 4, file, CACHE_SEAL_KEY_SIZE));
	}
	CHECK_INT(entries(dir, name, sizeof(name)), 1);
	CHECK_STR(name, "seal.key");
}

static void t_seal_key_concurrent(void)
{
	char base[4096];
	char *old = temp_dir(base, sizeof(base));
	for (int r = 0; r < 30; r++) {
		char xdg[4200];
		snprintf(xdg, sizeof(xdg), "%s/r%d", base, r);
		CHECK(mkdir(xdg, 0700) == 0);
		setenv("XDG_CACHE_HOME", xdg, 1);
		one_round(xdg);
	}
	restore_cache_home(old);
	rm_tree(base);
}

/* A key file of the wrong length is never ours: refused, and left as it is
 * (replacing it would change the seal of everything already cached). */
static void t_seal_key_short(void)
{
	char base[4096], path[4200];
	char *old = temp_dir(base, sizeof(base));
	setenv("XDG_CACHE_HOME", base, 1);
	snprintf(path, sizeof(path), "%s/nunatak", base);
	CHECK(mkdir(path, 0700) == 0);
	snprintf(path, sizeof(path), "%s/nunatak/seal.key", base);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0 && write(fd, "short", 5) == 5);
	close(fd);
	uint8_t key[CACHE_SEAL_KEY_SIZE];
	CHECK_INT(cache_seal_key(key), -EBADMSG);
	struct stat sb;
	CHECK(stat(path, &sb) == 0 && sb.st_size == 5);
	restore_cache_home(old);
	rm_tree(base);
}

static const struct test_case cases[] = {
	{"seal_key_concurrent", "makers at once on an empty cache: one whole key for all",
	 t_seal_key_concurrent},
	{"seal_key_short", "a key of the wrong length: refused and left as it is", t_seal_key_short},
};
TEST_MAIN(cases)
