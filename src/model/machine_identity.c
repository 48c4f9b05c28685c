// SPDX-License-Identifier: BSD-3-Clause
// Machine identity, byte-compatible with the Python predecessor's
// sha256(json.dumps({...}, sort_keys=True))[:16].
#include "model/machine_identity.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/sha256.h"
#include "model/machine.h"

struct sbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->oom || xgrow((void **)&b->s, &b->cap, b->len + n + 1, 1)) {
		b->oom = true;
		return;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

void py_float_repr(double v, char *buf, size_t size)
{
	if (isnan(v) || isinf(v)) { /* json.dumps spelling */
		snprintf(buf, size, "%s", isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity");
		return;
	}
	if (v == 0) {
		snprintf(buf, size, "%s", signbit(v) ? "-0.0" : "0.0");
		return;
	}
	char e[40];
	for (int p = 1; p <= 17; p++) {
		snprintf(e, sizeof(e), "%.*e", p - 1, v);
		if (strtod(e, NULL) == v)
			break;
	}
	/* e is "[-]d[.ddd]e[+-]XX": split into digits and decimal exponent. */
	const char *m = e[0] == '-' ? e + 1 : e;
	char digits[24];
	size_t nd = 0;
	const char *x = strchr(m, 'e');
	for (const char *p = m; p < x && nd < sizeof(digits) - 1; p++)
		if (*p != '.')
			digits[nd++] = *p;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	digits[nd] = '\0';
	int exp10 = atoi(x + 1), decpt = exp10 + 1;
	const char *sign = e[0] == '-' ? "-" : "";
	if (decpt <= -4 || decpt > 16) {
		snprintf(buf, size, "%s%c%s%.*s" "e%c%02d", sign, digits[0], nd > 1 ? "." : "",
			 (int)(nd - 1), digits + 1, exp10 < 0 ? '-' : '+', abs(exp10));
	} else if (decpt <= 0) {
		snprintf(buf, size, "%s0.%0*d%s", sign, -decpt, 0, digits);
		if (decpt == 0) /* "%0*d" with width 0 still prints one zero */
			snprintf(buf, size, "%s0.%s", sign, digits);
	} else if ((size_t)decpt >= nd) {
		snprintf(buf, size, "%s%s%0*d.0", sign, digits, decpt - (int)nd, 0);
		if ((size_t)decpt == nd)
			snprintf(buf, size, "%s%s.0", sign, digits);
	} else {
		snprintf(buf, size, "%s%.*s.%s", sign, decpt, digits, digits + decpt);
	}
}

/* Decodes one UTF-8 sequence; returns its length, *cp = U+FFFD when invalid. */
static size_t utf8_decode(const unsigned char *s, uint32_t *cp)
{
	size_t n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 1;
	uint32_t c = n == 1 ? s[0] : s[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*cp = 0xfffd;
			return i;
		}
		c = (c << 6) | (s[i] & 0x3f);
	}
	*cp = (n == 1 && s[0] >= 0x80) || c > 0x10ffff ? 0xfffd : c;
	return n;
}

/* json.dumps with ensure_ascii=True: anything outside ' '..'~' is escaped. */
static void sb_json_string(struct sbuf *b, const char *s)
{
	char esc[16];
	sb_puts(b, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		uint32_t c;
		size_t n = utf8_decode(p, &c);
		p += n;
		const char *short_esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n"
				      : c == '\r' ? "\\r" : c == '\t' ? "\\t" : c == '\b' ? "\\b"
				      : c == '\f' ? "\\f" : NULL;
		if (short_esc) {
			sb_puts(b, short_esc);
		} else if (c >= 0x20 && c <= 0x7e) {
			esc[0] = (char)c;
			sb_add(b, esc, 1);
		} else if (c > 0xffff) {
			c -= 0x10000;
			snprintf(esc, sizeof(esc), "\\u%04x\\u%04x", 0xd800 + (c >> 10),
				 0xdc00 + (c & 0x3ff));
			sb_puts(b, esc);
		} else {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			sb_puts(b, esc);
		}
	}
	sb_puts(b, "\"");
}

static void sb_key(struct sbuf *b, const char *key, bool first)
{
	if (!first)
		sb_puts(b, ", ");
	sb_json_string(b, key);
	sb_puts(b, ": ");
}

static void sb_str_or_null(struct sbuf *b, const char *s)
{
	if (s)
		sb_json_string(b, s);
	else
		sb_puts(b, "null");
}

static void sb_int_or_null(struct sbuf *b, int64_t v)
{
	char num[32];
	snprintf(num, sizeof(num), "%" PRId64, v);
	sb_puts(b, v >= 0 ? num : "null");
}

char *machine_identity_json(const struct machine *m)
{
	struct sbuf b = {0};
	const struct allocation *a = &m->alloc;
	char num[40];
	/* Keys in sorted order, as sort_keys=True emits them. */
	sb_puts(&b, "{");
	sb_key(&b, "affinity_mask", true);
	if (!a->has_affinity) {
		sb_puts(&b, "null");
	} else {
		sb_puts(&b, "[");
		for (size_t i = 0; i < a->nr_affinity; i++) {
			snprintf(num, sizeof(num), "%s%d", i ? ", " : "", a->affinity_mask[i]);
			sb_puts(&b, num);
		}
		sb_puts(&b, "]");
	}
	sb_key(&b, "architecture", false);
	sb_str_or_null(&b, m->architecture);
	sb_key(&b, "cpu_model", false);
	sb_str_or_null(&b, m->cpu_model);
	sb_key(&b, "cpu_quota", false);
	if (a->has_cpu_quota)
		py_float_repr(a->cpu_quota, num, sizeof(num));
	sb_puts(&b, a->has_cpu_quota ? num : "null");
	sb_key(&b, "logical_cores", false);
	sb_int_or_null(&b, m->logical_cores);
	sb_key(&b, "memory_limit_bytes", false);
	sb_int_or_null(&b, a->memory_limit_bytes);
	sb_key(&b, "system", false);
	sb_str_or_null(&b, m->system);
	sb_key(&b, "visible_cores", false);
	sb_int_or_null(&b, a->visible_cores);
	sb_puts(&b, "}");
	if (b.oom) {
		xfree(b.s);
		return NULL;
	}
	return b.s;
}

int machine_identity(const struct machine *m, char id[MACHINE_ID_SIZE])
{
	char *json = machine_identity_json(m);
	if (!json)
		return -ENOMEM;
	char hex[SHA256_HEX_SIZE];
	sha256_hex(json, strlen(json), hex);
	xfree(json);
	memcpy(id, hex, MACHINE_ID_SIZE - 1);
	id[MACHINE_ID_SIZE - 1] = '\0';
	return 0;
}
