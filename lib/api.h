/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Process-wide configuration and lifecycle behind the public API: lazy
 * initialisation from the environment, finalize, the exit hook and fork.
 */
#ifndef SP_API_H
#define SP_API_H

#include <stdbool.h>

/* Initialises from the environment if no call has yet. Idempotent. */
void sp_api__ensure_init(void);

/* What finalize needs from the API layer's configuration (borrowed). */
struct sp_config {
	const char *prefix; /* NULL only after ENOMEM */
	const char *label;
	int rank;
	bool explicit_init; /* sp_init called: write an .spt even if empty */
	int world_size;     /* from the launcher's environment, -1 unknown */
};

/*
 * Stops sampling, turns the library into its finalized state, assembles the
 * trace and writes the files, then reports misuse through the log. Called
 * once, under the API lock. Returns 0 or the first -errno.
 */
int sp_finalize__locked(const struct sp_config *cfg);

#endif
