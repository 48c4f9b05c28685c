// SPDX-License-Identifier: BSD-3-Clause
// Pure half of calibration: the kernel's output format and the pollution
// rules that turn one kernel run into one Ceiling (calibrate.h).
#include "machine/calibrate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "machine/snapshot.h"

static int bad(struct err *e, int lineno, const char *want, const char *line, size_t ll)
{
	return err_set(e, -EINVAL, ERR_CALIBRATION_OUTPUT,
		       "kernel output: line %d: expected '%s', found '%.*s'", lineno, want,
		       (int)(ll > 80 ? 80 : ll), line);
}

static bool number(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	while (*end == ' ' || *end == '\t' || *end == '\r')
		end++;
	if (end == s || *end || !isfinite(v))
		return false;
	*out = v;
	return true;
}

static void word(char *dst, size_t cap, const char *src)
{
	size_t n = strcspn(src, " \t\r");
	snprintf(dst, cap, "%.*s", (int)(n < cap ? n : cap - 1), src);
}

/* "sampled <i> <rate> <samples>" (v is what follows the key). */
static int sampled_line(struct kernel_output *k, const char *v, int lineno, struct err *e)
{
	size_t ll = strlen(v);
	const char *r = strchr(v, ' ');
	const char *n = r ? strchr(r + 1, ' ') : NULL;
	char rate[64];
	double x, y;
	if (!r || !n || (size_t)(n - r - 1) >= sizeof(rate))
		return bad(e, lineno, "sampled <i> <rate> <samples>", v, ll);
	snprintf(rate, sizeof(rate), "%.*s", (int)(n - r - 1), r + 1);
	if (!number(rate, &x) || x < 0 || !number(n + 1, &y) || y < -1)
		return bad(e, lineno, "sampled <i> <rate> <samples>", v, ll);
	if (k->nr_sampled >= KERNEL_MAX_REPS)
		return bad(e, lineno, "at most 64 repetitions", v, ll);
	k->sampled[k->nr_sampled] = x;
	k->samples[k->nr_sampled++] = y;
	return 0;
}

/* One "key value..." line (NUL-terminated copy). */
static int line_of(struct kernel_output *k, char *l, int lineno, struct err *e)
{
	char *sp = strchr(l, ' ');
	if (!sp)
		return 0; /* a bare word: nothing we know */
	*sp = '\0';
	const char *v = sp + 1;
	double x;
	size_t ll = strlen(v);
	if (!strcmp(l, "kernel"))
		word(k->kernel, sizeof(k->kernel), v);
	else if (!strcmp(l, "isa"))
		word(k->isa, sizeof(k->isa), v);
	else if (!strcmp(l, "threads")) {
		if (!number(v, &x) || x < 1 || x > 1e6 || x != floor(x))
			return bad(e, lineno, "threads <n>", v, ll);
		k->threads = (int)x;
	} else if (!strcmp(l, "load")) {
		if (!number(v, &x))
			return bad(e, lineno, "load <loadavg|-1>", v, ll);
		k->load = x;
	} else if (!strcmp(l, "bytes")) {
		if (!number(v, &x) || x < 0)
			return bad(e, lineno, "bytes <n>", v, ll);
		k->bytes = x;
	} else if (!strcmp(l, "init_s")) {
		if (!number(v, &x) || x < 0)
			return bad(e, lineno, "init_s <seconds>", v, ll);
		k->init_s = x;
	} else if (!strcmp(l, "cpu_share")) {
		if (!number(v, &x) || x < 0)
			return bad(e, lineno, "cpu_share <fraction>", v, ll);
		k->cpu_share = x;
	} else if (!strcmp(l, "timing")) {
		k->cpu_timed = !strncmp(v, "cpu", 3);
	} else if (!strcmp(l, "work")) {
		if (!number(v, &x) || !(x > 0))
			return bad(e, lineno, "work <flop>", v, ll);
		k->work = x;
	} else if (!strcmp(l, "sampled")) {
		return sampled_line(k, v, lineno, e);
	} else if (!strcmp(l, "rep")) {
		const char *r = strchr(v, ' ');
		if (!r || !number(r + 1, &x) || x < 0)
			return bad(e, lineno, "rep <i> <rate>", v, ll);
		if (k->nr_reps >= KERNEL_MAX_REPS)
			return bad(e, lineno, "at most 64 repetitions", v, ll);
		k->reps[k->nr_reps++] = x;
	}
	return 0;
}

int kernel_output_parse(const char *text, size_t len, struct kernel_output *k, struct err *e)
{
	memset(k, 0, sizeof(*k));
	k->threads = -1;
	k->load = -1;
	k->init_s = NAN;
	k->cpu_share = NAN;
	k->work = NAN;
	int lineno = 0;
	for (size_t pos = 0; text && pos < len;) {
		const char *l = text + pos;
		const char *nl = memchr(l, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - l) : len - pos;
		pos += ll + 1;
		lineno++;
		if (memchr(l, '\0', ll))
			return bad(e, lineno, "text", "<NUL byte>", 10);
		char buf[256];
		if (ll >= sizeof(buf))
			return bad(e, lineno, "a line under 256 bytes", l, ll);
		memcpy(buf, l, ll);
		buf[ll] = '\0';
		int rc = line_of(k, buf, lineno, e);
		if (rc)
			return rc;
	}
	if (!k->kernel[0])
		return err_set(e, -EINVAL, ERR_CALIBRATION_OUTPUT,
			       "kernel output: no 'kernel <name>' line in %d line(s)", lineno);
	return 0;
}

void ceiling__release_strings(struct ceiling *c)
{
	xfree(c->name);
	xfree(c->unit);
	xfree(c->reason);
	c->name = c->unit = c->reason = NULL;
}

static char *add_reason(char *r, char *more)
{
	if (!more)
		return r;
	if (!r)
		return more;
	char *j = xasprintf("%s; %s", r, more);
	xfree(r);
	xfree(more);
	return j;
}

/* "1.16e+11 flop/s is 1.39x the theoretical peak 8.31e+10 flop/s (zen4: 2
 * threads x 2.60 GHz (cpu MHz, observed ...) x 16 FLOP/cycle), beyond the
 * 25% margin": both figures, and what would explain it. */
static char *above_theory(const struct pollution_ref *p, double mx)
{
	return xasprintf("far above the theoretical peak: %.3g flop/s is %.2fx the %.3g flop/s "
			 "of %s, beyond the %.0f%% margin (a clock above the one assumed, a wrong "
			 "table entry or a broken timing)",
			 mx, mx / p->theory, p->theory,
			 p->basis && *p->basis ? p->basis : "this microarchitecture",
			 100 * (CALIBRATION_THEORY_MARGIN - 1));
}

static char *pollution(const struct kernel_output *k, const struct pollution_ref *p,
		       double mx, double mn, bool fma)
{
	char *r = NULL;
	if (mx > 0 && (mx - mn) / mx > CALIBRATION_DISPERSION)
		r = add_reason(r, xasprintf("repetitions disperse by %.0f%%", 100 * (mx - mn) / mx));
	if (k->cpu_timed) {
		/* each thread's rate is its own (load does not stretch CPU time);
		 * their sum is the cores' together only if they did run together */
		if (!isnan(k->cpu_share) && k->cpu_share < CALIBRATION_CPU_SHARE)
			r = add_reason(r, xasprintf("concurrent load: the kernel's %d thread%s "
						    "obtained %.0f%% of their CPUs; each timed on its "
						    "own CPU time, summed as if the cores had run "
						    "together", k->threads, k->threads == 1 ? "" : "s",
						    100 * k->cpu_share));
	} else if (!isnan(k->cpu_share)) {
		if (k->cpu_share < CALIBRATION_CPU_SHARE)
			r = add_reason(r, xasprintf("concurrent load: the kernel's %d thread%s obtained "
						    "%.0f%% of their CPUs",
						    k->threads, k->threads == 1 ? "" : "s",
						    100 * k->cpu_share));
	} else if (k->load >= 0 && k->threads > 0 && k->load > 0.5 * k->threads) {
		r = add_reason(r, xasprintf("concurrent load %.2f on %d allocated cores", k->load,
					    k->threads));
	}
	if (fma && !strcmp(k->isa, "scalar"))
		r = add_reason(r, xstrdup("kernel built without SIMD: this is not the machine's peak"));
	if (fma && p && p->theory > 0 && !p->observed && mx > CALIBRATION_THEORY_MARGIN * p->theory)
		r = add_reason(r, above_theory(p, mx));
	if (!fma && p && p->llc_bytes > 0 && k->bytes > 0 && k->bytes < 4 * p->llc_bytes)
		r = add_reason(r, xasprintf("triad working set of %.0f MiB is below 4x the "
					    "last-level cache (%.0f MiB): caches may have served it",
					    k->bytes / 1048576, p->llc_bytes / 1048576));
	return r;
}

int calibration_ceiling(const struct kernel_output *k, const struct pollution_ref *p,
			struct ceiling *out)
{
	memset(out, 0, sizeof(*out));
	const char *name, *unit;
	bool fma = true;
	if (!strcmp(k->kernel, "triad")) {
		name = "dram_bandwidth";
		unit = "B/s";
		fma = false;
	} else if (!strcmp(k->kernel, "fma_dp")) {
		name = "flops_dp";
		unit = "flop/s";
	} else if (!strcmp(k->kernel, "fma_sp")) {
		name = "flops_sp";
		unit = "flop/s";
	} else {
		return -ENODATA;
	}
	double mx = 0, mn = INFINITY;
	for (int i = 0; i < k->nr_reps; i++) {
		mx = k->reps[i] > mx ? k->reps[i] : mx;
		mn = k->reps[i] < mn ? k->reps[i] : mn;
	}
	if (!(mx > 0))
		return -ENODATA;
	out->name = xstrdup(name);
	out->unit = xstrdup(unit);
	out->value = mx;
	out->reason = pollution(k, p, mx, mn, fma);
	out->quality = out->reason ? QUALITY_ESTIMATED : QUALITY_MEASURED;
	if (!out->name || !out->unit) {
		ceiling__release_strings(out);
		return -ENOMEM;
	}
	return 0;
}
