/*
 * test_sim_learn.c — the acceptance test of issue 4 that non-private
 * LSVI-UCB learns, in-process against the real engine (no mocks).
 *
 * Setting: the random simplex MDP S = 50, A = 5, d = 8, H = 5 (Dirichlet
 * concentration 0.3, environment seed 1), run seed 1, beta = 2, one clinic,
 * 20,000 episodes. The algorithm is "lsvi-ucb-rare": non-private LSVI-UCB
 * (rho = inf, ridge 1) with Alg. 1's determinant-doubling update rule. The
 * every-episode variant is the same estimator refreshed after every
 * episode; each refresh is an LSVI pass over all past episodes, so 20,000
 * episodes cost O(K^2) (measured: 4,000 episodes took 8.7 s, about 460
 * episodes/s, so 20,000 would take minutes) — too slow for `make test`.
 * beta = 2 comes from the sweep in docs/RESULTS.md: with beta <= 1 the
 * bonus of an unexplored first-step action (beta ||phi||, ||phi|| ~ 0.5)
 * stays below the value of the known one (V* = 1.13) and learning stalls.
 *
 * Accepted when the mean per-episode regret of the last tenth is at most
 * half that of the first tenth and at most a third of the uniformly random
 * policy's.
 */
#include "testutil.h"

#include <string.h>

#include "sim/env.h"
#include "sim/run.h"

#define K 20000

static double mean(const double *x, long from, long to)
{
    double s = 0;
    for (long i = from; i < to; i++)
        s += x[i];
    return s / (double)(to - from);
}

static void run(struct bb_sim_run *r, const struct bb_sim_env *env, enum bb_sim_algo algo,
                long episodes, int clinics, double epsilon)
{
    memset(r, 0, sizeof(*r));
    r->env = env;
    r->algo = algo;
    bb_params_defaults(&r->base);
    r->base.beta = 2.0;
    r->base.epsilon = epsilon;
    r->episodes = episodes;
    r->clinics = clinics;
    r->seed = 1;
    char why[256] = "";
    int rc = bb_sim_run_inprocess(r, why, sizeof(why));
    if (rc != BB_OK)
        fail_msg("%s: %s", bb_sim_algo_name(algo), why);
}

static void test_lsvi_ucb_learns(void **state)
{
    (void)state;
    struct bb_sim_env *env;
    assert_int_equal(bb_sim_env_simplex(50, 5, 8, 5, 0.3, 1, &env), BB_OK);
    struct bb_sim_run learn, rnd;
    run(&learn, env, BB_SIM_LSVI_UCB_RARE, K, 1, 0);
    run(&rnd, env, BB_SIM_RANDOM, K, 1, 0);
    double first = mean(learn.regret, 0, K / 10), last = mean(learn.regret, K - K / 10, K);
    double random = mean(rnd.regret, 0, K);
    print_message("lsvi-ucb-rare beta=2: first tenth %.4f, last tenth %.4f, random %.4f, "
                  "switches %ld, %.0f episodes/s\n",
                  first, last, random, learn.switches[K - 1], K / learn.seconds);
    assert_true(last <= 0.5 * first);
    assert_true(last <= random / 3.0);
    /* Every version used was an update the curator made, and it switched
     * rarely: far fewer than K times. */
    assert_int_equal(learn.switches[K - 1], learn.updates);
    assert_true(learn.updates < 500);
    /* Exact regrets are never negative (V* is optimal). */
    for (long k = 0; k < K; k++)
        assert_true(learn.regret[k] >= -1e-12);
    bb_sim_run_release(&learn);
    bb_sim_run_release(&rnd);
    bb_sim_env_free(env);
}

/* A fixed seed reproduces the run exactly; the private algorithm with three
 * concurrent clinics runs, never exceeds N_max, and its switches are the
 * versions the clinics acted on (at most the updates made and the warm
 * billboards before them, docs/PRIVACY.md §2.5). */
static void test_reproducible_and_private(void **state)
{
    (void)state;
    struct bb_sim_env *env;
    assert_int_equal(bb_sim_env_simplex(50, 5, 8, 5, 0.3, 1, &env), BB_OK);
    struct bb_sim_run a, b;
    run(&a, env, BB_SIM_PRIVATE, 2000, 3, 10);
    run(&b, env, BB_SIM_PRIVATE, 2000, 3, 10);
    assert_memory_equal(a.regret, b.regret, sizeof(double) * 2000);
    assert_true(a.params.is_private);
    assert_true(a.updates <= a.params.max_updates);
    assert_true(a.switches[1999] <= a.updates + a.params.warm_points);
    /* Three clinics share each round's billboard. */
    for (long k = 0; k + 2 < 2000; k += 3)
        assert_true(a.switches[k] == a.switches[k + 2]);
    bb_sim_run_release(&a);
    bb_sim_run_release(&b);
    bb_sim_env_free(env);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lsvi_ucb_learns),
        cmocka_unit_test(test_reproducible_and_private),
    };
    return cmocka_run_group_tests_name("sim_learn", tests, NULL, NULL);
}
