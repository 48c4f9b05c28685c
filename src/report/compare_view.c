// SPDX-License-Identifier: BSD-3-Clause
/* `nunatak compare` as terminal lines and as the --json document. */
#include "report/compare_view.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "report/compare_text.h"

#define NAME_MAX_COLS 40

static const char *fmt_value(char *buf, size_t len, double v, const char *unit)
{
	if (!isfinite(v))
		snprintf(buf, len, "unavailable");
	else if (strcmp(unit, "s") != 0)
		format_si(buf, len, v, unit);
	else if (v == 0 || v >= 100)
		snprintf(buf, len, "%.0f s", v);
	else if (v >= 1)
		snprintf(buf, len, "%.2f s", v);
	else if (v >= 1e-3)
		snprintf(buf, len, "%.1f ms", v * 1e3);
	else
		snprintf(buf, len, "%.0f us", v * 1e6);
	return buf;
}

static const char *fmt_interval(char *buf, size_t len, const struct compare_item *it)
{
	if (isnan(it->low))
		snprintf(buf, len, "unavailable");
	else if (isinf(it->high))
		snprintf(buf, len, "[%.2f, inf)", it->low);
	else
		snprintf(buf, len, "[%.2f, %.2f]", it->low, it->high);
	return buf;
}

static char *item_label(const struct compare_item *it)
{
	switch (it->kind) {
	case COMPARE_TOTAL:
		return xstrdup("total (every sampled Hotspot)");
	case COMPARE_OTHERS:
		return xasprintf("others (%zu Hotspot%s below the floor)", it->nr_members,
				 it->nr_members == 1 ? "" : "s");
	case COMPARE_HOTSPOT:
		return it->name && it->module && strcmp(it->name, it->module) &&
				       !strstr(it->name, "+0x")
			       ? xasprintf("%s (%s)", it->name, it->module)
			       : xstrdup(it->name ? it->name : "?");
	default:
		return xstrdup(it->name ? it->name : "?");
	}
}

static void row(struct text_lines *out, const struct compare_item *it, bool color, size_t w)
{
	char a[32], b[32], ratio[32], iv[48];
	char *name = item_label(it);
	/* escaped here: the line itself carries our colour codes */
	char *label = name ? text_escape_controls(name) : NULL;
	xfree(name);
	if (!label) {
		out->failed = true;
		return;
	}
	if (strlen(label) > w)
		strcpy(label + w - 3, "...");
	const char *v = compare_verdict(it);
	const char *on = "", *off = "";
	if (color && it->significant) {
		on = it->direction > 0 ? "\033[31m" : "\033[32m";
		off = "\033[0m";
	}
	if (isfinite(it->ratio))
		snprintf(ratio, sizeof(ratio), "%.2fx", it->ratio);
	else
		snprintf(ratio, sizeof(ratio), "-");
	text_lines__add_escaped(out, "  %-*s %10s %10s %7s  %-14s %s%s%s", (int)w, label,
			fmt_value(a, sizeof(a), it->a, it->unit), fmt_value(b, sizeof(b), it->b, it->unit),
			ratio, fmt_interval(iv, sizeof(iv), it), on, v, off);
	xfree(label);
}

static void header(const struct compare_result *r, const struct compare_input *in,
		   struct text_lines *out)
{
	for (int side = 0; side < 2; side++) {
		size_t from = side ? in->na : 0, n = side ? in->nb : in->na;
		text_lines__add(out, "%s: %zu Run%s", side ? "B (after)" : "A (before)", n,
				n > 1 ? "s" : "");
		for (size_t i = from; i < from + n; i++)
			text_lines__add(out, "  %-3s %s  (%s, %s)", in->runs[i].label,
					in->runs[i].dir, in->runs[i].m.name ? in->runs[i].m.name : "?",
					in->runs[i].m.created ? in->runs[i].m.created : "?");
	}
	text_lines__add(out, "time base %s: time = samples x period, mean per Run; B/A with its "
			     "%.0f%% interval; significant when the interval clears 1 by more than "
			     "%.0f%% (above %.2f or below %.3f)",
			r->time_base ? r->time_base : "?", 100 * r->confidence, 100 * r->threshold,
			1 + r->threshold, 1 / (1 + r->threshold));
}

/* Lines are many: the terminal shows the first few, --json has them all. */
#define TABLE_MAX_LINES 10

static void section(const struct compare_result *r, enum compare_kind kind, const char *title,
		    bool color, struct text_lines *out)
{
	size_t w = 24, n = 0, shown = 0;
	for (size_t i = 0; i < r->nr_items; i++) {
		const struct compare_item *it = &r->items[i];
		bool in = it->kind == kind || (kind == COMPARE_HOTSPOT && (it->kind == COMPARE_OTHERS ||
									   it->kind == COMPARE_TOTAL));
		char *l = in ? item_label(it) : NULL;
		if (l && strlen(l) > w)
			w = strlen(l) < NAME_MAX_COLS ? strlen(l) : NAME_MAX_COLS;
		xfree(l);
		n += it->kind == kind;
	}
	if (!n)
		return;
	text_lines__add(out, "%s", "");
	text_lines__add(out, "%s", title);
	text_lines__add(out, "  %-*s %10s %10s %7s  %-14s %s", (int)w, "", "A", "B", "B/A",
			"interval", "verdict");
	for (size_t i = 0; i < r->nr_items; i++)
		if (r->items[i].kind == kind && (kind != COMPARE_LINE || shown++ < TABLE_MAX_LINES))
			row(out, &r->items[i], color, w);
	if (kind == COMPARE_LINE && n > TABLE_MAX_LINES)
		text_lines__add(out, "  ... and %zu more line%s (--json lists them all)",
				n - TABLE_MAX_LINES, n - TABLE_MAX_LINES == 1 ? "" : "s");
	if (kind != COMPARE_HOTSPOT)
		return;
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < r->nr_items; i++)
			if (r->items[i].kind == (k ? COMPARE_TOTAL : COMPARE_OTHERS))
				row(out, &r->items[i], color, w);
}

/* One line per interval basis in use, with its Quality and reason. */
static void bases(const struct compare_result *r, struct text_lines *out)
{
	bool seen[COMPARE_BASIS_POOLED_POISSON + 1] = {false};
	for (size_t i = 0; i < r->nr_items; i++) {
		const struct compare_item *it = &r->items[i];
		if (seen[it->basis] || it->basis == COMPARE_BASIS_NONE)
			continue;
		seen[it->basis] = true;
		const char *why = compare_interval_reason(it);
		text_lines__add(out, "interval: %s; %s%s%s", compare_basis_text(it->basis),
				quality__name(it->interval_quality), why ? ": " : "", why ? why : "");
	}
}

int compare_render_table(const struct compare_result *r, const struct compare_input *in,
			 bool color, double fail_pct, struct text_lines *out)
{
	header(r, in, out);
	for (size_t i = 0; i < r->nr_notes; i++) {
		const struct compare_note *n = &r->notes[i];
		char *t = compare_note_text(n, in);
		text_lines__add(out, "%s: %s", n->refusal && !n->forced ? "refused" : "flag",
				t ? t : "out of memory");
		xfree(t);
	}
	if (r->refused)
		return out->failed ? -1 : 0;
	section(r, COMPARE_HOTSPOT, "Hotspots (module basename + function), by significance:",
		color, out);
	section(r, COMPARE_REGION, "Regions (by call path, inclusive time over every Locus):",
		color, out);
	section(r, COMPARE_RANK, "Ranks (by number):", color, out);
	section(r, COMPARE_LINE, "Lines (innermost inline frame; modules of the same build on "
		"both sides), by significance:", color, out);
	text_lines__add(out, "%s", "");
	bases(r, out);
	if (isfinite(fail_pct)) {
		size_t n = compare_regressions(r, fail_pct);
		text_lines__add(out, "regression gate (--fail-on-regression %g): %zu item%s "
				     "significantly slower by more than %g%%", fail_pct, n,
				n == 1 ? "" : "s", fail_pct);
	}
	return out->failed ? -1 : 0;
}
