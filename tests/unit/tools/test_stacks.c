// SPDX-License-Identifier: BSD-3-Clause
/* The call-stack ladder on recorded outputs: this machine's objdump and ldd
 * (tests/fixtures/stacks/) and the corpus entry workload-c-stacks's. */
#include "harness.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "collect/stacks.h"
#include "collect/stacks_cache.h"
#include "common/alloc.h"
#include "tools/ldd.h"
#include "tools/objdump.h"

#define FIX TEST_SOURCE_DIR "/tests/fixtures/stacks/"
#define STACKS_ENTRY TEST_CORPUS_DIR "/recordings/perf/6.14.11/linux-x86_64/workload-c-stacks/invocations/"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)n + 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	if (b)
		b[n] = '\0';
	fclose(f);
	return b;
}

static void t_parsers_here(void)
{
	char *ldd = slurp(FIX "callers_fp.ldd.txt");
	CHECK(ldd != NULL);
	size_t n = 0;
	char **libs = ldd__parse(ldd, &n);
	CHECK_INT(n, 1); /* vdso and the interpreter have no "=> /path" */
	CHECK_STR(libs[0], "/lib/x86_64-linux-gnu/libc.so.6");
	free(libs[0]);
	free(libs);
	free(ldd);
	uint64_t a[8];
	char *t = slurp(FIX "callers_fp.objdump-t.txt");
	CHECK(t != NULL);
	CHECK_INT(objdump__parse_symbols(t, 64, 8, a), 1); /* main only: 0x8a bytes */
	CHECK(a[0] == 0x1060);
	/* main 0x8a, leaf 0x3f, caller_a 0x29, _start 0x22, caller_b 0x1f */
	CHECK_INT(objdump__parse_symbols(t, 16, 8, a), 5);
	CHECK(a[0] == 0x1060 && a[1] == 0x11e0 && a[2] == 0x1220 && a[3] == 0x10f0 &&
	      a[4] == 0x1250);
	free(t);
	char *fp = slurp(FIX "callers_fp.main.dis.txt");
	char *nofp = slurp(FIX "callers_nofp.main.dis.txt");
	CHECK(fp && nofp);
	CHECK(objdump__fp_prologue(fp, STACKS_PROLOGUE_INSNS));
	CHECK(!objdump__fp_prologue(nofp, STACKS_PROLOGUE_INSNS));
	free(fp);
	free(nofp);
	/* AArch64's prologue; a push %rbp beyond the 4th instruction does not count */
	CHECK(objdump__fp_prologue("0000000000400580 <main>:\n  400580:\ta9bf7bfd \tstp\tx29, x30, "
				 "[sp, #-16]!\n  400584:\t910003fd \tmov\tx29, sp\n",
				 STACKS_PROLOGUE_INSNS));
	CHECK(!objdump__fp_prologue("  400580:\ta9bf7bfd \tstp\tx29, x30, [sp, #-16]!\n"
				  "  400584:\td10043ff \tsub\tsp, sp, #0x10\n",
				  STACKS_PROLOGUE_INSNS));
	/* issue 24: -O2 without frame pointers saves rbp as a register: no frame */
	CHECK(!objdump__fp_prologue("  1180:\t55 \tpush   %rbp\n  1181:\t53 \tpush   %rbx\n"
				  "  1182:\t48 89 fd \tmov    %rdi,%rbp\n",
				  STACKS_PROLOGUE_INSNS));
	CHECK(objdump__fp_prologue("  1180:\tf3 0f 1e fa \tendbr64\n  1184:\t55 \tpush   %rbp\n"
				 "  1185:\t48 89 e5 \tmov    %rsp,%rbp\n", STACKS_PROLOGUE_INSNS));
	CHECK(!objdump__fp_prologue("  10:\t90 \tnop\n  11:\t90 \tnop\n  12:\t90 \tnop\n"
				  "  13:\t90 \tnop\n  14:\t55 \tpush   %rbp\n", STACKS_PROLOGUE_INSNS));
	CHECK_INT(objdump__parse_symbols("no symbols\n", 64, 8, a), 0);
}

struct branch_log {
	int calls, out, indirect;
	uint64_t first_call_at, first_target;
};

static bool log_branch(enum objdump_branch kind, uint64_t at, uint64_t target, void *ctx)
{
	struct branch_log *b = ctx;
	if (kind == OBJDUMP_CALL && b->calls++ == 0) {
		b->first_call_at = at;
		b->first_target = target;
	}
	b->out += kind == OBJDUMP_JUMP_OUT;
	b->indirect += kind == OBJDUMP_INDIRECT;
	return true;
}

/* issue 24: the branches of a function, which prove a frameless leaf's caller */
static void t_branches(void)
{
	char *dis = slurp(FIX "callers_fp.caller_a.dis.txt");
	CHECK(dis != NULL);
	struct branch_log b = {0};
	/* 9 instructions: continuation lines of raw bytes are not instructions */
	CHECK_INT(objdump__branches(dis, 0x1174, 0x1197, log_branch, &b), 9);
	CHECK_INT(b.calls, 1);
	CHECK(b.first_call_at == 0x1178 && b.first_target == 0x1139);
	CHECK_INT(b.out + b.indirect, 0);
	free(dis);
	/* a jump inside is not a branch out; one outside (a tail call), an
	 * indirect call, a notrack jmp through a table and callq (binutils < 2.38)
	 * are */
	const char *t = "  10:\t75 02 \tjne    14 <f+0x4>\n"
			"  12:\tff d0 \tcall   *%rax\n"
			"  14:\te9 00 00 00 00 \tjmp    2000 <g>\n"
			"  19:\t3e ff e0 \tnotrack jmp *%rax\n"
			"  1c:\te8 00 00 00 00 \tcallq  3000 <h>\n"
			"  21:\t0f 84 00 00 00 00 \tje     5000 <k>\n";
	memset(&b, 0, sizeof(b));
	CHECK_INT(objdump__branches(t, 0x10, 0x30, log_branch, &b), 6);
	CHECK_INT(b.calls, 1);
	CHECK(b.first_target == 0x3000 && b.first_call_at == 0x1c);
	CHECK_INT(b.out, 2);
	CHECK_INT(b.indirect, 2);
	CHECK_INT(objdump__branches("not objdump output\n", 0, 1, NULL, NULL), 0);
}

/* The corpus's recorded ladder: workload (main) and libc (-t empty, -T). */
static void t_corpus_ladder(void)
{
	char *wt = slurp(STACKS_ENTRY "006.stdout");
	char *lt = slurp(STACKS_ENTRY "008.stdout");
	char *lT = slurp(STACKS_ENTRY "009.stdout");
	CHECK(wt && lt && lT); /* the corpus ships in tests/corpus: never a skip */
	uint64_t a[8];
	CHECK_INT(objdump__parse_symbols(wt, 64, 8, a), 1);
	CHECK(a[0] == 0x10c0);
	CHECK_INT(objdump__parse_symbols(lt, 64, 8, a), 0);
	/* the 8 largest, in the order the recording disassembled them */
	static const uint64_t want[8] = {0xbcb80, 0x12b010, 0x1654d0, 0xde1a0,
					 0x155c10, 0xff760,  0x192080, 0x11f2a0};
	CHECK_INT(objdump__parse_symbols(lT, 64, 8, a), 8);
	for (int i = 0; i < 8; i++)
		CHECK(a[i] == want[i]);
	struct stacks_decision d = {0};
	d.modules = calloc(2, sizeof(*d.modules));
	d.nr_modules = 2;
	d.modules[0] = (struct stacks_module){.path = xstrdup("./workload")};
	d.modules[1] = (struct stacks_module){.path = xstrdup("/lib/x86_64-linux-gnu/libc.so.6")};
	for (int i = 7; i <= 17; i++) {
		if (i >= 8 && i <= 9)
			continue;
		char path[600];
		snprintf(path, sizeof(path), STACKS_ENTRY "%03d.stdout", i);
		char *dis = slurp(path);
		CHECK(dis != NULL);
		struct stacks_module *m = &d.modules[i == 7 ? 0 : 1];
		m->sampled++;
		m->with_fp += objdump__fp_prologue(dis, STACKS_PROLOGUE_INSNS);
		free(dis);
	}
	CHECK_INT(d.modules[0].with_fp, 1);
	CHECK_INT(d.modules[1].sampled, 8);
	stacks_decide(&d, "AMD EPYC 7702 64-Core Processor", true, 0.75);
	CHECK_INT(d.mode, STACKS_FP); /* as the recording, which then ran --call-graph fp */
	CHECK(d.rate >= 0.75);
	/* a demanding threshold: the target (every function with a frame) still
	 * decides; libc, without frame pointers, is named as breaking the chain */
	stacks_decide(&d, "AMD EPYC 7702 64-Core Processor", true, 1.0);
	CHECK_INT(d.mode, STACKS_FP);
	if (d.modules[1].with_fp < 8)
		CHECK(strstr(d.detail, "modules that break the chain: libc.so.6") != NULL);
	stacks_decision__release(&d);
	free(wt);
	free(lt);
	free(lT);
}

static void t_decide(void)
{
	struct stacks_decision d = {0};
	stacks_decide(&d, "Intel(R) Xeon(R) Platinum 8380", true, 0.75);
	CHECK_INT(d.mode, STACKS_LBR);
	stacks_decide(&d, "AMD EPYC", false, 0.75);
	CHECK_INT(d.mode, STACKS_NONE);
	CHECK(strstr(d.reason, "GNU objdump") != NULL);
	d.modules = calloc(2, sizeof(*d.modules));
	d.nr_modules = 2;
	d.modules[0] = (struct stacks_module){.path = xstrdup("./app"), .sampled = 4, .with_fp = 1};
	d.modules[1] = (struct stacks_module){.path = xstrdup("/lib/libm.so.6"), .sampled = 8,
					      .with_fp = 8};
	stacks_decide(&d, "AMD EPYC", true, 0.75); /* the target's 25% decides */
	CHECK_INT(d.mode, STACKS_NONE);
	CHECK(strstr(d.reason, "frame pointers in 25% of the checked functions of the target"));
	CHECK(strstr(d.reason, "worst offender: ./app (25%)") != NULL);
	d.modules[0].with_fp = 3; /* 75% */
	stacks_decide(&d, "AMD EPYC", true, 0.75);
	CHECK_INT(d.mode, STACKS_FP);
	/* issue 24: a -fno-omit-frame-pointer target beside Debian's libc (no
	 * frame pointers): the mean (69%) refused it; the target decides, libc
	 * is named as the module that breaks the chain */
	d.modules[0].with_fp = 4;
	free(d.modules[1].path);
	d.modules[1] = (struct stacks_module){.path = xstrdup("/lib/x86_64-linux-gnu/libc.so.6"),
					      .sampled = 8, .with_fp = 3};
	stacks_decide(&d, "AMD EPYC", true, 0.75);
	CHECK_INT(d.mode, STACKS_FP);
	CHECK(strstr(d.detail, "; modules that break the chain: libc.so.6 38%") != NULL);
	stacks_decision__release(&d);
	enum stacks_mode m;
	CHECK_INT(stacks_mode__parse("dwarf", &m), 0);
	CHECK_INT(m, STACKS_DWARF);
	CHECK_INT(stacks_mode__parse("frame", &m), -EINVAL);
}

static void t_cache(void)
{
	char dir[] = "/tmp/nunatak-stacks-cache-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	setenv("XDG_CACHE_HOME", dir, 1);
	char *key = stacks_cache_key(FIX "callers_fp.objdump-t.txt");
	CHECK(key != NULL);
	CHECK(stacks_cache_key("/nonexistent/module") == NULL);
	struct stacks_cache c;
	stacks_cache__load(&c);
	int sampled = 0, fp = 0;
	CHECK(!stacks_cache__module(&c, key, &sampled, &fp));
	stacks_cache__put_module(&c, key, 8, 7);
	char a[] = "/lib/a.so", b[] = "/lib/b.so";
	char *libs[] = {a, b};
	stacks_cache__put_libs(&c, key, NULL, libs, 2);
	stacks_cache__save(&c);
	stacks_cache__load(&c); /* read back from the file */
	CHECK(stacks_cache__module(&c, key, &sampled, &fp));
	CHECK_INT(sampled, 8);
	CHECK_INT(fp, 7);
	size_t n = 0;
	char **got = stacks_cache__libs(&c, key, "", &n);
	CHECK_INT(n, 2);
	CHECK_STR(got[1], "/lib/b.so");
	for (size_t i = 0; i < n; i++)
		free(got[i]);
	free(got);
	CHECK(stacks_cache__libs(&c, key, "/opt/lib", &n) == NULL); /* another LD_LIBRARY_PATH */
	stacks_cache__save(&c);
	free(key);
	char path[600];
	snprintf(path, sizeof(path), "%s/nunatak/stacks-fp.txt", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/nunatak", dir);
	rmdir(path);
	rmdir(dir);
}

static const struct test_case cases[] = {
	{"cache", "module results and ldd lists survive a reload, keyed by identity", t_cache},
	{"parsers_here", "ldd, objdump -t and prologues recorded on this machine", t_parsers_here},
	{"corpus_ladder", "the corpus's recorded ladder decides fp again", t_corpus_ladder},
	{"branches", "calls, jumps out and indirect branches of an objdump -d listing", t_branches},
	{"decide", "lbr, objdump missing, threshold, worst offender", t_decide},
};
TEST_MAIN(cases)
