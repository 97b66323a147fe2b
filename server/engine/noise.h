/*
 * noise.h — Gaussian noise that is safe against floating-point attacks.
 *
 * Published values never carry textbook floating-point Gaussian noise
 * (Mironov 2012: the low bits of x + N(0, s^2) in doubles leak x). Instead
 * every private value is snapped to a grid of spacing g, a power of two, and
 * receives g * Z with Z drawn *exactly* from the discrete Gaussian N_Z(0, s^2/g^2)
 * by the rejection sampler of Canonne, Kamath, Steinke (2020, Alg. 1–3) in
 * exact integer arithmetic on a ChaCha20 stream (rng.h). Snapped value plus
 * grid noise is exactly representable, so the published double lies on the
 * grid and reveals nothing below it.
 *
 * A discrete Gaussian with parameter s^2 on integer-valued inputs of L2
 * sensitivity D satisfies D^2/(2 s^2)-zCDP (CKS 2020, Thm. 14); snapping adds
 * at most one grid step per coordinate to D, which params.c charges for.
 */
#ifndef BB_NOISE_H
#define BB_NOISE_H

#include <stdint.h>

#include "billboard/err.h"
#include "rng.h"

/* Grid resolution: the grid is 2^-BB_GRID_BITS of sigma (to a power of two). */
#define BB_GRID_BITS 20

struct bb_sampler {
    double sigma;   /* standard deviation parameter in real units; 0 = no noise */
    double grid;    /* spacing of the grid, a power of two; 0 = no grid */
    uint64_t s2;    /* (sigma/grid)^2 rounded up: the integer variance parameter */
    uint64_t t;     /* floor(sqrt(s2)) + 1, the discrete Laplace scale */
};

/* The grid for noise of standard deviation sigma: the power of two
 * 2^(floor(log2 sigma) - BB_GRID_BITS). Returns 0 for sigma == 0. */
double bb_grid_for(double sigma);

/* Prepares s to draw N_Z(0, ceil((sigma/grid)^2)) * grid. grid must be a power
 * of two with sigma/grid in [1, 2^24]; sigma == 0 gives a sampler that
 * returns 0 (non-private runs). Returns BB_OK or BB_EINVAL. */
int bb_sampler_init(struct bb_sampler *s, double sigma, double grid);

/* One exact draw of the discrete Gaussian N_Z(0, s->s2). */
int64_t bb_sampler_draw_int(const struct bb_sampler *s, struct bb_rng *r);

/* One draw in real units: grid * bb_sampler_draw_int(). */
double bb_sampler_draw(const struct bb_sampler *s, struct bb_rng *r);

/* The Gram mechanisms' noise matrix (docs/PRIVACY.md §1): symmetric, with
 * N_Z(0, s^2) on the diagonal and N_Z(0, s^2/2) off it, on the grid. With
 * diagonal set (one-hot feature rows, §1.6: every Gram sum is zero off the
 * diagonal for every dataset the engine accepts) only the diagonal is
 * drawn and the rest is exactly zero. */
struct bb_sym_sampler {
    struct bb_sampler diag, off;
    int diagonal;
};

/* As bb_sampler_init, for the matrix above of diagonal sd sigma. */
int bb_sym_sampler_init(struct bb_sym_sampler *s, double sigma, double grid, int diagonal)
    BB_WARN_UNUSED;

/* Draws one d x d matrix into z (d*d, row-major, owned by the caller); zeros
 * when sigma == 0. */
void bb_sym_sampler_draw(const struct bb_sym_sampler *s, int d, struct bb_rng *r, double *z);

/* x rounded to the nearest multiple of grid (ties to even); x if grid == 0. */
double bb_grid_snap(double x, double grid);

/* 1 if x is an exact multiple of grid (always 1 if grid == 0). */
int bb_on_grid(double x, double grid);

/* Exposed for the unit test: 1 with probability exp(-num/den), den > 0. */
int bb_bernoulli_exp(struct bb_rng *r, unsigned __int128 num, unsigned __int128 den);

#endif
