/*
 * test_cstream.c — the count stream behind engine/cstream.h: each release
 * is the exact transition counts N_h plus the decoded noise of its
 * records, sum_i b_{t-i} Z_i, within the snapping the calibration charges;
 * its sd is sigma_drawn sqrt(sum b^2); its records are one per step h < H -
 * 1 at a grid point, in slots apart from the reward stream's; recovery by
 * replay and records is bit-identical; bad paths and other streams'
 * records are refused; the noise has the variance charged.
 */
#include "testutil.h"
#include "test_records.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/cstream.h"
#include "engine/params.h"
#include "engine/release.h"
#include "engine/rng.h"
#include "engine/rstream.h"
#include "engine/stream.h"

enum { H = 3, A = 2, S = 3, D = S * A, W = D * S, K = 200 };

/* Tabular rows, k0 = 10 on base 2: grid points 10, 20, 40, 80, 160. */
static void params(struct bb_params *p, double rho)
{
    bb_params_defaults(p);
    p->H = H, p->d = D, p->A = A, p->K_max = K, p->rho = rho;
    p->features = BB_FEATURES_TABULAR;
    p->release_base = 2.0;
    p->release_start = 10;
    char why[128];
    if (bb_params_derive(p, why, sizeof(why)) != BB_OK)
        fail_msg("%s", why);
    assert_true(bb_params_counts(p));
    assert_int_equal(p->releases, 5);
}

struct path {
    int cell[H], state[H];
};

static void random_path(struct bb_rng *r, struct path *e)
{
    for (int h = 0; h < H; h++) {
        e->state[h] = (int)(bb_rng_uniform(r) * S);
        e->cell[h] = e->state[h] * A + (int)(bb_rng_uniform(r) * A);
    }
}

static struct path eps[K];

static void test_releases_and_records(void **state)
{
    (void)state;
    struct bb_params p;
    params(&p, 1.0);
    struct bb_stream *s;
    struct bb_rng r, data;
    bb_rng_init_seeded(&r, 1);
    bb_rng_init_seeded(&data, 2);
    assert_int_equal(bb_cstream_new(&p, &s), BB_OK);
    double out[W], want[W], sd;
    assert_int_equal(bb_stream_release(s, 0, out, &sd), BB_OK); /* none yet: zero */
    for (int j = 0; j < W; j++)
        assert_true(out[j] == 0.0);
    assert_int_equal(bb_stream_release(s, H - 1, out, &sd), BB_ERANGE);
    static const long points[] = {10, 20, 40, 80, 160};
    double c[5];
    bb_sqrt_coefficients(c, 5);
    static double z[5][H - 1][W];
    long t = -1;
    for (long k = 1; k <= 170; k++) {
        random_path(&data, &eps[k - 1]);
        assert_int_equal(bb_cstream_add(s, &p, eps[k - 1].cell, eps[k - 1].state, &r), BB_OK);
        const struct bb_mech_record *rec;
        size_t n = bb_stream_records(s, &rec);
        if (t + 1 < 5 && points[t + 1] == k) {
            t++;
            assert_int_equal(n, H - 1);
            for (size_t i = 0; i < n; i++) {
                assert_int_equal(rec[i].step, (int)i);
                assert_int_equal(rec[i].slot, -(BB_STREAM_SLOTS + t + 1));
                assert_int_equal(rec[i].tag, k);
                assert_int_equal(rec[i].len, W * sizeof(double));
                assert_true(bb_cstream_owns(&rec[i]));
                assert_false(bb_rstream_owns(&rec[i]));
                memcpy(z[t][i], rec[i].bytes, rec[i].len);
            }
        } else {
            assert_int_equal(n, 0);
        }
        for (int h = 0; h < H - 1; h++) {
            assert_int_equal(bb_stream_release(s, h, out, &sd), BB_OK);
            if (t < 0)
                continue;
            memset(want, 0, sizeof(want));
            for (long i = 0; i < points[t]; i++)
                want[eps[i].cell[h] * S + eps[i].state[h + 1]] += 1.0;
            double b2 = 0, g = bb_params_grid_counts(&p);
            for (long i = 0; i <= t; i++) {
                b2 += c[t - i] * c[t - i];
                for (int j = 0; j < W; j++)
                    want[j] += c[t - i] * z[i][h][j];
            }
            /* each of the t + 1 outputs snapped, off by g / 2 */
            for (int j = 0; j < W; j++)
                assert_true(fabs(out[j] - want[j]) <= (double)(t + 1) * g);
            assert_rel(sd, bb_params_sigma_counts_drawn(&p) * sqrt(b2), 1e-15);
        }
    }
    /* a cell or state out of range changes nothing */
    struct path bad = eps[0];
    bad.state[1] = S;
    assert_int_equal(bb_cstream_add(s, &p, bad.cell, bad.state, &r), BB_EINVAL);
    bad = eps[0], bad.cell[0] = D;
    assert_int_equal(bb_cstream_add(s, &p, bad.cell, bad.state, &r), BB_EINVAL);
    bb_stream_free(s);
    bb_rng_release(&r);
    bb_rng_release(&data);
}

/* Replay plus records rebuilds the same releases; a gap refuses releases
 * and draws; the reward stream's records are not the count stream's. */
static void test_recovery(void **state)
{
    (void)state;
    struct bb_params p;
    params(&p, 1.0);
    struct bb_stream *a, *b;
    struct bb_rng r, data;
    bb_rng_init_seeded(&r, 3);
    bb_rng_init_seeded(&data, 4);
    assert_int_equal(bb_cstream_new(&p, &a), BB_OK);
    static struct test_records saved;
    for (long k = 0; k < 50; k++) { /* points 10, 20, 40 reached */
        random_path(&data, &eps[k]);
        assert_int_equal(bb_cstream_add(a, &p, eps[k].cell, eps[k].state, &r), BB_OK);
        const struct bb_mech_record *rec;
        size_t n = bb_stream_records(a, &rec);
        test_records_put(&saved, rec, n);
    }
    assert_int_equal(saved.n, 3 * (H - 1));
    assert_int_equal(bb_cstream_new(&p, &b), BB_OK);
    for (long k = 0; k < 50; k++)
        assert_int_equal(bb_cstream_add(b, &p, eps[k].cell, eps[k].state, NULL), BB_OK);
    double out[W], sd;
    assert_int_equal(bb_stream_ready(b), BB_EINVAL);
    assert_int_equal(bb_stream_release(b, 0, out, &sd), BB_EINVAL);
    assert_int_equal(bb_cstream_add(b, &p, eps[0].cell, eps[0].state, &r), BB_EINVAL);
    struct bb_mech_record other = saved.rec[0];
    other.slot = -1; /* the reward stream's slot */
    assert_int_equal(bb_stream_load(b, &other), BB_EINVAL);
    other = saved.rec[0], other.len = 8;
    assert_int_equal(bb_stream_load(b, &other), BB_EINVAL);
    for (size_t i = 0; i < saved.n; i++)
        assert_int_equal(bb_stream_load(b, &saved.rec[i]), BB_OK);
    assert_int_equal(bb_stream_ready(b), BB_OK);
    assert_int_equal(bb_stream_load(b, &saved.rec[0]), BB_ECONFLICT);
    for (int h = 0; h < H - 1; h++) {
        double want[W], sw, got[W], sg;
        assert_int_equal(bb_stream_release(a, h, want, &sw), BB_OK);
        assert_int_equal(bb_stream_release(b, h, got, &sg), BB_OK);
        assert_memory_equal(got, want, sizeof(want));
        assert_true(sg == sw);
    }
    for (size_t i = 0; i < saved.n; i++)
        free((void *)saved.rec[i].bytes);
    bb_stream_free(a);
    bb_stream_free(b);
    bb_rng_release(&r);
    bb_rng_release(&data);
}

/* The first release of a stream holds its counts plus Z_1 alone,
 * N_Z(0, sigma_drawn^2) per entry. */
static void test_noise_variance(void **state)
{
    (void)state;
    struct bb_params p;
    params(&p, 1.0);
    struct bb_rng r;
    bb_rng_init_seeded(&r, 5);
    struct path zero;
    memset(&zero, 0, sizeof(zero)); /* cell 0 to state 0 every step */
    double sum2 = 0;
    const int n = 60;
    for (int i = 0; i < n; i++) {
        struct bb_stream *s;
        assert_int_equal(bb_cstream_new(&p, &s), BB_OK);
        for (int k = 0; k < 10; k++)
            assert_int_equal(bb_cstream_add(s, &p, zero.cell, zero.state, &r), BB_OK);
        double out[W], sd;
        assert_int_equal(bb_stream_release(s, 1, out, &sd), BB_OK);
        out[0] -= 10; /* the count */
        for (int j = 0; j < W; j++)
            sum2 += out[j] * out[j];
        bb_stream_free(s);
    }
    const double s = bb_params_sigma_counts_drawn(&p);
    /* 1080 draws: the sample variance within 15 % (about 4 sd) */
    assert_true(fabs(sum2 / (n * W) / (s * s) - 1.0) < 0.15);
    bb_rng_release(&r);
}

/* Only with tabular rows under the reward stream. */
static void test_not_in_force(void **state)
{
    (void)state;
    struct bb_params p;
    params(&p, 1.0);
    p.features = BB_FEATURES_ONEHOT;
    struct bb_stream *s;
    assert_false(bb_params_counts(&p));
    assert_int_equal(bb_cstream_new(&p, &s), BB_EINVAL);
    bb_params_defaults(&p);
    p.H = H, p.d = D, p.A = A, p.K_max = K, p.rho = INFINITY;
    p.features = BB_FEATURES_TABULAR;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_false(bb_params_counts(&p));
    assert_rel(bb_params_rho_counts(&p), 0, 0);
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
