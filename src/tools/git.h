/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Provenance helpers: what lets a Run be explained without replaying it.
 * Best effort and descriptive, never blocking: a missing git, a directory
 * outside any repository or a failing git leaves the fields null.
 *
 * git is the configured tool (`[tools] git`, config__tool(); NULL means
 * "git" from PATH). It runs through the executor (never directly), so recordings capture it
 * and replays serve it. The order of invocations matches the recordings of
^ * tests/corpus: `rev-parse --show-toplevel` at naming time, later
 * `rev-parse HEAD`, and `status --porcelain` only when HEAD resolved (the
 * replay queue for "git" is FIFO, so this order is part of the contract).
 */
#ifndef NUNATAK_TOOLS_GIT_H
#define NUNATAK_TOOLS_GIT_H

struct err;
struct executor;
struct provenance;

/* `git -C <cwd> rev-parse --show-toplevel`. *toplevel_out receives the path
 * (caller frees) or NULL when git is absent or cwd is not in a repository.
 * Returns 0, or a negative errno when nunatak itself failed (out of memory,
 * a recording that cannot be written), with e filled. */
int provenance_git_toplevel(struct executor *x, const char *git, const char *cwd,
			    char **toplevel_out,
			    struct err *e);

/* Fills p->commit (`git -C <cwd> rev-parse HEAD`, a 40- or 64-hex id) and
 * p->dirty_tree (`git status --porcelain` non-empty; -1 when unknown).
 * Previous values are replaced. Returns 0 or a negative errno as above. */
int provenance_collect_git(struct provenance *p, struct executor *x, const char *git,
			   const char *cwd,
			   struct err *e);

#endif
