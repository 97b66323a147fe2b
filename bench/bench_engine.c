/*
 * bench_engine.c — episodes per second through bb_engine_add (validation,
 * store, H tree updates with node noise, H Cholesky factors and log-dets),
 * and the price of the exact discrete Gaussian sampler next to textbook
 * Box–Muller doubles (the insecure reference) drawn in the same run; then
 * the same adds through each release-grid mechanism and through
 * tree-honaker, as a ratio to the tree measured in the same run.
 *
 *   build/bench_engine [episodes]     (default 20000 per configuration)
 *
 * Prints figures and ratios; asserts nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "engine/engine.h"
#include "engine/noise.h"
#include "engine/rng.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void fill(struct bb_rng *r, double *feat, int *act, double *rew, int H, int A, int d)
{
    for (int row = 0; row < H * A; row++) {
        double *phi = feat + (size_t)row * d, n2 = 0;
        for (int j = 0; j < d; j++) {
            phi[j] = bb_rng_uniform(r);
            n2 += phi[j] * phi[j];
        }
        double s = bb_rng_uniform(r) / sqrt(n2);
        for (int j = 0; j < d; j++)
            phi[j] *= s;
    }
    for (int h = 0; h < H; h++) {
        act[h] = (int)bb_rng_below(r, (uint64_t)A);
        rew[h] = bb_rng_uniform(r);
    }
}

static volatile double sink;

/* Seconds of n adds through mechanism m; the engine is freed. */
static double adds(const struct bb_params *p, long n, double *feat, int *act, double *rew,
                   struct bb_rng *rng, struct bb_rng *data)
{
    struct bb_engine *e;
    double t = 0;
    if (bb_engine_new(p, rng, &e) != BB_OK)
        return NAN;
    for (long k = 0; k < n; k++) {
        fill(data, feat, act, rew, p->H, p->A, p->d);
        struct bb_episode ep = {feat, act, rew};
        double s = now();
        if (bb_engine_add(e, &ep, NULL, 0, NULL, 0) != BB_OK)
            t = NAN;
        t += now() - s;
    }
    bb_engine_free(e);
    return t;
}

static void params(struct bb_params *p, int H, int A, int d, long n, enum bb_mechanism m)
{
    bb_params_defaults(p);
    p->H = H, p->d = d, p->A = A, p->K_max = n, p->rho = 1.0;
    p->mechanism = m;
    p->shift_bound = m == BB_MECH_TREE ? BB_BOUND_PAPER : BB_BOUND_TIGHT;
}

static void run(int H, int A, int d, long n)
{
    struct bb_params p;
    params(&p, H, A, d, n, BB_MECH_TREE);
    if (bb_params_derive(&p, NULL, 0) != BB_OK)
        return;
    struct bb_rng rng, data;
    bb_rng_init_seeded(&rng, 1);
    bb_rng_init_seeded(&data, 2);
    struct bb_engine *e;
    if (bb_engine_new(&p, &rng, &e) != BB_OK)
        return;
    double *feat = malloc(sizeof(double) * H * A * d), *rew = malloc(sizeof(double) * H);
    int *act = malloc(sizeof(int) * H);
    double t_add = 0;
    for (long k = 0; k < n; k++) {
        fill(&data, feat, act, rew, H, A, d);
        struct bb_episode ep = {feat, act, rew};
        double s = now();
        if (bb_engine_add(e, &ep, NULL, 0, NULL, 0) != BB_OK)
            return;
        t_add += now() - s;
    }
    /* The noise share: the same number of draws alone. */
    long draws = n * (long)H * d * (d + 1) / 2;
    struct bb_sampler smp;
    (void)bb_sampler_init(&smp, p.sigma_gram_eff, p.grid_gram);
    double s = now(), acc = 0;
    for (long i = 0; i < draws; i++)
        acc += bb_sampler_draw(&smp, &rng);
    double t_exact = now() - s;
    /* Insecure reference: Box–Muller on doubles, same count. */
    s = now();
    for (long i = 0; i < draws; i += 2) {
        double u1 = bb_rng_uniform(&data), u2 = bb_rng_uniform(&data);
        double rad = sqrt(-2 * log(1 - u1));
        acc += rad * cos(2 * M_PI * u2) + rad * sin(2 * M_PI * u2);
    }
    double t_bm = now() - s;
    sink = acc;
    printf("H=%-2d A=%d d=%-2d: %8.0f episodes/s through bb_engine_add (%.1f us each); "
           "%ld draws/episode: exact sampler %.0f ns/draw = %.0f%% of add, "
           "Box-Muller %.0f ns/draw, ratio exact/Box-Muller %.1f\n",
           H, A, d, n / t_add, 1e6 * t_add / n, draws / n, 1e9 * t_exact / draws,
           100 * t_exact / t_add, 1e9 * t_bm / draws, t_exact / t_bm);
    bb_engine_free(e);
    /* The other mechanisms, each beside a tree measured right after it:
     * the grids, and the tree with Honaker's estimator (every node drawn,
     * about twice the tree's draws). */
    static const enum bb_mechanism others[] = {BB_MECH_GRID, BB_MECH_GRID_SQRT,
                                               BB_MECH_TREE_HONAKER};
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
        struct bb_params q, t;
        params(&q, H, A, d, n, others[i]);
        params(&t, H, A, d, n, BB_MECH_TREE);
        if (bb_params_derive(&q, NULL, 0) != BB_OK || bb_params_derive(&t, NULL, 0) != BB_OK)
            return;
        double tq = adds(&q, n, feat, act, rew, &rng, &data);
        double tt = adds(&t, n, feat, act, rew, &rng, &data);
        printf("H=%-2d A=%d d=%-2d: %-12s %8.0f episodes/s through bb_engine_add (%.1f us each), "
               "%.2fx the tree's %.0f/s (%ld releases)\n",
               H, A, d, bb_mechanism_name(q.mechanism), n / tq, 1e6 * tq / n, tt / tq, n / tt,
               q.releases);
    }
    free(feat);
    free(rew);
    free(act);
}

int main(int argc, char **argv)
{
    long n = 20000;
    if (argc > 1) {
        char *end;
        n = strtol(argv[1], &end, 10);
        if (!*argv[1] || *end || n < 4) {
            fprintf(stderr, "usage: bench_engine [episodes >= 4]\n");
            return 2;
        }
    }
    run(5, 5, 8, n);
    run(10, 8, 16, n);
    run(10, 8, 32, n / 4);
    return 0;
}
