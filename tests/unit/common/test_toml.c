// SPDX-License-Identifier: BSD-3-Clause
#include "common/toml.h"

#include <jansson.h>

#include "common/alloc.h"
#include "common/err.h"
#include "harness.h"

static json_t *parse(const char *text, struct err *e)
{
	memset(e, 0, sizeof(*e));
	return toml_parse(text, strlen(text), "t.toml", e);
}

static json_t *get(json_t *root, const char *a, const char *b)
{
	json_t *t = json_object_get(root, a);
	return b ? json_object_get(t, b) : t;
}

static void t_document(void)
{
	const char *text = "# site config\n"
			   "name = \"solver\"  # trailing comment\n"
			   "runs_dir = '.runs'\n"
			   "\n"
			   "[sampling]\n"
			   "frequency = 4_999\n"
			   "rank_threshold = +64\n"
			   "[stacks]\r\n"
			   "fp_threshold = 0.75\r\n"
			   "[passes]\n"
			   "witness = 5e-2\n"
			   "[debuginfod]\n"
			   "enabled = false\n"
			   "[tools]\n"
			   "perf = \"/opt/perf/bin/perf\"\n"
			   "\"llvm-symbolizer\" = 'C:\\llvm\\bin'\n"
			   "[source_map]\n"
			   "\"/build/src\" = \"/home/me/src\"\n"
			   "[x.y]\n"
			   "a.b = [1, 2.5, \"s\", true,\n  # comment inside\n  [0x1F, 0o17, 0b101],\n]\n";
	struct err e;
	json_t *j = parse(text, &e);
	if (!j)
		fprintf(stderr, "%s\n", e.msg);
	CHECK(j != NULL);
	CHECK_STR(json_string_value(get(j, "name", NULL)), "solver");
	CHECK_STR(json_string_value(get(j, "runs_dir", NULL)), ".runs");
	CHECK(json_is_integer(get(j, "sampling", "frequency")));
	CHECK_INT(json_integer_value(get(j, "sampling", "frequency")), 4999);
	CHECK_INT(json_integer_value(get(j, "sampling", "rank_threshold")), 64);
	CHECK(json_is_real(get(j, "stacks", "fp_threshold")));
	CHECK_NEAR(json_real_value(get(j, "passes", "witness")), 0.05, 1e-15);
	CHECK(json_is_false(get(j, "debuginfod", "enabled")));
	CHECK_STR(json_string_value(get(j, "tools", "llvm-symbolizer")), "C:\\llvm\\bin");
	CHECK_STR(json_string_value(get(j, "source_map", "/build/src")), "/home/me/src");
	json_t *arr = json_object_get(get(get(j, "x", "y"), "a", NULL), "b");
	CHECK_INT(json_array_size(arr), 5);
	CHECK_NEAR(json_real_value(json_array_get(arr, 1)), 2.5, 0);
	json_t *inner = json_array_get(arr, 4);
	CHECK_INT(json_integer_value(json_array_get(inner, 0)), 31);
	CHECK_INT(json_integer_value(json_array_get(inner, 1)), 15);
	CHECK_INT(json_integer_value(json_array_get(inner, 2)), 5);
	json_decref(j);
}

static void t_escapes(void)
{
	struct err e;
	json_t *j = parse("s = \"tab\\there \\\"q\\\" \\\\ \\u00e9 \\U0001F600\\n\"\n", &e);
	CHECK(j != NULL);
	CHECK_STR(json_string_value(json_object_get(j, "s")),
		  "tab\there \"q\" \\ \xc3\xa9 \xf0\x9f\x98\x80\n");
	json_decref(j);
	j = parse("s = 'no \\escapes \"here\"'\n", &e);
	CHECK_STR(json_string_value(json_object_get(j, "s")), "no \\escapes \"here\"");
	json_decref(j);
}

/* Each bad document gives exactly this message. */
static void expect_error(const char *text, const char *code, const char *msg)
{
	struct err e;
	json_t *j = parse(text, &e);
	if (j || strcmp(e.msg, msg) != 0 || strcmp(e.code, code) != 0)
		fprintf(stderr, "for %s\n got [%s] %s\nwant [%s] %s\n", text, e.code, e.msg, code,
			msg);
	CHECK(j == NULL);
	CHECK_STR(e.code, code);
	CHECK_STR(e.msg, msg);
}

static void t_errors(void)
{
	expect_error("a = 1\nb 2\n", "toml.syntax", "t.toml:2:3: expected '=' after a key, found '2'");
	expect_error("a = \"open\n", "toml.syntax", "t.toml:1:10: expected '\"', found end of line");
	expect_error("a = 1 2\n", "toml.syntax", "t.toml:1:7: expected end of line, found '2'");
	expect_error("a = 1\na = 2\n", "toml.duplicate", "t.toml:2:1: duplicate key: a");
	expect_error("[s]\n[s]\n", "toml.duplicate", "t.toml:2:1: table defined twice: s");
	expect_error("a = 1\n[a]\n", "toml.duplicate",
		     "t.toml:2:2: key is already defined as a value: a");
	expect_error("a = 0777\n", "toml.syntax", "t.toml:1:5: leading zeros are not allowed");
	expect_error("a = 1__0\n", "toml.syntax",
		     "t.toml:1:6: expected a digit, '.', 'e' or the end of the number, found '_'");
	expect_error("a = 9223372036854775808\n", "toml.syntax",
		     "t.toml:1:5: integer does not fit in 64 bits");
	expect_error("a = 1979-05-27\n", "toml.syntax", "t.toml:1:5: dates and times are not supported");
	expect_error("a = inf\n", "toml.syntax", "t.toml:1:5: inf and nan are not supported");
	expect_error("a = {x = 1}\n", "toml.syntax",
		     "t.toml:1:5: inline tables are not supported; use a [table] header");
	expect_error("[[x]]\n", "toml.syntax", "t.toml:1:1: arrays of tables ([[...]]) are not supported");
	expect_error("a = [1, 2\n", "toml.syntax", "t.toml:2:1: expected ',' or ']', found end of file");
	expect_error("a = \"\\q\"\n", "toml.syntax",
		     "t.toml:1:7: expected an escape (\\b \\t \\n \\f \\r \\\" \\\\ \\u \\U), found 'q'");
	expect_error("a = \"\\u0000\"\n", "toml.syntax",
		     "t.toml:1:6: escape is not a valid (non-NUL) Unicode scalar value");
	expect_error("a = \"\xff\"\n", "toml.syntax", "t.toml:1:5: string is not valid UTF-8");
	expect_error("a = tru\n", "toml.syntax",
		     "t.toml:1:5: expected a value (string, number, true, false or array), found 't'");
	expect_error("a =\n", "toml.syntax",
		     "t.toml:1:4: expected a value (string, number, true, false or array), found end of line");
	expect_error("a = 1.\n", "toml.syntax", "t.toml:1:7: expected a digit after '.', found end of line");
}

static void t_nul_and_depth(void)
{
	struct err e = {0};
	const char text[] = "a = 1\0\n";
	CHECK(toml_parse(text, sizeof(text) - 1, "t.toml", &e) == NULL);
	CHECK_STR(e.msg, "t.toml:1:6: expected end of line, found a NUL byte");
	char deep[200];
	memset(deep, '[', sizeof(deep));
	memcpy(deep, "a = ", 4);
	deep[sizeof(deep) - 1] = 0;
	CHECK(parse(deep, &e) == NULL);
	CHECK(strstr(e.msg, "arrays nested too deeply") != NULL);
	json_t *j = parse("", &e);
	CHECK(j && json_object_size(j) == 0);
	json_decref(j);
}

static void t_alloc_failures(void)
{
	const char *text = "name = \"x\"\n[tools]\nperf = 'p'\n[a.b]\nc.d = [1, \"s\\u00e9\", [2]]\n";
	int failed = 0;
	for (int n = 1; n < 200; n++) {
		char buf[16];
		snprintf(buf, sizeof(buf), "%d", n);
		setenv("NUNATAK_FAIL_ALLOC", buf, 1);
		alloc_fault_init();
		struct err e;
		json_t *j = parse(text, &e);
		if (!j) {
			CHECK_STR(e.code, "oom"); /* never a misleading syntax error */
			failed++;
		}
		json_decref(j);
	}
	setenv("NUNATAK_FAIL_ALLOC", "0", 1);
	alloc_fault_init();
	CHECK(failed > 5); /* the sweep did reach the parser's allocations */
}

static const struct test_case cases[] = {
	{"alloc_failures", "every failed allocation is reported as oom", t_alloc_failures},
	{"document", "the config subset parses into the right types", t_document},
	{"escapes", "basic-string escapes and literal strings", t_escapes},
	{"errors", "syntax errors and duplicates give file:line:col messages", t_errors},
	{"nul_depth", "NUL bytes, deep nesting and empty input", t_nul_and_depth},
};

TEST_MAIN(cases)
