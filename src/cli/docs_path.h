/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where the user's documentation is, for --help to point at: the installed
 * pages (`cmake --install` puts README.md and docs/ under
 * <prefix>/share/doc/nunatak, found from the running executable, so a moved
 * prefix still works), else the source tree this build came from. Pages are
 * named as in the source tree: "README.md", "docs/cli/run.md".
 */
#ifndef NUNATAK_CLI_DOCS_PATH_H
#define NUNATAK_CLI_DOCS_PATH_H

#include <stdio.h>

/* The directory holding README.md and docs/ (the installed one, else the
 * source tree), or NULL when neither is readable; caller frees. */
char *cli_docs_dir(void);

/* "documentation: <dir>/<page>" (or the line saying where to find it) on f. */
void cli_print_docs_line(FILE *f, const char *page);

#endif
