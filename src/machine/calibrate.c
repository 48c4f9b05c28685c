// SPDX-License-Identifier: BSD-3-Clause
// Calibration driver: kernel source to disk, build through the executor,
// three kernel processes, Ceilings (calibrate.h).
#include "machine/calibrate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/cache_home.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "exec/exec.h"
#include "tools/cc.h"
#include "machine/sample_cost.h"
#include "machine/snapshot.h"
#include "machine/theory.h"
#include "common/fsutil.h"

#define KERNEL_NAME "kernel-v0"

static const char *const kernels[3] = {"triad", "fma_dp", "fma_sp"};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void calibrate_report__release(struct calibrate_report *r)
{
	if (!r)
		return;
	xfree(r->compiler);
	xfree(r->isa);
	xfree(r->problem);
	memset(r, 0, sizeof(*r));
}

static int run_argv(struct executor *x, char **argv, double timeout_s, struct exec_result *res,
		    struct err *e)
{
	if (!argv)
		return err_set(e, -ENOMEM, ERR_OOM, "out of memory");
	struct exec_request req = {.argv = (const char *const *)argv, .capture_stdout = true,
				   .capture_stderr = true, .timeout_s = timeout_s};
	int rc = executor__run(x, &req, res, e);
	cc_argv__free(argv);
	return rc;
}

/* The first compiler that answers --version; *cc_out borrowed from o or the
 * defaults. Returns 0 (found), 1 (none), negative on nunatak failure. */
static int find_cc(struct executor *x, const struct calibrate_opts *o, const char **cc_out,
		   struct calibrate_report *r, struct err *e)
{
	const char *cands[5];
	cc_candidates(o->cc, cands);
	for (size_t i = 0; cands[i]; i++) {
		struct exec_result res;
		int rc = run_argv(x, cc_argv_version(cands[i]), 30, &res, e);
		bool ok = rc == 0 && res.exit_code == 0;
		if (ok) {
			*cc_out = cands[i];
			r->compiler = cc_version_line(res.out);
		}
		exec_result__release(&res);
		if (rc < 0 || ok)
			return rc;
	}
	r->problem = xasprintf("no C compiler answered (tried %s%s%s%s%s): the Ceilings cannot be "
			       "measured; install gcc or set [tools] cc",
			       cands[0], cands[1] ? ", " : "", cands[1] ? cands[1] : "",
			       cands[2] ? ", " : "", cands[2] ? cands[2] : "");
	return 1;
}

/* Same bytes on disk as embedded: the binary beside them is this kernel. */
static bool source_matches(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	bool same = fs_read_file(path, 1 << 20, &text, &len) == 0 &&
		    len == calibration_kernel_c_len && !memcmp(text, calibration_kernel_c, len);
	xfree(text);
	return same;
}

static int build(struct executor *x, const struct calibrate_opts *o, const char *src,
		 const char *bin, struct calibrate_report *r, struct err *e)
{
	/* reused only when sealed by us over this source (common/cache_home.h):
	 * a kernel another user put there would run as us */
	if (!o->replay && source_matches(src) && access(bin, X_OK) == 0 &&
	    !cache_sealed_file_problem(bin, calibration_kernel_c, calibration_kernel_c_len)) {
		r->reused_binary = true;
		return 0;
	}
	int rc = fs_write_atomic(src, calibration_kernel_c, calibration_kernel_c_len, e);
	if (rc)
		return rc;
	unlink(bin);
	const char *cc = NULL;
	if ((rc = find_cc(x, o, &cc, r, e)) != 0)
		return rc;
	double t0 = now_s();
	static const char *const arch[] = {"-march=native", "-mcpu=native"};
	char *why = NULL;
	for (int k = 0; k < 2; k++) {
		struct exec_result res;
		rc = run_argv(x, cc_argv_build(cc, arch[k], src, bin), 120, &res, e);
		bool ok = rc == 0 && res.exit_code == 0;
		if (!ok && rc == 0 && !why)
			why = xasprintf("`%s -O3 %s` failed (exit %d): %.160s", cc, arch[k],
					res.exit_code, res.err && res.err[0] ? res.err : "no message");
		exec_result__release(&res);
		if (ok && !o->replay)
			(void)cache_seal_file(bin, calibration_kernel_c, calibration_kernel_c_len);
		if (rc < 0 || ok) {
			r->build_s = now_s() - t0;
			xfree(why);
			return rc;
		}
	}
	r->problem = xasprintf("the calibration kernel did not build: %s", why ? why : "?");
	xfree(why);
	return 1;
}

/* How the kernels run: on every allocated core, or on the free ones only. */
struct kernel_plan {
	int threads;           /* threads the kernels run */
	int alloc_threads;     /* the allocation's cores */
	const char *cpus_env;  /* "NUNATAK_KERNEL_CPUS=..." or NULL */
};

static int run_kernel(struct executor *x, const char *bin, const char *kernel,
		      const struct kernel_plan *plan, const struct calibrate_opts *o,
		      double timeout_s, struct exec_result *res, struct err *e)
{
	int threads = plan->threads;
	const char *env[] = {plan->cpus_env, NULL};
	char t[16], reps[16], ms[16], bytes[32];
	snprintf(t, sizeof(t), "%d", threads);
	snprintf(reps, sizeof(reps), "%d", o->reps > 0 ? o->reps : CALIBRATION_DEFAULT_REPS);
	snprintf(ms, sizeof(ms), "%d", o->ms > 0 ? o->ms : CALIBRATION_DEFAULT_MS);
	snprintf(bytes, sizeof(bytes), "%.0f", o->triad_bytes);
	const char *argv[] = {bin, kernel, t, reps, ms,
			      !strcmp(kernel, "triad") && o->triad_bytes > 0 ? bytes : NULL, NULL};
	struct exec_request req = {.argv = argv, .capture_stdout = true, .capture_stderr = true,
				   .timeout_s = timeout_s, .env_set = plan->cpus_env ? env : NULL};
	return executor__run(x, &req, res, e);
}

/* A kernel run on fewer threads than the allocation has cores: FLOP rates
 * scale with cores (each core has its own FMA units) and are scaled,
 * bandwidth does not (the cores share the memory channels) and is kept as a
 * lower bound; both estimated, saying so. */
static int scale_to_allocation(struct ceiling *c, const struct kernel_plan *plan, int ran)
{
	if (ran <= 0 || ran >= plan->alloc_threads)
		return 0;
	double f = (double)plan->alloc_threads / ran;
	bool flops = strcmp(c->name, "dram_bandwidth") != 0;
	char *why = flops ? xasprintf("measured on %d of %d allocated cores (the others were "
				      "busy), scaled x%g", ran, plan->alloc_threads, f)
			  : xasprintf("measured on %d of %d allocated cores (the others were "
				      "busy): a lower bound, not scaled (the cores share the "
				      "memory bandwidth)", ran, plan->alloc_threads);
	if (!why)
		return -ENOMEM;
	char *r = c->reason ? xasprintf("%s; %s", why, c->reason) : why;
	if (!r) {
		xfree(why);
		return -ENOMEM;
	}
	if (r != why)
		xfree(why);
	xfree(c->reason);
	c->reason = r;
	c->quality = QUALITY_ESTIMATED;
	if (flops)
		c->value *= f;
	return 0;
}

/* Replaces m's Ceiling of c->name by c (strings taken over by a copy). */
static int put_ceiling(struct machine *m, const struct ceiling *c)
{
	size_t w = 0;
	for (size_t i = 0; i < m->nr_ceilings; i++) {
		if (m->ceilings[i].name && !strcmp(m->ceilings[i].name, c->name)) {
			ceiling__release_strings(&m->ceilings[i]);
			continue;
		}
		m->ceilings[w++] = m->ceilings[i];
	}
	m->nr_ceilings = w;
	return machine__add_ceiling(m, c);
}

static int one_kernel(struct machine *m, struct executor *x, const struct calibrate_opts *o,
		      const char *bin, int k, const struct kernel_plan *plan, double deadline,
		      struct calibrate_report *r, struct err *e)
{
	struct exec_result res;
	double t0 = now_s();
	/* the FMA kernels time each thread on its CPU time: every allocated
	 * core, busy or not (calibrate.h); the triad needs free cores */
	struct kernel_plan all = {plan->alloc_threads, plan->alloc_threads, NULL};
	if (k > 0)
		plan = &all;
	int threads = plan->threads;
	int rc = run_kernel(x, bin, kernels[k], plan, o, o->replay ? 0 : deadline - t0 + 10,
			    &res, e);
	r->kernel_s[k] = now_s() - t0;
	struct kernel_output ko;
	struct err pe = {0};
	if (rc == 0 && res.exit_code == 0 &&
	    kernel_output_parse(res.out, res.out_len, &ko, &pe) == 0) {
		char basis[192];
		struct pollution_ref p = {
			theory_rate(m, o->max_freq_khz, o->cpuinfo, k == 1 ? "flops_dp" : "flops_sp",
				    ko.threads > 0 ? ko.threads : threads, basis, sizeof(basis)),
			basis, o->llc_bytes, false};
		struct frequency fr;
		p.observed = theory_frequency(o->max_freq_khz, m->cpu_model,
					      o->cpuinfo ? o->cpuinfo : m->cpuinfo_text, &fr) &&
			     fr.caveat;
		if (k == 0)
			p.theory = NAN;
		struct ceiling c;
		int crc = calibration_ceiling(&ko, &p, &c);
		if (crc == 0 && (crc = scale_to_allocation(&c, plan, ko.threads > 0 ? ko.threads
								       : threads)) < 0)
			ceiling__release_strings(&c);
		if (crc == 0) {
			crc = put_ceiling(m, &c);
			if (c.quality == QUALITY_MEASURED)
				r->nr_measured++;
			else
				r->nr_estimated++;
			ceiling__release_strings(&c);
		}
		if (k == 0)
			r->init_s = ko.init_s;
		if (!r->isa && ko.isa[0])
			r->isa = xstrdup(ko.isa);
		if (crc == -ENOMEM)
			rc = err_set(e, -ENOMEM, ERR_OOM, "out of memory");
	} else if (rc == 0 && !r->problem) {
		r->problem = xasprintf("the %s kernel %s", kernels[k],
				       res.timed_out ? "ran past the calibration budget"
				       : res.exit_code ? "failed" : pe.msg);
	}
	exec_result__release(&res);
	return rc;
}

/* The cost per sample after the kernels (the replay of a reference
 * recording would serve the application's perf record to it otherwise). */
static int costs(struct machine *m, struct executor *x, const struct calibrate_opts *o,
		 const char *bin, bool out_of_budget, struct calibrate_report *r, struct err *e)
{
	char *no_kernel = r->problem && !r->nr_measured && !r->nr_estimated
				  ? xasprintf("not measured: %s", r->problem) : NULL;
	const char *why = no_kernel ? no_kernel
			  : out_of_budget ? "not measured: the calibration budget ran out" : NULL;
	if (!why) {
		if (o->progress)
			o->progress(o->progress_ctx, "calibrating: cost per sample", 4, 5);
		return machine_sample_costs(m, x, o, bin, r, e);
	}
	int rc = sample_cost_unavailable(m, COST_PERF_FP, why) ||
		 sample_cost_unavailable(m, COST_PERF_DWARF, why) ||
		 sample_cost_unavailable(m, COST_PRELOAD, why)
			 ? err_set(e, -ENOMEM, ERR_OOM, "out of memory") : 0;
	xfree(no_kernel);
	return rc;
}

int machine_calibrate(struct machine *m, struct executor *x, const struct calibrate_opts *o,
		      struct calibrate_report *r, struct err *e)
{
	memset(r, 0, sizeof(*r));
	r->init_s = NAN;
	double t0 = now_s(), budget = o->budget_s > 0 ? o->budget_s : CALIBRATION_DEFAULT_BUDGET_S;
	double cores = 1;
	int threads = machine__allocated_cores(m, &cores) && cores >= 1 ? (int)cores : 1;
	struct kernel_plan plan = {threads, threads, NULL};
	char *cpus_env = NULL;
	if (o->nr_free_cpus > 0 && o->nr_free_cpus < threads) {
		plan.threads = o->nr_free_cpus;
		cpus_env = xstrdup("NUNATAK_KERNEL_CPUS=");
		for (int i = 0; cpus_env && i < o->nr_free_cpus; i++) {
			char *more = xasprintf("%s%s%d", cpus_env, i ? "," : "", o->free_cpus[i]);
			xfree(cpus_env);
			cpus_env = more;
		}
		plan.cpus_env = cpus_env;
	}
	char *src = fs_join(o->work_dir, KERNEL_NAME ".c"), *bin = fs_join(o->work_dir, KERNEL_NAME);
	int rc = src && bin ? 0 : err_set(e, -ENOMEM, ERR_OOM, "out of memory");
	if (rc == 0 && (rc = fs_mkdir_p(o->work_dir)) < 0)
		err_set(e, rc, ERR_CALIBRATION_IO, "cannot create %s: %s", o->work_dir, strerror(-rc));
	if (o->progress)
		o->progress(o->progress_ctx, "calibrating: building the kernel", 0, 5);
	if (rc == 0)
		rc = build(x, o, src, bin, r, e);
	for (int k = 0; rc == 0 && k < 3; k++) {
		if (now_s() - t0 >= budget) {
			r->budget_cut = true;
			if (!r->problem)
				r->problem = xasprintf("the calibration budget of %g s ran out before "
						       "the %s kernel", budget, kernels[k]);
			break;
		}
		char label[64];
		snprintf(label, sizeof(label), "calibrating: %s", kernels[k]);
		if (o->progress)
			o->progress(o->progress_ctx, label, (unsigned long)k + 1, 5);
		rc = one_kernel(m, x, o, bin, k, &plan, t0 + budget, r, e);
	}
	if (rc >= 0 && !o->replay)
		rc = costs(m, x, o, bin, now_s() - t0 >= budget, r, e);
	if (rc >= 0 && theory_add_ceilings(m, o->max_freq_khz, o->cpuinfo) < 0)
		rc = err_set(e, -ENOMEM, ERR_OOM, "out of memory");
	r->total_s = now_s() - t0;
	r->threads = plan.threads;
	r->flops_threads = plan.alloc_threads;
	xfree(cpus_env);
	xfree(src);
	xfree(bin);
	return rc > 0 ? 0 : rc;
}

int machine_calibrate_costs(struct machine *m, struct executor *x, const struct calibrate_opts *o,
			    struct calibrate_report *r, struct err *e)
{
	memset(r, 0, sizeof(*r));
	r->init_s = NAN;
	double t0 = now_s();
	char *src = fs_join(o->work_dir, KERNEL_NAME ".c"), *bin = fs_join(o->work_dir, KERNEL_NAME);
	int rc = src && bin ? 0 : err_set(e, -ENOMEM, ERR_OOM, "out of memory");
	if (rc == 0 && (rc = fs_mkdir_p(o->work_dir)) < 0)
		err_set(e, rc, ERR_CALIBRATION_IO, "cannot create %s: %s", o->work_dir, strerror(-rc));
	if (rc == 0 && o->progress)
		o->progress(o->progress_ctx, "calibrating: building the kernel", 3, 5);
	if (rc == 0 && !o->replay)
		rc = build(x, o, src, bin, r, e);
	if (rc >= 0 && !o->replay)
		rc = costs(m, x, o, bin, false, r, e);
	r->total_s = now_s() - t0;
	xfree(src);
	xfree(bin);
	return rc > 0 ? 0 : rc;
}

static double size_of(const char *text)
{
	char *end;
	double v = strtod(text, &end);
	if (*end == 'K')
		v *= 1024;
	else if (*end == 'M')
		v *= 1048576;
	return v;
}

/* Index of the highest-level cache of cpu (its "level" file), or -1. */
static int top_cache(const char *root, int cpu, int *level_out)
{
	int best = -1, best_level = 0;
	for (int idx = 0; idx < 8; idx++) {
		char rel[128], *path, *text = NULL;
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cache/index%d/level", cpu, idx);
		if (!(path = fs_join(root, rel)))
			return -1;
		int lv = fs_read_file(path, 64, &text, NULL) == 0 ? atoi(text) : 0;
		xfree(path);
		xfree(text);
		if (lv > best_level) {
			best_level = lv;
			best = idx;
		}
	}
	*level_out = best_level;
	return best;
}

double machine_llc_bytes(const char *root, const struct machine *m)
{
	double total = 0;
	char **seen = NULL;
	size_t nr_seen = 0, cap = 0;
	size_t n = m->alloc.has_affinity ? m->alloc.nr_affinity : 1;
	for (size_t i = 0; i < n && i < 4096; i++) {
		int cpu = m->alloc.has_affinity ? m->alloc.affinity_mask[i] : 0, level;
		int idx = top_cache(root ? root : "/", cpu, &level);
		if (idx < 0 || level < 2)
			continue;
		char rel[128], *p1, *p2, *size = NULL, *shared = NULL;
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cache/index%d/size", cpu, idx);
		p1 = fs_join(root ? root : "/", rel);
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list",
			 cpu, idx);
		p2 = fs_join(root ? root : "/", rel);
		if (p1 && p2 && fs_read_file(p1, 64, &size, NULL) == 0 &&
		    fs_read_file(p2, 4096, &shared, NULL) == 0) {
			shared[strcspn(shared, "\n")] = '\0';
			bool dup = false;
			for (size_t k = 0; k < nr_seen; k++)
				dup |= strcmp(seen[k], shared) == 0;
			if (!dup && !xgrow((void **)&seen, &cap, nr_seen + 1, sizeof(*seen))) {
				seen[nr_seen++] = shared;
				shared = NULL;
				total += size_of(size);
			}
		}
		xfree(p1);
		xfree(p2);
		xfree(size);
		xfree(shared);
	}
	for (size_t k = 0; k < nr_seen; k++)
		xfree(seen[k]);
	xfree(seen);
	return total;
}

double calibration_triad_bytes(const struct machine *m, double llc_bytes)
{
	double mib = 1048576.0, b;
	if (llc_bytes > 0) {
		/* each array 4x the last-level cache (STREAM's rule), no more:
		 * page faulting gigabytes was most of a cold calibration */
		b = 12 * llc_bytes;
		b = b < 96 * mib ? 96 * mib : b > 6144 * mib ? 6144 * mib : b;
		if (b < 4 * llc_bytes)
			b = 4 * llc_bytes;
	} else {
		b = 768 * mib; /* unknown cache: the reference's smallest size */
	}
	if (m->alloc.memory_limit_bytes > 0 && b > (double)m->alloc.memory_limit_bytes / 2)
		b = (double)m->alloc.memory_limit_bytes / 2;
	return floor(b / 24) * 24;
}
