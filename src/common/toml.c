// SPDX-License-Identifier: BSD-3-Clause
#include "common/toml.h"

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"

#define TOML_MAX_DEPTH 32
#define TOML_MAX_KEY_PARTS 16

struct tp {
	const char *p, *end;
	const char *file;
	int line;
	const char *line_start;
	json_t *root, *cur;
	struct err *e;
	char **defined; /* header-defined table paths, "\x1f"-joined */
	size_t nr_defined, cap_defined;
	int depth;
};

/* What is at p, for "found ..." in messages. */
static void describe(const struct tp *t, const char *p, char *buf, size_t n)
{
	if (p >= t->end)
		snprintf(buf, n, "end of file");
	else if (*p == '\n' || (*p == '\r' && p + 1 < t->end && p[1] == '\n'))
		snprintf(buf, n, "end of line");
	else if (*p == '\0')
		snprintf(buf, n, "a NUL byte");
	else if ((unsigned char)*p < 0x20 || *p == 0x7f)
		snprintf(buf, n, "control character 0x%02x", (unsigned char)*p);
	else if ((unsigned char)*p >= 0x80)
		snprintf(buf, n, "byte 0x%02x", (unsigned char)*p);
	else
		snprintf(buf, n, "'%c'", *p);
}

static int fail_at(struct tp *t, const char *at, const char *code, const char *expected)
{
	char found[48];
	describe(t, at, found, sizeof(found));
	return err_set(t->e, -EINVAL, code, "%s:%d:%d: expected %s, found %s", t->file, t->line,
		       (int)(at - t->line_start) + 1, expected, found);
}

static int fail_msg(struct tp *t, const char *at, const char *code, const char *msg,
		    const char *what)
{
	return err_set(t->e, -EINVAL, code, "%s:%d:%d: %s%s", t->file, t->line,
		       (int)(at - t->line_start) + 1, msg, what ? what : "");
}

static int oom(struct tp *t)
{
	return err_set(t->e, -ENOMEM, ERR_OOM, "%s: out of memory", t->file);
}

static bool at_eof(const struct tp *t)
{
	return t->p >= t->end;
}

static void skip_ws(struct tp *t)
{
	while (t->p < t->end && (*t->p == ' ' || *t->p == '\t'))
		t->p++;
}

static bool at_newline(const struct tp *t)
{
	return t->p < t->end &&
	       (*t->p == '\n' || (*t->p == '\r' && t->p + 1 < t->end && t->p[1] == '\n'));
}

static void eat_newline(struct tp *t)
{
	t->p += *t->p == '\r' ? 2 : 1;
	t->line++;
	t->line_start = t->p;
}

/* Skips a comment to the end of the line; control characters other than tab are invalid. */
static int skip_comment(struct tp *t)
{
	if (t->p >= t->end || *t->p != '#')
		return 0;
	for (t->p++; t->p < t->end && !at_newline(t); t->p++) {
		unsigned char c = (unsigned char)*t->p;
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return fail_at(t, t->p, ERR_TOML_SYNTAX, "a comment character");
	}
	return 0;
}

/* Whitespace, newlines and comments (inside arrays). */
static int skip_ws_nl(struct tp *t)
{
	for (;;) {
		skip_ws(t);
		if (skip_comment(t) < 0)
			return -EINVAL;
		if (!at_newline(t))
			return 0;
		eat_newline(t);
	}
}

static int expect_eol(struct tp *t)
{
	skip_ws(t);
	if (skip_comment(t) < 0)
		return -EINVAL;
	if (at_eof(t))
		return 0;
	if (!at_newline(t))
		return fail_at(t, t->p, ERR_TOML_SYNTAX, "end of line");
	eat_newline(t);
	return 0;
}

/* --- strings ---------------------------------------------------------- */

struct sbuf {
	char *p;
	size_t len, cap;
};

static int sbuf_put(struct sbuf *b, const char *s, size_t n)
{
	if (xgrow((void **)&b->p, &b->cap, b->len + n + 1, 1) < 0)
		return -ENOMEM;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

static int put_utf8(struct sbuf *b, uint32_t cp)
{
	char u[4];
	size_t n;
	if (cp < 0x80) {
		u[0] = (char)cp, n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xC0 | (cp >> 6)), u[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xE0 | (cp >> 12)), u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		u[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
	} else {
		u[0] = (char)(0xF0 | (cp >> 18)), u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), u[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
	}
	return sbuf_put(b, u, n);
}

static int parse_unicode_escape(struct tp *t, int digits, struct sbuf *b)
{
	uint32_t cp = 0;
	const char *start = t->p - 2;
	for (int i = 0; i < digits; i++, t->p++) {
		char c = t->p < t->end ? *t->p : 0;
		int v = c >= '0' && c <= '9' ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (v < 0)
			return fail_at(t, t->p, ERR_TOML_SYNTAX, "a hexadecimal digit");
		cp = cp * 16 + (uint32_t)v;
	}
	if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return fail_msg(t, start, ERR_TOML_SYNTAX, "escape is not a valid (non-NUL) Unicode "
			"scalar value", NULL);
	return put_utf8(b, cp) < 0 ? oom(t) : 0;
}

static int parse_escape(struct tp *t, struct sbuf *b)
{
	static const char from[] = "btnfr\"\\", to[] = "\b\t\n\f\r\"\\";
	t->p++; /* the backslash */
	if (at_eof(t))
		return fail_at(t, t->p, ERR_TOML_SYNTAX, "an escape character");
	char c = *t->p++;
	const char *k = strchr(from, c);
	if (c && k)
		return sbuf_put(b, &to[k - from], 1) < 0 ? oom(t) : 0;
	if (c == 'u' || c == 'U')
		return parse_unicode_escape(t, c == 'u' ? 4 : 8, b);
	return fail_at(t, t->p - 1, ERR_TOML_SYNTAX, "an escape (\\b \\t \\n \\f \\r \\\" \\\\ \\u \\U)");
}

/* A "basic" or 'literal' single-line string; the result is in *out (caller frees). */
static int parse_string(struct tp *t, char **out, size_t *out_len)
{
	char q = *t->p;
	struct sbuf b = {0};
	if (t->end - t->p >= 3 && t->p[1] == q && t->p[2] == q)
		return fail_msg(t, t->p, ERR_TOML_SYNTAX, "multi-line strings are not supported", NULL);
	t->p++;
	if (sbuf_put(&b, "", 0) < 0)
		return oom(t);
	while (t->p < t->end && *t->p != q) {
		unsigned char c = (unsigned char)*t->p;
		int rc = 0;
		if (c == '\\' && q == '"') {
			rc = parse_escape(t, &b);
		} else if ((c < 0x20 && c != '\t') || c == 0x7f) {
			rc = fail_at(t, t->p, ERR_TOML_SYNTAX, q == '"' ? "'\"'" : "\"'\"");
		} else {
			rc = sbuf_put(&b, t->p, 1) < 0 ? oom(t) : 0;
			t->p++;
		}
		if (rc < 0) {
			xfree(b.p);
			return rc;
		}
	}
	if (at_eof(t)) {
		xfree(b.p);
		return fail_at(t, t->p, ERR_TOML_SYNTAX, q == '"' ? "'\"'" : "\"'\"");
	}
	t->p++;
	*out = b.p;
	*out_len = b.len;
	return 0;
}

static json_t *make_string(struct tp *t, const char *at, const char *s, size_t n)
{
	json_t *j = json_stringn(s, n);
	if (!j)
		fail_msg(t, at, ERR_TOML_SYNTAX, "string is not valid UTF-8", NULL);
	return j;
}

/* --- keys ------------------------------------------------------------- */

static bool is_bare(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

struct key {
	char *part[TOML_MAX_KEY_PARTS];
	const char *at[TOML_MAX_KEY_PARTS];
	int n;
};

static void key_free(struct key *k)
{
	for (int i = 0; i < k->n; i++)
		xfree(k->part[i]);
	k->n = 0;
}

static int parse_key_part(struct tp *t, struct key *k)
{
	if (k->n == TOML_MAX_KEY_PARTS)
		return fail_msg(t, t->p, ERR_TOML_SYNTAX, "key has too many dotted parts", NULL);
	k->at[k->n] = t->p;
	if (t->p < t->end && (*t->p == '"' || *t->p == '\'')) {
		size_t len = 0;
		char *s = NULL;
		int rc = parse_string(t, &s, &len);
		if (rc < 0)
			return rc;
		if (strlen(s) != len) {
			xfree(s);
			return fail_msg(t, k->at[k->n], ERR_TOML_SYNTAX, "key contains a NUL", NULL);
		}
		k->part[k->n++] = s;
		return 0;
	}
	const char *s = t->p;
	while (t->p < t->end && is_bare(*t->p))
		t->p++;
	if (t->p == s)
		return fail_at(t, t->p, ERR_TOML_SYNTAX, "a key");
	if (!(k->part[k->n] = xstrndup(s, (size_t)(t->p - s))))
		return oom(t);
	k->n++;
	return 0;
}

static int parse_key(struct tp *t, struct key *k)
{
	k->n = 0;
	for (;;) {
		skip_ws(t);
		int rc = parse_key_part(t, k);
		if (rc < 0)
			return rc;
		skip_ws(t);
		if (t->p >= t->end || *t->p != '.')
			return 0;
		t->p++;
	}
}

/* Descends through k->part[0..upto), creating tables; a non-table in the way is a redefinition. */
static json_t *walk(struct tp *t, json_t *from, const struct key *k, int upto)
{
	for (int i = 0; i < upto; i++) {
		json_t *next = json_object_get(from, k->part[i]);
		if (!next) {
			next = json_object();
			if (!next || json_object_set_new(from, k->part[i], next) < 0) {
				oom(t);
				return NULL;
			}
		} else if (!json_is_object(next)) {
			fail_msg(t, k->at[i], ERR_TOML_DUPLICATE, "key is already defined as a value: ",
				 k->part[i]);
			return NULL;
		}
		from = next;
	}
	return from;
}

/* --- values ----------------------------------------------------------- */

static int parse_value(struct tp *t, json_t **out);

static bool is_digit_in(char c, int base)
{
	if (base == 16)
		return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
	return c >= '0' && c < '0' + (base < 10 ? base : 10);
}

/* A run "d(_?d)*" in `base`; returns the end, or NULL when empty or an
 * underscore is not between two digits. */
static const char *digit_run(const char *p, const char *end, int base)
{
	const char *s = p;
	while (p < end && is_digit_in(*p, base)) {
		p++;
		if (p + 1 < end && *p == '_' && is_digit_in(p[1], base))
			p++;
	}
	return p == s ? NULL : p;
}

/* Copies the token without underscores into buf (size >= n+1). */
static void strip_underscores(const char *s, size_t n, char *buf)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] != '_')
			buf[k++] = s[i];
	buf[k] = '\0';
}

static int make_integer(struct tp *t, const char *s, size_t n, int base, json_t **out)
{
	char buf[160];
	strip_underscores(s, n, buf);
	errno = 0;
	char *end = NULL;
	long long v = strtoll(buf, &end, base);
	if (errno == ERANGE)
		return fail_msg(t, s, ERR_TOML_SYNTAX, "integer does not fit in 64 bits", NULL);
	*out = json_integer((json_int_t)v);
	return *out ? 0 : oom(t);
}

static int parse_decimal(struct tp *t, const char *s, size_t n, json_t **out)
{
	const char *p = s, *end = s + n;
	bool is_float = false;
	if (*p == '+' || *p == '-')
		p++;
	const char *ip = p;
	if (!(p = digit_run(p, end, 10)))
		return fail_at(t, ip, ERR_TOML_SYNTAX, "a digit");
	if (p - ip > 1 && *ip == '0')
		return fail_msg(t, ip, ERR_TOML_SYNTAX, "leading zeros are not allowed", NULL);
	if (p < end && *p == '.') {
		is_float = true;
		const char *fp = ++p;
		if (!(p = digit_run(p, end, 10)))
			return fail_at(t, fp, ERR_TOML_SYNTAX, "a digit after '.'");
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		is_float = true;
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		const char *ep = p;
		if (!(p = digit_run(p, end, 10)))
			return fail_at(t, ep, ERR_TOML_SYNTAX, "a digit in the exponent");
	}
	if (p != end)
		return fail_at(t, p, ERR_TOML_SYNTAX, "a digit, '.', 'e' or the end of the number");
	if (!is_float)
		return make_integer(t, s, n, 10, out);
	char buf[160];
	strip_underscores(s, n, buf);
	errno = 0;
	double d = strtod(buf, NULL);
	if (errno == ERANGE && (d > 1.0 || d < -1.0))
		return fail_msg(t, s, ERR_TOML_SYNTAX, "float out of range", NULL);
	*out = json_real(d);
	return *out ? 0 : oom(t);
}

static int parse_radix(struct tp *t, const char *s, size_t n, json_t **out)
{
	int base = s[1] == 'x' ? 16 : s[1] == 'o' ? 8 : 2;
	const char *p = digit_run(s + 2, s + n, base);
	if (!p || p != s + n)
		return fail_at(t, p ? p : s + 2, ERR_TOML_SYNTAX,
			       base == 16 ? "a hexadecimal digit" : base == 8 ? "an octal digit"
									  : "a binary digit");
	/* strtoll wants no prefix for base 2/8 and tolerates one for 16. */
	return make_integer(t, s + 2, n - 2, base, out);
}

static bool looks_like_date(const char *s, size_t n)
{
	if (memchr(s, ':', n))
		return true;
	return n >= 5 && is_digit_in(s[0], 10) && is_digit_in(s[1], 10) && is_digit_in(s[2], 10) &&
	       is_digit_in(s[3], 10) && s[4] == '-';
}

static int parse_scalar(struct tp *t, json_t **out)
{
	const char *s = t->p;
	while (t->p < t->end && (is_bare(*t->p) || *t->p == '+' || *t->p == '.' || *t->p == ':'))
		t->p++;
	size_t n = (size_t)(t->p - s);
	if (n == 0)
		return fail_at(t, s, ERR_TOML_SYNTAX, "a value (string, number, true, false or array)");
	if (n > 128)
		return fail_msg(t, s, ERR_TOML_SYNTAX, "value token is too long", NULL);
	if ((n == 4 && !memcmp(s, "true", 4)) || (n == 5 && !memcmp(s, "false", 5))) {
		*out = json_boolean(n == 4);
		return 0;
	}
	if (looks_like_date(s, n))
		return fail_msg(t, s, ERR_TOML_SYNTAX, "dates and times are not supported", NULL);
	const char *u = (*s == '+' || *s == '-') ? s + 1 : s;
	if ((s + n - u == 3) && (!memcmp(u, "inf", 3) || !memcmp(u, "nan", 3)))
		return fail_msg(t, s, ERR_TOML_SYNTAX, "inf and nan are not supported", NULL);
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o' || s[1] == 'b'))
		return parse_radix(t, s, n, out);
	if (u >= s + n || !is_digit_in(*u, 10))
		return fail_at(t, s, ERR_TOML_SYNTAX, "a value (string, number, true, false or array)");
	return parse_decimal(t, s, n, out);
}

static int parse_array(struct tp *t, json_t **out)
{
	json_t *arr = json_array();
	int rc = 0;
	if (!arr)
		return oom(t);
	t->p++;
	for (;;) {
		json_t *v = NULL;
		if ((rc = skip_ws_nl(t)) < 0)
			break;
		if (t->p < t->end && *t->p == ']')
			break;
		if ((rc = parse_value(t, &v)) < 0)
			break;
		if (json_array_append_new(arr, v) < 0) {
			rc = oom(t);
			break;
		}
		if ((rc = skip_ws_nl(t)) < 0)
			break;
		if (t->p < t->end && *t->p == ',') {
			t->p++;
			continue;
		}
		if (t->p >= t->end || *t->p != ']')
			rc = fail_at(t, t->p, ERR_TOML_SYNTAX, "',' or ']'");
		break;
	}
	if (rc < 0) {
		json_decref(arr);
		return rc;
	}
	t->p++;
	*out = arr;
	return 0;
}

static int parse_value(struct tp *t, json_t **out)
{
	*out = NULL;
	if (at_eof(t))
		return fail_at(t, t->p, ERR_TOML_SYNTAX, "a value");
	char c = *t->p;
	if (c == '"' || c == '\'') {
		const char *at = t->p;
		char *s = NULL;
		size_t n = 0;
		int rc = parse_string(t, &s, &n);
		if (rc < 0)
			return rc;
		*out = make_string(t, at, s, n);
		xfree(s);
		return *out ? 0 : -EINVAL;
	}
	if (c == '{')
		return fail_msg(t, t->p, ERR_TOML_SYNTAX, "inline tables are not supported; use a "
			"[table] header", NULL);
	if (c == '[') {
		if (t->depth >= TOML_MAX_DEPTH)
			return fail_msg(t, t->p, ERR_TOML_SYNTAX, "arrays nested too deeply", NULL);
		t->depth++;
		int rc = parse_array(t, out);
		t->depth--;
		return rc;
	}
	return parse_scalar(t, out);
}

static int parse_header(struct tp *t)
{
	struct key k = {0};
	const char *at = t->p;
	t->p++;
	if (t->p < t->end && *t->p == '[')
		return fail_msg(t, at, ERR_TOML_SYNTAX, "arrays of tables ([[...]]) are not supported",
				NULL);
	int rc = parse_key(t, &k);
	if (rc == 0 && (t->p >= t->end || *t->p != ']'))
		rc = fail_at(t, t->p, ERR_TOML_SYNTAX, "']'");
	if (rc < 0)
		goto out;
	t->p++;
	char *path = xstrdup("");
	for (int i = 0; path && i < k.n; i++) {
		char *np = xasprintf("%s\x1f%s", path, k.part[i]);
		xfree(path);
		path = np;
	}
	if (!path) {
		rc = oom(t);
		goto out;
	}
	for (size_t i = 0; i < t->nr_defined; i++)
		if (strcmp(t->defined[i], path) == 0) {
			xfree(path);
			rc = fail_msg(t, at, ERR_TOML_DUPLICATE, "table defined twice: ", k.part[k.n - 1]);
			goto out;
		}
	if (xgrow((void **)&t->defined, &t->cap_defined, t->nr_defined + 1, sizeof(char *)) < 0) {
		xfree(path);
		rc = oom(t);
		goto out;
	}
	t->defined[t->nr_defined++] = path;
	t->cur = walk(t, t->root, &k, k.n);
	rc = t->cur ? expect_eol(t) : -EINVAL;
out:
	key_free(&k);
	return rc;
}

static int parse_keyval(struct tp *t)
{
	struct key k = {0};
	json_t *v = NULL;
	int rc = parse_key(t, &k);
	if (rc < 0)
		goto out;
	if (t->p >= t->end || *t->p != '=') {
		rc = fail_at(t, t->p, ERR_TOML_SYNTAX, "'=' after a key");
		goto out;
	}
	t->p++;
	skip_ws(t);
	json_t *tbl = walk(t, t->cur, &k, k.n - 1);
	if (!tbl) {
		rc = -EINVAL;
		goto out;
	}
	if (json_object_get(tbl, k.part[k.n - 1])) {
		rc = fail_msg(t, k.at[k.n - 1], ERR_TOML_DUPLICATE, "duplicate key: ", k.part[k.n - 1]);
		goto out;
	}
	rc = parse_value(t, &v);
	if (rc < 0)
		goto out;
	if (json_object_set_new(tbl, k.part[k.n - 1], v) < 0) {
		rc = oom(t);
		goto out;
	}
	rc = expect_eol(t);
out:
	key_free(&k);
	return rc;
}

json_t *toml_parse(const char *text, size_t len, const char *filename, struct err *e)
{
	struct tp t = {.p = text, .end = text + len, .file = filename ? filename : "<toml>",
		       .line = 1, .line_start = text, .e = e};
	int rc = 0;
	t.root = t.cur = json_object();
	if (!t.root)
		rc = oom(&t);
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		t.p += 3; /* a UTF-8 byte-order mark is allowed */
	while (rc == 0) {
		skip_ws(&t);
		if (at_eof(&t))
			break;
		if (*t.p == '#' || at_newline(&t))
			rc = expect_eol(&t);
		else if (*t.p == '[')
			rc = parse_header(&t);
		else
			rc = parse_keyval(&t);
	}
	for (size_t i = 0; i < t.nr_defined; i++)
		xfree(t.defined[i]);
	xfree(t.defined);
	if (rc < 0) {
		json_decref(t.root);
		return NULL;
	}
	return t.root;
}

json_t *toml_parse_file(const char *path, struct err *e)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		err_set(e, -errno, ERR_TOML_IO, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	struct sbuf b = {0};
	char chunk[8192];
	size_t n;
	int rc = sbuf_put(&b, "", 0);
	while (rc == 0 && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		rc = sbuf_put(&b, chunk, n);
	bool bad = ferror(f);
	fclose(f);
	json_t *doc = NULL;
	if (rc < 0)
		err_set(e, -ENOMEM, ERR_OOM, "out of memory reading %s", path);
	else if (bad)
		err_set(e, -EIO, ERR_TOML_IO, "cannot read %s: read error", path);
	else
		doc = toml_parse(b.p, b.len, path, e);
	xfree(b.p);
	return doc;
}
