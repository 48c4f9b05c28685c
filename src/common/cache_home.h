/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one rule for where nunatak caches things: $XDG_CACHE_HOME, else
 * $HOME/.cache (the XDG base-directory default). Every cache (Machine
 * profiles, the measured perf cost per sample, tools' answers, the MPI
 * probes, the calibration kernel) derives its folder from here, so a writer
 * and its reader cannot disagree.
 *
 * The cache is private (docs/security.md): its root <cache home>/nunatak is
 * created 0700 (and narrowed to 0700 when it exists); a root another user
 * owns, or under a directory others can write, is not used at all. What is
 * read from it is checked one file at a time (common/safefs.h: owned, not
 * writable by others, no symlink), and what it executes or answers is
 * sealed: an HMAC-SHA256 under a key only this user can read
 * (<root>/seal.key, 0600, random), over what it was built from and what it
 * holds, so an entry nunatak did not write itself is a miss, never a hit.
 */
#ifndef NUNATAK_COMMON_CACHE_HOME_H
#define NUNATAK_COMMON_CACHE_HOME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/sha256.h"

/* Returns a malloc'd "<cache home>/nunatak/<sub>" (sub may be ""), or NULL
 * when neither variable is set or the cache root cannot be trusted
 * (*no_home = 1), or on ENOMEM (*no_home = 0). The root is made private
 * first (sub itself is not created). */
char *cache_home_path(const char *sub, int *no_home);

/* cache_home_path(), and when the root is refused, *why (malloc'd) says
 * which directory and why ("the cache X is not used: Y: owned by another
 * user ..."); *why stays NULL otherwise. */
char *cache_home_dir(const char *sub, int *no_home, char **why);

/* A cost per sample bench/run measured on this machine, in seconds: the
 * number in <cache>/nunatak/<name> when it is there, ours and sane
 * (finite, 0 < v < 10 ms; *measured set), else fallback (*measured false). */
double cache_home_read_cost(const char *name, double fallback, bool *measured);

#define CACHE_SEAL_KEY_SIZE 32

/* The user's cache key (made on first use). 0, or -errno: no key, nothing
 * can be sealed or trusted (every sealed read is a miss). */
int cache_seal_key(uint8_t key[CACHE_SEAL_KEY_SIZE]);

/* The seal of the pair (a, b) under key, as lowercase hex. */
void cache_seal_with(const uint8_t key[CACHE_SEAL_KEY_SIZE], const void *a, size_t alen,
		     const void *b, size_t blen, char hex[SHA256_HEX_SIZE]);

/* cache_seal_with() over many b after one a (the records of one cache
 * file under the file's key): the HMAC state after the key and a is
 * computed once and copied for each b, so each seal costs b and the two
 * final blocks only. The same seals, byte for byte (unit_common_test_sha256
 * compares them with the HMAC written out). accel: the CPU's SHA
 * instructions (sha256_accel_available()), or -1 to ask only for a b of
 * 4 kB or more. */
struct cache_sealer {
	struct hmac_sha256 h;
};
void cache_sealer__init(struct cache_sealer *s, const uint8_t key[CACHE_SEAL_KEY_SIZE],
			const void *a, size_t alen, signed char accel);
void cache_sealer__seal(const struct cache_sealer *s, const void *b, size_t blen,
			char hex[SHA256_HEX_SIZE]);

/* Seals the file nunatak just built or wrote at path: "<path>.seal" holds
 * the seal of (recipe, the file's bytes). recipe names what it was built
 * from (sources, compiler). Returns 0 or -errno (then it is never reused). */
int cache_seal_file(const char *path, const void *recipe, size_t rlen);

/* cache_seal_file() for the bytes just written to path (text, len), sealed
 * from memory instead of read back: what cache_sealed_text_problem() checks.
 * A file replaced in between by other bytes fails its check (a miss). */
int cache_seal_text(const char *path, const void *recipe, size_t rlen, const void *text,
		    size_t len);

/* NULL when path may be reused: ours, regular, and its seal matches
 * (recipe, its bytes) now; else a static phrase saying why it is a miss
 * ("absent", "is a symbolic link ...", "differs from what nunatak built"). */
const char *cache_sealed_file_problem(const char *path, const void *recipe, size_t rlen);

/* cache_sealed_file_problem() for bytes already read from path (so what is
 * checked is what is used): NULL when "<path>.seal" matches (recipe, text). */
const char *cache_sealed_text_problem(const char *path, const void *recipe, size_t rlen,
				      const void *text, size_t len);

#endif
