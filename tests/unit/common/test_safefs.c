// SPDX-License-Identifier: BSD-3-Clause
/* Files another user could have written (common/safefs.h) and the cache's
 * seal (common/cache_home.h): the trust rule on modes and owners, opening
 * that refuses symlinks and never blocks on a FIFO, the private cache root,
 * sealed files that are a miss once changed. */
#include "common/safefs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/cache_home.h"
#include "common/err.h"
#include "common/fsutil.h"
#include "harness.h"
#define TMPDIR_TAG "safefs"
#include "tmpdir.h"

static void t_rule(void)
{
	struct stat st = {0};
	st.st_uid = geteuid();
	st.st_gid = getegid();
	st.st_mode = S_IFREG | 0644;
	CHECK(safefs_untrusted_why(&st) == NULL);
	st.st_mode = S_IFREG | 0664; /* our own group: user-private groups */
	CHECK(safefs_untrusted_why(&st) == NULL);
	st.st_gid = getegid() + 1;
	CHECK(safefs_untrusted_why(&st) != NULL);
	st.st_mode = S_IFREG | 0646;
	st.st_gid = getegid();
	CHECK(strstr(safefs_untrusted_why(&st), "every user"));
	st.st_mode = S_IFDIR | 01777; /* /tmp */
	CHECK(safefs_untrusted_why(&st) == NULL);
	st.st_mode = S_IFDIR | 0777;
	CHECK(safefs_untrusted_why(&st) != NULL);
	st.st_mode = S_IFREG | 0644;
	st.st_uid = geteuid() == 0 ? 65534 : geteuid() + 1;
	CHECK(strstr(safefs_untrusted_why(&st), "another user"));
	st.st_uid = 0;
	CHECK(safefs_untrusted_why(&st) == NULL);
	done();
}

static void t_open(void)
{
	char *dir = tmpdir();
	char *f = fs_join(dir, "f"), *l = fs_join(dir, "l"), *p = fs_join(dir, "p");
	struct err e = {0};
	CHECK_INT(fs_write_atomic(f, "x", 1, &e), 0);
	CHECK_INT(symlink(f, l), 0);
	CHECK_INT(mkfifo(p, 0600), 0);
	int fd = safefs_open_regular(f);
	CHECK(fd >= 0);
	close(fd);
	CHECK_INT(safefs_open_regular(l), -ELOOP);
	CHECK_INT(safefs_open_regular(p), -EINVAL); /* returns: never blocks */
	CHECK_INT(safefs_open_regular(dir), -EINVAL);
	CHECK(strstr(safefs_strerror(-EINVAL), "FIFO"));
	CHECK_INT(chmod(f, 0646), 0);
	CHECK_INT(safefs_open_owned(f), -EPERM);
	char *text = NULL;
	CHECK_INT(safefs_read_owned(f, 16, &text, NULL), -EPERM);
	CHECK_INT(chmod(f, 0600), 0);
	CHECK_INT(safefs_read_owned(f, 16, &text, NULL), 0);
	CHECK_STR(text, "x");
	xfree(text);
	xfree(f);
	xfree(l);
	xfree(p);
	done();
}

static void t_private_root(void)
{
	char *dir = tmpdir(), *why = NULL;
	char *root = xasprintf("%s/a/b/nunatak", dir);
	CHECK_INT(safefs_mkdir_private(root, &why), 0);
	struct stat st;
	CHECK(stat(root, &st) == 0 && (st.st_mode & 07777) == 0700);
	CHECK_INT(chmod(root, 0755), 0); /* made by an older nunatak */
	CHECK_INT(safefs_mkdir_private(root, &why), 0);
	CHECK(stat(root, &st) == 0 && (st.st_mode & 07777) == 0700);
	/* under a directory every user can write (not sticky): refused */
	char *open_dir = xasprintf("%s/a", dir);
	CHECK_INT(chmod(open_dir, 0777), 0);
	CHECK_INT(safefs_mkdir_private(root, &why), -EPERM);
	CHECK(why && strstr(why, "writable by every user"));
	xfree(why);
	CHECK_INT(chmod(open_dir, 0755), 0);
	if (geteuid() == 0) { /* a root pre-created by another user */
		CHECK_INT(chown(root, 65534, 65534), 0);
		CHECK_INT(safefs_mkdir_private(root, &why), -EPERM);
		CHECK(why && strstr(why, "owned by another user"));
		xfree(why);
		CHECK_INT(chown(root, 0, 0), 0);
	}
	/* a symlink where the root should be */
	char *link_root = xasprintf("%s/c", dir);
	CHECK_INT(symlink(root, link_root), 0);
	CHECK_INT(safefs_mkdir_private(link_root, &why), -EPERM);
	xfree(why);
	xfree(root);
	xfree(open_dir);
	xfree(link_root);
	done();
}

static void t_seal(void)
{
	char *dir = tmpdir();
	setenv("XDG_CACHE_HOME", dir, 1);
	int no_home;
	char *path = cache_home_path("prog", &no_home);
	struct err e = {0};
	CHECK_INT(fs_write_atomic(path, "binary", 6, &e), 0);
	CHECK_STR(cache_sealed_file_problem(path, "src", 3), "has no seal of ours");
	CHECK_INT(cache_seal_file(path, "src", 3), 0);
	CHECK(cache_sealed_file_problem(path, "src", 3) == NULL);
	CHECK(cache_sealed_file_problem(path, "other source", 12) != NULL);
	CHECK(cache_sealed_text_problem(path, "src", 3, "binary", 6) == NULL);
	CHECK(cache_sealed_text_problem(path, "src", 3, "binarY", 6) != NULL);
	CHECK_INT(fs_write_atomic(path, "planted", 7, &e), 0);
	CHECK(strstr(cache_sealed_file_problem(path, "src", 3), "differs"));
	/* sealed from the bytes in memory: the same seal as read back */
	CHECK_INT(fs_write_atomic(path, "written", 7, &e), 0);
	CHECK_INT(cache_seal_text(path, "src", 3, "written", 7), 0);
	CHECK(cache_sealed_file_problem(path, "src", 3) == NULL);
	CHECK(cache_sealed_text_problem(path, "src", 3, "written", 7) == NULL);
	CHECK_INT(cache_seal_text(path, "src", 3, "other bytes", 11), 0); /* not the file's */
	CHECK(strstr(cache_sealed_file_problem(path, "src", 3), "differs"));
	/* the key is private and random: two caches seal differently */
	char *key = cache_home_path("seal.key", &no_home);
	struct stat st;
	CHECK(stat(key, &st) == 0 && (st.st_mode & 07777) == 0600 && st.st_size == 32);
	/* a cost read back must be a sane number */
	char *cost = cache_home_path("perf-sample-cost", &no_home);
	bool measured = true;
	CHECK_INT(fs_write_atomic(cost, "nan", 3, &e), 0);
	CHECK_NEAR(cache_home_read_cost("perf-sample-cost", 7, &measured), 7, 0);
	CHECK(!measured);
	CHECK_INT(fs_write_atomic(cost, "-1e-6", 5, &e), 0);
	CHECK_NEAR(cache_home_read_cost("perf-sample-cost", 7, &measured), 7, 0);
	CHECK_INT(fs_write_atomic(cost, "2e-6", 4, &e), 0);
	CHECK_NEAR(cache_home_read_cost("perf-sample-cost", 7, &measured), 2e-6, 1e-12);
	CHECK(measured);
	unsetenv("XDG_CACHE_HOME");
	xfree(path);
	xfree(key);
	xfree(cost);
	done();
}

static const struct test_case cases[] = {
	{"rule", "owned by you or root, writable by nobody else (sticky dirs aside)", t_rule},
	{"open", "symlinks refused, FIFOs never block, others' writable files refused", t_open},
	{"private_root", "the cache root is made 0700, refused when another's or exposed",
	 t_private_root},
	{"seal", "a sealed file is a miss once changed; costs read back are sane", t_seal},
};
TEST_MAIN(cases)
