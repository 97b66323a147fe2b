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
    q.A = env->A;
    for (int s = 0; s < env->S; s++)
        if (!bb_params_state_ok(&q, bb_sim_env_features(env, s), NULL, NULL, NULL, 0))
            return 0;
    return 1;
}

enum bb_features bb_sim_env_domain(const struct bb_sim_env *env)
{
    if (bb_sim_env_in(env, BB_FEATURES_TABULAR))
        return BB_FEATURES_TABULAR;
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
        /* The algorithm names the calibration: a private run may not have
         * the paper's (billboardd refuses to serve it), and --algo paper is
         * the paper's construction whatever the options say. */
        if (algo == BB_SIM_PRIVATE && p->calibration != BB_CAL_CORRECTED) {
            if (why && whylen)
                snprintf(why, whylen, "--calibration paper: that is --algo paper");
            return BB_EINVAL;
        }
        p->calibration = algo == BB_SIM_PAPER ? BB_CAL_PAPER : BB_CAL_CORRECTED;
        if (algo == BB_SIM_PAPER) { /* the paper's construction as printed */
            p->update_rule = BB_UPDATE_RARE;
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

/* The working state of one in-process run: the engine, the generators,
 * the clinics' buffers, the exact values and the policy tables. */
struct inproc {
    const struct bb_sim_env *env;
    int N; /* clinics per round */
    struct bb_engine *eng;
    struct bb_rng rng_engine, rng_env, rng_keys;
    struct bb_sim_clinic *cl;
    double *vstar, *vpi;
    int *pi, *pi_episode, has_set;
    unsigned char *set;
    double *sample; /* bb_sim_sample_size */
    uint64_t cached; /* the billboard version pi is the table of */
    long switches;
};

static void inproc_release(struct inproc *w)
{
    for (int c = 0; w->cl && c < w->N; c++) {
        free(w->cl[c].features);
        free(w->cl[c].action);
        free(w->cl[c].reward);
    }
    free(w->cl);
    free(w->vstar);
    free(w->vpi);
    free(w->pi);
    free(w->pi_episode);
    free(w->set);
    free(w->sample);
    bb_engine_free(w->eng);
    bb_rng_release(&w->rng_engine);
    bb_rng_release(&w->rng_env);
    bb_rng_release(&w->rng_keys);
}

/* Allocates w's buffers for env and N clinics. BB_OK or BB_ENOMEM. */
static int inproc_alloc(struct inproc *w)
{
    const struct bb_sim_env *env = w->env;
    const int S = env->S, H = env->H;
    w->vstar = malloc(sizeof(double) * (size_t)(H + 1) * S);
    w->vpi = malloc(sizeof(double) * (size_t)(H + 1) * S);
    w->pi = malloc(sizeof(int) * (size_t)H * S);
    w->pi_episode = malloc(sizeof(int) * (size_t)H * S);
    w->set = malloc((size_t)H * S * env->A);
    w->sample = malloc(sizeof(double) * bb_sim_sample_size(env));
    w->cl = calloc((size_t)w->N, sizeof(*w->cl));
    if (!w->vstar || !w->vpi || !w->pi || !w->pi_episode || !w->set || !w->sample || !w->cl)
        return BB_ENOMEM;
    for (int c = 0; c < w->N; c++) {
        w->cl[c].features = malloc(sizeof(double) * (size_t)H * env->A * env->d);
        w->cl[c].action = malloc(sizeof(int) * (size_t)H);
        w->cl[c].reward = malloc(sizeof(double) * (size_t)H);
        if (!w->cl[c].features || !w->cl[c].action || !w->cl[c].reward)
            return BB_ENOMEM;
    }
    return BB_OK;
}

/* Alg. 1 line 17: every clinic of the round acts on the current billboard;
 * its table and exact value, once per version (per episode while it holds
 * no data, play_round). BB_OK or the error, said in why. */
static int refresh_policy(struct inproc *w, char *why, size_t whylen)
{
    const struct bb_billboard *b = bb_engine_billboard(w->eng);
    if (b->version == w->cached || b->uniform)
        return BB_OK;
    int rc = bb_sim_policy_table(w->env, b, NULL, w->pi, w->set, w->sample);
    if (rc != BB_OK) {
        snprintf(why, whylen, "policy of billboard %llu: %s", (unsigned long long)b->version,
                 bb_strerror(rc));
        return rc;
    }
    bb_sim_eval_policy(w->env, w->pi, w->set, w->vpi);
    w->has_set = bb_sim_has_set(w->env, w->pi);
    if (b->version != 0)
        w->switches++;
    w->cached = b->version;
    return BB_OK;
}

/* Episodes k..k+n-1, one per clinic, with their regret and switch counts
 * into r. BB_OK or the error, said in why. */
static int play_round(struct inproc *w, struct bb_sim_run *r, long k, long n, char *why,
                      size_t whylen)
{
    const int *table = w->eng ? w->pi : NULL;
    for (long c = 0; c < n; c++) {
        const struct bb_billboard *b = w->eng ? bb_engine_billboard(w->eng) : NULL;
        const int *played = table;
        if (b && (b->uniform || w->has_set)) {
            /* One table per episode, valued exactly: with no data yet,
             * the random policies the clinic's episode draws
             * (proto/explore.c); after an update, its key's picks from
             * the plausible sets (bb_billboard_act_episode). */
            char key[65];
            bb_sim_episode_key(&w->rng_keys, key);
            int rc = b->uniform ? bb_sim_policy_table(w->env, b, key, w->pi, w->set, w->sample)
                                : bb_sim_policy_resolve(w->env, w->pi, w->set, w->sample, key,
                                                        w->pi_episode);
            if (rc != BB_OK) {
                snprintf(why, whylen, "policy of episode %ld: %s", k + c, bb_strerror(rc));
                return rc;
            }
            played = b->uniform ? w->pi : w->pi_episode;
            bb_sim_eval_policy(w->env, played, w->set, w->vpi);
            if (b->uniform)
                w->cached = b->version;
        }
        int x1 = bb_sim_policy_play(w->env, played, w->set, &w->rng_env, w->cl[c].features,
                                    w->cl[c].action, w->cl[c].reward);
        r->regret[k + c] = w->vstar[x1] - w->vpi[x1];
        r->switches[k + c] = w->switches;
    }
    return BB_OK;
}

/* Hands the round's n episodes to the engine, updating when due (Alg. 1
 * line 6). BB_OK or the error, said in why. */
static int feed_round(struct inproc *w, struct bb_sim_run *r, long k, long n, char *why,
                      size_t whylen)
{
    char field[128] = "";
    for (long c = 0; c < n; c++) {
        struct bb_episode ep = {w->cl[c].features, w->cl[c].action, w->cl[c].reward};
        int rc = bb_engine_add(w->eng, &ep, field, sizeof(field), why, whylen);
        if (rc != BB_OK) {
            size_t l = strlen(why);
            snprintf(why + l, whylen - l, " (%s at episode %ld: %s)", field, k + c,
                     bb_strerror(rc));
            return rc;
        }
        if (!bb_engine_update_due(w->eng))
            continue;
        rc = bb_engine_update(w->eng);
        if (rc == BB_ENOTPD) {
            r->notpd++; /* the event of probability <= p: keep the old policy */
        } else if (rc != BB_OK) {
            snprintf(why, whylen, "update after episode %ld: %s", k + c, bb_strerror(rc));
            return rc;
        }
    }
    return BB_OK;
}

int bb_sim_run_inprocess(struct bb_sim_run *r, char *why, size_t whylen)
{
    const long K = r->episodes;
    struct inproc w = {.env = r->env, .N = r->clinics < 1 ? 1 : r->clinics, .cached = UINT64_MAX};
    int rc = BB_EINVAL;

    if (r->algo == BB_SIM_SOLO) /* no federation: N engines of their own */
        return bb_sim_run_solo(r, why, whylen);
    bb_sim_run_seed(r->seed, &w.rng_engine, &w.rng_env, &w.rng_keys);
    if (K < 1) {
        snprintf(why, whylen, "the number of episodes must be >= 1");
        goto out;
    }
    if ((rc = bb_sim_params(w.env, r->algo, &r->base, K, &r->params, why, whylen)) != BB_OK)
        goto out;
    rc = BB_ENOMEM;
    r->regret = calloc((size_t)K, sizeof(double));
    r->switches = calloc((size_t)K, sizeof(long));
    if (!r->regret || !r->switches || inproc_alloc(&w) != BB_OK)
        goto out;
    bb_sim_eval_optimal(w.env, w.vstar, NULL);
    r->v_star = bb_sim_eval_initial(w.env, w.vstar);
    if (r->algo == BB_SIM_RANDOM) {
        bb_sim_eval_uniform(w.env, w.vpi);
    } else if ((rc = bb_engine_new(&r->params, &w.rng_engine, &w.eng)) != BB_OK) {
        snprintf(why, whylen, "cannot create the engine: %s", bb_strerror(rc));
        goto out;
    }

    double t0 = bb_sim_now();
    long step = K / 100 > 0 ? K / 100 : 1, next_report = step;
    for (long k = 0; k < K;) {
        long n = K - k < w.N ? K - k : w.N;
        if ((w.eng && (rc = refresh_policy(&w, why, whylen)) != BB_OK) ||
            (rc = play_round(&w, r, k, n, why, whylen)) != BB_OK ||
            (w.eng && (rc = feed_round(&w, r, k, n, why, whylen)) != BB_OK))
            goto out;
        k += n;
        if (r->progress && k >= next_report) {
            r->progress(r->progress_arg, k, K);
            next_report = k + step;
        }
    }
    r->seconds = bb_sim_now() - t0;
    r->updates = w.eng ? bb_engine_updates(w.eng) : 0;
    rc = BB_OK;
out:
    if (rc != BB_OK)
        bb_sim_run_release(r);
    inproc_release(&w);
    return rc;
}
