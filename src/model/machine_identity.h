/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Machine identity: the first 16 hex digits of the SHA-256 of the canonical
 * JSON of {system, architecture, cpu_model, logical_cores, visible_cores,
 * affinity_mask, cpu_quota, memory_limit_bytes}, byte-identical to the
 * reference's `json.dumps(..., sort_keys=True)` (separators ", " and ": ",
 * non-ASCII escaped as \uXXXX, floats as Python's repr, unknowns as null), so
 * a Machine keeps the identity the Python predecessor gave it. The kernel
 * release and the Ceilings are left out on purpose: a kernel update does not
 * change what the silicon can reach, and Ceilings are the profile's content,
 * never its key.
 */
#ifndef NUNATAK_MODEL_MACHINE_IDENTITY_H
#define NUNATAK_MODEL_MACHINE_IDENTITY_H

#include <stddef.h>

struct machine;

#define MACHINE_ID_SIZE 17 /* 16 hex digits + NUL */

/* Writes the identity into id. Returns 0 or -ENOMEM. Thread-safe. */
int machine_identity(const struct machine *m, char id[MACHINE_ID_SIZE]);

/* The canonical JSON text hashed by machine_identity (caller frees), or NULL
 * on allocation failure. Exposed for tests and for `doctor -v`. */
char *machine_identity_json(const struct machine *m);

/* Python's repr(float): shortest round-trip digits, ".0" on integral values,
 * exponent form below 1e-4 and from 1e16. Writes into buf (>= 32 bytes). */
void py_float_repr(double v, char *buf, size_t size);

#endif
