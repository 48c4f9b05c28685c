// SPDX-License-Identifier: BSD-3-Clause
// Rank lists (model/rank_list.h): a communicator's members as the MPI probe
// writes them, read back and written again the same way.
#include "harness.h"

#include <errno.h>

#include "common/alloc.h"
#include "model/rank_list.h"

static void t_round_trip(void)
{
	static const struct {
		const char *text;
		size_t n;
	} cases[] = {{"0-3", 4}, {"2,0", 2}, {"5", 1}, {"0-4094:2", 2048}, {"6,4,0-8:4,9-11", 8},
		     {"1,3", 2}};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int *v = NULL;
		size_t nr = 0, cap = 0;
		CHECK_INT(rank_list_append(cases[i].text, 1 << 20, &v, &nr, &cap), 0);
		CHECK_INT(nr, cases[i].n);
		char *back = rank_list_format(v, nr);
		/* "6,4,0-8:4,9-11": 6 4 0 4 8 9 10 11 folds as 6,4,0-8:4,9-11 */
		CHECK_STR(back, cases[i].text);
		xfree(back);
		xfree(v);
	}
	int *v = NULL;
	size_t nr = 0, cap = 0;
	CHECK_INT(rank_list_append("3,2,1,0", 8, &v, &nr, &cap), 0);
	char *t = rank_list_format(v, nr);
	CHECK_STR(t, "3,2,1,0"); /* going down: one by one */
	xfree(t);
	CHECK_INT(rank_list_append("10-12", 8, &v, &nr, &cap), 0); /* appends */
	CHECK_INT(nr, 7);
	CHECK_INT(v[6], 12);
	xfree(v);
}

static void t_refused(void)
{
	static const char *const bad[] = {"", ",", "1,", ",1", "3-1", "1-1", "0-5:2", "0-4:0",
					  "a", "1-", "-1", "2147483648", "0-3x", "1 2"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int *v = NULL;
		size_t nr = 0, cap = 0;
		int rc = rank_list_append(bad[i], 100, &v, &nr, &cap);
		/* "" holds no rank: accepted, empty */
		CHECK(bad[i][0] ? rc == -EINVAL : rc == 0 && nr == 0);
		xfree(v);
	}
	int *v = NULL;
	size_t nr = 0, cap = 0;
	CHECK_INT(rank_list_append("0-99", 99, &v, &nr, &cap), -EINVAL); /* past the limit */
	CHECK_INT(rank_list_append("0-2147483647", 100, &v, &nr, &cap), -EINVAL);
	xfree(v);
}

static const struct test_case cases[] = {
	{"round_trip", "ranges, steps, reversed orders read and folded back the same", t_round_trip},
	{"refused", "malformed lists and lists past their size refused", t_refused},
};

TEST_MAIN(cases)
