/*
 * test_sim_env.c — the JSON environment loader (client/sim/env_load.c):
 * the documented example loads to the hand-checked MDP, and every malformed
 * fixture under tests/fixtures/ is rejected with a message that names the
 * problem and where it is. Paths are relative to the repository root,
 * where `make test` runs.
 */
#include "testutil.h"

#include <string.h>

#include "featureset.h"
#include "sim/env.h"
#include "sim/eval.h"
#include "sim/run.h"

#define FIX "tests/fixtures/"

static void test_load_example(void **state)
{
    (void)state;
    struct bb_sim_env *e;
    char why[512] = "";
    int rc = bb_sim_env_load(FIX "sim_env_two_state.json", &e, why, sizeof(why));
    if (rc != BB_OK)
        fail_msg("%s", why);
    assert_int_equal(e->S, 2);
    assert_int_equal(e->H, 2);
    assert_string_equal(e->name, "sim_env_two_state.json");
    double V[6];
    bb_sim_eval_optimal(e, V, NULL);
    assert_rel(V[0], 0.8, 1e-12); /* test_sim_eval.c works it out */
    assert_rel(V[1], 1.5, 1e-12);
    bb_sim_env_free(e);
}

struct bad_case {
    const char *file;
    int rc;
    const char *needle; /* must appear in the message */
};

static const struct bad_case bad_cases[] = {
    {"sim_env_bad_json.json", BB_EPROTO, "sim_env_bad_json.json:2:"},
    {"sim_env_bad_shape.json", BB_EINVAL, "/phi/1: has 1 entries, expected 2"},
    {"sim_env_negative_prob.json", BB_EINVAL, "P_2(1 | 1,0) = phi.mu = -0.5 is a negative"},
    {"sim_env_row_sum.json", BB_EINVAL, "P_1(. | 0,1) sums to 0.9"},
    {"sim_env_phi_norm.json", BB_EINVAL, "/phi/0/1: feature norm"},
    {"sim_env_reward_range.json", BB_EINVAL, "r_2(1,0) = phi.theta = 1.2"},
    {"sim_env_missing_field.json", BB_EINVAL, "/theta: missing"},
    {"sim_env_unknown_field.json", BB_EINVAL, "/thetas: unknown field"},
    {"sim_env_initial_state.json", BB_EINVAL, "/initial_state: must be an integer in [0, 2)"},
    {"sim_env_initial_sum.json", BB_EINVAL, "/initial_distribution: sums to 1.1"},
    {"sim_env_not_number.json", BB_EINVAL, "/phi/0/0/0: must be a number"},
    {"sim_env_bad_size.json", BB_EINVAL, "/S: must be an integer"},
    {"sim_env_does_not_exist.json", BB_EIO, "cannot read"},
};

static void test_rejects_malformed(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        const struct bad_case *c = &bad_cases[i];
        struct bb_sim_env *e = (struct bb_sim_env *)1;
        char why[512] = "";
        char path[256];
        snprintf(path, sizeof(path), FIX "%s", c->file);
        int rc = bb_sim_env_load(path, &e, why, sizeof(why));
        if (rc != c->rc || !strstr(why, c->needle))
            fail_msg("%s: rc %d (want %d), message \"%s\" (want \"%s\")", c->file, rc, c->rc, why,
                     c->needle);
        assert_null(e);
        /* The message names the file first, so a user knows which one. */
        assert_true(strncmp(why, path, strlen(path)) == 0);
    }
}

/* The simulator's default --features is the feature map's set: simplex for
 * the built-in simplex MDP, tabular for RiverSwim and the two-state file
 * (state s's row of action a is e_{sA+a}), onehot for one-hot rows off
 * that layout, ball once a row has a negative entry or sums above 1;
 * bb_sim_params resolves 'auto' so. */
static void test_feature_domain(void **state)
{
    (void)state;
    struct bb_sim_env *e;
    char why[256] = "";
    assert_int_equal(bb_sim_env_simplex(20, 3, 4, 3, 0.3, 7, &e), BB_OK);
    assert_int_equal(bb_sim_env_domain(e), BB_FEATURES_SIMPLEX);
    bb_sim_env_free(e);
    /* One-hot rows in the tabular layout: tabular, the smallest set. */
    assert_int_equal(bb_sim_env_riverswim(5, 10, &e), BB_OK);
    assert_int_equal(bb_sim_env_domain(e), BB_FEATURES_TABULAR);
    bb_sim_env_free(e);
    assert_int_equal(bb_sim_env_load(FIX "sim_env_two_state.json", &e, why, sizeof(why)), BB_OK);
    assert_int_equal(bb_sim_env_domain(e), BB_FEATURES_TABULAR);
    assert_true(bb_sim_env_in(e, BB_FEATURES_ONEHOT));
    assert_true(bb_sim_env_in(e, BB_FEATURES_SIMPLEX));
    struct bb_params base, p;
    bb_params_defaults(&base);
    base.features = BB_FEATURES_AUTO, base.epsilon = 10;
    assert_int_equal(bb_sim_params(e, BB_SIM_PRIVATE, &base, 1000, &p, why, sizeof(why)), BB_OK);
    assert_int_equal(p.features, BB_FEATURES_TABULAR);
    assert_true(bb_params_next_bound(&p));
    assert_true(bb_params_diagonal_gram(&p));
    assert_true(bb_params_counts(&p));
    /* State 0's two rows swapped (e_1, e_0): one-hot, off the layout. */
    e->phi[0] = 0, e->phi[1] = 1, e->phi[4] = 1, e->phi[5] = 0;
    assert_int_equal(bb_sim_env_domain(e), BB_FEATURES_ONEHOT);
    assert_false(bb_sim_env_in(e, BB_FEATURES_TABULAR));
    e->phi[0] = 1, e->phi[1] = 0, e->phi[4] = 0, e->phi[5] = 1;
    assert_int_equal(bb_sim_env_domain(e), BB_FEATURES_TABULAR);
    /* Two nonzero entries summing to 1: simplex, not onehot. */
    e->phi[0] = 0.5, e->phi[1] = 0.5;
    assert_int_equal(bb_sim_env_domain(e), BB_FEATURES_SIMPLEX);
    assert_false(bb_sim_env_in(e, BB_FEATURES_ONEHOT));
    assert_int_equal(bb_sim_params(e, BB_SIM_PRIVATE, &base, 1000, &p, why, sizeof(why)), BB_OK);
    assert_int_equal(p.features, BB_FEATURES_SIMPLEX);
    assert_false(bb_params_diagonal_gram(&p));
    e->phi[0] = 1, e->phi[1] = 0;
    /* A row of the same norm with a negative entry: ball. */
    e->phi[1] = -e->phi[0], e->phi[0] = 0;
    assert_int_equal(bb_sim_env_domain(e), BB_FEATURES_BALL);
    assert_int_equal(bb_sim_params(e, BB_SIM_PRIVATE, &base, 1000, &p, why, sizeof(why)), BB_OK);
    assert_int_equal(p.features, BB_FEATURES_BALL);
    /* Entries >= 0 summing above 1 inside the ball: ball. */
    e->phi[0] = 0.6, e->phi[1] = 0.6;
    assert_int_equal(bb_sim_env_domain(e), BB_FEATURES_BALL);
    /* A flag given stays. */
    base.features = BB_FEATURES_SIMPLEX;
    assert_int_equal(bb_sim_params(e, BB_SIM_PRIVATE, &base, 1000, &p, why, sizeof(why)), BB_OK);
    assert_int_equal(p.features, BB_FEATURES_SIMPLEX);
    bb_sim_env_free(e);
}

/* A feature map normalised to sum 1 in floating point: (0.6, 0.1,
 * 0.30000000000000004) sums to 1 + 2.8e-17 exactly, outside the simplex the
 * engine checks exactly. The loader computes the dynamics from it, then
 * scales the map by BB_SIM_SIMPLEX_FIT (theta and mu by its inverse): every
 * row is in the simplex, the rewards and transitions are the unscaled map's. A map with a row further
 * out (sum 1.01) stays as it is, and ball. */
static void test_fit_simplex(void **state)
{
    (void)state;
    struct bb_sim_env *e;
    char why[256] = "";
    const double row[3] = {0.6, 0.1, 0.30000000000000004};
    for (int far = 0; far < 2; far++) {
        assert_int_equal(bb_sim_env_alloc(2, 1, 3, 1, &e), BB_OK);
        for (int s = 0; s < 2; s++)
            memcpy(e->phi + 3 * s, row, sizeof(row));
        if (far)
            e->phi[0] = e->phi[3] = 0.61;
        const double sum = e->phi[0] + e->phi[1] + e->phi[2]; /* P's rows sum to 1 */
        for (int j = 0; j < 3; j++) {
            e->theta[j] = 0.5;
            e->mu[j * 2] = e->mu[j * 2 + 1] = 0.5 / sum;
        }
        e->init[0] = 1.0;
        assert_false(bb_feature_row_in_set(BB_FEATURE_SET_SIMPLEX, e->phi, 3, NULL, 0));
        double r0 = 0, p0 = 0;
        for (int j = 0; j < 3; j++)
            r0 += e->phi[j] * 0.5, p0 += e->phi[j] * (0.5 / sum);
        assert_int_equal(bb_sim_env_finish(e, why, sizeof(why)), BB_OK);
        assert_true(e->reward[0] == r0 && e->trans[0] == p0); /* from the map as given */
        if (far) {
            assert_true(e->phi[0] == 0.61 && e->phi[1] == row[1]);
            assert_int_equal(bb_sim_env_domain(e), BB_FEATURES_BALL);
        } else {
            for (int i = 0; i < 6; i++)
                assert_true(e->phi[i] == row[i % 3] * BB_SIM_SIMPLEX_FIT);
            for (int s = 0; s < 2; s++)
                assert_true(bb_feature_row_in_set(BB_FEATURE_SET_SIMPLEX, e->phi + 3 * s, 3, NULL, 0));
            assert_int_equal(bb_sim_env_domain(e), BB_FEATURES_SIMPLEX);
            /* The same linear MDP: theta and mu over the factor. */
            assert_true(e->theta[0] == 0.5 / BB_SIM_SIMPLEX_FIT);
            assert_true(e->mu[0] == (0.5 / sum) / BB_SIM_SIMPLEX_FIT);
        }
        bb_sim_env_free(e);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_example),
        cmocka_unit_test(test_rejects_malformed),
        cmocka_unit_test(test_feature_domain),
        cmocka_unit_test(test_fit_simplex),
    };
    return cmocka_run_group_tests_name("sim_env", tests, NULL, NULL);
}
