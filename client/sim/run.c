/*
 * run.c — K episodes from N clinics against the engine, in-process (run.h).
 */
#include "run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "billboard/episode.h"
#include "engine/engine.h"
#include "eval.h"
#include "policy.h"

static const char *const algo_names[BB_SIM_NALGO] = {"lsvi-ucb", "lsvi-ucb-rare", "private",
                                                     "paper", "random", "solo"};

const char *bb_sim_algo_name(enum bb_sim_algo a)
{
    return a >= 0 && a < BB_SIM_NALGO ? algo_names[a] : "?";
}

int bb_sim_algo_parse(const char *name, enum bb_sim_algo *out)
{
    for (int i = 0; i < BB_SIM_NALGO; i++)
        if (strcmp(name, algo_names[i]) == 0) {
            *out = (enum bb_sim_algo)i;
            return BB_OK;
        }
    return BB_EINVAL;
}

int bb_sim_env_in(const struct bb_sim_env *env, enum bb_features set)
{
    struct bb_params q;
    bb_params_defaults(&q);
    q.d = env->d;
    q.features = set;
    for (int s = 0; s < env->S; s++)
        for (int a = 0; a < env->A; a++)
            if (!bb_params_feature_row_ok(&q, bb_sim_env_features(env, s) + (size_t)a * env->d,
                                          NULL, 0))
                return 0;
    return 1;
}

enum bb_features bb_sim_env_domain(const struct bb_sim_env *env)
{
    if (bb_sim_env_in(env, BB_FEATURES_ONEHOT))
        return BB_FEATURES_ONEHOT;
    return bb_sim_env_in(env, BB_FEATURES_SIMPLEX) ? BB_FEATURES_SIMPLEX : BB_FEATURES_BALL;
}

int bb_sim_params(const struct bb_sim_env *env, enum bb_sim_algo algo, const struct bb_params *base,
                  long episodes, struct bb_params *p, char *why, size_t whylen)
{
    *p = *base;
    if (p->features == BB_FEATURES_AUTO)
        p->features = bb_sim_env_domain(env);
    p->H = env->H;
    p->d = env->d;
    p->A = env->A;
    if (p->K_max <= 0)
        p->K_max = episodes;
    switch (algo) {
    case BB_SIM_PRIVATE:
    case BB_SIM_PAPER:
        if (p->rho == 0 && !(p->epsilon > 0)) {
            if (why && whylen)
                snprintf(why, whylen, "%s needs --epsilon or --rho", bb_sim_algo_name(algo));
            return BB_EINVAL;
        }
        p->calibration = algo == BB_SIM_PAPER ? BB_CAL_PAPER : BB_CAL_CORRECTED;
        p->update_rule = BB_UPDATE_RARE;
        if (algo == BB_SIM_PAPER) { /* the paper's construction as printed */
            p->mechanism = BB_MECH_TREE;
            p->shift_bound = BB_BOUND_PAPER;
            p->shift_scale = 1;
            p->value_clip = BB_VCLIP_HORIZON;
            p->prior_policy = BB_PRIOR_GREEDY;
            p->gram_share = 0.5;
        }
        break;
    default:
        p->rho = INFINITY;
        p->epsilon = 0;
        p->calibration = BB_CAL_CORRECTED;
        p->update_rule = algo == BB_SIM_LSVI_UCB ? BB_UPDATE_EVERY : BB_UPDATE_RARE;
        break;
    }
    return bb_params_derive(p, why, whylen);
}

void bb_sim_run_release(struct bb_sim_run *r)
{
    free(r->regret);
    free(r->switches);
    r->regret = NULL;
    r->switches = NULL;
}

void bb_sim_run_seed(uint64_t seed, struct bb_rng *engine, struct bb_rng *env, struct bb_rng *keys)
{
    bb_rng_init_seeded(engine, seed);
    bb_rng_init_seeded(env, seed ^ 0x9e3779b97f4a7c15ULL);
    bb_rng_init_seeded(keys, seed ^ 0x6a09e667f3bcc909ULL);
}

double bb_sim_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int bb_sim_play(const struct bb_sim_env *env, const int *pi, const unsigned char *set,
                struct bb_rng *rng, struct bb_sim_clinic *c)
{
    const int S = env->S, A = env->A, d = env->d;
    const size_t ad = (size_t)A * d;
    int x1 = bb_sim_env_reset(env, rng), s = x1;
    for (int h = 0; h < env->H; h++) {
        int a = bb_sim_policy_action(env, pi, set, h, s, rng);
        memcpy(c->features + h * ad, bb_sim_env_features(env, s), sizeof(double) * ad);
        c->action[h] = a;
        c->reward[h] = env->reward[((size_t)h * S + s) * A + a];
        s = bb_sim_env_step(env, h, s, a, rng);
    }
    return x1;
}

int bb_sim_run_inprocess(struct bb_sim_run *r, char *why, size_t whylen)
{
    const struct bb_sim_env *env = r->env;
    const int S = env->S, H = env->H;
    const long K = r->episodes;
    const int N = r->clinics < 1 ? 1 : r->clinics;
    struct bb_engine *eng = NULL;
    struct bb_rng rng_engine, rng_env, rng_keys;
    struct bb_sim_clinic *cl = NULL;
    double *vstar = NULL, *vpi = NULL;
    int *pi = NULL, *pi_episode = NULL, has_set = 0;
    unsigned char *set = NULL;
    int rc = BB_EINVAL;
    char field[128] = "";

    if (r->algo == BB_SIM_SOLO)
        return bb_sim_run_solo(r, why, whylen);
    bb_sim_run_seed(r->seed, &rng_engine, &rng_env, &rng_keys);
    if (K < 1) {
        snprintf(why, whylen, "the number of episodes must be >= 1");
        goto out;
    }
    if ((rc = bb_sim_params(env, r->algo, &r->base, K, &r->params, why, whylen)) != BB_OK)
        goto out;
    rc = BB_ENOMEM;
    r->regret = calloc((size_t)K, sizeof(double));
    r->switches = calloc((size_t)K, sizeof(long));
    vstar = malloc(sizeof(double) * (size_t)(H + 1) * S);
    vpi = malloc(sizeof(double) * (size_t)(H + 1) * S);
    pi = malloc(sizeof(int) * (size_t)H * S);
    pi_episode = malloc(sizeof(int) * (size_t)H * S);
    set = malloc((size_t)H * S * env->A);
    cl = calloc((size_t)N, sizeof(*cl));
    if (!r->regret || !r->switches || !vstar || !vpi || !pi || !pi_episode || !set || !cl)
        goto out;
    for (int c = 0; c < N; c++) {
        cl[c].features = malloc(sizeof(double) * (size_t)H * env->A * env->d);
        cl[c].action = malloc(sizeof(int) * (size_t)H);
        cl[c].reward = malloc(sizeof(double) * (size_t)H);
        if (!cl[c].features || !cl[c].action || !cl[c].reward)
            goto out;
    }
    bb_sim_eval_optimal(env, vstar, NULL);
    r->v_star = bb_sim_eval_initial(env, vstar);
    if (r->algo == BB_SIM_RANDOM) {
        bb_sim_eval_uniform(env, vpi);
    } else if ((rc = bb_engine_new(&r->params, &rng_engine, &eng)) != BB_OK) {
        snprintf(why, whylen, "cannot create the engine: %s", bb_strerror(rc));
        goto out;
    }

    double t0 = bb_sim_now();
    uint64_t cached = UINT64_MAX;
    long switches = 0, step = K / 100 > 0 ? K / 100 : 1, next_report = step;
    for (long k = 0; k < K;) {
        const int *table = NULL;
        if (eng) {
            /* Alg. 1 line 17: every clinic of the round acts on the
             * current billboard; its table and exact value, once per version
             * (per episode while it holds no data, below). */
            const struct bb_billboard *b = bb_engine_billboard(eng);
            if (b->version != cached && !b->uniform) {
                if ((rc = bb_sim_policy_table(env, b, NULL, pi, set)) != BB_OK) {
                    snprintf(why, whylen, "policy of billboard %llu: %s",
                             (unsigned long long)b->version, bb_strerror(rc));
                    goto out;
                }
                bb_sim_eval_policy(env, pi, set, vpi);
                has_set = bb_sim_has_set(env, pi);
                if (b->version != 0)
                    switches++;
                cached = b->version;
            }
            table = pi;
        }
        long n = K - k < N ? K - k : N;
        for (long c = 0; c < n; c++) {
            const struct bb_billboard *b = eng ? bb_engine_billboard(eng) : NULL;
            const int *played = table;
            if (b && (b->uniform || has_set)) {
                /* One table per episode, valued exactly: with no data yet,
                 * the random policies the clinic's episode draws
                 * (proto/explore.c); after an update, its key's picks from
                 * the plausible sets (bb_billboard_act_episode). */
                char key[65];
                bb_sim_episode_key(&rng_keys, key);
                rc = b->uniform ? bb_sim_policy_table(env, b, key, pi, set)
                                : bb_sim_policy_resolve(env, pi, set, key, pi_episode);
                if (rc != BB_OK) {
                    snprintf(why, whylen, "policy of episode %ld: %s", k + c, bb_strerror(rc));
                    goto out;
                }
                played = b->uniform ? pi : pi_episode;
                bb_sim_eval_policy(env, played, set, vpi);
                if (b->uniform)
                    cached = b->version;
            }
            int x1 = bb_sim_play(env, played, set, &rng_env, &cl[c]);
            r->regret[k + c] = vstar[x1] - vpi[x1];
            r->switches[k + c] = switches;
        }
        for (long c = 0; eng && c < n; c++) {
            struct bb_episode ep = {cl[c].features, cl[c].action, cl[c].reward};
            if ((rc = bb_engine_add(eng, &ep, field, sizeof(field), why, whylen)) != BB_OK) {
                size_t l = strlen(why);
                snprintf(why + l, whylen - l, " (%s at episode %ld: %s)", field, k + c,
                         bb_strerror(rc));
                goto out;
            }
            if (bb_engine_update_due(eng)) {
                rc = bb_engine_update(eng);
                if (rc == BB_ENOTPD) {
                    r->notpd++; /* the event of probability <= p: keep the old policy */
                } else if (rc != BB_OK) {
                    snprintf(why, whylen, "update after episode %ld: %s", k + c, bb_strerror(rc));
                    goto out;
                }
            }
        }
        k += n;
        if (r->progress && k >= next_report) {
            r->progress(r->progress_arg, k, K);
            next_report = k + step;
        }
    }
    r->seconds = bb_sim_now() - t0;
    r->updates = eng ? bb_engine_updates(eng) : 0;
    rc = BB_OK;
out:
    if (rc != BB_OK)
        bb_sim_run_release(r);
    for (int c = 0; cl && c < N; c++) {
        free(cl[c].features);
        free(cl[c].action);
        free(cl[c].reward);
    }
    free(cl);
    free(vstar);
    free(vpi);
    free(pi);
    free(pi_episode);
    free(set);
    bb_engine_free(eng);
    bb_rng_release(&rng_engine);
    bb_rng_release(&rng_env);
    bb_rng_release(&rng_keys);
    return rc;
}
