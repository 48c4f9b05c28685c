/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parser of a rank's mpi-profile.txt, written by nunatak's MPI interposition
 * library (src/mpi/probe/nunatak_mpi.c, where the format is specified): one
 * tab-separated record per line. Version 1, as written by that library; a
 * newer version is refused, record kinds it does not know are skipped (a
 * newer writer may add some), and a file without its final `end` record is
 * read as far as it goes and flagged incomplete. A malformed record is an
 * error naming the line and what was expected. Pure: bytes in, structs out.
 */
#ifndef NUNATAK_INGEST_MPI_PROFILE_H
#define NUNATAK_INGEST_MPI_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct err;

#define MPI_PROFILE_VERSION 1

struct mpi_prof_fn {
	char *name;
	int64_t calls, time_ns, bytes;
};

struct mpi_prof_site {
	char *name;     /* MPI function */
	char *module;   /* the caller's module path */
	uint64_t vaddr; /* ELF virtual address of the call instruction in module */
	int64_t calls, time_ns, bytes;
};

/* A polling function (MPI_Test*, MPI_Iprobe...): the probe timed only
 * `timed` of its `calls` and estimated the others' time (its mpi_prof_fn and
 * sites hold the estimate); `completed`: calls that found something. */
struct mpi_prof_polled {
	char *name;
	int64_t calls, timed, completed;
};

struct mpi_prof_event {
	char *name;
	int64_t start_ns, duration_ns, bytes; /* CLOCK_MONOTONIC */
	int peer;                             /* -1 when none */
};

/* Point-to-point totals with one partner (rank in MPI_COMM_WORLD, -1: the
 * calls whose partner could not be placed), sent or received. */
struct mpi_prof_peer {
	int rank;
	bool recv;
	int64_t calls, time_ns, bytes;
};

/* A communicator's members (ranks in MPI_COMM_WORLD, in its own order) as
 * the `ccomm` records list them; complete when nr == size. */
struct mpi_prof_ccomm {
	int id, size;
	int *members;
	size_t nr, cap;
};

/* A collective's totals on one communicator (comm: a ccomm id, -1: not
 * placed) with one root (rank in MPI_COMM_WORLD, -1: none). */
struct mpi_prof_coll {
	char *name;
	int comm, root;
	int64_t calls, time_ns, bytes;
};

#define MPI_PROFILE_MAX_COMM_SIZE (1 << 22)

struct mpi_profile {
	int version;
	int rank, world;       /* -1 when absent */
	int64_t pid;
	char state[16];        /* finalized, running, exited, aborted */
	char node[256];        /* the rank's hostname, "" when absent */
	char library[256];     /* the MPI library's version string */
	int64_t init_ns, wall_ns;
	struct mpi_prof_fn *fns;
	size_t nr_fns, cap_fns;
	struct mpi_prof_site *sites;
	size_t nr_sites, cap_sites;
	struct mpi_prof_event *events;
	size_t nr_events, cap_events;
	struct mpi_prof_polled *polled;
	size_t nr_polled, cap_polled;
	/* the probe's own cost per call, measured at MPI_Init (picoseconds): a
	 * polling call's untimed path, any other (timed) call's; -1: absent */
	int64_t cost_fast_ps, cost_full_ps;
	char **skipped; /* MPI functions left out by NUNATAK_MPI_SKIP */
	size_t nr_skipped, cap_skipped;
	struct mpi_prof_peer *peers;
	size_t nr_peers, cap_peers;
	struct mpi_prof_ccomm *ccomms;
	size_t nr_ccomms, cap_ccomms;
	struct mpi_prof_coll *colls;
	size_t nr_colls, cap_colls;
	int64_t dropped_sites, dropped_events;
	bool complete;         /* the `end` record was read */
};

/* Parses text[0..len). Returns 0, -EINVAL with e ("mpi.parse", "line N:
 * expected ..."), -ENOTSUP for a newer version, or -ENOMEM. *out is filled
 * as far as parsing went either way; release it with mpi_profile__release. */
int mpi_profile_parse(const char *text, size_t len, struct mpi_profile *out, struct err *e);
void mpi_profile__release(struct mpi_profile *p);

/* The communicator of id with its complete member list, or NULL. */
const struct mpi_prof_ccomm *mpi_profile_ccomm(const struct mpi_profile *p, int id);

#endif
