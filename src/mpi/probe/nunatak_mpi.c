// SPDX-License-Identifier: BSD-3-Clause
/*
 * nunatak's MPI interposition library (PMPI). Shipped as source inside
 * nunatak (embedded at build time), written to
 * $XDG_CACHE_HOME/nunatak/probes/<stack key>/ and compiled there with the
 * Run's own MPI compiler wrapper (`mpicc -O2 -fPIC -shared`), so it matches
 * the MPI the ranks load. The rank shim injects it with LD_PRELOAD and names
 * its output file in NUNATAK_MPI_PROFILE; without that variable, or before
 * MPI_Init, every wrapper is a plain forward.
 *
 * Per rank it records, for each MPI function: calls, time (ns, CLOCK_MONOTONIC
 * around the PMPI call) and bytes; the same per call site (the caller's return
 * address, written as module + ELF virtual address for nunatak's symbolizer);
 * and Events: every call of at least NUNATAK_MPI_EVENT_NS (default 50 us) up
 * to NK_LONG_CAP, and 1 in NK_SAMPLE_EVERY shorter calls up to NK_SHORT_CAP.
 * What exceeds a bound is counted (`dropped`), never silently lost.
 *
 * Bytes are the payload the call moves for this rank: sent for sends, received
 * (MPI_Get_count of the status) for blocking receives, posted for MPI_Irecv,
 * sent + received for MPI_Sendrecv, this rank's send buffer for collectives
 * (MPI_Bcast: the buffer at every rank), the origin buffer for one-sided calls.
 * Wait/test calls carry no bytes: the request's were counted when posted.
 *
 * The polling family (MPI_Test*, MPI_Iprobe, MPI_Improbe,
 * MPI_Request_get_status) takes a cheaper path: per-thread counters only,
 * 1 call in 64 timed and the others' time estimated from them
 * (nunatak_mpi_poll.inc), their Fortran bindings too
 * (nunatak_mpi_fortran_poll.inc).
 *
 * Cost: two clock reads, one hash probe and a few adds per call; nothing
 * allocates on that path. The clock is the TSC when the kernel itself keeps
 * time with it (clocksource tsc, constant_tsc and nonstop_tsc: synchronised
 * across CPUs), converted to CLOCK_MONOTONIC nanoseconds at each write from
 * two (TSC, CLOCK_MONOTONIC) anchors; clock_gettime otherwise. The adds are
 * atomic read-modify-writes only under MPI_THREAD_MULTIPLE; at lower thread
 * levels one thread at a time calls MPI, and plain relaxed loads and stores
 * suffice. Nested calls (a Fortran binding that
 * calls the C one, as MPICH's do) count once, at the outermost wrapper, whose
 * caller is the user's code.
 *
 * Output (NUNATAK_MPI_PROFILE), tab-separated text, replaced atomically
 * (written beside, then renamed): at MPI_Finalize (state finalized), at exit
 * without it (state exited), at MPI_Abort (aborted), and every
 * NUNATAK_MPI_FLUSH_MS (default 5000) from the call that crosses the period
 * (state running), so a rank killed before MPI_Finalize still leaves its
 * figures up to its last flush. Format, one record per line:
 *   nunatak-mpi 1 | rank R | world N | node HOST | pid P | state S | library TEXT
 *   init_ns T (monotonic at MPI_Init's return) | wall_ns W (init to write)
 *   function NAME CALLS TIME_NS BYTES
 *   probe_cost_ps FAST FULL (the probe's own cost per call on this rank,
 *     measured at MPI_Init: a polling call's, any other call's)
 *   skipped NAME (left out by NUNATAK_MPI_SKIP: forwarded, not recorded)
 *   polled NAME CALLS TIMED_CALLS COMPLETED (a polling function: only
 *     TIMED_CALLS of its CALLS were timed, its TIME_NS and its sites' are
 *     estimated; COMPLETED: calls that found something complete)
 *   site NAME MODULE 0xVADDR CALLS TIME_NS BYTES
 *   event NAME START_NS DURATION_NS BYTES PEER
 *   peer send|recv WORLD_RANK CALLS TIME_NS BYTES
 *   dropped SITES EVENTS | end
 * PEER is the rank in the call's communicator, -1 when none.
 *
 * `peer` records are exact point-to-point totals per partner, by rank in
 * MPI_COMM_WORLD (one line per partner and direction with calls): `send`
 * for the send calls naming it (bytes sent; MPI_Sendrecv's send half counts
 * its message and bytes, no time), `recv` for the receives naming it
 * (MPI_Recv, MPI_Sendrecv and MPI_Sendrecv_replace by the status' actual
 * source, bytes received; MPI_Irecv by its posted source, bytes posted; time
 * of the blocking calls). A communicator's ranks are translated to
 * MPI_COMM_WORLD's once, when first seen (MPI_Comm_compare, else the group
 * translation), and forgotten at MPI_Comm_free; WORLD_RANK -1 sums the calls
 * whose partner could not be placed (an intercommunicator, more than
 * NK_COMM_SLOTS communicators at once, a world larger than NK_PEER_MAX).
 * Completion calls (MPI_Wait*, MPI_Test*) name no partner and are not in it,
 * nor are collectives and one-sided calls (their totals are the functions').
 *
 * Collectives (nunatak_mpi_colls.inc), two more records:
 *   ccomm ID SIZE MEMBERS   a communicator's members, by rank in
 *     MPI_COMM_WORLD in the communicator's order: comma-separated `a`, `a-b`
 *     (a to b by 1) or `a-b:s` (a to b by s); a long list spans several
 *     `ccomm` lines of one ID, each adding members. ID 0 is MPI_COMM_WORLD.
 *   coll NAME ID ROOT CALLS TIME_NS BYTES   a collective's totals on one
 *     communicator (ID, -1: not placed) with one root (rank in
 *     MPI_COMM_WORLD, -1 for collectives without one), bytes as above.
 * The members are learnt once per communicator (the same translation as the
 * peers'), kept after MPI_Comm_free (the totals outlive the handle), shared
 * by communicators with the same members, up to NK_CCOMM_MAX lists.
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#define NK_VERSION 1
#define NK_SITE_SLOTS 4096 /* power of two */
#define NK_SITE_PROBES 64
#define NK_LONG_CAP 12288
#define NK_SHORT_CAP 4096
#define NK_SAMPLE_EVERY 256
#define NK_COMM_SLOTS 32
#define NK_PEER_MAX 65536
#define NK_CCOMM_MAX 64
#define NK_COLL_SLOTS 512 /* power of two */
#define NK_COLL_PROBES 32
#define NK_EXPORT __attribute__((visibility("default")))

#define NK_FUNCTIONS(X)                                                                    \
	X(Send) X(Recv) X(Isend) X(Irecv) X(Ssend) X(Bsend) X(Rsend) X(Issend) X(Sendrecv)   \
	X(Sendrecv_replace) X(Probe) X(Iprobe) X(Wait) X(Waitall) X(Waitany) X(Waitsome)    \
	X(Test) X(Testall) X(Testany) X(Testsome) X(Barrier) X(Bcast) X(Reduce)              \
	X(Allreduce) X(Gather) X(Gatherv) X(Scatter) X(Scatterv) X(Allgather) X(Allgatherv)  \
	X(Alltoall) X(Alltoallv) X(Reduce_scatter) X(Reduce_scatter_block) X(Scan) X(Exscan) \
	X(Ibarrier) X(Ibcast) X(Ireduce) X(Iallreduce) X(Put) X(Get) X(Accumulate)           \
	X(Get_accumulate) X(Fetch_and_op) X(Compare_and_swap) X(Win_fence) X(Win_lock)      \
	X(Win_unlock) X(Win_lock_all) X(Win_unlock_all) X(Win_flush) X(Win_flush_all)        \
	X(Win_start) X(Win_complete) X(Win_post) X(Win_wait) X(Improbe) X(Request_get_status)

#define NK_ENUM(n) F_##n,
#define NK_NAME(n) "MPI_" #n,
enum { NK_FUNCTIONS(NK_ENUM) NK_NR_FUNCTIONS };
static const char *const nk_names[] = {NK_FUNCTIONS(NK_NAME)};

struct nk_totals {
	uint64_t calls, time_ns, bytes;
};

struct nk_site {
	uint64_t key; /* (return address << 7) | function + 1; 0: empty */
	struct nk_totals t;
};

/* Point-to-point totals with one partner: [0] sent to it, [1] received. */
struct nk_peer {
	struct nk_totals dir[2];
};

/* A communicator's ranks in MPI_COMM_WORLD: map NULL when congruent.
 * ccomm: its member list's index in nk.ccomms, -1 when none could be kept. */
struct nk_comm {
	MPI_Comm comm;
	int used, unmappable, size, ccomm;
	int *map;
};

/* A member list of the collectives' communicators (members NULL: the world's
 * ranks in order); written once, read by the writer after nr_ccomms. */
struct nk_ccomm {
	int size;
	int *members;
};

/* A collective's totals on one member list with one root. */
struct nk_coll {
	uint64_t key; /* fn + 1 | ccomm << 7 | (root + 1) << 16; 0: empty */
	struct nk_totals t;
};

struct nk_event {
	uint64_t start, duration, bytes; /* ticks */
	int32_t peer;
	uint32_t fn;
};

/* The per-process registry: the only mutable state, as in libscope_profiler.
 * Times in the tables are in ticks (TSC or ns, see nk_ticks). */
static struct {
	int active;
	int use_tsc, multiple;
	uint64_t tsc0, ns0;     /* anchors taken at MPI_Init */
	double ns_per_tick;     /* calibrated at MPI_Init; 1 without the TSC */
	uint64_t event_ticks, flush_period_ticks, poll_long_ticks;
	uint64_t cost_fast_ps, cost_full_ps; /* the probe's own cost per call */
	int rank, world;
	uint64_t init_ns, next_flush_ticks;
	char path[4096];
	char library[256];
	struct nk_totals fn[NK_NR_FUNCTIONS];
	struct nk_site sites[NK_SITE_SLOTS];
	struct nk_event longs[NK_LONG_CAP], shorts[NK_SHORT_CAP];
	uint64_t nr_longs, nr_shorts, nr_short_calls, dropped_sites, dropped_events;
	int flushing;
	uint8_t skip[NK_NR_FUNCTIONS]; /* NUNATAK_MPI_SKIP: forwarded, not recorded */
	struct nk_peer *peers; /* world entries, calloc'ed at MPI_Init */
	struct nk_peer unplaced;
	struct nk_comm comms[NK_COMM_SLOTS];
	int comm_lock;
	struct nk_ccomm ccomms[NK_CCOMM_MAX];
	int nr_ccomms;
	struct nk_coll colls[NK_COLL_SLOTS];
	struct nk_totals coll_unplaced[NK_NR_FUNCTIONS];
} nk;

static __thread int nk_depth __attribute__((tls_model("initial-exec")));

static inline uint64_t nk_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t nk_ticks(void)
{
#if defined(__x86_64__)
	if (nk.use_tsc)
		return __rdtsc();
#endif
	return nk_now();
}

#define NK_LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define NK_ATOMIC_ADD(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
/* Returns the value before the add, like __atomic_fetch_add. */
#define NK_ADD(p, v)                                                                    \
	(nk.multiple ? NK_ATOMIC_ADD(p, v) : ({                                         \
		__typeof__(*(p)) nk_old_ = NK_LOAD(p);                                  \
		__atomic_store_n((p), nk_old_ + (v), __ATOMIC_RELAXED);                 \
		nk_old_;                                                                \
	}))

static void nk_site_add(int fn, void *ra, uint64_t dt, uint64_t bytes)
{
	uint64_t key = ((uint64_t)(uintptr_t)ra << 7) | (uint64_t)(fn + 1);
	uint64_t h = key * 0x9E3779B97F4A7C15ull;
	for (int i = 0; i < NK_SITE_PROBES; i++) {
		struct nk_site *s = &nk.sites[((h >> 40) + (uint64_t)i) & (NK_SITE_SLOTS - 1)];
		uint64_t k = NK_LOAD(&s->key);
		if (k == 0) {
			uint64_t zero = 0;
			if (!__atomic_compare_exchange_n(&s->key, &zero, key, 0, __ATOMIC_RELAXED,
							 __ATOMIC_RELAXED))
				k = zero;
			else
				k = key;
		}
		if (k == key) {
			NK_ADD(&s->t.calls, 1);
			NK_ADD(&s->t.time_ns, dt);
			NK_ADD(&s->t.bytes, bytes);
			return;
		}
	}
	NK_ADD(&nk.dropped_sites, 1);
}

static void nk_event_add(int fn, uint64_t t0, uint64_t dt, uint64_t bytes, int peer)
{
	struct nk_event *e = NULL;
	if (dt >= nk.event_ticks) {
		uint64_t i = NK_ADD(&nk.nr_longs, 1);
		if (i < NK_LONG_CAP)
			e = &nk.longs[i];
	} else if (NK_ADD(&nk.nr_short_calls, 1) % NK_SAMPLE_EVERY == 0) {
		uint64_t i = NK_ADD(&nk.nr_shorts, 1);
		if (i < NK_SHORT_CAP)
			e = &nk.shorts[i];
	} else {
		return;
	}
	if (!e) {
		NK_ADD(&nk.dropped_events, 1);
		return;
	}
	e->start = t0;
	e->bytes = bytes;
	/* MPI_ANY_SOURCE, MPI_PROC_NULL and MPI_ROOT are negative and differ
	 * between MPIs (-2 is MPICH's MPI_ANY_SOURCE, Open MPI's MPI_PROC_NULL):
	 * none names a rank, so all are "no peer" (-1), as the format says. */
	e->peer = peer >= 0 ? peer : -1;
	e->fn = (uint32_t)fn;
	__atomic_store_n(&e->duration, dt ? dt : 1, __ATOMIC_RELEASE); /* 0: being written */
}

static void nk_flush(const char *state);

static uint64_t nk_leave(int fn, void *ra, uint64_t t0, uint64_t bytes, int peer)
{
	uint64_t t1 = nk_ticks(), dt = t1 - t0;
	NK_ADD(&nk.fn[fn].calls, 1);
	NK_ADD(&nk.fn[fn].time_ns, dt);
	NK_ADD(&nk.fn[fn].bytes, bytes);
	nk_site_add(fn, ra, dt, bytes);
	nk_event_add(fn, t0, dt, bytes, peer);
	if (t1 >= NK_LOAD(&nk.next_flush_ticks))
		nk_flush("running");
	return dt;
}

/* Outermost, recording, and fn not left out by NUNATAK_MPI_SKIP. */
static inline int nk_enter(int fn)
{
	return nk_depth++ == 0 && NK_LOAD(&nk.active) && !nk.skip[fn];
}

static uint64_t nk_bytes(int count, MPI_Datatype dt)
{
	int size = 0;
	if (count <= 0 || dt == MPI_DATATYPE_NULL || PMPI_Type_size(dt, &size) != MPI_SUCCESS ||
	    size < 0)
		return 0;
	return (uint64_t)count * (uint64_t)size;
}

static uint64_t nk_bytes_v(const int counts[], MPI_Datatype dt, MPI_Comm comm)
{
	int n = 0;
	uint64_t sum = 0;
	if (!counts || PMPI_Comm_size(comm, &n) != MPI_SUCCESS)
		return 0;
	for (int i = 0; i < n; i++)
		sum += nk_bytes(counts[i], dt);
	return sum;
}

static uint64_t nk_comm_times(MPI_Comm comm, uint64_t b)
{
	int n = 0;
	return PMPI_Comm_size(comm, &n) == MPI_SUCCESS && n > 0 ? b * (uint64_t)n : b;
}

static uint64_t nk_recvd(const MPI_Status *st, int count, MPI_Datatype dt)
{
	int n = 0;
	if (PMPI_Get_count(st, dt, &n) != MPI_SUCCESS || n == MPI_UNDEFINED)
		return nk_bytes(count, dt);
	return nk_bytes(n, dt);
}

#define NK_ENTER(f)                                   \
	void *nk_ra = __builtin_return_address(0);    \
	int nk_outer = nk_enter(F_##f);               \
	uint64_t nk_t0 = nk_outer ? nk_ticks() : 0
#define NK_LEAVE(f, bytes, peer)                                    \
	do {                                                        \
		if (nk_outer)                                       \
			nk_leave(F_##f, nk_ra, nk_t0, (bytes), (peer)); \
		nk_depth--;                                         \
	} while (0)

#include "nunatak_mpi_poll.inc"
#include "nunatak_mpi_peers.inc"

/* A point-to-point call: as NK_LEAVE, and its partner's totals (dir 0 sent,
 * 1 received) with peer_bytes of the call's bytes. */
#define NK_LEAVE_PEER_B(f, bytes, peer_bytes, peer, comm, dir)                       \
	do {                                                                          \
		if (nk_outer) {                                                       \
			int nk_p = (peer);                                            \
			uint64_t nk_dt = nk_leave(F_##f, nk_ra, nk_t0, (bytes), nk_p); \
			nk_peer_add((dir), (comm), nk_p, 1, nk_dt, (peer_bytes));     \
		}                                                                     \
		nk_depth--;                                                           \
	} while (0)
#define NK_LEAVE_PEER(f, bytes, peer, comm, dir)                                      \
	do {                                                                          \
		uint64_t nk_b = nk_outer ? (bytes) : 0;                               \
		NK_LEAVE_PEER_B(f, nk_b, nk_b, peer, comm, dir);                      \
	} while (0)

#include "nunatak_mpi_write.inc"
#include "nunatak_mpi_colls.inc"
#include "nunatak_mpi_wrappers.inc"
#include "nunatak_mpi_fortran.inc"
#include "nunatak_mpi_fortran_poll.inc"
