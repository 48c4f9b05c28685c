// SPDX-License-Identifier: BSD-3-Clause
/* `nunatak calibrate [--force] [--json]`: the Machine's Ceilings, from the
 * cache when this Machine was calibrated before, else measured now by the
 * calibration kernels and cached (docs/cli/calibrate.md). */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_error.h"
#include "cli/commands.h"
#include "common/exit_codes.h"
#include "doctor/doctor.h"
#include "cli/options.h"
#include "common/alloc.h"
#include "common/config.h"
#include "common/console.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "exec/exec.h"
#include "model/machine_identity.h"
#include "machine/profile.h"
#include "machine/snapshot.h"

struct calibrate_opts_cli {
	bool force;
	bool json;
	int verbose;
	const char *replay;
};

static const struct opt_spec calibrate_options[] = {
	{"force", 0, OPT_BOOL, offsetof(struct calibrate_opts_cli, force), NULL,
	 "calibrate again even when this Machine's profile is cached", false},
	{"json", 0, OPT_BOOL, offsetof(struct calibrate_opts_cli, json), NULL,
	 "print one JSON document on stdout (docs/schemas/calibrate.json)", false},
	{"verbose", 'v', OPT_COUNT, offsetof(struct calibrate_opts_cli, verbose), NULL,
	 "more detail on stderr (repeatable)", false},
	{"replay", 0, OPT_STRING, offsetof(struct calibrate_opts_cli, replay), "ENTRY",
	 "serve the compiler and kernels from a recorded corpus entry", true},
};

static const struct verb_spec calibrate_spec = {
	.name = "calibrate",
	.usage = "nunatak calibrate [--force] [--json]",
	.summary = "Measure this Machine's Ceilings (DRAM bandwidth by a triad, double and "
		   "single precision FLOP rates by FMA chains) with kernels built here by the "
		   "target's compiler and run on the allocated cores, or answer from the cache "
		   "($XDG_CACHE_HOME/nunatak/machines/<identity>.json) when this Machine was "
		   "calibrated before. Each Ceiling is the maximum of its repetitions, with its "
		   "Quality: measured, or estimated with the reason (dispersion, concurrent load, "
		   "a scalar build, above the theoretical peak, or the theoretical table itself). "
		   "It also measures what one sample costs the application here (perf with fp and "
		   "dwarf stacks, and the preload sampler), which each Run's overhead line "
		   "multiplies by its samples.",
	.opts = calibrate_options,
	.nr_opts = OPTS_NR(calibrate_options),
	.max_pos = 0,
	.epilog = "The Machine is hardware + allocation: run it inside the job allocation your "
		  "solver gets (srun nunatak calibrate) to calibrate that shape.\n"
		  "configuration: [calibration] budget = 60 (seconds), [tools] cc.\n"
		  "exit codes: 0 (also when nothing could be measured: the output says why), "
		  "125 usage error or failure.\n"
		  "example: nunatak calibrate --force --json",
};

static const char *source_name(enum profile_source s)
{
	return s == PROFILE_CACHED       ? "cached"
	       : s == PROFILE_CALIBRATED ? "calibrated"
	       : s == PROFILE_RECORDED   ? "recorded"
					 : "theory";
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *calibration_json(const struct profile_outcome *po)
{
	if (!po->calibrated)
		return json_null();
	const struct calibrate_report *r = &po->cal;
	return json_pack("{s:s?, s:s?, s:s?, s:o, s:o, s:o, s:{s:o, s:o, s:o}, s:b, s:b, s:i, s:i, "
			 "s:i, s:i, s:o, s:o}",
			 "compiler", r->compiler, "isa", r->isa, "problem", r->problem, "seconds",
			 json_real(r->total_s), "build_seconds", json_real(r->build_s),
			 "page_fault_seconds", num_or_null(r->init_s), "kernel_seconds", "triad",
			 json_real(r->kernel_s[0]), "fma_dp", json_real(r->kernel_s[1]), "fma_sp",
			 json_real(r->kernel_s[2]), "reused_binary", r->reused_binary, "budget_cut",
			 r->budget_cut, "measured", r->nr_measured, "estimated", r->nr_estimated,
			 "threads", r->threads, "flops_threads", r->flops_threads, "cost_seconds", json_real(r->cost_s),
			 "cost_frequency", r->cost_freq > 0 ? json_integer(r->cost_freq)
							    : json_null());
}

static int print_json(const struct machine *m, const struct profile_outcome *po)
{
	char id[MACHINE_ID_SIZE] = "";
	machine_identity(m, id);
	json_t *j = json_pack("{s:s, s:s, s:s?, s:b, s:s?, s:s?, s:o, s:o}", "identity", id,
			      "source", source_name(po->source), "profile", po->cache_path, "stored",
			      po->stored, "not_stored", po->not_stored, "kept", po->kept,
			      "calibration",
			      calibration_json(po), "machine", machine__to_json(m));
	return j ? cli_print_json(j) : -1;
}

static void print_text(const struct machine *m, const struct profile_outcome *po)
{
	char id[MACHINE_ID_SIZE] = "";
	double cores = NAN;
	machine_identity(m, id);
	machine__allocated_cores(m, &cores);
	printf("Machine %s: %s, %g allocated core%s (%s)\n", id,
	       m->cpu_model ? m->cpu_model : "unknown CPU", cores, cores == 1 ? "" : "s",
	       m->architecture ? m->architecture : "unknown architecture");
	if (!m->nr_ceilings)
		printf("  no Ceiling: %s\n", po->cal.problem ? po->cal.problem
			: "calibration unavailable and the microarchitecture is not in the "
			  "theoretical table");
	for (size_t i = 0; i < m->nr_ceilings; i++) {
		const struct ceiling *c = &m->ceilings[i];
		printf("  %-16s %11.4g %-7s %s%s%s\n", c->name, c->value, c->unit,
		       quality__name(c->quality), c->reason ? ": " : "", c->reason ? c->reason : "");
	}
	for (size_t i = 0; i < m->nr_costs; i++) {
		const struct ceiling *c = &m->costs[i];
		if (c->quality == QUALITY_UNAVAILABLE)
			printf("  %-16s %11s %-7s unavailable: %s\n", c->name, "-", "s/sample",
			       c->reason ? c->reason : "?");
		else
			printf("  %-16s %11.4g %-7s %s%s%s\n", c->name, c->value, "s/sample",
			       quality__name(c->quality), c->reason ? ": " : "",
			       c->reason ? c->reason : "");
	}
	if (po->source == PROFILE_CACHED)
		printf("from the cached profile %s (nunatak calibrate --force measures again)\n",
		       po->cache_path);
	if (po->calibrated) {
		const struct calibrate_report *r = &po->cal;
		printf("calibrated in %.1f s (build %.1f s%s", r->total_s, r->build_s,
		       r->reused_binary ? ", cached kernel" : "");
		if (isfinite(r->init_s))
			printf(", page faulting the triad arrays %.1f s", r->init_s);
		printf("; triad %.1f s, fma_dp %.1f s, fma_sp %.1f s", r->kernel_s[0], r->kernel_s[1],
		       r->kernel_s[2]);
		if (r->cost_freq > 0)
			printf(", cost per sample %.1f s at %d Hz", r->cost_s, r->cost_freq);
		printf(")%s%s\n", r->isa ? " with " : "", r->isa ? r->isa : "");
		if (r->problem)
			printf("calibration incomplete: %s\n", r->problem);
	}
	if (po->kept)
		printf("a Ceiling is a maximum: %s\n", po->kept);
	if (po->stored)
		printf("stored in %s\n", po->cache_path);
	else if (po->not_stored)
		printf("not cached: %s\n", po->not_stored);
}

static void progress(void *ctx, const char *label, unsigned long done, unsigned long total)
{
	console__progress(ctx, label, done, total);
}

static void announce(void *ctx, const char *msg)
{
	console__info(ctx, "%s", msg);
}

static int calibrate(const struct calibrate_opts_cli *o, struct console *con)
{
	struct config cfg;
	struct err e = {0};
	struct machine m;
	struct profile_outcome po;
	memset(&po, 0, sizeof(po));
	machine__init(&m);
	int rc = config__load(&cfg, NULL, &e);
	for (size_t i = 0; i < cfg.nr_warnings; i++)
		console__warn(con, "%s", cfg.warnings[i]);
	struct executor *x = rc < 0 ? NULL
			     : o->replay ? executor__new_replay(o->replay, &e)
					 : executor__new_real();
	char *sampler_lib = o->replay ? NULL : doctor_preload_library();
	if (x && (rc = machine__snapshot(&m, x, &e)) == 0) {
		struct profile_opts popt = {.calibrate = true,
					    .force = o->force,
					    .replay = o->replay != NULL,
					    .cc = config__tool(&cfg, "cc"),
					    .sampler_lib = sampler_lib,
					    .budget_s = cfg.calibration_budget_s,
					    .progress = progress,
					    .announce = announce,
					    .occasion = "no cached profile",
					    .ctx = con};
		rc = machine_profile(&m, x, &popt, &po, &e);
		console__progress_end(con, "calibration");
	}
	if (!x || rc < 0) {
		struct err f = {0};
		err_set(&f, -EIO, e.code[0] ? e.code : ERR_CALIBRATE_FAILED, "%s",
			e.msg[0] ? e.msg : "calibration failed");
		rc = cli_fail(con, o->json, &f, EXIT_FAILURE_BEFORE_LAUNCH, NULL);
	} else if (o->json) {
		rc = print_json(&m, &po) < 0 ? EXIT_FAILURE_BEFORE_LAUNCH : 0;
	} else {
		print_text(&m, &po);
		rc = 0;
	}
	profile_outcome__release(&po);
	xfree(sampler_lib);
	machine__release(&m);
	executor__free(x);
	config__release(&cfg);
	return rc;
}

int cmd_calibrate(int argc, char **argv)
{
	struct calibrate_opts_cli o = {0};
	struct opts_rest rest = {0};
	struct err e = {0};
	struct console con;
	int rc = opts_parse(&calibrate_spec, argc, argv, &o, &rest, &e);
	console__init(&con, stderr, o.verbose);
	if (rc == 1) {
		rc = 0;
	} else if (rc < 0) {
		rc = cli_fail(&con, o.json || opts_flag_given(argc, argv, "json"), &e, EXIT_USAGE,
			      NULL);
	} else {
		rc = calibrate(&o, &con);
	}
	opts__release(&calibrate_spec, &o);
	opts_rest__release(&rest);
	return rc < 0 ? EXIT_FAILURE_BEFORE_LAUNCH : rc;
}
