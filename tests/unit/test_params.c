/*
 * test_params.c — every privacy constant on known values (DESIGN.md §3).
 */
#include "testutil.h"

#include <limits.h>

#include <string.h>

#include "engine/noise.h"
#include "engine/params.h"
#include "engine/schedule.h"

struct known {
    int H, d;
    long K;
    double rho;
    int L;
    double sigma_gram, shift;
    long max_updates;
    double sigma_y;
};

/* From the issue: default f = 1/2, p = 0.05, C = 2. */
static const struct known table[] = {
    {5, 10, 10000, 1.0, 15, 12.247449, 1910.6544, 31, 149.398795},
    {10, 32, 100000, 0.5, 18, 26.832816, 6403.6012, 184, 1334.586078},
    {20, 8, 1000, 10.0, 11, 6.633250, 816.4673, 33, 341.209613},
};

/* Derives q and checks that the privacy constants a lever must not move
 * are p's: the noise scales, the ridge and N_max. */
static void assert_constants_kept(const struct bb_params *p, struct bb_params *q)
{
    assert_int_equal(bb_params_derive(q, NULL, 0), BB_OK);
    assert_rel(q->sigma_y_eff, p->sigma_y_eff, 0);
    assert_rel(q->sigma_gram_eff, p->sigma_gram_eff, 0);
    assert_rel(q->ridge, p->ridge, 0);
    assert_int_equal(q->max_updates, p->max_updates);
}

static void derive(struct bb_params *p, int H, int d, long K, double rho)
{
    bb_params_defaults(p);
    /* The paper's construction, corrected: the table of docs/PRIVACY.md. */
    p->mechanism = BB_MECH_TREE;
    p->shift_bound = BB_BOUND_PAPER;
    p->shift_scale = 1.0;
    p->value_clip = BB_VCLIP_HORIZON;
    p->gram_share = 0.5; /* DESIGN.md's split, the paper's */
    p->first_share = 1;  /* every update the same share (§2), as the table's */
    p->H = H;
    p->d = d;
    p->A = 4;
    p->K_max = K;
    p->rho = rho;
    char why[128];
    int rc = bb_params_derive(p, why, sizeof(why));
    if (rc != BB_OK)
        fail_msg("derive failed: %s", why);
}

static void test_known_values(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        const struct known *k = &table[i];
        struct bb_params p;
        derive(&p, k->H, k->d, k->K, k->rho);
        assert_int_equal(p.L, k->L);
        assert_rel(p.sigma_gram, k->sigma_gram, 1e-6);
        assert_rel(p.shift, k->shift, 1e-6);
        assert_int_equal(p.max_updates, k->max_updates);
        assert_rel(p.sigma_y, k->sigma_y, 1e-6);
        assert_rel(p.ridge, 2 * k->shift, 1e-6);
        /* The formulas themselves, independently of the table. */
        assert_rel(p.sigma_gram * p.sigma_gram, k->H * (double)k->L / (0.5 * k->rho), 1e-12);
        assert_rel(p.sigma_y * p.sigma_y,
                   2.0 * k->H * k->max_updates * (k->H + 1.0) * (k->H + 1.0) / (0.5 * k->rho),
                   1e-12);
    }
}

static void test_epsilon_rho_conversions(void **state)
{
    (void)state;
    assert_rel(bb_epsilon_from_rho(1.0, 1e-5), 7.786140, 1e-6);
    assert_rel(bb_rho_from_epsilon(1.0, 1e-5), 0.02081994, 1e-6);
    /* Round trips both ways. */
    for (double rho = 1e-3; rho < 100; rho *= 3.7)
        assert_rel(bb_rho_from_epsilon(bb_epsilon_from_rho(rho, 1e-6), 1e-6), rho, 1e-9);
    /* CKS is never worse than the plain conversion and close for small rho. */
    for (double rho = 1e-3; rho < 100; rho *= 3.7) {
        double plain = bb_epsilon_from_rho(rho, 1e-5), cks = bb_epsilon_from_rho_cks(rho, 1e-5);
        assert_true(cks <= plain);
        assert_true(cks > 0.7 * plain);
    }
    /* CKS on known values: the infimum over alpha and the rho solving it,
     * from an independent ternary search and bisection in Python (doubles,
     * 300 and 200 iterations). */
    assert_rel(bb_epsilon_from_rho_cks(1.0, 1e-5), 7.07719669580634, 1e-9);
    assert_rel(bb_rho_from_epsilon_cks(10.0, 1e-5), 1.7826956163289511, 1e-9);
    assert_rel(bb_rho_from_epsilon_cks(3.0, 1e-5), 0.22424916824634528, 1e-9);
    assert_rel(bb_rho_from_epsilon_cks(1.0, 1e-5), 0.030556595197639567, 1e-9);
    /* The rho it gives never exceeds the budget, and is the largest that
     * does: a rho 1e-9 larger does exceed it. */
    for (double eps = 0.01; eps < 200; eps *= 2.9)
        for (double delta = 1e-10; delta < 1e-2; delta *= 1000) {
            double rho = bb_rho_from_epsilon_cks(eps, delta);
            assert_true(bb_epsilon_from_rho_cks(rho, delta) <= eps);
            assert_true(bb_epsilon_from_rho_cks(rho * (1 + 1e-9), delta) > eps);
            assert_true(rho >= bb_rho_from_epsilon(eps, delta));
        }
    /* An (epsilon, delta) budget is converted to rho: by Bun–Steinke when
     * asked (and under the paper's calibration), by CKS by default. */
    struct bb_params p;
    bb_params_defaults(&p);
    p.H = 5, p.d = 10, p.A = 2, p.K_max = 10000, p.epsilon = 1.0, p.delta = 1e-5;
    p.conversion = BB_CONV_BUN_STEINKE;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_rel(p.rho, 0.02081994, 1e-6);
    assert_rel(p.epsilon, 1.0, 1e-12);
    bb_params_defaults(&p);
    p.H = 5, p.d = 10, p.A = 2, p.K_max = 10000, p.epsilon = 1.0, p.delta = 1e-5;
    assert_int_equal(p.conversion, BB_CONV_CKS);
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_rel(p.rho, 0.030556595197639567, 1e-9);
    assert_true(p.epsilon <= 1.0);
    assert_rel(p.epsilon, 1.0, 1e-9);
    /* With exact arithmetic (the default) the conversion aims 2^-40 below
     * the budget, so the computed epsilon clears it by far more than the
     * few ulps of its own rounding; a database with float arithmetic keeps
     * the rho it was created with. */
    assert_int_equal(p.arithmetic, BB_ARITH_EXACT);
    assert_true(p.rho == bb_rho_from_epsilon_cks(1.0 - 0x1p-40, 1e-5));
    assert_true(bb_epsilon_from_rho_cks(p.rho, 1e-5) <= 1.0 - 0x1p-41);
    struct bb_params f = p;
    f.rho = 0, f.epsilon = 1.0, f.arithmetic = BB_ARITH_FLOAT;
    assert_int_equal(bb_params_derive(&f, NULL, 0), BB_OK);
    assert_true(f.rho == bb_rho_from_epsilon_cks(1.0, 1e-5));
    assert_true(f.rho > p.rho);
    bb_params_defaults(&p);
    p.H = 5, p.d = 10, p.A = 2, p.K_max = 10000, p.epsilon = 1.0, p.delta = 1e-5;
    p.calibration = BB_CAL_PAPER;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_rel(p.rho, 0.02081994, 1e-6);
    /* A rho given directly is reported by the conversion's epsilon. */
    bb_params_defaults(&p);
    p.H = 5, p.d = 10, p.A = 2, p.K_max = 10000, p.rho = 1.0;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_rel(p.epsilon, 7.07719669580634, 1e-9);
    p.conversion = 7;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_EINVAL);
}

static void test_paper_calibration_is_under_noised(void **state)
{
    (void)state;
    /* The paper's y variance is smaller by 2(H+1)^2 / (3H). */
    for (int H = 1; H <= 20; H += 3) {
        struct bb_params c, p;
        derive(&c, H, 8, 5000, 1.0);
        derive(&p, H, 8, 5000, 1.0);
        p.calibration = BB_CAL_PAPER;
        assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
        assert_rel(c.sigma_y * c.sigma_y / (p.sigma_y * p.sigma_y),
                   2.0 * (H + 1) * (H + 1) / (3.0 * H), 1e-12);
        assert_true(c.v_floor == 0.0);
        assert_true(isinf(p.v_floor) && p.v_floor < 0); /* no lower clip */
        assert_rel(c.sigma_gram, p.sigma_gram, 1e-15);  /* tree unchanged */
    }
}

static void test_cap(void **state)
{
    (void)state;
    struct bb_params p;
    derive(&p, 5, 10, 10000, 1.0); /* bound 31 */
    p.max_updates_cap = 10;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_int_equal(p.max_updates, 10);
    /* sigma_y follows the cap: fewer updates, less noise per update. */
    assert_rel(p.sigma_y * p.sigma_y, 2.0 * 5 * 10 * 36 / 0.5, 1e-12);
    /* V clipped to the steps left: N H (H+1)(2H+1) / (3 rho_y) = 2200. */
    p.value_clip = BB_VCLIP_REMAINING;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_rel(p.sigma_y * p.sigma_y, 10.0 * 5 * 6 * 11 / (3 * 0.5), 1e-12);
    assert_rel(p.sigma_y * p.sigma_y, 2200.0, 1e-12);
    p.value_clip = BB_VCLIP_HORIZON;
    char why[160];
    p.max_updates_cap = 32;
    assert_int_equal(bb_params_derive(&p, why, sizeof(why)), BB_EINVAL);
    assert_non_null(strstr(why, "31"));
}

static void test_grid_inflation(void **state)
{
    (void)state;
    struct bb_params p;
    derive(&p, 10, 32, 100000, 0.5);
    /* Grids are powers of two about 2^-20 of sigma. */
    int e;
    assert_rel(frexp(p.grid_gram, &e), 0.5, 0);
    assert_true(p.sigma_gram / p.grid_gram >= 0x1p20 && p.sigma_gram / p.grid_gram < 0x1p21);
    /* Each Gram entry: g/2 for the snap and, with exact arithmetic, 2^-54
     * for its product's rounding, each side, and a ball row accepted at
     * ||phi||^2 <= 1 + eta: sqrt 2 (1 + eta) + (g + 2^-53) d. */
    assert_int_equal(p.arithmetic, BB_ARITH_EXACT);
    const double u = 0x1p-53, gamma = 32 * u / (1 - 32 * u), eta = gamma / (1 - gamma);
    assert_rel(bb_params_row_slack(&p), eta, 0);
    assert_true(eta > 32 * u && eta < 33 * u);
    assert_rel(p.sigma_gram_eff,
               p.sigma_gram * (1 + eta + (p.grid_gram + 0x1p-53) * 32 / sqrt(2.0)), 1e-15);
    /* Exact y sums: every term snapped, two grid steps per coordinate. */
    assert_rel(bb_params_y_snaps(&p), 2.0, 0);
    assert_rel(p.sigma_y_eff, p.sigma_y * (1 + eta + 2 * p.grid_y * sqrt(32.0) / 22.0), 1e-15);
    struct bb_params f = p; /* a database created with float sums keeps one */
    f.arithmetic = BB_ARITH_FLOAT;
    assert_int_equal(bb_params_derive(&f, NULL, 0), BB_OK);
    assert_rel(bb_params_y_snaps(&f), 1.0, 0);
    assert_rel(bb_params_row_slack(&f), 0, 0);
    assert_rel(f.sigma_y_eff, f.sigma_y * (1 + f.grid_y * sqrt(32.0) / 22.0), 1e-15);
    assert_rel(f.sigma_gram_eff, f.sigma_gram * (1 + f.grid_gram * 32 / sqrt(2.0)), 1e-15);
    assert_true(f.sigma_gram_eff < p.sigma_gram_eff);
    assert_true(p.sigma_gram_eff > p.sigma_gram && p.sigma_gram_eff < p.sigma_gram * 1.001);
    /* With V clipped to the steps left the last step's sensitivity is 2:
     * the snapping slack g sqrt d is charged against that. */
    p.value_clip = BB_VCLIP_REMAINING, p.y_exponent = 0;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_rel(p.sigma_y_eff, p.sigma_y * (1 + eta + 2 * p.grid_y * sqrt(32.0) / 2.0), 1e-15);
    assert_rel(bb_params_sigma_y_drawn_step(&p, 9), p.sigma_y_eff, 0);
    assert_rel(bb_params_sigma_y_drawn_step(&p, 0),
               p.sigma_y * (1 + eta + 2 * p.grid_y * sqrt(32.0) / 20.0), 1e-15);
    /* grid-sqrt also pays for snapping C x: 2 g d sqrt(G) / sqrt(2 S) more. */
    p.mechanism = BB_MECH_GRID_SQRT, p.shift_bound = BB_BOUND_TIGHT;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_rel(p.sigma_gram_eff,
               p.sigma_gram * (1 + eta + (p.grid_gram + 0x1p-53) * 32 / sqrt(2.0) +
                               2 * p.grid_gram * 32 * sqrt((double)p.releases) /
                                   sqrt(2 * p.sens_factor)),
               1e-15);
}

/* tree-honaker: the tree's nodes, so the tree's sigma and S = L, and the
 * largest prefix variance max_n sum_{bits j of n} v_j (v_j = 2^j/(2^{j+1}-1)):
 * at K_max = 1e5, n = 2^16 - 1 with 16 nodes, sum_{j<16} v_j = 8.80333995
 * against the tree's bound L = 18. H = 5, d = 8, rho = 1 (rho_gram 0.5):
 * sigma = sqrt(5 * 18 / 0.5) = 13.4164079, prefix sd 39.8070495
 * (the tree's 56.9209979). At K_max = 6 the worst prefix is 3 = 0b11:
 * 1 + 2/3; at 7 it is 7: 1 + 2/3 + 4/7. */
static void test_tree_honaker(void **state)
{
    (void)state;
    struct bb_params t, p;
    derive(&t, 5, 8, 100000, 1.0);
    derive(&p, 5, 8, 100000, 1.0);
    p.mechanism = BB_MECH_TREE_HONAKER;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_int_equal(p.L, 18);
    assert_true(p.sens_factor == 18.0);
    assert_int_equal(p.releases, 100000);
    assert_rel(p.sigma_gram, 13.416407864998739, 1e-14);
    assert_true(p.sigma_gram == t.sigma_gram && p.sigma_gram_eff == t.sigma_gram_eff);
    assert_rel(p.prefix_sd, 39.807049506580817, 1e-12);
    assert_rel(t.prefix_sd, 56.920997883030829, 1e-12);
    assert_rel(p.prefix_sd / (t.sigma_gram * 4.0), 0.74176057233678, 1e-10); /* vs 16 nodes */
    /* The paper's bound is the tree's (valid: Honaker's prefixes are less
     * noisy); the tight one follows prefix_sd. */
    assert_rel(p.shift, t.shift, 1e-15);
    p.shift_bound = BB_BOUND_TIGHT;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_rel(p.shift, 39.807049506580817 * (2 * sqrt(8.0) + sqrt(2 * log(1e5 * 5 / 0.05))),
               1e-12);
    p.K_max = 6;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_rel(p.prefix_sd, p.sigma_gram * sqrt(1 + 2.0 / 3), 1e-14);
    p.K_max = 7;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_rel(p.prefix_sd, p.sigma_gram * sqrt(1 + 2.0 / 3 + 4.0 / 7), 1e-14);
    /* A tree releases after every episode: no grid schedule. */
    p.update_rule = BB_UPDATE_RELEASE;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_EINVAL);
    char gram[64], y[64];
    p.update_rule = BB_UPDATE_RARE;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    bb_params_describe(&p, gram, sizeof(gram), y, sizeof(y));
    assert_string_equal(gram, "L=4");
    assert_string_equal(bb_mechanism_name(BB_MECH_TREE_HONAKER), "tree-honaker");
}

static void test_non_private(void **state)
{
    (void)state;
    struct bb_params p;
    derive(&p, 5, 8, 1000, INFINITY);
    assert_false(p.is_private);
    /* Non-private spends nothing (a finite number: billboards carry it). */
    assert_true(bb_params_rho_gram_spent(&p, 10) == 0.0);
    assert_true(bb_params_rho_y_spent(&p, 10) == 0.0);
    assert_true(p.sigma_gram == 0 && p.sigma_y == 0);
    assert_rel(p.ridge, 1.0, 0);
    assert_int_equal(p.max_updates, 1000);
    bb_params_defaults(&p);
    p.H = 5, p.d = 8, p.A = 4, p.K_max = 1000, p.rho = INFINITY, p.update_rule = BB_UPDATE_EVERY;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    /* Private runs must switch rarely: N_max is what calibrates sigma_y. */
    p.rho = 1.0;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_EINVAL);
}

static void test_rejects_bad_config(void **state)
{
    (void)state;
    struct bb_params base, p;
    bb_params_defaults(&base);
    base.H = 5, base.d = 8, base.A = 4, base.K_max = 1000, base.rho = 1;
    char why[128];
    p = base, p.H = 0;
    assert_int_equal(bb_params_derive(&p, why, sizeof(why)), BB_EINVAL);
    p = base, p.d = 0;
    assert_int_equal(bb_params_derive(&p, why, sizeof(why)), BB_EINVAL);
    p = base, p.A = 0;
    assert_int_equal(bb_params_derive(&p, why, sizeof(why)), BB_EINVAL);
    p = base, p.K_max = 0;
    assert_int_equal(bb_params_derive(&p, why, sizeof(why)), BB_EINVAL);
    p = base, p.rho = -1;
    assert_int_equal(bb_params_derive(&p, why, sizeof(why)), BB_EINVAL);
    p = base, p.rho = NAN;
    assert_int_equal(bb_params_derive(&p, why, sizeof(why)), BB_EINVAL);
    p = base, p.gram_share = 1.0;
    assert_int_equal(bb_params_derive(&p, why, sizeof(why)), BB_EINVAL);
    p = base, p.update_ratio = 1.0;
    assert_int_equal(bb_params_derive(&p, why, sizeof(why)), BB_EINVAL);
    p = base, p.failure_prob = 0;
    assert_int_equal(bb_params_derive(&p, why, sizeof(why)), BB_EINVAL);
    p = base, p.delta = 1;
    assert_int_equal(bb_params_derive(&p, why, sizeof(why)), BB_EINVAL);
    p = base, p.beta = -1;
    assert_int_equal(bb_params_derive(&p, why, sizeof(why)), BB_EINVAL);
    p = base, p.y_exponent = -0.1;
    assert_int_equal(bb_params_derive(&p, why, sizeof(why)), BB_EINVAL);
    p = base, p.y_exponent = 4.5;
    assert_int_equal(bb_params_derive(&p, why, sizeof(why)), BB_EINVAL);
    p = base, p.y_exponent = NAN;
    assert_int_equal(bb_params_derive(&p, why, sizeof(why)), BB_EINVAL);
    p = base;
    assert_int_equal(bb_params_derive(&p, why, sizeof(why)), BB_OK);
}

static void test_spent(void **state)
{
    (void)state;
    struct bb_params p;
    derive(&p, 5, 10, 10000, 1.0);
    assert_rel(bb_params_rho_gram_spent(&p, 0), 0.0, 0);
    assert_rel(bb_params_rho_gram_spent(&p, 7), 0.5, 1e-15);
    assert_rel(bb_params_rho_y_spent(&p, 31), 0.5, 1e-15);
    assert_rel(bb_params_rho_y_spent(&p, 1), 0.5 / 31, 1e-15);
}

/* The transition counts of tabular rows (counts.h, docs/PRIVACY.md §2.6):
 * at the depth-7 tuning chain's shape (H = 7, d = 14, A = 2, S = 7),
 * epsilon 10, K_max 10^5, the grid from k0 = 1915 at 1.1 has G = 42
 * points; computed independently in Python from the derived rho_y and
 * rho_R: S_G = sum_{l < 42} c_l^2 = 2.254123141845, rho_N = rho_y - rho_R,
 * sigma_N = sqrt((H - 1) S_G / rho_N), its grid 2^(floor(log2 sigma) -
 * 20), drawn sigma_N (1 + 2 g sqrt(d S G) / sqrt(2 S_G)). The updates then
 * draw nothing and spend nothing; the stream spends rho_N with the first
 * episode, so that rho_y is spent whole without any update. */
static void test_counts(void **state)
{
    (void)state;
    struct bb_params p;
    bb_params_defaults(&p);
    p.H = 7, p.d = 14, p.A = 2, p.K_max = 100000, p.epsilon = 10;
    p.features = BB_FEATURES_TABULAR;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_true(bb_params_counts(&p));
    assert_int_equal(bb_params_states(&p), 7);
    assert_int_equal(p.releases, 42);
    assert_rel(bb_sqrt_sum_squares(p.releases), 2.254123141845, 1e-12);
    assert_rel(bb_params_rho_counts(&p), p.rho_y - bb_params_rho_reward(&p), 1e-15);
    assert_rel(bb_params_rho_counts(&p), 1.0063094705989855, 1e-12);
    assert_rel(bb_params_sigma_counts(&p), 3.6660523653016805, 1e-12);
    assert_rel(bb_params_grid_counts(&p), 0x1p-19, 0);
    assert_rel(bb_params_sigma_counts_drawn(&p), 3.666474929412169, 1e-12);
    /* the Gram diagonal's sd at the release where the counts' is x: the
     * same coefficients, so x times the ratio of the drawn sigmas */
    assert_rel(bb_params_counts_gram_sd(&p, 2.0), 2.0 * p.sigma_gram_eff / 3.666474929412169,
               1e-12);
    assert_rel(bb_params_counts_gram_sd(&p, 0), 0, 0);
    /* the updates draw nothing: every step's per-update sd is 0 */
    for (int h = 0; h < p.H; h++) {
        assert_rel(bb_params_sigma_next(&p, h), 0, 0);
        assert_rel(bb_params_sigma_y_drawn_step(&p, h), 0, 0);
    }
    /* spent: all of rho_y from the first episode, none more per update */
    double g, y;
    assert_rel(bb_params_rho_counts_spent(&p, 0), 0, 0);
    assert_rel(bb_params_rho_counts_spent(&p, 1), bb_params_rho_counts(&p), 0);
    assert_rel(bb_params_rho_y_spent(&p, 1), 0, 0);
    assert_rel(bb_params_rho_y_spent(&p, p.max_updates), 0, 0);
    const double one = bb_params_rho_spent(&p, 1, 0, &g, &y);
    assert_rel(y, p.rho_y, 1e-15);
    assert_rel(bb_params_rho_spent(&p, 100000, p.max_updates, NULL, NULL), one, 0);
    assert_rel(one, p.rho, 1e-12); /* the whole budget, warm-up and Gram included */
    /* onehot rows at the same shape keep the per-update noise */
    p.features = BB_FEATURES_ONEHOT;
    p.release_base = 0;
    p.release_start = 0;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_false(bb_params_counts(&p));
    assert_rel(bb_params_rho_counts(&p), 0, 0);
    assert_true(bb_params_sigma_y_drawn_step(&p, 0) > 0);
    assert_true(bb_params_rho_y_spent(&p, 1) > 0);
}

/* Release start auto (params.c): the smallest k0 with k0 >= 5 d sigma_y(k0)
 * on the 1.5 grid, computed independently by counting k up from 1 in Python
 * with sigma_y = sqrt(G(k) H (H+1)(2H+1) / (3 rho_y)) and rho from epsilon
 * by Bun–Steinke. */
static void test_release_start_auto(void **state)
{
    (void)state;
    const struct {
        double eps;
        long k0, G;
        double sigma_y;
    } want[] = {{10, 1581, 11, 39.508639415672015},
                {3, 4029, 8, 100.72275745298862},
                {1, 10072, 6, 251.79508362244587}};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        struct bb_params p, q;
        bb_params_defaults(&p);
        p.H = 5, p.d = 8, p.A = 5, p.K_max = 100000, p.epsilon = want[i].eps;
        p.gram_share = 0.5;
        p.release_base = 1.5; /* as the known values were computed */
        p.conversion = BB_CONV_BUN_STEINKE; /* as the known values were computed */
        p.first_share = 1;                  /* as the known values were computed */
        p.warm_share = 0;                   /* as the known values were computed */
        assert_true(p.release_start == 0); /* the default is auto */
        q = p;
        assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
        assert_int_equal((long)p.release_start, want[i].k0);
        assert_int_equal(p.releases, want[i].G);
        assert_int_equal(p.max_updates, want[i].G);
        assert_rel(p.sigma_y, want[i].sigma_y, 1e-12);
        /* The defining property: k0 qualifies, k0 - 1 does not. */
        assert_true(p.release_start >= BB_RELEASE_START_SNR * p.d * p.sigma_y);
        q.release_start = p.release_start - 1;
        assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
        assert_true(q.release_start < BB_RELEASE_START_SNR * q.d * q.sigma_y);
    }
    /* At the default split f = 0.2 (rho_y = 0.8 rho), epsilon 10: 1250 by
     * Bun–Steinke; by CKS (the default; rho = 1.7826956163289511, the same
     * Python count) 1166. */
    struct bb_params p;
    bb_params_defaults(&p);
    p.warm_share = 0; /* as the known values were computed */
    assert_rel(p.gram_share, 0.2, 0);
    p.release_base = 1.5; /* as the known values were computed */
    p.first_share = 1;    /* as the known values were computed */
    p.H = 5, p.d = 8, p.A = 5, p.K_max = 100000, p.epsilon = 10;
    p.conversion = BB_CONV_BUN_STEINKE;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_int_equal((long)p.release_start, 1250);
    assert_int_equal(p.releases, 11);
    assert_rel(p.sigma_y, 31.234321951956876, 1e-12);
    bb_params_defaults(&p);
    p.warm_share = 0; /* as the known values were computed */
    p.release_base = 1.5;
    p.first_share = 1; /* as the known values were computed */
    p.H = 5, p.d = 8, p.A = 5, p.K_max = 100000, p.epsilon = 10;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_int_equal((long)p.release_start, 1166);
    assert_int_equal(p.releases, 11);
    assert_rel(p.sigma_y, 29.127894530508947, 1e-9);
    /* Onehot rows ask k0 / d for BB_RELEASE_START_SNR_ONEHOT sigma_y, the
     * others for BB_RELEASE_START_SNR: at RiverSwim's S = 6 shape (H = 20,
     * d = 12, A = 2), epsilon 10, the same Python count gives 9324 (6 grid
     * points, triangle sigma_y 155.3989140703594) for simplex rows and 6043
     * (7 points, 167.850011150694) for onehot rows (7050 at the earlier
     * 3.5); sigma_y is the
     * centred targets', 1/2 of those (docs/PRIVACY.md §2.2). */
    const struct {
        enum bb_features features;
        long k0, G;
        double start_sigma;
    } rows[] = {{BB_FEATURES_SIMPLEX, 9324, 6, 155.3989140703594},
                {BB_FEATURES_ONEHOT, 6043, 7, 167.850011150694}};
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct bb_params q;
        bb_params_defaults(&p);
        p.warm_share = 0; /* as the known values were computed */
        p.release_base = 1.5; /* as the known values were computed */
        p.first_share = 1;    /* as the known values were computed */
        p.H = 20, p.d = 12, p.A = 2, p.K_max = 100000, p.epsilon = 10;
        p.features = rows[i].features;
        q = p;
        assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
        assert_int_equal((long)p.release_start, rows[i].k0);
        assert_int_equal(p.releases, rows[i].G);
        assert_rel(p.sigma_y, rows[i].start_sigma * 0.5, 1e-9);
        double snr = rows[i].features == BB_FEATURES_ONEHOT ? 3.0 : 5.0;
        assert_rel(bb_params_start_snr(&p), snr, 0);
        assert_true(p.release_start >= snr * p.d * rows[i].start_sigma);
        q.release_start = p.release_start - 1;
        assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
        assert_true(q.release_start < snr * q.d * q.sigma_y * 2.0);
    }
    /* Capped at K_max / 5 when the noise would push it further. */
    bb_params_defaults(&p);
    p.warm_share = 0; /* as the known values were computed */
    p.H = 5, p.d = 8, p.A = 5, p.K_max = 100000, p.epsilon = 0.05;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_int_equal((long)p.release_start, 20000);
    /* RiverSwim's S = 6 shape at epsilon 1 sits at the cap; with the
     * grid from there, 20000 1.5^3 = 67500 is its last point (G = 4). */
    bb_params_defaults(&p);
    p.warm_share = 0; /* as the known values were computed */
    p.release_base = 1.5;
    p.H = 20, p.d = 12, p.A = 2, p.K_max = 100000, p.epsilon = 1;
    p.features = BB_FEATURES_ONEHOT;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_int_equal((long)p.release_start, 20000);
    assert_int_equal(p.releases, 4);
    /* 1 for the tree (a release every episode) and without privacy. */
    bb_params_defaults(&p);
    p.warm_share = 0; /* as the known values were computed */
    p.H = 5, p.d = 8, p.A = 5, p.K_max = 100000, p.epsilon = 10, p.mechanism = BB_MECH_TREE;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_true(p.release_start == 1);
    bb_params_defaults(&p);
    p.warm_share = 0; /* as the known values were computed */
    p.H = 5, p.d = 8, p.A = 5, p.K_max = 100000, p.rho = INFINITY;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_true(p.release_start == 1);
    /* With a cap of 12 updates: the latest start whose grid has 12 points. */
    bb_params_defaults(&p);
    p.warm_share = 0; /* as the known values were computed */
    p.release_base = 1.5;
    p.first_share = 1; /* as the known values were computed */
    p.H = 5, p.d = 8, p.A = 5, p.K_max = 100000, p.epsilon = 10, p.max_updates_cap = 12;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_true(p.release_start < 1166);
    assert_int_equal(bb_release_grid(p.release_start, 1.5, 100000, NULL, 0), 12);
    assert_int_equal(bb_release_grid(p.release_start + 1, 1.5, 100000, NULL, 0), 11);
    assert_int_equal(p.max_updates, 12);
    /* A configured k0 is kept. */
    bb_params_defaults(&p);
    p.warm_share = 0; /* as the known values were computed */
    p.H = 5, p.d = 8, p.A = 5, p.K_max = 100000, p.epsilon = 10, p.release_start = 100;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_true(p.release_start == 100);
    /* The default grid base, auto: 1.25 (docs/RESULTS.md, "Levers of issue
     * 29"): the rule's defining property holds at it, with more grid points
     * than at 1.5 from the same start. */
    bb_params_defaults(&p);
    p.warm_share = 0; /* as the known values were computed */
    assert_rel(p.release_base, 0, 0);
    p.H = 5, p.d = 8, p.A = 5, p.K_max = 100000, p.epsilon = 10;
    struct bb_params r = p;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_rel(p.release_base, 1.25, 0);
    /* (compared with the first update's sd: its share of rho_y, §2.3) */
    assert_true(p.release_start >= BB_RELEASE_START_SNR * p.d * p.sigma_y * 2.0 /
                                       bb_params_y_pair(&p) * bb_params_y_update_scale(&p, 1));
    assert_int_equal(p.releases, bb_release_grid(p.release_start, 1.25, 100000, NULL, 0));
    assert_true(p.releases > bb_release_grid(p.release_start, 1.5, 100000, NULL, 0));
    r.release_start = p.release_start - 1;
    assert_int_equal(bb_params_derive(&r, NULL, 0), BB_OK);
    assert_true(r.release_start < BB_RELEASE_START_SNR * r.d * r.sigma_y * 2.0 /
                                      bb_params_y_pair(&r) * bb_params_y_update_scale(&r, 1));
    /* Tabular rows: the grid base 1.1, from the start onehot rows have at
     * the default base (docs/PRIVACY.md §2.6). At the depth-7 tuning
     * chain's shape (H = 7, d = 14, A = 2), epsilon 10: onehot's k0 is
     * 1915 on the grid 1915 1.25^j (18 points), and tabular's grid from
     * there at 1.1 has 42. */
    for (int e = 0; e < 2; e++) {
        bb_params_defaults(&p);
        p.H = 7, p.d = 14, p.A = 2, p.K_max = 100000, p.epsilon = 10;
        p.features = e ? BB_FEATURES_TABULAR : BB_FEATURES_ONEHOT;
        assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
        assert_int_equal((long)p.release_start, 1915);
        assert_rel(p.release_base, e ? 1.1 : 1.25, 0);
        assert_int_equal(p.releases, e ? 42 : 18);
    }
    /* ... and refused where d is no multiple of A */
    bb_params_defaults(&p);
    p.H = 7, p.d = 15, p.A = 2, p.K_max = 100000, p.epsilon = 10;
    p.features = BB_FEATURES_TABULAR;
    char why[256] = "";
    assert_int_equal(bb_params_derive(&p, why, sizeof(why)), BB_EINVAL);
    assert_non_null(strstr(why, "multiple of the actions"));
}

/* Step h's y noise sigma_h = y_unit Delta_h^p (docs/PRIVACY.md §2): known
 * values at H = 5, where the sensitivities are 10, 8, 6, 4, 2; the same
 * rho_y as one sigma_y for every step (sum_h Delta_h^2 / sigma_h^2 equal);
 * one sigma_y wherever the sensitivities are equal; each step's grid
 * inflation; sigma_y_eff the largest drawn. */
static void test_y_exponent(void **state)
{
    (void)state;
    static const double want1[] = {1.5075567228888183, 1.2060453783110545, 0.9045340337332909,
                                   0.6030226891555273, 0.30151134457776363};
    static const double want_half[] = {1.1677484162422844, 1.044465935734187,
                                       0.9045340337332908, 0.7385489458759964,
                                       0.5222329678670935};
    struct bb_params p;
    bb_params_defaults(&p);
    p.rewards = BB_REWARDS_UPDATE; /* the whole targets per update */
    assert_rel(p.y_exponent, 1.0, 0); /* the default */
    p.rewards = BB_REWARDS_UPDATE; /* the exponent is the whole targets' */
    p.H = 5, p.d = 8, p.A = 5, p.K_max = 100000, p.epsilon = 10;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    double eff = 0;
    for (int h = 0; h < 5; h++) {
        assert_rel(bb_params_y_sensitivity(&p, h), 2.0 * (5 - h), 0);
        assert_rel(bb_params_sigma_y_step(&p, h) / p.sigma_y, want1[h], 1e-14);
        double g = bb_params_grid_y_step(&p, h), s = bb_params_sigma_y_step(&p, h);
        assert_rel(g, bb_grid_for(s), 0);
        assert_rel(bb_params_sigma_y_drawn_step(&p, h),
                   s * (1 + bb_params_row_slack(&p) + 2 * g * sqrt(8.0) / (2.0 * (5 - h))), 1e-15);
        eff = fmax(eff, bb_params_sigma_y_drawn_step(&p, h));
    }
    assert_rel(p.sigma_y_eff, eff, 0);
    assert_rel(p.sigma_y_eff, bb_params_sigma_y_drawn_step(&p, 0), 0);
    p.y_exponent = 0.5;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    for (int h = 0; h < 5; h++)
        assert_rel(bb_params_sigma_y_step(&p, h) / p.sigma_y, want_half[h], 1e-14);
    /* The same rho_y at every exponent and horizon. */
    const double ex[] = {0, 0.5, 1, 2, 4};
    const int hs[] = {1, 5, 20, 100};
    for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++)
        for (size_t j = 0; j < sizeof(hs) / sizeof(hs[0]); j++) {
            bb_params_defaults(&p);
            p.rewards = BB_REWARDS_UPDATE; /* the whole targets per update */
            p.H = hs[j], p.d = 8, p.A = 5, p.K_max = 100000, p.epsilon = 3;
            p.y_exponent = ex[i];
            assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
            double cost = 0, uniform = 0;
            for (int h = 0; h < p.H; h++) {
                double D = bb_params_y_sensitivity(&p, h), s = bb_params_sigma_y_step(&p, h);
                cost += D * D / (s * s);
                uniform += D * D / (p.sigma_y * p.sigma_y);
            }
            assert_rel(cost, uniform, 1e-12);
            /* and the N_max updates of it are rho_y */
            assert_rel(p.max_updates * cost / 2, p.rho_y, 1e-12);
        }
    /* Equal sensitivities (V clipped to [0, H]), the paper's calibration and
     * exponent 0: sigma_y at every step; non-private: none. */
    bb_params_defaults(&p);
    p.rewards = BB_REWARDS_UPDATE; /* the whole targets per update */
    p.H = 5, p.d = 8, p.A = 5, p.K_max = 100000, p.epsilon = 10;
    p.value_clip = BB_VCLIP_HORIZON;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    for (int h = 0; h < 5; h++)
        assert_rel(bb_params_sigma_y_step(&p, h), p.sigma_y, 0);
    p.value_clip = BB_VCLIP_REMAINING, p.y_exponent = 0;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    for (int h = 0; h < 5; h++)
        assert_rel(bb_params_sigma_y_step(&p, h), p.sigma_y, 0);
    bb_params_defaults(&p);
    p.rewards = BB_REWARDS_UPDATE; /* the whole targets per update */
    p.H = 5, p.d = 8, p.A = 5, p.K_max = 100000, p.rho = INFINITY;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    for (int h = 0; h < 5; h++)
        assert_rel(bb_params_sigma_y_drawn_step(&p, h), 0, 0);
}

static void test_prior_target(void **state)
{
    (void)state;
    struct bb_params p;
    bb_params_defaults(&p);
    assert_rel(p.prior_value, BB_PRIOR_VALUE_AUTO, 0); /* the default: auto */
    p.H = 5, p.d = 8, p.A = 5, p.K_max = 100000, p.epsilon = 10;
    /* 'auto' is 0 for ball and simplex rows, the paper's ridge towards 0 ... */
    const enum bb_features zero[] = {BB_FEATURES_BALL, BB_FEATURES_SIMPLEX};
    for (size_t i = 0; i < 2; i++) {
        struct bb_params z = p;
        z.features = zero[i];
        assert_int_equal(bb_params_derive(&z, NULL, 0), BB_OK);
        assert_rel(z.prior_value, 0, 0);
        for (int h = 0; h < 5; h++)
            assert_rel(bb_params_prior_target(&z, h), 0, 0);
    }
    /* ... and 0.35 for onehot rows, whose unvisited cells it makes worth a
     * visit. */
    p.features = BB_FEATURES_ONEHOT;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_rel(p.prior_value, 0.35, 0);
    /* kappa times the step's largest target, r + V_{h+1} <= H - h (0-based);
     * a given kappa stands whatever the rows */
    static const double want[] = {1.75, 1.4, 1.05, 0.7, 0.35};
    for (int h = 0; h < 5; h++)
        assert_rel(bb_params_prior_target(&p, h), want[h], 1e-15);
    /* The privacy constants do not move with it: it is post-processing. */
    struct bb_params q = p;
    q.prior_value = 0.7;
    assert_constants_kept(&p, &q);
    assert_rel(bb_params_prior_target(&q, 2), 0.7 * 3, 1e-15);
    q.features = BB_FEATURES_SIMPLEX; /* a given kappa is not the rows' */
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_rel(q.prior_value, 0.7, 0);
    q.features = BB_FEATURES_ONEHOT;
    /* V clipped to [0, H]: every target in [0, H + 1]. */
    q.value_clip = BB_VCLIP_HORIZON, q.prior_value = 0.5;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    for (int h = 0; h < 5; h++)
        assert_rel(bb_params_prior_target(&q, h), 3.0, 1e-15);
    /* 0: the paper's ridge towards 0; so is the paper's calibration, and a
     * non-private run (textbook LSVI-UCB). */
    q = p, q.prior_value = 0;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_rel(bb_params_prior_target(&q, 0), 0, 0);
    q = p, q.calibration = BB_CAL_PAPER;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_rel(q.prior_value, 0, 0);
    assert_rel(bb_params_prior_target(&q, 0), 0, 0);
    q = p, q.rho = INFINITY, q.epsilon = 0;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    for (int h = 0; h < 5; h++)
        assert_rel(bb_params_prior_target(&q, h), 0, 0);
    /* Outside [0, 1], or not a number: refused. */
    const double bad[] = {-0.1, 1.5, NAN, INFINITY};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char why[128] = "";
        q = p, q.prior_value = bad[i];
        assert_int_equal(bb_params_derive(&q, why, sizeof(why)), BB_EINVAL);
        assert_non_null(strstr(why, "prior value"));
    }
}

/* q derives, to the same privacy constants as the derived p: a lever that
 * is post-processing moves none of them. */
static void assert_same_privacy(struct bb_params *q, const struct bb_params *p)
{
    assert_int_equal(bb_params_derive(q, NULL, 0), BB_OK);
    assert_rel(q->sigma_y_eff, p->sigma_y_eff, 0);
    assert_rel(q->sigma_gram_eff, p->sigma_gram_eff, 0);
    assert_rel(q->ridge, p->ridge, 0);
    assert_rel(q->release_start, p->release_start, 0);
    assert_int_equal(q->max_updates, p->max_updates);
}

/* The plausible set's z (docs/PRIVACY.md §3.4): post-processing, so no
 * privacy constant moves with it; [0, 10] is accepted, nothing else. */
static void test_plausible_z(void **state)
{
    (void)state;
    struct bb_params p;
    bb_params_defaults(&p);
    assert_rel(p.plausible_z, 1.0, 0); /* the defaults */
    assert_rel(p.plausible_floor, 0.025, 0);
    p.H = 5, p.d = 8, p.A = 5, p.K_max = 100000, p.epsilon = 10;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    const double ok[] = {0, 0.5, 10};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        struct bb_params q = p;
        q.plausible_z = ok[i];
        assert_same_privacy(&q, &p);
    }
    const double bad[] = {-0.1, 10.5, NAN, INFINITY};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char why[128] = "";
        struct bb_params q = p;
        q.plausible_z = bad[i];
        assert_int_equal(bb_params_derive(&q, why, sizeof(why)), BB_EINVAL);
        assert_non_null(strstr(why, "plausible"));
        q = p;
        q.plausible_floor = bad[i] > 1 ? bad[i] - 9 : bad[i]; /* -0.1, 1.5, NaN, inf */
        assert_int_equal(bb_params_derive(&q, why, sizeof(why)), BB_EINVAL);
        assert_non_null(strstr(why, "floor"));
    }
    struct bb_params q = p; /* the paper's construction acts greedily */
    q.calibration = BB_CAL_PAPER;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_rel(q.plausible_z, 0, 0);
}

/* The exploration rule (docs/PRIVACY.md §3.6): the sample by default,
 * post-processing, so no privacy constant moves with it, on simplex and
 * ball rows; an unknown value is refused; the paper's calibration keeps
 * the set (with z = 0: greedy). */
static void test_explore(void **state)
{
    (void)state;
    struct bb_params p;
    bb_params_defaults(&p);
    assert_int_equal(p.explore, BB_EXPLORE_SAMPLE);
    p.H = 5, p.d = 8, p.A = 5, p.K_max = 100000, p.epsilon = 1;
    for (int f = 0; f < 2; f++) {
        struct bb_params a = p;
        a.features = f ? BB_FEATURES_SIMPLEX : BB_FEATURES_BALL;
        assert_int_equal(bb_params_derive(&a, NULL, 0), BB_OK);
        struct bb_params q = a;
        q.explore = BB_EXPLORE_SET;
        assert_same_privacy(&q, &a);
    }
    char why[128] = "";
    struct bb_params q = p;
    q.explore = (enum bb_explore)2;
    assert_int_equal(bb_params_derive(&q, why, sizeof(why)), BB_EINVAL);
    assert_non_null(strstr(why, "exploration"));
    q = p;
    q.calibration = BB_CAL_PAPER;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_int_equal(q.explore, BB_EXPLORE_SET);
    assert_rel(q.plausible_z, 0, 0);
}

/* The next values' noise discount nu (docs/PRIVACY.md §3.5): 2 by default,
 * post-processing inside the targets' clip, so no privacy constant moves
 * with it; [0, 10] accepted, nothing else; 0 under the paper's calibration. */
static void test_next_discount(void **state)
{
    (void)state;
    struct bb_params p;
    bb_params_defaults(&p);
    assert_rel(p.next_discount, 2.0, 0);
    p.H = 5, p.d = 8, p.A = 5, p.K_max = 100000, p.epsilon = 10;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    const double ok[] = {0, 3.5, 10};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        struct bb_params q = p;
        q.next_discount = ok[i];
        assert_same_privacy(&q, &p);
        assert_rel(q.next_discount, ok[i], 0);
    }
    const double bad[] = {-0.1, 10.5, NAN, INFINITY};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char why[128] = "";
        struct bb_params q = p;
        q.next_discount = bad[i];
        assert_int_equal(bb_params_derive(&q, why, sizeof(why)), BB_EINVAL);
        assert_non_null(strstr(why, "discount"));
    }
    struct bb_params q = p; /* the paper's next value: max_a Q */
    q.calibration = BB_CAL_PAPER;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_rel(q.next_discount, 0, 0);
}

/* The first update's share (docs/PRIVACY.md §2.3): update 1 draws at
 * 1/sqrt(a) of the base sd, every later one at sqrt((N-1)/(N-a)); the
 * shares add up to N, so the updates together spend rho_y. */
static void test_first_share(void **state)
{
    (void)state;
    struct bb_params p;
    bb_params_defaults(&p);
    assert_rel(p.first_share, 2, 0); /* the default */
    p.rewards = BB_REWARDS_UPDATE; /* the stream's part: test_reward_stream */
    p.H = 5, p.d = 8, p.A = 5, p.K_max = 100000, p.epsilon = 1;
    p.features = BB_FEATURES_SIMPLEX;
    p.max_updates_cap = 11;
    p.release_start = 8900; /* 11 grid points */
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_int_equal(p.max_updates, 11);
    assert_rel(bb_params_first_share(&p), 2, 0);
    assert_rel(bb_params_y_update_scale(&p, 1), 1 / sqrt(2.0), 1e-15);
    assert_rel(bb_params_y_update_scale(&p, 2), sqrt(10.0 / 9.0), 1e-15);
    assert_rel(bb_params_y_update_scale(&p, 11), sqrt(10.0 / 9.0), 1e-15);
    assert_rel(bb_params_y_update_scale(&p, 0), 1, 0); /* the base */
    assert_rel(bb_params_rho_y_spent(&p, 0), 0, 0);
    assert_rel(bb_params_rho_y_spent(&p, 1), p.rho_y * 2 / 11, 1e-15);
    assert_rel(bb_params_rho_y_spent(&p, 2), p.rho_y * (2 + 1.0 * 9 / 10) / 11, 1e-15);
    assert_rel(bb_params_rho_y_spent(&p, 11), p.rho_y, 0);
    /* Each update's draw: the base sd times its scale, on the grid for
     * that sd, so every release costs the base's Delta^2 / (2 sigma^2)
     * times its share. */
    for (int h = 0; h < 5; h++) {
        double cap = bb_params_value_cap(&p, h), base = bb_params_sigma_y_at(&p, h, cap);
        for (long j = 1; j <= 2; j++) {
            double s = bb_params_y_update_scale(&p, j), g = bb_params_grid_y_update(&p, h, cap, j);
            assert_rel(g, bb_grid_for(base * s), 0);
            assert_rel(bb_params_sigma_y_drawn_update(&p, h, cap, j),
                       base * s *
                           (1 + bb_params_y_snaps(&p) * g * sqrt(8.0) /
                                    (bb_params_y_pair(&p) * (1 + cap))),
                       1e-15);
        }
        assert_rel(bb_params_sigma_y_drawn_update(&p, h, cap, 0),
                   bb_params_sigma_y_drawn_at(&p, h, cap), 0);
    }
    /* The shares add up to N for every N, and a is capped at N / 2. */
    for (long N = 2; N <= 40; N++) {
        struct bb_params q = p;
        q.max_updates = N;
        double sum = 0;
        for (long j = 1; j <= N; j++)
            sum += bb_params_y_update_share(&q, j);
        assert_rel(sum, (double)N, 1e-13);
        assert_rel(bb_params_first_share(&q), N < 4 ? N / 2.0 : 2.0, 0);
        assert_rel(bb_params_rho_y_spent(&q, N), q.rho_y, 0);
        assert_true(bb_params_rho_y_spent(&q, N - 1) < q.rho_y);
    }
    /* No other privacy constant moves with a (the start aside, which the
     * first update's sd sets: compare at a fixed start). */
    struct bb_params q = p;
    q.first_share = 1;
    assert_constants_kept(&p, &q);
    assert_rel(bb_params_y_update_scale(&q, 1), 1, 0);
    assert_rel(bb_params_rho_y_spent(&q, 3), q.rho_y * 3 / 11, 1e-15);
    /* The auto start compares with the first update's sd: earlier. */
    q = p, q.release_start = 0, q.max_updates_cap = 0;
    struct bb_params r = q;
    r.first_share = 1;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_int_equal(bb_params_derive(&r, NULL, 0), BB_OK);
    assert_int_equal((long)q.release_start, 6841);
    assert_int_equal((long)r.release_start, 8900);
    /* 1 under the paper's calibration and without noise; out of range refused. */
    q = p, q.calibration = BB_CAL_PAPER;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_rel(bb_params_first_share(&q), 1, 0);
    q = p, q.rho = INFINITY, q.epsilon = 0, q.max_updates_cap = 0, q.release_start = 0;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_rel(bb_params_first_share(&q), 1, 0);
    const double bad[] = {0.5, 10.5, NAN};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char why[128] = "";
        q = p, q.first_share = bad[i];
        assert_int_equal(bb_params_derive(&q, why, sizeof(why)), BB_EINVAL);
        assert_non_null(strstr(why, "share"));
    }
}

static void test_next_bound_noise(void **state)
{
    (void)state;
    struct bb_params p;
    bb_params_defaults(&p);
    p.release_base = 1.5; /* as the known values were printed */
    p.first_share = 1;    /* as the known values were printed */
    p.rewards = BB_REWARDS_UPDATE; /* as the known values were printed */
    assert_int_equal(p.features, BB_FEATURES_BALL); /* the default */
    p.H = 5, p.d = 8, p.A = 5, p.K_max = 100000, p.rho = bb_rho_from_epsilon(10.0, 1e-5);
    p.conversion = BB_CONV_BUN_STEINKE; /* as the known values were printed */
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_false(bb_params_next_bound(&p)); /* ball: no bound */
    struct bb_params q = p;
    q.features = BB_FEATURES_SIMPLEX;
    q.y_sensitivity = BB_YSENS_TRIANGLE; /* the bound alone (test_y_nonnegative) */
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_true(bb_params_next_bound(&q));
    /* The privacy constants do not move: the bound rescales within rho
     * (but for the ball rows' slack eta, below 1e-14; simplex rows are
     * checked exactly and need none). */
    assert_rel(q.sigma_y_eff, p.sigma_y_eff, 1e-14);
    assert_rel(q.sigma_gram_eff, p.sigma_gram_eff, 1e-14);
    assert_rel(bb_params_row_slack(&q), 0, 0);
    assert_true(bb_params_row_slack(&p) > 0);
    assert_int_equal(q.max_updates, p.max_updates);
    /* At the step's own cap, the _step values (print-params, H=5 d=8 eps=10). */
    static const double drawn[] = {47.0883249317074, 37.67082252299812, 28.252913670208336,
                                   18.83541126149906, 9.41770563074953};
    for (int h = 0; h < 5; h++) {
        double cap = bb_params_value_cap(&q, h);
        assert_rel(bb_params_sigma_y_drawn_at(&q, h, cap), drawn[h], 1e-15);
        assert_rel(bb_params_sigma_y_drawn_at(&q, h, cap), bb_params_sigma_y_drawn_step(&q, h), 0);
        assert_rel(bb_params_grid_y_at(&q, h, cap), bb_params_grid_y_step(&q, h), 0);
    }
    /* Step 1's next values clipped at 1 instead of 3: its noise is step 4's,
     * whose targets have the same range [0, 2] (sigma ~ Delta at p = 1). */
    assert_rel(bb_params_sigma_y_drawn_at(&q, 0, 1.0), drawn[3], 1e-15);
    assert_rel(bb_params_sigma_y_at(&q, 0, 1.0), bb_params_sigma_y_step(&q, 0) * 2.0 / 5.0, 1e-15);
    assert_rel(bb_params_sigma_y_at(&q, 2, 0.0), bb_params_sigma_y_step(&q, 2) / 3.0, 1e-15);
    /* rho of every step the same at any cap: (2 (1 + c))^2 / sigma_at^2. */
    for (double c = 0; c <= 4.0; c += 0.25) {
        double D0 = bb_params_y_sensitivity(&q, 0), s0 = bb_params_sigma_y_step(&q, 0);
        double s = bb_params_sigma_y_at(&q, 0, c);
        assert_rel(4.0 * (1 + c) * (1 + c) / (s * s), D0 * D0 / (s0 * s0), 1e-13);
    }
    /* One sigma_y for all steps (p = 0): scaled the same way. */
    struct bb_params u = q;
    u.y_exponent = 0;
    assert_int_equal(bb_params_derive(&u, NULL, 0), BB_OK);
    assert_rel(bb_params_sigma_y_at(&u, 0, 1.0), u.sigma_y * 2.0 / 5.0, 1e-15);
    /* No bound without privacy or with the paper's calibration. */
    u = q, u.rho = INFINITY, u.epsilon = 0;
    assert_int_equal(bb_params_derive(&u, NULL, 0), BB_OK);
    assert_false(bb_params_next_bound(&u));
    u = q, u.calibration = BB_CAL_PAPER;
    assert_int_equal(bb_params_derive(&u, NULL, 0), BB_OK);
    assert_false(bb_params_next_bound(&u));
    /* 'auto' is the simulator's to resolve: refused here. */
    char why[128] = "";
    u = q, u.features = BB_FEATURES_AUTO;
    assert_int_equal(bb_params_derive(&u, why, sizeof(why)), BB_EINVAL);
    assert_non_null(strstr(why, "features"));
}

/* The exactness premise (docs/PRIVACY.md §5, "The exactness premise"):
 * K_max is refused above 2^53 g_Lambda, and with grid-sqrt above
 * g_Lambda / (2 gamma_G). At the boundary of a tree: H = 1, rho_Lambda = 16,
 * so sigma = sqrt(L / 16) is in [1, 2) for L = 34 and 35, g = 2^-20 and the
 * bound 2^33: K_max = 2^33 (L = 34) is served, 2^33 + 1 (L = 35) is not. */
static void test_exact_k_max(void **state)
{
    (void)state;
    struct bb_params p;
    char why[256] = "";
    bb_params_defaults(&p);
    p.H = 1, p.d = 2, p.A = 2, p.rho = 80, p.mechanism = BB_MECH_TREE;
    p.arithmetic = BB_ARITH_FLOAT; /* the Gram sums alone (exact y sums below) */
    p.K_max = 1L << 33;
    assert_int_equal(bb_params_derive(&p, why, sizeof(why)), BB_OK);
    assert_int_equal(p.L, 34);
    assert_true(p.grid_gram == 0x1p-20);
    assert_int_equal(bb_params_exact_k_max(&p), 1L << 33);
    bb_params_defaults(&p);
    p.H = 1, p.d = 2, p.A = 2, p.rho = 80, p.mechanism = BB_MECH_TREE;
    p.arithmetic = BB_ARITH_FLOAT;
    p.K_max = (1L << 33) + 1;
    assert_int_equal(bb_params_derive(&p, why, sizeof(why)), BB_EINVAL);
    assert_non_null(strstr(why, "max episodes K_max 8589934593 exceeds 8589934592, the most at "
                                "which this configuration's sums stay exact"));
    /* Exact y sums: n terms of at most B + g below 2^53 g, g / B > r =
     * 2^-21 sigma_h / B_h. With H = 1 (B = 1) at K_max = 2^20 that bound
     * is below the Gram one and decides. */
    bb_params_defaults(&p);
    p.H = 1, p.d = 2, p.A = 2, p.rho = 80, p.mechanism = BB_MECH_TREE;
    p.K_max = 1L << 20;
    assert_int_equal(bb_params_derive(&p, why, sizeof(why)), BB_OK);
    double r = bb_params_y_grid_ratio(&p, 0);
    assert_rel(r, ldexp(bb_params_sigma_y_step(&p, 0), -21), 0);
    assert_true(r < bb_params_grid_y_step(&p, 0)); /* g / B with B = 1 */
    assert_int_equal(bb_params_exact_k_max(&p), (long)floor(ldexp(r / (1 + r), 53)));
    assert_true(bb_params_exact_k_max(&p) < 1L << 33);
    /* ... and a y noise so small that a term's rounding could pass g / 2
     * is refused: r < (d + 9) 2^-53. */
    bb_params_defaults(&p);
    p.rewards = BB_REWARDS_UPDATE; /* the stream's: test_reward_stream */
    p.H = 1, p.d = 2, p.A = 2, p.rho = 1e30, p.gram_share = 1e-28, p.K_max = 1000;
    assert_int_equal(bb_params_derive(&p, why, sizeof(why)), BB_EINVAL);
    assert_non_null(strstr(why, "too small for its sums to be exact"));
    p.arithmetic = BB_ARITH_FLOAT; /* (a float sum has no such premise) */
    assert_int_equal(bb_params_derive(&p, why, sizeof(why)), BB_OK);
    /* grid-sqrt at the defaults but release base 1.5 (H = 5, d = 8,
     * epsilon = 10, G = 11, g = 2^-18): its floating-point slack decides,
     * 2^-19 / gamma_11. */
    bb_params_defaults(&p);
    p.H = 5, p.d = 8, p.A = 4, p.epsilon = 10, p.K_max = 100000;
    p.release_base = 1.5; /* as the known values were computed */
    p.first_share = 1;    /* as the known values were computed */
    p.rewards = BB_REWARDS_UPDATE; /* the stream's bound: test_reward_stream */
    assert_int_equal(bb_params_derive(&p, why, sizeof(why)), BB_OK);
    assert_int_equal(p.releases, 11);
    assert_true(p.grid_gram == 0x1p-18);
    assert_int_equal(bb_params_exact_k_max(&p), 1561806289L);
    bb_params_defaults(&p);
    p.H = 5, p.d = 8, p.A = 4, p.epsilon = 10, p.K_max = 10000000000L;
    assert_int_equal(bb_params_derive(&p, why, sizeof(why)), BB_EINVAL);
    assert_non_null(strstr(why, "stay exact"));
    bb_params_defaults(&p); /* and no bound without noise */
    p.H = 5, p.d = 8, p.A = 4, p.rho = INFINITY, p.K_max = 1L << 40;
    assert_int_equal(bb_params_derive(&p, why, sizeof(why)), BB_OK);
    assert_int_equal(bb_params_exact_k_max(&p), LONG_MAX);
}

static void test_feature_rows(void **state)
{
    (void)state;
    struct bb_params p;
    bb_params_defaults(&p);
    p.d = 4;
    const double corner[4] = {0, 1, 0, 0}, inside[4] = {0.25, 0.25, 0.25, 0.25},
                 short_[4] = {0.1, 0, 0.2, 0}, zero[4] = {0}, neg[4] = {0.5, -0.01, 0.2, 0},
                 over[4] = {0.5, 0.5, 1e-8, 0}, round_[4] = {0.5, 0.5, 1e-10, 0};
    /* ball: every row (the unit ball is bb_feature_row_check's) */
    assert_true(bb_params_feature_row_ok(&p, neg, NULL, 0));
    assert_true(bb_params_feature_row_ok(&p, over, NULL, 0));
    p.features = BB_FEATURES_SIMPLEX;
    assert_true(bb_params_feature_row_ok(&p, corner, NULL, 0));
    assert_true(bb_params_feature_row_ok(&p, inside, NULL, 0));
    assert_true(bb_params_feature_row_ok(&p, short_, NULL, 0));
    assert_true(bb_params_feature_row_ok(&p, zero, NULL, 0));
    char why[200] = "";
    /* The exact sum of the doubles given, not the rounded one: 1 + 1e-10
     * and 1 + 1e-9 are refused, and so is a sum above 1 by less than
     * an ulp of 1 (docs/PRIVACY.md §3.3, "Which rows are in the simplex"). */
    const double edge[4] = {0.5, 0.5, 1e-9, 0}, tiny[4] = {1.0, 4.9406564584124654e-324, 0, 0},
                 ulp[4] = {1.0 - 0x1p-53, 0x1p-53, 0, 0},
                 ulp_over[4] = {1.0 - 0x1p-53, 0x1p-53, 0x1p-80, 0};
    assert_false(bb_params_feature_row_ok(&p, round_, NULL, 0));
    assert_false(bb_params_feature_row_ok(&p, edge, why, sizeof(why)));
    assert_non_null(strstr(why, "feature row sums to 1.000000001; this billboard's features are "
                                "declared simplex (every entry >= 0, their sum <= 1)"));
    assert_false(bb_params_feature_row_ok(&p, tiny, why, sizeof(why)));
    assert_non_null(strstr(why, "feature row sums to 1.0000000000000002; "));
    assert_true(bb_params_feature_row_ok(&p, ulp, NULL, 0)); /* exactly 1 */
    assert_false(bb_params_feature_row_ok(&p, ulp_over, NULL, 0));
    /* Decimal rows as doubles: accepted where the doubles' exact sum is
     * <= 1, whatever the order of their rounded sum. */
    p.d = 3;
    const double tenths[3] = {0.1, 0.2, 0.7}, tenths_r[3] = {0.7, 0.2, 0.1},
                 thirds[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3}, mixed[3] = {0.3, 0.3, 0.4};
    assert_true(bb_params_feature_row_ok(&p, tenths, NULL, 0)); /* 1 - 2^-55 */
    assert_true(bb_params_feature_row_ok(&p, tenths_r, NULL, 0));
    assert_true(bb_params_feature_row_ok(&p, thirds, NULL, 0)); /* 1 - 2^-54 */
    assert_true(bb_params_feature_row_ok(&p, mixed, NULL, 0));  /* exactly 1 */
    p.d = 5; /* 0.2 as a double is above 1/5: five of them sum to 1 + 2^-54;
              * the last two ulps (2^-55 each) lower, exactly 1 */
    const double fifths[5] = {0.2, 0.2, 0.2, 0.2, 0.2}, fifths_down[5] = {0.2, 0.2, 0.2, 0.2,
                                                                          0.19999999999999996};
    assert_false(bb_params_feature_row_ok(&p, fifths, why, sizeof(why)));
    assert_non_null(strstr(why, "feature row sums to 1.0000000000000002; "));
    assert_true(bb_params_feature_row_ok(&p, fifths_down, NULL, 0));
    p.d = 4;
    assert_false(bb_params_feature_row_ok(&p, neg, why, sizeof(why)));
    assert_non_null(strstr(why, "feature 1 is negative"));
    assert_false(bb_params_feature_row_ok(&p, over, why, sizeof(why)));
    assert_non_null(strstr(why, "sums to 1.00000001"));
    /* onehot: simplex rows with at most one nonzero entry (a corner, a
     * shorter one, the zero row) */
    const double scaled[4] = {0, 0, 0.5, 0};
    p.features = BB_FEATURES_ONEHOT;
    assert_true(bb_params_feature_row_ok(&p, corner, NULL, 0));
    assert_true(bb_params_feature_row_ok(&p, scaled, NULL, 0));
    assert_true(bb_params_feature_row_ok(&p, zero, NULL, 0));
    assert_false(bb_params_feature_row_ok(&p, inside, why, sizeof(why)));
    assert_non_null(strstr(why, "has 4 nonzero entries"));
    assert_non_null(strstr(why, "declared onehot"));
    assert_false(bb_params_feature_row_ok(&p, short_, why, sizeof(why)));
    assert_non_null(strstr(why, "has 2 nonzero entries"));
    assert_false(bb_params_feature_row_ok(&p, neg, why, sizeof(why)));
    assert_non_null(strstr(why, "feature 1 is negative"));
    const double big[4] = {0, 1.5, 0, 0};
    assert_false(bb_params_feature_row_ok(&p, big, why, sizeof(why)));
    assert_non_null(strstr(why, "sums to 1.5"));
}

/* Simplex rows under the triangle bound on y's change (a stored key;
 * docs/PRIVACY.md §3.3): the privacy constants of ball rows, but for ball
 * rows' slack eta of a float norm check (noise (1 + eta) larger, eta ~
 * d 2^-53); and an indefinite Lambda~'s rule (§1.4) moves none of them. */
static void test_stored_keys_privacy(void **state)
{
    (void)state;
    struct bb_params a, b;
    bb_params_defaults(&a);
    a.H = 5, a.d = 8, a.A = 5, a.K_max = 100000, a.epsilon = 10;
    b = a;
    b.features = BB_FEATURES_SIMPLEX, b.y_sensitivity = BB_YSENS_TRIANGLE;
    assert_int_equal(bb_params_derive(&a, NULL, 0), BB_OK);
    assert_int_equal(bb_params_derive(&b, NULL, 0), BB_OK);
    const double eta = 8 * 0x1p-53;
    assert_rel(a.ridge, b.ridge, 0);
    assert_rel(a.rho_y, b.rho_y, 0);
    assert_int_equal(a.max_updates, b.max_updates);
    assert_true(b.sigma_y_eff < a.sigma_y_eff && a.sigma_y_eff <= b.sigma_y_eff * (1 + 2 * eta));
    assert_true(b.sigma_gram_eff < a.sigma_gram_eff &&
                a.sigma_gram_eff <= b.sigma_gram_eff * (1 + 2 * eta));
    for (int h = 0; h < 5; h++) { /* with the stream nothing is drawn at the last step */
        double x = bb_params_sigma_y_drawn_step(&a, h), y = bb_params_sigma_y_drawn_step(&b, h);
        assert_true(h == 4 ? x == 0 && y == 0 : y < x && x <= y * (1 + 2 * eta));
        x = bb_params_sigma_reward_drawn(&a, h), y = bb_params_sigma_reward_drawn(&b, h);
        assert_true(y < x && x <= y * (1 + 2 * eta));
    }
    for (int rule = BB_INDEF_REFUSE; rule <= BB_INDEF_DOUBLE; rule++) {
        struct bb_params q = a;
        q.indefinite = (enum bb_indefinite)rule;
        assert_same_privacy(&q, &a);
    }
}

/* One-hot rows (docs/PRIVACY.md §1.6): the Gram noise is diagonal, so the
 * tight bound is the largest of d R H scalars, s sqrt(2 ln(2 d R H / p)),
 * not s (2 sqrt d + sqrt(2 ln(R H / p))); every other privacy constant is
 * simplex's. Known values (Python) at H = 5, d = 8, K_max = 1e5, rho = 1,
 * f = 1/2, grid, g = 2, k0 = 1 (G = 17), scale 1: prefix sd sqrt 170,
 * lambda~ 58.92139310790768 against 124.0460206026939 for dense noise. */
static void test_onehot_bound(void **state)
{
    (void)state;
    struct bb_params p, q;
    bb_params_defaults(&p);
    p.H = 5, p.d = 8, p.A = 2, p.K_max = 100000, p.rho = 1, p.gram_share = 0.5;
    p.mechanism = BB_MECH_GRID, p.release_base = 2, p.release_start = 1, p.shift_scale = 1;
    p.features = BB_FEATURES_ONEHOT;
    q = p;
    q.features = BB_FEATURES_SIMPLEX;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_true(bb_params_diagonal_gram(&p));
    assert_false(bb_params_diagonal_gram(&q));
    assert_true(bb_params_simplex_rows(&p) && bb_params_simplex_rows(&q));
    assert_rel(p.prefix_sd, sqrt(170.0), 1e-14);
    assert_rel(p.shift, 58.92139310790768, 1e-12);
    assert_rel(q.shift, 124.0460206026939, 1e-12);
    /* Everything that sets a privacy cost is simplex's. */
    assert_rel(p.sigma_gram, q.sigma_gram, 0);
    assert_rel(p.sigma_gram_eff, q.sigma_gram_eff, 0);
    assert_rel(p.sigma_y, q.sigma_y, 0);
    assert_int_equal(p.max_updates, q.max_updates);
    assert_rel(bb_params_y_pair(&p), 1.0, 0); /* centred (test_y_centred) */
    assert_true(bb_params_next_bound(&p));
    /* Scale 0.25: ridge 2 * 0.25 * the bound; auto, onehot's default, 0.4. */
    p.shift_scale = 0.25;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_rel(p.ridge, 29.46069655395384, 1e-12);
    p.shift_scale = 0;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_rel(p.shift_scale, 0.4, 0);
    assert_rel(p.ridge, 2 * 0.4 * 58.92139310790768, 1e-12);
    struct bb_params r = q;
    r.shift_scale = 0;
    assert_int_equal(bb_params_derive(&r, NULL, 0), BB_OK);
    assert_rel(r.shift_scale, 0.25, 0);
    /* The paper's bound stays the paper's. */
    p.shift_bound = BB_BOUND_PAPER, q.shift_bound = BB_BOUND_PAPER;
    p.shift_scale = 0.25, q.shift_scale = 0.25;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_rel(p.shift, q.shift, 0);
    /* Ball rows never have a diagonal Gram. */
    q.features = BB_FEATURES_BALL;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_false(bb_params_diagonal_gram(&q));
}

/* The known-value configuration of test_y_nonnegative and test_y_centred:
 * H = 5, d = 8, A = 5, epsilon 10, k0 = 1000, simplex rows, bound ys. */
static void simplex_h5(struct bb_params *p, enum bb_y_sensitivity ys)
{
    bb_params_defaults(p);
    p->release_base = 1.5; /* as the known values were computed */
    p->first_share = 1;    /* as the known values were computed */
    p->rewards = BB_REWARDS_UPDATE; /* as the known values were computed */
    p->y_sensitivity = ys;
    /* rho as CKS converts epsilon = 10 exactly, as the known values were
     * computed (derive aims 2^-40 below a given epsilon: test_epsilon_...). */
    p->H = 5, p->d = 8, p->A = 5, p->K_max = 100000, p->release_start = 1000;
    p->rho = bb_rho_from_epsilon_cks(10.0, 1e-5);
    p->features = BB_FEATURES_SIMPLEX;
}

/* The nonnegative bound on y's sensitivity (docs/PRIVACY.md §2.1): with
 * simplex rows sqrt 2 (1 + cap) instead of 2 (1 + cap), every sigma scaled by
 * sqrt 2 / 2 at the same cost. Known values at H = 5, d = 8, epsilon 10 (rho
 * by CKS), k0 = 1000 (G = 12), computed in Python: sigma_y = sqrt(G H (H+1)
 * (2H+1) / (3 rho_y)) sqrt 2 / 2, sigma_h = sigma_y sqrt(H / sum_j D_j^2) D_h
 * with D_h = sqrt 2 (H - h), drawn = sigma_h (1 + 2 g_h sqrt d / D_h) on the
 * grid g_h = 2^(floor(log2 sigma_h) - 20) (exact sums, docs/PRIVACY.md §5). */
static void test_y_nonnegative(void **state)
{
    (void)state;
    static const double step[] = {32.43112676425087, 25.944901411400693, 19.458676058550523,
                                  12.972450705700346, 6.486225352850173};
    static const double drawn[] = {32.43191853980664, 25.945297299178577, 19.459071946328407,
                                   12.972648649589289, 6.486324324794644};
    struct bb_params p, q;
    simplex_h5(&p, BB_YSENS_NONNEGATIVE);
    q = p;
    q.y_sensitivity = BB_YSENS_TRIANGLE;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_rel(bb_params_y_pair(&p), sqrt(2.0), 0);
    assert_rel(bb_params_y_pair(&q), 2.0, 0);
    assert_int_equal(p.max_updates, 12);
    assert_rel(q.sigma_y, 30.423093616774736, 1e-12);
    assert_rel(p.sigma_y, 21.512375801094585, 1e-12);
    double cost_p = 0, cost_q = 0;
    for (int h = 0; h < 5; h++) {
        double Dp = bb_params_y_sensitivity(&p, h), Dq = bb_params_y_sensitivity(&q, h);
        assert_rel(Dp, sqrt(2.0) * (5 - h), 1e-15);
        assert_rel(Dq, 2.0 * (5 - h), 1e-15);
        assert_rel(bb_params_sigma_y_step(&p, h), step[h], 1e-12);
        assert_rel(bb_params_sigma_y_drawn_step(&p, h), drawn[h], 1e-12);
        assert_rel(bb_params_sigma_y_step(&p, h), bb_params_sigma_y_step(&q, h) * sqrt(0.5),
                   1e-14);
        double sp = bb_params_sigma_y_step(&p, h), sq = bb_params_sigma_y_step(&q, h);
        cost_p += Dp * Dp / (2 * sp * sp), cost_q += Dq * Dq / (2 * sq * sq);
        /* The same ratio of sensitivity to noise after snapping. */
        assert_rel(bb_params_sigma_y_drawn_step(&p, h),
                   sp * (1 + 2 * bb_params_grid_y_step(&p, h) * sqrt(8.0) / Dp), 1e-15);
        /* Under the next-value bound: the same scaling at every cap. */
        for (double cap = 0; cap <= 4 - h; cap += 0.5) {
            double sa = bb_params_sigma_y_at(&p, h, cap);
            assert_rel(sa, bb_params_sigma_y_at(&q, h, cap) * sqrt(0.5), 1e-14);
            assert_rel(2 * (1 + cap) * (1 + cap) / (2 * sa * sa), Dp * Dp / (2 * sp * sp), 1e-12);
        }
        /* The prior's target is the largest target, whichever bound. */
        assert_rel(bb_params_prior_target(&p, h), bb_params_prior_target(&q, h), 0);
        assert_rel(bb_params_prior_target(&p, h), p.prior_value * (5 - h), 1e-15);
    }
    assert_rel(cost_p, cost_q, 1e-12);
    assert_rel(cost_p * (double)p.max_updates, p.rho_y, 1e-12);
    /* The auto start is the triangle bound's (start_sigma in params.c):
     * 1166, as test_release_start_auto; sigma_y sqrt 2 / 2 of its 29.128. */
    struct bb_params a = p, t = q;
    a.release_start = 0, t.release_start = 0;
    assert_int_equal(bb_params_derive(&a, NULL, 0), BB_OK);
    assert_int_equal(bb_params_derive(&t, NULL, 0), BB_OK);
    assert_int_equal((long)a.release_start, 1166);
    assert_int_equal((long)t.release_start, 1166);
    assert_rel(a.sigma_y, 29.127894530508947 * sqrt(0.5), 1e-12);
    /* Ball rows, and the paper's calibration, keep the triangle bound. */
    q = p;
    q.features = BB_FEATURES_BALL, q.release_start = 1000;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_rel(bb_params_y_pair(&q), 2.0, 0);
    assert_rel(q.sigma_y, 30.423093616774736, 1e-12);
    q = p;
    q.calibration = BB_CAL_PAPER;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_rel(bb_params_y_pair(&q), 2.0, 0);
    q = p;
    q.y_sensitivity = 5;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_EINVAL);
}

/* Centred targets (docs/PRIVACY.md §2.2): with simplex rows the released
 * sum is sum_i phi_i (t_i - c 1^T phi_i), c = kappa B, t_i in [0, B].
 * Its change when one term is replaced is at most B max(1, sqrt 2 (1 -
 * kappa)) for kappa <= 1/2, B at kappa = 1 - 1/sqrt 2 and above; checked
 * here by brute force over rows s e_1, s e_2 and (e_1 + e_2) s / 2 (s in
 * [0, 1]) and targets in [0, B], where the bound is reached. Then the
 * noise: the default, y_pair 1, every sigma 1/2 of the triangle bound's at
 * the same cost. Known values at H = 5, d = 8, epsilon 10, k0 = 1000 (G =
 * 12), computed in Python as in test_y_nonnegative with D_h = H - h. */
static double centred_change(double kappa, double B)
{
    const int n = 21;
    double worst = 0;
    for (int r = 0; r < 3 * n; r++)
        for (int r2 = 0; r2 < 3 * n; r2++)
            for (int a = 0; a < n; a++)
                for (int b = 0; b < n; b++) {
                    double x[2][2] = {{0, 0}, {0, 0}}, t[2] = {B * a / (n - 1), B * b / (n - 1)};
                    const int rr[2] = {r, r2};
                    for (int k = 0; k < 2; k++) {
                        double sc = (double)(rr[k] % n) / (n - 1);
                        int shape = rr[k] / n; /* e_1, e_2, or half of each */
                        x[k][0] = shape == 1 ? 0 : shape == 0 ? sc : sc / 2;
                        x[k][1] = shape == 0 ? 0 : shape == 1 ? sc : sc / 2;
                    }
                    double diff[2];
                    for (int j = 0; j < 2; j++)
                        diff[j] = x[0][j] * (t[0] - kappa * B * (x[0][0] + x[0][1])) -
                                  x[1][j] * (t[1] - kappa * B * (x[1][0] + x[1][1]));
                    double norm = sqrt(diff[0] * diff[0] + diff[1] * diff[1]);
                    if (norm > worst)
                        worst = norm;
                }
    return worst;
}

/* The weight of a row (bb_params_row_weight, docs/PRIVACY.md §1.7). */
static double weight_of(enum bb_features features, enum bb_row_weight rw, int d, const double *phi)
{
    struct bb_params p;
    bb_params_defaults(&p);
    p.features = features, p.row_weight = rw, p.d = d, p.is_private = 1;
    return bb_params_row_weight(&p, phi);
}

/* Known values: ||phi||_1/||phi||_2 for simplex rows, 1/||phi||_2 for
 * ball rows, each just below the exact ratio (the 2^-40 margin), never
 * below 1; 1 for one-hot and tabular rows, with row-weight one, without
 * privacy, and for a zero or vanishing row. Then the promises, by brute force over simplex
 * rows s x (x on a grid of the simplex, s in (0, 1]), centred targets
 * and ball rows: ||w phi||_2 <= ||phi||_1 (<= 1 for ball rows) and
 * w ||phi||_2^2 <= 1 in long double, and the centred term w phi (t -
 * kappa B 1^T phi) changes by at most B between any two (row, target)
 * pairs, reached by the flat row with targets B and 0. */
static void test_row_weight(void **state)
{
    (void)state;
    const double m = 1.0 - 0x1p-40;
    const double e1[8] = {1.0}, flat[8] = {0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125},
                 half[8] = {0.5, 0.5}, uneven[8] = {0.3, 0.1}, zero[8] = {0},
                 tiny[8] = {1e-300, 1e-300}, ball[2] = {0.3, -0.4}, unit[2] = {0.6, 0.8};
    const enum bb_row_weight N = BB_ROW_WEIGHT_NORM;
    assert_true(weight_of(BB_FEATURES_SIMPLEX, N, 8, e1) == 1.0);
    assert_rel(weight_of(BB_FEATURES_SIMPLEX, N, 8, flat), sqrt(8.0) * m, 1e-15);
    assert_true(weight_of(BB_FEATURES_SIMPLEX, N, 8, flat) < sqrt(8.0));
    assert_rel(weight_of(BB_FEATURES_SIMPLEX, N, 8, half), sqrt(2.0) * m, 1e-15);
    assert_rel(weight_of(BB_FEATURES_SIMPLEX, N, 8, uneven), 0.4 / sqrt(0.1) * m, 1e-15);
    assert_true(weight_of(BB_FEATURES_SIMPLEX, N, 8, zero) == 1.0);
    assert_true(weight_of(BB_FEATURES_SIMPLEX, N, 8, tiny) == 1.0);
    assert_rel(weight_of(BB_FEATURES_BALL, N, 2, ball), 2.0 * m, 1e-15);
    assert_true(weight_of(BB_FEATURES_BALL, N, 2, unit) == 1.0);
    assert_true(weight_of(BB_FEATURES_ONEHOT, N, 8, flat) == 1.0);
    assert_true(weight_of(BB_FEATURES_TABULAR, N, 8, flat) == 1.0);
    assert_true(weight_of(BB_FEATURES_SIMPLEX, BB_ROW_WEIGHT_ONE, 8, flat) == 1.0);
    assert_true(weight_of(BB_FEATURES_BALL, BB_ROW_WEIGHT_ONE, 2, ball) == 1.0);
    struct bb_params np; /* without privacy every row weighs 1 (Alg. 1's regression) */
    bb_params_defaults(&np);
    np.d = 8, np.features = BB_FEATURES_SIMPLEX, np.is_private = 0;
    assert_true(bb_params_row_weight(&np, flat) == 1.0);
    struct bb_params p; /* the default, and the paper's calibration's */
    bb_params_defaults(&p);
    assert_int_equal(p.row_weight, BB_ROW_WEIGHT_NORM);
    simplex_h5(&p, BB_YSENS_CENTRED);
    p.calibration = BB_CAL_PAPER;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_int_equal(p.row_weight, BB_ROW_WEIGHT_ONE);
    /* The promises. Rows s x, x = (a, b, c, rest spread over 3 more)/n. */
    const int n = 12, d = 6;
    const double B = 3.0, c = BB_Y_CENTRE * B;
    double worst = 0;
    static double rows[4096][6], terms[4096][2][6];
    int nr = 0;
    for (int a = 0; a <= n; a++)
        for (int b = 0; a + b <= n; b++)
            for (int k = 0; k < 3; k++) {
                const double s = (k + 1) / 3.0, rest = (double)(n - a - b) / n;
                double *x = rows[nr];
                x[0] = s * a / n, x[1] = s * b / n;
                for (int j = 2; j < d; j++)
                    x[j] = (j < 2 + k + 1) ? s * rest / (k + 1) : 0;
                long double one = 0, two = 0;
                for (int j = 0; j < d; j++)
                    one += x[j], two += (long double)x[j] * x[j];
                const double w = weight_of(BB_FEATURES_SIMPLEX, N, d, x);
                assert_true(w >= 1.0);
                assert_true((long double)w * w * two <= one * one);
                assert_true((long double)w * two <= 1.0L);
                for (int t = 0; t < 2; t++) /* targets B and 0 */
                    for (int j = 0; j < d; j++)
                        terms[nr][t][j] = w * x[j] * ((t ? 0.0 : B) - c * (double)one);
                nr++;
            }
    for (int i = 0; i < nr; i++)
        for (int k = 0; k < nr; k++)
            for (int t = 0; t < 2; t++)
                for (int u = 0; u < 2; u++) {
                    double q = 0;
                    for (int j = 0; j < d; j++)
                        q += (terms[i][t][j] - terms[k][u][j]) * (terms[i][t][j] - terms[k][u][j]);
                    worst = fmax(worst, sqrt(q));
                }
    assert_true(worst <= B * (1 + 1e-12));
    assert_true(worst >= B * (1 - 1e-9)); /* reached */
    for (int i = 0; i < 1000; i++) { /* ball rows of norms below 1, every direction */
        const double r = (i + 1) / 1001.0, th = i * 2.399963;
        const double x[2] = {r * cos(th), r * sin(th)};
        const double w = weight_of(BB_FEATURES_BALL, N, 2, x);
        assert_true((long double)w * w * ((long double)x[0] * x[0] + (long double)x[1] * x[1]) <=
                    1.0L);
    }
}

static void test_y_centred(void **state)
{
    (void)state;
    assert_rel(BB_Y_CENTRE, 1.0 - sqrt(0.5), 1e-15);
    /* kappa 0: sqrt 2 B (the nonnegative bound, reached); the centre: B; in
     * between sqrt 2 (1 - kappa) B; 1/2: B. Never above the bound. */
    const double kap[] = {0.0, 0.1, 0.2, BB_Y_CENTRE, 0.4, 0.5};
    for (size_t i = 0; i < sizeof(kap) / sizeof(kap[0]); i++) {
        double bound = fmax(1.0, sqrt(2.0) * (1.0 - kap[i])) * 3.0;
        assert_rel(centred_change(kap[i], 3.0), bound, 1e-12);
    }
    static const double step[] = {22.932269656522323, 18.345815725217857, 13.759361793913396,
                                  9.172907862608929, 4.586453931304464};
    static const double drawn[] = {22.932665544300203, 18.34621161299574, 13.759559737802336,
                                   9.17310580649787, 4.586552903248935};
    /* A database created with float sums: one snap, sigma_h (1 + g_h sqrt d / D_h). */
    static const double drawn_float[] = {22.932467600411265, 18.3460136691068,
                                         13.759460765857867, 9.1730068345534, 4.5865034172767};
    struct bb_params p, q;
    bb_params_defaults(&p);
    p.rewards = BB_REWARDS_UPDATE; /* the whole targets per update */
    assert_int_equal(p.y_sensitivity, BB_YSENS_CENTRED); /* the default */
    simplex_h5(&p, BB_YSENS_CENTRED);
    q = p;
    q.y_sensitivity = BB_YSENS_TRIANGLE;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_rel(bb_params_y_pair(&p), 1.0, 0);
    assert_rel(bb_params_y_centre(&p), BB_Y_CENTRE, 0);
    assert_rel(bb_params_y_centre(&q), 0.0, 0);
    assert_rel(p.sigma_y, 15.211546808387368, 1e-12);
    double cost_p = 0, cost_q = 0;
    for (int h = 0; h < 5; h++) {
        double Dp = bb_params_y_sensitivity(&p, h), Dq = bb_params_y_sensitivity(&q, h);
        assert_rel(Dp, 5.0 - h, 1e-15);
        double sp = bb_params_sigma_y_step(&p, h), sq = bb_params_sigma_y_step(&q, h);
        assert_rel(sp, step[h], 1e-12);
        assert_rel(sp, sq * 0.5, 1e-14);
        assert_rel(bb_params_sigma_y_drawn_step(&p, h), drawn[h], 1e-12);
        struct bb_params fl = p;
        fl.arithmetic = BB_ARITH_FLOAT;
        assert_rel(bb_params_sigma_y_drawn_step(&fl, h), drawn_float[h], 1e-12);
        cost_p += Dp * Dp / (2 * sp * sp), cost_q += Dq * Dq / (2 * sq * sq);
        for (double cap = 0; cap <= 4 - h; cap += 0.5) /* under the next-value bound */
            assert_rel(bb_params_sigma_y_at(&p, h, cap), bb_params_sigma_y_at(&q, h, cap) * 0.5,
                       1e-14);
    }
    assert_rel(cost_p, cost_q, 1e-12);
    assert_rel(cost_p * (double)p.max_updates, p.rho_y, 1e-12);
    /* The auto start is the triangle bound's: 1166, sigma_y 1/2 of 29.128. */
    struct bb_params a = p;
    a.release_start = 0;
    assert_int_equal(bb_params_derive(&a, NULL, 0), BB_OK);
    assert_int_equal((long)a.release_start, 1166);
    assert_rel(a.sigma_y, 29.127894530508947 * 0.5, 1e-12);
    /* Onehot rows too; ball rows, the paper's calibration and a run
     * without privacy have no centre and their own bound. */
    q = p, q.features = BB_FEATURES_ONEHOT;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_rel(bb_params_y_centre(&q), BB_Y_CENTRE, 0);
    q = p, q.features = BB_FEATURES_BALL;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_rel(bb_params_y_pair(&q), 2.0, 0);
    assert_rel(bb_params_y_centre(&q), 0.0, 0);
    q = p, q.calibration = BB_CAL_PAPER;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_rel(bb_params_y_centre(&q), 0.0, 0);
    q = p, q.epsilon = 0, q.rho = INFINITY;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_rel(bb_params_y_centre(&q), 0.0, 0);
}

/* The ridge 2 lambda~ against the spectral edge sqrt(2d) s of a released
 * prefix's noise M = (Z + Z^T)/2, Z_ij ~ N(0, s^2) (docs/PRIVACY.md §1.4):
 * in a direction no episode reaches (a state never visited at step h),
 * Lambda~ is M + 2 lambda~ I, indefinite in most releases once the ridge is
 * below the edge. 2 a (2 sqrt d + t) >= sqrt(2d) at every d needs a >=
 * sqrt 2 / 4 = 0.354 up to the t term: 0.35, the earlier default scale,
 * stays above at every d the engine accepts (0.7 t to spare); the default
 * 0.25 falls below from d = 60 at the latest (docs/RESULTS.md, "More
 * levers"), which is why it comes with --indefinite double. */
/* The reward stream (docs/PRIVACY.md §2.4): known values at H = 5, d = 8,
 * simplex rows, centred (y_pair 1), k0 = 1000 on the default grid (G = 21
 * = N_max), epsilon 10 by CKS, computed independently (Python, from the
 * §2.4 formulas): sigma_R,h and sigma_V,h, the stream's drawn sd, rho_R;
 * the two parts' costs add up to rho_y; the spend; where it is in force. */
/* The warm-up (docs/PRIVACY.md §2.5): M points 250 2^j below k0, rho_warm =
 * phi rho, the rest split as before; its own params spend exactly rho_warm. */
/* The last and the next release point, the schedule's final update and the
 * prior's cut, on known grids. */
static void test_final_update(void **state)
{
    (void)state;
    struct bb_params p;
    bb_params_defaults(&p);
    assert_int_equal(p.final_prior, BB_FINAL_PRIOR_TAPER); /* the default */
    p.H = 3, p.d = 4, p.A = 2, p.K_max = 10000;
    p.rho = 10.0;
    p.mechanism = BB_MECH_GRID_SQRT;
    p.release_start = 1000, p.release_base = 2; /* 1000, 2000, 4000, 8000 */
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_int_equal(p.releases, 4);
    assert_int_equal(bb_params_last_release(&p), 8000);
    const long after[] = {0, 999, 1000, 1999, 4000, 7999, 8000, 10000};
    const long next[] = {1000, 1000, 2000, 2000, 8000, 8000, 10000, 10000};
    for (int i = 0; i < 8; i++)
        assert_int_equal(bb_params_next_release(&p, after[i]), next[i]);
    /* taper: the prior weighs sqrt((K_max - k_next) / K_max), none at the
     * final update; none: whole until the final; kept: whole always */
    const double cut[] = {0.10557280900008414, 0.2254033307585166,
                          0.5527864045000421}; /* 1 - sqrt(0.8, 0.6, 0.2) */
    for (int i = 0; i < 3; i++)
        assert_rel(bb_params_prior_cut(&p, 1000L << i, 0), cut[i], 1e-15);
    assert_rel(bb_params_prior_cut(&p, 8000, 0), 1.0, 0); /* nothing after it */
    assert_rel(bb_params_prior_cut(&p, 1000, 1), 1.0, 0);
    p.final_prior = BB_FINAL_PRIOR_NONE;
    assert_rel(bb_params_prior_cut(&p, 1000, 0), 0.0, 0);
    assert_rel(bb_params_prior_cut(&p, 4000, 1), 1.0, 0);
    p.final_prior = BB_FINAL_PRIOR_KEPT;
    assert_rel(bb_params_prior_cut(&p, 1000, 0), 0.0, 0);
    assert_rel(bb_params_prior_cut(&p, 8000, 1), 0.0, 0);
    p.final_prior = BB_FINAL_PRIOR_TAPER;
    struct bb_schedule s;
    double logdet[3] = {100, 100, 100}; /* every point due */
    assert_int_equal(bb_schedule_init(&s, &p, 1.0), BB_OK);
    const long points[] = {1000, 2000, 4000};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(bb_schedule_record(&s, logdet, points[i]), BB_OK);
        assert_int_equal(bb_schedule_final(&s, points[i]), 0);
        logdet[0] += 100;
    }
    assert_int_equal(bb_schedule_record(&s, logdet, 8000), BB_OK);
    assert_int_equal(bb_schedule_final(&s, 8000), 1); /* the grid's last point */
    bb_schedule_release(&s);
    /* N_max reached before the last point: the cap makes it final */
    p.max_updates_cap = 2;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_int_equal(bb_schedule_init(&s, &p, 1.0), BB_OK);
    assert_int_equal(bb_schedule_record(&s, logdet, 1000), BB_OK);
    assert_int_equal(bb_schedule_final(&s, 1000), 0);
    assert_int_equal(bb_schedule_record(&s, logdet, 2000), BB_OK);
    assert_int_equal(bb_schedule_final(&s, 2000), 1);
    bb_schedule_release(&s);
    /* the trees release after every episode: only K_max is last */
    p.max_updates_cap = 0;
    p.mechanism = BB_MECH_TREE;
    p.release_start = 0;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_int_equal(bb_params_last_release(&p), 10000);
    assert_int_equal(bb_params_next_release(&p, 2500), 2501);
    assert_rel(bb_params_prior_cut(&p, 2499, 0), 0.1339745962155614, 1e-15); /* 1 - sqrt .75 */
    /* a non-private run */
    p.rho = INFINITY;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_int_equal(bb_params_last_release(&p), 10000);
}

static void test_warm(void **state)
{
    (void)state;
    struct bb_params p, w;
    bb_params_defaults(&p);
    assert_rel(p.warm_share, 0.15, 0); /* the default */
    p.H = 5, p.d = 8, p.A = 5, p.K_max = 100000;
    p.features = BB_FEATURES_SIMPLEX;
    p.rho = bb_rho_from_epsilon_cks(1.0, 1e-5);
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    long M = 0;
    for (double k = 250; k < p.release_start; k *= 2)
        M++;
    assert_true(M >= 1);
    assert_int_equal(p.warm_points, M);
    assert_rel(p.rho_warm, 0.15 * p.rho, 1e-15);
    assert_rel(p.rho_warm + p.rho_gram + p.rho_y, p.rho, 1e-15);
    assert_rel(p.rho_gram, 0.2 * 0.85 * p.rho, 1e-15);
    assert_int_equal(bb_params_warm(&p, &w), BB_OK);
    assert_int_equal(w.releases, M);
    assert_int_equal(w.K_max, 250L << (M - 1));
    assert_int_equal(w.warm_points, 0);
    const double S = bb_sqrt_sum_squares(M);
    assert_rel(w.sens_factor, S, 1e-15);
    assert_rel(w.sigma_gram, sqrt(5 * S / (0.2 * p.rho_warm)), 1e-15);
    double cost = 5 * S * 2 / (2 * w.sigma_gram * w.sigma_gram);
    for (int h = 0; h < 5; h++) {
        const double sr = bb_params_sigma_reward(&w, h);
        assert_rel(sr, sqrt(5 * S / (2 * 0.8 * p.rho_warm)), 1e-14); /* rewards alone */
        assert_rel(bb_params_sigma_next(&w, h), 0, 0);
        cost += S / (2 * sr * sr);
    }
    assert_rel(cost, p.rho_warm, 1e-14);
    assert_rel(bb_params_rho_reward(&w), w.rho_y, 1e-14);
    /* one warm billboard per warm point reached */
    assert_int_equal(bb_params_warm_reached(&p, 249), 0);
    assert_int_equal(bb_params_warm_reached(&p, 250), 1);
    assert_int_equal(bb_params_warm_reached(&p, 499), 1);
    assert_int_equal(bb_params_warm_reached(&p, 500), 2);
    assert_int_equal(bb_params_warm_reached(&p, p.K_max), M);
    assert_int_equal(bb_params_warm_point(0), 0);
    assert_int_equal(bb_params_warm_point(1), 250);
    assert_int_equal(bb_params_warm_point(3), 1000);
    assert_int_equal(bb_params_warm_point(M), w.K_max);
    /* spent with the first episode, before anything is published */
    assert_rel(bb_params_rho_warm_spent(&p, 0), 0, 0);
    assert_rel(bb_params_rho_warm_spent(&p, 1), p.rho_warm, 0);
    assert_rel(bb_params_rho_spent(&p, 5000, p.max_updates, NULL, NULL), p.rho, 1e-15);
    /* No point below k0, no share, the paper's calibration: no warm-up. */
    struct bb_params q = p;
    q.release_start = 250;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_int_equal(q.warm_points, 0);
    assert_rel(q.rho_gram + q.rho_y, q.rho, 1e-15);
    assert_int_equal(bb_params_warm(&q, &w), BB_ENOTFOUND);
    q = p;
    q.warm_share = 0;
    q.release_start = 0;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_int_equal(q.warm_points, 0);
    assert_true(q.release_start < p.release_start); /* the whole budget: an earlier start */
    q = p;
    q.warm_share = 0.6;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_EINVAL);
}

static void test_reward_stream(void **state)
{
    (void)state;
    static const double sr[] = {5.473109864949232, 4.8952982825404705, 4.23945267178238,
                                3.4614986115152266, 2.4476491412702353};
    static const double sv[] = {23.43251940921708, 18.15075148631596, 12.834519459605822,
                                7.410013264922912, 0.0};
    static const double drawn[] = {5.473607686264205, 4.8957435474608415, 4.239838282514835,
                                   3.461656036437536, 2.447760457500328};
    struct bb_params p;
    bb_params_defaults(&p);
    assert_int_equal(p.rewards, BB_REWARDS_STREAM); /* the default */
    p.H = 5, p.d = 8, p.A = 5, p.K_max = 100000, p.release_start = 1000;
    p.warm_share = 0; /* the stream alone: the warm-up is test_warm's */
    p.features = BB_FEATURES_SIMPLEX;
    p.rho = bb_rho_from_epsilon_cks(10.0, 1e-5);
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_true(bb_params_reward_stream(&p));
    assert_int_equal(p.releases, 21);
    assert_int_equal(p.max_updates, 21);
    assert_rel(p.rho_y, 1.4261564930622816, 1e-15);
    const double S = bb_sqrt_sum_squares(21);
    double cost = 0;
    for (int h = 0; h < 5; h++) {
        const double c = 4 - h;
        assert_rel(bb_params_sigma_reward(&p, h), sr[h], 1e-14);
        assert_rel(bb_params_sigma_next(&p, h), sv[h], 1e-14);
        assert_rel(bb_params_sigma_reward_drawn(&p, h), drawn[h], 1e-14);
        assert_rel(bb_params_grid_reward(&p, h), bb_grid_for(sr[h]), 0);
        /* an update's part: the next values' range c at y_pair 1 */
        assert_rel(bb_params_sigma_y_step(&p, h), sv[h], 0);
        assert_rel(bb_params_y_range(&p, c), c, 0);
        if (h == 4)
            assert_rel(bb_params_sigma_y_drawn_step(&p, h), 0, 0); /* nothing to noise */
        else
            assert_rel(bb_params_sigma_y_drawn_step(&p, h),
                       sv[h] * (1 + 2 * bb_params_grid_y_step(&p, h) * sqrt(8.0) / c), 1e-15);
        /* the stream: sensitivity 1 through S; the updates: c each, N of them */
        cost += S / (2 * sr[h] * sr[h]) + (c > 0 ? 21 * c * c / (2 * sv[h] * sv[h]) : 0);
    }
    assert_rel(cost, p.rho_y, 1e-14);
    const double rho_r = 0.3871513964408804;
    assert_rel(bb_params_rho_reward(&p), rho_r, 1e-14);
    /* The stream with the first episode, as the Gram mechanism; the rest in
     * the updates' shares (a = 2: 2 / 21, then 19 / 20 / 21 each), all of
     * rho_y after N_max. */
    assert_rel(bb_params_rho_reward_spent(&p, 0), 0, 0);
    assert_rel(bb_params_rho_reward_spent(&p, 1), rho_r, 0);
    assert_rel(bb_params_rho_y_spent(&p, 0), 0, 0);
    assert_rel(bb_params_rho_y_spent(&p, 1), (p.rho_y - rho_r) * 2 / 21, 1e-15);
    assert_rel(bb_params_rho_y_spent(&p, 2), (p.rho_y - rho_r) * (2 + 19.0 / 20) / 21, 1e-15);
    double g, y;
    assert_rel(bb_params_rho_spent(&p, 1, 0, &g, &y), p.rho_gram + rho_r, 1e-15);
    assert_rel(y, rho_r, 0);
    assert_rel(bb_params_rho_spent(&p, 5000, 21, &g, &y), p.rho, 1e-15);
    assert_rel(y, p.rho_y, 1e-15);
    /* Exactness: the stream's smallest grid, 2^-19, over G = 21 outputs
     * decides: 2^-20 / gamma_21. */
    const double u = 0x1p-53, gamma = 21 * u / (1 - 21 * u);
    assert_true(bb_params_grid_reward(&p, 4) == 0x1p-19);
    assert_int_equal(bb_params_exact_k_max(&p), (long)floor(0x1p-20 / gamma));
    /* Ball rows: the triangle bound, y_pair 2, both parts twice as noisy. */
    struct bb_params b = p;
    b.features = BB_FEATURES_BALL;
    assert_int_equal(bb_params_derive(&b, NULL, 0), BB_OK);
    for (int h = 0; h < 5; h++) {
        assert_rel(bb_params_sigma_reward(&b, h), 2 * sr[h], 1e-14);
        assert_rel(bb_params_sigma_next(&b, h), 2 * sv[h], 1e-14);
    }
    assert_rel(bb_params_rho_reward(&b), rho_r, 1e-14);
    /* Not in force: stored databases (update), the paper's calibration, a
     * tree (no grid to share), a non-private run. */
    struct bb_params q = p;
    q.rewards = BB_REWARDS_UPDATE;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_false(bb_params_reward_stream(&q));
    assert_rel(bb_params_rho_reward(&q), 0, 0);
    assert_rel(bb_params_rho_y_spent(&q, 1), q.rho_y * 2 / 21, 1e-15);
    q = p, q.calibration = BB_CAL_PAPER;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_false(bb_params_reward_stream(&q));
    q = p, q.mechanism = BB_MECH_TREE;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_false(bb_params_reward_stream(&q));
    q = p, q.rho = INFINITY;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_false(bb_params_reward_stream(&q));
    assert_rel(bb_params_sigma_reward(&q, 0), 0, 0);
    /* A stream noise too small for exact sums is refused. */
    q = p, q.H = 1, q.rho = 1e30, q.gram_share = 1e-28, q.K_max = 1000, q.release_start = 0;
    char why[256] = "";
    assert_int_equal(bb_params_derive(&q, why, sizeof(why)), BB_EINVAL);
    assert_non_null(strstr(why, "reward stream's noise is too small"));
    q = p, q.rewards = (enum bb_rewards)2;
    assert_int_equal(bb_params_derive(&q, why, sizeof(why)), BB_EINVAL);
    assert_non_null(strstr(why, "release of the rewards"));
}

static void test_ridge_and_edge(void **state)
{
    (void)state;
    const int dims[] = {1, 2, 8, 12, 24, 40, 60, 128, 512, 1024};
    const int horizons[] = {1, 5, 20};
    const double eps[] = {10, 1, 0.1};
    for (size_t i = 0; i < sizeof(dims) / sizeof(dims[0]); i++)
        for (size_t j = 0; j < sizeof(horizons) / sizeof(horizons[0]); j++)
            for (size_t k = 0; k < sizeof(eps) / sizeof(eps[0]); k++) {
                struct bb_params p;
                bb_params_defaults(&p);
                assert_rel(p.shift_scale, 0, 0); /* auto */
                assert_int_equal(p.indefinite, BB_INDEF_DOUBLE);
                p.H = horizons[j], p.d = dims[i], p.A = 2, p.K_max = 100000;
                p.epsilon = eps[k];
                assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
                assert_rel(p.shift_scale, 0.25, 0); /* auto, dense rows */
                if (p.d >= 60)
                    assert_true(p.ridge < sqrt(2.0 * p.d) * p.prefix_sd);
                p.release_start = 0, p.max_updates_cap = 0, p.mechanism = BB_MECH_AUTO;
                p.shift_scale = 0.35;
                assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
                const double edge = sqrt(2.0 * p.d) * p.prefix_sd;
                if (!(p.ridge > edge))
                    fail_msg("d %d H %d eps %g: ridge %g <= edge %g at 0.35", p.d, p.H, eps[k],
                             p.ridge, edge);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_values),
        cmocka_unit_test(test_epsilon_rho_conversions),
        cmocka_unit_test(test_paper_calibration_is_under_noised),
        cmocka_unit_test(test_cap),
        cmocka_unit_test(test_grid_inflation),
        cmocka_unit_test(test_tree_honaker),
        cmocka_unit_test(test_non_private),
        cmocka_unit_test(test_rejects_bad_config),
        cmocka_unit_test(test_spent),
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_release_start_auto),
        cmocka_unit_test(test_y_exponent),
        cmocka_unit_test(test_prior_target),
        cmocka_unit_test(test_plausible_z),
        cmocka_unit_test(test_explore),
        cmocka_unit_test(test_next_discount),
        cmocka_unit_test(test_first_share),
        cmocka_unit_test(test_next_bound_noise),
        cmocka_unit_test(test_exact_k_max),
        cmocka_unit_test(test_feature_rows),
        cmocka_unit_test(test_onehot_bound),
        cmocka_unit_test(test_stored_keys_privacy),
        cmocka_unit_test(test_y_nonnegative),
        cmocka_unit_test(test_y_centred),
        cmocka_unit_test(test_row_weight),
        cmocka_unit_test(test_reward_stream),
        cmocka_unit_test(test_warm),
        cmocka_unit_test(test_final_update),
        cmocka_unit_test(test_ridge_and_edge),
    };
    return cmocka_run_group_tests_name("params", tests, NULL, NULL);
}
