// SPDX-License-Identifier: BSD-3-Clause
#include "analysis/stats.h"

#include <errno.h>
#include <math.h>

#define CF_MAX_TERMS 200000
#define CF_EPS 1e-15
#define CF_TINY 1e-300

/* The continued fraction of I_x(a, b) (Abramowitz-Stegun 26.5.8), by the
 * modified Lentz method; converges fast for x < (a + 1) / (a + b + 2). */
static double beta_cf(double a, double b, double x)
{
	double f = 1.0, c = 1.0, d = 0.0;
	for (int i = 0; i <= CF_MAX_TERMS; i++) {
		double m = (double)(i / 2), num;
		if (i == 0)
			num = 1.0;
		else if (i % 2 == 0)
			num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		else
			num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		d = 1.0 + num * d;
		d = 1.0 / (fabs(d) < CF_TINY ? CF_TINY : d);
		c = 1.0 + num / c;
		if (fabs(c) < CF_TINY)
			c = CF_TINY;
		double cd = c * d;
		f *= cd;
		if (fabs(1.0 - cd) < CF_EPS)
			break;
	}
	return f - 1.0;
}

double stats_beta_inc(double a, double b, double x)
{
	if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1))
		return NAN;
	if (x == 0 || x == 1)
		return x;
	double lfront = a * log(x) + b * log1p(-x) - (lgamma(a) + lgamma(b) - lgamma(a + b));
	if (x < (a + 1) / (a + b + 2))
		return exp(lfront) * beta_cf(a, b, x) / a;
	return 1.0 - exp(lfront) * beta_cf(b, a, 1.0 - x) / b;
}

/* Bisection: I_x is increasing in x, so this cannot miss, and it stops at
 * the resolution of a double relative to the bound. */
double stats_beta_quantile(double a, double b, double p)
{
	if (!(a > 0) || !(b > 0) || !(p >= 0) || !(p <= 1))
		return NAN;
	if (p == 0 || p == 1)
		return p;
	double lo = 0.0, hi = 1.0;
	for (int i = 0; i < 2200; i++) {
		double mid = 0.5 * (lo + hi);
		if (mid <= lo || mid >= hi || hi - lo <= 2e-16 * hi)
			break;
		if (stats_beta_inc(a, b, mid) < p)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

double stats_t_cdf(double t, double df)
{
	if (!(df > 0) || isnan(t))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1.0 : 0.0;
	double tail = 0.5 * stats_beta_inc(df / 2, 0.5, df / (df + t * t));
	return t > 0 ? 1.0 - tail : tail;
}

/* P(|T| > t) = I_{df/(df+t^2)}(df/2, 1/2), inverted through the beta quantile. */
double stats_t_quantile(double p, double df)
{
	if (!(df > 0) || !(p > 0) || !(p < 1))
		return NAN;
	if (p == 0.5)
		return 0.0;
	double tail = 2.0 * (p > 0.5 ? 1.0 - p : p);
	double x = stats_beta_quantile(df / 2, 0.5, tail);
	double t = x > 0 ? sqrt(df * (1.0 - x) / x) : INFINITY;
	return p > 0.5 ? t : -t;
}

int stats_clopper_pearson(int64_t k, int64_t n, double conf, double *lo, double *hi)
{
	if (n <= 0 || k < 0 || k > n || !(conf > 0) || !(conf < 1))
		return -EINVAL;
	double alpha = 1.0 - conf, kd = (double)k, nd = (double)n;
	*lo = k == 0 ? 0.0 : stats_beta_quantile(kd, nd - kd + 1, alpha / 2);
	*hi = k == n ? 1.0 : stats_beta_quantile(kd + 1, nd - kd, 1.0 - alpha / 2);
	return 0;
}

int stats_poisson_ratio(int64_t a, int64_t b, double conf, double *lo, double *hi)
{
	double plo, phi;
	if (a < 0 || b < 0 || a + b == 0)
		return -EINVAL;
	int rc = stats_clopper_pearson(b, a + b, conf, &plo, &phi);
	if (rc < 0)
		return rc;
	*lo = plo / (1.0 - plo);
	*hi = phi >= 1.0 ? INFINITY : phi / (1.0 - phi);
	return 0;
}

static int log_moments(const double *x, size_t n, double *mean, double *var)
{
	double s = 0, ss = 0;
	for (size_t i = 0; i < n; i++) {
		if (!(x[i] > 0) || isinf(x[i]))
			return -EINVAL;
		s += log(x[i]);
	}
	*mean = s / (double)n;
	for (size_t i = 0; i < n; i++) {
		double d = log(x[i]) - *mean;
		ss += d * d;
	}
	*var = n > 1 ? ss / (double)(n - 1) : NAN;
	return 0;
}

int stats_log_ratio_t(const double *xa, size_t na, const double *xb, size_t nb, double conf,
		      struct stats_t_interval *out)
{
	double ma, va, mb, vb;
	if (na == 0 || nb == 0 || (na < 2 && nb < 2) || !(conf > 0) || !(conf < 1) ||
	    log_moments(xa, na, &ma, &va) < 0 || log_moments(xb, nb, &mb, &vb) < 0)
		return -EINVAL;
	double se2, df;
	out->pooled = na < 2 || nb < 2;
	if (out->pooled) {
		double v = na < 2 ? vb : va;
		se2 = v * (1.0 / (double)na + 1.0 / (double)nb);
		df = (double)(na < 2 ? nb : na) - 1.0;
	} else {
		double qa = va / (double)na, qb = vb / (double)nb;
		se2 = qa + qb;
		double den = qa * qa / (double)(na - 1) + qb * qb / (double)(nb - 1);
		/* Identical values on both sides: no spread, any df gives width 0. */
		df = den > 0 ? se2 * se2 / den : (double)(na + nb - 2);
	}
	double d = mb - ma, h = stats_t_quantile(0.5 + conf / 2, df) * sqrt(se2);
	out->ratio = exp(d);
	out->lo = exp(d - h);
	out->hi = exp(d + h);
	out->df = df;
	return 0;
}
