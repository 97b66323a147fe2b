/*
 * test_mech.c — the continual-release mechanisms behind engine/mech.h:
 * release grids and square-root coefficients on known values; each
 * mechanism's prefix equals the exact sum without noise and holds between
 * release points; the released noise has the variance params.c charges
 * for; recovery from records is bit-identical, refuses gaps, repeats and
 * foreign records; with one-hot rows, noise on the diagonal only. The tree
 * with Honaker's estimator: its weights and
 * variances on known values, its estimates against an independent
 * recomputation from the same draws, its prefix variance.
 */
#include "testutil.h"
#include "test_records.h"

#include <stdlib.h>
#include <string.h>

#include "engine/mech.h"
#include "engine/noise.h"
#include "engine/params.h"
#include "engine/rng.h"

enum { H = 2, D = 3 };

static const enum bb_mechanism all[] = {BB_MECH_TREE, BB_MECH_GRID, BB_MECH_GRID_SQRT,
                                        BB_MECH_TREE_HONAKER};

static void params(struct bb_params *p, enum bb_mechanism m, long K, double rho, int d, int h)
{
    bb_params_defaults(p);
    p->H = h, p->d = d, p->A = 2, p->K_max = K, p->rho = rho;
    p->mechanism = m;
    p->release_base = 2.0;
    p->release_start = 1;
    char why[128];
    if (bb_params_derive(p, why, sizeof(why)) != BB_OK)
        fail_msg("%s", why);
}

static void test_release_grid_known_values(void **state)
{
    (void)state;
    long pts[64];
    assert_int_equal(bb_release_grid(1.0, 2.0, 100000, pts, 64), 17);
    for (int j = 0; j < 17; j++)
        assert_int_equal(pts[j], 1L << j);
    const long want15[] = {1, 2, 3, 4, 6, 8};
    assert_int_equal(bb_release_grid(1.0, 1.5, 10, pts, 64), 6);
    assert_memory_equal(pts, want15, sizeof(want15));
    const long want4[] = {1, 4, 16, 64};
    assert_int_equal(bb_release_grid(1.0, 4.0, 100, pts, 64), 4);
    assert_memory_equal(pts, want4, sizeof(want4));
    assert_int_equal(bb_release_grid(1.0, 1.25, 100000, NULL, 0), 49);
    assert_int_equal(bb_release_grid(1.0, 1.5, 100000, NULL, 0), 29);
    assert_int_equal(bb_release_grid(1.0, 2.0, 1, pts, 64), 1);
    const long want100[] = {100, 150, 225, 338, 507, 760};
    assert_int_equal(bb_release_grid(100.0, 1.5, 1000, pts, 64), 6);
    assert_memory_equal(pts, want100, sizeof(want100));
}

static void test_sqrt_coefficients(void **state)
{
    (void)state;
    double c[64];
    bb_sqrt_coefficients(c, 64);
    const double want[] = {1.0, 0.5, 0.375, 0.3125, 0.2734375};
    for (int l = 0; l < 5; l++)
        assert_true(c[l] == want[l]);
    /* C C = A: every anti-diagonal sum of c_i c_j is 1. */
    for (int n = 0; n < 64; n++) {
        double s = 0;
        for (int i = 0; i <= n; i++)
            s += c[i] * c[n - i];
        assert_true(fabs(s - 1.0) < 1e-12);
    }
}

/* Calibration on known values (computed independently; docs/PRIVACY.md):
 * H=5, d=8, K_max=1e5, rho=1 (rho_gram=0.5), p=0.05, g=2 (G=17). */
static void test_calibration_known_values(void **state)
{
    (void)state;
    struct bb_params p;
    bb_params_defaults(&p);
    p.H = 5, p.d = 8, p.A = 5, p.K_max = 100000, p.rho = 1.0;
    p.mechanism = BB_MECH_GRID, p.shift_bound = BB_BOUND_TIGHT;
    p.release_base = 2.0, p.shift_scale = 1.0, p.release_start = 1, p.gram_share = 0.5;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_int_equal(p.releases, 17);
    assert_true(fabs(p.sens_factor - 1.0) < 1e-12);
    assert_rel(p.sigma_gram, 3.16227766017, 1e-10);
    assert_rel(p.prefix_sd, 13.0384048104, 1e-10);
    assert_rel(p.shift, 124.046020603, 1e-10);
    assert_int_equal(p.max_updates, 17);

    p.mechanism = BB_MECH_GRID_SQRT;
    p.rho = 1.0, p.epsilon = 0;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_rel(p.sens_factor, 1.96346483121, 1e-10);
    assert_rel(p.sigma_gram, 4.43110012436, 1e-10);
    assert_rel(p.prefix_sd, 6.20902097226, 1e-10);
    assert_rel(p.shift, 59.0719765682, 1e-10);
    p.shift_scale = 0.5;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_rel(p.shift, 0.5 * 59.0719765682, 1e-10);
    assert_rel(p.ridge, 59.0719765682, 1e-10);

    /* The tree with the paper's bound is unchanged by the new options. */
    p.mechanism = BB_MECH_TREE, p.shift_bound = BB_BOUND_PAPER, p.shift_scale = 1;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_int_equal(p.releases, 100000);
    assert_true(p.sens_factor == p.L);

    /* A data-independent schedule needs a grid; private runs never update
     * after every episode. */
    p.update_rule = BB_UPDATE_RELEASE;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_EINVAL);
    p.update_rule = BB_UPDATE_EVERY;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_EINVAL);
    p.update_rule = BB_UPDATE_RARE, p.release_base = 1.0;
    p.mechanism = BB_MECH_GRID;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_EINVAL);
}

static void random_rows(struct bb_rng *r, double rows[H][D])
{
    for (int h = 0; h < H; h++) {
        double n2 = 0;
        for (int j = 0; j < D; j++) {
            rows[h][j] = bb_rng_uniform(r) - 0.5;
            n2 += rows[h][j] * rows[h][j];
        }
        for (int j = 0; j < D; j++)
            rows[h][j] /= sqrt(n2) * 1.01;
    }
}

/* Without noise, a release is the exact prefix sum, and between release
 * points the last release stays. */
static void test_noiseless_prefix(void **state)
{
    (void)state;
    for (size_t mi = 0; mi < sizeof(all) / sizeof(all[0]); mi++) {
        struct bb_params p;
        params(&p, all[mi], 200, INFINITY, D, H);
        p.release_base = 1.5;
        assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
        struct bb_mech *m;
        struct bb_rng r, data;
        bb_rng_init_seeded(&r, 1);
        bb_rng_init_seeded(&data, 2);
        assert_int_equal(bb_mech_new(&p, &m), BB_OK);
        double sum[H][D * D] = {{0}}, rel[H][D * D] = {{0}}, got[D * D];
        for (long k = 1; k <= 200; k++) {
            double rows[H][D];
            const double *phi[H];
            random_rows(&data, rows);
            for (int h = 0; h < H; h++) {
                phi[h] = rows[h];
                for (int i = 0; i < D; i++)
                    for (int j = 0; j < D; j++)
                        sum[h][i * D + j] += rows[h][i] * rows[h][j];
            }
            assert_int_equal(bb_mech_add(m, phi, &r), BB_OK);
            if (bb_mech_is_release(m, k))
                memcpy(rel, sum, sizeof(sum));
            for (int h = 0; h < H; h++) {
                assert_int_equal(bb_mech_prefix(m, h, got), BB_OK);
                for (int e = 0; e < D * D; e++)
                    assert_true(fabs(got[e] - rel[h][e]) <= 1e-9 * (1 + fabs(rel[h][e])));
            }
        }
        assert_int_equal(bb_mech_episodes(m), 200);
        double rows[H][D] = {{0}};
        const double *phi[H] = {rows[0], rows[1]};
        assert_int_equal(bb_mech_add(m, phi, &r), BB_EFULL);
        bb_mech_free(m);
    }
}

/* The released noise has the variance params.c charges for: at the j-th
 * release sigma^2 * j (grid) or sigma^2 * sum_{l<j} c_l^2 (grid-sqrt) on
 * the diagonal. Zero data, 3000 independent runs, 5 standard errors. */
static void test_prefix_variance(void **state)
{
    (void)state;
    enum { T = 3000, G = 6 }; /* K_max 32, g 2: releases 1, 2, 4, 8, 16, 32 */
    double c[G];
    bb_sqrt_coefficients(c, G);
    for (int sq = 0; sq < 2; sq++) {
        struct bb_params p;
        params(&p, sq ? BB_MECH_GRID_SQRT : BB_MECH_GRID, 32, 2.0, 1, 1);
        double s2[G] = {0};
        for (int t = 0; t < T; t++) {
            struct bb_mech *m;
            struct bb_rng r;
            bb_rng_init_seeded(&r, 1000 + (uint64_t)t);
            assert_int_equal(bb_mech_new(&p, &m), BB_OK);
            double zero[1] = {0}, got;
            const double *phi[1] = {zero};
            int j = 0;
            for (long k = 1; k <= 32; k++) {
                assert_int_equal(bb_mech_add(m, phi, &r), BB_OK);
                if (bb_mech_is_release(m, k)) {
                    assert_int_equal(bb_mech_prefix(m, 0, &got), BB_OK);
                    s2[j++] += got * got;
                }
            }
            assert_int_equal(j, G);
            bb_mech_free(m);
        }
        double terms = 0;
        for (int j = 0; j < G; j++) {
            terms += sq ? c[j] * c[j] : 1.0;
            double want = p.sigma_gram_eff * p.sigma_gram_eff * terms, got = s2[j] / T;
            if (fabs(got - want) > 5 * want * sqrt(2.0 / T))
                fail_msg("%s release %d: variance %g, want %g", bb_mechanism_name(p.mechanism), j,
                         got, want);
        }
    }
}


/* Stores the records of a's last add, as the daemon does. */
static void put_records(struct test_records *s, const struct bb_mech *a)
{
    const struct bb_mech_record *r;
    size_t n = bb_mech_records(a, &r);
    test_records_put(s, r, n);
}

/* Replays n episodes of data seed 7 into a new mechanism (no draws). */
static struct bb_mech *replayed(const struct bb_params *p, long n)
{
    struct bb_mech *m;
    struct bb_rng data;
    bb_rng_init_seeded(&data, 7);
    assert_int_equal(bb_mech_new(p, &m), BB_OK);
    for (long k = 0; k < n; k++) {
        double rows[H][D];
        const double *phi[H] = {rows[0], rows[1]};
        random_rows(&data, rows);
        assert_int_equal(bb_mech_replay(m, phi), BB_OK);
    }
    return m;
}

static void test_recovery(void **state)
{
    (void)state;
    for (size_t mi = 0; mi < sizeof(all) / sizeof(all[0]); mi++) {
        struct bb_params p;
        params(&p, all[mi], 1000, 5.0, D, H);
        struct bb_mech *a;
        struct bb_rng r, data;
        static struct test_records st;
        bb_rng_init_seeded(&r, 3);
        bb_rng_init_seeded(&data, 7);
        assert_int_equal(bb_mech_new(&p, &a), BB_OK);
        const long n = 777;
        for (long k = 0; k < n; k++) {
            double rows[H][D];
            const double *phi[H] = {rows[0], rows[1]};
            random_rows(&data, rows);
            assert_int_equal(bb_mech_add(a, phi, &r), BB_OK);
            put_records(&st, a);
        }
        /* Complete: bit-identical releases. */
        struct bb_mech *b = replayed(&p, n);
        assert_int_equal(bb_mech_ready(b), BB_EINVAL);
        double one[D * D], two[D * D];
        assert_int_equal(bb_mech_prefix(b, 0, one), BB_EINVAL);
        for (size_t i = 0; i < st.n; i++)
            assert_int_equal(bb_mech_load(b, &st.rec[i]), BB_OK);
        assert_int_equal(bb_mech_ready(b), BB_OK);
        for (int h = 0; h < H; h++) {
            assert_int_equal(bb_mech_prefix(a, h, one), BB_OK);
            assert_int_equal(bb_mech_prefix(b, h, two), BB_OK);
            assert_memory_equal(one, two, sizeof(one));
        }
        /* A record needed again is a conflict: noise is never replaced. */
        int conflicts = 0;
        for (size_t i = 0; i < st.n; i++)
            conflicts += bb_mech_load(b, &st.rec[i]) == BB_ECONFLICT;
        assert_true(conflicts > 0);
        bb_mech_free(b);

        /* Every record the state needs is checked: drop each in turn. */
        size_t needed = 0;
        for (size_t drop = 0; drop < st.n; drop++) {
            b = replayed(&p, n);
            for (size_t i = 0; i < st.n; i++)
                if (i != drop)
                    assert_int_equal(bb_mech_load(b, &st.rec[i]), BB_OK);
            needed += bb_mech_ready(b) == BB_EINVAL;
            bb_mech_free(b);
        }
        assert_true(needed > 0);
        if (all[mi] == BB_MECH_GRID || all[mi] == BB_MECH_GRID_SQRT)
            assert_int_equal(needed, st.n); /* grid records are never stale */
        else /* a tree needs exactly one node per set bit of n, per step */
            assert_int_equal(needed, (size_t)H * __builtin_popcountl((unsigned long)n));

        /* A record with a foreign step or a wrong size is refused. */
        b = replayed(&p, n);
        struct bb_mech_record bad = st.rec[0];
        bad.step = H;
        assert_int_equal(bb_mech_load(b, &bad), BB_EINVAL);
        bad = st.rec[0];
        bad.len--;
        assert_int_equal(bb_mech_load(b, &bad), BB_EINVAL);
        if (all[mi] == BB_MECH_TREE || all[mi] == BB_MECH_TREE_HONAKER) {
            bad = st.rec[0];
            bad.slot = p.L; /* no such level */
            assert_int_equal(bb_mech_load(b, &bad), BB_EINVAL);
        }
        bb_mech_free(b);
        test_records_free(&st);
        bb_mech_free(a);
    }
}

/* One-hot rows (docs/PRIVACY.md §1.6): every mechanism draws its noise on
 * the diagonal only, so every record and every released prefix is exactly
 * zero off the diagonal, the diagonal carries the noise params.c charges
 * for, and recovery from the records is bit-identical. */
static void onehot_rows(struct bb_rng *r, double rows[H][D])
{
    for (int h = 0; h < H; h++) {
        memset(rows[h], 0, sizeof(rows[h]));
        rows[h][bb_rng_below(r, D)] = 1.0;
    }
}

static int off_diagonal_zero(const double *m, int d)
{
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++)
            if (i != j && m[(size_t)i * d + j] != 0.0)
                return 0;
    return 1;
}

static void test_onehot_diagonal(void **state)
{
    (void)state;
    for (size_t mi = 0; mi < sizeof(all) / sizeof(all[0]); mi++) {
        struct bb_params p;
        bb_params_defaults(&p);
        p.H = H, p.d = D, p.A = 2, p.K_max = 1000, p.rho = 5.0;
        p.mechanism = all[mi], p.release_base = 2.0, p.release_start = 1;
        p.features = BB_FEATURES_ONEHOT;
        char why[128];
        if (bb_params_derive(&p, why, sizeof(why)) != BB_OK)
            fail_msg("%s", why);
        assert_true(bb_params_diagonal_gram(&p));
        struct bb_mech *a, *b;
        struct bb_rng r, data;
        static struct test_records st;
        bb_rng_init_seeded(&r, 3);
        bb_rng_init_seeded(&data, 11);
        assert_int_equal(bb_mech_new(&p, &a), BB_OK);
        assert_int_equal(bb_mech_new(&p, &b), BB_OK);
        double count[H][D * D] = {{0}}, got[D * D];
        int noisy = 0;
        for (long k = 1; k <= 300; k++) {
            double rows[H][D];
            const double *phi[H] = {rows[0], rows[1]};
            onehot_rows(&data, rows);
            for (int h = 0; h < H; h++)
                for (int j = 0; j < D; j++)
                    count[h][j * D + j] += rows[h][j];
            assert_int_equal(bb_mech_add(a, phi, &r), BB_OK);
            assert_int_equal(bb_mech_replay(b, phi), BB_OK);
            const struct bb_mech_record *rec;
            size_t n = bb_mech_records(a, &rec);
            for (size_t i = 0; i < n; i++) {
                assert_int_equal(rec[i].len, sizeof(double) * D * D);
                double z[D * D];
                memcpy(z, rec[i].bytes, sizeof(z));
                assert_true(off_diagonal_zero(z, D));
            }
            put_records(&st, a);
            if (!bb_mech_is_release(a, k))
                continue;
            for (int h = 0; h < H; h++) {
                assert_int_equal(bb_mech_prefix(a, h, got), BB_OK);
                assert_true(off_diagonal_zero(got, D));
                for (int j = 0; j < D; j++)
                    noisy += got[j * D + j] != count[h][j * D + j];
            }
        }
        assert_true(noisy > 0); /* the diagonal does carry noise */
        for (size_t i = 0; i < st.n; i++)
            assert_int_equal(bb_mech_load(b, &st.rec[i]), BB_OK);
        for (int h = 0; h < H; h++) {
            double two[D * D];
            assert_int_equal(bb_mech_prefix(a, h, got), BB_OK);
            assert_int_equal(bb_mech_prefix(b, h, two), BB_OK);
            assert_memory_equal(got, two, sizeof(got));
        }
        test_records_free(&st);
        bb_mech_free(a);
        bb_mech_free(b);
    }
    /* The diagonal's variance is the dense one's (the same sigma, the same
     * cost): grid, K_max 32, g 2, one step, d = 2, zero rows. */
    enum { T = 3000 };
    struct bb_params p;
    bb_params_defaults(&p);
    p.H = 1, p.d = 2, p.A = 2, p.K_max = 32, p.rho = 2.0;
    p.mechanism = BB_MECH_GRID, p.release_base = 2.0, p.release_start = 1;
    p.features = BB_FEATURES_ONEHOT;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    struct bb_params q = p;
    q.features = BB_FEATURES_SIMPLEX;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_true(p.sigma_gram_eff == q.sigma_gram_eff);
    double s2 = 0;
    for (int t = 0; t < T; t++) {
        struct bb_mech *m;
        struct bb_rng r;
        bb_rng_init_seeded(&r, 5000 + (uint64_t)t);
        assert_int_equal(bb_mech_new(&p, &m), BB_OK);
        double zero[2] = {0, 0}, got[4];
        const double *phi[1] = {zero};
        for (long k = 1; k <= 32; k++)
            assert_int_equal(bb_mech_add(m, phi, &r), BB_OK);
        assert_int_equal(bb_mech_prefix(m, 0, got), BB_OK);
        assert_true(got[1] == 0.0 && got[2] == 0.0);
        s2 += got[0] * got[0];
        bb_mech_free(m);
    }
    double want = 6 * p.sigma_gram_eff * p.sigma_gram_eff; /* 6 increments */
    if (fabs(s2 / T - want) > 5 * want * sqrt(2.0 / T))
        fail_msg("onehot diagonal variance %g, want %g", s2 / T, want);
}

/* Honaker's weights and variances on known values (units of one node's
 * variance): v = 1, 2/3, 4/7, 8/15, a_j = v_j, and a_j^2 + (1 - a_j)^2 2
 * v_{j-1} = v_j (the combination's variance); the closed form 2^j /
 * (2^{j+1} - 1); the largest prefix variance against every prefix. */
static void test_honaker_weights(void **state)
{
    (void)state;
    const double v[] = {1.0, 2.0 / 3, 4.0 / 7, 8.0 / 15};
    const double a[] = {1.0, 2.0 / 3, 4.0 / 7, 8.0 / 15};
    for (int j = 0; j < 4; j++) {
        assert_rel(bb_honaker_variance(j), v[j], 1e-15);
        assert_rel(bb_honaker_weight(j), a[j], 1e-15);
    }
    for (int j = 1; j <= 40; j++) {
        double w = bb_honaker_weight(j), vp = bb_honaker_variance(j - 1);
        assert_rel(w * w + (1 - w) * (1 - w) * 2 * vp, bb_honaker_variance(j), 1e-14);
        assert_rel(bb_honaker_variance(j), ldexp(1, j) / (ldexp(1, j + 1) - 1), 1e-14);
    }
    /* max over n <= K of sum_{bits j of n} v_j, by brute force. */
    double best = 0;
    for (long K = 1; K <= 1100; K++) {
        double s = 0;
        for (int j = 0; j < 12; j++)
            if ((K >> j) & 1)
                s += bb_honaker_variance(j);
        best = s > best ? s : best;
        assert_rel(bb_honaker_max_prefix_variance(K), best, 1e-14);
    }
    assert_rel(bb_honaker_max_prefix_variance(7), 1 + 2.0 / 3 + 4.0 / 7, 1e-15);
    assert_rel(bb_honaker_max_prefix_variance(6), 1 + 2.0 / 3, 1e-15);
    /* K_max = 1e5: n = 2^16 - 1, 16 nodes; 8.8033399 of the tree's 16. */
    assert_rel(bb_honaker_max_prefix_variance(100000), 8.80333994677431, 1e-12);
}

/* One node's noise drawn as tree.h does: the diagonal, then the upper
 * triangle row by row. */
static void draw_node(const struct bb_sampler *diag, const struct bb_sampler *off,
                      struct bb_rng *r, double *z, int d)
{
    for (int i = 0; i < d; i++) {
        z[i * d + i] = bb_sampler_draw(diag, r);
        for (int j = i + 1; j < d; j++)
            z[i * d + j] = z[j * d + i] = bb_sampler_draw(off, r);
    }
}

/* tree-honaker against an independent recomputation from the same draws:
 * episode k draws levels 0 .. tz(k) per step; each node's estimate is
 * a_j z_j + (1 - a_j)(left + right) in doubles with bb_honaker_weight; the
 * prefix is the snapped sum plus the estimates of k's set bits. The engine
 * rounds each estimate to the Gram grid g, so they agree to a few g (g is
 * about 2^-20 sigma; a wrong weight or child is off by about sigma). Every
 * prefix and record lies exactly on the grid; each add emits one record per
 * step, the top node's estimate, slot tz(k), tag k. */
static void test_honaker_estimates(void **state)
{
    (void)state;
    enum { K = 100, L = 8 };
    struct bb_params p;
    params(&p, BB_MECH_TREE_HONAKER, K, 5.0, D, H);
    const double g = p.grid_gram, tol = 16 * g;
    assert_true(g > 0);
    struct bb_sampler diag, off;
    assert_int_equal(bb_sampler_init(&diag, p.sigma_gram_eff, g), BB_OK);
    assert_int_equal(bb_sampler_init(&off, p.sigma_gram_eff / 1.4142135623730951, g), BB_OK);
    struct bb_mech *m;
    struct bb_rng r, mine, data;
    bb_rng_init_seeded(&r, 21);
    bb_rng_init_seeded(&mine, 21);
    bb_rng_init_seeded(&data, 22);
    assert_int_equal(bb_mech_new(&p, &m), BB_OK);
    static double node[H][L][D * D], sum[H][D * D];
    double z[D * D], est[D * D], got[D * D];
    double worst = 0;
    for (long k = 1; k <= K; k++) {
        double rows[H][D];
        const double *phi[H] = {rows[0], rows[1]};
        random_rows(&data, rows);
        assert_int_equal(bb_mech_add(m, phi, &r), BB_OK);
        const int top = __builtin_ctzl((unsigned long)k);
        const struct bb_mech_record *rec;
        assert_int_equal(bb_mech_records(m, &rec), H);
        for (int h = 0; h < H; h++) {
            for (int i = 0; i < D; i++)
                for (int j = 0; j < D; j++)
                    sum[h][i * D + j] += bb_grid_snap(rows[h][i] * rows[h][j], g);
            draw_node(&diag, &off, &mine, est, D);
            for (int j = 1; j <= top; j++) {
                const double a = bb_honaker_weight(j);
                draw_node(&diag, &off, &mine, z, D);
                for (int e = 0; e < D * D; e++)
                    est[e] = a * z[e] + (1 - a) * (node[h][j - 1][e] + est[e]);
            }
            memcpy(node[h][top], est, sizeof(est));
            assert_int_equal(rec[h].step, h);
            assert_int_equal(rec[h].slot, top);
            assert_int_equal(rec[h].tag, k);
            assert_int_equal(rec[h].len, sizeof(est));
            const double *rz = rec[h].bytes;
            assert_int_equal(bb_mech_prefix(m, h, got), BB_OK);
            for (int e = 0; e < D * D; e++) {
                assert_true(bb_on_grid(rz[e], g) && bb_on_grid(got[e], g));
                double want = sum[h][e];
                for (int j = 0; j < L; j++)
                    if ((k >> j) & 1)
                        want += node[h][j][e];
                double err = fmax(fabs(rz[e] - est[e]), fabs(got[e] - want));
                worst = fmax(worst, err);
                if (err > tol)
                    fail_msg("k=%ld h=%d entry %d: record %.17g vs %.17g, prefix %.17g vs %.17g "
                             "(g %g)", k, h, e, rz[e], est[e], got[e], want, g);
            }
        }
    }
    print_message("tree-honaker: estimates within %.2g grid steps of the reference\n", worst / g);
    bb_mech_free(m);
}

/* Recovery at every n from 1 to 70: bit-identical prefixes, then the
 * recovered mechanism goes on like the live one with the same stream. */
static void test_honaker_recovery_every_n(void **state)
{
    (void)state;
    struct bb_params p;
    params(&p, BB_MECH_TREE_HONAKER, 200, 5.0, D, H);
    for (long n = 1; n <= 70; n++) {
        struct bb_mech *a;
        struct bb_rng r, data;
        static struct test_records st;
        bb_rng_init_seeded(&r, 30 + (uint64_t)n);
        bb_rng_init_seeded(&data, 7);
        assert_int_equal(bb_mech_new(&p, &a), BB_OK);
        double rows[H][D];
        const double *phi[H] = {rows[0], rows[1]};
        for (long k = 0; k < n; k++) {
            random_rows(&data, rows);
            assert_int_equal(bb_mech_add(a, phi, &r), BB_OK);
            put_records(&st, a);
        }
        struct bb_mech *b = replayed(&p, n);
        for (size_t i = 0; i < st.n; i++)
            assert_int_equal(bb_mech_load(b, &st.rec[i]), BB_OK);
        assert_int_equal(bb_mech_ready(b), BB_OK);
        struct bb_rng r2 = r;
        for (int more = 0; more < 2; more++) {
            double one[D * D], two[D * D];
            for (int h = 0; h < H; h++) {
                assert_int_equal(bb_mech_prefix(a, h, one), BB_OK);
                assert_int_equal(bb_mech_prefix(b, h, two), BB_OK);
                assert_memory_equal(one, two, sizeof(one));
            }
            if (more)
                break;
            random_rows(&data, rows);
            assert_int_equal(bb_mech_add(a, phi, &r), BB_OK);
            assert_int_equal(bb_mech_add(b, phi, &r2), BB_OK);
        }
        test_records_free(&st);
        bb_mech_free(a);
        bb_mech_free(b);
    }
}

/* The released noise of every prefix n = 1 .. 32: sigma^2 sum_{bits j of
 * n} v_j on the diagonal and half that off it (tree-honaker), against
 * sigma^2 popcount(n) and half (tree), measured over 4000 seeds, each within
 * 5 standard errors; and tree-honaker's below the tree's at every n with two
 * or more bits, by more than 5 standard errors summed over those n. */
static void test_honaker_prefix_variance(void **state)
{
    (void)state;
    enum { T = 4000, K = 32, d = 2 };
    double s2[2][K + 1][2] = {{{0}}};
    struct bb_params p[2];
    for (int hk = 0; hk < 2; hk++) {
        params(&p[hk], hk ? BB_MECH_TREE_HONAKER : BB_MECH_TREE, K, 2.0, d, 1);
        for (int t = 0; t < T; t++) {
            struct bb_mech *m;
            struct bb_rng r;
            bb_rng_init_seeded(&r, 5000 + (uint64_t)t);
            assert_int_equal(bb_mech_new(&p[hk], &m), BB_OK);
            double zero[d] = {0}, got[d * d];
            const double *phi[1] = {zero};
            for (long k = 1; k <= K; k++) {
                assert_int_equal(bb_mech_add(m, phi, &r), BB_OK);
                assert_int_equal(bb_mech_prefix(m, 0, got), BB_OK);
                s2[hk][k][0] += got[0] * got[0];
                s2[hk][k][1] += got[1] * got[1];
            }
            bb_mech_free(m);
        }
    }
    assert_true(p[0].sigma_gram_eff == p[1].sigma_gram_eff); /* the same privacy cost */
    const double sig2 = p[0].sigma_gram_eff * p[0].sigma_gram_eff, se = sqrt(2.0 / T);
    double gap = 0, gap_se2 = 0;
    for (long k = 1; k <= K; k++) {
        double terms[2] = {(double)__builtin_popcountl((unsigned long)k), 0};
        for (int j = 0; j < 6; j++)
            if ((k >> j) & 1)
                terms[1] += bb_honaker_variance(j);
        for (int hk = 0; hk < 2; hk++)
            for (int e = 0; e < 2; e++) {
                double want = sig2 * terms[hk] / (e ? 2 : 1), got = s2[hk][k][e] / T;
                if (fabs(got - want) > 5 * want * se)
                    fail_msg("%s prefix %ld entry %d: variance %g, want %g",
                             bb_mechanism_name(p[hk].mechanism), k, e, got, want);
            }
        if (terms[0] >= 2) {
            gap += s2[0][k][0] / T - s2[1][k][0] / T;
            gap_se2 += sig2 * sig2 * (terms[0] * terms[0] + terms[1] * terms[1]) * se * se;
        }
    }
    assert_true(gap > 5 * sqrt(gap_se2));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_release_grid_known_values),
        cmocka_unit_test(test_sqrt_coefficients),
        cmocka_unit_test(test_calibration_known_values),
        cmocka_unit_test(test_noiseless_prefix),
        cmocka_unit_test(test_prefix_variance),
        cmocka_unit_test(test_recovery),
        cmocka_unit_test(test_onehot_diagonal),
        cmocka_unit_test(test_honaker_weights),
        cmocka_unit_test(test_honaker_estimates),
        cmocka_unit_test(test_honaker_recovery_every_n),
        cmocka_unit_test(test_honaker_prefix_variance),
    };
    return cmocka_run_group_tests_name("mech", tests, NULL, NULL);
}
