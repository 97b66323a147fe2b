/*
 * mech_grid_sqrt.c — the release-grid mechanism with the square-root
 * factorization behind mech.h (`--mechanism grid-sqrt`; Henzinger–
 * Upadhyay–Upadhyay 2023; docs/PRIVACY.md): the factorization
 * (factorization.h) with C = B = A^(1/2), c_l = b_l = the (1 - x)^(-1/2)
 * series (bb_sqrt_coefficients), so the increments' noise is correlated
 * and a prefix's noise grows with log G rather than G. Each output (C x)_j
 * is snapped to the Gram grid. Records: factorization.c's.
 */
#include "factorization.h"

#include <math.h>
#include <string.h>

#include "release.h"

static void coefficients(double *c, double *b, long G)
{
    bb_sqrt_coefficients(c, G);
    memcpy(b, c, (size_t)G * sizeof(double));
}

static int init(struct bb_mech *m)
{
    return factorization_init(m, coefficients, 1);
}

/* Increment i reaches release t with c_{t-i}, and a prefix's noise is
 * sum_i b_{t-i} Z_i with b = c: both sum_{l < G} c_l^2. */
static void calibrate(const struct bb_params *p, double *sens_factor, double *prefix_terms)
{
    *sens_factor = *prefix_terms = bb_sqrt_sum_squares(p->releases);
}

/* The snapping of each strategy output C x: at most 2 g d more per release
 * an increment reaches (g for the snap, g for floating-point slack far
 * below it), over G releases 2 g d sqrt G, against the change sqrt(2 S)
 * the noise is calibrated for. */
static double output_snap(const struct bb_params *p)
{
    return p->sigma_gram * 2.0 * p->grid_gram * p->d * sqrt((double)p->releases) /
           sqrt(2.0 * p->sens_factor);
}

const struct bb_mech_ops mech_grid_sqrt_ops = {
    .kind = BB_MECH_GRID_SQRT,
    .name = "grid-sqrt",
    .calibrate = calibrate,
    .output_snap = output_snap,
    .init = init,
    FACTORIZATION_OPS,
};
