/*
 * test_rstream.c — the reward stream behind engine/rstream.h: it releases
 * at the grid points only; each release is the exact centred reward sum
 * plus the decoded noise of its records, sum_i b_{t-i} Z_i, within the
 * snapping the calibration charges; its sd is sigma_drawn sqrt(sum b^2);
 * its records are one per step at a grid point, in slots of their own;
 * recovery by replay and records is bit-identical and refuses gaps,
 * repeats and malformed records; the noise has the variance charged.
 */
#include "testutil.h"
#include "test_records.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/params.h"
#include "engine/release.h"
#include "engine/rng.h"
#include "engine/rstream.h"

enum { H = 2, D = 3, K = 200 };

/* The params every stream of a test is created with (its rows' weights). */
static struct bb_params cur;

/* Simplex rows, centred, k0 = 10 on base 2: grid points 10, 20, 40, 80, 160. */
static void params(struct bb_params *p, double rho)
{
    bb_params_defaults(p);
    p->H = H, p->d = D, p->A = 2, p->K_max = K, p->rho = rho;
    p->features = BB_FEATURES_SIMPLEX;
    p->release_base = 2.0;
    p->release_start = 10;
    char why[128];
    if (bb_params_derive(p, why, sizeof(why)) != BB_OK)
        fail_msg("%s", why);
    assert_true(bb_params_reward_stream(p));
    assert_int_equal(p->row_weight, BB_ROW_WEIGHT_NORM);
    cur = *p;
    assert_int_equal(p->releases, 5);
}

struct episode {
    double row[H][D];
    double reward[H];
};

/* A random row in the simplex (entries >= 0 summing to at most 1) and a
 * reward in [0, 1], for every step. */
static void random_episode(struct bb_rng *r, struct episode *e)
{
    for (int h = 0; h < H; h++) {
        double left = 1.0;
        for (int j = 0; j < D; j++) {
            e->row[h][j] = left * bb_rng_uniform(r) * 0.7;
            left -= e->row[h][j];
        }
        e->reward[h] = bb_rng_uniform(r);
    }
}

static int add(struct bb_rstream *s, const struct episode *e, struct bb_rng *r)
{
    const double *rows[H];
    double w[H];
    for (int h = 0; h < H; h++) {
        rows[h] = e->row[h];
        w[h] = bb_params_row_weight(&cur, e->row[h]);
    }
    return bb_rstream_add(s, rows, w, e->reward, r);
}

/* The exact centred sum of step h over the first n episodes, each term
 * weighed by ||phi||_1 / ||phi||_2 (row-weight norm, simplex rows). */
static void exact_sum(const struct episode *eps, long n, int h, double kappa, double *out)
{
    memset(out, 0, D * sizeof(double));
    for (long i = 0; i < n; i++) {
        double s = 0, q = 0;
        for (int j = 0; j < D; j++) {
            s += eps[i].row[h][j];
            q += eps[i].row[h][j] * eps[i].row[h][j];
        }
        const double w = q > 0 ? s / sqrt(q) : 1.0;
        for (int j = 0; j < D; j++)
            out[j] += w * eps[i].row[h][j] * (eps[i].reward[h] - kappa * s);
    }
}

static struct episode eps[K];

static void test_releases_and_records(void **state)
{
    (void)state;
    struct bb_params p;
    params(&p, 1.0);
    struct bb_rstream *s;
    struct bb_rng r, data;
    bb_rng_init_seeded(&r, 1);
    bb_rng_init_seeded(&data, 2);
    assert_int_equal(bb_rstream_new(&p, &s), BB_OK);
    double out[D], want[D], sd;
    assert_int_equal(bb_rstream_release(s, 0, out, &sd), BB_OK); /* none yet: zero */
    for (int j = 0; j < D; j++)
        assert_true(out[j] == 0.0);
    assert_true(sd == 0.0);
    assert_int_equal(bb_rstream_release(s, H, out, &sd), BB_ERANGE);
    static const long points[] = {10, 20, 40, 80, 160};
    double c[5];
    bb_sqrt_coefficients(c, 5);
    static double z[5][H][D];
    long t = -1;
    const double kappa = bb_params_y_centre(&p);
    assert_true(kappa > 0);
    for (long k = 1; k <= 170; k++) {
        random_episode(&data, &eps[k - 1]);
        assert_int_equal(add(s, &eps[k - 1], &r), BB_OK);
        const struct bb_mech_record *rec;
        size_t n = bb_rstream_records(s, &rec);
        if (t + 1 < 5 && points[t + 1] == k) {
            t++;
            assert_int_equal(n, H);
            for (size_t i = 0; i < n; i++) {
                assert_int_equal(rec[i].step, (int)i);
                assert_int_equal(rec[i].slot, -(t + 1));
                assert_int_equal(rec[i].tag, k);
                assert_int_equal(rec[i].len, D * sizeof(double));
                assert_true(bb_rstream_owns(&rec[i]));
                memcpy(z[t][i], rec[i].bytes, rec[i].len);
            }
        } else {
            assert_int_equal(n, 0);
        }
        /* Release t (the last point <= k) = the exact sum over its points
         * plus sum_i b_{t-i} Z_i, within the snapping (G outputs, each of
         * at most k snapped terms off by g / 2). */
        for (int h = 0; h < H; h++) {
            assert_int_equal(bb_rstream_release(s, h, out, &sd), BB_OK);
            if (t < 0)
                continue;
            exact_sum(eps, points[t], h, kappa, want);
            const double g = bb_params_grid_reward(&p, h);
            double b2 = 0;
            for (long i = 0; i <= t; i++) {
                b2 += c[t - i] * c[t - i];
                for (int j = 0; j < D; j++)
                    want[j] += c[t - i] * z[i][h][j];
            }
            for (int j = 0; j < D; j++)
                assert_true(fabs(out[j] - want[j]) <= 6 * (double)points[t] * g);
            assert_rel(sd, bb_params_sigma_reward_drawn(&p, h) * sqrt(b2), 1e-15);
        }
    }
    bb_rstream_free(s);
}

/* Replay plus records rebuilds the same releases; a missing record is a
 * gap that refuses releases and draws; repeats and malformed records are
 * refused; a point not reached is ignored. */
static void test_recovery(void **state)
{
    (void)state;
    struct bb_params p;
    params(&p, 1.0);
    struct bb_rstream *a, *b, *x;
    struct bb_rng r, data;
    bb_rng_init_seeded(&r, 3);
    bb_rng_init_seeded(&data, 4);
    assert_int_equal(bb_rstream_new(&p, &a), BB_OK);
    static struct test_records saved;
    for (long k = 0; k < 50; k++) { /* points 10, 20, 40 reached */
        random_episode(&data, &eps[k]);
        assert_int_equal(add(a, &eps[k], &r), BB_OK);
        const struct bb_mech_record *rec;
        size_t n = bb_rstream_records(a, &rec);
        test_records_put(&saved, rec, n);
    }
    assert_int_equal(saved.n, 3 * H);
    assert_int_equal(bb_rstream_new(&p, &b), BB_OK);
    assert_int_equal(bb_rstream_new(&p, &x), BB_OK);
    for (long k = 0; k < 50; k++) {
        assert_int_equal(add(b, &eps[k], NULL), BB_OK);
        assert_int_equal(add(x, &eps[k], NULL), BB_OK);
    }
    double out[D], sd;
    assert_int_equal(bb_rstream_ready(b), BB_EINVAL); /* nothing loaded yet */
    assert_int_equal(bb_rstream_release(b, 0, out, &sd), BB_EINVAL);
    assert_int_equal(add(b, &eps[0], &r), BB_EINVAL); /* no draw over a gap */
    for (size_t i = 0; i < saved.n; i++)
        assert_int_equal(bb_rstream_load(b, &saved.rec[i]), BB_OK);
    assert_int_equal(bb_rstream_ready(b), BB_OK);
    for (int h = 0; h < H; h++) {
        double want[D], sw, got[D], sg;
        assert_int_equal(bb_rstream_release(a, h, want, &sw), BB_OK);
        assert_int_equal(bb_rstream_release(b, h, got, &sg), BB_OK);
        assert_memory_equal(got, want, sizeof(want));
        assert_true(sg == sw);
    }
    assert_int_equal(bb_rstream_load(b, &saved.rec[0]), BB_ECONFLICT);
    /* x: all but one record, then malformed ones */
    for (size_t i = 1; i < saved.n; i++)
        assert_int_equal(bb_rstream_load(x, &saved.rec[i]), BB_OK);
    assert_int_equal(bb_rstream_ready(x), BB_EINVAL);
    struct bb_mech_record bad = saved.rec[0];
    bad.tag = 11;
    assert_int_equal(bb_rstream_load(x, &bad), BB_EINVAL);
    bad = saved.rec[0], bad.len = 8;
    assert_int_equal(bb_rstream_load(x, &bad), BB_EINVAL);
    bad = saved.rec[0], bad.step = H;
    assert_int_equal(bb_rstream_load(x, &bad), BB_EINVAL);
    bad = saved.rec[0], bad.slot = -6; /* past the last point */
    assert_int_equal(bb_rstream_load(x, &bad), BB_EINVAL);
    bad = saved.rec[0], bad.slot = -4, bad.tag = 80; /* a point not reached */
    assert_int_equal(bb_rstream_load(x, &bad), BB_OK);
    assert_int_equal(bb_rstream_ready(x), BB_EINVAL);
    assert_int_equal(bb_rstream_load(x, &saved.rec[0]), BB_OK);
    assert_int_equal(bb_rstream_ready(x), BB_OK);
    /* and goes on drawing where a would */
    assert_int_equal(add(x, &eps[0], &r), BB_OK);
    for (size_t i = 0; i < saved.n; i++)
        free((void *)saved.rec[i].bytes);
    bb_rstream_free(a);
    bb_rstream_free(b);
    bb_rstream_free(x);
}

/* The noise's variance: the first release of a stream of zero rows holds
 * Z_1 alone, N_Z(0, sigma_drawn^2) per coordinate. */
static void test_noise_variance(void **state)
{
    (void)state;
    struct bb_params p;
    params(&p, 1.0);
    struct bb_rng r;
    bb_rng_init_seeded(&r, 5);
    struct episode zero;
    memset(&zero, 0, sizeof(zero));
    double sum2 = 0;
    const int n = 400;
    for (int i = 0; i < n; i++) {
        struct bb_rstream *s;
        assert_int_equal(bb_rstream_new(&p, &s), BB_OK);
        for (int k = 0; k < 10; k++)
            assert_int_equal(add(s, &zero, &r), BB_OK);
        double out[D], sd;
        assert_int_equal(bb_rstream_release(s, 1, out, &sd), BB_OK);
        for (int j = 0; j < D; j++)
            sum2 += out[j] * out[j];
        bb_rstream_free(s);
    }
    const double s = bb_params_sigma_reward_drawn(&p, 1);
    /* 1200 draws: the sample variance within 15 % (about 4 sd) */
    assert_true(fabs(sum2 / (n * D) / (s * s) - 1.0) < 0.15);
}

/* Only where it is in force. */
static void test_not_in_force(void **state)
{
    (void)state;
    struct bb_params p;
    params(&p, 1.0);
    p.rewards = BB_REWARDS_UPDATE;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    struct bb_rstream *s = (struct bb_rstream *)&p;
    assert_int_equal(bb_rstream_new(&p, &s), BB_EINVAL);
    assert_null(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_releases_and_records),
        cmocka_unit_test(test_recovery),
        cmocka_unit_test(test_noise_variance),
        cmocka_unit_test(test_not_in_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
