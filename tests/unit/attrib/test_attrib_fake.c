// SPDX-License-Identifier: BSD-3-Clause
/* Attribution against a scripted executor: failure paths (symbolizer exit
 * status, unparsed output, unreadable module), the debuginfod environment,
 * the stdin batch for large address sets and the order of the calls. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib/attrib.h"
#include "tools/locate.h"
#include "common/alloc.h"
#include "common/err.h"
#include "exec/exec.h"
#include "harness.h"
#include "model/model.h"
#include "mpi/sites.h"
#include "regions/lines_symbolize.h"
#include "run/pipeline.h"
#include "run/stages.h"

struct fake {
	const char *json; /* llvm-symbolizer stdout; NULL: one bare "f" per stdin line */
	int exit_code;
	char calls[16][32];
	int nr_calls;
	char env_set[64], env_unset[64];
	size_t argc, stdin_lines;
};

static int fake_run(struct executor *x, const struct exec_request *req, struct exec_result *res,
		    struct err *e)
{
	(void)e;
	struct fake *f = x->priv;
	memset(res, 0, sizeof(*res));
	const char *base = strrchr(req->argv[0], '/');
	base = base ? base + 1 : req->argv[0];
	if (f->nr_calls < 16)
		snprintf(f->calls[f->nr_calls++], 32, "%s", base);
	if (strcmp(base, "llvm-symbolizer") == 0) {
		f->argc = 0;
		while (req->argv[f->argc])
			f->argc++;
		snprintf(f->env_set, sizeof(f->env_set), "%s", req->env_set ? req->env_set[0] : "");
		snprintf(f->env_unset, sizeof(f->env_unset), "%s", req->env_unset ? req->env_unset[0] : "");
		res->exit_code = f->exit_code;
		if (f->json) {
			res->out = xstrdup(f->json);
		} else { /* stdin mode: answer each line */
			size_t cap = 0, len = 0;
			const char *p = req->stdin_data;
			f->stdin_lines = 0;
			while (p && *p) {
				const char *nl = strchr(p, '\n');
				size_t n = nl ? (size_t)(nl - p) : strlen(p);
				CHECK(!xgrow((void **)&res->out, &cap, len + n + 200, 1));
				len += (size_t)sprintf(res->out + len,
						       "{\"Address\":\"%.*s\",\"Symbol\":[{\"FunctionName\":\"f\","
						       "\"FileName\":\"\",\"Line\":0,\"StartAddress\":\"0x1000\"}]}\n",
						       (int)n, p);
				f->stdin_lines++;
				p = nl ? nl + 1 : p + n;
			}
		}
	} else if (strcmp(base, "llvm-readelf") == 0) {
		res->out = xstrdup("Section Headers:\n  [ 3] .dynsym DYNSYM\n");
	} else {
		res->exit_code = EXEC_NOT_FOUND;
	}
	res->out_len = res->out ? strlen(res->out) : 0;
	return 0;
}

static void fake_free(struct executor *x)
{
	(void)x;
}

static const struct executor_ops fake_ops = {.run = fake_run, .free = fake_free};

static const struct attrib_tools llvm = {.tool = ATTRIB_TOOL_LLVM, .path = (char *)"llvm-symbolizer",
					 .major = 19, .readelf = (char *)"llvm-readelf",
					 .dwarfdump = (char *)"llvm-dwarfdump"};

static void pivot_with(struct pivot *p, const char *module, size_t n)
{
	pivot__init(p);
	pivot__intern_locus(p, "n", -1, 1);
	for (size_t i = 0; i < n; i++) {
		struct hotspot h = {.module = (char *)module, .level = RESOLUTION_UNRESOLVED,
				    .offset = 0x1000 + 4 * i, .has_offset = true};
		struct measurement m = {.hotspot = pivot__add_hotspot(p, &h), .counter = (char *)"task-clock",
					.value = 1.5, .unit = (char *)"ns", .sample_count = 1, .coverage = -1};
		CHECK(pivot__add_measurement(p, &m) >= 0);
	}
}

static void run_fake(struct fake *f, struct pivot *p, const struct attrib_opts *o,
		     struct degradations *d)
{
	struct executor x = {.ops = &fake_ops, .priv = f};
	struct err e = {0};
	CHECK_INT(attrib_run(p, &x, &llvm, o, d, &e), 0);
}

static void t_failures(void)
{
	static const struct {
		const char *json;
		int exit_code;
		const char *name, *needle;
	} cases[] = {
		{"[]", 1, "symbolization-failed", "exited with 1"},
		{"[{\"Address\":\"0x1000\",\"Symbol\":[{\"FunctionName\":", 0, "symbolization-failed",
		 "unparsed"},
		{"[{\"Address\":\"0x1000\",\"Error\":{\"Message\":\"No such file or directory\"}},"
		 "{\"Address\":\"0x1004\",\"Symbol\":[]}]",
		 0, "module-unreadable", "No such file or directory"},
	};
	for (size_t i = 0; i < 3; i++) {
		struct fake f = {.json = cases[i].json, .exit_code = cases[i].exit_code};
		struct pivot p;
		struct degradations d = {0};
		pivot_with(&p, "/opt/app/libx.so", 2);
		run_fake(&f, &p, NULL, &d);
		CHECK_INT(d.n, 1); /* once per module, not per address */
		CHECK_STR(d.v[0].name, cases[i].name);
		CHECK(strstr(d.v[0].message, cases[i].needle));
		CHECK_INT(p.nr_hotspots, 2);
		CHECK(p.hotspots[0].level == RESOLUTION_UNRESOLVED && !p.hotspots[0].name);
		CHECK_NEAR(p.measurements[0].value + p.measurements[1].value, 3.0, 1e-12);
		degradations__release(&d);
		pivot__release(&p);
	}
}

/* 3000 addresses: one process, addresses on stdin, all fused into one
 * symbol-level Hotspot (.dynsym only), readelf called after the symbolizer. */
static void t_stdin_batch(void)
{
	struct fake f = {0};
	struct pivot p;
	struct degradations d = {0};
	pivot_with(&p, "/opt/app/libbig.so", 3000);
	run_fake(&f, &p, NULL, &d);
	CHECK_INT(f.nr_calls, 2);
	CHECK_STR(f.calls[0], "llvm-symbolizer");
	CHECK_STR(f.calls[1], "llvm-readelf");
	CHECK_INT(f.argc, 3); /* no address on the command line */
	CHECK_INT(f.stdin_lines, 3000);
	CHECK_INT(p.nr_hotspots, 1);
	CHECK_STR(p.hotspots[0].name, "f");
	CHECK_INT(p.hotspots[0].level, RESOLUTION_SYMBOL);
	CHECK_INT(p.nr_measurements, 1);
	CHECK_NEAR(p.measurements[0].value, 4500.0, 1e-9);
	CHECK_INT(p.measurements[0].sample_count, 3000);
	CHECK_INT(p.nr_addresses, 3000);
	CHECK_INT(d.n, 0);
	degradations__release(&d);
	pivot__release(&p);
}

/* 20 000 addresses: from 8192 on, two processes over the halves (issued in
 * order, each half on stdin; ~1.2 MB of answers each, parsed on threads),
 * the answers merged: every address resolved and fused as with one call. */
static void t_split(void)
{
	struct fake f = {0};
	struct pivot p;
	struct degradations d = {0};
	pivot_with(&p, "/opt/app/libbig.so", 20000);
	run_fake(&f, &p, NULL, &d);
	CHECK_INT(f.nr_calls, 3);
	CHECK_STR(f.calls[0], "llvm-symbolizer");
	CHECK_STR(f.calls[1], "llvm-symbolizer");
	CHECK_STR(f.calls[2], "llvm-readelf");
	CHECK_INT(f.stdin_lines, 10000); /* the second half */
	CHECK_INT(p.nr_hotspots, 1);
	CHECK_STR(p.hotspots[0].name, "f");
	CHECK_INT(p.measurements[0].sample_count, 20000);
	CHECK_INT(p.nr_addresses, 20000);
	CHECK_INT(d.n, 0);
	degradations__release(&d);
	pivot__release(&p);
}

static void t_debuginfod(void)
{
	struct attrib_opts on = {0}, off = {.debuginfod_disabled = true};
	struct degradations d = {0};
	struct pivot p;
	static const struct {
		const char *urls, *timeout;
		const struct attrib_opts *o;
		const char *set, *unset;
	} cases[] = {
		{NULL, NULL, NULL, "", ""},                                /* off: nothing */
		{"https://debuginfod.example", NULL, NULL, "DEBUGINFOD_TIMEOUT=10", ""},
		{"https://debuginfod.example", "30", NULL, "", ""},        /* the user's value wins */
		{"https://debuginfod.example", NULL, NULL, "", "DEBUGINFOD_URLS"}, /* disabled */
	};
	for (size_t i = 0; i < 4; i++) {
		struct fake f = {.json = "[]"};
		if (cases[i].urls)
			setenv("DEBUGINFOD_URLS", cases[i].urls, 1);
		else
			unsetenv("DEBUGINFOD_URLS");
		if (cases[i].timeout)
			setenv("DEBUGINFOD_TIMEOUT", cases[i].timeout, 1);
		else
			unsetenv("DEBUGINFOD_TIMEOUT");
		pivot_with(&p, "/opt/app/x", 1);
		run_fake(&f, &p, i == 3 ? &off : &on, &d);
		CHECK_STR(f.env_set, cases[i].set);
		CHECK_STR(f.env_unset, cases[i].unset);
		pivot__release(&p);
		degradations__release(&d);
	}
	unsetenv("DEBUGINFOD_URLS");
}

/* The MPI call sites' and OpenMP regions' symbolizer calls carry the Run's
 * environment edits as the Hotspots' do (t_debuginfod): disabled strips
 * DEBUGINFOD_URLS, enabled bounds the wait, the user's value wins. */
static void t_sites_debuginfod(void)
{
	static const struct {
		const char *urls, *timeout;
		bool disabled;
		const char *set, *unset;
	} cases[] = {
		{NULL, NULL, false, "", ""},
		{"https://debuginfod.example", NULL, false, "DEBUGINFOD_TIMEOUT=7", ""},
		{"https://debuginfod.example", "30", false, "", ""},
		{"https://debuginfod.example", NULL, true, "", "DEBUGINFOD_URLS"},
	};
	for (size_t i = 0; i < 4; i++) {
		if (cases[i].urls)
			setenv("DEBUGINFOD_URLS", cases[i].urls, 1);
		else
			unsetenv("DEBUGINFOD_URLS");
		if (cases[i].timeout)
			setenv("DEBUGINFOD_TIMEOUT", cases[i].timeout, 1);
		else
			unsetenv("DEBUGINFOD_TIMEOUT");
		struct attrib_sym_env env;
		attrib_sym_env__init(&env, cases[i].disabled, 7);
		CHECK_INT(env.debuginfod, cases[i].urls && !cases[i].disabled);
		struct lines_run run = {.env = &env};
		/* the MPI call sites */
		struct fake f = {.json = NULL};
		struct executor x = {.ops = &fake_ops, .priv = &f};
		struct pivot p;
		pivot__init(&p);
		struct mpi_site m = {.name = (char *)"MPI_Send", .module = (char *)"/opt/app/x",
				     .address = 0x1234, .calls = 1};
		CHECK(pivot__add_mpi_site(&p, &m) >= 0);
		struct degradations d = {0};
		struct err e = {0};
		CHECK_INT(mpi_sites_symbolize(&p, &x, &llvm, &run, &d, &e), 0);
		CHECK_INT(f.nr_calls, 1);
		CHECK_STR(f.env_set, cases[i].set);
		CHECK_STR(f.env_unset, cases[i].unset);
		CHECK_STR(p.mpi_sites[0].function, "f");
		pivot__release(&p);
		degradations__release(&d);
		/* the OpenMP regions' fork sites */
		struct fake g = {.json = NULL};
		struct executor y = {.ops = &fake_ops, .priv = &g};
		struct run_state st;
		memset(&st, 0, sizeof(st));
		pivot__init(&st.pivot);
		st.x = &y;
		st.tools = (struct attrib_tools *)&llvm;
		struct omp_site o = {.module = (char *)"/opt/app/x", .address = 0x1234, .calls = 1};
		CHECK(pivot__add_omp_site(&st.pivot, &o) >= 0);
		CHECK_INT(run_ompt_symbolize(&st, &run, &e), 0);
		CHECK_INT(g.nr_calls, 1);
		CHECK_STR(g.env_set, cases[i].set);
		CHECK_STR(g.env_unset, cases[i].unset);
		CHECK_STR(st.pivot.omp_sites[0].function, "f");
		pivot__release(&st.pivot);
		attrib_sym_env__release(&env);
	}
	unsetenv("DEBUGINFOD_URLS");
	unsetenv("DEBUGINFOD_TIMEOUT");
}

static const struct test_case cases[] = {
	{"failures", "exit status, unparsed output, unreadable module: one degradation", t_failures},
	{"stdin_batch", "3000 addresses: one process, stdin, fused, symbol level", t_stdin_batch},
	{"split", "20 000 addresses: two symbolizer calls over halves, merged", t_split},
	{"debuginfod", "DEBUGINFOD_TIMEOUT default, user value, disabled strips URLS", t_debuginfod},
	{"sites_debuginfod", "the MPI sites' and OMPT calls carry the same environment edits",
	 t_sites_debuginfod},
};
TEST_MAIN(cases)
