/*
 * env_make.c — the built-in environments: a random simplex linear MDP and
 * RiverSwim with one-hot features (env.h).
 */
#include "env.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/params.h"

/* Standard normal by Box–Muller. Simulation only: never privacy noise. */
static double normal(struct bb_rng *rng)
{
    double u1 = bb_rng_uniform(rng), u2 = bb_rng_uniform(rng);
    return sqrt(-2.0 * log(1.0 - u1)) * cos(2.0 * M_PI * u2);
}

/* Gamma(alpha, 1) by Marsaglia–Tsang (2000); alpha < 1 via the boost
 * Gamma(alpha) = Gamma(alpha + 1) * U^(1/alpha). */
static double gamma_draw(double alpha, struct bb_rng *rng)
{
    if (alpha < 1.0) {
        double u = bb_rng_uniform(rng);
        return gamma_draw(alpha + 1.0, rng) * pow(1.0 - u, 1.0 / alpha);
    }
    double dd = alpha - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * dd);
    for (;;) {
        double x = normal(rng), v = 1.0 + c * x;
        if (v <= 0)
            continue;
        v = v * v * v;
        double u = 1.0 - bb_rng_uniform(rng);
        if (log(u) < 0.5 * x * x + dd - dd * v + dd * log(v))
            return dd * v;
    }
}

/* x[0..n) ~ Dirichlet(alpha, ..., alpha), summing to 1 up to rounding. */
static void dirichlet(double *x, int n, double alpha, struct bb_rng *rng)
{
    double s = 0.0;
    do {
        s = 0.0;
        for (int i = 0; i < n; i++) {
            x[i] = gamma_draw(alpha, rng);
            s += x[i];
        }
    } while (!(s > 0)); /* all draws underflowed: astronomically rare */
    for (int i = 0; i < n; i++)
        x[i] /= s;
}

/* A feature row whose exact sum came out above 1 by rounding has its
 * largest entry lowered an ulp at a time until it does not, so that the
 * row is in the simplex as the engine checks it (exactly:
 * bb_params_feature_row_ok). Rows the division left at or below 1 are
 * unchanged. */
static void simplex_row(double *x, int n)
{
    struct bb_params q;
    bb_params_defaults(&q);
    q.d = n;
    q.features = BB_FEATURES_SIMPLEX;
    int top = 0;
    for (int i = 1; i < n; i++)
        if (x[i] > x[top])
            top = i;
    while (!bb_params_feature_row_ok(&q, x, NULL, 0) && x[top] > 0)
        x[top] = nextafter(x[top], 0.0);
}

int bb_sim_env_simplex(int S, int A, int d, int H, double alpha, uint64_t seed,
                       struct bb_sim_env **out)
{
    struct bb_sim_env *e = NULL;
    struct bb_rng rng;
    *out = NULL;
    if (!(alpha > 0) || !isfinite(alpha))
        return BB_EINVAL;
    int rc = bb_sim_env_alloc(S, A, d, H, &e);
    if (rc != BB_OK)
        return rc;
    bb_rng_init_seeded(&rng, seed);
    snprintf(e->name, sizeof(e->name), "simplex");
    for (int i = 0; i < S * A; i++) {
        dirichlet(e->phi + (size_t)i * d, d, alpha, &rng);
        simplex_row(e->phi + (size_t)i * d, d);
    }
    for (int h = 0; h < H; h++) {
        dirichlet(e->theta + (size_t)h * d, d, alpha, &rng);
        for (int j = 0; j < d; j++)
            dirichlet(e->mu + ((size_t)h * d + j) * S, S, alpha, &rng);
    }
    e->init[0] = 1.0;
    bb_rng_release(&rng);
    if ((rc = bb_sim_env_finish(e, NULL, 0)) != BB_OK)
        goto out;
    *out = e;
    return BB_OK;
out:
    bb_sim_env_free(e);
    return rc;
}

int bb_sim_env_riverswim(int S, int H, struct bb_sim_env **out)
{
    struct bb_sim_env *e = NULL;
    *out = NULL;
    if (S < 2)
        return BB_EINVAL;
    const int A = 2, d = 2 * S;
    int rc = bb_sim_env_alloc(S, A, d, H, &e);
    if (rc != BB_OK)
        return rc;
    snprintf(e->name, sizeof(e->name), "riverswim");
    for (int s = 0; s < S; s++)
        for (int a = 0; a < A; a++)
            e->phi[((size_t)s * A + a) * d + (size_t)(s * A + a)] = 1.0;
    for (int h = 0; h < H; h++) {
        double *th = e->theta + (size_t)h * d;
        double *mu = e->mu + (size_t)h * d * S;
        th[0 * A + 0] = 0.005;     /* left in the first state */
        th[(S - 1) * A + 1] = 1.0; /* right in the last state */
        for (int s = 0; s < S; s++) {
            double *left = mu + (size_t)(s * A + 0) * S, *right = mu + (size_t)(s * A + 1) * S;
            left[s > 0 ? s - 1 : 0] = 1.0;
            if (s == 0) {
                right[0] = 0.6;
                right[1] = 0.4;
            } else if (s == S - 1) {
                right[s] = 0.6;
                right[s - 1] = 0.4;
            } else {
                right[s + 1] = 0.35;
                right[s] = 0.6;
                right[s - 1] = 0.05;
            }
        }
    }
    e->init[0] = 1.0;
    if ((rc = bb_sim_env_finish(e, NULL, 0)) != BB_OK)
        goto out;
    *out = e;
    return BB_OK;
out:
    bb_sim_env_free(e);
    return rc;
}
