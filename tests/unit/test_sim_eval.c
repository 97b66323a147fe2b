/*
 * test_sim_eval.c — the simulator's exact evaluator (client/sim/eval.h) on a
 * two-state MDP whose values are worked out by hand below, and the action
 * table a billboard induces (client/sim/policy.h).
 *
 * The MDP (H = 2, steps 0-based as in eval.h; one-hot features j = 2s + a):
 *   rewards   step 0: r(0,0)=0 r(0,1)=0.4 r(1,0)=1   r(1,1)=0
 *             step 1: r(0,0)=0 r(0,1)=0.4 r(1,0)=0.6 r(1,1)=0
 *   moves     (0,0) -> 1;  (0,1) -> 0;  (1,0) -> 0 or 1 w.p. 1/2;  (1,1) -> 1
 *   start     state 0
 * By hand:
 *   step 1: Q(0,.) = (0, 0.4), Q(1,.) = (0.6, 0)        V*_1 = (0.4, 0.6)
 *   step 0: Q(0,.) = (0 + 0.6, 0.4 + 0.4) = (0.6, 0.8)
 *           Q(1,.) = (1 + 0.2 + 0.3, 0 + 0.6) = (1.5, 0.6) V*_0 = (0.8, 1.5)
 *   optimal table: state 0 -> action 1, state 1 -> action 0, at both steps.
 *   "always 0":  V_1 = (0, 0.6),   V_0 = (0.6, 1 + 0 + 0.3) = (0.6, 1.3)
 *   "always 1":  V_1 = (0.4, 0),   V_0 = (0.8, 0)
 *   step 0 -> 0, step 1 -> 1: V_1 = (0.4, 0), V_0 = (0, 1 + 0.2 + 0) = (0, 1.2)
 *   uniform:     V_1 = (0.2, 0.3), V_0 = ((0.3 + 0.6)/2, (1.25 + 0.3)/2) = (0.45, 0.775)
 */
#include "testutil.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "sim/env.h"
#include "sim/eval.h"
#include "sim/policy.h"

#define TOL 1e-12

static struct bb_sim_env *two_state(void)
{
    struct bb_sim_env *e;
    assert_int_equal(bb_sim_env_alloc(2, 2, 4, 2, &e), BB_OK);
    for (int j = 0; j < 4; j++)
        e->phi[j * 4 + j] = 1.0; /* row (s, a) = j is e_j */
    const double theta[2][4] = {{0, 0.4, 1.0, 0}, {0, 0.4, 0.6, 0}};
    const double mu[4][2] = {{0, 1}, {1, 0}, {0.5, 0.5}, {0, 1}};
    for (int h = 0; h < 2; h++) {
        memcpy(e->theta + h * 4, theta[h], sizeof(theta[h]));
        memcpy(e->mu + h * 8, mu, sizeof(mu));
    }
    e->init[0] = 1.0;
    char why[256];
    assert_int_equal(bb_sim_env_finish(e, why, sizeof(why)), BB_OK);
    return e;
}

static void check_values(const double *V, const double *want /* V_0(0) V_0(1) V_1(0) V_1(1) */)
{
    assert_rel(V[0] + 1, want[0] + 1, TOL); /* +1: some values are exactly 0 */
    assert_rel(V[1] + 1, want[1] + 1, TOL);
    assert_rel(V[2] + 1, want[2] + 1, TOL);
    assert_rel(V[3] + 1, want[3] + 1, TOL);
    assert_true(V[4] == 0 && V[5] == 0); /* V_H = 0 */
}

static void test_optimal_by_hand(void **state)
{
    (void)state;
    struct bb_sim_env *e = two_state();
    double V[6];
    int pi[4];
    bb_sim_eval_optimal(e, V, pi);
    check_values(V, (const double[]){0.8, 1.5, 0.4, 0.6});
    assert_int_equal(pi[0], 1);
    assert_int_equal(pi[1], 0);
    assert_int_equal(pi[2], 1);
    assert_int_equal(pi[3], 0);
    assert_rel(bb_sim_eval_initial(e, V), 0.8, TOL);
    bb_sim_env_free(e);
}

static void test_policies_by_hand(void **state)
{
    (void)state;
    struct bb_sim_env *e = two_state();
    double V[6];
    const int always0[4] = {0, 0, 0, 0}, always1[4] = {1, 1, 1, 1}, mixed[4] = {0, 0, 1, 1};
    bb_sim_eval_policy(e, always0, NULL, V);
    check_values(V, (const double[]){0.6, 1.3, 0.0, 0.6});
    bb_sim_eval_policy(e, always1, NULL, V);
    check_values(V, (const double[]){0.8, 0.0, 0.4, 0.0});
    bb_sim_eval_policy(e, mixed, NULL, V); /* non-stationary */
    check_values(V, (const double[]){0.0, 1.2, 0.4, 0.0});
    /* Regret from the start state: V*_0(0) - V^pi_0(0) = 0.8 - 0 */
    double Vs[6];
    bb_sim_eval_optimal(e, Vs, NULL);
    assert_rel(bb_sim_eval_initial(e, Vs) - bb_sim_eval_initial(e, V), 0.8, TOL);
    bb_sim_eval_uniform(e, V);
    check_values(V, (const double[]){0.45, 0.775, 0.2, 0.3});
    /* A table of uniform entries is the uniform policy; one uniform entry
     * (step 0, state 1) mixes: (0.6 + 0.8 + ... ) by hand below. */
    const int all_uniform[4] = {BB_SIM_UNIFORM, BB_SIM_UNIFORM, BB_SIM_UNIFORM, BB_SIM_UNIFORM};
    bb_sim_eval_policy(e, all_uniform, NULL, V);
    check_values(V, (const double[]){0.45, 0.775, 0.2, 0.3});
    const int one_uniform[4] = {0, BB_SIM_UNIFORM, 0, 0};
    double Va[6], Vb[6];
    bb_sim_eval_policy(e, one_uniform, NULL, V);
    bb_sim_eval_policy(e, always0, NULL, Va);
    const int swap[4] = {0, 1, 0, 0};
    bb_sim_eval_policy(e, swap, NULL, Vb);
    assert_rel(V[1], (Va[1] + Vb[1]) / 2, TOL);
    assert_rel(V[0], Va[0], TOL);
    /* A set entry draws from its row only: both actions is the uniform
     * entry, action 1 alone is swap's; rows of other entries are not read. */
    const int one_set[4] = {0, BB_SIM_SET, 0, 0};
    unsigned char set[8] = {9, 9, 1, 1, 9, 9, 9, 9};
    double Vs2[6];
    bb_sim_eval_policy(e, one_set, set, Vs2);
    check_values(Vs2, V);
    set[2] = 0;
    bb_sim_eval_policy(e, one_set, set, Vs2);
    check_values(Vs2, Vb);
    bb_sim_env_free(e);
}

/* A billboard whose weights are Q*'s (w_h = Q*_h on the one-hot features)
 * with beta = 0 induces the optimal table; a bonus on one direction
 * overrides it exactly where the arithmetic says. */
static void test_billboard_table(void **state)
{
    (void)state;
    struct bb_sim_env *e = two_state();
    struct bb_billboard b;
    assert_int_equal(bb_billboard_init(&b, 2, 4, 2), BB_OK);
    const double w[8] = {0.6, 0.8, 1.5, 0.6, 0, 0.4, 0.6, 0};
    memcpy(b.w, w, sizeof(w));
    for (int h = 0; h < 2; h++)
        for (int j = 0; j < 4; j++)
            b.gram[h * 16 + j * 4 + j] = 1.0;
    b.beta = 0;
    assert_int_equal(bb_billboard_factor(&b), BB_OK);
    int pi[4];
    unsigned char set[8];
    double V[6];
    assert_int_equal(bb_sim_policy_table(e, &b, NULL, pi, set, NULL), BB_OK);
    assert_int_equal(pi[0], 1);
    assert_int_equal(pi[1], 0);
    assert_int_equal(pi[2], 1);
    assert_int_equal(pi[3], 0);
    bb_sim_eval_policy(e, pi, NULL, V);
    check_values(V, (const double[]){0.8, 1.5, 0.4, 0.6});
    /* The plausible set (bb_billboard_plausible): with Lambda = I the sd of a
     * one-hot action's Q is sigma_y. Step 0, state 0: Q = 0.6 and 0.8, so
     * action 0 joins once 0.6 + z 0.1 >= 0.8 - z 0.1, z >= 1; state 1
     * (1.5 against 0.6) needs z >= 4.5; step 1 has no noise. The entry is
     * then valued at the mean of its set's Q-values: (0.6 + 0.8) / 2. */
    b.sigma_y[0] = 0.1;
    b.plausible_z = 0.99;
    assert_int_equal(bb_sim_policy_table(e, &b, NULL, pi, set, NULL), BB_OK);
    assert_int_equal(pi[0], 1);
    b.plausible_z = 1.01;
    assert_int_equal(bb_sim_policy_table(e, &b, NULL, pi, set, NULL), BB_OK);
    assert_int_equal(pi[0], BB_SIM_SET);
    assert_true(set[0] == 1 && set[1] == 1);
    assert_int_equal(pi[1], 0);
    assert_int_equal(pi[2], 1);
    assert_int_equal(pi[3], 0);
    bb_sim_eval_policy(e, pi, set, V);
    check_values(V, (const double[]){0.7, 1.5, 0.4, 0.6});
    struct bb_rng rng;
    bb_rng_init_seeded(&rng, 3);
    int drawn[2] = {0, 0};
    for (int i = 0; i < 1000; i++)
        drawn[bb_sim_policy_action(e, pi, set, 0, 0, &rng)]++;
    assert_true(drawn[0] > 400 && drawn[1] > 400);
    assert_int_equal(bb_sim_policy_action(e, pi, set, 0, 1, &rng), 0);
    /* A known episode resolves the set entry with its key's direction for
     * step 1 (the larger of state 0's two coordinates), as a clinic does
     * (bb_billboard_act_episode), and keeps every other entry; the resolved
     * table is valued as the deterministic policy it is. */
    assert_true(bb_sim_has_set(e, pi));
    int resolved[4], picked[2] = {0, 0};
    double zs[4];
    for (int i = 0; i < 64; i++) {
        char key[16];
        snprintf(key, sizeof(key), "ep%d", i);
        assert_int_equal(bb_sim_policy_resolve(e, pi, set, NULL, key, resolved), BB_OK);
        assert_int_equal(bb_explore_direction(key, 1, 4, zs), BB_OK);
        assert_int_equal(resolved[0], zs[1] > zs[0] ? 1 : 0);
        assert_memory_equal(resolved + 1, pi + 1, sizeof(int) * 3);
        picked[resolved[0]]++;
    }
    assert_true(picked[0] > 10 && picked[1] > 10);
    resolved[0] = 0;
    bb_sim_eval_policy(e, resolved, NULL, V);
    check_values(V, (const double[]){0.6, 1.5, 0.4, 0.6});
    assert_false(bb_sim_has_set(e, resolved));
    /* The sample (bb_billboard_sample): every step-0 entry with noise is a
     * BB_SIM_SAMPLE, valued as its greedy action until resolved; a key
     * resolves each to the action bb_billboard_act_keyed gives for that
     * state; step 1, without noise, stays greedy. */
    b.plausible_z = 0;
    b.sample = 1;
    double sample[2 * 2 * 2 * 5];
    assert_int_equal(bb_sim_policy_table(e, &b, NULL, pi, set, sample), BB_OK);
    assert_true(pi[0] == BB_SIM_SAMPLE && pi[1] == BB_SIM_SAMPLE);
    assert_true(pi[2] == 1 && pi[3] == 0);
    assert_true(bb_sim_has_set(e, pi));
    bb_sim_eval_policy(e, pi, set, V);
    check_values(V, (const double[]){0.8, 1.5, 0.4, 0.6});
    int kept[2] = {0, 0};
    for (int i = 0; i < 64; i++) {
        char key[16];
        snprintf(key, sizeof(key), "ep%d", i);
        assert_int_equal(bb_sim_policy_resolve(e, pi, set, sample, key, resolved), BB_OK);
        for (int s = 0; s < 2; s++) {
            double q[2];
            int act;
            assert_int_equal(bb_billboard_act_keyed(&b, 1, bb_sim_env_features(e, s), key, q, &act),
                             BB_OK);
            assert_int_equal(resolved[s], act);
        }
        assert_true(resolved[2] == 1 && resolved[3] == 0);
        kept[resolved[0]]++;
    }
    /* state 0: 0.8 against 0.6 with sd 0.1 each, P(0) = Phi(-sqrt 2) = 0.079 */
    assert_true(kept[0] > 0 && kept[1] > 40);
    b.sample = 0;
    b.sigma_y[0] = 0;
    /* Lambda = 1/100 on direction 0 at step 0: bonus beta*10 = 1 there,
     * so Q_0(0,0) = min(0.6 + 1, H = 2) = 1.6 > 0.8: action 0 in state 0. */
    b.gram[0] = 0.01;
    b.beta = 0.1;
    assert_int_equal(bb_billboard_factor(&b), BB_OK);
    assert_int_equal(bb_sim_policy_table(e, &b, NULL, pi, set, NULL), BB_OK);
    assert_int_equal(pi[0], 0);
    bb_sim_eval_policy(e, pi, NULL, V);
    assert_rel(V[0] + 1, 0.6 + 1, TOL);
    /* A uniform billboard's table is uniform everywhere, valued as such. */
    b.uniform = 1;
    assert_int_equal(bb_sim_policy_table(e, &b, NULL, pi, set, NULL), BB_OK);
    for (int i = 0; i < 4; i++)
        assert_int_equal(pi[i], BB_SIM_UNIFORM);
    bb_sim_eval_policy(e, pi, NULL, V);
    check_values(V, (const double[]){0.45, 0.775, 0.2, 0.3});
    /* With an episode key it is that episode's random policies: in each
     * state and step the action whose one-hot coordinate of the key's
     * direction for that step is larger. */
    double z[4];
    int seen[2][2] = {{0}};
    for (int i = 0; i < 64; i++) {
        char key[16];
        snprintf(key, sizeof(key), "ep%d", i);
        assert_int_equal(bb_sim_policy_table(e, &b, key, pi, set, NULL), BB_OK);
        for (int h = 0; h < 2; h++) {
            assert_int_equal(bb_explore_direction(key, h + 1, 4, z), BB_OK);
            for (int s = 0; s < 2; s++) {
                int want = z[s * 2 + 1] > z[s * 2] ? 1 : 0;
                assert_int_equal(pi[h * 2 + s], want);
                seen[s][want] = 1;
            }
        }
    }
    assert_true(seen[0][0] && seen[0][1] && seen[1][0] && seen[1][1]);
    b.uniform = 0;
    /* Once there is data the key is not read. */
    int greedy[4];
    assert_int_equal(bb_sim_policy_table(e, &b, NULL, greedy, set, NULL), BB_OK);
    assert_int_equal(bb_sim_policy_table(e, &b, "ep0", pi, set, NULL), BB_OK);
    assert_memory_equal(pi, greedy, sizeof(pi));
    /* Sizes must match the environment. */
    struct bb_billboard other;
    assert_int_equal(bb_billboard_init(&other, 2, 4, 3), BB_OK);
    assert_int_equal(bb_sim_policy_table(e, &other, NULL, pi, set, NULL), BB_EINVAL);
    bb_billboard_release(&other);
    bb_billboard_release(&b);
    bb_sim_env_free(e);
}

/* Sampling follows the tables: deterministic moves always happen, the coin
 * of (1,0) lands near 1/2. */
static void test_sampling(void **state)
{
    (void)state;
    struct bb_sim_env *e = two_state();
    struct bb_rng rng;
    bb_rng_init_seeded(&rng, 7);
    int ones = 0;
    for (int i = 0; i < 10000; i++) {
        assert_int_equal(bb_sim_env_reset(e, &rng), 0);
        assert_int_equal(bb_sim_env_step(e, 0, 0, 0, &rng), 1);
        assert_int_equal(bb_sim_env_step(e, 1, 0, 1, &rng), 0);
        assert_int_equal(bb_sim_env_step(e, 0, 1, 1, &rng), 1);
        ones += bb_sim_env_step(e, 0, 1, 0, &rng);
    }
    /* Binomial(10000, 1/2): sd 50, so 4650..5350 is 7 sd. */
    assert_in_range(ones, 4650, 5350);
    bb_rng_release(&rng);
    bb_sim_env_free(e);
}

/* The built-in environments are valid linear MDPs the engine accepts. */
static void test_builtin_envs(void **state)
{
    (void)state;
    struct bb_sim_env *e;
    assert_int_equal(bb_sim_env_simplex(50, 5, 8, 5, 0.3, 1, &e), BB_OK);
    double *V = malloc(sizeof(double) * 6 * 50);
    assert_non_null(V);
    bb_sim_eval_optimal(e, V, NULL);
    assert_true(V[0] > 0 && V[0] <= 5);
    for (int i = 0; i < 50 * 5; i++) {
        double n2 = 0;
        for (int j = 0; j < 8; j++)
            n2 += e->phi[i * 8 + j] * e->phi[i * 8 + j];
        assert_true(n2 <= 1.0);
    }
    free(V);
    bb_sim_env_free(e);
    assert_int_equal(bb_sim_env_riverswim(6, 20, &e), BB_OK);
    assert_int_equal(e->d, 12);
    double Vr[21 * 6];
    int pi[20 * 6];
    bb_sim_eval_optimal(e, Vr, pi);
    /* With H = 20 swimming right pays: the optimal first action is right. */
    assert_int_equal(pi[0], 1);
    assert_true(Vr[0] > 20 * 0.005);
    bb_sim_env_free(e);
}

/* Where 2d < S the evaluator sums through the features (m = mu_h V_{h+1},
 * Q = r + phi^T m) instead of the dense rows of P: on such an environment
 * (S = 7, A = 3, d = 2, H = 3) its values must equal a plain backward
 * induction over env->trans, written out here, for a fixed table, uniform
 * entries, set entries and the optimal policy. */
static double dense_q(const struct bb_sim_env *e, int h, int s, int a, const double *next)
{
    const size_t sa = ((size_t)h * e->S + s) * e->A + a;
    double q = e->reward[sa];
    for (int t = 0; t < e->S; t++)
        q += e->trans[sa * e->S + t] * next[t];
    return q;
}

static void test_factored_matches_dense(void **state)
{
    (void)state;
    enum { S = 7, A = 3, D = 2, H = 3 };
    struct bb_sim_env *e;
    assert_int_equal(bb_sim_env_alloc(S, A, D, H, &e), BB_OK);
    for (int s = 0; s < S; s++)
        for (int a = 0; a < A; a++) { /* rows in the simplex: (w, 1 - w) */
            double w = (double)((3 * s + 5 * a) % 11) / 10.0;
            e->phi[(s * A + a) * D] = w;
            e->phi[(s * A + a) * D + 1] = 1.0 - w;
        }
    for (int h = 0; h < H; h++) {
        e->theta[h * D] = 0.1 * (h + 1);
        e->theta[h * D + 1] = 0.9 - 0.2 * h;
        for (int j = 0; j < D; j++) { /* each mu_h(j, .) a distribution */
            double sum = 0;
            for (int t = 0; t < S; t++)
                sum += e->mu[(h * D + j) * S + t] = 1.0 + (double)((t * (j + 2) + h) % 5);
            for (int t = 0; t < S; t++)
                e->mu[(h * D + j) * S + t] /= sum;
        }
    }
    e->init[2] = 1.0;
    char why[256];
    assert_int_equal(bb_sim_env_finish(e, why, sizeof(why)), BB_OK);
    int pi[H * S];
    unsigned char set[H * S * A];
    memset(set, 0, sizeof(set));
    for (int i = 0; i < H * S; i++) {
        pi[i] = i % 4 == 0 ? BB_SIM_UNIFORM : i % 4 == 1 ? BB_SIM_SET : i % 3;
        set[i * A] = set[i * A + 2] = 1;
    }
    double V[(H + 1) * S], W[(H + 1) * S], Vs[(H + 1) * S], Ws[(H + 1) * S];
    int pstar[H * S];
    bb_sim_eval_policy(e, pi, set, V);
    bb_sim_eval_optimal(e, Vs, pstar);
    memset(W + H * S, 0, sizeof(double) * S);
    memset(Ws + H * S, 0, sizeof(double) * S);
    for (int h = H - 1; h >= 0; h--)
        for (int s = 0; s < S; s++) {
            const int i = h * S + s;
            double v = 0, best = -1;
            int n = 0;
            for (int a = 0; a < A; a++) {
                double q = dense_q(e, h, s, a, W + (h + 1) * S);
                if (pi[i] == a || pi[i] == BB_SIM_UNIFORM || (pi[i] == BB_SIM_SET && set[i * A + a])) {
                    v += q;
                    n++;
                }
                double qs = dense_q(e, h, s, a, Ws + (h + 1) * S);
                if (qs > best)
                    best = qs;
            }
            W[i] = v / n;
            Ws[i] = best;
        }
    for (int i = 0; i < H * S; i++) {
        assert_rel(V[i], W[i], 1e-12);
        assert_rel(Vs[i], Ws[i], 1e-12);
    }
    bb_sim_env_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_optimal_by_hand), cmocka_unit_test(test_policies_by_hand),
        cmocka_unit_test(test_billboard_table), cmocka_unit_test(test_sampling),
        cmocka_unit_test(test_builtin_envs), cmocka_unit_test(test_factored_matches_dense),
    };
    return cmocka_run_group_tests_name("sim_eval", tests, NULL, NULL);
}
