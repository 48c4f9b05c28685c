/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The self-contained HTML report (REFERENCE.md §7 "HTML"): one page with the
 * report-app/ CSS and JavaScript inlined (embedded into the binary at build
 * time by report-app/embed.cmake) and the report payload in
 * <script type="application/json" id="nunatak-payload">. The page makes no
 * request of any kind: a Content-Security-Policy of default-src 'none' says
 * so to the browser, and the assets hold no URL.
 *
 * The payload is serialised with every '<', '>', '&', U+2028 and U+2029
 * written as a \uXXXX escape. Those characters only ever occur inside JSON
 * strings, where the escape is equivalent, so no payload text (a source
 * line holding "</script>", say) can end the element or open a comment.
 */
#ifndef NUNATAK_REPORT_HTML_H
#define NUNATAK_REPORT_HTML_H

#include <stdbool.h>
#include <stddef.h>

struct err;
typedef struct json_t json_t;

/* The browser enforces "no request of any kind": nothing may be fetched,
 * framed, submitted or connected to; only the inlined style and script run.
 * Every page nunatak writes carries it (report, compare, regions plot). The
 * report and compare pages allow their one script by its SHA-256
 * (html_page_render), so a script a name might smuggle in never runs even if
 * escaping failed; the regions plot, streamed with its data inside its
 * script, allows inline script. */
#define REPORT_HTML_CSP_BEFORE_SCRIPT                                                \
	"default-src 'none'; style-src 'unsafe-inline'; script-src "
#define REPORT_HTML_CSP_AFTER_SCRIPT "; img-src data:; base-uri 'none'; form-action 'none'"
#define REPORT_HTML_CSP                                                              \
	REPORT_HTML_CSP_BEFORE_SCRIPT "'unsafe-inline'" REPORT_HTML_CSP_AFTER_SCRIPT

#define REPORT_HTML_FILE "report.html"
#define REPORT_HTML_NO_SOURCE_FILE "report-no-source.html"
#define REPORT_HTML_NO_SOURCE_REASON "source text withheld by --no-source"

/* The embedded assets (generated report_app_assets.c); NUL-terminated. */
extern const char report_app_js[];
extern const size_t report_app_js_len;
extern const char report_app_css[];
extern const size_t report_app_css_len;

/* A self-contained page: this head (the CSP above), the inlined CSS, a
 * <noscript> text, the payload as JSON in <script type="application/json"
 * id="nunatak-payload"> (escaped as above), then the inlined JavaScript.
 * The strings are NUL-terminated and borrowed. */
struct html_page {
	const char *title;    /* plain text, no markup */
	const char *noscript; /* plain text, no markup */
	const char *js;
	const char *css;
};

/* The page as one NUL-terminated string (caller frees with xfree), or NULL
 * with e filled ("report.html" when payload is not an object, "oom"). */
char *html_page_render(const struct html_page *pg, const json_t *payload, struct err *e);

/* A deep copy of payload with every hotspots[].source[].text set to null
 * and its reason to REPORT_HTML_NO_SOURCE_REASON; lines, inline frames and
 * every distribution are kept. New reference, NULL when out of memory. */
json_t *report_payload_strip_source(const json_t *payload);

/* The page as one NUL-terminated string (caller frees with xfree), or NULL
 * with e filled. no_source strips the payload first (see above). */
char *report_html_render(const json_t *payload, bool no_source, struct err *e);

/* Renders the page and replaces path atomically (temp + rename). Returns 0
 * or a negative errno with e filled ("report.html", "store.write"). */
int report_html_write(const json_t *payload, const char *path, bool no_source, struct err *e);

/* Re-reads the Run at run_dir (report_run), writes <run_dir>/report.html, or
 * report-no-source.html when no_source. *path_out (may be NULL) receives the
 * written path (caller frees). Returns 0 or a negative errno with e filled. */
int report_html_write_run(const char *run_dir, bool no_source, char **path_out, struct err *e);

#endif
