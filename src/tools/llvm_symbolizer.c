// SPDX-License-Identifier: BSD-3-Clause
#include "tools/llvm_symbolizer.h"

#include <errno.h>

#include "common/alloc.h"
#include "tools/symbolizer.h"
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "common/err.h"
#include "common/err_codes.h"
#include "common/text.h"
#include "tools/symbolizer_parse.h"

int llvm_symbolizer__call(struct symbolizer_call *k, const char *path, const char *module,
			  const uint64_t *addrs, size_t n, bool argv_ok)
{
	enum { FIXED = 3 };
	k->argv = xcalloc(FIXED + n + 1, sizeof(*k->argv));
	if (!k->argv || !(k->owned_[0] = xasprintf("--obj=%s", module)))
		return -ENOMEM;
	k->argv[0] = path;
	k->argv[1] = "--output-style=JSON";
	k->argv[2] = k->owned_[0];
	int rc = symbolizer_call__addresses(k, FIXED, addrs, n, argv_ok);
	/* On stdin, `"M" 0x…` names the module line by line (LLVM >= 11 reads a
	 * quoted path; one without a quote or a newline can be quoted): the
	 * calls over several modules may then share one process (exec.h). */
	if (rc == 0 && k->stdin_data && !strpbrk(module, "\"\n\r")) {
		if (!(k->owned_[2] = xasprintf("\"%s\" ", module)))
			return -ENOMEM;
		k->merge_slot = 2;
		k->merge_prefix = k->owned_[2];
	}
	return rc;
}

static bool parse_hex(const char *s, uint64_t *v)
{
	if (!s || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !s[2])
		return false;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s + 2, &end, 16);
	if (errno || *end)
		return false;
	*v = x;
	return true;
}

static bool known_text(const char *s)
{
	return s && *s && strcmp(s, "??") != 0 && strcmp(s, "<invalid>") != 0;
}

static int json_int(const json_t *o, const char *key)
{
	json_int_t v = json_integer_value(json_object_get(o, key));
	return v > 0 && v < 1000000000 ? (int)v : 0;
}

static int frame_from_json(struct attrib_chain *c, const json_t *s)
{
	const char *fn = json_string_value(json_object_get(s, "FunctionName"));
	if (!known_text(fn))
		return 0; /* an empty name drops the frame */
	const char *file = json_string_value(json_object_get(s, "FileName"));
	struct attrib_frame f = {.line = json_int(s, "Line"), .decl_line = json_int(s, "StartLine")};
	f.has_start = parse_hex(json_string_value(json_object_get(s, "StartAddress")), &f.start);
	f.function = xstrdup(fn);
	f.file = known_text(file) ? xstrdup(file) : NULL;
	if (!f.function || (known_text(file) && !f.file) || attrib_chain__push_frame(c, &f)) {
		xfree(f.function);
		xfree(f.file);
		return -ENOMEM;
	}
	if (!f.file) /* no source position without a file */
		c->frames[c->nr_frames - 1].line = 0;
	return 0;
}

static int entry_from_json(struct attrib_chains *out, const json_t *o, size_t idx, struct err *e)
{
	uint64_t addr;
	if (!json_is_object(o) || !parse_hex(json_string_value(json_object_get(o, "Address")), &addr))
		return err_set(e, -EINVAL, ERR_SYMBOLIZER_JSON,
			       "entry %zu: expected an object with \"Address\":\"0x…\"", idx);
	struct attrib_chain *c = attrib_chains__push(out);
	if (!c)
		return -ENOMEM;
	c->address = addr;
	const json_t *error = json_object_get(o, "Error");
	if (error) {
		const char *msg = json_string_value(json_object_get(error, "Message"));
		c->error = xstrdup(msg ? msg : "error");
		return c->error ? 0 : -ENOMEM;
	}
	const json_t *syms = json_object_get(o, "Symbol");
	if (!json_is_array(syms))
		return err_set(e, -EINVAL, ERR_SYMBOLIZER_JSON,
			       "entry %zu (0x%llx): expected a \"Symbol\" array", idx,
			       (unsigned long long)addr);
	size_t i;
	const json_t *s;
	json_array_foreach(syms, i, s) {
		int rc = frame_from_json(c, s);
		if (rc)
			return rc;
	}
	return 0;
}

int symbolizer_json__parse(const char *text, size_t len, struct attrib_chains *out, struct err *e)
{
	size_t pos = 0, idx = 0;
	while (pos < len) {
		while (pos < len && strchr(" \t\r\n", text[pos]))
			pos++;
		if (pos >= len)
			break;
		json_error_t je;
		json_t *doc = json_loadb(text + pos, len - pos, JSON_DISABLE_EOF_CHECK, &je);
		if (!doc)
			return err_set(e, -EINVAL, ERR_SYMBOLIZER_JSON,
				       "llvm-symbolizer output, byte %zu: %s", pos + (size_t)je.position,
				       je.text);
		pos += (size_t)je.position;
		int rc = 0;
		if (json_is_array(doc)) {
			size_t i;
			json_t *o;
			json_array_foreach(doc, i, o) {
				if ((rc = entry_from_json(out, o, idx++, e)))
					break;
			}
		} else {
			rc = entry_from_json(out, doc, idx++, e);
		}
		json_decref(doc);
		if (rc)
			return rc;
		if (je.position <= 0)
			break;
	}
	return 0;
}
