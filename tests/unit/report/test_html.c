// SPDX-License-Identifier: BSD-3-Clause
#include "harness.h"

#include <errno.h>
#include <jansson.h>
#include <sys/stat.h>

#include "common/alloc.h"
#include "common/err.h"
#include "report/html.h"

#define OPEN_TAG "<script type=\"application/json\" id=\"nunatak-payload\">"

/* A payload whose strings try every way out of a <script> element. */
static const char hostile_text[] = "x = 1; </script><script>alert(1)</script> <!-- <script> "
				   "</SCRIPT > & \xe2\x80\xa8 \xe2\x80\xa9 end";

static json_t *payload(void)
{
	json_t *p = json_pack(
		"{s:s, s:i, s:{s:s}, s:[], s:[{s:s, s:[{s:s, s:i, s:i, s:s, s:b, s:n}], "
		"s:[{s:i, s:f}]}]}",
		"name", "nunatak-report", "schema", 5, "run", "name", "</script>run", "degradations",
		"hotspots", "name", "f</script>", "source", "file", "a.c", "start_line", 1,
		"end_line", 2, "text", hostile_text, "truncated", 0, "reason", "lines", "line", 1,
		"share", 0.75);
	CHECK(p);
	return p;
}

/* The JSON text between the payload element's open tag and its end tag. */
static json_t *embedded(const char *page)
{
	const char *open = strstr(page, OPEN_TAG);
	CHECK(open);
	open += strlen(OPEN_TAG);
	const char *close = strstr(open, "</script>");
	CHECK(close);
	json_error_t je;
	json_t *j = json_loadb(open, (size_t)(close - open), 0, &je);
	if (!j)
		fprintf(stderr, "embedded payload: %s at %d\n", je.text, je.position);
	CHECK(j);
	return j;
}

/* hotspots[0].source[0] */
static json_t *source0(json_t *payload)
{
	json_t *h = json_array_get(json_object_get(payload, "hotspots"), 0);
	return json_array_get(json_object_get(h, "source"), 0);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *s = hay; (s = strcasestr(s, needle)); s++)
		n++;
	return n;
}

static void t_escape(void)
{
	json_t *p = payload();
	struct err e = {0};
	char *page = report_html_render(p, false, &e);
	CHECK(page);
	/* Exactly two script elements end: the payload's and the app's. */
	CHECK_INT(count(page, "</script"), 2);
	CHECK_INT(count(page, "<script"), 2);
	CHECK(!strstr(page, "<!--"));
	CHECK(!strstr(page, "\xe2\x80\xa8") && !strstr(page, "\xe2\x80\xa9"));
	json_t *back = embedded(page);
	CHECK(json_equal(back, p)); /* every character survived the escaping */
	CHECK_STR(json_string_value(json_object_get(source0(back), "text")), hostile_text);
	json_decref(back);
	xfree(page);
	json_decref(p);
}

static void t_no_request(void)
{
	json_t *p = payload();
	struct err e = {0};
	char *page = report_html_render(p, false, &e);
	CHECK(page);
	CHECK(!strcasestr(page, "http://"));
	CHECK(!strcasestr(page, "https://"));
	CHECK(!strcasestr(page, "src="));
	CHECK(!strcasestr(page, "href="));
	CHECK(!strcasestr(page, "@import"));
	CHECK(!strcasestr(page, "<link"));
	for (const char *u = page; (u = strcasestr(u, "url(")); u++)
		CHECK(u[4] == '#'); /* only references to the page's own elements */
	CHECK(strstr(page, "Content-Security-Policy"));
	CHECK(strstr(page, "default-src 'none'"));
	/* The app is inlined, not referenced. */
	CHECK(report_app_js_len > 1000 && report_app_css_len > 500);
	CHECK(strstr(page, "nunatak-payload"));
	CHECK(strstr(page, ".q-estimated"));
	CHECK(strstr(page, "unavailable"));
	xfree(page);
	json_decref(p);
}

static void t_no_source(void)
{
	json_t *p = payload();
	struct err e = {0};
	char *page = report_html_render(p, true, &e);
	CHECK(page);
	CHECK(!strstr(page, "alert(1)"));
	json_t *back = embedded(page);
	json_t *h = json_array_get(json_object_get(back, "hotspots"), 0);
	json_t *x = json_array_get(json_object_get(h, "source"), 0);
	CHECK(json_is_null(json_object_get(x, "text")));
	CHECK_STR(json_string_value(json_object_get(x, "reason")), REPORT_HTML_NO_SOURCE_REASON);
	CHECK_INT(json_integer_value(json_object_get(x, "start_line")), 1);
	CHECK_NEAR(json_real_value(json_object_get(json_array_get(json_object_get(h, "lines"), 0),
						   "share")),
		   0.75, 1e-12);
	/* The caller's payload is untouched. */
	CHECK_STR(json_string_value(json_object_get(source0(p), "text")), hostile_text);
	json_decref(back);
	xfree(page);
	json_decref(p);
}

static void t_write(void)
{
	char dir[] = "/tmp/test_html.XXXXXX";
	CHECK(mkdtemp(dir));
	char *path = xasprintf("%s/report.html", dir);
	json_t *p = payload();
	struct err e = {0};
	CHECK_INT(report_html_write(p, path, false, &e), 0);
	FILE *f = fopen(path, "r");
	CHECK(f);
	static char got[1 << 20];
	size_t n = fread(got, 1, sizeof(got) - 1, f);
	fclose(f);
	got[n] = '\0';
	char *want = report_html_render(p, false, &e);
	CHECK(want);
	CHECK_STR(got, want);
	xfree(want);
	/* A directory that does not exist: an error, no file, no temp left. */
	char *bad = xasprintf("%s/missing/report.html", dir);
	struct err e2 = {0};
	CHECK(report_html_write(p, bad, false, &e2) < 0);
	CHECK(e2.msg[0] != '\0');
	struct stat st;
	CHECK(stat(bad, &st) != 0);
	/* Not an object: refused with a reason. */
	struct err e3 = {0};
	json_t *arr = json_array();
	CHECK(report_html_write(arr, path, false, &e3) < 0);
	CHECK_STR(e3.code, "report.html");
	json_decref(arr);
	remove(path);
	rmdir(dir);
	xfree(bad);
	xfree(path);
	json_decref(p);
}

static const struct test_case cases[] = {
	{"escape", "a payload holding </script>, <!--, U+2028 cannot break out and round-trips", t_escape},
	{"no_request", "the page names no URL and loads nothing: CSS and JS are inlined", t_no_request},
	{"no_source", "--no-source strips source text before rendering, keeps lines", t_no_source},
	{"write", "atomic write; errors name the failure and leave no file", t_write},
};
TEST_MAIN(cases)
