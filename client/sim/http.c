/*
 * http.c — simulated clinics against billboardd over HTTP (http.h).
 */
#include "http.h"

#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "billboard/client.h"
#include "eval.h"
#include "policy.h"

struct shared {
    struct bb_sim_run *r;
    const char *url, *cacert;
    const double *vstar;
    pthread_mutex_t mu;
    long next; /* next episode index to claim */
    long done;
    uint64_t *version; /* per episode: billboard version used */
    int failed;        /* first error stops every clinic */
    int rc;
    char why[512];
};

struct clinic {
    struct shared *sh;
    const char *token;
    int index;
};

static void set_error(struct shared *sh, int rc, const char *fmt, const char *a, const char *b)
{
    pthread_mutex_lock(&sh->mu);
    if (!sh->failed) {
        sh->failed = 1;
        sh->rc = rc;
        snprintf(sh->why, sizeof(sh->why), fmt, a, b);
    }
    pthread_mutex_unlock(&sh->mu);
}

/* A client of the daemon at url, trusting cacert (may be NULL) for https. */
static int new_client(const char *url, const char *cacert, const char *token,
                      struct bb_client **out)
{
    int rc = bb_client_new(url, token, NULL, out);
    if (rc == BB_OK && cacert && (rc = bb_client_set_cacert(*out, cacert)) != BB_OK) {
        bb_client_free(*out);
        *out = NULL;
    }
    return rc;
}

/* A clinic's policy tables: the billboard's, the episode's, and the exact
 * value of the one played. */
struct tables {
    int *pi, *pi_episode; /* H*S */
    unsigned char *set;   /* H*S*A */
    double *sample;       /* bb_sim_sample_size */
    double *vpi;          /* (H+1)*S */
    int has_set;
    uint64_t cached; /* the billboard version pi is the table of */
};

/* The table the episode with key plays on billboard b, its exact value in
 * t->vpi. NULL on error (said in sh). */
static const int *episode_table(struct shared *sh, const struct bb_sim_env *env,
                                const struct bb_billboard *b, const char *key, struct tables *t)
{
    int rc;
    if (b->version != t->cached || b->uniform) {
        if ((rc = bb_sim_policy_table(env, b, key, t->pi, t->set, t->sample)) != BB_OK) {
            set_error(sh, rc, "policy of the billboard: %s%s", bb_strerror(rc), "");
            return NULL;
        }
        bb_sim_eval_policy(env, t->pi, t->set, t->vpi);
        t->has_set = !b->uniform && bb_sim_has_set(env, t->pi);
        t->cached = b->version;
    }
    if (!t->has_set)
        return t->pi;
    if ((rc = bb_sim_policy_resolve(env, t->pi, t->set, t->sample, key, t->pi_episode)) != BB_OK) {
        set_error(sh, rc, "policy of the episode: %s%s", bb_strerror(rc), "");
        return NULL;
    }
    bb_sim_eval_policy(env, t->pi_episode, NULL, t->vpi);
    return t->pi_episode;
}

/* The next episode index for a clinic to play, or -1 when all are
 * claimed or a clinic failed. */
static long claim(struct shared *sh)
{
    pthread_mutex_lock(&sh->mu);
    long k = sh->failed || sh->next >= sh->r->episodes ? -1 : sh->next++;
    pthread_mutex_unlock(&sh->mu);
    return k;
}

/* Counts an episode done and reports the progress now and then. */
static void count_done(struct shared *sh)
{
    struct bb_sim_run *r = sh->r;
    pthread_mutex_lock(&sh->mu);
    long done = ++sh->done;
    long step = r->episodes / 100 > 0 ? r->episodes / 100 : 1;
    if (r->progress && (done % step == 0 || done == r->episodes))
        r->progress(r->progress_arg, done, r->episodes);
    pthread_mutex_unlock(&sh->mu);
}

/* Plays episode k on the current billboard and submits it. BB_OK, or the
 * error (said in sh). */
static int clinic_episode(struct shared *sh, struct bb_client *c, struct tables *t,
                          struct bb_episode_buf *ep, struct bb_rng *rng, long k)
{
    struct bb_sim_run *r = sh->r;
    const struct bb_sim_env *env = r->env;
    char msg[256];
    int rc = bb_client_fetch_billboard(c, NULL);
    if (rc != BB_OK) {
        snprintf(msg, sizeof(msg), "%s (HTTP %d) %s", bb_strerror(rc), bb_client_last_status(c),
                 bb_client_last_detail(c));
        set_error(sh, rc, "GET /v1/billboard: %s%s", msg, "");
        return rc;
    }
    /* The episode's key: its idempotency key, and the seed of its random
     * policy while the billboard holds no data, of its picks from the
     * plausible sets after an update (proto/explore.c), as for a clinic
     * that asks within an open episode. */
    char key[65];
    bb_client_new_key(key);
    const int *played = episode_table(sh, env, bb_client_billboard(c), key, t);
    if (!played)
        return BB_EINVAL;
    int x1 = bb_sim_policy_play(env, played, t->set, rng, ep->features, ep->action, ep->reward);
    ep->billboard_version = t->cached;
    r->regret[k] = sh->vstar[x1] - t->vpi[x1];
    sh->version[k] = t->cached;
    if ((rc = bb_client_submit(c, ep, key, NULL)) != BB_OK) {
        snprintf(msg, sizeof(msg), "%s (HTTP %d) %s: %s", bb_strerror(rc),
                 bb_client_last_status(c), bb_client_last_title(c), bb_client_last_detail(c));
        set_error(sh, rc, "POST /v1/episodes: %s%s", msg, "");
        return rc;
    }
    count_done(sh);
    return BB_OK;
}

static void *clinic_main(void *arg)
{
    struct clinic *cl = arg;
    struct shared *sh = cl->sh;
    const struct bb_sim_env *env = sh->r->env;
    const int S = env->S, H = env->H, A = env->A;
    struct bb_client *c = NULL;
    struct bb_episode_buf ep = {0};
    struct bb_rng rng;
    struct tables t = {.pi = malloc(sizeof(int) * (size_t)H * S),
                       .pi_episode = malloc(sizeof(int) * (size_t)H * S),
                       .set = malloc((size_t)H * S * A),
                       .sample = malloc(sizeof(double) * bb_sim_sample_size(env)),
                       .vpi = malloc(sizeof(double) * (size_t)(H + 1) * S),
                       .cached = UINT64_MAX};
    int rc;

    bb_rng_init_seeded(&rng, sh->r->seed * 1000003ULL + (uint64_t)cl->index + 1);
    if (!t.pi || !t.pi_episode || !t.set || !t.sample || !t.vpi) {
        set_error(sh, BB_ENOMEM, "%s%s", "out of memory", "");
        goto out;
    }
    if ((rc = new_client(sh->url, sh->cacert, cl->token, &c)) != BB_OK) {
        set_error(sh, rc, "cannot create a client for %s: %s", sh->url, bb_strerror(rc));
        goto out;
    }
    if ((rc = bb_episode_buf_init(&ep, H, A, env->d)) != BB_OK) {
        set_error(sh, rc, "%s%s", "out of memory", "");
        goto out;
    }
    for (long k; (k = claim(sh)) >= 0;)
        if (clinic_episode(sh, c, &t, &ep, &rng, k) != BB_OK)
            break;
out:
    bb_episode_buf_release(&ep);
    bb_client_free(c);
    bb_rng_release(&rng);
    free(t.pi);
    free(t.pi_episode);
    free(t.set);
    free(t.sample);
    free(t.vpi);
    return NULL;
}

/* r->params from GET /v1/config; BB_EINVAL if the sizes differ from env's. */
static int read_config(struct bb_sim_run *r, const char *url, const char *cacert, char *why,
                       size_t whylen)
{
    struct bb_client *c = NULL;
    struct bb_config_info cfg = {0};
    int rc = new_client(url, cacert, NULL, &c);
    if (rc == BB_OK)
        rc = bb_client_config(c, &cfg);
    if (rc != BB_OK) {
        snprintf(why, whylen, "GET %s/v1/config: %s %s", url, bb_strerror(rc),
                 c ? bb_client_last_detail(c) : "");
        goto out;
    }
    struct bb_params *p = &r->params;
    bb_params_defaults(p);
    p->H = cfg.H;
    p->d = cfg.d;
    p->A = cfg.A;
    p->K_max = cfg.K_max;
    p->is_private = cfg.is_private;
    p->epsilon = cfg.epsilon;
    p->rho = p->is_private ? cfg.rho : INFINITY;
    p->beta = cfg.beta;
    p->ridge = cfg.ridge;
    p->max_updates = cfg.max_updates;
    r->algo = p->is_private ? BB_SIM_PRIVATE : BB_SIM_LSVI_UCB_RARE;
    const char *feat = cfg.features;
    if (strcmp(feat, "simplex") == 0 && !bb_sim_env_in(r->env, BB_FEATURES_SIMPLEX)) {
        snprintf(why, whylen,
                 "the daemon accepts simplex features only (entries >= 0, sum <= 1) but the "
                 "environment %s has rows outside",
                 r->env->name);
        rc = BB_EINVAL;
    } else if (strcmp(feat, "onehot") == 0 && !bb_sim_env_in(r->env, BB_FEATURES_ONEHOT)) {
        snprintf(why, whylen,
                 "the daemon accepts onehot features only (entries >= 0, sum <= 1, at most one "
                 "nonzero) but the environment %s has rows outside",
                 r->env->name);
        rc = BB_EINVAL;
    } else if (strcmp(feat, "tabular") == 0 && !bb_sim_env_in(r->env, BB_FEATURES_TABULAR)) {
        snprintf(why, whylen,
                 "the daemon accepts tabular features only (a state's row of action a is "
                 "e_{sA+a}) but the environment %s has states outside",
                 r->env->name);
        rc = BB_EINVAL;
    } else if (p->H != r->env->H || p->d != r->env->d || p->A != r->env->A) {
        snprintf(why, whylen,
                 "the daemon has H=%d d=%d A=%d but the environment %s has H=%d d=%d A=%d", p->H,
                 p->d, p->A, r->env->name, r->env->H, r->env->d, r->env->A);
        rc = BB_EINVAL;
    }
out:
    bb_config_info_release(&cfg);
    bb_client_free(c);
    return rc;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* r->switches from the version each episode used: distinct nonzero versions
 * so far (versions are at most N_max, so a table of flags suffices). */
static int count_switches(struct bb_sim_run *r, const uint64_t *version)
{
    size_t nv = (size_t)r->params.max_updates + 2;
    unsigned char *seen = calloc(nv, 1);
    if (!seen)
        return BB_ENOMEM;
    long sw = 0;
    for (long k = 0; k < r->episodes; k++) {
        uint64_t v = version[k];
        if (v != 0 && v < nv && !seen[v]) {
            seen[v] = 1;
            sw++;
        }
        r->switches[k] = sw;
    }
    free(seen);
    return BB_OK;
}

/* r->updates: the daemon's own count, to compare. The last episode may
 * have started an update that is still running: waits (up to 30 s) until
 * the published version has caught up with the updates begun, so the count
 * is final. Such a last version was acted on by no clinic, so updates may
 * exceed the switches by one. */
static int read_updates(struct bb_sim_run *r, const char *url, const char *cacert)
{
    struct bb_client *c = NULL;
    struct bb_privacy_budget priv;
    int rc = new_client(url, cacert, NULL, &c);
    for (int tries = 0; rc == BB_OK && tries < 300; tries++) {
        rc = bb_client_privacy(c, &priv);
        if (rc != BB_OK)
            break;
        r->updates = priv.updates;
        if (priv.billboard_version >= r->updates)
            break;
        struct timespec pause = {0, 100 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    bb_client_free(c);
    return rc;
}

int bb_sim_run_http(struct bb_sim_run *r, const char *url, const char *cacert, char *const *tokens,
                    char *why, size_t whylen)
{
    const struct bb_sim_env *env = r->env;
    const int N = r->clinics < 1 ? 1 : r->clinics;
    struct shared sh;
    struct clinic *cl = NULL;
    pthread_t *th = NULL;
    double *vstar = NULL;
    int started = 0, rc;

    memset(&sh, 0, sizeof(sh));
    pthread_mutex_init(&sh.mu, NULL);
    if ((rc = read_config(r, url, cacert, why, whylen)) != BB_OK)
        goto out;
    rc = BB_ENOMEM;
    r->regret = calloc((size_t)r->episodes, sizeof(double));
    r->switches = calloc((size_t)r->episodes, sizeof(long));
    sh.version = calloc((size_t)r->episodes, sizeof(uint64_t));
    vstar = malloc(sizeof(double) * (size_t)(env->H + 1) * env->S);
    cl = calloc((size_t)N, sizeof(*cl));
    th = calloc((size_t)N, sizeof(*th));
    if (!r->regret || !r->switches || !sh.version || !vstar || !cl || !th)
        goto out;
    bb_sim_eval_optimal(env, vstar, NULL);
    r->v_star = bb_sim_eval_initial(env, vstar);
    sh.r = r;
    sh.url = url;
    sh.cacert = cacert;
    sh.vstar = vstar;
    double t0 = now();
    for (; started < N; started++) {
        cl[started] = (struct clinic){&sh, tokens[started], started};
        if (pthread_create(&th[started], NULL, clinic_main, &cl[started]) != 0) {
            set_error(&sh, BB_ENOMEM, "%s%s", "cannot start a clinic thread", "");
            break;
        }
    }
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    r->seconds = now() - t0;
    if (sh.failed) {
        rc = sh.rc;
        snprintf(why, whylen, "%s", sh.why);
        goto out;
    }
    if ((rc = count_switches(r, sh.version)) == BB_OK &&
        (rc = read_updates(r, url, cacert)) != BB_OK)
        snprintf(why, whylen, "GET /v1/privacy: %s", bb_strerror(rc));
out:
    if (rc != BB_OK)
        bb_sim_run_release(r);
    pthread_mutex_destroy(&sh.mu);
    free(sh.version);
    free(vstar);
    free(cl);
    free(th);
    return rc;
}
