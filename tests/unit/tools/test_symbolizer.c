// SPDX-License-Identifier: BSD-3-Clause
/* The argv each external program's adapter builds (tools/symbolizer.h and
 * the llvm-symbolizer, addr2line, llvm-readelf, llvm-dwarfdump, objdump and
 * ldd adapters): callers never spell these options, so this is where a
 * changed flag would show. */
#include <string.h>

#include "harness.h"

#include "common/alloc.h"
#include "tools/ldd.h"
#include "tools/llvm_dwarfdump.h"
#include "tools/llvm_readelf.h"
#include "tools/locate.h"
#include "tools/mpicc.h"
#include "tools/objdump.h"
#include "tools/perf.h"
#include "tools/symbolizer.h"
#include "tools/version.h"

static void joined(const char *const *argv, char *out, size_t cap)
{
	size_t at = 0;
	out[0] = '\0';
	for (size_t i = 0; argv[i] && at < cap; i++)
		at += (size_t)snprintf(out + at, cap - at, "%s%s", i ? " " : "", argv[i]);
}

static void t_llvm_argv_and_stdin(void)
{
	char path[] = "/usr/bin/llvm-symbolizer-19";
	struct attrib_tools t = {.tool = ATTRIB_TOOL_LLVM, .path = path};
	uint64_t a[] = {0x1139, 0x2fa0};
	struct symbolizer_call k;
	char s[512];
	CHECK_INT(symbolizer_call__init(&k, &t, "/opt/app/solver", a, 2, true), 0);
	joined(k.argv, s, sizeof(s));
	CHECK_STR(s, "/usr/bin/llvm-symbolizer-19 --output-style=JSON --obj=/opt/app/solver "
		     "0x1139 0x2fa0");
	CHECK(k.stdin_data == NULL && k.stdin_len == 0);
	symbolizer_call__release(&k);
	/* argv not allowed: the same addresses on stdin, one per line. */
	CHECK_INT(symbolizer_call__init(&k, &t, "/opt/app/solver", a, 2, false), 0);
	joined(k.argv, s, sizeof(s));
	CHECK_STR(s, "/usr/bin/llvm-symbolizer-19 --output-style=JSON --obj=/opt/app/solver");
	CHECK_INT(k.stdin_len, strlen("0x1139\n0x2fa0\n"));
	CHECK(memcmp(k.stdin_data, "0x1139\n0x2fa0\n", k.stdin_len) == 0);
	symbolizer_call__release(&k);
}

static void t_large_batch_on_stdin(void)
{
	char path[] = "llvm-symbolizer";
	struct attrib_tools t = {.tool = ATTRIB_TOOL_LLVM, .path = path};
	size_t n = SYMBOLIZER_ADDRS_ON_ARGV + 1;
	uint64_t *a = xcalloc(n, sizeof(*a));
	CHECK(a != NULL);
	for (size_t i = 0; i < n; i++)
		a[i] = 0x1000 + i;
	struct symbolizer_call k;
	CHECK_INT(symbolizer_call__init(&k, &t, "m", a, n, true), 0);
	CHECK(k.argv[3] == NULL); /* nothing after --obj */
	CHECK(k.stdin_data != NULL);
	CHECK(strncmp(k.stdin_data, "0x1000\n0x1001\n", 14) == 0);
	symbolizer_call__release(&k);
	xfree(a);
}

static void t_addr2line_argv(void)
{
	char path[] = "addr2line";
	struct attrib_tools t = {.tool = ATTRIB_TOOL_ADDR2LINE, .path = path};
	uint64_t a[] = {0x401136};
	struct symbolizer_call k;
	char s[256];
	CHECK_INT(symbolizer_call__init(&k, &t, "./a.out", a, 1, true), 0);
	joined(k.argv, s, sizeof(s));
	CHECK_STR(s, "addr2line -e ./a.out -a -f -C -i 0x401136");
	symbolizer_call__release(&k);
	struct attrib_tools none = {0};
	CHECK(symbolizer_call__init(&k, &none, "./a.out", a, 1, true) < 0);
}

static void t_other_tools_argv(void)
{
	const char *v[6];
	char s[256];
	llvm_readelf__sections_argv(v, "llvm-readelf-19", "/lib/libm.so.6");
	joined(v, s, sizeof(s));
	CHECK_STR(s, "llvm-readelf-19 -S /lib/libm.so.6");
	llvm_dwarfdump__lines_argv(v, "llvm-dwarfdump", "./app");
	joined(v, s, sizeof(s));
	CHECK_STR(s, "llvm-dwarfdump --debug-line ./app");
	objdump__version_argv(v, "objdump");
	joined(v, s, sizeof(s));
	CHECK_STR(s, "objdump --version");
	objdump__symbols_argv(v, "objdump", false, "./app");
	joined(v, s, sizeof(s));
	CHECK_STR(s, "objdump -t ./app");
	objdump__symbols_argv(v, "objdump", true, "./app");
	joined(v, s, sizeof(s));
	CHECK_STR(s, "objdump -T ./app");
	struct objdump_range_argv r;
	objdump__disassemble_argv(&r, "objdump", "./app", 0x1130, 0x20);
	joined(r.argv, s, sizeof(s));
	CHECK_STR(s, "objdump --disassemble --start-address=0x1130 --stop-address=0x1150 ./app");
	ldd__argv(v, "./app");
	joined(v, s, sizeof(s));
	CHECK_STR(s, "ldd ./app");
	CHECK(objdump__is_gnu("GNU objdump (GNU Binutils for Debian) 2.40\n"));
	CHECK(!objdump__is_gnu("LLVM (http://llvm.org/):\n  LLVM version 19.1.7\n"));
	CHECK(!objdump__is_gnu(NULL));
	/* perf's probes, once for the pipeline, the rank shim and doctor. */
	char **p = perf_argv_record_probe("perf", "/r/collect/.perf-probe.data");
	CHECK(p != NULL);
	joined((const char *const *)p, s, sizeof(s));
	CHECK_STR(s, "perf record -q -e task-clock -o /r/collect/.perf-probe.data -- true");
	perf_argv__free(p);
	char app0[] = "./solver", app1[] = "-n";
	char *const app[] = {app0, app1, NULL};
	p = perf_argv_stat("perf", "task-clock,cycles", "/r/perf-stat.csv", app);
	CHECK(p != NULL);
	joined((const char *const *)p, s, sizeof(s));
	CHECK_STR(s, "perf stat -x, -e task-clock,cycles -o /r/perf-stat.csv -- ./solver -n");
	perf_argv__free(p);
	p = perf_argv_stat("perf", "cycles", NULL, app);
	CHECK(p != NULL);
	joined((const char *const *)p, s, sizeof(s));
	CHECK_STR(s, "perf stat -x, -e cycles -- ./solver -n");
	perf_argv__free(p);
}

static void t_mpicc_and_version(void)
{
	const char *a[MPICC_ARGV_MAX];
	char s[512];
	mpicc_argv_build(a, "mpicc", true, "/c/.lib.tmp", "nunatak_mpi.c");
	joined(a, s, sizeof(s));
	CHECK_STR(s, "mpicc -O2 -fPIC -shared -o /c/.lib.tmp nunatak_mpi.c -ldl");
	mpicc_argv_build(a, "mpicc.mpich", false, "/c/.probe.tmp", "netprobe.c");
	joined(a, s, sizeof(s));
	CHECK_STR(s, "mpicc.mpich -O2 -o /c/.probe.tmp netprobe.c");
	const char *v[3];
	tool_argv_version(v, "mpirun");
	joined(v, s, sizeof(s));
	CHECK_STR(s, "mpirun --version");
}

static const struct test_case cases[] = {
	{"mpicc_version", "mpicc builds (shared library, program) and the generic --version probe",
	 t_mpicc_and_version},
	{"llvm_argv", "llvm-symbolizer: JSON, --obj, addresses on argv or stdin", t_llvm_argv_and_stdin},
	{"large_batch", "more than SYMBOLIZER_ADDRS_ON_ARGV addresses go on stdin", t_large_batch_on_stdin},
	{"addr2line_argv", "addr2line: -e M -a -f -C -i; no symbolizer refused", t_addr2line_argv},
	{"other_tools", "readelf, dwarfdump, objdump, ldd and perf probe argv; GNU objdump told apart", t_other_tools_argv},
};

TEST_MAIN(cases)
