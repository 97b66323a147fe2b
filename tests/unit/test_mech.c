/*
 * test_mech.c — the continual-release mechanisms behind engine/mech.h:
 * release grids and square-root coefficients on known values; each
 * mechanism's prefix equals the exact sum without noise and holds between
 * release points; the released noise has the variance params.c charges
 * for; recovery from records is bit-identical, refuses gaps, repeats and
 * foreign records.
 */
#include "testutil.h"
#include "test_records.h"

#include <stdlib.h>
#include <string.h>

#include "engine/mech.h"
#include "engine/params.h"
#include "engine/rng.h"

enum { H = 2, D = 3 };

static const enum bb_mechanism all[] = {BB_MECH_TREE, BB_MECH_GRID, BB_MECH_GRID_SQRT};

static void params(struct bb_params *p, enum bb_mechanism m, long K, double rho, int d, int h)
{
    bb_params_defaults(p);
    p->H = h, p->d = d, p->A = 2, p->K_max = K, p->rho = rho;
    p->mechanism = m;
    p->release_base = 2.0;
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
    p.release_base = 2.0, p.shift_scale = 1.0;
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
        if (all[mi] != BB_MECH_TREE) /* grid records are never stale */
            assert_int_equal(needed, st.n);

        /* A record with a foreign step or a wrong size is refused. */
        b = replayed(&p, n);
        struct bb_mech_record bad = st.rec[0];
        bad.step = H;
        assert_int_equal(bb_mech_load(b, &bad), BB_EINVAL);
        bad = st.rec[0];
        bad.len--;
        assert_int_equal(bb_mech_load(b, &bad), BB_EINVAL);
        bb_mech_free(b);
        test_records_free(&st);
        bb_mech_free(a);
    }
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
    };
    return cmocka_run_group_tests_name("mech", tests, NULL, NULL);
}
