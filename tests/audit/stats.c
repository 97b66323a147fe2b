/*
 * stats.c — Clopper–Pearson, the linear discriminant and threshold tests
 * of the privacy audit (stats.h).
 */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "linalg.h"

/* One term of the modified Lentz algorithm: c and d updated with the
 * numerator num; returns the factor to multiply the fraction by. */
static double lentz(double num, double *c, double *d)
{
    const double tiny = 1e-300;
    *d = 1.0 + num * *d;
    *c = 1.0 + num / *c;
    if (fabs(*d) < tiny)
        *d = tiny;
    if (fabs(*c) < tiny)
        *c = tiny;
    *d = 1.0 / *d;
    return *d * *c;
}

/* The continued fraction of I_x(a, b) (modified Lentz), valid for
 * x < (a + 1) / (a + b + 2). */
static double beta_cf(double a, double b, double x)
{
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    if (fabs(d) < 1e-300)
        d = 1e-300;
    d = 1.0 / d;
    double f = d;
    for (int m = 1; m <= 100000; m++) {
        double m2 = 2.0 * m;
        f *= lentz(m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)), &c, &d);
        double step = lentz(-(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0)), &c, &d);
        f *= step;
        if (fabs(step - 1.0) < 1e-15)
            break;
    }
    return f;
}

double audit_ibeta(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    double lfront = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    if (x < (a + 1.0) / (a + b + 2.0))
        return exp(lfront) * beta_cf(a, b, x) / a;
    return 1.0 - exp(lfront) * beta_cf(b, a, 1.0 - x) / b;
}

/* The p in [0, 1] with I_p(a, b) = target, by bisection (I is increasing in p). */
static double ibeta_solve(double a, double b, double target)
{
    double lo = 0, hi = 1;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (audit_ibeta(a, b, mid) < target)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

double audit_cp_lower(long k, long n, double alpha)
{
    if (k <= 0)
        return 0;
    /* P[X >= k | p] = I_p(k, n - k + 1) = alpha */
    return ibeta_solve((double)k, (double)(n - k + 1), alpha);
}

double audit_cp_upper(long k, long n, double alpha)
{
    if (k >= n)
        return 1;
    /* P[X <= k | p] = 1 - I_p(k + 1, n - k) = alpha */
    return ibeta_solve((double)(k + 1), (double)(n - k), 1.0 - alpha);
}

int audit_lda(const double *x0, long n0, const double *x1, long n1, int m, double *w)
{
    const size_t mm = (size_t)m * m;
    double *mean0 = calloc((size_t)m, sizeof(double));
    double *mean1 = calloc((size_t)m, sizeof(double));
    double *cov = calloc(mm, sizeof(double));
    double *chol = calloc(mm, sizeof(double));
    int rc = -1;
    if (!mean0 || !mean1 || !cov || !chol)
        goto out;
    for (long i = 0; i < n0; i++)
        for (int j = 0; j < m; j++)
            mean0[j] += x0[(size_t)i * m + j] / (double)n0;
    for (long i = 0; i < n1; i++)
        for (int j = 0; j < m; j++)
            mean1[j] += x1[(size_t)i * m + j] / (double)n1;
    double *c = malloc(sizeof(double) * (size_t)m);
    if (!c)
        goto out;
    for (int side = 0; side < 2; side++) {
        const double *x = side ? x1 : x0;
        const double *mu = side ? mean1 : mean0;
        long n = side ? n1 : n0;
        for (long i = 0; i < n; i++) {
            for (int j = 0; j < m; j++)
                c[j] = x[(size_t)i * m + j] - mu[j];
            for (int j = 0; j < m; j++)
                for (int k = 0; k <= j; k++)
                    cov[(size_t)j * m + k] += c[j] * c[k];
        }
    }
    free(c);
    double scale = 0;
    for (int j = 0; j < m; j++)
        for (int k = 0; k <= j; k++) {
            cov[(size_t)j * m + k] /= (double)(n0 + n1 - 2);
            cov[(size_t)k * m + j] = cov[(size_t)j * m + k];
        }
    for (int j = 0; j < m; j++)
        scale = fmax(scale, cov[(size_t)j * m + j]);
    /* A ridge far below any noise variance the mechanisms draw, so that a
     * coordinate without noise is not a singular matrix. */
    double ridge = scale > 0 ? 1e-12 * scale : 1e-300;
    for (int j = 0; j < m; j++)
        cov[(size_t)j * m + j] += ridge;
    for (int j = 0; j < m; j++)
        w[j] = mean1[j] - mean0[j];
    for (double grow = ridge; bb_chol(cov, chol, m) != 0 && grow < scale + 1; grow *= 10)
        for (int j = 0; j < m; j++)
            cov[(size_t)j * m + j] += grow;
    if (bb_chol_solve(chol, m, w) != 0)
        goto out;
    rc = 0;
out:
    free(mean0);
    free(mean1);
    free(cov);
    free(chol);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Number of sorted values > t, and < t. */
static long count_above(const double *s, long n, double t)
{
    long lo = 0, hi = n; /* first index with s > t */
    while (lo < hi) {
        long mid = (lo + hi) / 2;
        if (s[mid] > t)
            hi = mid;
        else
            lo = mid + 1;
    }
    return n - lo;
}

static long count_below(const double *s, long n, double t)
{
    long lo = 0, hi = n; /* first index with s >= t */
    while (lo < hi) {
        long mid = (lo + hi) / 2;
        if (s[mid] >= t)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static double eps_bound(long hits, long n_hits, long fa, long n_fa, double delta, double alpha,
                        int point)
{
    double tpr = point ? (double)hits / (double)n_hits : audit_cp_lower(hits, n_hits, alpha);
    double fpr = point ? (double)fa / (double)n_fa : audit_cp_upper(fa, n_fa, alpha);
    if (tpr <= delta)
        return -INFINITY;
    if (fpr <= 0)
        return INFINITY;
    return log((tpr - delta) / fpr);
}

struct audit_test audit_choose(double *s0, long n0, double *s1, long n1, double delta,
                               double alpha)
{
    qsort(s0, (size_t)n0, sizeof(double), cmp_double);
    qsort(s1, (size_t)n1, sizeof(double), cmp_double);
    struct audit_test best = {1, INFINITY};
    double best_eps = -INFINITY;
    for (int upper = 1; upper >= 0; upper--) {
        long n = upper ? n0 : n1;
        for (double cf = 1; cf <= (double)n / 2; cf = cf < 8 ? cf + 1 : cf * 1.15) {
            long c = (long)cf;
            /* The threshold leaves about c samples of the side it does not
             * favour on its side. */
            double t = upper ? s0[n0 - c] : s1[c - 1];
            long fa = upper ? count_above(s0, n0, t) : count_below(s1, n1, t);
            long hits = upper ? count_above(s1, n1, t) : count_below(s0, n0, t);
            double e = upper ? eps_bound(hits, n1, fa, n0, delta, alpha, 0)
                             : eps_bound(hits, n0, fa, n1, delta, alpha, 0);
            if (e > best_eps) {
                best_eps = e;
                best = (struct audit_test){upper, t};
            }
        }
    }
    return best;
}

struct audit_bound audit_evaluate(struct audit_test test, const double *s0, long n0,
                                  const double *s1, long n1, double delta, double alpha)
{
    struct audit_bound b = {0};
    const double *hit_side = test.upper ? s1 : s0, *fa_side = test.upper ? s0 : s1;
    b.n_hits = test.upper ? n1 : n0;
    b.n_false = test.upper ? n0 : n1;
    for (long i = 0; i < b.n_hits; i++)
        b.hits += test.upper ? hit_side[i] > test.t : hit_side[i] < test.t;
    for (long i = 0; i < b.n_false; i++)
        b.false_alarms += test.upper ? fa_side[i] > test.t : fa_side[i] < test.t;
    b.eps_lo = eps_bound(b.hits, b.n_hits, b.false_alarms, b.n_false, delta, alpha, 0);
    b.eps_hat = eps_bound(b.hits, b.n_hits, b.false_alarms, b.n_false, delta, alpha, 1);
    return b;
}
