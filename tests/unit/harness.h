/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test harness: each test file lists its cases in a table, each case runs
 * in a forked child (a crash fails one case, not the file), and the result is
 * OK, FAIL or SKIP with a reason. The closing line is "N passed, N failed, N
 * skipped". `test --list` prints the case names and `test NAME` runs one:
 * tests/CMakeLists.txt registers each case as its own ctest test, so a skip
 * (a missing machine capability only) shows per case. Usage:
 *
 *   static void t_roundtrip(void) { CHECK(x == 1); CHECK_STR(a, "b"); }
 *   static const struct test_case cases[] = {
 *           {"roundtrip", "manifest survives write+read", t_roundtrip},
 *   };
 *   TEST_MAIN(cases)
 */
#ifndef TESTS_UNIT_HARNESS_H
#define TESTS_UNIT_HARNESS_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct test_case {
	const char *name;
	const char *desc;
	void (*fn)(void);
};

#define TEST_SKIP_CODE 77

#define CHECK(cond)                                                                  \
	do {                                                                         \
		if (!(cond)) {                                                       \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, \
				#cond);                                              \
			exit(1);                                                     \
		}                                                                    \
	} while (0)

#define CHECK_INT(a, b)                                                              \
	do {                                                                         \
		long long va_ = (long long)(a), vb_ = (long long)(b);                \
		if (va_ != vb_) {                                                    \
			fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n",   \
				__FILE__, __LINE__, #a, va_, #b, vb_);               \
			exit(1);                                                     \
		}                                                                    \
	} while (0)

#define CHECK_STR(a, b)                                                              \
	do {                                                                         \
		const char *sa_ = (a), *sb_ = (b);                                   \
		if (!sa_ || !sb_ || strcmp(sa_, sb_) != 0) {                         \
			fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n",     \
				__FILE__, __LINE__, #a, sa_ ? sa_ : "(null)",        \
				sb_ ? sb_ : "(null)");                               \
			exit(1);                                                     \
		}                                                                    \
	} while (0)

#define CHECK_NEAR(a, b, tol)                                                        \
	do {                                                                         \
		double da_ = (double)(a), db_ = (double)(b);                         \
		if (!(da_ - db_ <= (tol) && db_ - da_ <= (tol))) {                   \
			fprintf(stderr, "%s:%d: %s == %g, expected %g +- %g\n",       \
				__FILE__, __LINE__, #a, da_, db_, (double)(tol));    \
			exit(1);                                                     \
		}                                                                    \
	} while (0)

/* A missing input (a corpus file, a temp dir) is a failure, never a skip:
 * SKIP is only for a missing machine capability (no perf, no compiler). */
#define FAIL_INPUT(reason)                                                           \
	do {                                                                         \
		fprintf(stderr, "%s:%d: missing input: %s\n", __FILE__, __LINE__,  \
			reason);                                                     \
		exit(1);                                                             \
	} while (0)

#define SKIP(reason)                                                                 \
	do {                                                                         \
		fprintf(stderr, "skip: %s\n", reason);                               \
		exit(TEST_SKIP_CODE);                                                \
	} while (0)

static inline int test_run_all(const struct test_case *cases, size_t n, int argc,
			       char **argv)
{
	int passed = 0, failed = 0, skipped = 0;
	if (argc > 1 && strcmp(argv[1], "--list") == 0) { /* one ctest test per case */
		for (size_t i = 0; i < n; i++)
			printf("%s\n", cases[i].name);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (argc > 1 && strcmp(argv[1], cases[i].name) != 0)
			continue;
		fflush(NULL);
		pid_t pid = fork();
		if (pid == 0) {
			cases[i].fn();
			fflush(NULL);
			_exit(0);
		}
		int st = 0;
		if (pid < 0 || waitpid(pid, &st, 0) < 0) {
			st = 1 << 8;
		}
		const char *verdict;
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
			verdict = "OK  ";
			passed++;
		} else if (WIFEXITED(st) && WEXITSTATUS(st) == TEST_SKIP_CODE) {
			verdict = "SKIP";
			skipped++;
		} else {
			verdict = "FAIL";
			failed++;
			if (WIFSIGNALED(st))
				fprintf(stderr, "  (killed by signal %d)\n", WTERMSIG(st));
		}
		printf("%s %-32s %s\n", verdict, cases[i].name, cases[i].desc);
	}
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	if (passed + failed + skipped == 0) {
		fprintf(stderr, "no case named %s\n", argc > 1 ? argv[1] : "(none)");
		return 1;
	}
	if (failed)
		return 1;
	if (passed == 0 && skipped > 0)
		return TEST_SKIP_CODE;
	return 0;
}

#define TEST_MAIN(cases)                                                             \
	int main(int argc, char **argv)                                              \
	{                                                                            \
		return test_run_all(cases, sizeof(cases) / sizeof(cases[0]), argc,   \
				    argv);                                           \
	}

#endif
