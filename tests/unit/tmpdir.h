/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Temporary trees for unit tests: tmpdir() makes one (under /tmp, named after
 * TMPDIR_TAG, which the including file defines first), done() removes every
 * tree the case made. A case calls done() only when it passed, so a failing
 * case leaves its trees for inspection. Include after harness.h.
 */
#ifndef TESTS_UNIT_TMPDIR_H
#define TESTS_UNIT_TMPDIR_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TMPDIR_TAG
#error "define TMPDIR_TAG before including tmpdir.h"
#endif

static char *made[8];
static size_t nr_made;

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void done(void)
{
	for (size_t i = 0; i < nr_made; i++)
		nftw(made[i], rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	nr_made = 0;
}

/* Returns a fresh directory; the caller frees the string. */
static char *tmpdir(void)
{
	char tmpl[] = "/tmp/nunatak-test-" TMPDIR_TAG "-XXXXXX";
	char *d = mkdtemp(tmpl);
	CHECK(d != NULL && nr_made < 8);
	made[nr_made++] = strdup(d);
	return strdup(d);
}

#endif
