// SPDX-License-Identifier: BSD-3-Clause
// The MPI profile parser (a file the interposition library wrote on this
// machine, tests/golden/mpi-profile/, and hand-made variants), the MPI stack
// identification, and the network probe's output into Ceilings.
#include "harness.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/err.h"
#include "ingest/mpi_profile.h"
#include "model/machine.h"
#include "mpi/netprobe.h"
#include "mpi/stack.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	static char buf[1 << 16];
	*len = fread(buf, 1, sizeof(buf) - 1, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

static void t_golden(void)
{
	size_t len = 0;
	char *text = slurp(TEST_SOURCE_DIR "/tests/golden/mpi-profile/barrier-rank1.txt", &len);
	CHECK(text != NULL);
	struct mpi_profile p;
	struct err e = {0};
	CHECK_INT(mpi_profile_parse(text, len, &p, &e), 0);
	CHECK_INT(p.version, 1);
	CHECK_INT(p.rank, 1);
	CHECK_INT(p.world, 2);
	CHECK_STR(p.state, "finalized");
	CHECK_STR(p.library, "Open MPI v4.1.4");
	CHECK(p.complete);
	CHECK_INT(p.nr_fns, 2);
	CHECK_STR(p.fns[1].name, "MPI_Barrier");
	CHECK(p.fns[1].time_ns == 2300075955);
	CHECK(p.fns[0].bytes == 1056);
	CHECK_INT(p.nr_sites, 3);
	CHECK_STR(p.sites[1].module, "/tmp/nkt/bw");
	CHECK(p.sites[1].vaddr == 0x125c);
	CHECK_INT(p.nr_events, 2);
	CHECK_INT(p.events[0].peer, -1);
	CHECK_INT(p.events[1].peer, 0);
	CHECK(p.events[1].bytes == 1000);
	mpi_profile__release(&p);
}

static void t_errors(void)
{
	struct mpi_profile p;
	struct err e = {0};
	const char *bad = "nunatak-mpi\t1\nrank\t0\nfunction\tMPI_Send\t2\tx\t3\n";
	CHECK_INT(mpi_profile_parse(bad, strlen(bad), &p, &e), -EINVAL);
	CHECK_STR(e.msg, "line 3: malformed `function` record");
	mpi_profile__release(&p);
	const char *newer = "nunatak-mpi\t9\n";
	CHECK_INT(mpi_profile_parse(newer, strlen(newer), &p, &e), -ENOTSUP);
	CHECK(strstr(e.msg, "upgrade nunatak") != NULL);
	mpi_profile__release(&p);
	const char *other = "perf stat\n";
	CHECK_INT(mpi_profile_parse(other, strlen(other), &p, &e), -EINVAL);
	CHECK(strstr(e.msg, "not an MPI profile") != NULL);
	mpi_profile__release(&p);
	CHECK_INT(mpi_profile_parse("", 0, &p, &e), -EINVAL);
	mpi_profile__release(&p);
}

static void t_cut_and_unknown(void)
{
	/* A newer record kind is skipped; a last line without its newline (a
	 * writer that died) is dropped; no `end`: incomplete, not an error. */
	const char *t = "nunatak-mpi\t1\nrank\t3\nnode\tcn042\nstate\trunning\nfuture\ta\tb\n"
			"function\tMPI_Send\t2\t10\t1056\nevent\tMPI_Send\t5\t6\t7\t-1\nfunct";
	struct mpi_profile p;
	struct err e = {0};
	CHECK_INT(mpi_profile_parse(t, strlen(t), &p, &e), 0);
	CHECK(!p.complete);
	CHECK_INT(p.rank, 3);
	CHECK_STR(p.state, "running");
	CHECK_STR(p.node, "cn042");
	CHECK_INT(p.nr_fns, 1);
	CHECK_INT(p.nr_events, 1);
	mpi_profile__release(&p);
}

static void t_polled(void)
{
	/* A polling function timed 1 in N: its counts; timed or completed
	 * beyond the calls is malformed. */
	const char *t = "nunatak-mpi\t1\nfunction\tMPI_Test\t1000\t640\t0\n"
			"polled\tMPI_Test\t1000\t16\t3\nprobe_cost_ps\t1200\t17500\n"
			"skipped\tMPI_Iprobe\nend\n";
	struct mpi_profile p;
	struct err e = {0};
	CHECK_INT(mpi_profile_parse(t, strlen(t), &p, &e), 0);
	CHECK_INT(p.nr_polled, 1);
	CHECK_STR(p.polled[0].name, "MPI_Test");
	CHECK(p.polled[0].calls == 1000 && p.polled[0].timed == 16 && p.polled[0].completed == 3);
	CHECK(p.cost_fast_ps == 1200 && p.cost_full_ps == 17500);
	CHECK_INT(p.nr_skipped, 1);
	CHECK_STR(p.skipped[0], "MPI_Iprobe");
	mpi_profile__release(&p);
	const char *bad = "nunatak-mpi\t1\npolled\tMPI_Test\t10\t16\t3\n";
	CHECK_INT(mpi_profile_parse(bad, strlen(bad), &p, &e), -EINVAL);
	CHECK_STR(e.msg, "line 2: malformed `polled` record");
	mpi_profile__release(&p);
}

static void t_peers(void)
{
	const char *t = "nunatak-mpi\t1\nrank\t0\npeer\tsend\t3\t2\t10\t1056\n"
			"peer\trecv\t-1\t1\t5\t8\nend\n";
	struct mpi_profile p;
	struct err e = {0};
	CHECK_INT(mpi_profile_parse(t, strlen(t), &p, &e), 0);
	CHECK_INT(p.nr_peers, 2);
	CHECK(p.peers[0].rank == 3 && !p.peers[0].recv && p.peers[0].calls == 2 &&
	      p.peers[0].time_ns == 10 && p.peers[0].bytes == 1056);
	CHECK(p.peers[1].rank == -1 && p.peers[1].recv && p.peers[1].bytes == 8);
	mpi_profile__release(&p);
	const char *bad = "nunatak-mpi\t1\npeer\tsideways\t3\t2\t10\t1056\n";
	CHECK_INT(mpi_profile_parse(bad, strlen(bad), &p, &e), -EINVAL);
	CHECK_STR(e.msg, "line 2: malformed `peer` record");
	mpi_profile__release(&p);
}

static void t_collectives(void)
{
	/* a member list over two lines, a split in reverse order, an unplaced
	 * call, and a list cut short (its communicator not placed) */
	const char *t = "nunatak-mpi\t1\nrank\t2\nccomm\t0\t4\t0-3\n"
			"ccomm\t1\t5\t6,4\nccomm\t1\t5\t0-8:4\nccomm\t2\t3\t1\n"
			"coll\tMPI_Bcast\t1\t4\t2\t100\t500\n"
			"coll\tMPI_Allreduce\t0\t-1\t3\t90\t6144\n"
			"coll\tMPI_Barrier\t-1\t-1\t1\t7\t0\n"
			"coll\tMPI_Reduce\t2\t1\t1\t5\t8\nend\n";
	struct mpi_profile p;
	struct err e = {0};
	CHECK_INT(mpi_profile_parse(t, strlen(t), &p, &e), 0);
	CHECK_INT(p.nr_ccomms, 3);
	const struct mpi_prof_ccomm *c = mpi_profile_ccomm(&p, 1);
	CHECK(c && c->size == 5 && c->nr == 5);
	CHECK(c && c->members[0] == 6 && c->members[1] == 4 && c->members[2] == 0 &&
	      c->members[4] == 8);
	CHECK(mpi_profile_ccomm(&p, 0) && mpi_profile_ccomm(&p, 0)->members[3] == 3);
	CHECK(mpi_profile_ccomm(&p, 2) == NULL); /* 1 of its 3 members */
	CHECK(mpi_profile_ccomm(&p, 7) == NULL);
	CHECK_INT(p.nr_colls, 4);
	CHECK_STR(p.colls[0].name, "MPI_Bcast");
	CHECK(p.colls[0].comm == 1 && p.colls[0].root == 4 && p.colls[0].calls == 2 &&
	      p.colls[0].time_ns == 100 && p.colls[0].bytes == 500);
	CHECK(p.colls[1].root == -1 && p.colls[2].comm == -1);
	mpi_profile__release(&p);
	static const char *const bad[] = {
		"nunatak-mpi\t1\nccomm\t0\t2\t0-3\n",           /* more members than its size */
		"nunatak-mpi\t1\nccomm\t0\t2\t1\nccomm\t0\t3\t2\n", /* two sizes */
		"nunatak-mpi\t1\nccomm\t0\t4\t3-1\n",           /* a range going down */
		"nunatak-mpi\t1\nccomm\t0\t4\t0-3:2\n",         /* a step past its end */
		"nunatak-mpi\t1\nccomm\t0\t4\t0,,1\n",
		"nunatak-mpi\t1\nccomm\t-1\t4\t0-3\n",
		"nunatak-mpi\t1\nccomm\t0\t99999999\t0-99999998\n", /* beyond the cap */
		"nunatak-mpi\t1\ncoll\tMPI_Bcast\t0\t1\t2\t3\n",  /* a field short */
		"nunatak-mpi\t1\ncoll\tMPI_Bcast\tx\t1\t2\t3\t4\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_INT(mpi_profile_parse(bad[i], strlen(bad[i]), &p, &e), -EINVAL);
		CHECK(strstr(e.msg, "line 2: malformed `c") || strstr(e.msg, "line 3: malformed `c"));
		mpi_profile__release(&p);
	}
}

static void t_stack(void)
{
	struct mpi_stack st;
	mpi_stack_parse_version("mpirun (Open MPI) 4.1.4\n\nReport bugs to ...\n", &st);
	CHECK_STR(st.impl, "Open MPI");
	CHECK_STR(st.version, "4.1.4");
	mpi_stack_parse_version("HYDRA build details:\n    Version:                 4.0.2\n", &st);
	CHECK_STR(st.impl, "MPICH");
	CHECK_STR(st.version, "4.0.2");
	/* Open MPI 4's mpirun.openmpi is OpenRTE's */
	mpi_stack_parse_version("mpirun.openmpi (OpenRTE) 4.1.4\n\nReport bugs to ...\n", &st);
	CHECK_STR(st.impl, "Open MPI");
	CHECK_STR(st.version, "4.1.4");
	mpi_stack_parse_version("slurm 23.02.1\n", &st);
	CHECK_STR(st.impl, "unknown");
	mpi_stack_key(&st, "mpicc");
	CHECK_INT(strlen(st.key), 16);
	char *c = mpi_stack_mpicc("mpirun.mpich", "mpicc");
	CHECK_STR(c, "mpicc.mpich");
	free(c);
	c = mpi_stack_mpicc("/opt/ompi/bin/mpirun", NULL);
	CHECK_STR(c, "/opt/ompi/bin/mpicc");
	free(c);
	c = mpi_stack_mpicc("mpiexec.hydra", "mpicc");
	CHECK_STR(c, "mpicc");
	free(c);
	c = mpi_stack_mpicc("mpirun", "/site/bin/mpiicc");
	CHECK_STR(c, "/site/bin/mpiicc");
	free(c);
}

static void t_netprobe(void)
{
	const char *out = "stack\tOpen MPI\t4.1.4\nranks\t4\nnodes\tn1\tn1\nlatency_s\t2.5e-07\n"
			  "bandwidth_rep\t0\t9.0e9\nbandwidth_rep\t1\t1.0e10\nend\n";
	struct netprobe np;
	CHECK_INT(netprobe_parse(out, &np), 0);
	CHECK(np.complete);
	CHECK_INT(np.ranks, 4);
	CHECK_INT(np.nr_bandwidth, 2);
	struct machine m;
	machine__init(&m);
	CHECK_INT(netprobe_ceilings(&np, &m), 2);
	CHECK_STR(m.ceilings[0].name, "network_latency");
	CHECK_NEAR(m.ceilings[0].value, 2.5e-7, 1e-12);
	CHECK_STR(m.ceilings[0].unit, "s");
	CHECK(m.ceilings[0].quality == QUALITY_ESTIMATED);
	CHECK_STR(m.ceilings[0].reason, "measured over shared memory: single-node allocation, "
					"not the interconnect");
	CHECK_STR(m.ceilings[1].name, "network_bandwidth");
	CHECK_NEAR(m.ceilings[1].value, 1.0e10, 1);
	CHECK_STR(m.ceilings[1].unit, "byte/s");
	machine__release(&m);
	/* two nodes, dispersed repetitions: measured latency, estimated bandwidth */
	const char *two = "ranks\t2\nnodes\ta\tb\nlatency_s\t1e-06\nbandwidth_rep\t0\t5e9\n"
			  "bandwidth_rep\t1\t1e10\nend\n";
	CHECK_INT(netprobe_parse(two, &np), 0);
	machine__init(&m);
	CHECK_INT(netprobe_ceilings(&np, &m), 2);
	CHECK(m.ceilings[0].quality == QUALITY_MEASURED && m.ceilings[0].reason == NULL);
	CHECK(m.ceilings[1].quality == QUALITY_ESTIMATED);
	CHECK_STR(m.ceilings[1].reason, "repetitions disperse by 50%");
	machine__release(&m);
	/* across two nodes, and within rank 0's: both sides labelled */
	const char *both = "ranks\t4\nnodes\tn1\tn2\nlatency_s\t2e-06\nbandwidth_rep\t0\t1e9\n"
			   "intranode_nodes\tn1\tn1\nintranode_latency_s\t3e-07\n"
			   "intranode_bandwidth_rep\t0\t8e9\nintranode_bandwidth_rep\t1\t8.1e9\nend\n";
	CHECK_INT(netprobe_parse(both, &np), 0);
	machine__init(&m);
	CHECK_INT(netprobe_ceilings(&np, &m), 4);
	CHECK_STR(m.ceilings[2].name, "network_latency_intranode");
	CHECK_NEAR(m.ceilings[2].value, 3e-7, 1e-12);
	CHECK(m.ceilings[2].quality == QUALITY_MEASURED);
	CHECK_STR(m.ceilings[3].name, "network_bandwidth_intranode");
	CHECK_NEAR(m.ceilings[3].value, 8.1e9, 1);
	machine__release(&m);
	CHECK_INT(netprobe_parse("garbage\n", &np), -EINVAL);
}

static const struct test_case cases[] = {
	{"golden", "a profile written by the library here: every record", t_golden},
	{"errors", "malformed record, newer version, foreign file: line and what", t_errors},
	{"cut_and_unknown", "unknown records skipped, a cut file read as far as it goes",
	 t_cut_and_unknown},
	{"polled", "a polling function's timed calls, the probe's cost, skipped functions",
	 t_polled},
	{"peers", "point-to-point totals per partner and direction; a bad direction refused",
	 t_peers},
	{"collectives", "communicators' members over several lines, collectives' totals; "
	 "member lists cut short or malformed", t_collectives},
	{"stack", "launcher --version and the matching mpicc", t_stack},
	{"netprobe", "ping-pong output into network Ceilings with their Quality", t_netprobe},
};

TEST_MAIN(cases)
