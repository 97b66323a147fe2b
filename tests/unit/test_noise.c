/*
 * test_noise.c — the discrete Gaussian sampler, its grid, and the rng.
 *
 * Statistical checks use a fixed seed (reproducible, never flaky) and a
 * bound of 4.42 standard errors (two-sided 1e-5).
 */
#include "testutil.h"

#include <string.h>

#include "engine/noise.h"
#include "engine/rng.h"

#define NDRAWS 125000
#define ZBOUND 4.42

static void check_moments(double sigma, double grid, uint64_t seed)
{
    struct bb_sampler s;
    struct bb_rng r;
    assert_int_equal(bb_sampler_init(&s, sigma, grid), BB_OK);
    bb_rng_init_seeded(&r, seed);
    double sum = 0, sum2 = 0;
    long within = 0;
    const double var = (double)s.s2 * grid * grid; /* the parameter actually used */
    for (int i = 0; i < NDRAWS; i++) {
        double x = bb_sampler_draw(&s, &r);
        assert_true(bb_on_grid(x, grid));
        sum += x;
        sum2 += x * x;
        within += fabs(x) <= sqrt(var);
    }
    double n = NDRAWS, mean = sum / n, v = sum2 / n - mean * mean;
    double se_mean = sqrt(var / n), se_var = var * sqrt(2.0 / n);
    if (fabs(mean) > ZBOUND * se_mean)
        fail_msg("mean %g off by %.2f SE (sigma %g)", mean, fabs(mean) / se_mean, sigma);
    if (fabs(v - var) > ZBOUND * se_var)
        fail_msg("variance %g vs %g off by %.2f SE", v, var, fabs(v - var) / se_var);
    /* Shape: P(|X| <= sigma) = 0.6827 for a Gaussian (discrete: within ZBOUND). */
    double pw = within / n, p0 = 0.682689492137;
    if (sigma / grid > 100)
        assert_true(fabs(pw - p0) <= ZBOUND * sqrt(p0 * (1 - p0) / n));
    bb_rng_release(&r);
}

static void test_moments_realistic_scale(void **state)
{
    (void)state;
    /* sigma_Lambda of H=5, d=10, K=1e4, rho=1 on its grid. */
    double sigma = 12.248109438863846;
    check_moments(sigma, bb_grid_for(sigma), 1);
}

static void test_moments_small_and_large(void **state)
{
    (void)state;
    check_moments(3.0, 1.0, 2);           /* integer sigma on the integers */
    check_moments(1334.586, bb_grid_for(1334.586), 3); /* sigma_y scale */
}

static void test_grid(void **state)
{
    (void)state;
    double g = bb_grid_for(12.25);
    assert_rel(g, ldexp(1.0, 3 - BB_GRID_BITS), 0);
    assert_true(bb_grid_for(0) == 0);
    assert_true(bb_on_grid(bb_grid_snap(0.123456789, g), g));
    assert_true(fabs(bb_grid_snap(0.123456789, g) - 0.123456789) <= g / 2);
    assert_false(bb_on_grid(g / 3, g));
    assert_rel(bb_grid_snap(0.3, 0), 0.3, 0);
    /* A snapped value plus grid noise is exactly on the grid. */
    struct bb_sampler s;
    struct bb_rng r;
    bb_rng_init_seeded(&r, 9);
    assert_int_equal(bb_sampler_init(&s, 12.25, g), BB_OK);
    for (int i = 0; i < 1000; i++) {
        double x = bb_grid_snap(i * 0.0123456789, g) + bb_sampler_draw(&s, &r);
        assert_true(bb_on_grid(x, g));
    }
}

static void test_sampler_init_rejects(void **state)
{
    (void)state;
    struct bb_sampler s;
    assert_int_equal(bb_sampler_init(&s, 1.0, 0.3), BB_EINVAL);   /* not a power of two */
    assert_int_equal(bb_sampler_init(&s, 1.0, 4.0), BB_EINVAL);   /* grid coarser than sigma */
    assert_int_equal(bb_sampler_init(&s, -1.0, 1.0), BB_EINVAL);
    assert_int_equal(bb_sampler_init(&s, INFINITY, 1.0), BB_EINVAL);
    assert_int_equal(bb_sampler_init(&s, 0.0, 0.0), BB_OK); /* no noise */
    struct bb_rng r;
    bb_rng_init_seeded(&r, 1);
    assert_true(bb_sampler_draw(&s, &r) == 0.0);
    /* s2 is the squared ratio rounded up: the variance never shrinks. */
    assert_int_equal(bb_sampler_init(&s, 3.5, 1.0), BB_OK);
    assert_int_equal(s.s2, 13);
    assert_int_equal(s.t, 4);
}

static void test_bernoulli_exp(void **state)
{
    (void)state;
    struct bb_rng r;
    bb_rng_init_seeded(&r, 4);
    const double gammas[][2] = {{1, 2}, {1, 1}, {5, 2}, {0, 1}, {7, 3}};
    for (size_t g = 0; g < sizeof(gammas) / sizeof(gammas[0]); g++) {
        long hits = 0;
        const int n = 100000;
        for (int i = 0; i < n; i++)
            hits += bb_bernoulli_exp(&r, (unsigned __int128)gammas[g][0],
                                     (unsigned __int128)gammas[g][1]);
        double p = exp(-gammas[g][0] / gammas[g][1]), f = (double)hits / n;
        double se = sqrt(p * (1 - p) / n);
        if (p == 1.0)
            assert_int_equal(hits, n);
        else if (fabs(f - p) > ZBOUND * se)
            fail_msg("Bernoulli(exp(-%g)) frequency %g, want %g", gammas[g][0] / gammas[g][1],
                     f, p);
    }
}

static void test_rng(void **state)
{
    (void)state;
    struct bb_rng a, b, c;
    bb_rng_init_seeded(&a, 42);
    bb_rng_init_seeded(&b, 42);
    bb_rng_init_seeded(&c, 43);
    int same_ab = 1, same_ac = 1;
    for (int i = 0; i < 2000; i++) { /* crosses several 4 KiB blocks */
        uint64_t x = bb_rng_u64(&a), y = bb_rng_u64(&b), z = bb_rng_u64(&c);
        same_ab &= x == y;
        same_ac &= x == z;
    }
    assert_true(same_ab);
    assert_false(same_ac);
    /* Uniform below n: in range, and every value of a small range shows up. */
    int seen[7] = {0};
    for (int i = 0; i < 7000; i++) {
        uint64_t v = bb_rng_below(&a, 7);
        assert_true(v < 7);
        seen[v]++;
    }
    for (int i = 0; i < 7; i++)
        assert_true(seen[i] > 800 && seen[i] < 1200);
    unsigned __int128 big = ((unsigned __int128)1 << 90) + 12345;
    for (int i = 0; i < 100; i++)
        assert_true(bb_rng_below128(&a, big) < big);
    double u = bb_rng_uniform(&a);
    assert_true(u >= 0 && u < 1);
    /* A secure stream is keyed from the OS and differs from run to run. */
    struct bb_rng s1, s2;
    assert_int_equal(bb_rng_init_secure(&s1), BB_OK);
    assert_int_equal(bb_rng_init_secure(&s2), BB_OK);
    assert_false(s1.deterministic);
    assert_true(bb_rng_u64(&s1) != bb_rng_u64(&s2));
    /* Children are independent of their parent's later output. */
    struct bb_rng child;
    bb_rng_init_child(&child, &a);
    assert_true(bb_rng_u64(&child) != bb_rng_u64(&a));
    bb_rng_release(&s1);
    assert_true(s1.key[0] == 0 && s1.key[31] == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_moments_realistic_scale),
        cmocka_unit_test(test_moments_small_and_large),
        cmocka_unit_test(test_grid),
        cmocka_unit_test(test_sampler_init_rejects),
        cmocka_unit_test(test_bernoulli_exp),
        cmocka_unit_test(test_rng),
    };
    return cmocka_run_group_tests_name("noise", tests, NULL, NULL);
}
