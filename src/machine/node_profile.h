/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ceilings per node (model/node_machines.h). On each node, the rank shim
 * records the Machine its rank ran on: node_profile_record() takes the
 * node's snapshot (with the CPU set the launcher holds there, the shim's
 * parent's, not the rank's own binding to some of its cores), loads the
 * Ceilings cached for its identity on that node, calibrates (never before the application, which that would delay; one rank per node
 * may calibrate after it, below), and writes
 * <collect>/machines/<identity>.json = {"machine": {...}, "cached": bool,
 * "why": text or null} once per identity; rank.json names the identity.
 * Back on the launch node, node_machines_gather() reads them and
 * node_machines_resolve() decides each node's Ceilings: the launch node's
 * when the node is the same Machine, the node's own cached ones, else the
 * launch node's downgraded to estimated with the reason.
 */
#ifndef NUNATAK_MACHINE_NODE_PROFILE_H
#define NUNATAK_MACHINE_NODE_PROFILE_H

#include <sys/types.h>
#include "model/machine_identity.h"
#include "model/node_machines.h"

struct err;

#define NODE_PROFILE_DIR "machines" /* below the collect directory */

struct executor;

/* Calibration on a node (one rank per node asks for it, after its
 * application): once per Machine identity, as the launch node's first Run. */
struct node_calibration {
	struct executor *x;
	const char *launch_id; /* the launch node's Machine: never calibrated here */
	double budget_s;       /* [calibration] budget */
	const char *cc;        /* [tools] cc, or NULL */
	const char *sampler_lib; /* the preload sampler (its cost per sample), or NULL */
};

/* On a node: writes its Machine into <collect_dir>/machines/ (see above)
 * and its identity into id. With cal (non-NULL), a Machine other than the
 * launch node's without a cached profile is calibrated first (with the
 * launcher's CPU set there) and cached on the node, so this Run and later
 * ones use its own Ceilings. Returns 0, or a negative errno (e filled): the
 * rank then records no Machine, and its node borrows the launch node's
 * Ceilings with that reason. launcher: the pid of the launcher's process on
 * the node (the shim's parent before it split off its writer), whose CPU
 * set is the node's allocation; <= 0: this process's parent. */
int node_profile_record(const char *collect_dir, const struct node_calibration *cal,
			pid_t launcher, char id[MACHINE_ID_SIZE], struct err *e);

/* On the launch node: one entry per (node, Machine) from the rank.json files
 * ("node", "machine") and the Machines the shims wrote, then resolved against
 * launch. out is empty (0 entries) when no rank recorded a Machine (a Run of
 * an older nunatak, a synthetic one): every rank then keeps the Run's
 * Ceilings as before. Returns 0 or -ENOMEM. */
int node_machines_gather(const char *collect_dir, const struct machine *launch,
			 struct node_machines *out, struct err *e);

/* Pure: fills each entry's Ceilings and source against the launch Machine.
 * An entry's m holds the node's snapshot (when known) and the Ceilings cached
 * on the node for it (none when not cached); `why[i]` (may be NULL) says why
 * the node had none. Network Ceilings are the pair's, never a node's: they
 * are left out. Returns 0 or -ENOMEM. */
int node_machines_resolve(struct node_machines *nm, const struct machine *launch,
			  const char *const *why, struct err *e);

#endif
