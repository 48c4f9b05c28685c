// SPDX-License-Identifier: BSD-3-Clause
#include "report/compare_view.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "report/html.h"
#include "common/err_codes.h"
#include "common/fsutil.h"
#include "store/pivot_db.h"

static double sampling_hz(const struct manifest *m)
{
	json_t *v = json_object_get(m->provenance.effective_configuration, "sampling.frequency");
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static int load_one(struct compare_side_run *s, struct compare_run *cr, const char *dir,
		    struct err *e)
{
	manifest__init(&s->m);
	pivot__init(&s->p);
	s->dir = xstrdup(dir);
	char *db = fs_join(dir, PIVOT_DB_FILE);
	int rc = s->dir && db ? manifest__read(&s->m, dir, e)
			      : err_oom(e);
	if (rc == 0)
		rc = pivot_db_read(&s->p, db, e);
	xfree(db);
	if (rc == 0 && machine_identity(&s->m.machine, s->identity) < 0)
		rc = err_oom(e);
	if (rc < 0 && !strstr(e->msg, dir))
		err_prefix(e, "%s", dir);
	*cr = (struct compare_run){s->identity, s->m.world_size, sampling_hz(&s->m), &s->p};
	return rc;
}

int compare_input__load(struct compare_input *in, const char *const *a, size_t na,
			const char *const *b, size_t nb, struct err *e)
{
	memset(in, 0, sizeof(*in));
	in->runs = xcalloc(na + nb, sizeof(*in->runs));
	in->cr = xcalloc(na + nb, sizeof(*in->cr));
	if (!in->runs || !in->cr)
		return err_oom(e);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < na + nb; i++) {
		bool side_a = i < na;
		size_t k = side_a ? i : i - na, n = side_a ? na : nb;
		struct compare_side_run *s = &in->runs[i];
		if (n > 1)
			snprintf(s->label, sizeof(s->label), "%c%zu", side_a ? 'A' : 'B', k + 1);
		else
			snprintf(s->label, sizeof(s->label), "%c", side_a ? 'A' : 'B');
		if (side_a)
			in->na++;
		else
			in->nb++;
		rc = load_one(s, &in->cr[i], side_a ? a[k] : b[k], e);
	}
	return rc;
}

void compare_input__release(struct compare_input *in)
{
	for (size_t i = 0; in->runs && i < in->na + in->nb; i++) {
		xfree(in->runs[i].dir);
		manifest__release(&in->runs[i].m);
		pivot__release(&in->runs[i].p);
	}
	xfree(in->runs);
	xfree(in->cr);
	memset(in, 0, sizeof(*in));
}

int compare_html_write(const json_t *doc, const char *path, struct err *e)
{
	static const struct html_page page = {
		.title = "nunatak compare",
		.noscript = "This comparison is drawn by JavaScript, which is disabled. Its data is "
			    "the JSON in the element with id \"nunatak-payload\" of this file (the "
			    "same document `nunatak compare --json` prints).",
		.js = compare_app_js,
		.css = compare_app_css,
	};
	char *html = html_page_render(&page, doc, e);
	if (!html)
		return e && e->errnum ? e->errnum : -ENOMEM;
	int rc = fs_write_atomic(path, html, strlen(html), e);
	xfree(html);
	return rc;
}
