// SPDX-License-Identifier: BSD-3-Clause
#include "report/html.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "common/sha256.h"
#include "report/report_run.h"
#include "common/fsutil.h"

static const char page_head[] =
	"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	"<meta http-equiv=\"Content-Security-Policy\" content=\"" REPORT_HTML_CSP_BEFORE_SCRIPT;
static const char page_head_end[] =
	REPORT_HTML_CSP_AFTER_SCRIPT "\">\n"
	"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	"<meta name=\"generator\" content=\"nunatak\">\n<title>";
static const char page_style[] = "</title>\n<style>\n";
static const char page_body[] = "</style>\n</head>\n<body>\n<noscript><p class=\"noscript\">";
static const char page_app[] =
	"</p></noscript>\n<div id=\"app\" aria-live=\"polite\"></div>\n"
	"<script type=\"application/json\" id=\"nunatak-payload\">";
static const char page_script[] = "</script>\n<script>\n";
static const char page_tail[] = "</script>\n</body>\n</html>\n";

static const struct html_page report_page = {
	.title = "nunatak report",
	.noscript = "This report is drawn by JavaScript, which is disabled. Its data is the JSON "
		    "in the element with id \"nunatak-payload\" of this file (the same document "
		    "`nunatak report --json` prints).",
	.js = report_app_js,
	.css = report_app_css,
};

json_t *report_payload_strip_source(const json_t *payload)
{
	json_t *copy = json_deep_copy(payload);
	if (!copy)
		return NULL;
	size_t i, j;
	json_t *h, *x;
	json_array_foreach(json_object_get(copy, "hotspots"), i, h)
	{
		json_array_foreach(json_object_get(h, "source"), j, x)
		{
			if (!json_is_object(x))
				continue;
			if (json_object_set_new(x, "text", json_null()) ||
			    json_object_set_new(x, "reason",
						json_string(REPORT_HTML_NO_SOURCE_REASON))) {
				json_decref(copy);
				return NULL;
			}
		}
	}
	return copy;
}

struct buf {
	char *p;
	size_t n, cap;
	bool failed;
};

static void buf__put(struct buf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (xgrow((void **)&b->p, &b->cap, b->n + n + 1, 1) < 0) {
		b->failed = true;
		return;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void buf__puts(struct buf *b, const char *s)
{
	buf__put(b, s, strlen(s));
}

/* JSON text into a <script> element. '<', '>' and '&' appear in JSON text
 * only inside strings, where "\u003c" means the same character; likewise the
 * two line terminators JavaScript once refused inside string literals. */
static void buf__put_json(struct buf *b, const char *json)
{
	const char *run = json;
	for (const char *s = json; *s; s++) {
		const char *esc = NULL;
		size_t skip = 1;
		if (*s == '<')
			esc = "\\u003c";
		else if (*s == '>')
			esc = "\\u003e";
		else if (*s == '&')
			esc = "\\u0026";
		else if ((unsigned char)s[0] == 0xE2 && (unsigned char)s[1] == 0x80 &&
			 ((unsigned char)s[2] == 0xA8 || (unsigned char)s[2] == 0xA9)) {
			esc = (unsigned char)s[2] == 0xA8 ? "\\u2028" : "\\u2029";
			skip = 3;
		}
		if (!esc)
			continue;
		buf__put(b, run, (size_t)(s - run));
		buf__puts(b, esc);
		s += skip - 1;
		run = s + 1;
	}
	buf__puts(b, run);
}

/* 'sha256-<base64>' of the page's one script element's text: what page_script
 * and page_tail put around pg->js. */
static void script_hash_source(const char *js, char out[64])
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	struct sha256 h;
	uint8_t d[SHA256_DIGEST_SIZE];
	sha256__init(&h);
	sha256__update(&h, "\n", 1);
	sha256__update(&h, js, strlen(js));
	sha256__final(&h, d);
	size_t k = 0;
	k += (size_t)snprintf(out, 64, "'sha256-");
	for (size_t i = 0; i < SHA256_DIGEST_SIZE; i += 3) {
		uint32_t v = (uint32_t)d[i] << 16 |
			     (i + 1 < SHA256_DIGEST_SIZE ? (uint32_t)d[i + 1] << 8 : 0) |
			     (i + 2 < SHA256_DIGEST_SIZE ? d[i + 2] : 0);
		out[k++] = b64[v >> 18 & 63];
		out[k++] = b64[v >> 12 & 63];
		out[k++] = i + 1 < SHA256_DIGEST_SIZE ? b64[v >> 6 & 63] : '=';
		out[k++] = i + 2 < SHA256_DIGEST_SIZE ? b64[v & 63] : '=';
	}
	out[k++] = '\'';
	out[k] = '\0';
}

char *html_page_render(const struct html_page *pg, const json_t *payload, struct err *e)
{
	if (!json_is_object(payload)) {
		err_set(e, -EINVAL, ERR_REPORT_HTML, "the page's payload is not a JSON object");
		return NULL;
	}
	char *json = json_dumps(payload, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (!json) {
		err_set(e, -ENOMEM, ERR_OOM, "out of memory serialising the page's payload");
		return NULL;
	}
	struct buf b = {0};
	char hash[64];
	script_hash_source(pg->js, hash);
	buf__puts(&b, page_head);
	buf__puts(&b, hash);
	buf__puts(&b, page_head_end);
	buf__puts(&b, pg->title);
	buf__puts(&b, page_style);
	buf__puts(&b, pg->css);
	buf__puts(&b, page_body);
	buf__puts(&b, pg->noscript);
	buf__puts(&b, page_app);
	buf__put_json(&b, json);
	buf__puts(&b, page_script);
	buf__puts(&b, pg->js);
	buf__puts(&b, page_tail);
	free(json); /* jansson's allocator */
	if (b.failed) {
		xfree(b.p);
		err_set(e, -ENOMEM, ERR_OOM, "out of memory rendering the page");
		return NULL;
	}
	return b.p;
}

char *report_html_render(const json_t *payload, bool no_source, struct err *e)
{
	if (!json_is_object(payload)) {
		err_set(e, -EINVAL, ERR_REPORT_HTML, "the report payload is not a JSON object");
		return NULL;
	}
	json_t *stripped = no_source ? report_payload_strip_source(payload) : NULL;
	if (no_source && !stripped) {
		err_oom(e);
		return NULL;
	}
	char *page = html_page_render(&report_page, stripped ? stripped : payload, e);
	json_decref(stripped);
	return page;
}

int report_html_write(const json_t *payload, const char *path, bool no_source, struct err *e)
{
	char *page = report_html_render(payload, no_source, e);
	if (!page)
		return e && e->errnum ? e->errnum : -ENOMEM;
	int rc = fs_write_atomic(path, page, strlen(page), e);
	xfree(page);
	return rc;
}

int report_html_write_run(const char *run_dir, bool no_source, char **path_out, struct err *e)
{
	if (path_out)
		*path_out = NULL;
	struct report_out out = {0};
	int rc = report_run(run_dir, no_source, &out, e);
	if (rc < 0)
		return rc;
	char *path =
		fs_join(run_dir, no_source ? REPORT_HTML_NO_SOURCE_FILE : REPORT_HTML_FILE);
	if (!path)
		rc = err_oom(e);
	else
		rc = report_html_write(out.payload, path, no_source, e);
	report_out__release(&out);
	if (rc == 0 && path_out)
		*path_out = path;
	else
		xfree(path);
	return rc;
}
