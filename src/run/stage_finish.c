// SPDX-License-Identifier: BSD-3-Clause
/* Stages after launch: ingest, attribute, store. Each runs even when an
 * earlier one failed, so the Run is always complete. */
#include "run/stages.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/pipeline.h"
#include "run/ranks_mpi.h"
#include "attrib/attrib.h"
#include "attrib/debug_copy.h"
#include "regions/lines_symbolize.h"
#include "attrib/frameless.h"
#include "build_config.h"
#include "common/alloc.h"
#include "common/cache_home.h"
#include "common/config.h"
#include "common/console.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "collect/stacks.h"
#include "common/err_codes.h"
#include "ingest/aggregate.h"
#include "ingest/buildid.h"
#include "ingest/perf_data.h"
#include "ingest/perf_script.h"
#include "model/machine.h"
#include "mpi/sites.h"
#include "report/html.h"
#include "report/payload.h"
#include "common/fsutil.h"
#include "store/manifest.h"
#include "store/pivot_db.h"
#include "tools/git.h"
#include "tools/locate.h"

/* The samples, through the collector that took them (under --multi-pass,
 * the passes collector reads each pass's own files). */
static int ingest_pass(struct run_state *s, struct err *e)
{
	char host[256] = "localhost";
	if (s->machine && s->machine->hostname)
		snprintf(host, sizeof(host), "%s", s->machine->hostname);
	else if (!s->replay)
		gethostname(host, sizeof(host) - 1);
	struct ingest_opts o = {.sz = sizeof(o), .node = host, .rank = -1, .pass_index = 0};
	struct collect_pass p;
	int rc = collect_pass__init(&p, s->rundir.collect_dir, 0, false);
	if (rc < 0) {
		collect_pass__release(&p);
		return err_set(e, rc, ERR_RUN_CREATE, "pass 0: %s", strerror(-rc));
	}
	p.sampled = true;
	p.script_ok = s->collect.passes[0].script_ok;
	struct collect_env env;
	run_state__collect_env(s, &env);
	struct collect_counts n = {0};
	rc = collector__ingest(s->collect.coll, &env, &p, &o, &s->pivot, &n, e);
	s->counts.nr_samples += n.nr_samples; /* summed over passes */
	s->counts.nr_switches += n.nr_switches;
	if (rc == 0 && s->launch.mpi) { /* HOOK(mpi): the ranks' own directories */
		s->counts.nr_ranks = n.nr_ranks;
		s->counts.nr_sampled_ranks = n.nr_sampled_ranks;
		s->counts.nr_clocked = n.nr_clocked;
		s->counts.clock_by_wall = n.clock_by_wall;
		s->counts.ranks_started = n.ranks_started;
		s->counts.ranks_ended = n.ranks_ended;
	}
	s->collect.passes[0].script_ok = p.script_ok; /* the perf script fallback extracted it */
	collect_pass__release(&p);
	return rc;
}

static int ingest_samples(struct run_state *s, struct err *e)
{
	if (!s->collect.coll)
		return 0;
	if (s->launch.mpi) /* the ranks sampled themselves: nothing is sampled around them */
		return s->launched ? ingest_pass(s, e) : 0;
	if (collector_is_passes(s->collect.coll))
		return ingest_pass(s, e);
	return s->collect.passes[0].sampled ? ingest_pass(s, e) : 0;
}

int stage_ingest(struct run_state *s, struct err *e)
{
	int rc = ingest_samples(s, e);
	return rc ? rc : run_ompt_ingest(s, e);
}

/* [source_map] entries, then --source-map flags (later entries win ties). */
static struct attrib_source_map *source_maps(const struct run_state *s, size_t *n)
{
	const struct config_map *cm = &s->cfg->source_map;
	struct attrib_source_map *v = xcalloc(cm->n + s->req->nr_source_map + 1, sizeof(*v));
	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < cm->n; i++)
		v[(*n)++] = (struct attrib_source_map){cm->v[i].key, cm->v[i].value};
	return v;
}

/* The Hotspots' attribution, then the MPI call sites', with what the Run's
 * symbolizer calls share (run). */
static int hotspots_and_sites(struct run_state *s, const struct lines_run *run, struct err *e)
{
	size_t n = 0;
	struct attrib_source_map *sm = source_maps(s, &n);
	/* Flag entries "OLD=NEW": split into copies that live as long as sm. */
	char **flag_copies = xcalloc(s->req->nr_source_map + 1, sizeof(char *));
	for (size_t i = 0; sm && flag_copies && i < s->req->nr_source_map; i++) {
		flag_copies[i] = xstrdup(s->req->source_map[i]);
		char *eq = flag_copies[i] ? strchr(flag_copies[i], '=') : NULL;
		if (eq) {
			*eq = '\0';
			sm[n++] = (struct attrib_source_map){flag_copies[i], eq + 1};
		}
	}
	struct attrib_opts o = {.source_map = sm, .nr_source_map = n,
				.no_source = s->req->no_source,
				.debuginfod_disabled = !s->cfg->debuginfod_enabled,
				.debuginfod_timeout_s = (int)s->cfg->debuginfod_timeout_s,
				.symbolizer_timeout_s = s->cfg->symbolizer_timeout_s,
				.replay = s->replay,
				.record = s->req->record_entry != NULL,
				.recorded_kernel = s->machine ? s->machine->kernel : NULL,
				.kernel_prefetch = s->kprefetch};
	o.debug_copies = run->copies;
	struct degradations d = {0};
	int rc = sm && flag_copies ? attrib_run(&s->pivot, s->x, s->tools, &o, &d, e)
				   : err_oom(e);
	/* fp stacks: a leaf without a frame hides its caller: recovered where
	 * the code proves it, else said unknown. */
	if (rc == 0 && s->collect.stacks == STACKS_FP && !s->replay) {
		struct frameless_report fr;
		rc = frameless_mark(&s->pivot, s->x, config__tool(s->cfg, "objdump"), &fr) < 0
			     ? err_oom(e)
			     : 0;
		if (rc == 0 && fr.recovered > 0)
			console__info(s->con, "call stacks: the caller of a function that sets up "
				      "no frame pointer was recovered from the code for %.1f%% of "
				      "the stacked time (a direct call to it from the only "
				      "function that can have made it)",
				      100 * fr.recovered / fr.stacked);
		if (rc == 0 && fr.unknown > 0)
			console__info(s->con, "call stacks: %.1f%% of the stacked time is in code "
				      "that sets up no frame pointer (%s): its caller is unknown, "
				      "shown as %s (--call-graph dwarf recovers it)",
				      100 * fr.unknown / fr.stacked, fr.modules, FRAMELESS_CALLER);
	}
	/* MPI call sites are named by the same symbolizer, after the samples. */
	if (rc == 0 && s->pivot.nr_mpi_sites)
		rc = mpi_sites_symbolize(&s->pivot, s->x, s->tools, run, &d, e);
	for (size_t i = 0; i < d.n; i++)
		run_state__degrade(s, d.v[i].name, d.v[i].message, d.v[i].remedy);
	degradations__release(&d);
	for (size_t i = 0; flag_copies && i < s->req->nr_source_map; i++)
		xfree(flag_copies[i]);
	xfree(flag_copies);
	xfree(sm);
	return rc;
}

static int attribute(struct run_state *s, struct debug_copies *dc, struct err *e)
{
	/* the OpenMP regions' and MPI call sites' calls: the Hotspots' copies
	 * and environment edits (attrib_opts' debuginfod fields) */
	struct attrib_sym_env env;
	attrib_sym_env__init(&env, !s->cfg->debuginfod_enabled, (int)s->cfg->debuginfod_timeout_s);
	struct lines_run run = {.copies = dc, .env = &env};
	int orc = run_ompt_symbolize(s, &run, e); /* the OpenMP regions' sites, samples or not */
	if (orc || !s->tools || s->pivot.nr_hotspots == 0) {
		attrib_sym_env__release(&env);
		return orc;
	}
	int rc = hotspots_and_sites(s, &run, e);
	attrib_sym_env__release(&env);
	return rc;
}

/* The decompressed copies of separate debug files (attrib/debug_copy.h) a
 * live Run's symbolizer calls share (the OpenMP regions', the Hotspots',
 * the MPI call sites'), in the cache beside the tools' answers; none under
 * --record or replay, or without llvm-symbolizer. What they did goes to -v. */
static int copies_begin(struct run_state *s, struct debug_copies *dc)
{
	memset(dc, 0, sizeof(*dc));
	if (s->replay || s->req->record_entry || !s->tools || s->tools->tool != ATTRIB_TOOL_LLVM)
		return 0;
	int no_home = 0;
	char *dir = cache_home_path("debug", &no_home);
	int rc = dir ? debug_copies__init(dc, dir, s->tools->path) : 0;
	xfree(dir);
	return rc;
}

static void copies_end(struct run_state *s, struct debug_copies *dc)
{
	const char *const *notes = debug_copies__notes(dc);
	for (size_t i = 0; notes && notes[i]; i++)
		console__debug(s->con, 1, "%s", notes[i]);
	debug_copies__release(dc);
}

int stage_attribute(struct run_state *s, struct err *e)
{
	struct debug_copies dc;
	int rc = copies_begin(s, &dc) < 0 ? err_oom(e) : attribute(s, &dc, e);
	copies_end(s, &dc);
	if (attrib_kernel_prefetch_taken(s->kprefetch))
		console__debug(s->con, 1, "kernel symbols: the table read as perf started");
	/* one thread again before the stages that fork (regions' exec_isolate) */
	attrib_kernel_prefetch_free(s->kprefetch);
	s->kprefetch = NULL;
	return rc;
}

/* The manifest of the Run as it stands. A provisional one (written when the
 * application ended, before post-processing) asks nothing of git, so a
 * recording keeps its order of calls. */
static int fill_manifest(struct run_state *s, struct manifest *m, enum run_status st,
			 struct err *e)
{
	int rc = 0;
	m->name = xstrdup(s->rundir.name);
	m->created = xstrdup(s->rundir.created);
	m->exit_code = s->launched ? s->collect.passes[0].exit_code : -1;
	m->term_signal = s->launched ? s->collect.passes[0].term_signal : 0;
	m->interrupted_by = s->launched ? run_interrupted_by(s) : 0;
	m->status = st;
	m->world_size = s->launch.mpi && s->launch.world_size > 0 ? s->launch.world_size : -1;
	if (!m->name || !m->created)
		return err_oom(e);
	rc |= manifest__set_command(m, (const char *const *)s->req->cmd, (size_t)s->req->cmd_argc);
	if (s->machine) {
		machine__release(&m->machine);
		rc |= machine__copy(&m->machine, s->machine);
	}
	m->generated_by = xstrdup("nunatak " NUNATAK_VERSION);
	m->provenance.effective_configuration = json_incref(s->prov.effective_config);
	if (s->collect.caps.perf.present && s->collect.caps.perf.version.text[0]) {
		if (!s->prov.dependencies)
			s->prov.dependencies = json_object();
		if (s->prov.dependencies)
			json_object_set_new(s->prov.dependencies, "perf",
					    json_string(s->collect.caps.perf.version.text));
	}
	run_note_compiler(s);
	/* the symbolizer attribution used: LLVM's (with its major) or addr2line */
	if (s->tools && s->tools->version && (s->prov.dependencies || (s->prov.dependencies = json_object())))
		json_object_set_new(s->prov.dependencies,
				    s->tools->major > 0 ? "llvm-symbolizer" : "symbolizer",
				    json_string(s->tools->version));
	m->provenance.dependencies = s->prov.dependencies ? json_incref(s->prov.dependencies) : NULL;
	m->overhead = s->out.overhead ? json_incref(s->out.overhead) : NULL;
	/* After the application, as the recordings order git's calls. */
	char cwd[4096];
	if (st == RUN_STATUS_COMPLETE && getcwd(cwd, sizeof(cwd)) &&
	    (rc = provenance_collect_git(&m->provenance, s->x,
							     config__tool(s->cfg, "git"), cwd, e)) < 0)
		return rc;
	int nr = s->collect.nr_passes > 1 ? s->collect.nr_passes : 1;
	for (int i = 0; s->launched && i < nr; i++) {
		const struct run_pass *ps = &s->collect.passes[i];
		if (ps->skipped)
			continue; /* passes-skipped says why */
		rc |= manifest__add_pass(m, i, ps->exit_code, ps->start, ps->end);
		if (rc == 0) {
			m->passes[m->nr_passes - 1].term_signal = ps->term_signal;
			m->passes[m->nr_passes - 1].interrupted_by = ps->interrupted_by;
		}
		/* The executor's monotonic clock; a replay measured nothing. */
		if (rc == 0 && !s->replay) {
			struct pass *mp = &m->passes[m->nr_passes - 1];
			mp->duration_s = ps->duration_s;
			mp->cpu_user_s = ps->cpu_user_s;
			mp->cpu_sys_s = ps->cpu_sys_s;
			mp->cpu_includes_collector = ps->sampled && s->collect.collector == COLLECTOR_USE_PERF;
		}
		if (ps->sampled && s->collect.collector == COLLECTOR_USE_PRELOAD)
			rc |= manifest__add_collector(m, "scope_profiler-preload", NUNATAK_VERSION);
		else if (ps->sampled)
			rc |= manifest__add_collector(m, "perf", s->collect.caps.perf.version.text);
		/* an MPI pass: perf in every rank (each rank.json says its own
		 * node's perf version), nunatak's MPI interposition when injected */
		if (s->launch.mpi && !ps->sampled && s->collect.caps.perf.present)
			rc |= manifest__add_collector(m, "perf", s->collect.caps.perf.version.text);
		if (s->launch.mpi && s->prov.mpi_probe)
			rc |= manifest__add_collector(m, "nunatak-mpi", s->prov.mpi_probe);
		if (s->collect.nr_passes > 1 && ps->sampled && !s->replay) {
			char key[32], path[48];
			snprintf(key, sizeof(key), "perf.data.pass-%d", i);
			snprintf(path, sizeof(path), "collect/pass-%d/perf.data", i);
			rc |= manifest__set_file(m, key, path);
		}
	}
	if (s->collect.multi_pass_json)
		m->multi_pass = json_incref(s->collect.multi_pass_json);
	if (s->out.nodes)
		m->nodes = json_incref(s->out.nodes);
	for (size_t i = 0; i < s->degradations.n; i++)
		rc |= degradations__add(&m->degradations, s->degradations.v[i].name,
					s->degradations.v[i].message,
					s->degradations.v[i].remedy) < 0;
	const struct run_collection *c = &s->collect;
	if (c->passes[0].sampled && !s->replay && c->collector == COLLECTOR_USE_PERF &&
	    c->nr_passes < 2)
		rc |= manifest__set_file(m, "perf.data", "collect/perf.data");
	/* perf script of the single pass (--multi-pass keeps each pass's own) */
	if (c->passes[0].script_ok && c->nr_passes == 0) {
		rc |= manifest__set_file(m, "perf-script", "collect/perf-script.txt");
		rc |= manifest__set_file(m, "perf-buildid-list", "collect/perf-buildid-list.txt");
	}
	return rc ? err_oom(e) : 0;
}

/* The analysis and the rank view, once, from the pivot in memory: the page,
 * the terminal summary and the --json document all read them. */
int stage_analyse(struct run_state *s, struct err *e)
{
	struct run_result *o = &s->out;
	if (run_node_machines(s, e) < 0)
		return -ENOMEM;
	run_netceil_check(s); /* the network Ceilings against the nodes the ranks ran on */
	const struct ceiling *c = s->machine ? s->machine->ceilings : NULL;
	size_t nc = s->machine ? s->machine->nr_ceilings : 0;
	/* the Run-wide placement sums every rank's FLOPs: its roof is the sum
	 * of its nodes' Ceilings (model/node_machines.h), not the launch node's */
	struct node_machines nm;
	struct err ne = {0};
	if (s->out.nodes && node_machines__from_json(&nm, s->out.nodes, &ne) == 0) {
		int rc = node_machines__run_ceilings(&nm, &o->run_ceilings);
		node_machines__release(&nm);
		if (rc < 0)
			return err_oom(e);
	}
	if (o->run_ceilings.applies) {
		c = o->run_ceilings.c;
		nc = o->run_ceilings.n;
	}
	const json_t *below = json_object_get(json_object_get(s->collect.multi_pass_json, "dram_bound"),
					      "dram_bytes_below");
	o->have_analysis = analysis_run_bounded(&s->pivot, c, nc, ANALYSIS_FLOOR_SAMPLES,
						json_is_number(below) ? json_number_value(below)
								      : NAN,
						&o->analysis) == 0;
	/* the manifest's world size: what `nunatak report` reads back */
	o->have_ranks = imbalance_ranks(&s->pivot, s->launch.mpi && s->launch.world_size > 0 ? s->launch.world_size : -1,
					&o->ranks) == 0;
	return o->have_analysis ? 0 : err_oom(e);
}

/* What pivot_db_write's rc makes of the manifest: the pivot listed, or the
 * Run incomplete and said so (e holds the write's error). */
static int store_outcome(struct run_state *s, int rc, struct err *e)
{
	struct manifest *m = &s->out.manifest;
	/* The pivot first: a manifest never lists a table that is not there, and
	 * is written even when the pivot could not be (the Run stays readable). */
	if (rc == 0)
		rc = manifest__set_file(m, "pivot", PIVOT_DB_FILE);
	else if (rc != -ENOMEM && m->name) { /* said now, and in the manifest */
		static const char remedy[] = "free space or choose another -o, then run again "
					     "(collect/ keeps the raw samples of this one)";
		run_state__degrade(s, DEG_PIVOT_UNWRITABLE, e->msg, remedy);
		/* no pivot: the Run did not get through post-processing */
		m->status = RUN_STATUS_INCOMPLETE;
		s->out.pivot_unwritten = true;
	}
	return rc;
}

/* pivot.sqlite, and the manifest in memory (written by stage_manifest once
 * the page is there too). The pivot is written on a thread while
 * stage_report renders the page, which joins it (run/store_job.c); here
 * when no thread starts. */
int stage_store(struct run_state *s, struct err *e)
{
	if (!s->rundir.dir)
		return 0;
	struct manifest *m = &s->out.manifest;
	run_overhead(s);
	int rc = fill_manifest(s, m, RUN_STATUS_COMPLETE, e);
	s->out.have_manifest = m->name != NULL;
	char *db = fs_join(s->rundir.dir, PIVOT_DB_FILE);
	if (rc == 0 && !db)
		rc = err_oom(e);
	if (rc == 0 && (s->store_job = run_store_job_start(&s->pivot, db))) {
		xfree(db);
		return 0;
	}
	if (rc == 0)
		rc = pivot_db_write(&s->pivot, db, "nunatak " NUNATAK_VERSION, e);
	xfree(db);
	return store_outcome(s, rc, e);
}

/* Space kept for the manifests while the application runs: a disk it (or
 * perf) fills must not leave the Run without one. Half of it is given back at
 * the first manifest refused for want of space, the rest at the second. */
#define RUN_RESERVE_FILE ".nunatak-space-reserve"
#define RUN_RESERVE_BYTES (2 << 20)

void run_reserve_space(struct run_state *s)
{
	char *path = s->rundir.dir ? fs_join(s->rundir.dir, RUN_RESERVE_FILE) : NULL;
	int fd = path ? open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
	if (fd >= 0 && posix_fallocate(fd, 0, RUN_RESERVE_BYTES) != 0)
		unlink(path); /* no room even now, or no fallocate here: no reserve */
	if (fd >= 0)
		close(fd);
	xfree(path);
}

static bool reserve_give_back(struct run_state *s)
{
	struct stat st;
	char *path = s->rundir.dir ? fs_join(s->rundir.dir, RUN_RESERVE_FILE) : NULL;
	bool freed = false;
	if (path && lstat(path, &st) == 0 && S_ISREG(st.st_mode))
		freed = st.st_size > RUN_RESERVE_BYTES / 2 ? truncate(path, RUN_RESERVE_BYTES / 2) == 0
							   : unlink(path) == 0;
	xfree(path);
	return freed;
}

void run_reserve_release(struct run_state *s)
{
	char *path = s->rundir.dir ? fs_join(s->rundir.dir, RUN_RESERVE_FILE) : NULL;
	if (path)
		unlink(path);
	xfree(path);
}

/* A manifest refused for want of space is written again on the reserve. */
static int write_manifest(struct run_state *s, const struct manifest *m, const char *file,
			  struct err *e)
{
	int rc;
	while ((rc = manifest__write_as(m, s->rundir.dir, file, e)) == -ENOSPC && reserve_give_back(s))
		memset(e, 0, sizeof(*e));
	return rc;
}

/* manifest.json as soon as the application ended, status incomplete (or
 * abandoned: nunatak stops here), before the long post-processing: a Run
 * whose nunatak is then killed, crashes or runs out of memory still says
 * what ran and how it ended, and lists what collect/ holds. stage_store
 * replaces it. */
int run_write_provisional(struct run_state *s, int status, struct err *e)
{
	if (!s->rundir.dir)
		return 0;
	struct manifest m;
	manifest__init(&m);
	int rc = fill_manifest(s, &m, (enum run_status)status, e);
	if (rc == 0)
		rc = write_manifest(s, &m, MANIFEST_FILE, e);
	/* The abandoned variant, renamed into place by a second interrupt
	 * during post-processing (a signal handler cannot build JSON). */
	if (rc == 0 && status == RUN_STATUS_INCOMPLETE) {
		m.status = RUN_STATUS_ABANDONED;
		rc = write_manifest(s, &m, RUN_ABANDONED_MANIFEST, e);
	}
	manifest__release(&m);
	return rc;
}

/* report.html, rendered from the Run in memory: regenerable, so a failure is
 * a degradation. The payload's trunk is the manifest as stage_store left it
 * (what `nunatak report` reads back, less the page itself). */
static int render_page(struct run_state *s, char **path, struct err *he)
{
	struct run_result *o = &s->out;
	if (s->out.pivot_unwritten || !o->have_manifest)
		return err_set(he, -ENOENT, ERR_RUN_NOT_A_RUN,
			       "%s: this Run is incomplete (post-processing did not finish): it "
			       "holds no measurements to report; its manifest.json and collect/ "
			       "keep what was written; run the application again for a Run",
			       s->rundir.dir);
	if (!o->have_analysis)
		return err_set(he, -ENOMEM, ERR_OOM, "out of memory");
	json_t *mj = manifest__to_json(&o->manifest);
	run_netceil_into(s, mj); /* where the network Ceilings came from, before the cost */
	json_t *payload = mj ? payload_build(mj, &s->pivot, &o->analysis,
					     o->have_ranks ? &o->ranks : NULL, false)
			     : NULL;
	json_decref(mj);
	*path = fs_join(s->rundir.dir, REPORT_HTML_FILE);
	int rc = payload && *path ? report_html_write(payload, *path, false, he)
				  : err_set(he, -ENOMEM, ERR_OOM, "out of memory");
	json_decref(payload);
	if (rc < 0) {
		xfree(*path);
		*path = NULL;
	}
	return rc;
}

static void render_or_degrade(struct run_state *s)
{
	struct err he = {0};
	if (render_page(s, &s->out.report_path, &he) < 0)
		/* regenerable from the pivot, unless the pivot is what could not be written */
		run_state__degrade(s, DEG_REPORT_UNAVAILABLE, he.msg[0] ? he.msg : "no report page",
				   s->out.pivot_unwritten
					   ? "free space and run again: this Run has no pivot to "
					     "render (collect/ keeps its raw samples)"
					   : "`nunatak report` regenerates it from the Run");
}

/* The page rendered as if the pivot were written (listed in the manifest),
 * while the thread writes it; then its outcome. It was: the page stands, as
 * it would have been rendered after the write. It was not: the listing and
 * the page are undone, the failure said as stage_store says it, and the
 * page rendered again the way a failed write leaves it. */
static int report_beside_store(struct run_state *s)
{
	struct manifest *m = &s->out.manifest;
	size_t nr_files = m->nr_files;
	bool listed = m->name && manifest__set_file(m, "pivot", PIVOT_DB_FILE) == 0;
	struct err he = {0}, se = {0};
	char *page = NULL;
	bool rendered = listed && render_page(s, &page, &he) == 0;
	int rc = run_store_job_join(s->store_job, &se);
	s->store_job = NULL;
	if (rc == 0 && listed) {
		s->out.report_path = page;
		if (!rendered)
			run_state__degrade(s, DEG_REPORT_UNAVAILABLE,
					   he.msg[0] ? he.msg : "no report page",
					   "`nunatak report` regenerates it from the Run");
		return 0;
	}
	if (page)
		unlink(page);
	xfree(page);
	for (; m->nr_files > nr_files; m->nr_files--) { /* the listing, undone */
		xfree(m->files[m->nr_files - 1].table);
		xfree(m->files[m->nr_files - 1].relpath);
	}
	if (rc == 0)
		rc = err_oom(&se); /* written, but the listing ran out of memory */
	if (store_outcome(s, rc, &se) < 0)
		console__error(s->con, "store: %s", se.msg[0] ? se.msg : "failed");
	render_or_degrade(s);
	return 0;
}

int stage_report(struct run_state *s, struct err *e)
{
	(void)e;
	if (s->store_job)
		return report_beside_store(s);
	if (!s->rundir.dir)
		return 0;
	render_or_degrade(s);
	return 0;
}

/* manifest.json, once, replacing the provisional one: its files{} list what
 * is on disk (pivot, page), its degradations[] every one of the Run. */
int stage_manifest(struct run_state *s, struct err *e)
{
	struct manifest *m = &s->out.manifest;
	if (!s->rundir.dir || !s->out.have_manifest)
		return 0;
	int rc = s->out.report_path ? manifest__set_file(m, "report", REPORT_HTML_FILE) : 0;
	for (size_t i = 0; rc == 0 && i < s->degradations.n; i++)
		if (degradations__add(&m->degradations, s->degradations.v[i].name,
				      s->degradations.v[i].message, s->degradations.v[i].remedy) < 0)
			rc = -ENOMEM;
	if (rc < 0)
		return err_oom(e);
	return write_manifest(s, m, MANIFEST_FILE, e);
}
