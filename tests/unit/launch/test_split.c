// SPDX-License-Identifier: BSD-3-Clause
/* The launch split over a table of real command lines, every launcher and
 * wrapper, options with values in all their spellings, and `--` forms. */
#include <errno.h>

#include "harness.h"

#include "common/alloc.h"
#include "common/err.h"
#include "launch/split.h"

/* A resolver that knows the test's "installed" programs: paths, and a few
 * names that would be on PATH. Nothing touches the filesystem. */
static bool fake_resolve(const char *tok, void *ctx)
{
	(void)ctx;
	static const char *const on_path[] = {"solver", "a.out", "python3", "hostname",
					      "lmp", "gmx_mpi", "xhpl", NULL};
	if (tok[0] == '/' || (tok[0] == '.' && tok[1] == '/'))
		return strstr(tok, "missing") == NULL;
	for (size_t i = 0; on_path[i]; i++)
		if (strcmp(tok, on_path[i]) == 0)
			return true;
	return false;
}

struct row {
	const char *cmd;       /* split on spaces */
	const char *app;       /* expected application, joined with spaces; "" none */
	int world_size;
	bool mpi;
	enum launcher_kind kind;
};

static const struct row rows[] = {
	/* single process, wrapped or not */
	{"./solver -i in.dat", "./solver -i in.dat", -1, false, LAUNCHER_NONE},
	{"env OMP_NUM_THREADS=4 ./solver", "./solver", -1, false, LAUNCHER_NONE},
	{"env -u HOME -C /tmp A=1 ./solver x", "./solver x", -1, false, LAUNCHER_NONE},
	{"numactl --interleave=all ./solver", "./solver", -1, false, LAUNCHER_NONE},
	{"numactl -N 0 -m 0 ./solver", "./solver", -1, false, LAUNCHER_NONE},
	{"taskset -c 0-3 ./solver", "./solver", -1, false, LAUNCHER_NONE},
	{"taskset 0x3 ./solver", "./solver", -1, false, LAUNCHER_NONE},
	{"nice -n 10 ./solver", "./solver", -1, false, LAUNCHER_NONE},
	{"nice -5 ./solver", "./solver", -1, false, LAUNCHER_NONE},
	{"stdbuf -oL -e 0 ./solver", "./solver", -1, false, LAUNCHER_NONE},
	{"/usr/bin/time -f %e -o t.txt ./solver", "./solver", -1, false, LAUNCHER_NONE},
	{"time -v env -- ./solver", "./solver", -1, false, LAUNCHER_NONE},
	/* Open MPI */
	{"mpirun -n 8 ./solver", "./solver", 8, true, LAUNCHER_MPI},
	{"mpirun -np 16 --map-by core --bind-to core ./solver -i a", "./solver -i a", 16, true, LAUNCHER_MPI},
	{"mpirun --np=4 ./solver", "./solver", 4, true, LAUNCHER_MPI},
	{"mpirun -n4 ./solver", "./solver", 4, true, LAUNCHER_MPI},
	{"mpirun --oversubscribe --allow-run-as-root -n 4 ./a.out", "./a.out", 4, true, LAUNCHER_MPI},
	{"mpirun -x OMP_NUM_THREADS -x LD_LIBRARY_PATH -np 2 ./solver", "./solver", 2, true, LAUNCHER_MPI},
	{"mpirun --mca btl self,vader --mca pml ob1 -np 2 solver", "solver", 2, true, LAUNCHER_MPI},
	{"mpirun -mca btl ^openib -hostfile hosts -npernode 4 ./solver", "./solver", -1, true, LAUNCHER_MPI},
	{"mpirun --hostfile hosts.txt -H n1,n2 -np 32 --report-bindings ./solver", "./solver", 32, true, LAUNCHER_MPI},
	{"orterun -np 3 -wdir /scratch ./solver", "./solver", 3, true, LAUNCHER_OPENMPI},
	{"prterun --np 6 --map-by ppr:2:node ./solver", "./solver", 6, true, LAUNCHER_OPENMPI},
	{"mpirun.openmpi -c 5 ./solver", "./solver", 5, true, LAUNCHER_OPENMPI},
	{"mpirun -n 4 numactl -l ./solver", "./solver", 4, true, LAUNCHER_MPI},
	{"env OMP_NUM_THREADS=2 mpirun -n 4 taskset -c 0-7 ./solver", "./solver", 4, true, LAUNCHER_MPI},
	{"mpirun -n 2 -- ./solver", "./solver", 2, true, LAUNCHER_MPI},
	{"mpirun -n 2 python3 script.py", "python3 script.py", 2, true, LAUNCHER_MPI},
	/* MPICH hydra / Intel MPI */
	{"mpiexec -n 8 -ppn 4 -hosts n1,n2 ./solver", "./solver", 8, true, LAUNCHER_MPI},
	{"mpiexec.hydra -genv I_MPI_DEBUG 5 -np 12 -f hosts ./solver", "./solver", 12, true, LAUNCHER_HYDRA},
	{"mpiexec.hydra -env A 1 -env B 2 -n 2 -bind-to core ./solver", "./solver", 2, true, LAUNCHER_HYDRA},
	{"mpirun -ppn 4 -genvall -l ./solver", "./solver", -1, true, LAUNCHER_MPI},
	{"mpiexec.mpich -n 3 -launcher fork ./solver", "./solver", 3, true, LAUNCHER_HYDRA},
	/* Slurm */
	{"srun -n 64 ./solver", "./solver", 64, true, LAUNCHER_SLURM},
	{"srun --ntasks=128 --cpu-bind=cores ./solver", "./solver", 128, true, LAUNCHER_SLURM},
	{"srun -N 2 --ntasks-per-node=4 ./solver", "./solver", 8, true, LAUNCHER_SLURM},
	{"srun --nodes=3 --ntasks-per-node 2 -c 4 --mpi=pmix ./solver", "./solver", 6, true, LAUNCHER_SLURM},
	{"srun -N2 -n8 -p batch -t 10:00 --export=ALL ./solver", "./solver", 8, true, LAUNCHER_SLURM},
	{"srun -A proj -J job -l -u -n 2 -- ./solver a b", "./solver a b", 2, true, LAUNCHER_SLURM},
	{"srun -N 2-4 ./solver", "./solver", -1, true, LAUNCHER_SLURM},
	{"srun -n 4 env A=1 numactl --membind 0 lmp -in in.lj", "lmp -in in.lj", 4, true, LAUNCHER_SLURM},
	/* jsrun, aprun, flux */
	{"jsrun -n 4 -a 6 -c 7 -g 6 -b packed:7 ./solver", "./solver", 24, true, LAUNCHER_JSRUN},
	{"jsrun --nrs 2 --tasks_per_rs=3 --rs_per_host 1 ./solver", "./solver", 6, true, LAUNCHER_JSRUN},
	{"jsrun -p 10 -E OMP_NUM_THREADS=1 ./solver", "./solver", 10, true, LAUNCHER_JSRUN},
	{"aprun -n 48 -N 24 -d 1 -cc depth ./solver", "./solver", 48, true, LAUNCHER_APRUN},
	{"aprun -n 8 -e OMP_NUM_THREADS=2 -j 1 ./solver", "./solver", 8, true, LAUNCHER_APRUN},
	{"flux run -n 16 -c 2 ./solver", "./solver", 16, true, LAUNCHER_FLUX},
	{"flux run -N 2 --tasks-per-node=8 -o cpu-affinity=per-task ./solver", "./solver", 16, true, LAUNCHER_FLUX},
	{"flux mini run --ntasks=4 -- ./solver", "./solver", 4, true, LAUNCHER_FLUX},
	{"flux submit -n 2 gmx_mpi mdrun", "gmx_mpi mdrun", 2, true, LAUNCHER_FLUX},
	/* wrappers before the launcher, time around everything */
	{"time mpirun -n 4 ./solver", "./solver", 4, true, LAUNCHER_MPI},
	{"nice -n 5 stdbuf -oL srun -n 3 ./solver", "./solver", 3, true, LAUNCHER_SLURM},
	{"numactl --cpunodebind=0 mpiexec -np 2 xhpl", "xhpl", 2, true, LAUNCHER_MPI},
	/* nothing behind the launcher: said, not guessed */
	{"mpirun -n 4", "", 4, true, LAUNCHER_MPI},
	{"srun -n 4 --", "", 4, true, LAUNCHER_SLURM},
	{"flux jobs -a", "", -1, true, LAUNCHER_FLUX},
};

static int split_words(char *buf, char **words, int max)
{
	int n = 0;
	for (char *tok = strtok(buf, " "); tok && n < max - 1; tok = strtok(NULL, " "))
		words[n++] = tok;
	words[n] = NULL;
	return n;
}

static void join(char *const *v, size_t n, char *out, size_t cap)
{
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (i)
			strncat(out, " ", cap - strlen(out) - 1);
		strncat(out, v[i], cap - strlen(out) - 1);
	}
}

static void t_table(void)
{
	int failures = 0;
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		char buf[512], *words[64], app[512];
		snprintf(buf, sizeof(buf), "%s", rows[r].cmd);
		int n = split_words(buf, words, 64);
		struct launch_plan p;
		struct err e = {0};
		CHECK_INT(launch_split_with(words, fake_resolve, NULL, &p, &e), 0);
		join(p.app, p.nr_app, app, sizeof(app));
		CHECK_INT(p.nr_prefix + p.nr_app, n);
		bool ok = strcmp(app, rows[r].app) == 0 && p.world_size == rows[r].world_size &&
			  p.mpi == rows[r].mpi && p.kind == rows[r].kind &&
			  (p.nr_app > 0) == (p.problem[0] == '\0');
		if (!ok) {
			fprintf(stderr, "row %zu `%s`: app `%s` ws %d mpi %d kind %s problem `%s`\n", r,
				rows[r].cmd, app, p.world_size, p.mpi, launcher_kind__name(p.kind),
				p.problem);
			failures++;
		}
	}
	CHECK_INT(failures, 0);
}

/* Splits `line` on spaces into a static argv (the tests' command lines). */
static char **words_of(const char *line)
{
	static char buf[512];
	static char *words[64];
	snprintf(buf, sizeof(buf), "%s", line);
	split_words(buf, words, 64);
	return words;
}

static void t_target_names_the_run(void)
{
	char **cmd = words_of("mpirun -n 256 /opt/app/bin/solver -v");
	struct launch_plan p;
	CHECK_INT(launch_split_with(cmd, fake_resolve, NULL, &p, NULL), 0);
	CHECK_STR(p.target, "/opt/app/bin/solver");
	CHECK_STR(p.launcher, "mpirun");
	CHECK_INT(p.nr_prefix, 3);
}

static void t_unknown_option_value(void)
{
	/* --new-flag is in no table; 'fast' is no program, ./solver is. */
	char **cmd = words_of("mpirun --new-option fast -n 2 ./solver");
	struct launch_plan p;
	CHECK_INT(launch_split_with(cmd, fake_resolve, NULL, &p, NULL), 0);
	CHECK_STR(p.target, "./solver");
	CHECK_INT(p.world_size, 2);
	CHECK(strstr(p.note, "--new-option") != NULL);
	/* Without a resolver the tables alone decide, and the flag guess is said
	 * through `problem` only when a resolver can tell. */
	CHECK_INT(launch_split_with(cmd, NULL, NULL, &p, NULL), 0);
	CHECK_STR(p.target, "fast");
}

static void t_unresolvable_said(void)
{
	char **cmd = words_of("srun -n 2 ./missing-binary");
	struct launch_plan p;
	CHECK_INT(launch_split_with(cmd, fake_resolve, NULL, &p, NULL), 0);
	CHECK_STR(p.target, "./missing-binary");
	CHECK(strstr(p.problem, "does not resolve") != NULL);
	char **empty = words_of("");
	struct err e = {0};
	CHECK_INT(launch_split_with(empty, fake_resolve, NULL, &p, &e), -EINVAL);
	CHECK_STR(e.code, "launch.empty");
}

static void t_wrap(void)
{
	char **cmd = words_of("mpirun -n 4 ./solver arg");
	struct launch_plan p;
	CHECK_INT(launch_split_with(cmd, fake_resolve, NULL, &p, NULL), 0);
	const char *shim[] = {"/abs/nunatak", "rank-shim", "--directory", "/run/collect", "--",
			      NULL};
	char **w = launch_plan__wrap(&p, shim);
	CHECK(w != NULL);
	char out[512];
	size_t n = 0;
	while (w[n])
		n++;
	join(w, n, out, sizeof(out));
	CHECK_STR(out, "mpirun -n 4 /abs/nunatak rank-shim --directory /run/collect -- ./solver arg");
	xfree(w);
}

static void t_real_path_resolver(void)
{
	/* The default resolver goes through PATH: `sh` is always there. */
	char **cmd = words_of("mpirun --weird sh -c true");
	struct launch_plan p;
	CHECK_INT(launch_split(cmd, &p, NULL), 0);
	CHECK_STR(p.target, "sh");
	CHECK_STR(p.problem, "");
}

static const struct test_case cases[] = {
	{"table", "every launcher and wrapper over real command lines", t_table},
	{"target", "the real target, not mpirun, names the Run", t_target_names_the_run},
	{"unknown_option", "an option in no table, resolved by what follows", t_unknown_option_value},
	{"unresolvable", "an unresolvable application is said", t_unresolvable_said},
	{"wrap", "the shim goes between prefix and application", t_wrap},
	{"path_resolver", "the default resolver looks in PATH", t_real_path_resolver},
};

TEST_MAIN(cases)
