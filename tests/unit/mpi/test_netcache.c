// SPDX-License-Identifier: BSD-3-Clause
/* The network Ceilings' cache (mpi/netcache.h, mpi/netcache_scope.h, issue
 * 27): its key is what decides the figures - the node set, the MPI stack,
 * the transport options - and not the rank count nor the application;
 * Slurm host lists expand as Slurm writes them; an entry keeps the nodes it
 * was measured on and when, and a shape's pointer finds it when the launch
 * names no nodes. Launch lines go through the real launch split first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/alloc.h"
#include "common/err.h"
#include "launch/split.h"
#include "model/machine.h"
#include "mpi/netcache.h"
#include "mpi/netcache_scope.h"
#include "mpi/netprobe.h"
#include "harness.h"
#define TMPDIR_TAG "netcache"
#include "tmpdir.h"

#define STACK "Open MPI 4.1.4 | libmpi.so.40 /usr/lib/libmpi.so.40 | probe v1 /c/pingpong"

/* What a launch line is cached under: "nodes=<set or ?>\n<node key>\n<shape key>". */
struct seen {
	char *nodes, *key, *shape, why[240];
};

static void split_words(char *line, char **argv, size_t cap)
{
	size_t n = 0;
	for (char *t = strtok(line, " "); t && n + 1 < cap; t = strtok(NULL, " "))
		argv[n++] = t;
	argv[n] = NULL;
}

/* cmd: the launch as typed; env: "K=V K=V" (or ""); impl: the launcher's MPI. */
static struct seen scope(const char *cmd, const char *env, const char *impl)
{
	char *line = xstrdup(cmd), *envline = xstrdup(env), *argv[64], *envp[64];
	split_words(line, argv, 64);
	split_words(envline, envp, 64);
	struct launch_plan plan;
	struct err e = {0};
	CHECK_INT(launch_split_with(argv, NULL, NULL, &plan, &e), 0);
	CHECK(plan.mpi && plan.nr_app > 0);
	char *prefix[64];
	for (size_t i = 0; i < plan.nr_prefix; i++)
		prefix[i] = plan.prefix[i];
	prefix[plan.nr_prefix] = NULL;
	struct netcache_scope sc;
	CHECK_INT(netcache_scope_of(prefix, impl, envp, "here", &sc), 0);
	struct seen s = {0};
	s.nodes = xstrdup(sc.nodes ? sc.nodes : "?");
	s.key = sc.nodes ? netcache_key(STACK, sc.transport, sc.nodes) : xstrdup("-");
	s.shape = netcache_shape_key(STACK, sc.transport, sc.shape);
	snprintf(s.why, sizeof(s.why), "%s", sc.why_unknown);
	CHECK(sc.nodes ? sc.nodes_from[0] && !sc.why_unknown[0] : sc.why_unknown[0] != 0);
	netcache_scope__release(&sc);
	xfree(line);
	xfree(envline);
	return s;
}

static void seen__release(struct seen *s)
{
	xfree(s->nodes);
	xfree(s->key);
	xfree(s->shape);
}

/* The key a launch is looked up under: its node set's when it names its
 * nodes, else its shape's (which points to a node set). */
static const char *lookup(const struct seen *s)
{
	return strcmp(s->key, "-") ? s->key : s->shape;
}

/* Both launches are looked up under the same key (same == 1), or not. */
static void same_keys(const char *a, const char *ea, const char *b, const char *eb,
		      const char *impl, int same)
{
	struct seen x = scope(a, ea, impl), y = scope(b, eb, impl);
	if (same != !strcmp(lookup(&x), lookup(&y))) {
		fprintf(stderr, "`%s` [%s] vs `%s` [%s]: nodes %s / %s, keys %s, expected %s\n",
			a, ea, b, eb, x.nodes, y.nodes, same ? "differ" : "same",
			same ? "same" : "different");
		CHECK(0);
	}
	seen__release(&x);
	seen__release(&y);
}

static void nodes_are(const char *cmd, const char *env, const char *impl, const char *want)
{
	struct seen s = scope(cmd, env, impl);
	if (strcmp(s.nodes, want)) {
		fprintf(stderr, "`%s` [%s]: nodes %s, expected %s (%s)\n", cmd, env, s.nodes, want,
			s.why);
		CHECK(0);
	}
	seen__release(&s);
}

static void t_hostlist(void)
{
	struct {
		const char *in, *want;
	} c[] = {
		{"n1", "n1"},
		{"n[1-3]", "n1,n2,n3"},
		{"n[2,1]", "n1,n2"},
		{"n[07-09,11],gpu1", "gpu1,n07,n08,n09,n11"},
		{"rack[1-2]-n[1-2]", "rack1-n1,rack1-n2,rack2-n1,rack2-n2"},
		{"n1,n1,n[1-1]", "n1"},
		{"n[1-", NULL}, {"n[3-1]", NULL}, {"n[a-b]", NULL}, {"n1]", NULL},
		{"n[[1]]", NULL}, {"", NULL}, {"n[1-100000]", NULL}, {"a b", NULL},
		{"c[]", NULL}, {"c[1,]", NULL}, {"c[,1]", NULL}, {"a,,b", NULL},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char *got = netcache_hostlist(c[i].in);
		if (!c[i].want)
			CHECK(got == NULL);
		else
			CHECK_STR(got, c[i].want);
		xfree(got);
	}
	char set[] = "n2,n1,n2,a";
	netcache_nodes_canon(set);
	CHECK_STR(set, "a,n1,n2");
}

/* srun: the rank count (with -N), the application, its arguments and
 * options like --cpu-bind or -l do not change the key; --mpi does. */
static void t_srun(void)
{
	const char *out = "";
	same_keys("srun -N 2 -n 2 ./a", out, "srun -N 2 -n 4 ./b x y", out, NULL, 1);
	same_keys("srun -N 2 -n 2 ./a", out, "srun -l --cpu-bind=cores -N2 --ntasks=4 ./a", out,
		  NULL, 1);
	same_keys("srun -N 2 -n 2 --mpi=pmix ./a", out, "srun -N 2 -n 2 --mpi=pmi2 ./a", out, NULL,
		  0);
	same_keys("srun -N 2 -n 2 --mpi pmix ./a", out, "srun -N 2 -n 2 --mpi=pmix ./a", out, NULL,
		  1);
	same_keys("srun -N 2 -n 2 ./a", out, "srun -N 3 -n 2 ./a", out, NULL, 0);
	same_keys("srun -N 2 -n 2 ./a", out, "srun -N 2 -n 2 -p big ./a", out, NULL, 0);
	/* without a node count, the rank count decides the nodes */
	same_keys("srun -n 2 ./a", out, "srun -n 64 ./a", out, NULL, 0);
	/* the environment: transport variables count, others do not */
	same_keys("srun -N 2 ./a", "HOME=/x", "srun -N 2 ./a", "HOME=/y", NULL, 1);
	same_keys("srun -N 2 ./a", "", "srun -N 2 ./a", "UCX_TLS=rc", NULL, 0);
	same_keys("srun -N 2 ./a", "", "srun -N 2 ./a", "SLURM_MPI_TYPE=pmix", NULL, 0);
	same_keys("srun -N 2 ./a", "FI_PROVIDER=tcp", "srun -N 2 ./a", "FI_PROVIDER=verbs", NULL,
		  0);
	nodes_are("srun -N 2 -n 4 ./a", out, NULL, "?");
	nodes_are("srun -w n[1-2] -n 4 ./a", out, NULL, "n1,n2");
	nodes_are("srun -wn2,n1 ./a", out, NULL, "n1,n2");
	nodes_are("srun --nodelist=n[1-2] -N 2 ./a", out, NULL, "n1,n2");
	nodes_are("srun -w n[1-2] -N 3 ./a", out, NULL, "?");
	nodes_are("srun -w n[1-2] -n 1 ./a", out, NULL, "?");
	nodes_are("srun -w ./hosts.txt ./a", out, NULL, "?");
	same_keys("srun -w n[1-2] ./a", out, "srun -w n[1,3] ./a", out, NULL, 0);
	same_keys("srun -w n[1-2] -n 2 ./a", out, "srun -w n1,n2 -n 8 ./b", out, NULL, 1);
}

/* Inside an allocation: srun over all of its nodes knows them. */
static void t_allocation(void)
{
	const char *in = "SLURM_JOB_NODELIST=c[01-02] SLURM_JOB_ID=7";
	nodes_are("srun ./a", in, NULL, "c01,c02");
	nodes_are("srun -n 4 ./a", in, NULL, "c01,c02");
	nodes_are("srun -N 2 -n 2 ./a", in, NULL, "c01,c02");
	nodes_are("srun -N 1 ./a", in, NULL, "?");
	nodes_are("srun -n 1 ./a", in, NULL, "?");
	nodes_are("srun -x c01 ./a", in, NULL, "?");
	same_keys("srun -n 2 ./a", in, "srun -n 4 ./b", in, NULL, 1);
	same_keys("srun ./a", in, "srun ./a", "SLURM_JOB_NODELIST=c[01-03]", NULL, 0);
	/* Open MPI's mpirun inside it, without SLURM_NODELIST: not read */
	nodes_are("mpirun -n 2 ./a", in, "Open MPI", "?");
}

/* Inside an allocation, srun takes its node count from the environment
 * (SLURM_JOB_NUM_NODES) unless -N or fewer ranks lower it: -w, -x and
 * --nodefile name the step's nodes only when that count is theirs (on the
 * test cluster, `salloc -N 2 srun -w n2` runs on n1 and n2). */
static void t_allocation_options(void)
{
	const char *in = "SLURM_JOB_NODELIST=c[01-02] SLURM_JOB_NUM_NODES=2 SLURM_NNODES=2";
	nodes_are("srun -w c02 ./a", in, NULL, "?");
	nodes_are("srun -w c02 ./a", "SLURM_JOB_NODELIST=c[01-02]", NULL, "?");
	nodes_are("srun -w c02 -n 1 ./a", in, NULL, "c02");
	nodes_are("srun -w c02 -N 1 ./a", in, NULL, "c02");
	nodes_are("srun -w c[01-02] ./a", in, NULL, "c01,c02");
	nodes_are("srun -x c01 ./a", in, NULL, "?"); /* srun: "Only allocated 1 nodes asked for 2" */
	nodes_are("srun -x c01 -N 1 ./a", in, NULL, "c02");
	nodes_are("srun --exclude=c02 -N 1 -n 2 ./a", in, NULL, "c01");
	nodes_are("srun -x c01 -n 1 ./a", in, NULL, "c02");
	nodes_are("srun -x c[01-02] -N 1 ./a", in, NULL, "?");
	nodes_are("srun -x c03 ./a", in, NULL, "c01,c02");
	nodes_are("srun -x c01 -N 1 ./a", "", NULL, "?"); /* outside: Slurm picks */
	nodes_are("srun -x c[ -N 1 ./a", in, NULL, "?");
	nodes_are("srun -w c01 -x c02 ./a", in, NULL, "?");
	nodes_are("srun -r 1 -N 1 ./a", in, NULL, "?"); /* Slurm's node table order */
	nodes_are("srun -r 0 ./a", in, NULL, "c01,c02");
	nodes_are("srun --relative=0 -N 1 ./a", in, NULL, "?");
	nodes_are("srun -N 1-2 ./a", in, NULL, "?");
	nodes_are("srun -n 2 ./a", "SLURM_JOB_NODELIST=c[01-02] SLURM_JOB_NUM_NODES=x", NULL, "?");
	same_keys("srun -x c01 -N 1 ./a", in, "srun -w c02 -N 1 ./a", in, NULL, 1);
}

/* --nodefile, and -w or -x naming a file (a '/' in it): its host lists,
 * one or more a line; a comment or a blank inside a line: not read. */
static void t_nodefile(void)
{
	const char *in = "SLURM_JOB_NODELIST=c[01-02] SLURM_JOB_NUM_NODES=2";
	char *d = tmpdir(), *one = xasprintf("%s/one", d), *many = xasprintf("%s/many", d);
	char *odd = xasprintf("%s/odd", d);
	FILE *f = fopen(one, "w");
	CHECK(f && fputs("c02\n", f) >= 0 && fclose(f) == 0);
	f = fopen(many, "w");
	CHECK(f && fputs("c[01-02]\n\n  gpu1 \r\n", f) >= 0 && fclose(f) == 0);
	f = fopen(odd, "w");
	CHECK(f && fputs("c01 # login\n", f) >= 0 && fclose(f) == 0);
	struct {
		const char *fmt, *env, *want;
	} c[] = {
		{"srun --nodefile %s -N 1 ./a", in, "c02"},
		{"srun --nodefile %s ./a", in, "?"}, /* the allocation's count: Slurm adds c01 */
		{"srun --nodefile=%s -n 2 ./a", "", "c02"},
		{"srun -w %s -n 2 ./a", "", "c02"},
		{"srun -x %s -N 1 ./a", in, "c01"},
		{"srun -x %s -N 1 ./a", "", "?"},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char *cmd = xasprintf(c[i].fmt, one);
		nodes_are(cmd, c[i].env, NULL, c[i].want);
		xfree(cmd);
	}
	char *cmd = xasprintf("srun -w %s ./a", many);
	nodes_are(cmd, "", NULL, "c01,c02,gpu1");
	xfree(cmd);
	cmd = xasprintf("srun -w %s ./a", odd);
	nodes_are(cmd, "", NULL, "?");
	xfree(cmd);
	CHECK_INT(remove(one), 0);
	cmd = xasprintf("srun --nodefile %s -n 2 ./a", one);
	nodes_are(cmd, "", NULL, "?");
	xfree(cmd);
	CHECK_INT(remove(many), 0);
	CHECK_INT(remove(odd), 0);
	xfree(one);
	xfree(many);
	xfree(odd);
	xfree(d);
	done();
}

/* mpirun inside a Slurm allocation without a host option fills its nodes
 * slot by slot from a node nunatak cannot tell: certain only when no node
 * can be left out (slots read both ways the MPIs read them); -H and
 * hostfiles are honoured; options and variables that place ranks otherwise
 * leave it unknown. */
static void t_mpirun_allocation(void)
{
	const char *om = "Open MPI", *mp = "MPICH";
	const char *s = "SLURM_JOB_NODELIST=c[01-02] SLURM_NODELIST=c[01-02] SLURM_JOB_NUM_NODES=2 "
			"SLURM_TASKS_PER_NODE=2(x2) SLURM_JOB_CPUS_PER_NODE=2(x2)";
	nodes_are("mpirun -n 3 ./a", s, om, "c01,c02");
	nodes_are("mpirun -n 2 ./a", s, om, "?"); /* both ranks may fit c01 */
	nodes_are("mpirun ./a", s, om, "c01,c02");   /* a rank a slot */
	nodes_are("mpirun -n 3 --oversubscribe ./a", s, om, "c01,c02");
	nodes_are("mpirun -n 4 --map-by node ./a", s, om, "?");
	nodes_are("mpirun -n 4 -N 1 ./a", s, om, "?");
	nodes_are("mpirun -H c01 -n 2 ./a", s, om, "c01");
	nodes_are("mpirun -n 3 ./a", "SLURM_JOB_NODELIST=c[01-02] SLURM_NODELIST=c[01-02] "
		  "SLURM_TASKS_PER_NODE=2(x2) SLURM_JOB_CPUS_PER_NODE=4(x2)", om, "?");
	nodes_are("mpirun -n 3 ./a", "SLURM_NODELIST=c[01-02] SLURM_TASKS_PER_NODE=2(x2)", om, "?");
	nodes_are("mpirun -n 3 ./a", "SLURM_NODELIST=c[01-02] SLURM_TASKS_PER_NODE=2(x3) "
		  "SLURM_JOB_CPUS_PER_NODE=2(x3)", om, "?");
	nodes_are("mpirun -n 3 ./a", "SLURM_NODELIST=c[01-02] SLURM_TASKS_PER_NODE=1,3 "
		  "SLURM_JOB_CPUS_PER_NODE=1,3", om, "?");
	nodes_are("mpirun -n 4 ./a", "SLURM_NODELIST=c[01-02] SLURM_TASKS_PER_NODE=1,3 "
		  "SLURM_JOB_CPUS_PER_NODE=1,3", om, "c01,c02");
	nodes_are("mpirun -n 8 ./a", "SLURM_JOB_NODELIST=c01 SLURM_NODELIST=c01", om, "c01");
	nodes_are("mpirun -n 3 ./a", "OMPI_MCA_rmaps_base_mapping_policy=node", om, "here");
	char env[512];
	snprintf(env, sizeof(env), "%s OMPI_MCA_rmaps_base_mapping_policy=node", s);
	nodes_are("mpirun -n 3 ./a", env, om, "?");
	snprintf(env, sizeof(env), "%s SLURM_CPUS_PER_TASK=2", s);
	nodes_are("mpirun -n 3 ./a", env, om, "?");
	nodes_are("mpirun -n x ./a", s, om, "?");
	nodes_are("mpirun.mpich -n 3 ./a", s, mp, "c01,c02");
	nodes_are("mpirun.mpich -ppn 1 -n 2 ./a", s, mp, "?");
	snprintf(env, sizeof(env), "%s HYDRA_HOST_FILE=/h", s);
	nodes_are("mpirun.mpich -n 3 ./a", env, mp, "?");
	nodes_are("mpirun -n 2 ./a", "PBS_NODEFILE=/x", om, "?");
	same_keys("mpirun -n 3 ./a", s, "mpirun -n 4 ./a", s, om, 1);
}

static void t_openmpi(void)
{
	const char *out = "", *om = "Open MPI";
	nodes_are("mpirun -n 2 ./a", out, om, "here");
	nodes_are("mpirun -n 2 ./a", "SLURMD_NODENAME=n7", om, "n7"); /* as the ranks name it */
	same_keys("mpirun -n 2 ./a", out, "mpirun -np 4 --bind-to core ./b -x", out, om, 1);
	same_keys("mpirun -n 2 ./a", out, "mpirun -n 2 --mca btl self,vader ./a", out, om, 0);
	same_keys("mpirun -n 2 --mca btl self,vader ./a", out,
		  "mpirun -n 2 --mca btl self,tcp ./a", out, om, 0);
	same_keys("mpirun -n 2 --mca pml ucx ./a", out, "mpirun -n 2 -mca pml ucx ./a", out, om, 1);
	same_keys("mpirun -n 2 ./a", out, "mpirun -n 2 -x UCX_TLS=rc ./a", out, om, 0);
	same_keys("mpirun -n 2 -x FOO=1 ./a", out, "mpirun -n 2 ./a", out, om, 1);
	same_keys("mpirun -n 2 ./a", out, "mpirun -n 2 ./a", "OMPI_MCA_btl=^openib", om, 0);
	nodes_are("mpirun -H b:2,a -n 2 ./a", out, om, "a,b");
	nodes_are("mpirun -H localhost:2 -n 2 ./a", out, om, "here"); /* as the probe names it */
	same_keys("mpirun -H 127.0.0.1 -n 2 ./a", out, "mpirun -n 2 ./a", out, om, 1);
	nodes_are("mpirun --host a,b -n 1 ./a", out, om, "?");
	nodes_are("mpirun --rankfile rf -n 2 ./a", out, om, "?");
	same_keys("mpirun -H a,b ./x", out, "mpirun -H a,c ./x", out, om, 0);
}

static void t_hydra(void)
{
	const char *out = "", *mp = "MPICH";
	nodes_are("mpiexec.hydra -n 2 ./a", out, mp, "here");
	nodes_are("mpirun.mpich -hosts b,a -n 4 ./a", out, mp, "a,b");
	same_keys("mpirun.mpich -n 2 ./a", out, "mpirun.mpich -n 3 ./b", out, mp, 1);
	same_keys("mpirun.mpich -n 2 ./a", out,
		  "mpirun.mpich -n 2 -genv MPIR_CVAR_CH4_NETMOD ucx ./a", out, mp, 0);
	same_keys("mpirun.mpich -n 2 ./a", out, "mpirun.mpich -n 2 -genv FOO 1 ./a", out, mp, 1);
	same_keys("mpirun.mpich -n 2 ./a", out, "mpirun.mpich -n 2 ./a", "MPIR_CVAR_CH3_NOLOCAL=1",
		  mp, 0);
	same_keys("mpirun.mpich -n 2 ./a", out, "mpirun.mpich -n 2 -iface ib0 ./a", out, mp, 0);
	/* a hostfile's names, with or without slot counts; one missing: unknown */
	char *d = tmpdir(), *hf = xasprintf("%s/hosts", d), *cmd = xasprintf(
		"mpirun.mpich -f %s -n 4 ./a", hf);
	FILE *f = fopen(hf, "w");
	CHECK(f != NULL);
	fputs("# the nodes\nnb:2\n  na  # first\n\n", f);
	CHECK_INT(fclose(f), 0);
	nodes_are(cmd, out, mp, "na,nb");
	CHECK_INT(remove(hf), 0);
	nodes_are(cmd, out, mp, "?");
	xfree(cmd);
	xfree(hf);
	xfree(d);
	done();
}

static struct machine *with_network(void)
{
	struct machine *m = xcalloc(1, sizeof(*m));
	char n1[] = "network_latency", n2[] = "network_bandwidth", n3[] = "flops_dp";
	char s[] = "s", bps[] = "byte/s", fps[] = "flop/s", why[] = "repetitions disperse by 12%";
	struct ceiling lat = {n1, 1.5e-6, s, QUALITY_MEASURED, NULL};
	struct ceiling bw = {n2, 9e9, bps, QUALITY_ESTIMATED, why};
	struct ceiling flops = {n3, 1e11, fps, QUALITY_MEASURED, NULL};
	CHECK_INT(machine__add_ceiling(m, &lat), 0);
	CHECK_INT(machine__add_ceiling(m, &bw), 0);
	CHECK_INT(machine__add_ceiling(m, &flops), 0);
	return m;
}

static const struct ceiling *named(const struct machine *m, const char *name)
{
	for (size_t i = 0; i < m->nr_ceilings; i++)
		if (!strcmp(m->ceilings[i].name, name))
			return &m->ceilings[i];
	return NULL;
}

/* An entry keeps its nodes and date; a shape points to the node set it
 * measured on last; another node set or transport misses. */
static void t_store_load(void)
{
	char *d = tmpdir();
	CHECK_INT(setenv("XDG_CACHE_HOME", d, 1), 0);
	struct machine *m = with_network();
	char *key = netcache_key(STACK, "--mpi=pmix", "n1,n2");
	char *shape = netcache_shape_key(STACK, "--mpi=pmix", "launcher slurm\n-N=2");
	CHECK(netcache_shape_nodes(shape) == NULL);
	CHECK_INT(netcache_store(key, shape, m, "Open MPI 4.1.4", "n1,n2"), 1);
	char *ptr = netcache_shape_nodes(shape);
	CHECK_STR(ptr, "n1,n2");
	struct netcache_hit h;
	CHECK_INT(netcache_load(key, &h), 1);
	CHECK_STR(h.nodes, "n1,n2");
	CHECK_STR(h.mpi, "Open MPI 4.1.4");
	CHECK(h.measured_at > 1700000000);
	struct machine *got = xcalloc(1, sizeof(*got));
	CHECK_INT(netcache_hit__add(&h, got, QUALITY_ESTIMATED, "not yet checked"), 2);
	CHECK(named(got, "flops_dp") == NULL);
	CHECK_INT(named(got, "network_latency")->quality, QUALITY_ESTIMATED);
	CHECK_STR(named(got, "network_latency")->reason, "not yet checked");
	machine__release(got);
	CHECK_INT(netcache_hit__add(&h, got, 0, NULL), 2); /* as stored */
	CHECK_INT(named(got, "network_latency")->quality, QUALITY_MEASURED);
	CHECK_INT(named(got, "network_bandwidth")->quality, QUALITY_ESTIMATED);
	CHECK_STR(named(got, "network_bandwidth")->reason, "repetitions disperse by 12%");
	CHECK(named(got, "network_bandwidth")->value == 9e9);
	netcache_hit__release(&h);
	char *other = netcache_key(STACK, "--mpi=pmix", "n1,n3");
	char *tr = netcache_key(STACK, "--mpi=pmi2", "n1,n2");
	char *st = netcache_key("MPICH 4.0 | libmpich.so.12", "--mpi=pmix", "n1,n2");
	CHECK_INT(netcache_load(other, &h), 0);
	CHECK_INT(netcache_load(tr, &h), 0);
	CHECK_INT(netcache_load(st, &h), 0);
	/* no node set: nothing kept */
	CHECK_INT(netcache_store(other, NULL, m, NULL, ""), 0);
	machine__release(got);
	machine__release(m);
	xfree(got);
	xfree(m);
	xfree(key);
	xfree(shape);
	xfree(ptr);
	xfree(other);
	xfree(tr);
	xfree(st);
	xfree(d);
	done();
}

/* The probe says every node its ranks ran on. */
static void t_probe_nodes(void)
{
	struct netprobe np;
	CHECK_INT(netprobe_parse("stack\tOpen MPI\t4.1.4\nranks\t4\nnodes\tn1\tn2\n"
				 "node\tn1\nnode\tn2\nend\n", &np), 0);
	CHECK(np.complete);
	CHECK_STR(np.nodes, "n1,n2");
	CHECK_INT(netprobe_parse("ranks\t2\nnode\ta,b\nnode\tc\nend\n", &np), 0);
	CHECK_STR(np.nodes, ""); /* a name with "," is no set */
	CHECK(np.nodes_overflow);
	CHECK_INT(netprobe_parse("ranks\t1\nend\n", &np), 0);
	CHECK_STR(np.nodes, "");
}

static const struct test_case cases[] = {
	{"hostlist", "Slurm host lists expand, sorted and once each; malformed ones are none",
	 t_hostlist},
	{"srun", "srun: rank count and application leave the key alone; node options, --mpi and "
		 "transport variables change it", t_srun},
	{"allocation", "inside an allocation srun over all of its nodes knows them", t_allocation},
	{"allocation_options", "inside an allocation: -w, -x, -r with the allocation's node "
			       "count", t_allocation_options},
	{"nodefile", "--nodefile, and -w or -x naming a file", t_nodefile},
	{"mpirun_allocation", "mpirun inside a Slurm allocation: only when no node can be left "
			      "out", t_mpirun_allocation},
	{"openmpi", "Open MPI: --mca, -x and OMPI_MCA_* change the key; -H names the nodes",
	 t_openmpi},
	{"hydra", "MPICH hydra: -genv transport variables, -iface and hostfiles", t_hydra},
	{"store_load", "an entry keeps its nodes, date and Qualities; other nodes, transport or "
		       "stack miss", t_store_load},
	{"probe_nodes", "the probe's node lines", t_probe_nodes},
};
TEST_MAIN(cases)
