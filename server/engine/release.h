/*
 * release.h — the data-independent shapes the continual-release mechanisms
 * are built from: the release grid, the square-root factorization's
 * coefficients and Honaker's estimator over a binary tree. Their proofs are
 * docs/PRIVACY.md's; the mechanisms using them are mech_*.c.
 */
#ifndef BB_RELEASE_H
#define BB_RELEASE_H

#include <stddef.h>

/* Release grid: the episode counts ceil(k0 g^j), j = 0, 1, ..., without
 * repeats, up to K_max. Writes at most cap of them to out (out may be NULL)
 * and returns how many there are. Data-independent. */
long bb_release_grid(double k0, double g, long K_max, long *out, long cap);

/* The square-root factorization coefficients: c_0 = 1,
 * c_l = c_{l-1} (2l - 1) / (2l), the series of (1 - x)^(-1/2), so that the
 * lower-triangular Toeplitz matrix C with C_ij = c_{i-j} satisfies C C = the
 * prefix-sum matrix. Writes c_0 .. c_{n-1}. */
void bb_sqrt_coefficients(double *c, long n);

/* sum_{l < n} c_l^2 of the same coefficients, computed by the same
 * recurrence: the square-root factorization's S and prefix-noise term. */
double bb_sqrt_sum_squares(long n);

/* The release t (0-based) of a factorization mechanism A = B C over n
 * entries (factorization.c, rstream.c): out := sum_{i<=t} b_{t-i} y_i,
 * y_i = snap((C x)_i) + z_i, (C x)_i = sum_{l<=i} c_{i-l} x_l, where x holds
 * the increments x_0 .. x_t and z the noises z_0 .. z_t one after another,
 * n entries each; snapped to grid where snap (else added as they are);
 * scratch holds n. Every term is summed in this order, so a release is the
 * same bits wherever it is computed. */
void bb_factorization_decode(const double *c, const double *b, long t, const double *x,
                             const double *z, size_t n, double grid, int snap, double *scratch,
                             double *out);

/* Honaker's online estimator over a binary tree (docs/PRIVACY.md §1.5), in
 * units of one node's noise variance: the variance of level j's node
 * estimate, v_0 = 1, v_j = 2 v_{j-1} / (1 + 2 v_{j-1}) = 2^j / (2^{j+1} - 1),
 * and the weight of the node's own noisy value in it,
 * a_j = 2 v_{j-1} / (1 + 2 v_{j-1}) (= v_j; a_0 = 1), the children's sum
 * getting 1 - a_j. level >= 0. */
double bb_honaker_variance(int level);
double bb_honaker_weight(int level);

/* The largest prefix-noise variance of the tree with Honaker's estimator
 * over the prefixes n = 1 .. K_max, in units of one node's: the max over n
 * of the sum of v_j over the set bits j of n. */
double bb_honaker_max_prefix_variance(long K_max);

#endif
