/*
 * stats.h — the audit's statistics: Clopper–Pearson intervals, a linear
 * discriminant learned on training samples, and the epsilon lower bound of
 * one threshold test.
 *
 * An (epsilon, delta)-DP mechanism M satisfies, for every neighbouring pair
 * (D, D') and every set S of outputs, P[M(D) in S] <= e^epsilon P[M(D') in S]
 * + delta. A threshold test S = {score > t} measured on n samples of each
 * side gives counts; with TPR >= tpr_lo and FPR <= fpr_hi (Clopper–Pearson,
 * each at confidence 1 - alpha) the claim is refuted unless
 * epsilon >= ln((tpr_lo - delta) / fpr_hi), which is the lower bound
 * reported (Jagielski, Ullman, Oprea 2020; Nasr et al. 2021).
 */
#ifndef BB_AUDIT_STATS_H
#define BB_AUDIT_STATS_H

#include <stddef.h>

/* The regularised incomplete beta function I_x(a, b), a, b > 0, x in [0, 1]. */
double audit_ibeta(double a, double b, double x);

/* One-sided Clopper–Pearson bounds on a binomial proportion from k
 * successes in n trials, each holding with probability >= 1 - alpha. */
double audit_cp_lower(long k, long n, double alpha);
double audit_cp_upper(long k, long n, double alpha);

/* A linear discriminant over m-dimensional observations: w = (S + r I)^-1
 * (mean1 - mean0), S the pooled covariance, r a tiny ridge (so an exactly
 * repeated coordinate gets a huge weight, as it should: it separates the
 * classes without error). x0, x1: n0 x m and n1 x m, row-major. w (m)
 * out. Returns 0, or -1 if out of memory. */
int audit_lda(const double *x0, long n0, const double *x1, long n1, int m, double *w);

/* The test chosen on training scores, applied to held-out ones. */
struct audit_test {
    int upper;       /* 1: guess "side 1" when score > t; 0: guess "side 0" when score < t */
    double t;
};

struct audit_bound {
    long hits, n_hits;   /* the event under the side it favours: count, samples */
    long false_alarms, n_false;
    double eps_lo;       /* ln((tpr_lo - delta) / fpr_hi); -INFINITY if tpr_lo <= delta */
    double eps_hat;      /* the same from the point estimates */
};

/* Chooses the direction and threshold whose lower bound on the training
 * scores s0 (side 0, n0) and s1 (side 1, n1) is largest. Sorts s0 and s1. */
struct audit_test audit_choose(double *s0, long n0, double *s1, long n1, double delta,
                               double alpha);

/* Evaluates test on held-out scores. */
struct audit_bound audit_evaluate(struct audit_test test, const double *s0, long n0,
                                  const double *s1, long n1, double delta, double alpha);

#endif
