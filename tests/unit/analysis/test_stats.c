// SPDX-License-Identifier: BSD-3-Clause
/* The interval arithmetic of `nunatak compare` against values computed
 * independently: Clopper-Pearson bounds by bisection on exact binomial sums
 * (python3, math.comb), Student's t by Simpson integration of its density,
 * and the textbook t table. */
#include <errno.h>
#include <math.h>

#include "harness.h"

#include "analysis/stats.h"

static void t_clopper_pearson(void)
{
	static const struct {
		int64_t k, n;
		double lo, hi;
	} known[] = {
		{5, 10, 0.18708602844739858, 0.8129139715526015},
		{0, 10, 0.0, 0.3084971078187607},
		{10, 10, 0.6915028921812392, 1.0},
		{1, 3, 0.00840375865961257, 0.9057006759497539},
		{350, 1050, 0.30484467415736594, 0.3627597028693147},
		{150, 301, 0.44045176928895435, 0.556258982824356},
	};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		double lo, hi;
		CHECK_INT(stats_clopper_pearson(known[i].k, known[i].n, 0.95, &lo, &hi), 0);
		CHECK_NEAR(lo, known[i].lo, 1e-9);
		CHECK_NEAR(hi, known[i].hi, 1e-9);
	}
	double lo, hi;
	CHECK_INT(stats_clopper_pearson(3, 2, 0.95, &lo, &hi), -EINVAL);
	CHECK_INT(stats_clopper_pearson(0, 0, 0.95, &lo, &hi), -EINVAL);
	CHECK_INT(stats_clopper_pearson(1, 2, 1.0, &lo, &hi), -EINVAL);
}

/* 350 samples in A, 700 in B: p = 700/1050 within the Clopper-Pearson
 * bounds of 700 of 1050 (1 - the bounds of 350 of 1050), mapped to p/(1-p). */
static void t_poisson_ratio(void)
{
	double lo, hi;
	CHECK_INT(stats_poisson_ratio(350, 700, 0.95, &lo, &hi), 0);
	double plo = 1 - 0.3627597028693147, phi = 1 - 0.30484467415736594;
	CHECK_NEAR(lo, plo / (1 - plo), 1e-8);
	CHECK_NEAR(hi, phi / (1 - phi), 1e-8);
	CHECK(lo > 1.7 && lo < 1.8 && hi > 2.2 && hi < 2.35);
	/* Equal counts: an interval symmetric in log around 1. */
	CHECK_INT(stats_poisson_ratio(5, 5, 0.95, &lo, &hi), 0);
	CHECK_NEAR(lo * hi, 1.0, 1e-9);
	CHECK_NEAR(lo, 0.18708602844739858 / (1 - 0.18708602844739858), 1e-8);
	/* Nothing in A: unbounded above; nothing in B: 0 below. */
	CHECK_INT(stats_poisson_ratio(0, 10, 0.95, &lo, &hi), 0);
	CHECK(isinf(hi));
	CHECK_NEAR(lo, 0.6915028921812392 / (1 - 0.6915028921812392), 1e-8);
	CHECK_INT(stats_poisson_ratio(10, 0, 0.95, &lo, &hi), 0);
	CHECK(lo == 0.0);
	CHECK_INT(stats_poisson_ratio(0, 0, 0.95, &lo, &hi), -EINVAL);
}

static void t_student(void)
{
	CHECK_NEAR(stats_t_quantile(0.975, 1), 12.706204736174707, 1e-8);
	CHECK_NEAR(stats_t_quantile(0.975, 2), 4.302652729749464, 1e-9);
	CHECK_NEAR(stats_t_quantile(0.975, 5), 2.570581835636314, 1e-9);
	CHECK_NEAR(stats_t_quantile(0.975, 10), 2.2281388519862744, 1e-9);
	CHECK_NEAR(stats_t_quantile(0.975, 30), 2.0422724563012373, 1e-9);
	CHECK_NEAR(stats_t_quantile(0.025, 5), -2.570581835636314, 1e-9);
	CHECK_NEAR(stats_t_cdf(2.0, 3), 0.9303370157205755, 1e-10);
	CHECK_NEAR(stats_t_cdf(2.0, 3.5), 0.9369307387120476, 1e-10);
	CHECK_NEAR(stats_t_cdf(1.0, 7.25), 0.8252445611014267, 1e-10);
	CHECK_NEAR(stats_t_cdf(-1.0, 7.25), 1 - 0.8252445611014267, 1e-10);
	CHECK(isnan(stats_t_quantile(1.0, 3)));
	CHECK_NEAR(stats_beta_inc(2, 3, 0.4), 0.5248, 1e-12); /* P(Bin(4, 0.4) >= 2) */
	CHECK_NEAR(stats_beta_quantile(2, 3, 0.5248), 0.4, 1e-12);
}

/* Welch on logs: 3 Runs of A, 4 of B (python3: statistics + Simpson t). */
static void t_welch_log(void)
{
	const double a[] = {1.0, 1.1, 0.95}, b[] = {2.0, 2.2, 1.9, 2.1};
	struct stats_t_interval t;
	CHECK_INT(stats_log_ratio_t(a, 3, b, 4, 0.95, &t), 0);
	CHECK_INT(t.pooled, 0);
	CHECK_NEAR(t.df, 3.9696360462265954, 1e-9);
	CHECK_NEAR(t.ratio, 2.0171318936135068, 1e-12);
	CHECK_NEAR(t.lo, 1.7389239673030978, 1e-7);
	CHECK_NEAR(t.hi, 2.339849903008214, 1e-7);
	/* One Run on a side: the other side's variance for both, df = n - 1. */
	CHECK_INT(stats_log_ratio_t(a, 1, b, 4, 0.95, &t), 0);
	CHECK_INT(t.pooled, 1);
	CHECK_NEAR(t.df, 3, 1e-12);
	CHECK_NEAR(t.ratio, exp((log(2.0) + log(2.2) + log(1.9) + log(2.1)) / 4), 1e-12);
	/* Nothing to estimate a spread from, or a value that has no log. */
	CHECK_INT(stats_log_ratio_t(a, 1, b, 1, 0.95, &t), -EINVAL);
	const double z[] = {1.0, 0.0};
	CHECK_INT(stats_log_ratio_t(z, 2, b, 4, 0.95, &t), -EINVAL);
}

static const struct test_case cases[] = {
	{"clopper_pearson", "exact binomial bounds match independent values", t_clopper_pearson},
	{"poisson_ratio", "conditional Poisson rate-ratio interval, edges at 0 counts", t_poisson_ratio},
	{"student", "t quantiles and CDF match the t table and integration", t_student},
	{"welch_log", "Welch and pooled t intervals on log ratios", t_welch_log},
};
TEST_MAIN(cases)
