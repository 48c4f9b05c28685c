// SPDX-License-Identifier: BSD-3-Clause
/*
 * Option tables of the launchers and wrappers, from their manuals: Open MPI
 * 4.1/5.0 mpirun(1) (prterun shares them), MPICH 4 mpiexec.hydra and Intel
 * MPI mpirun (hydra), Slurm 23 srun(1), IBM jsrun(1), Cray aprun(1), flux-run(1),
 * and GNU coreutils/util-linux/numactl for the wrappers. Only options that
 * take a value matter for the split; a flag missing from a table is still a
 * flag. Open MPI and hydra accept one or two dashes alike, so their names are
 * stored bare.
 */
#include "launch/launchers.h"

#include <string.h>

#define N(t) (sizeof(t) / sizeof((t)[0]))

/* Open MPI (mpirun, mpiexec, orterun, prterun). */
static const struct launch_opt openmpi_opts[] = {
	{"n", 1, WS_TASKS}, {"np", 1, WS_TASKS}, {"c", 1, WS_TASKS},
	{"N", 1, WS_PER_NODE}, {"npernode", 1, WS_PER_NODE}, {"npersocket", 1, 0},
	{"H", 1, 0}, {"host", 1, 0}, {"hostfile", 1, 0}, {"machinefile", 1, 0},
	{"default-hostfile", 1, 0}, {"add-host", 1, 0}, {"add-hostfile", 1, 0},
	{"map-by", 1, 0}, {"rank-by", 1, 0}, {"bind-to", 1, 0}, {"x", 1, 0},
	{"mca", 2, 0}, {"gmca", 2, 0}, {"pmixmca", 2, 0}, {"prtemca", 2, 0},
	{"tune", 1, 0}, {"am", 1, 0}, {"app", 1, 0}, {"prefix", 1, 0},
	{"wdir", 1, 0}, {"wd", 1, 0}, {"path", 1, 0}, {"preload-files", 1, 0},
	{"output-filename", 1, 0}, {"output", 1, 0}, {"cpus-per-proc", 1, 0},
	{"cpus-per-rank", 1, 0}, {"cpu-set", 1, 0}, {"cpu-list", 1, 0},
	{"rankfile", 1, 0}, {"rf", 1, 0}, {"slot-list", 1, 0}, {"ompi-server", 1, 0},
	{"report-uri", 1, 0}, {"report-pid", 1, 0}, {"personality", 1, 0},
	{"stream-buffering", 1, 0}, {"dvm", 1, 0}, {"dvm-uri", 1, 0},
	{"max-restarts", 1, 0}, {"timeout", 1, 0}, {"launch-agent", 1, 0},
	{"runtime-options", 1, 0}, {"rtos", 1, 0}, {"debugger", 1, 0},
	{"initial-errhandler", 1, 0}, {"pset", 1, 0}, {"stdin", 1, 0},
	{"merge-stderr-to-stdout", 0, 0}, {"oversubscribe", 0, 0},
	{"allow-run-as-root", 0, 0}, {"tag-output", 0, 0}, {"timestamp-output", 0, 0},
	{"report-bindings", 0, 0}, {"display-map", 0, 0}, {"use-hwthread-cpus", 0, 0},
	{"nolocal", 0, 0}, {"q", 0, 0}, {"quiet", 0, 0}, {"v", 0, 0},
};

/* MPICH hydra and Intel MPI's mpirun (mpiexec.hydra). */
static const struct launch_opt hydra_opts[] = {
	{"n", 1, WS_TASKS}, {"np", 1, WS_TASKS}, {"ppn", 1, WS_PER_NODE},
	{"perhost", 1, WS_PER_NODE}, {"f", 1, 0}, {"hostfile", 1, 0},
	{"machinefile", 1, 0}, {"mfile", 1, 0}, {"hosts", 1, 0}, {"host", 1, 0},
	{"genv", 2, 0}, {"env", 2, 0}, {"genvlist", 1, 0}, {"envlist", 1, 0},
	{"wdir", 1, 0}, {"configfile", 1, 0}, {"launcher", 1, 0},
	{"launcher-exec", 1, 0}, {"bootstrap", 1, 0}, {"bootstrap-exec", 1, 0},
	{"rmk", 1, 0}, {"demux", 1, 0}, {"iface", 1, 0}, {"binding", 1, 0},
	{"bind-to", 1, 0}, {"map-by", 1, 0}, {"membind", 1, 0}, {"topolib", 1, 0},
	{"gpus-per-proc", 1, 0}, {"errfile-pattern", 1, 0}, {"outfile-pattern", 1, 0},
	{"prepend-pattern", 1, 0}, {"nameserver", 1, 0}, {"usize", 1, 0},
	{"profile", 1, 0}, {"ckpointlib", 1, 0}, {"ckpoint-prefix", 1, 0},
	{"ckpoint-interval", 1, 0}, {"ckpoint-num", 1, 0}, {"genvall", 0, 0},
	{"genvnone", 0, 0}, {"envall", 0, 0}, {"envnone", 0, 0}, {"l", 0, 0},
	{"prepend-rank", 0, 0}, {"rr", 0, 0}, {"verbose", 0, 0}, {"info", 0, 0},
	{"print-all-exitcodes", 0, 0}, {"disable-x", 0, 0}, {"enable-x", 0, 0},
};

static const struct launch_opt slurm_opts[] = {
	{"-n", 1, WS_TASKS}, {"--ntasks", 1, WS_TASKS}, {"-N", 1, WS_NODES},
	{"--nodes", 1, WS_NODES}, {"--ntasks-per-node", 1, WS_PER_NODE},
	{"-A", 1, 0}, {"--account", 1, 0}, {"-b", 1, 0}, {"--begin", 1, 0},
	{"-c", 1, 0}, {"--cpus-per-task", 1, 0}, {"-D", 1, 0}, {"--chdir", 1, 0},
	{"-d", 1, 0}, {"--dependency", 1, 0}, {"-e", 1, 0}, {"--error", 1, 0},
	{"-i", 1, 0}, {"--input", 1, 0}, {"-J", 1, 0}, {"--job-name", 1, 0},
	{"-L", 1, 0}, {"--licenses", 1, 0}, {"-m", 1, 0}, {"--distribution", 1, 0},
	{"-o", 1, 0}, {"--output", 1, 0}, {"-p", 1, 0}, {"--partition", 1, 0},
	{"-q", 1, 0}, {"--qos", 1, 0}, {"-r", 1, 0}, {"--relative", 1, 0},
	{"-S", 1, 0}, {"--core-spec", 1, 0}, {"-t", 1, 0}, {"--time", 1, 0},
	{"-T", 1, 0}, {"--threads", 1, 0}, {"-w", 1, 0}, {"--nodelist", 1, 0},
	{"-x", 1, 0}, {"--exclude", 1, 0}, {"-C", 1, 0}, {"--constraint", 1, 0},
	{"-G", 1, 0}, {"--gpus", 1, 0}, {"-W", 1, 0}, {"--wait", 1, 0},
	{"-M", 1, 0}, {"--clusters", 1, 0}, {"-B", 1, 0}, {"--extra-node-info", 1, 0},
	{"--cpu-bind", 1, 0}, {"--export", 1, 0}, {"--mem", 1, 0},
	{"--mem-per-cpu", 1, 0}, {"--mem-per-gpu", 1, 0}, {"--mem-bind", 1, 0},
	{"--mpi", 1, 0}, {"--ntasks-per-core", 1, 0}, {"--ntasks-per-socket", 1, 0},
	{"--ntasks-per-gpu", 1, 0}, {"--reservation", 1, 0}, {"--gres", 1, 0},
	{"--gpus-per-node", 1, 0}, {"--gpus-per-task", 1, 0}, {"--gpus-per-socket", 1, 0},
	{"--cpus-per-gpu", 1, 0}, {"--gpu-bind", 1, 0}, {"--hint", 1, 0},
	{"--het-group", 1, 0}, {"--jobid", 1, 0}, {"--mail-type", 1, 0},
	{"--mail-user", 1, 0}, {"--network", 1, 0}, {"--signal", 1, 0},
	{"--switches", 1, 0}, {"--threads-per-core", 1, 0}, {"--tmp", 1, 0},
	{"--uid", 1, 0}, {"--gid", 1, 0}, {"--wckey", 1, 0}, {"--cores-per-socket", 1, 0},
	{"--sockets-per-node", 1, 0}, {"--time-min", 1, 0}, {"--deadline", 1, 0},
	{"--cpu-freq", 1, 0}, {"--task-epilog", 1, 0}, {"--task-prolog", 1, 0},
	{"--epilog", 1, 0}, {"--prolog", 1, 0}, {"--comment", 1, 0},
	{"--container", 1, 0}, {"--open-mode", 1, 0}, {"--profile", 1, 0},
	{"--mincpus", 1, 0}, {"--nodefile", 1, 0}, {"--thread-spec", 1, 0},
	{"--slurmd-debug", 1, 0}, {"--delay-boot", 1, 0}, {"--power", 1, 0},
	{"-l", 0, 0}, {"--label", 0, 0}, {"-u", 0, 0}, {"--unbuffered", 0, 0},
	{"-k", 0, 0}, {"--no-kill", 0, 0}, {"-v", 0, 0}, {"-Q", 0, 0}, {"-s", 0, 0},
	{"--exclusive", 0, 0}, {"--overlap", 0, 0}, {"--pty", 0, 0}, {"-X", 0, 0},
};

static const struct launch_opt jsrun_opts[] = {
	{"-p", 1, WS_TASKS}, {"--np", 1, WS_TASKS}, {"-n", 1, WS_RS}, {"--nrs", 1, WS_RS},
	{"-a", 1, WS_PER_RS}, {"--tasks_per_rs", 1, WS_PER_RS}, {"-c", 1, 0},
	{"--cpu_per_rs", 1, 0}, {"-g", 1, 0}, {"--gpu_per_rs", 1, 0}, {"-r", 1, 0},
	{"--rs_per_host", 1, 0}, {"-K", 1, 0}, {"--rs_per_socket", 1, 0}, {"-b", 1, 0},
	{"--bind", 1, 0}, {"-d", 1, 0}, {"--launch_distribution", 1, 0}, {"-l", 1, 0},
	{"--latency_priority", 1, 0}, {"-m", 1, 0}, {"--memory_per_rs", 1, 0},
	{"-E", 1, 0}, {"--env", 1, 0}, {"-F", 1, 0}, {"--env_eval", 1, 0}, {"-D", 1, 0},
	{"--env_no_propagate", 1, 0}, {"-h", 1, 0}, {"--chdir", 1, 0}, {"-e", 1, 0},
	{"--stdio_mode", 1, 0}, {"-o", 1, 0}, {"--stdio_stdout", 1, 0}, {"-k", 1, 0},
	{"--stdio_stderr", 1, 0}, {"-i", 1, 0}, {"--stdio_input", 1, 0}, {"-M", 1, 0},
	{"--smpiargs", 1, 0}, {"-U", 1, 0}, {"--erf_input", 1, 0}, {"-X", 1, 0},
	{"--exit_on_error", 1, 0}, {"-f", 1, 0}, {"--appfile", 1, 0}, {"-Z", 1, 0},
	{"--progress", 1, 0}, {"-P", 0, 0}, {"--print_placement", 0, 0},
};

static const struct launch_opt aprun_opts[] = {
	{"-n", 1, WS_TASKS}, {"-N", 1, WS_PER_NODE}, {"-d", 1, 0}, {"-cc", 1, 0},
	{"-cp", 1, 0}, {"-D", 1, 0}, {"-e", 1, 0}, {"-L", 1, 0}, {"-m", 1, 0},
	{"-j", 1, 0}, {"-S", 1, 0}, {"-sl", 1, 0}, {"-sn", 1, 0}, {"-F", 1, 0},
	{"-a", 1, 0}, {"-p", 1, 0}, {"-r", 1, 0}, {"-t", 1, 0}, {"-E", 1, 0},
	{"-R", 1, 0}, {"-ss", 0, 0}, {"-q", 0, 0}, {"-b", 0, 0}, {"-B", 0, 0},
	{"-T", 0, 0},
};

static const struct launch_opt flux_opts[] = {
	{"-n", 1, WS_TASKS}, {"--ntasks", 1, WS_TASKS}, {"-N", 1, WS_NODES},
	{"--nodes", 1, WS_NODES}, {"--tasks-per-node", 1, WS_PER_NODE},
	{"-c", 1, 0}, {"--cores-per-task", 1, 0}, {"-g", 1, 0}, {"--gpus-per-task", 1, 0},
	{"--tasks-per-core", 1, 0}, {"--gpus-per-node", 1, 0}, {"--cores", 1, 0},
	{"-t", 1, 0}, {"--time-limit", 1, 0}, {"--job-name", 1, 0}, {"-o", 1, 0},
	{"--setopt", 1, 0}, {"-S", 1, 0}, {"--setattr", 1, 0}, {"--env", 1, 0},
	{"--env-remove", 1, 0}, {"--env-file", 1, 0}, {"--input", 1, 0},
	{"--output", 1, 0}, {"--error", 1, 0}, {"-q", 1, 0}, {"--queue", 1, 0},
	{"-B", 1, 0}, {"--bank", 1, 0}, {"--urgency", 1, 0}, {"--dependency", 1, 0},
	{"--requires", 1, 0}, {"--begin-time", 1, 0}, {"--conf", 1, 0}, {"--cwd", 1, 0},
	{"--taskmap", 1, 0}, {"--cc", 1, 0}, {"--bcc", 1, 0}, {"--add-file", 1, 0},
	{"--signal", 1, 0}, {"--flags", 1, 0}, {"--wait-event", 1, 0},
	{"-l", 0, 0}, {"--label-io", 0, 0}, {"-u", 0, 0}, {"--unbuffered", 0, 0},
	{"-x", 0, 0}, {"--exclusive", 0, 0}, {"-v", 0, 0}, {"--verbose", 0, 0},
};

static const struct launch_opt env_opts[] = {
	{"-u", 1, 0}, {"--unset", 1, 0}, {"-C", 1, 0}, {"--chdir", 1, 0},
	{"-S", 1, 0}, {"--split-string", 1, 0}, {"-i", 0, 0}, {"--ignore-environment", 0, 0},
	{"-0", 0, 0}, {"--null", 0, 0}, {"-v", 0, 0}, {"--debug", 0, 0},
};

static const struct launch_opt numactl_opts[] = {
	{"-i", 1, 0}, {"--interleave", 1, 0}, {"-m", 1, 0}, {"--membind", 1, 0},
	{"-N", 1, 0}, {"--cpunodebind", 1, 0}, {"-C", 1, 0}, {"--physcpubind", 1, 0},
	{"-p", 1, 0}, {"--preferred", 1, 0}, {"-P", 1, 0}, {"--preferred-many", 1, 0},
	{"-w", 1, 0}, {"--weighted-interleave", 1, 0}, {"-S", 1, 0}, {"--shmid", 1, 0},
	{"-f", 1, 0}, {"--file", 1, 0}, {"-L", 1, 0}, {"--length", 1, 0},
	{"-M", 1, 0}, {"--mode", 1, 0}, {"-o", 1, 0}, {"--offset", 1, 0},
	{"-a", 0, 0}, {"--all", 0, 0}, {"-l", 0, 0}, {"--localalloc", 0, 0},
	{"-b", 0, 0}, {"--balancing", 0, 0}, {"-t", 0, 0}, {"--strict", 0, 0},
};

static const struct launch_opt taskset_opts[] = {
	{"-a", 0, 0}, {"--all-tasks", 0, 0}, {"-c", 0, 0}, {"--cpu-list", 0, 0},
};

static const struct launch_opt nice_opts[] = {
	{"-n", 1, 0}, {"--adjustment", 1, 0},
};

static const struct launch_opt stdbuf_opts[] = {
	{"-i", 1, 0}, {"--input", 1, 0}, {"-o", 1, 0}, {"--output", 1, 0},
	{"-e", 1, 0}, {"--error", 1, 0},
};

static const struct launch_opt time_opts[] = {
	{"-f", 1, 0}, {"--format", 1, 0}, {"-o", 1, 0}, {"--output", 1, 0},
	{"-a", 0, 0}, {"--append", 0, 0}, {"-p", 0, 0}, {"--portability", 0, 0},
	{"-v", 0, 0}, {"--verbose", 0, 0}, {"-q", 0, 0}, {"--quiet", 0, 0},
};

#define MPI_BOTH(nm, kind) \
	{nm, kind, STYLE_DASH_FREE, openmpi_opts, N(openmpi_opts), hydra_opts, N(hydra_opts), 0, 0}
#define ONE(nm, kind, style, t, pos, sub) {nm, kind, style, t, N(t), NULL, 0, pos, sub}

static const struct launch_tool tools[] = {
	MPI_BOTH("mpirun", LAUNCHER_MPI),
	MPI_BOTH("mpiexec", LAUNCHER_MPI),
	ONE("mpirun.openmpi", LAUNCHER_OPENMPI, STYLE_DASH_FREE, openmpi_opts, 0, 0),
	ONE("mpiexec.openmpi", LAUNCHER_OPENMPI, STYLE_DASH_FREE, openmpi_opts, 0, 0),
	ONE("orterun", LAUNCHER_OPENMPI, STYLE_DASH_FREE, openmpi_opts, 0, 0),
	ONE("prterun", LAUNCHER_OPENMPI, STYLE_DASH_FREE, openmpi_opts, 0, 0),
	ONE("mpiexec.hydra", LAUNCHER_HYDRA, STYLE_DASH_FREE, hydra_opts, 0, 0),
	ONE("mpirun.mpich", LAUNCHER_HYDRA, STYLE_DASH_FREE, hydra_opts, 0, 0),
	ONE("mpiexec.mpich", LAUNCHER_HYDRA, STYLE_DASH_FREE, hydra_opts, 0, 0),
	ONE("srun", LAUNCHER_SLURM, STYLE_GETOPT, slurm_opts, 0, 0),
	ONE("jsrun", LAUNCHER_JSRUN, STYLE_GETOPT, jsrun_opts, 0, 0),
	ONE("aprun", LAUNCHER_APRUN, STYLE_GETOPT, aprun_opts, 0, 0),
	ONE("flux", LAUNCHER_FLUX, STYLE_GETOPT, flux_opts, 0, 1),
	ONE("env", LAUNCHER_NONE, STYLE_GETOPT, env_opts, 0, 0),
	ONE("numactl", LAUNCHER_NONE, STYLE_GETOPT, numactl_opts, 0, 0),
	ONE("taskset", LAUNCHER_NONE, STYLE_GETOPT, taskset_opts, 1, 0),
	ONE("nice", LAUNCHER_NONE, STYLE_GETOPT, nice_opts, 0, 0),
	ONE("stdbuf", LAUNCHER_NONE, STYLE_GETOPT, stdbuf_opts, 0, 0),
	ONE("time", LAUNCHER_NONE, STYLE_GETOPT, time_opts, 0, 0),
};

const struct launch_tool *launch_tool_find(const char *token)
{
	const char *base = strrchr(token, '/');
	base = base ? base + 1 : token;
	for (size_t i = 0; i < N(tools); i++)
		if (strcmp(tools[i].name, base) == 0)
			return &tools[i];
	return NULL;
}

static const struct launch_opt *find_in(const struct launch_opt *t, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i].name, name) == 0)
			return &t[i];
	return NULL;
}

const struct launch_opt *launch_tool__opt(const struct launch_tool *t, const char *name)
{
	if (t->style == STYLE_DASH_FREE) {
		while (*name == '-')
			name++;
		if (!*name)
			return NULL;
	}
	const struct launch_opt *o = find_in(t->opts, t->nr_opts, name);
	if (!o && t->more)
		o = find_in(t->more, t->nr_more, name);
	return o;
}
