/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The distributions behind `nunatak compare`'s intervals, pure numbers:
 * the regularized incomplete beta function and its inverse, Student's t,
 * the Clopper-Pearson interval of a binomial proportion, the exact
 * conditional interval of the ratio of two Poisson rates, and a t interval
 * on log ratios. Accuracy: about 1e-12 relative on the quantiles (bisection
 * to the double's resolution on a continued fraction converged to 1e-15).
 * Every function is thread-safe and allocates nothing.
 */
#ifndef NUNATAK_ANALYSIS_STATS_H
#define NUNATAK_ANALYSIS_STATS_H

#include <stddef.h>
#include <stdint.h>

/* I_x(a, b), the regularized incomplete beta function, for a, b > 0 and
 * x in [0, 1]; NaN outside that domain. */
double stats_beta_inc(double a, double b, double x);

/* The x with I_x(a, b) = p, p in [0, 1]; NaN outside the domain. */
double stats_beta_quantile(double a, double b, double p);

/* P(T <= t) for Student's t with df > 0 degrees of freedom (df may be
 * fractional, as Welch's is). */
double stats_t_cdf(double t, double df);

/* The t with P(T <= t) = p, p in (0, 1). */
double stats_t_quantile(double p, double df);

/* Clopper-Pearson ("exact") two-sided interval of a binomial proportion
 * with k successes in n trials at confidence conf (0.95): lower bound 0
 * when k == 0, upper 1 when k == n. Returns 0, or -EINVAL (k outside
 * [0, n], n == 0, conf outside (0, 1)). */
int stats_clopper_pearson(int64_t k, int64_t n, double conf, double *lo, double *hi);

/*
 * The ratio of two Poisson rates, lambda_b / lambda_a, from the counts a and
 * b observed over equal exposures: conditional on a + b, b is binomial with
 * p = lambda_b / (lambda_a + lambda_b), so the Clopper-Pearson interval of p
 * maps to [p_lo / (1 - p_lo), p_hi / (1 - p_hi)] (the exact conditional
 * interval; Fay's exactci's poisson.test). *lo is 0 when b == 0 and *hi is
 * +INFINITY when a == 0. Returns 0, or -EINVAL when a + b == 0 or conf is
 * outside (0, 1).
 */
int stats_poisson_ratio(int64_t a, int64_t b, double conf, double *lo, double *hi);

/* The result of stats_log_ratio_t(). */
struct stats_t_interval {
	double ratio;   /* exp(mean log b - mean log a): ratio of geometric means */
	double lo, hi;  /* the interval of that ratio */
	double df;      /* degrees of freedom used */
	int pooled;     /* 1: one side had a single value, the other side's
			   variance stood for both (equal variances assumed) */
};

/*
 * t interval on the difference of the mean logarithms of two samples
 * (xa[na], xb[nb], every value > 0): Welch's unequal-variance interval when
 * both sides have two values or more; with a single value on one side, the
 * other side's variance is taken for both (df = its n - 1). Returns 0, or
 * -EINVAL when a value is not > 0 or when neither side has two values.
 */
int stats_log_ratio_t(const double *xa, size_t na, const double *xb, size_t nb, double conf,
		      struct stats_t_interval *out);

#endif
