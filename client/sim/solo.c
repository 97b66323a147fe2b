/*
 * solo.c — N clinics that each act alone (run.h, algo "solo").
 *
 * What a clinic gets without joining: non-private LSVI-UCB with Alg. 1's
 * update rule on its own patients only. Episode k goes to clinic k mod N,
 * the order in which the federated run's rounds hand out episodes, and the
 * environment and key streams are seeded as there, so the two runs meet the
 * same patients as far as the actions taken let them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "billboard/episode.h"
#include "engine/engine.h"
#include "eval.h"
#include "policy.h"
#include "run.h"

/* One clinic acting alone: its engine and the table of its current version. */
struct alone {
    struct bb_engine *eng;
    struct bb_sim_clinic buf;
    int *pi;            /* H*S, the table of version `cached` */
    unsigned char *set; /* H*S*A */
    double *vpi;        /* (H+1)*S, the table's exact values */
    uint64_t cached;
    int has_set;
    long switches;
};

static void alone_free(struct alone *c)
{
    bb_engine_free(c->eng);
    free(c->buf.features);
    free(c->buf.action);
    free(c->buf.reward);
    free(c->pi);
    free(c->set);
    free(c->vpi);
}

int bb_sim_run_solo(struct bb_sim_run *r, char *why, size_t whylen)
{
    const struct bb_sim_env *env = r->env;
    const int S = env->S, H = env->H, A = env->A, d = env->d;
    const long K = r->episodes;
    const int N = r->clinics < 1 ? 1 : r->clinics;
    struct bb_rng rng_engine, rng_env, rng_keys;
    struct alone *cl = NULL;
    double *vstar = NULL, *vpi_episode = NULL;
    int *pi_episode = NULL;
    int rc = BB_EINVAL;
    char field[128] = "";

    bb_sim_run_seed(r->seed, &rng_engine, &rng_env, &rng_keys);
    if (K < 1) {
        snprintf(why, whylen, "the number of episodes must be >= 1");
        goto out;
    }
    /* Each clinic's own K_max: the patients it will see. */
    struct bb_params base = r->base;
    base.K_max = (K + N - 1) / N;
    if ((rc = bb_sim_params(env, BB_SIM_SOLO, &base, base.K_max, &r->params, why, whylen)) !=
        BB_OK)
        goto out;
    rc = BB_ENOMEM;
    r->regret = calloc((size_t)K, sizeof(double));
    r->switches = calloc((size_t)K, sizeof(long));
    vstar = malloc(sizeof(double) * (size_t)(H + 1) * S);
    vpi_episode = malloc(sizeof(double) * (size_t)(H + 1) * S);
    pi_episode = malloc(sizeof(int) * (size_t)H * S);
    cl = calloc((size_t)N, sizeof(*cl));
    if (!r->regret || !r->switches || !vstar || !vpi_episode || !pi_episode || !cl)
        goto out;
    for (int c = 0; c < N; c++) {
        struct alone *a = &cl[c];
        a->buf.features = malloc(sizeof(double) * (size_t)H * A * d);
        a->buf.action = malloc(sizeof(int) * (size_t)H);
        a->buf.reward = malloc(sizeof(double) * (size_t)H);
        a->pi = malloc(sizeof(int) * (size_t)H * S);
        a->set = malloc((size_t)H * S * A);
        a->vpi = malloc(sizeof(double) * (size_t)(H + 1) * S);
        a->cached = UINT64_MAX;
        if (!a->buf.features || !a->buf.action || !a->buf.reward || !a->pi || !a->set || !a->vpi)
            goto out;
        /* Non-private: the engine draws no noise from the stream. */
        if ((rc = bb_engine_new(&r->params, &rng_engine, &a->eng)) != BB_OK) {
            snprintf(why, whylen, "cannot create clinic %d's engine: %s", c, bb_strerror(rc));
            goto out;
        }
        rc = BB_ENOMEM;
    }
    bb_sim_eval_optimal(env, vstar, NULL);
    r->v_star = bb_sim_eval_initial(env, vstar);

    double t0 = bb_sim_now();
    long step = K / 100 > 0 ? K / 100 : 1, next_report = step, switches = 0;
    for (long k = 0; k < K; k++) {
        struct alone *a = &cl[k % N];
        const struct bb_billboard *b = bb_engine_billboard(a->eng);
        const int *played = a->pi;
        const double *vpi = a->vpi;
        if (b->version != a->cached && !b->uniform) {
            if ((rc = bb_sim_policy_table(env, b, NULL, a->pi, a->set, NULL)) != BB_OK) {
                snprintf(why, whylen, "policy of clinic %ld's billboard %llu: %s", k % N,
                         (unsigned long long)b->version, bb_strerror(rc));
                goto out;
            }
            bb_sim_eval_policy(env, a->pi, a->set, a->vpi);
            a->has_set = bb_sim_has_set(env, a->pi);
            if (b->version != 0)
                a->switches++, switches++;
            a->cached = b->version;
        }
        if (b->uniform || a->has_set) { /* one table per episode, as in run.c */
            char key[65];
            bb_sim_episode_key(&rng_keys, key);
            rc = b->uniform ? bb_sim_policy_table(env, b, key, pi_episode, a->set, NULL)
                            : bb_sim_policy_resolve(env, a->pi, a->set, NULL, key, pi_episode);
            if (rc != BB_OK) {
                snprintf(why, whylen, "policy of episode %ld: %s", k, bb_strerror(rc));
                goto out;
            }
            played = pi_episode;
            bb_sim_eval_policy(env, played, a->set, vpi_episode);
            vpi = vpi_episode;
        }
        int x1 = bb_sim_policy_play(env, played, a->set, &rng_env, a->buf.features,
                                    a->buf.action, a->buf.reward);
        r->regret[k] = vstar[x1] - vpi[x1];
        r->switches[k] = switches;
        struct bb_episode ep = {a->buf.features, a->buf.action, a->buf.reward};
        if ((rc = bb_engine_add(a->eng, &ep, field, sizeof(field), why, whylen)) != BB_OK) {
            size_t l = strlen(why);
            snprintf(why + l, whylen - l, " (%s at episode %ld: %s)", field, k, bb_strerror(rc));
            goto out;
        }
        if (bb_engine_update_due(a->eng)) {
            rc = bb_engine_update(a->eng);
            if (rc == BB_ENOTPD) {
                r->notpd++;
            } else if (rc != BB_OK) {
                snprintf(why, whylen, "clinic %ld's update after episode %ld: %s", k % N, k,
                         bb_strerror(rc));
                goto out;
            }
        }
        if (r->progress && k + 1 >= next_report) {
            r->progress(r->progress_arg, k + 1, K);
            next_report = k + 1 + step;
        }
    }
    r->seconds = bb_sim_now() - t0;
    r->updates = 0;
    for (int c = 0; c < N; c++)
        r->updates += bb_engine_updates(cl[c].eng);
    rc = BB_OK;
out:
    if (rc != BB_OK)
        bb_sim_run_release(r);
    for (int c = 0; cl && c < N; c++)
        alone_free(&cl[c]);
    free(cl);
    free(vstar);
    free(vpi_episode);
    free(pi_episode);
    bb_rng_release(&rng_engine);
    bb_rng_release(&rng_env);
    bb_rng_release(&rng_keys);
    return rc;
}
