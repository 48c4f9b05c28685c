/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A library path the dynamic loader can read from LD_PRELOAD. ld.so splits
 * LD_PRELOAD at spaces and colons, so a library under a directory whose name
 * holds one (a clone under "My Projects/") would be ignored: the sampler
 * would record nothing, the MPI probe would measure nothing. Such a library
 * is reached through a symlink in a private directory of /tmp instead,
 * removed when the caller releases it.
 */
#ifndef NUNATAK_COLLECT_PRELOAD_PATH_H
#define NUNATAK_COLLECT_PRELOAD_PATH_H

struct preload_path {
	char *path; /* what to put in LD_PRELOAD (lib itself when it is fine) */
	char *dir;  /* the private directory made for it, or NULL */
};

/* Fills pp for lib (NULL lib: pp->path NULL). Returns 0 or -errno; on
 * failure pp->path is lib unchanged and the caller says what was lost. */
int preload_path__make(struct preload_path *pp, const char *lib);
/* Removes the symlink and the directory, frees the strings. */
void preload_path__release(struct preload_path *pp);

#endif
