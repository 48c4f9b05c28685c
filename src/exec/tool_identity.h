// SPDX-License-Identifier: BSD-3-Clause
/*
 * What the dynamic loader would load into a cached tool in place of its own
 * libraries because of the child's environment (LD_LIBRARY_PATH, LD_PRELOAD):
 * the part of a tool's identity that its binary's (dev, inode, size, mtime)
 * does not cover. Private to exec/cache.c.
 */
#ifndef NUNATAK_EXEC_TOOL_IDENTITY_H
#define NUNATAK_EXEC_TOOL_IDENTITY_H

#include "exec/exec.h"

/* The last answers, by tool and environment: a Run calls the same few tools
 * many times (one llvm-symbolizer per module) and a walk reads tens of
 * objects. Owned by one caching executor (a Run), zeroed to start. */
#define TOOL_ENV_MEMO 8
struct tool_env_memo {
	char *in[TOOL_ENV_MEMO];  /* "prog\0LD_LIBRARY_PATH\0LD_PRELOAD\0cwd" */
	size_t in_len[TOOL_ENV_MEMO];
	char *out[TOOL_ENV_MEMO]; /* the answer, NULL: nothing redirected */
	size_t next;
};

void tool_env_memo__release(struct tool_env_memo *m);

/*
 * For the tool at absolute path `prog` run as `req` (its env edits applied to
 * this process's environment): *out is NULL when neither LD_LIBRARY_PATH nor
 * LD_PRELOAD is set or when they redirect none of the libraries the tool
 * loads; otherwise a malloc'd text naming each redirected or preloaded
 * object with its identity (device, inode, size, mtime in ns), which the
 * caller adds to the key. Reads only the objects' ELF program headers and
 * dynamic sections and stats candidate files: starts no process. A tool
 * and environment seen before by `memo` get the same answer without a walk
 * (the libraries are taken to stay unchanged during one Run).
 * Returns 0, or -ENOMEM.
 */
int tool_env_identity(struct tool_env_memo *memo, const char *prog,
		      const struct exec_request *req, char **out);

#endif
