/*
 * mech_grid.c — the release-grid mechanism with disjoint increments behind
 * mech.h (`--mechanism grid`; docs/PRIVACY.md): the factorization
 * (factorization.h) with C = I, B = A, so every increment between two
 * grid points gets its own independent noise and an episode lies in one
 * increment. Records: factorization.c's.
 */
#include "factorization.h"

/* c = 1, 0, 0, ...; b = 1, 1, 1, ... */
static void coefficients(double *c, double *b, long G)
{
    for (long l = 0; l < G; l++) {
        c[l] = l == 0 ? 1.0 : 0.0;
        b[l] = 1.0;
    }
}

static int init(struct bb_mech *m)
{
    return factorization_init(m, coefficients, 0);
}

/* Each episode in one increment, coefficient 1: S = 1; a prefix sums the
 * noise of at most G increments: G. */
static void calibrate(const struct bb_params *p, double *sens_factor, double *prefix_terms)
{
    *sens_factor = 1;
    *prefix_terms = (double)p->releases;
}

const struct bb_mech_ops mech_grid_ops = {
    .kind = BB_MECH_GRID,
    .name = "grid",
    .calibrate = calibrate,
    .init = init,
    FACTORIZATION_OPS,
};
