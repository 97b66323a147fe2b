/*
 * test_sim_solo.c — billboard-sim's "solo" algorithm (issue 29): N clinics
 * that each act alone with non-private LSVI-UCB on their own patients,
 * in-process against the real engine.
 *
 * One clinic alone is the non-private rare-switching run of the same seed,
 * episode for episode; with as many clinics as patients no clinic ever acts
 * on data; and ten clinics alone lose more per patient than the same ten
 * pooling their data (non-private), since each learns from a tenth.
 */
#include "testutil.h"

#include <string.h>

#include "sim/env.h"
#include "sim/run.h"

static void run(struct bb_sim_run *r, const struct bb_sim_env *env, enum bb_sim_algo algo,
                long episodes, int clinics)
{
    memset(r, 0, sizeof(*r));
    r->env = env;
    r->algo = algo;
    bb_params_defaults(&r->base);
    r->base.beta = 2.0;
    r->episodes = episodes;
    r->clinics = clinics;
    r->seed = 3;
    char why[256] = "";
    int rc = bb_sim_run_inprocess(r, why, sizeof(why));
    if (rc != BB_OK)
        fail_msg("%s: %s", bb_sim_algo_name(algo), why);
}

static double total(const struct bb_sim_run *r)
{
    double s = 0;
    for (long k = 0; k < r->episodes; k++)
        s += r->regret[k];
    return s;
}

static void test_one_clinic_alone_is_lsvi_ucb(void **state)
{
    (void)state;
    struct bb_sim_env *env;
    assert_int_equal(bb_sim_env_simplex(50, 5, 8, 5, 0.3, 1, &env), BB_OK);
    struct bb_sim_run a, b;
    run(&a, env, BB_SIM_SOLO, 3000, 1);
    run(&b, env, BB_SIM_LSVI_UCB_RARE, 3000, 1);
    assert_false(a.params.is_private);
    assert_int_equal(a.params.K_max, 3000);
    assert_memory_equal(a.regret, b.regret, sizeof(double) * 3000);
    assert_int_equal(a.updates, b.updates);
    assert_int_equal(a.switches[2999], b.switches[2999]);
    assert_true(a.switches[2999] > 0);
    bb_sim_run_release(&a);
    bb_sim_run_release(&b);
    bb_sim_env_free(env);
}

static void test_one_patient_each_never_learns(void **state)
{
    (void)state;
    struct bb_sim_env *env;
    assert_int_equal(bb_sim_env_simplex(50, 5, 8, 5, 0.3, 1, &env), BB_OK);
    struct bb_sim_run a;
    run(&a, env, BB_SIM_SOLO, 200, 200);
    assert_int_equal(a.params.K_max, 1);
    /* Each clinic's only episode is played on its version 0. */
    assert_int_equal(a.switches[199], 0);
    bb_sim_run_release(&a);
    bb_sim_env_free(env);
}

static void test_alone_loses_to_pooled(void **state)
{
    (void)state;
    struct bb_sim_env *env;
    assert_int_equal(bb_sim_env_simplex(50, 5, 8, 5, 0.3, 1, &env), BB_OK);
    struct bb_sim_run alone, pooled;
    run(&alone, env, BB_SIM_SOLO, 10000, 10);
    run(&pooled, env, BB_SIM_LSVI_UCB_RARE, 10000, 10);
    /* Ten engines, each with a tenth of the patients (K_max 1000). */
    assert_int_equal(alone.params.K_max, 1000);
    assert_true(alone.updates > pooled.updates);
    assert_true(total(&alone) > 3 * total(&pooled));
    bb_sim_run_release(&alone);
    bb_sim_run_release(&pooled);
    bb_sim_env_free(env);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_clinic_alone_is_lsvi_ucb),
        cmocka_unit_test(test_one_patient_each_never_learns),
        cmocka_unit_test(test_alone_loses_to_pooled),
    };
    return cmocka_run_group_tests_name("sim_solo", tests, NULL, NULL);
}
