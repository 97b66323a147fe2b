/*
 * test_sim_sweep.c — the sweep harness of billboard-sim (client/sim/sweep.c)
 * on a small simplex MDP, against the real engine.
 *
 * Checks that the results do not depend on the number of worker processes,
 * that every run is paired with the random policy on the same environment
 * and seed (recomputed here by a run of its own), and that a combination
 * the engine refuses is skipped and reported while the others still run.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "sim/env.h"
#include "sim/run.h"
#include "sim/sweep.h"

#define EPISODES 600

static int make_env(const void *ctx, long seed, struct bb_sim_env **out)
{
    (void)ctx;
    return bb_sim_env_simplex(12, 3, 4, 3, 0.3, (uint64_t)seed, out);
}

static void setup_sweep(struct bb_sim_sweep *s, int jobs)
{
    memset(s, 0, sizeof(*s));
    bb_params_defaults(&s->base);
    s->base.K_max = 10000;
    s->algo = BB_SIM_PRIVATE;
    s->eps[s->neps++] = 10;
    s->env_seed[s->nenv++] = 2;
    s->env_seed[s->nenv++] = 3;
    s->seed[s->nseed++] = 1;
    s->episodes = EPISODES;
    s->jobs = jobs;
    s->make_env = make_env;
}

/* Runs s; returns the CSV and the table (caller frees). */
static void run_sweep(const struct bb_sim_sweep *s, char **csv, char **md)
{
    size_t ncsv = 0, nmd = 0;
    FILE *fc = open_memstream(csv, &ncsv), *fm = open_memstream(md, &nmd);
    assert_non_null(fc);
    assert_non_null(fm);
    char why[256] = "";
    int rc = bb_sim_sweep_run(s, fc, fm, why, sizeof(why));
    fclose(fc);
    fclose(fm);
    if (rc != BB_OK)
        fail_msg("sweep: %s", why);
}

static long lines(const char *s)
{
    long n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void test_jobs_do_not_change_results(void **state)
{
    (void)state;
    char spec[] = "beta=1,2";
    struct bb_sim_sweep a, b;
    char why[256], *csv1, *md1, *csv2, *md2;
    setup_sweep(&a, 1);
    assert_int_equal(bb_sim_sweep_axis(&a, spec, why, sizeof(why)), BB_OK);
    b = a;
    b.jobs = 2;
    run_sweep(&a, &csv1, &md1);
    run_sweep(&b, &csv2, &md2);
    assert_string_equal(csv1, csv2);
    assert_string_equal(md1, md2);
    assert_int_equal(lines(csv1), 1 + 2 * 2); /* header + 2 configurations x 2 environments */
    assert_non_null(strstr(md1, "| 10 | --beta 1 |"));
    assert_non_null(strstr(md1, "| 10 | --beta 2 |"));
    free(csv1), free(md1), free(csv2), free(md2);
}

/* The random column is the random policy's regret on the same environment
 * and seed, and the ratio is regret / random. */
static void test_paired_with_random(void **state)
{
    (void)state;
    char spec[] = "beta=1";
    struct bb_sim_sweep s;
    char why[256], *csv, *md;
    setup_sweep(&s, 2);
    assert_int_equal(bb_sim_sweep_axis(&s, spec, why, sizeof(why)), BB_OK);
    run_sweep(&s, &csv, &md);

    struct bb_sim_env *env;
    assert_int_equal(make_env(NULL, 3, &env), BB_OK);
    struct bb_sim_run u = {0};
    u.env = env;
    u.algo = BB_SIM_RANDOM;
    bb_params_defaults(&u.base);
    u.episodes = EPISODES;
    u.clinics = 1;
    u.seed = 1;
    assert_int_equal(bb_sim_run_inprocess(&u, why, sizeof(why)), BB_OK);
    double want = 0;
    for (long k = 0; k < EPISODES; k++)
        want += u.regret[k];
    bb_sim_run_release(&u);
    bb_sim_env_free(env);

    const char *row = strstr(csv, "\"--beta 1\",10,3,1,");
    assert_non_null(row);
    double regret = 0, random = 0, ratio = 0;
    assert_int_equal(sscanf(row + strlen("\"--beta 1\",10,3,1,"), "%lf,%lf,%lf", &regret, &random,
                            &ratio),
                     3);
    assert_rel(random, want, 1e-5); /* the CSV keeps 6 significant digits */
    assert_rel(ratio, regret / random, 1e-5);
    free(csv), free(md);
}

/* The worst seed beside the mean: the largest ratio of the CSV's rows of
 * that configuration, and the seeds that made it. */
static void test_worst_seed(void **state)
{
    (void)state;
    char spec[] = "beta=1";
    struct bb_sim_sweep s;
    char why[256], *csv, *md;
    setup_sweep(&s, 2);
    s.seed[s.nseed++] = 2; /* 2 environments x 2 run seeds */
    assert_int_equal(bb_sim_sweep_axis(&s, spec, why, sizeof(why)), BB_OK);
    run_sweep(&s, &csv, &md);
    double worst = -1, sum = 0;
    long wenv = -1, wseed = -1;
    const char *p = strchr(csv, '\n') + 1;
    for (int i = 0; i < 4; i++) {
        long env, seed;
        double regret, random, ratio;
        assert_int_equal(sscanf(p, "\"--beta 1\",10,%ld,%ld,%lf,%lf,%lf", &env, &seed, &regret,
                                &random, &ratio),
                         5);
        sum += ratio;
        if (ratio > worst)
            worst = ratio, wenv = env, wseed = seed;
        p = strchr(p, '\n') + 1;
    }
    char want[128];
    snprintf(want, sizeof(want), "| 10 | --beta 1 | %.3f | %.3f (env %ld, seed %ld) |", sum / 4,
             worst, wenv, wseed);
    if (!strstr(md, want))
        fail_msg("want %s in\n%s", want, md);
    assert_non_null(strstr(md, "| regret / random, mean | worst seed |"));
    free(csv), free(md);
}

/* --max-updates above the bound the grid implies is refused by the engine:
 * that combination is listed as skipped, the rest of the sweep runs. */
static void test_refused_combination_is_skipped(void **state)
{
    (void)state;
    char spec[] = "max-updates=2,100000";
    struct bb_sim_sweep s;
    char why[256], *csv, *md;
    setup_sweep(&s, 2);
    assert_int_equal(bb_sim_sweep_axis(&s, spec, why, sizeof(why)), BB_OK);
    run_sweep(&s, &csv, &md);
    assert_int_equal(lines(csv), 1 + 2);
    assert_null(strstr(csv, "100000"));
    assert_non_null(strstr(md, "| 10 | --max-updates 2 |"));
    assert_non_null(strstr(md, "skipped: ε = 10, --max-updates 100000: max updates 100000 exceeds"));
    free(csv), free(md);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jobs_do_not_change_results),
        cmocka_unit_test(test_paired_with_random),
        cmocka_unit_test(test_refused_combination_is_skipped),
        cmocka_unit_test(test_worst_seed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
