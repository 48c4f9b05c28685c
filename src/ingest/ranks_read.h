/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sampling ranks' recordings read ahead of ingest_ranks()'s serial pass
 * (ingest/ranks.h): reading and aggregating a rank's perf.data is the part
 * of the finish that grows with ranks (their samples, their context
 * switches: ranks sharing a core switch 15-20x more often), and it touches
 * no pivot (ingest/perf_data.h, perf_data_read__file). So it runs
 *
 *  - while the launch still runs (ranks_prefetch): a thread reads each
 *    rank as soon as its shim has written rank.json, the shim's last file
 *    (collect/rank_shim.c), during the launcher's own teardown (srun's is
 *    ~0.1 s) and the other ranks' ends;
 *  - after it, on several threads (ranks_read_rest): what is left.
 *
 * The serial pass then writes the reads into the pivot in rank order, as
 * it did reading them itself: the pivot is the same, entity for entity
 * (tests/unit/ingest/test_ranks_read.c). Nothing here forks or execs, and
 * every signal is blocked on the threads (they stay the main thread's).
 */
#ifndef NUNATAK_INGEST_RANKS_READ_H
#define NUNATAK_INGEST_RANKS_READ_H

#include <stdbool.h>

#include "common/err.h"
#include "ingest/aggregate.h"
#include "ingest/buildid.h"

struct perf_data_read;

/* One rank directory's recording, read. */
struct rank_read {
	int rank;
	bool sampled;                 /* rank.json: sampled by perf (no "sps"): read */
	int rc;                       /* perf_data_read__file's */
	struct err e;                 /* its error when rc < 0 */
	struct ingest_stats st;       /* what the read counted */
	struct buildid_list ids;      /* the shim's perf-buildid-list.txt */
	bool have_ids;                /* ... parsed and not empty */
	struct perf_data_read *r;     /* rc == 0: the read, for the emit */
};

struct rank_reads {
	struct rank_read *v;
	size_t n, cap;
};

/* x's perf.data and build-id list (x->rank set, the rest zero): the read
 * ingest/ranks.c makes itself for a rank that none read ahead. */
void rank_read__perf(const char *collect_dir, struct rank_read *x);
void rank_read__release(struct rank_read *x);
void rank_reads__release(struct rank_reads *rr);
/* The read of rank's directory, or NULL when none was made. */
struct rank_read *rank_reads__find(struct rank_reads *rr, int rank);

/* Reads the ranks of ranks[0..n) that rr does not hold yet, on up to
 * `threads` threads (the caller's included; 0: one per online CPU, at most
 * 4), into rr. 0 or -ENOMEM. */
int ranks_read_rest(const char *collect_dir, const int *ranks, int n, int threads,
		    struct rank_reads *rr);

/* The read-ahead thread over collect_dir while the launch runs. Ranks whose
 * rank.json is already there when it starts (an earlier launch's) are left
 * to the serial pass. With world_size > 0 and fn, once the world is
 * complete (rank-0 .. rank-<world_size - 1> only, each with its rank.json,
 * none left from before) the thread runs fn(ctx, collect_dir, its reads)
 * and ends: the whole ingestion can happen there, before the launcher has
 * ended (srun's teardown is ~0.1 s); ranks_prefetch__stop_complete says
 * whether that work stands. NULL when no thread could start (nothing is
 * read ahead then). */
struct ranks_prefetch;
typedef void (*ranks_complete_fn)(void *ctx, const char *collect_dir, struct rank_reads *rr);
struct ranks_prefetch *ranks_prefetch__start(const char *collect_dir, int world_size,
					     ranks_complete_fn fn, void *ctx);
/* Stops the thread; true when fn ran and nothing in the rank directories
 * changed since (the same files: names, inodes, sizes, times; the same
 * directories): what fn made from them is what reading them now makes. */
bool ranks_prefetch__stop_complete(struct ranks_prefetch *pf);
/* Stops the thread (the rank it is reading is finished first) and moves
 * its reads into rr. 0 or -ENOMEM. */
int ranks_prefetch__take(struct ranks_prefetch *pf, struct rank_reads *rr);
/* How many ranks the thread had read when taken (-1: never taken). */
int ranks_prefetch__nr_read(const struct ranks_prefetch *pf);
/* How many ranks the thread has read so far (while it runs). */
int ranks_prefetch__ready(struct ranks_prefetch *pf);
void ranks_prefetch__free(struct ranks_prefetch *pf);

#endif
