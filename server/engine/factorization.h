/*
 * factorization.h — what the release-grid mechanisms share (mech_grid.c,
 * mech_grid_sqrt.c; the machinery in factorization.c): releases at the
 * points of bb_release_grid, the increments between them noised through a
 * lower-triangular Toeplitz strategy C and decoded by B, so that the
 * prefix-sum matrix is B C. A mechanism of this family chooses C and B
 * and its calibration; the rest of its ops are these. Engine-internal.
 */
#ifndef BB_FACTORIZATION_H
#define BB_FACTORIZATION_H

#include "mech_impl.h"

/* Writes the strategy's coefficients c_0 .. c_{G-1} and the decoder's
 * b_0 .. b_{G-1}, with sum_{l<=t} b_{t-l} c_l = 1 for every t (B C = A). */
typedef void (*factorization_coefficients)(double *c, double *b, long G);

/* The init op of a mechanism of the family: allocates m->impl for m->p's
 * grid with the given coefficients; snap_outputs: snap each strategy
 * output (C x)_j to the Gram grid (needed where C mixes increments, and
 * paid for by the mechanism's output_snap op). */
int factorization_init(struct bb_mech *m, factorization_coefficients coefficients,
                       int snap_outputs) BB_WARN_UNUSED;

void factorization_release(struct bb_mech *m);
int factorization_is_release(const struct bb_mech *m, long k);
int factorization_add(struct bb_mech *m, const double *const *phi, struct bb_rng *r);
int factorization_load(struct bb_mech *m, const struct bb_mech_record *rec);
int factorization_ready(const struct bb_mech *m);
int factorization_prefix(const struct bb_mech *m, int h, double *out);

/* The ops every mechanism of the family shares, for its ops initializer. */
#define FACTORIZATION_OPS                                                                          \
    .tree = 0, .release = factorization_release, .is_release = factorization_is_release,           \
    .add = factorization_add, .load = factorization_load, .ready = factorization_ready,            \
    .prefix = factorization_prefix

#endif
