/*
 * bench_lsvi.c — time of one LSVI update and its GFLOP/s beside OpenBLAS
 * dgemm measured in the same run on a matrix of the same size.
 *
 *   build/bench_lsvi [K H A d reps]      (default 100000 10 8 32 3)
 *
 * The store is filled directly (random features, norms <= 1) and Lambda_h
 * built with dsyrk, so the timing is the backward pass alone. Flops counted
 * for the pass: the triangular solve of every stored next-state row
 * (d^2 each), its mean and norm (4d), with the noise discount a
 * triangular multiply and norm (d^2 + 2d; docs/PRIVACY.md §3.5), and y_h
 * (2 n d per step). The
 * reference is dgemm C = X M with X the (n A) x d matrix of one step's
 * rows and M d x d: the same rows through a BLAS-3 kernel (2 n A d^2 flops).
 * The pass runs as billboardd runs it (its own threads, BLAS single-
 * threaded); the dgemm reference gets every core.
 * Prints figures and ratios; asserts nothing.
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "linalg.h"
#include "engine/lsvi.h"
#include "engine/noise.h"
#include "engine/params.h"
#include "engine/rng.h"
#include "engine/store.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* argv[i] as a number in [1, max], or dflt when absent; -1 when malformed. */
static long arg(int argc, char **argv, int i, long dflt, long max)
{
    if (argc <= i)
        return dflt;
    char *end;
    long v = strtol(argv[i], &end, 10);
    return *argv[i] && !*end && v >= 1 && v <= max ? v : -1;
}

int main(int argc, char **argv)
{
    long K = arg(argc, argv, 1, 100000, 1L << 30);
    int H = (int)arg(argc, argv, 2, 10, 1000), A = (int)arg(argc, argv, 3, 8, 1024);
    int d = (int)arg(argc, argv, 4, 32, 1024), reps = (int)arg(argc, argv, 5, 3, 1000);
    if (K < 0 || H < 0 || A < 0 || d < 0 || reps < 0) {
        fprintf(stderr, "usage: bench_lsvi [K H A d reps]  (positive integers)\n");
        return 2;
    }
    struct bb_params p;
    bb_params_defaults(&p);
    p.H = H, p.d = d, p.A = A, p.K_max = K, p.rho = 1.0, p.beta = 1.0;
    char why[200];
    if (bb_params_derive(&p, why, sizeof(why)) != BB_OK) {
        fprintf(stderr, "bench_lsvi: %s\n", why);
        return 2;
    }
    struct bb_rng rng;
    bb_rng_init_seeded(&rng, 1);
    struct bb_store store;
    if (bb_store_init(&store, H, A, d, K) != BB_OK)
        return 1;
    size_t per = (size_t)H * A * d;
    double *feat = malloc(sizeof(double) * per), *rew = malloc(sizeof(double) * H);
    int *act = malloc(sizeof(int) * H);
    double t0 = now();
    for (long i = 0; i < K; i++) {
        for (size_t row = 0; row < (size_t)H * A; row++) {
            double *phi = feat + row * d, n2 = 0;
            for (int j = 0; j < d; j++) {
                phi[j] = bb_rng_uniform(&rng);
                n2 += phi[j] * phi[j];
            }
            double s = bb_rng_uniform(&rng) / sqrt(n2);
            for (int j = 0; j < d; j++)
                phi[j] *= s;
        }
        for (int h = 0; h < H; h++) {
            act[h] = (int)bb_rng_below(&rng, (uint64_t)A);
            rew[h] = bb_rng_uniform(&rng);
        }
        struct bb_episode ep = {feat, act, rew};
        if (bb_store_append(&store, &ep) != BB_OK)
            return 1;
    }
    size_t dd = (size_t)d * d;
    double *gram = calloc((size_t)H * dd, sizeof(double)), *chol = malloc(sizeof(double) * H * dd);
    for (int h = 0; h < H; h++) {
        double *g = gram + h * dd;
        for (long b = 0; b * BB_STORE_BLOCK < K; b++)
            cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, d,
                        (int)bb_store_block_len(b, K), 1.0, bb_store_chosen(&store, b, h), d, 1.0,
                        g, d);
        for (int i = 0; i < d; i++) {
            for (int j = i + 1; j < d; j++)
                g[i * d + j] = g[j * d + i];
            g[i * d + i] += p.ridge;
        }
        if (bb_chol(g, chol + h * dd, d) != BB_OK)
            return 1;
    }
    printf("setup: %ld episodes, H=%d A=%d d=%d in %.1f s\n", K, H, A, d, now() - t0);

    struct bb_lsvi_ws ws;
    struct bb_sampler *ys = calloc((size_t)H, sizeof(*ys));
    if (!ys || bb_lsvi_ws_init(&ws, A, d, 0) != BB_OK)
        return 1;
    for (int h = 0; h < H; h++)
        if (bb_sampler_init(&ys[h], bb_params_sigma_y_drawn_step(&p, h),
                            bb_params_grid_y_step(&p, h)) != BB_OK)
            return 1;
    double *w = malloc(sizeof(double) * H * d), *y = malloc(sizeof(double) * H * d);
    struct bb_lsvi_job job = {.p = &p, .store = &store, .n = K, .chol = chol, .y_noise = ys,
                              .rng = &rng, .w = w, .y_noisy = y};
    /* As billboardd and billboard-sim run it: the pass's own threads around
     * single-threaded BLAS calls. */
    openblas_set_num_threads(1);
    double *tl = malloc(sizeof(double) * reps);
    for (int r = 0; r < reps; r++) {
        double s = now();
        if (bb_lsvi_run(&job, &ws) != BB_OK)
            return 1;
        tl[r] = now() - s;
    }
    qsort(tl, (size_t)reps, sizeof(double), cmp_double);
    double rows = (double)K * A;
    const double per_row = p.next_discount > 0 ? 2.0 * d * d + 6.0 * d : (double)d * d + 4.0 * d;
    double flops = (H - 1) * rows * per_row + H * 2.0 * K * d;

    /* Reference: dgemm over one step's rows, same shape, with every core. */
    int cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    openblas_set_num_threads(cores > 0 ? cores : 1);
    double *x = malloc(sizeof(double) * (size_t)rows * d), *c = malloc(sizeof(double) * (size_t)rows * d);
    for (long b = 0; b * BB_STORE_BLOCK < K; b++)
        memcpy(x + (size_t)b * BB_STORE_BLOCK * A * d, bb_store_feat(&store, b, 0),
               sizeof(double) * (size_t)bb_store_block_len(b, K) * A * d);
    double *tg = malloc(sizeof(double) * reps * 3);
    int greps = reps * 3;
    for (int r = 0; r < greps; r++) {
        double s = now();
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, d, d, 1.0, x, d, chol,
                    d, 0.0, c, d);
        tg[r] = now() - s;
    }
    qsort(tg, (size_t)greps, sizeof(double), cmp_double);
    double gflops_ref = 2.0 * rows * d * d / tg[0] / 1e9;
    /* A square dgemm for the machine's peak, for context. */
    int n = 1500;
    double *sa = malloc(sizeof(double) * n * n), *sb = malloc(sizeof(double) * n * n),
           *sc = malloc(sizeof(double) * n * n);
    for (int i = 0; i < n * n; i++)
        sa[i] = sb[i] = 1.0 / (1 + i % 7);
    double tsq = 1e9;
    for (int r = 0; r < 3; r++) {
        double s = now();
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, sa, n, sb, n, 0.0,
                    sc, n);
        tsq = fmin(tsq, now() - s);
    }
    double gflops_sq = 2.0 * n * n * (double)n / tsq / 1e9;
    double gflops = flops / tl[0] / 1e9;
    printf("lsvi update: K=%ld H=%d A=%d d=%d: best %.3f s, median %.3f s of %d, %.2f GFLOP/s\n",
           K, H, A, d, tl[0], tl[reps / 2], reps, gflops);
    printf("dgemm (%.0f x %d) * (%d x %d): best %.3f s, %.2f GFLOP/s\n", rows, d, d, d, tg[0],
           gflops_ref);
    printf("dgemm %dx%d square (peak context): %.2f GFLOP/s\n", n, n, gflops_sq);
    printf("ratio lsvi/dgemm(same size) = %.2f (goal >= 0.5); lsvi/dgemm(square) = %.2f\n",
           gflops / gflops_ref, gflops / gflops_sq);
    return 0;
}
