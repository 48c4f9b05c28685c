// SPDX-License-Identifier: BSD-3-Clause
#include "collect/rank_shim.h"
#include "collect/collector.h"
#include "collect/perf_exit.h"
#include "collect/perf_kallsyms.h"
#include "collect/preload_path.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/perf.h"
#include "attrib/elf.h"
#include "ingest/buildid.h"
#include "ingest/perf_data.h"
#include "common/alloc.h"
#include "common/cache_home.h"
#include "common/degradation_kinds.h"
#include "common/signame.h"
#include "common/text.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "doctor/offcpu.h"
#include "common/fsutil.h"
#include "common/host_clock.h"
#include "exec/exec.h"
#include "machine/node_profile.h"
#include "model/model.h"
#include "rank_env.h"

/* One rank's collection in progress. */
struct shim {
	struct executor *x;
	const struct rank_shim_opts *o;
	char *const *app;     /* what runs (env + preload + application when preloading) */
	const char *target;   /* the application's own argv[0] */
	bool no_clock;        /* perf refused -k CLOCK_MONOTONIC: record without */
	pid_t launcher;       /* the launcher's process on the node (our parent before the
				 split): its CPU set is the node's allocation */
	bool no_switch;       /* perf refused the context switches: record without */
	bool blocking;        /* the switches' stacks of blocking switch-outs only
				 (doctor/offcpu.h offcpu_blocking_usable), until perf refuses */
	struct sp_rank_info id;
	char node[256];
	char machine_id[MACHINE_ID_SIZE]; /* the node's Machine (machine/node_profile.h), "" */
	char *dir;            /* <directory>/rank-<N> */
	char *perf;           /* resolved perf path, or NULL */
	struct perf_version pv;
	bool have_pv;
	const char *role;
	bool sampled, counted;
	char events[160];
	char *preload_env;    /* "LD_PRELOAD=..." or NULL */
	/* the MPI probe, --preload and the sampler as LD_PRELOAD can name them */
	struct preload_path pp_mpi, pp_pre, pp_sampler;
	char *mpi_env;        /* "NUNATAK_MPI_PROFILE=<rank dir>/mpi-profile.txt" or NULL */
	char *skip_env;       /* "NUNATAK_MPI_SKIP=<list>" or NULL */
	char **app_env;       /* `env LD_PRELOAD=... [NUNATAK_MPI_PROFILE=...] app...`
				 (borrowed words), or NULL */
	size_t app_words;     /* words before the application in app_env */
	char *regions_env;    /* "SCOPE_PROFILER_PREFIX=<directory>/regions/<name>" or NULL */
	char *ompt_env[2];    /* OMP_TOOL_LIBRARIES=..., NUNATAK_OMPT_DIR=... or NULL */
	const char *env_set[4]; /* {regions_env, ompt_env..., NULL}: the application's env_set */
	char *sps_rel;        /* the preload sampler's .sps, relative to directory */
	struct degradations degr;
	struct exec_result res;
	bool ran;             /* the application was started */
	pid_t app_pgid;       /* the launcher-facing group the application joins, or 0 */
	const char *return_ns; /* fg-exec's --return-ns while perf runs in its own
				  mount namespace (collect/perf_kallsyms.h), or NULL */
	char pgid_word[24];   /* app_pgid for the relay's --app-pgid */
	/* when the shim started and when the application (under perf) ended:
	 * the Run's cost puts the ranks' span against the launcher's */
	struct host_clock started, ended;
};

bool rank_shim_samples(int rank, int world_size, int local_rank, int threshold)
{
	if (threshold <= 0)
		threshold = RANK_SHIM_DEFAULT_THRESHOLD;
	if (world_size > 0 && world_size <= threshold)
		return true;
	return rank == 0 || local_rank == 0;
}

static const char *env_lookup(const char *name, void *ctx)
{
	(void)ctx;
	return getenv(name);
}

static void degrade(struct shim *s, const char *name, const char *remedy, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void degrade(struct shim *s, const char *name, const char *remedy, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = text_vformat(fmt, ap); /* paths of any length, never cut */
	va_end(ap);
	degradations__add(&s->degr, name, msg ? msg : "out of memory writing this degradation", remedy);
	xfree(msg);
}

static off_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? st.st_size : -1;
}

static char *read_small_file(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t cap = 0, len = 0;
	char *buf = NULL;
	for (;;) {
		if (xgrow((void **)&buf, &cap, len + 4097, 1) < 0)
			break;
		size_t n = fread(buf + len, 1, 4096, f);
		len += n;
		if (n < 4096)
			break;
	}
	fclose(f);
	if (buf)
		buf[len] = '\0';
	return buf;
}

static bool csv_has_counts(const char *text);

/* perf's output at `path` is finished (perf stat's CSV holds counts, perf
 * record's header its data size): perf outlived its application. */
static bool perf_output_finished(const char *path, bool csv)
{
	if (!csv)
		return perf_data_finished(path);
	char *text = read_small_file(path);
	bool ok = csv_has_counts(text);
	xfree(text);
	return ok;
}

/* The application runs with the shim's pass-through settings: never
 * captured, signals forwarded, the preload added when asked. perf_out: the
 * file perf writes (a CSV when csv), NULL without perf. */
static int run_app_argv(struct shim *s, char *const *argv, const char *perf_out, bool csv,
			struct err *e)
{
	/* perf wrapping the application: killed, its orphan is waited for and
	 * keeps its own status (exec_request.wrapper). */
	bool perf = perf_out != NULL;
	/* perf record out of the rank's process group, the application in it
	 * (collect_fg_argv): signals reach the application, not perf. Not with
	 * an LD_PRELOAD (nunatak's MPI probe), which would load into fg-exec
	 * too and have its start-up sampled as the rank's. perf stat keeps its
	 * relay (its own status). */
	const char *const *env = s->env_set[0] ? (const char *const *)s->env_set : NULL;
	char **fg = perf && !csv && !collect_env_preloads(env)
			    ? collect_fg_argv_ns(argv, -1, s->app_pgid, s->return_ns)
			    : NULL;
	/* Without perf, the application itself starts in the launcher-facing
	 * group (exec_rank_split); perf stat's relay puts it there (relayed). */
	struct exec_request rq = {.argv = (const char *const *)(fg ? fg : argv),
				  .application = true, .forward_signals = true, .wrapper = perf,
				  .own_pgrp = fg != NULL, .env_set = env,
				  .join_pgid = perf ? 0 : s->app_pgid};
	exec_result__release(&s->res);
	int rc = executor__run(s->x, &rq, &s->res, e);
	collect_fg_argv__free(fg);
	char b[16];
	/* perf re-raised the application's signal: not perf's death */
	if (rc == 0 && perf)
		perf_exit_reraised(&s->res, perf_output_finished(perf_out, csv));
	if (rc == 0 && perf && s->res.wrapper_signal) /* the rank's status stays its own */
		degrade(s, DEG_RANK_COLLECTION_INTERRUPTED,
			DEG_RANK_COLLECTION_INTERRUPTED_REMEDY,
			"perf was killed by %s on %s while rank %d ran on: its samples or counts "
			"stop there",
			sig_name(s->res.wrapper_signal, b, sizeof(b)), s->node, s->id.rank);
	return rc;
}

static int run_tool(struct shim *s, char *const *argv, const char *stdout_path,
		    struct exec_result *r, struct err *e)
{
	struct exec_request rq = {.argv = (const char *const *)argv, .stdout_path = stdout_path,
				  .capture_stdout = !stdout_path, .capture_stderr = true,
				  .timeout_s = 600};
	return executor__run(s->x, &rq, r, e);
}

static int run_bare(struct shim *s, struct err *e)
{
	s->role = "bare";
	int rc = run_app_argv(s, s->app, NULL, false, e);
	s->ran = rc == 0;
	return rc;
}

/* argv with extra words after perf's subcommand (`perf record -q ...`);
 * borrowed pointers, the array is freed by the caller. */
static char **insert_after_sub(char **argv, const char *const *extra)
{
	size_t n = 0, k = 0, ne = 0;
	while (argv[n])
		n++;
	while (extra[ne])
		ne++;
	char **out = xcalloc(n + ne + 1, sizeof(*out));
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		out[k++] = argv[i];
		if (i == 1)
			for (size_t j = 0; j < ne; j++)
				out[k++] = (char *)extra[j];
	}
	return out;
}

/* `perf --version`; with o->tool_cache answered from the user's tools'
 * cache (exec/cache.c, keyed by perf's identity on disk) when this perf was
 * asked before: otherwise a perf process per rank after its application,
 * ~6 ms of the rank's end on a quiet node (issue 27). The cache is opened
 * here, after the application (before it only in perf script mode, whose
 * fields depend on the version). */
static void detect_perf_version(struct shim *s, struct err *e)
{
	char **v = perf_argv_version(s->perf);
	struct exec_result r = {0};
	struct exec_request rq = {.argv = (const char *const *)v, .capture_stdout = true,
				  .capture_stderr = true, .timeout_s = 600, .cacheable = true};
	struct executor *x = s->x, *cached = NULL;
	if (s->o->tool_cache) {
		int no_home = 0;
		char *dir = cache_home_path("exec", &no_home);
		struct executor *real = dir ? executor__new_real() : NULL;
		cached = real ? executor__new_caching_take(real, dir) : NULL;
		x = cached ? cached : x;
		xfree(dir);
	}
	if (v && executor__run(x, &rq, &r, e) == 0 && r.exit_code == 0 && r.out)
		s->have_pv = perf_parse_version(r.out, &s->pv) == 0;
	exec_result__release(&r);
	executor__free(cached);
	perf_argv__free(v);
}

/* perf may read the boot's kallsyms table in a namespace of its own
 * (collect/perf_kallsyms.h): its start-up without ~110 ms of the kernel
 * formatting /proc/kallsyms four times. Only where fg-exec stands between
 * perf and the application (it brings the application back), not in perf
 * script mode, and for the perf whose readers were checked (6.1; its
 * version from the tools' cache, a perf process only on a node's first
 * Run). *table: the table's path (caller frees) or NULL. */
static bool kallsyms_table(struct shim *s, char **table, struct err *e)
{
	const char *const *env = s->env_set[0] ? (const char *const *)s->env_set : NULL;
	*table = NULL;
	if (s->o->perf_script || collect_env_preloads(env) || geteuid() != 0)
		return false;
	if (!s->have_pv)
		detect_perf_version(s, e);
	if (!s->have_pv || s->pv.major != 6 || s->pv.minor != 1)
		return false;
	*table = perf_kallsyms_table();
	return *table != NULL;
}

/* One perf record attempt. Returns 1 when perf refused before launching. */
static int record_once(struct shim *s, const struct counter_group *g, const char *data,
		       struct err *e)
{
	struct perf_record_opts ro = {.perf = s->perf,
				      .freq = s->o->freq > 0 ? s->o->freq : PERF_DEFAULT_FREQ,
				      .clock_monotonic = s->o->clock_monotonic && !s->no_clock,
				      .group = g,
				      .output = data,
				      .switch_events = s->o->offcpu >= OFFCPU_SWITCHES && !s->no_switch,
				      .offcpu_stacks = s->o->offcpu >= OFFCPU_STACKS && !s->no_switch,
				      .offcpu_blocking = s->blocking};
	char **argv = perf_argv_record(&ro, s->app);
	/* -q: perf's own chatter would land in the application's stderr.
	 * --no-bpf-event: synthesizing the BPF programs' events cost ~0.9 s per
	 * perf start on the measured VM (of 1.2 s), for samples an HPC rank never
	 * has. -N: N ranks must not copy every DSO into the shared $HOME/.debug.
	 * -B: no build-id pass after the application (a second read of the
	 * whole perf.data and of every module it maps: 0.07 s of perf's CPU
	 * per LAMMPS rank, issue 27); the shim lists the mapped modules'
	 * build-ids itself (write_build_ids). perf script mode keeps perf's
	 * own list in perf.data's header. */
	const char *extra[7] = {"-q", "--no-bpf-event", "-N"};
	size_t k = 3;
	if (!s->o->perf_script)
		extra[k++] = "-B";
	if (s->o->call_graph) {
		extra[k++] = "--call-graph";
		extra[k++] = s->o->call_graph;
	}
	extra[k] = NULL;
	char **full = argv ? insert_after_sub(argv, extra) : NULL;
	if (!full) {
		perf_argv__free(argv);
		return err_set(e, -ENOMEM, ERR_OOM, "out of memory building perf record");
	}
	unlink(data);
	char *table = NULL;
	struct perf_kallsyms ns = {.ns_fd = -1, .cwd_fd = -1};
	if (kallsyms_table(s, &table, e) && perf_kallsyms_enter(&ns, table) == 0)
		s->return_ns = ns.word;
	int rc = run_app_argv(s, full, data, false, e);
	s->return_ns = NULL;
	perf_kallsyms_leave(&ns); /* the shim back in the rank's namespace */
	xfree(table);
	xfree(full);
	perf_argv__free(argv);
	if (rc < 0)
		return rc;
	/* perf writes its header as soon as the events are open, before the
	 * application may exec: an empty or absent file means it never ran. */
	bool written = file_size(data) > 0;
	if (s->res.term_signal == 0 && perf_record_rejected(s->res.exit_code, written))
		return 1;
	return 0;
}

/* A module's build-id, once per path ("" when it has none or cannot be
 * read: not asked again). */
static int add_mapped(void *ctx, const char *path, size_t n)
{
	struct buildid_list *l = ctx;
	char *p = xstrndup(path, n);
	if (!p)
		return -ENOMEM;
	int rc = 0;
	if (!buildid_list__find(l, p)) {
		struct elf_info info;
		struct err e = {0};
		bool ok = elf_info__read(&info, p, 0, &e) == 0 && info.build_id;
		rc = buildid_list__add(l, p, n, ok ? info.build_id : "", ok ? strlen(info.build_id) : 0);
		elf_info__release(&info);
	}
	xfree(p);
	return rc;
}

/* perf-buildid-list.txt in the rank's directory, as `perf buildid-list`
 * prints it: the build-id of every module the recording maps as code, read
 * here, on the rank's node, right after the run (perf record -B skipped its
 * own pass), and the running kernel's. ingest/ranks.c reads it in place of
 * perf.data's header. Nothing written when the recording cannot be read:
 * modules then keep no build-id, as with a perf that wrote none. */
static void write_build_ids(struct shim *s, const char *data)
{
	struct buildid_list l;
	buildid_list__init(&l);
	int fd = open(data, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *map = MAP_FAILED;
	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0)
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (fd >= 0)
		close(fd);
	struct err e = {0};
	int rc = map != MAP_FAILED ? perf_data__mapped_files(map, (size_t)st.st_size, add_mapped, &l, &e)
				   : -EIO;
	if (map != MAP_FAILED)
		munmap(map, (size_t)st.st_size);
	char *notes = NULL, *kernel = NULL;
	size_t nl = 0;
	if (rc == 0 && fs_read_file("/sys/kernel/notes", 1 << 16, &notes, &nl) == 0)
		kernel = elf_notes_build_id(notes, nl);
	char *text = NULL;
	size_t len = 0, cap = 0;
	for (size_t i = 0; rc == 0 && i <= l.n; i++) {
		const char *id = i < l.n ? l.v[i].build_id : kernel;
		const char *path = i < l.n ? l.v[i].path : "[kernel.kallsyms]";
		char *line = id && *id ? xasprintf("%s %s\n", id, path) : NULL;
		size_t n = line ? strlen(line) : 0;
		if (n && xgrow((void **)&text, &cap, len + n + 1, 1) == 0) {
			memcpy(text + len, line, n + 1);
			len += n;
		}
		xfree(line);
	}
	char *path = rc == 0 && text ? xasprintf("%s/%s", s->dir, RANK_SHIM_BUILD_IDS) : NULL;
	/* Atomic but not synced, as perf.data beside it: read by this Run's
	 * ingestion moments later, and a crash loses the Run anyway. Its two
	 * fsyncs (file, directory) held each rank's end, and so mpirun's, 1-5
	 * ms on a busy disk (issue 27). */
	if (path)
		(void)fs_write_cache(path, text, len, 0644);
	xfree(path);
	xfree(text);
	xfree(kernel);
	xfree(notes);
	buildid_list__release(&l);
}

static void extract_samples(struct shim *s, const char *data, struct err *e)
{
	char *script = xasprintf("%s/perf-script.txt", s->dir);
	char *bids = xasprintf("%s/perf-buildid-list.txt", s->dir);
	bool dsoff = s->have_pv && perf_version__at_least(&s->pv, 6, 4);
	char **sa = perf_argv_script(s->perf, data, dsoff);
	char **ba = perf_argv_buildid_list(s->perf, data);
	struct exec_result r = {0};
	if (script && sa && run_tool(s, sa, script, &r, e) == 0 && r.exit_code != 0)
		degrade(s, DEG_PERF_SCRIPT_FAILED, DEG_PERF_SCRIPT_FAILED_REMEDY,
			"perf script could not read rank %d's recording on %s (exit %d)", s->id.rank,
			s->node, r.exit_code);
	exec_result__release(&r);
	if (bids && ba && run_tool(s, ba, bids, &r, e) == 0 && r.exit_code != 0)
		degrade(s, DEG_BUILDID_LIST_FAILED, DEG_BUILDID_LIST_FAILED_REMEDY,
			"perf buildid-list failed for rank %d (exit %d): modules keep no build-id",
			s->id.rank, r.exit_code);
	exec_result__release(&r);
	perf_argv__free(sa);
	perf_argv__free(ba);
	xfree(script);
	xfree(bids);
}

/* Whether a minimal `perf record -e task-clock -- true` works on this node
 * (its stderr is ours: the command is `true`, not the application). */
static bool records_at_all(struct shim *s)
{
	char *out = xasprintf("%s/.perf-probe.data", s->dir);
	char **argv = out ? perf_argv_record_probe(s->perf, out) : NULL;
	struct exec_result r = {0};
	struct err e = {0};
	bool ok = !argv || run_tool(s, argv, NULL, &r, &e) != 0 || r.exit_code == 0;
	exec_result__release(&r);
	perf_argv__free(argv);
	if (out)
		unlink(out);
	xfree(out);
	return ok;
}

/* The node has a hardware PMU: cycles and instructions can be counted. */
static bool node_has_pmu(void)
{
	return access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
	       access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0 ||
	       access("/sys/bus/event_source/devices/armv8_pmuv3_0", F_OK) == 0;
}

/* Returns 0 when the application ran under perf record, 1 when perf refused. */
static int try_sample(struct shim *s, struct err *e)
{
	char *data = xasprintf("%s/perf.data", s->dir);
	if (!data)
		return err_oom(e);
	if (s->o->perf_script && !s->have_pv)
		detect_perf_version(s, e); /* perf script's fields depend on it */
	char *cpuinfo = read_small_file("/proc/cpuinfo");
	/* No core PMU on this node (a VM without a virtual PMU): the group's
	 * events cannot open, and asking would only print perf's rejection into
	 * the application's stderr and cost a second perf start. The Run
	 * announces counter-events-unavailable once, from its own probe. */
	const struct counter_group *g =
		cpuinfo && node_has_pmu() ? perf_counter_group(cpuinfo) : NULL;
	xfree(cpuinfo);
	s->blocking = s->o->offcpu >= OFFCPU_STACKS && offcpu_blocking_usable(NULL, 0);
	int rc = record_once(s, g, data, e);
	const struct counter_group *used = g;
	/* perf itself refused (a permission), not an option: no rung helps. */
	bool at_all = rc != 1 || records_at_all(s);
	/* The scheduler's tracepoint or its filter refused: the stacks at every
	 * switch-out (context-switches) instead; perf.data says which. */
	if (rc == 1 && s->blocking && at_all) {
		s->blocking = false;
		rc = record_once(s, g, data, e);
	}
	/* The context switches first: a perf (or a node's permissions) that
	 * refuses them still samples, the threads' budget then unmeasured. */
	if (rc == 1 && s->o->offcpu >= OFFCPU_SWITCHES && at_all) {
		degrade(s, DEG_OFFCPU_UNATTRIBUTED, DEG_OFFCPU_UNATTRIBUTED_REMEDY,
			"perf record refused the context switches on %s: rank %d's threads have "
			"no wall, CPU and off-CPU budget", s->node, s->id.rank);
		s->no_switch = true;
		rc = record_once(s, g, data, e);
	}
	if (rc == 1 && g && at_all) {
		degrade(s, DEG_COUNTER_EVENTS_REJECTED, DEG_COUNTER_EVENTS_REJECTED_REMEDY,
			"perf record refused the %s counter group on %s: rank %d sampled time only",
			g->uarch, s->node, s->id.rank);
		used = NULL;
		rc = record_once(s, NULL, data, e);
	}
	/* The ladder's last rung, as the single-process path: without -k. */
	if (rc == 1 && s->o->clock_monotonic && at_all) {
		degrade(s, DEG_MONOTONIC_CLOCK_REJECTED,
			DEG_MONOTONIC_CLOCK_REJECTED_REMEDY,
			"perf record refused -k CLOCK_MONOTONIC on %s: rank %d's samples and "
			"region traces do not share one timeline", s->node, s->id.rank);
		s->no_clock = true;
		rc = record_once(s, used, data, e);
	}
	if (rc == 0) {
		s->role = "sampler";
		s->sampled = s->ran = true;
		snprintf(s->events, sizeof(s->events), "task-clock%s%s", g ? "," : "",
			 g ? g->uarch : "");
		if (s->o->perf_script)
			extract_samples(s, data, e);
		else
			write_build_ids(s, data);
	} else if (rc == 1) {
		degrade(s, DEG_RANK_SAMPLING_REJECTED,
			DEG_RANK_SAMPLING_REJECTED_REMEDY,
			"perf record refused to start on %s (exit %d): rank %d %s", s->node,
			s->res.exit_code, s->id.rank,
			s->o->sampler_lib ? "was sampled by the preload sampler instead"
					  : "only counted");
		unlink(data);
	}
	xfree(data);
	return rc;
}

/* The preload sampler around the application (never perf's: nothing in
 * front of it). The .sps lands beside the region traces when the Run has a
 * region prefix, else in the rank's directory. */
static int try_preload(struct shim *s, struct err *e)
{
	char *const *app = s->app_env ? s->app_env + s->app_words : s->app;
	const char *old = s->preload_env ? s->preload_env + strlen("LD_PRELOAD=")
					 : getenv("LD_PRELOAD");
	if (!s->pp_sampler.path)
		preload_path__make(&s->pp_sampler, s->o->sampler_lib); /* failed: lib as it is */
	const char *lib = s->pp_sampler.path ? s->pp_sampler.path : s->o->sampler_lib;
	char *ld = old && *old ? xasprintf("LD_PRELOAD=%s:%s", lib, old)
			       : xasprintf("LD_PRELOAD=%s", lib);
	char *hz = xasprintf("SCOPE_PROFILER_SAMPLE_HZ=%d",
			     s->o->freq > 0 ? s->o->freq : PERF_DEFAULT_FREQ);
	char *prefix = s->regions_env ? NULL
				      : xasprintf("SCOPE_PROFILER_PREFIX=%s/preload", s->dir);
	s->sps_rel = s->regions_env
			     ? xasprintf("regions/%s_rank%05d.sps", s->o->regions_name, s->id.rank)
			     : xasprintf("rank-%d/preload_rank%05d.sps", s->id.rank, s->id.rank);
	/* the MPI profile's path rides along: the `env` words are not used here */
	const char *env[8] = {s->regions_env ? s->regions_env : prefix, ld, hz};
	size_t k = 3;
	for (size_t i = 0; s->env_set[i]; i++) /* beside the region prefix: the OMPT tool's */
		if (s->env_set[i] != s->regions_env)
			env[k++] = s->env_set[i];
	env[k++] = s->mpi_env;
	env[k] = s->mpi_env ? s->skip_env : NULL;
	int rc = ld && hz && s->sps_rel && env[0] ? 0 : err_set(e, -ENOMEM, ERR_OOM, "out of memory");
	if (rc == 0) {
		struct exec_request rq = {.argv = (const char *const *)app, .application = true,
					  .forward_signals = true, .env_set = env,
					  .join_pgid = s->app_pgid};
		exec_result__release(&s->res);
		rc = executor__run(s->x, &rq, &s->res, e);
	}
	if (rc == 0) {
		s->role = "preload";
		s->sampled = s->ran = true;
		snprintf(s->events, sizeof(s->events), "task-clock (preload sampler)");
	}
	xfree(ld);
	xfree(hz);
	xfree(prefix);
	return rc;
}

/* A perf stat CSV holds at least one counter line (not a comment). */
static bool csv_has_counts(const char *text)
{
	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		if (len > 0 && l[0] != '#' && memchr(l, ',', len))
			return true;
		l = nl ? nl + 1 : NULL;
	}
	return false;
}

/* The application under the shim's relay mode (o->status_file): perf stat
 * exits 0 for an application killed by a signal, the relay says how it
 * ended. NULL-terminated, borrowing app; NULL without /proc/self/exe. */
static char **relayed(struct shim *s, const char *status, char **self)
{
	size_t n = 0;
	while (s->app[n])
		n++;
	*self = rank_shim_self_exe();
	char **v = *self ? xcalloc(n + 8, sizeof(char *)) : NULL;
	if (!v)
		return NULL;
	size_t k = 0;
	v[k++] = *self;
	v[k++] = (char *)"rank-shim";
	v[k++] = (char *)"--status-file";
	v[k++] = (char *)status;
	if (s->app_pgid > 0) { /* the relay's application in the launcher-facing group */
		snprintf(s->pgid_word, sizeof(s->pgid_word), "%d", (int)s->app_pgid);
		v[k++] = (char *)"--app-pgid";
		v[k++] = s->pgid_word;
	}
	v[k++] = (char *)"--";
	memcpy(v + k, s->app, n * sizeof(char *));
	return v;
}

/* What the relay wrote is how the application ended (perf stat's own exit
 * status can lose both a signal and, in a race of perf 6.1, the code). */
static bool read_relay(struct shim *s, const char *status)
{
	char *text = read_small_file(status);
	bool read = text && *text;
	int n = 0;
	if (text && sscanf(text, "signal %d", &n) == 1 && n > 0 && n < 128) {
		s->res.term_signal = n;
		s->res.exit_code = 128 + n;
	} else if (text && sscanf(text, "exit %d", &n) == 1 && n >= 0 && n < 256 &&
		   !s->res.term_signal && !s->res.wrapper_signal) {
		s->res.exit_code = n;
	}
	xfree(text);
	unlink(status);
	return read;
}

/* Returns 0 when the application ran under perf stat, 1 when perf refused. */
static int try_count(struct shim *s, struct err *e)
{
	char *csv = xasprintf("%s/perf-stat.csv", s->dir);
	char *status = xasprintf("%s/.app-status", s->dir);
	if (!csv || !status) {
		xfree(csv);
		xfree(status);
		return err_oom(e);
	}
	/* duration_time: the rank's wall time beside its CPU time (task-clock),
	 * the process-level budget of a rank that records no context switch */
	snprintf(s->events, sizeof(s->events), "%s",
		 node_has_pmu() ? "task-clock,cycles,instructions,duration_time"
				: "task-clock,duration_time");
	char *self = NULL;
	char **relay = relayed(s, status, &self);
	char **full = perf_argv_stat(s->perf, s->events, csv, relay ? relay : s->app);
	if (!full) {
		xfree(relay);
		xfree(self);
		xfree(csv);
		xfree(status);
		return err_oom(e);
	}
	unlink(csv);
	unlink(status);
	int rc = run_app_argv(s, full, csv, true, e);
	perf_argv__free(full);
	/* The relay's word, or perf stat dying under a running application:
	 * the application ran, counted or not, and never runs twice. */
	bool ran = rc == 0 && ((relay && read_relay(s, status)) || s->res.wrapper_signal);
	xfree(relay);
	xfree(self);
	xfree(status);
	if (rc == 0) {
		char *text = read_small_file(csv);
		bool counts = csv_has_counts(text);
		xfree(text);
		if (counts || s->res.term_signal || ran) {
			s->role = "counter";
			s->counted = counts;
			s->ran = true;
		} else {
			/* Header only: perf failed opening its events, the
			 * application never ran. */
			degrade(s, DEG_RANK_COUNTING_FAILED,
				DEG_RANK_COUNTING_FAILED_REMEDY,
				"perf stat failed before launching rank %d on %s (exit %d): it ran "
				"uncounted", s->id.rank, s->node, s->res.exit_code);
			unlink(csv);
			rc = 1;
		}
	}
	xfree(csv);
	return rc;
}

static int write_rank_json(struct shim *s, struct err *e)
{
	json_t *d = degradations__to_json(&s->degr);
	json_t *j = json_pack(
		"{s:i, s:o, s:o, s:s, s:o, s:o, s:s, s:b, s:b, s:o, s:o, s:o, s:i, s:i, s:s, s:o}",
		"rank", s->id.rank, "world_size",
		s->id.world_size > 0 ? json_integer(s->id.world_size) : json_null(), "local_rank",
		s->id.local_rank >= 0 ? json_integer(s->id.local_rank) : json_null(), "node", s->node,
		"perf", s->perf ? json_string(s->perf) : json_null(), "perf_version",
		s->have_pv ? json_string(s->pv.text) : json_null(), "role", s->role, "sampled",
		s->sampled, "counted", s->counted, "events",
		s->events[0] && (s->sampled || s->counted) ? json_string(s->events) : json_null(),
		"preload", s->o->preload ? json_string(s->o->preload) : json_null(), "mpi_profile",
		s->o->mpi_profile ? json_string(s->o->mpi_profile) : json_null(), "exit_code",
		s->ran ? s->res.exit_code : -1, "term_signal", s->res.term_signal, "runtime",
		sp_rank_env__runtime_name(s->id.runtime), "degradations", d);
	if (j && s->sps_rel)
		json_object_set_new(j, "sps", json_string(s->sps_rel));
	if (j && s->machine_id[0])
		json_object_set_new(j, "machine", json_string(s->machine_id));
	if (j && s->started.mono > 0 && s->ended.mono > 0)
		json_object_set_new(j, "clock",
				    json_pack("{s:s, s:f, s:f, s:f, s:f}", "boot_id",
					      s->started.boot_id, "started_mono", s->started.mono,
					      "started_real", s->started.real, "ended_mono",
					      s->ended.mono, "ended_real", s->ended.real));
	char *path = xasprintf("%s/rank.json", s->dir);
	char *tmp = xasprintf("%s/.rank.json.tmp", s->dir);
	int rc = 0;
	if (!j || !path || !tmp)
		rc = err_oom(e);
	else if (json_dump_file(j, tmp, JSON_INDENT(2) | JSON_SORT_KEYS) != 0 ||
		 rename(tmp, path) != 0)
		rc = err_set(e, -EIO, ERR_RANK_WRITE, "cannot write %s", path);
	json_decref(j);
	xfree(path);
	xfree(tmp);
	return rc;
}

static int make_rank_dir(struct shim *s)
{
	s->dir = xasprintf("%s/rank-%d", s->o->directory, s->id.rank);
	if (!s->dir)
		return -ENOMEM;
	/* The launch node created <run>/collect; a node that does not see it
	 * does not share the filesystem, and then nothing can come home. */
	if (mkdir(s->dir, 0755) != 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static void set_preload(struct shim *s)
{
	if (!s->o->preload && !s->o->mpi_profile)
		return;
	preload_path__make(&s->pp_mpi, s->o->mpi_profile); /* failed: the path as it is */
	preload_path__make(&s->pp_pre, s->o->preload);
	const char *mpi = s->pp_mpi.path ? s->pp_mpi.path : s->o->mpi_profile;
	const char *pre = s->pp_pre.path ? s->pp_pre.path : s->o->preload;
	/* nunatak's MPI wrappers first: they must see the application's MPI
	 * calls before any other preloaded library; the user's LD_PRELOAD last. */
	const char *old = getenv("LD_PRELOAD");
	s->preload_env = xasprintf("LD_PRELOAD=%s%s%s%s%s", mpi ? mpi : "",
				   mpi && pre ? ":" : "",
				   pre ? pre : "", old && *old ? ":" : "",
				   old && *old ? old : "");
	if (mpi)
		s->mpi_env = xasprintf("NUNATAK_MPI_PROFILE=%s/rank-%d/%s", s->o->directory,
				       s->id.rank, RANK_SHIM_MPI_PROFILE);
	size_t n = 0;
	while (s->app[n])
		n++;
	/* The preload goes to the application only, through env(1) exec'ing it
	 * in place: set on perf, it would be loaded into perf itself too. */
	if (mpi && s->o->mpi_skip)
		s->skip_env = xasprintf("NUNATAK_MPI_SKIP=%s", s->o->mpi_skip);
	s->app_env = s->preload_env && (!mpi || s->mpi_env) ? xcalloc(n + 5, sizeof(char *))
							     : NULL;
	if (!s->app_env)
		return;
	size_t k = 0;
	s->app_env[k++] = (char *)"env";
	s->app_env[k++] = s->preload_env;
	if (s->mpi_env)
		s->app_env[k++] = s->mpi_env;
	if (s->skip_env)
		s->app_env[k++] = s->skip_env;
	memcpy(s->app_env + k, s->app, n * sizeof(char *));
	s->app_words = k;
	s->app = s->app_env;
}

/* Region traces land in the Run from every node: the variable is set here,
 * in the rank, since the launcher forwards its own environment only to the
 * ranks of the launch node (Open MPI without -x). */
static void set_regions_prefix(struct shim *s)
{
	if (!s->o->regions_name || !*s->o->regions_name)
		return;
	s->regions_env = xasprintf("SCOPE_PROFILER_PREFIX=%s/regions/%s", s->o->directory,
				   s->o->regions_name);
	s->env_set[0] = s->regions_env;
}

/* nunatak's OMPT tool in the application's environment, on every node (as
 * the region prefix); a tool the rank's environment names is kept. */
static void set_ompt(struct shim *s, rank_shim_getenv getenv_fn, void *ctx)
{
	if (!s->o->ompt_lib || !*s->o->ompt_lib)
		return;
	const char *user = getenv_fn("OMP_TOOL_LIBRARIES", ctx), *off = getenv_fn("OMP_TOOL", ctx);
	if ((user && *user && strcmp(user, s->o->ompt_lib)) || (off && !strcasecmp(off, "disabled")))
		return;
	s->ompt_env[0] = xasprintf("OMP_TOOL_LIBRARIES=%s", s->o->ompt_lib);
	s->ompt_env[1] = xasprintf("NUNATAK_OMPT_DIR=%s/ompt", s->o->directory);
	if (!s->ompt_env[0] || !s->ompt_env[1])
		return;
	fs_mkdir_p(s->ompt_env[1] + strlen("NUNATAK_OMPT_DIR="));
	size_t k = 0;
	while (s->env_set[k])
		k++;
	s->env_set[k++] = s->ompt_env[0];
	s->env_set[k++] = s->ompt_env[1];
	s->env_set[k] = NULL;
}

static int collect(struct shim *s, struct err *e)
{
	char *app_path = NULL;
	int found = exec_which(s->target, &app_path);
	xfree(app_path);
	if (found != 0) {
		/* 127/126 as a shell would say; no perf blamed, no env(1) message.
		 * rank.json says why the rank has no data: ingest/ranks.c must not
		 * read it as "perf missing" (the name is matched there). */
		degrade(s, DEG_RANK_APP_MISSING,
			DEG_RANK_APP_MISSING_REMEDY,
			"`%s` %s on %s: the rank never started the application", s->target,
			found == -EACCES ? "is not executable" : "was not found", s->node);
		if (s->app_env)
			s->app = s->app_env + s->app_words;
		return run_bare(s, e);
	}
	bool samples = rank_shim_samples(s->id.rank, s->id.world_size, s->id.local_rank,
					 s->o->rank_threshold);
	bool stand_in = samples && s->o->sampler_lib;
	if (stand_in && s->o->preload_only)
		return try_preload(s, e);
	if (exec_which(s->o->perf ? s->o->perf : "perf", &s->perf) != 0) {
		degrade(s, DEG_RANK_PERF_MISSING, DEG_RANK_PERF_MISSING_REMEDY,
			"perf not found on %s: rank %d %s", s->node, s->id.rank,
			stand_in ? "was sampled by the preload sampler instead" : "ran uncounted");
		return stand_in ? try_preload(s, e) : run_bare(s, e);
	}
	int rc = 1;
	if (samples)
		rc = try_sample(s, e);
	if (rc == 1 && stand_in)
		rc = try_preload(s, e);
	if (rc == 1)
		rc = try_count(s, e);
	if (rc == 1)
		rc = run_bare(s, e);
	/* provenance: the perf version of every rank's node (rank.json), asked
	 * after the application, which it must not delay (a perf process, ~5 ms
	 * of a loaded node before every rank's start; issue 27). perf script
	 * mode asked before recording: its fields depend on it. */
	if (rc == 0 && !s->have_pv)
		detect_perf_version(s, e);
	return rc;
}

/* The collection out of the launcher's reach (exec_rank_split): from here on
 * this process is the writer; the launcher's pid waits. A failed split (no
 * fork) collects as before, in the launcher's group, and says so. */
static void split_writer(struct shim *s)
{
	if (!s->o->split_writer)
		return;
	char *lock = xasprintf("%s/%s", s->o->directory, RANK_SHIM_WRITERS_LOCK);
	int rc = lock ? exec_rank_split(lock, &s->app_pgid) : -ENOMEM;
	if (rc < 0)
		degrade(s, DEG_RANK_COLLECTION_INTERRUPTED,
			"check the node's limit on processes (ulimit -u) and its memory",
			"rank %d's shim on %s could not move its collection out of the launcher's "
			"process group (%s): an interrupt of the launch (mpirun kills its ranks' "
			"groups) can lose this rank's data", s->id.rank, s->node, strerror(-rc));
	xfree(lock);
}

/* Relay mode: the application as is, its end written for the shim above
 * perf stat; a signal becomes exit 128+N (no core of nunatak's own). */
static int relay_run(struct executor *x, const struct rank_shim_opts *o, char *const *app,
		     struct rank_shim_result *res, struct err *e)
{
	struct exec_request rq = {.argv = (const char *const *)app, .application = true,
				  .forward_signals = true, .join_pgid = o->app_pgid};
	struct exec_result r = {0};
	int rc = executor__run(x, &rq, &r, e);
	if (rc == 0) {
		char line[32];
		int len = r.term_signal ? snprintf(line, sizeof(line), "signal %d\n", r.term_signal)
					: snprintf(line, sizeof(line), "exit %d\n", r.exit_code);
		struct err we = {0};
		fs_write_atomic(o->status_file, line, (size_t)len, &we);
		res->exit_code = r.exit_code;
		res->role = "relay";
	}
	exec_result__release(&r);
	return rc;
}

int rank_shim_run(struct executor *x, const struct rank_shim_opts *o, char *const *app,
		  rank_shim_getenv getenv_fn, void *ctx, struct rank_shim_result *res,
		  struct err *e)
{
	struct shim s = {.x = x, .o = o, .app = app, .target = app ? app[0] : NULL,
			 .role = "outside"};
	*res = (struct rank_shim_result){.rank = -1, .role = "outside"};
	if (!app || !app[0])
		return err_set(e, -EINVAL, ERR_USAGE, "rank-shim needs a command after `--`");
	if (o->status_file)
		return relay_run(x, o, app, res, e);
	sp_rank_env__detect(getenv_fn ? getenv_fn : env_lookup, ctx, &s.id);
	int rc;
	if (s.id.runtime == SP_RANK_NONE || !o->directory) {
		rc = run_app_argv(&s, app, NULL, false, e); /* not a rank: untouched, nothing written */
		goto out;
	}
	res->in_rank = true;
	res->rank = s.id.rank;
	host_clock__now(&s.started);
	/* the batch system's name of the node, else the host's */
	const char *slurm_node = (getenv_fn ? getenv_fn : env_lookup)("SLURMD_NODENAME", ctx);
	if (slurm_node && *slurm_node)
		snprintf(s.node, sizeof(s.node), "%s", slurm_node);
	else if (gethostname(s.node, sizeof(s.node)) != 0)
		snprintf(s.node, sizeof(s.node), "unknown");
	s.node[sizeof(s.node) - 1] = '\0';
	set_preload(&s);
	set_regions_prefix(&s);
	set_ompt(&s, getenv_fn ? getenv_fn : env_lookup, ctx);
	if (make_rank_dir(&s) < 0) {
		rc = run_bare(&s, e); /* cannot write: the Run will declare this rank */
		goto out;
	}
	s.launcher = getppid(); /* before the split makes our parent the waiting half */
	split_writer(&s);
	rc = collect(&s, e);
	host_clock__now(&s.ended);
	if (rc == 0) {
		/* after the application, which it must not delay: the node's Machine
		 * and its cached Ceilings; none recorded, the node borrows the launch
		 * node's (said so) */
		struct err me = {0};
		struct node_calibration cal = {.x = x, .launch_id = o->launch_machine,
					       .budget_s = o->node_calibration_s, .cc = o->cc,
					       .sampler_lib = o->sampler_lib};
		bool calibrates = o->launch_machine && o->node_calibration_s > 0 &&
				  s.id.local_rank == 0;
		if (node_profile_record(o->directory, calibrates ? &cal : NULL, s.launcher,
					 s.machine_id, &me) < 0)
			s.machine_id[0] = '\0';
		struct err we = {0};
		write_rank_json(&s, &we); /* a failed write leaves the rank declared missing */
	}
out:
	res->role = s.role;
	res->exit_code = s.res.exit_code;
	res->term_signal = s.res.term_signal;
	exec_result__release(&s.res);
	degradations__release(&s.degr);
	xfree(s.dir);
	xfree(s.perf);
	xfree(s.preload_env);
	preload_path__release(&s.pp_mpi);
	preload_path__release(&s.pp_pre);
	preload_path__release(&s.pp_sampler);
	xfree(s.mpi_env);
	xfree(s.skip_env);
	xfree(s.app_env);
	xfree(s.regions_env);
	xfree(s.ompt_env[0]);
	xfree(s.ompt_env[1]);
	xfree(s.sps_rel);
	return rc;
}
