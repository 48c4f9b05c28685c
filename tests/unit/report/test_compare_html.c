// SPDX-License-Identifier: BSD-3-Clause
/* report-compare.html: the same inertness rules as report.html (one CSP, no
 * URL, the document survives any text inside its strings). */
#include "harness.h"

#define TMPDIR_TAG "compare-html"
#include "tmpdir.h"

#include <jansson.h>

#include "common/alloc.h"
#include "common/err.h"
#include "report/compare_view.h"

#define OPEN_TAG "<script type=\"application/json\" id=\"nunatak-payload\">"

static const char hostile[] = "f</script><script>alert(1)</script><!-- & \xe2\x80\xa8";

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	CHECK(f);
	char *buf = xcalloc(1 << 20, 1);
	size_t n = fread(buf, 1, (1 << 20) - 1, f);
	fclose(f);
	CHECK(n > 0);
	return buf;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *s = hay; (s = strcasestr(s, needle)); s++)
		n++;
	return n;
}

static void t_inert(void)
{
	json_t *doc = json_pack("{s:{s:s, s:i}, s:b, s:[{s:s, s:s}]}", "format", "name",
				COMPARE_FORMAT_NAME, "schema", COMPARE_SCHEMA, "comparable", 1,
				"hotspots", "name", hostile, "verdict", "slower");
	CHECK(doc);
	char *dir = tmpdir();
	char *path = xasprintf("%s/%s", dir, COMPARE_HTML_FILE);
	struct err e = {0};
	CHECK_INT(compare_html_write(doc, path, &e), 0);
	char *page = slurp(path);
	CHECK_INT(count(page, "</script"), 2);
	CHECK_INT(count(page, "<script"), 2);
	CHECK(!strstr(page, "<!--") && !strstr(page, "\xe2\x80\xa8"));
	CHECK(strstr(page, "default-src 'none'"));
	CHECK(!strcasestr(page, "http://") && !strcasestr(page, "https://"));
	CHECK(!strcasestr(page, "src=") && !strcasestr(page, "href=") && !strcasestr(page, "<link"));
	CHECK(strstr(page, "<title>nunatak compare</title>"));
	CHECK(compare_app_js_len > 1000 && strstr(page, "readCompare"));
	const char *open = strstr(page, OPEN_TAG);
	CHECK(open);
	open += strlen(OPEN_TAG);
	json_error_t je;
	json_t *back = json_loadb(open, (size_t)(strstr(open, "</script>") - open), 0, &je);
	CHECK(back && json_equal(back, doc));
	json_decref(back);
	/* Not an object: refused with a message, nothing written. */
	json_t *arr = json_array();
	char *bad = xasprintf("%s/bad.html", dir);
	CHECK(compare_html_write(arr, bad, &e) < 0 && e.msg[0]);
	CHECK(access(bad, F_OK) != 0);
	json_decref(arr);
	xfree(bad);
	xfree(page);
	xfree(path);
	free(dir);
	json_decref(doc);
	done();
}

static const struct test_case cases[] = {
	{"inert", "the page holds the document intact and requests nothing", t_inert},
};
TEST_MAIN(cases)
