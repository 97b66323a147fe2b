/*
 * audit.c — the empirical privacy audit: runs the engine's real code on
 * worst-case neighbouring inputs many times and measures how well an
 * observer of what it releases tells them apart (docs/PRIVACY.md §6).
 *
 *   bb-audit [--trials N] [--case SUBSTRING]... [--quick] [--first-fail] [--seed S]
 *
 * Each case is a configuration and a pair of neighbouring datasets that
 * differ in the first of K episodes (the others are the same on both sides).
 * A trial creates an engine, adds the K episodes, and records everything an
 * observer sees: every released Lambda~_h, every billboard's y~_h =
 * Lambda~_h w_h, and (for the Gram cases) the Lambda~_h a second engine
 * recovers from the stored episodes and noise records, as a restarted
 * daemon would. A warm-up case records instead what the warm-up publishes
 * before k0, and nothing else: each warm billboard's Lambda~_1 and the
 * released reward vector it holds. A counts case records the transition
 * counts of tabular rows the count stream releases at each grid point,
 * and nothing else: every update computes its targets from them. A linear discriminant learned on N
 * training trials of each side scores the observation; a threshold test
 * chosen on those scores is evaluated on N held-out trials of each side,
 * and Clopper–Pearson bounds (97.5 % each, so 95 % jointly) give a lower
 * bound on epsilon at the configured delta. The case passes when that bound is at most the epsilon
 * the configuration claims for the releases the pair touches.
 *
 * A probe case's first episode lies outside the declared feature set; the
 * engine must refuse it (reported as "refused"): only a broken validation
 * lets it through, and then its releases are audited like any other.
 *
 * Exit status: 0 when every case passes, 1 when some bound exceeds its
 * claim, 2 on a usage or internal error.
 */
#include <cblas.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "billboard/billboard.h"
#include "billboard/episode.h"
#include "engine/engine.h"
#include "engine/params.h"
#include "stats.h"

#define MAX_H 2
#define MAX_A 2
#define D 2
#define MAX_RECORDS 256

/* The audit's (epsilon, delta): epsilon about 2 for the releases a pair
 * touches, delta 1e-2, where a test on 1e5 samples a side has power
 * against a build that leaks twice the claimed rho (docs/PRIVACY.md §6). */
#define AUDIT_EPSILON 2.0
#define AUDIT_DELTA 1e-2
#define AUDIT_ALPHA 0.025

enum claim { CLAIM_GRAM, CLAIM_Y, CLAIM_TOTAL, CLAIM_WARM, CLAIM_COUNTS };
/* KIND_Y: with the reward stream in force (the default), H = 1 puts all of
 * y in the stream (docs/PRIVACY.md §2.4); KIND_Y_UPDATES: the rewards in
 * every update instead, as databases created before the stream have it;
 * KIND_WARM: the warm-up's billboards before k0 (its own Gram mechanism and
 * reward stream at rho_warm), and nothing else; KIND_COUNTS: the count
 * stream's releases of tabular rows (H = 2, one action, so d = S = 2:
 * state s's row is e_s), and nothing else; the other episodes stay in
 * state 0. */
enum kind { KIND_GRAM, KIND_Y, KIND_Y_UPDATES, KIND_VCLIP, KIND_WARM, KIND_COUNTS };

struct side {
    double row[MAX_H][D]; /* every action's row at step h */
    double reward[MAX_H];
};

struct audit_case {
    const char *name;
    enum kind kind;
    enum bb_mechanism mechanism;
    enum bb_features features;
    enum bb_y_sensitivity ysens;
    enum claim claim;
    int probe;           /* side 1's episode must be refused */
    struct side side[2];
};

#define E1 {1, 0}
#define E2 {0, 1}
#define NE1 {-1, 0}
#define NE2 {0, -1}
#define HALF {0.5, 0.5}
#define BIG {3, 0}
#define SMALL2 {0, 0.1}

/* Gram cases: H = 2, the pair differs in its rows at both steps. */
#define GRAM(mech, feat, mname, fname)                                                    \
    {"gram " mname " " fname, KIND_GRAM, mech, feat, BB_YSENS_CENTRED, CLAIM_GRAM, 0,      \
     {{{E1, E1}, {0, 0}}, {{E2, E2}, {0, 0}}}}

static const struct audit_case cases[] = {
    /* The order is the mutation table's (tests/audit/full.sh stops a
     * mutant at its first case above the claim): one case of each kind
     * first, then the rest; the real engine runs them all. */
    GRAM(BB_MECH_GRID_SQRT, BB_FEATURES_BALL, "grid-sqrt", "ball"),
    /* y cases: H = 1, an update at every release point, so y's whole
     * budget is spent; the pair's rows give the same Gram matrices where
     * it can, and the claim is then y's share alone. */
    {"y triangle (ball)", KIND_Y, BB_MECH_GRID_SQRT, BB_FEATURES_BALL, BB_YSENS_TRIANGLE,
     CLAIM_Y, 0, {{{E1}, {1}}, {{NE1}, {1}}}},
    {"y triangle (ball), per update", KIND_Y_UPDATES, BB_MECH_GRID_SQRT, BB_FEATURES_BALL,
     BB_YSENS_TRIANGLE, CLAIM_Y, 0, {{{E1}, {1}}, {{NE1}, {1}}}},
    {"y nonnegative (simplex)", KIND_Y, BB_MECH_GRID_SQRT, BB_FEATURES_SIMPLEX,
     BB_YSENS_NONNEGATIVE, CLAIM_TOTAL, 0, {{{E1}, {1}}, {{E2}, {1}}}},
    {"y centred (simplex)", KIND_Y, BB_MECH_GRID_SQRT, BB_FEATURES_SIMPLEX, BB_YSENS_CENTRED,
     CLAIM_Y, 0, {{{E1}, {1}}, {{E1}, {0}}}},
    {"y centred (simplex), two rows", KIND_Y, BB_MECH_GRID_SQRT, BB_FEATURES_SIMPLEX,
     BB_YSENS_CENTRED, CLAIM_TOTAL, 0, {{{E1}, {1}}, {{E2}, {1}}}},
    {"y centred (simplex), two rows, per update", KIND_Y_UPDATES, BB_MECH_GRID_SQRT,
     BB_FEATURES_SIMPLEX, BB_YSENS_CENTRED, CLAIM_TOTAL, 0, {{{E1}, {1}}, {{E2}, {1}}}},
    {"y centred (onehot)", KIND_Y, BB_MECH_GRID_SQRT, BB_FEATURES_ONEHOT, BB_YSENS_CENTRED,
     CLAIM_Y, 0, {{{E1}, {1}}, {{E1}, {0}}}},
    {"y centred (simplex), negative row", KIND_Y, BB_MECH_GRID_SQRT, BB_FEATURES_SIMPLEX,
     BB_YSENS_CENTRED, CLAIM_Y, 1, {{{E1}, {1}}, {{NE1}, {1}}}},
    /* Probes: a row outside the ball, a two-hot row under onehot. */
    {"gram grid-sqrt ball, row of norm 3", KIND_GRAM, BB_MECH_GRID_SQRT, BB_FEATURES_BALL,
     BB_YSENS_CENTRED, CLAIM_GRAM, 1, {{{E2, E2}, {0, 0}}, {{BIG, BIG}, {0, 0}}}},
    {"gram grid-sqrt onehot, two-hot row", KIND_GRAM, BB_MECH_GRID_SQRT, BB_FEATURES_ONEHOT,
     BB_YSENS_CENTRED, CLAIM_GRAM, 1, {{{E1, E1}, {0, 0}}, {{HALF, HALF}, {0, 0}}}},
    /* The lower clip of V: H = 2, one action; the pair differs only in the
     * sign of its step-2 row (the same Gram matrices), so only the next
     * value in its step-1 target differs, by at most the clip range. */
    {"y next value (ball, one action)", KIND_VCLIP, BB_MECH_GRID_SQRT, BB_FEATURES_BALL,
     BB_YSENS_TRIANGLE, CLAIM_Y, 0, {{{E1, E2}, {0, 0}}, {{E1, NE2}, {0, 0}}}},
    /* The next values' noise discount (docs/PRIVACY.md §3.5), taken before
     * the clip: the pair's step-2 rows differ in direction and length, so
     * the discounts differ (a thin direction's is large), and a step-2
     * reward puts one side's value near the cap; the clip must still hold
     * the difference to its range. The step-2 Gram release differs too,
     * and the score reads it: the claim is the whole budget. */
    {"y discounted next value (ball)", KIND_VCLIP, BB_MECH_GRID_SQRT,
     BB_FEATURES_BALL, BB_YSENS_TRIANGLE, CLAIM_TOTAL, 0,
     {{{E1, E1}, {0, 1}}, {{E1, SMALL2}, {0, 0}}}},
    /* The warm-up (H = 1, k0 = WARM_K0: warm billboards at 250 and 500,
     * a trial their 500 episodes): the pair e1 against e2, both with
     * reward 1, moves the warm Gram release by its bound (sqrt 2) and the
     * warm reward stream by its pair (1: (1 - kappa)(e1 - e2)), so all of
     * rho_warm; the claim is rho_warm alone. */
    {"warm-up grid-sqrt (simplex)", KIND_WARM, BB_MECH_GRID_SQRT, BB_FEATURES_SIMPLEX,
     BB_YSENS_CENTRED, CLAIM_WARM, 0, {{{E1}, {1}}, {{E2}, {1}}}},
    GRAM(BB_MECH_TREE, BB_FEATURES_BALL, "tree", "ball"),
    GRAM(BB_MECH_TREE, BB_FEATURES_SIMPLEX, "tree", "simplex"),
    GRAM(BB_MECH_TREE, BB_FEATURES_ONEHOT, "tree", "onehot"),
    GRAM(BB_MECH_TREE_HONAKER, BB_FEATURES_BALL, "tree-honaker", "ball"),
    GRAM(BB_MECH_TREE_HONAKER, BB_FEATURES_SIMPLEX, "tree-honaker", "simplex"),
    GRAM(BB_MECH_TREE_HONAKER, BB_FEATURES_ONEHOT, "tree-honaker", "onehot"),
    GRAM(BB_MECH_GRID, BB_FEATURES_BALL, "grid", "ball"),
    GRAM(BB_MECH_GRID, BB_FEATURES_SIMPLEX, "grid", "simplex"),
    GRAM(BB_MECH_GRID, BB_FEATURES_ONEHOT, "grid", "onehot"),
    GRAM(BB_MECH_GRID_SQRT, BB_FEATURES_SIMPLEX, "grid-sqrt", "simplex"),
    GRAM(BB_MECH_GRID_SQRT, BB_FEATURES_ONEHOT, "grid-sqrt", "onehot"),
    /* The transition counts (docs/PRIVACY.md §2.6): the pair moves from
     * state 0 to state 0 against state 1, two entries of N_1 by 1 each,
     * the replacement's whole Delta^2 = 2 (H - 1); the claim is rho_N.
     * Last, so that every case before it keeps its seed (its place). */
    {"counts (tabular)", KIND_COUNTS, BB_MECH_GRID_SQRT, BB_FEATURES_TABULAR,
     BB_YSENS_CENTRED, CLAIM_COUNTS, 0, {{{E1, E1}, {0, 0}}, {{E1, E2}, {0, 0}}}},
    /* The rows' weights (docs/PRIVACY.md §1.7): the flat simplex row
     * (1/2, 1/2) weighs sqrt 2, so with rewards 1 against 0 its term moves
     * by w ||phi||_2 = 1 = B, the centred bound, reached through the
     * weight alone (unweighted it moves by 1/sqrt 2); the same Gram
     * matrices, so the claim is y's share. */
    {"y centred (simplex), flat row weighed", KIND_Y, BB_MECH_GRID_SQRT, BB_FEATURES_SIMPLEX,
     BB_YSENS_CENTRED, CLAIM_Y, 0, {{{HALF}, {1}}, {{HALF}, {0}}}},
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* The warm cases' k0: the warm points BB_WARM_START 2^j below it, 250 and 500. */
#define WARM_K0 1000

/* The configuration of a case, derived; rho chosen so that the releases the
 * pair touches claim AUDIT_EPSILON. */
static int configure(const struct audit_case *c, struct bb_params *p, int *K)
{
    bb_params_defaults(p);
    p->H = c->kind == KIND_GRAM || c->kind == KIND_VCLIP || c->kind == KIND_COUNTS ? 2 : 1;
    p->d = D;
    p->A = c->kind == KIND_VCLIP || c->kind == KIND_COUNTS ? 1 : 2;
    *K = c->kind == KIND_GRAM ? 8 : 16;
    p->K_max = c->kind == KIND_WARM ? WARM_K0 : *K;
    p->delta = AUDIT_DELTA;
    /* Where the pair moves both releases, most of the budget on y: a y
     * release that leaks twice its share then shows in the total. */
    p->gram_share = c->claim == CLAIM_TOTAL ? 0.1 : 0.5;
    p->mechanism = c->mechanism;
    p->features = c->features;
    p->y_sensitivity = c->ysens;
    p->release_start = c->kind == KIND_WARM ? WARM_K0 : 2;
    p->release_base = 1.5;
    if (c->kind != KIND_GRAM)
        p->update_rule = BB_UPDATE_RELEASE;
    if (c->kind == KIND_Y_UPDATES)
        p->rewards = BB_REWARDS_UPDATE;
    if (c->kind == KIND_VCLIP) {
        p->prior_value = 0;     /* the next values from the published w */
        p->shift_scale = 0.05;  /* a small ridge: large weights, large values */
    }
    double rho_c = bb_conversion_rho(p->conversion, AUDIT_EPSILON, AUDIT_DELTA);
    p->rho = c->claim == CLAIM_TOTAL  ? rho_c
             : c->claim == CLAIM_WARM ? rho_c / p->warm_share
                                      : rho_c / 0.5;
    char why[256];
    if (bb_params_derive(p, why, sizeof(why)) != BB_OK) {
        fprintf(stderr, "bb-audit: %s: %s\n", c->name, why);
        return -1;
    }
    /* The counts' share of rho is the configuration's: rho scaled until
     * rho_N is rho_c (a fixed point that a few steps reach). */
    for (int i = 0; c->kind == KIND_COUNTS && i < 8; i++) {
        const double rho_n = bb_params_rho_counts(p);
        if (!(rho_n > 0)) {
            fprintf(stderr, "bb-audit: %s: no counts in force\n", c->name);
            return -1;
        }
        p->rho *= rho_c / rho_n;
        if (bb_params_derive(p, why, sizeof(why)) != BB_OK) {
            fprintf(stderr, "bb-audit: %s: %s\n", c->name, why);
            return -1;
        }
    }
    if (c->kind == KIND_WARM) {
        /* the trial stops at the warm-up's last point: no main release
         * happens before k0 */
        struct bb_params w;
        if (p->warm_points < 1 || bb_params_warm(p, &w) != BB_OK) {
            fprintf(stderr, "bb-audit: %s: no warm-up in force\n", c->name);
            return -1;
        }
        *K = (int)w.K_max;
    }
    return 0;
}

static double claimed_rho(const struct audit_case *c, const struct bb_params *p)
{
    switch (c->claim) {
    case CLAIM_GRAM:
        return p->rho * p->gram_share;
    case CLAIM_Y:
        return p->rho * (1 - p->gram_share);
    case CLAIM_WARM:
        return p->rho_warm;
    case CLAIM_COUNTS:
        return bb_params_rho_counts(p);
    case CLAIM_TOTAL:
        break;
    }
    return p->rho;
}

/* One episode of the dataset: the case's side for the first, zero rows and
 * rewards after it. */
struct ep_buf {
    double features[MAX_H * MAX_A * D];
    int action[MAX_H];
    double reward[MAX_H];
};

static void fill_episode(const struct audit_case *c, const struct bb_params *p, int side,
                         int first, struct ep_buf *b)
{
    memset(b, 0, sizeof(*b));
    if (!first && c->kind == KIND_COUNTS) { /* tabular rows: state 0 */
        for (int h = 0; h < p->H; h++)
            b->features[(size_t)h * p->A * D] = 1.0;
        return;
    }
    if (!first)
        return;
    for (int h = 0; h < p->H; h++) {
        for (int a = 0; a < p->A; a++)
            memcpy(b->features + ((size_t)h * p->A + a) * D, c->side[side].row[h],
                   sizeof(double) * D);
        b->reward[h] = c->side[side].reward[h];
    }
}

/* Stored noise records, each replacing the one with the same (step, slot). */
struct recstore {
    struct bb_mech_record rec[MAX_RECORDS];
    unsigned char *bytes[MAX_RECORDS];
    size_t n;
};

static int recstore_put(struct recstore *s, const struct bb_mech_record *r)
{
    size_t i = 0;
    while (i < s->n && !(s->rec[i].step == r->step && s->rec[i].slot == r->slot))
        i++;
    if (i == MAX_RECORDS)
        return -1;
    unsigned char *b = realloc(i < s->n ? s->bytes[i] : NULL, r->len);
    if (!b && r->len)
        return -1;
    memcpy(b, r->bytes, r->len);
    s->bytes[i] = b;
    s->rec[i] = *r;
    s->rec[i].bytes = b;
    if (i == s->n)
        s->n++;
    return 0;
}

static void recstore_release(struct recstore *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->bytes[i]);
    s->n = 0;
}

struct source {
    const struct audit_case *c;
    const struct bb_params *p;
    int side, K;
};

static int stream_episodes(void *ctx, bb_engine_put put, void *sink)
{
    const struct source *s = ctx;
    struct ep_buf b;
    for (int k = 0; k < s->K; k++) {
        fill_episode(s->c, s->p, s->side, k == 0, &b);
        struct bb_episode ep = {b.features, b.action, b.reward};
        int rc = put(sink, &ep);
        if (rc != BB_OK)
            return rc;
    }
    return BB_OK;
}

/* Appends every released Lambda~_h's upper triangle. */
static void observe_gram(const struct bb_engine *e, const struct bb_params *p, double *obs,
                         int *m)
{
    for (int h = 0; h < p->H; h++) {
        const double *g = bb_engine_gram(e, h);
        for (int i = 0; i < D; i++)
            for (int j = i; j < D; j++)
                obs[(*m)++] = g[i * D + j];
    }
}

/* y~_h = Lambda~_h w_h of the current billboard: what it published. */
static void published_y(const struct bb_billboard *b, int h, double *y)
{
    const double *g = b->gram + (size_t)h * D * D, *w = b->w + (size_t)h * D;
    for (int i = 0; i < D; i++) {
        y[i] = 0;
        for (int j = 0; j < D; j++)
            y[i] += g[i * D + j] * w[j];
    }
}

/* The next-value attack (KIND_VCLIP): from the published step-2 regression
 * the observer computes the step-1 target each side's episode gets, with
 * the noise discount, betting that the values are not clipped from below,
 * and scores the published y~_1 by the log-likelihood ratio of the two
 * means. */
static double vclip_score(const struct audit_case *c, const struct bb_billboard *b,
                          const struct bb_params *p)
{
    double t[2], q, work[D];
    const double *l = b->chol + D * D;
    for (int side = 0; side < 2; side++) {
        bb_q_values(D, l, b->w + D, b->beta, bb_params_value_cap(p, 0), c->side[side].row[1], 1,
                    &q, work);
        /* ||Lambda~_2^-1 x||: work = L^-1 x (bb_q_values), then L^-T */
        cblas_dtrsv(CblasRowMajor, CblasLower, CblasTrans, CblasNonUnit, D, l, D, work, 1);
        t[side] = c->side[side].reward[0] + q -
                  p->next_discount * b->sigma_y[1] * cblas_dnrm2(D, work, 1);
    }
    double y[D];
    published_y(b, 0, y);
    return (y[0] - 0.5 * (t[0] + t[1])) * (t[1] - t[0]);
}

/* A warm billboard (KIND_WARM, H = 1): its Lambda~_1's upper triangle and
 * the released reward vector R~ = Lambda~_1 (w_1 - kappa 1), kappa the
 * centre it adds back (bb_params_y_centre): WARM_OBS entries. */
#define WARM_OBS (D * (D + 1) / 2 + D)
static void observe_warm(const struct bb_billboard *b, double kappa, double *obs, int *m)
{
    double w[D], y[D];
    for (int i = 0; i < D; i++)
        for (int j = i; j < D; j++)
            obs[(*m)++] = b->gram[i * D + j];
    for (int j = 0; j < D; j++)
        w[j] = b->w[j] - kappa;
    for (int i = 0; i < D; i++) {
        y[i] = 0;
        for (int j = 0; j < D; j++)
            y[i] += b->gram[i * D + j] * w[j];
        obs[(*m)++] = y[i];
    }
}

enum { TRIAL_OK = 0, TRIAL_REFUSED = 1, TRIAL_ERROR = -1 };

/* One trial of side `side` with the engine's noise keyed from seed;
 * obs (cap entries) gets the observation, *m its length. */
static int run_trial(const struct audit_case *c, const struct bb_params *p, int K, int side,
                     uint64_t seed, double *obs, int cap, int *m)
{
    struct bb_rng rng, rng2;
    struct bb_engine *e = NULL, *e2 = NULL;
    struct recstore rs = {.n = 0};
    int rc = TRIAL_ERROR;
    long released = 0;
    uint64_t version = 0;
    *m = 0;
    bb_rng_init_seeded(&rng, seed);
    bb_rng_init_seeded(&rng2, seed ^ 0x5bd1e995u);
    if (bb_engine_new(p, &rng, &e) != BB_OK)
        goto out;
    double score = 0;
    for (int k = 0; k < K; k++) {
        struct ep_buf b;
        fill_episode(c, p, side, k == 0, &b);
        struct bb_episode ep = {b.features, b.action, b.reward};
        int arc = bb_engine_add(e, &ep, NULL, 0, NULL, 0);
        if (arc != BB_OK) {
            rc = k == 0 && arc == BB_EINVAL ? TRIAL_REFUSED : TRIAL_ERROR;
            goto out;
        }
        if (c->kind == KIND_WARM) { /* what the warm-up publishes, and only that */
            const struct bb_billboard *bb = bb_engine_billboard(e);
            if (bb->version != version) {
                version = bb->version;
                if (*m + WARM_OBS > cap)
                    goto out;
                observe_warm(bb, bb_params_y_centre(p), obs, m);
            }
            continue;
        }
        if (c->kind == KIND_COUNTS) { /* the count stream's releases, and only those */
            if (bb_engine_released(e) != released) {
                double n[D * D], sd;
                released = bb_engine_released(e);
                if (*m + D * D > cap || bb_engine_counts(e, 0, n, &sd) != BB_OK)
                    goto out;
                memcpy(obs + *m, n, sizeof(n));
                *m += D * D;
            }
            continue;
        }
        const struct bb_mech_record *recs;
        size_t nrec = bb_engine_records(e, &recs);
        for (size_t i = 0; i < nrec; i++)
            if (recstore_put(&rs, &recs[i]) != 0)
                goto out;
        if (bb_engine_released(e) != released) {
            released = bb_engine_released(e);
            if (*m + p->H * 3 > cap)
                goto out;
            observe_gram(e, p, obs, m);
        }
        if (c->kind != KIND_GRAM && bb_engine_update_due(e)) {
            if (bb_engine_update(e) != BB_OK)
                goto out;
            const struct bb_billboard *bb = bb_engine_billboard(e);
            if (c->kind == KIND_VCLIP) {
                score += vclip_score(c, bb, p);
            } else {
                if (*m + D > cap)
                    goto out;
                published_y(bb, 0, obs + *m);
                *m += D;
            }
        }
    }
    if (c->kind == KIND_VCLIP) {
        obs[0] = score;
        *m = 1;
    }
    /* every warm point published a billboard, and nothing else was */
    if (c->kind == KIND_WARM && (*m != WARM_OBS * p->warm_points || bb_engine_released(e) != 0))
        goto out;
    if (c->kind == KIND_GRAM) {
        /* A restart: the released prefix must come back as it was. */
        struct source src = {c, p, side, K};
        if (bb_engine_new(p, &rng2, &e2) != BB_OK ||
            bb_engine_recover(e2, stream_episodes, &src, rs.rec, rs.n) != BB_OK ||
            *m + p->H * 3 > cap)
            goto out;
        observe_gram(e2, p, obs, m);
    }
    rc = TRIAL_OK;
out:
    bb_engine_free(e);
    bb_engine_free(e2);
    recstore_release(&rs);
    bb_rng_release(&rng);
    bb_rng_release(&rng2);
    return rc;
}

#define OBS_CAP 256

struct job {
    const struct audit_case *c;
    const struct bb_params *p;
    int K, m;
    long from, to, n; /* trials [from, to) of each side; n per side */
    uint64_t seed;
    double *obs[2]; /* n x m per side */
    int failed;
};

static void *work(void *arg)
{
    struct job *j = arg;
    double buf[OBS_CAP];
    for (long t = j->from; t < j->to && !j->failed; t++)
        for (int side = 0; side < 2; side++) {
            int m;
            uint64_t seed = j->seed ^ ((uint64_t)t * 2 + (uint64_t)side) * 0x9e3779b97f4a7c15ULL;
            if (run_trial(j->c, j->p, j->K, side, seed, buf, OBS_CAP, &m) != TRIAL_OK ||
                m != j->m) {
                j->failed = 1;
                break;
            }
            memcpy(j->obs[side] + (size_t)t * j->m, buf, sizeof(double) * (size_t)m);
        }
    return NULL;
}

/* n trials of each side into obs[0], obs[1] (allocated, n x m), on two threads. */
static int sample(const struct audit_case *c, const struct bb_params *p, int K, int m, long n,
                  uint64_t seed, double **obs)
{
    obs[0] = malloc(sizeof(double) * (size_t)n * m);
    obs[1] = malloc(sizeof(double) * (size_t)n * m);
    if (!obs[0] || !obs[1])
        return -1;
    enum { THREADS = 2 };
    struct job jobs[THREADS];
    pthread_t tid[THREADS];
    for (int t = 0; t < THREADS; t++) {
        jobs[t] = (struct job){c, p, K, m, n * t / THREADS, n * (t + 1) / THREADS, n, seed,
                               {obs[0], obs[1]}, 0};
        if (t > 0 && pthread_create(&tid[t], NULL, work, &jobs[t]) != 0)
            work(&jobs[t]), tid[t] = 0;
    }
    work(&jobs[0]);
    int failed = jobs[0].failed;
    for (int t = 1; t < THREADS; t++) {
        if (tid[t])
            pthread_join(tid[t], NULL);
        failed |= jobs[t].failed;
    }
    return failed ? -1 : 0;
}

static void scores(const double *obs, long n, int m, const double *w, double *s)
{
    for (long i = 0; i < n; i++) {
        double v = 0;
        for (int j = 0; j < m; j++)
            v += w[j] * obs[(size_t)i * m + j];
        s[i] = v;
    }
}

struct result {
    double claim, eps_lo, eps_hat;
    long hits, n_hits, fa, n_fa;
    int refused, pass;
};

static int audit_case(const struct audit_case *c, long n, uint64_t seed, struct result *r)
{
    struct bb_params p;
    int K, m, rc = -1;
    double *tr[2] = {0}, *te[2] = {0}, *w = NULL, *s0 = NULL, *s1 = NULL;
    memset(r, 0, sizeof(*r));
    if (configure(c, &p, &K) != 0)
        return -1;
    r->claim = bb_conversion_epsilon(p.conversion, claimed_rho(c, &p), p.delta);
    double probe[OBS_CAP];
    int trc = TRIAL_ERROR;
    for (int side = 0; side < 2; side++) {
        trc = run_trial(c, &p, K, side, seed, probe, OBS_CAP, &m);
        if (trc != TRIAL_OK)
            break;
    }
    if (trc == TRIAL_REFUSED && c->probe) {
        r->refused = r->pass = 1;
        return 0;
    }
    if (trc != TRIAL_OK) {
        fprintf(stderr, "bb-audit: %s: a trial failed\n", c->name);
        return -1;
    }
    if (sample(c, &p, K, m, n, seed, tr) != 0 || sample(c, &p, K, m, n, ~seed, te) != 0)
        goto out;
    if (!(w = malloc(sizeof(double) * m)) || !(s0 = malloc(sizeof(double) * n)) ||
        !(s1 = malloc(sizeof(double) * n)))
        goto out;
    if (audit_lda(tr[0], n, tr[1], n, m, w) != 0)
        goto out;
    scores(tr[0], n, m, w, s0);
    scores(tr[1], n, m, w, s1);
    struct audit_test test = audit_choose(s0, n, s1, n, p.delta, AUDIT_ALPHA);
    scores(te[0], n, m, w, s0);
    scores(te[1], n, m, w, s1);
    struct audit_bound b = audit_evaluate(test, s0, n, s1, n, p.delta, AUDIT_ALPHA);
    r->eps_lo = b.eps_lo;
    r->eps_hat = b.eps_hat;
    r->hits = b.hits;
    r->n_hits = b.n_hits;
    r->fa = b.false_alarms;
    r->n_fa = b.n_false;
    r->pass = !(b.eps_lo > r->claim);
    rc = 0;
out:
    if (rc != 0)
        fprintf(stderr, "bb-audit: %s: out of memory or a failed trial\n", c->name);
    for (int s = 0; s < 2; s++) {
        free(tr[s]);
        free(te[s]);
    }
    free(w);
    free(s0);
    free(s1);
    return rc;
}

/* The statistics on known values: Clopper–Pearson 95 % intervals (each
 * bound at 97.5 %) for 5 of 20 are [0.0866, 0.4910]; for 0 of n the upper
 * bound is 1 - alpha^(1/n), for n of n the lower one alpha^(1/n); and a
 * test's bound from counts. Returns the number of failures. */
static int self_test(void)
{
    int bad = 0;
#define NEAR(x, want, tol)                                                                    \
    do {                                                                                      \
        double got_ = (x);                                                                    \
        if (!(fabs(got_ - (want)) <= (tol))) {                                                \
            fprintf(stderr, "self-test: %s = %.6f, want %.6f\n", #x, got_, (double)(want));   \
            bad++;                                                                            \
        }                                                                                     \
    } while (0)
    NEAR(audit_cp_lower(5, 20, 0.025), 0.0866, 1e-4);
    NEAR(audit_cp_upper(5, 20, 0.025), 0.4910, 1e-4);
    NEAR(audit_cp_upper(0, 1000, 0.025), 1 - pow(0.025, 1.0 / 1000), 1e-9);
    NEAR(audit_cp_lower(1000, 1000, 0.025), pow(0.025, 1.0 / 1000), 1e-9);
    NEAR(audit_ibeta(2, 3, 0.4), 0.5248, 1e-12);
    /* 500 of 1000 against 50 of 1000 at delta 0: ln(0.5/0.05) at the point. */
    double s0[1000], s1[1000];
    for (int i = 0; i < 1000; i++) {
        s0[i] = i < 50 ? 1 : 0;
        s1[i] = i < 500 ? 1 : 0;
    }
    struct audit_bound b = audit_evaluate((struct audit_test){1, 0.5}, s0, 1000, s1, 1000, 0, 0.025);
    NEAR(b.eps_hat, log(10.0), 1e-12);
    if (!(b.eps_lo < b.eps_hat)) {
        fprintf(stderr, "self-test: the lower bound %.4f is not below the estimate\n", b.eps_lo);
        bad++;
    }
#undef NEAR
    return bad;
}

static void usage(void)
{
    fprintf(stderr, "usage: bb-audit [--trials N] [--case SUBSTRING]... [--quick] [--first-fail]"
                    " [--seed S]\n"
                    "  --trials N    training and held-out trials of each side (default 100000)\n"
                    "  --case S      only the cases whose name contains S (repeatable)\n"
                    "  --quick       the cases make test runs: one Gram, one y (with --trials)\n"
                    "  --first-fail  stop at the first case above its claim\n"
                    "  --self-test   check the statistics on known values and exit\n"
                    "  --seed S      the trials' noise seed (default 1)\n");
}

static int selected(const struct audit_case *c, char **want, int nwant, int quick)
{
    if (quick && strcmp(c->name, "gram grid-sqrt ball") != 0 &&
        strcmp(c->name, "y centred (simplex)") != 0)
        return 0;
    if (nwant == 0)
        return 1;
    for (int i = 0; i < nwant; i++)
        if (strstr(c->name, want[i]))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    long n = 100000;
    uint64_t seed = 1;
    int quick = 0, nwant = 0, first_fail = 0;
    char *want[NCASES + 1];
    /* Every trial makes and frees an engine: keep its buffers on the heap
     * instead of a mmap and munmap each (most of the audit's time else). */
    setvbuf(stdout, NULL, _IOLBF, 0); /* a case a line, as it ends */
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    for (int i = 1; i < argc; i++) {
        char *end;
        if (!strcmp(argv[i], "--trials") && i + 1 < argc) {
            n = strtol(argv[++i], &end, 10);
            if (*end || n < 100) {
                usage();
                return 2;
            }
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = strtoull(argv[++i], &end, 10);
            if (*end) {
                usage();
                return 2;
            }
        } else if (!strcmp(argv[i], "--case") && i + 1 < argc && nwant < (int)NCASES) {
            want[nwant++] = argv[++i];
        } else if (!strcmp(argv[i], "--quick")) {
            quick = 1;
        } else if (!strcmp(argv[i], "--self-test")) {
            int bad = self_test();
            printf("self-test: %s\n", bad ? "FAILED" : "ok");
            return bad ? 1 : 0;
        } else if (!strcmp(argv[i], "--first-fail")) {
            first_fail = 1;
        } else {
            usage();
            return 2;
        }
    }
    printf("privacy audit: %ld training and %ld held-out trials a side, delta %g,"
           " Clopper-Pearson 95%%\n",
           n, n, AUDIT_DELTA);
    printf("%-42s %8s %9s %9s %s\n", "case", "claimed", "lower bd", "estimate", "");
    int failed = 0, errors = 0, ran = 0;
    for (size_t i = 0; i < NCASES; i++) {
        const struct audit_case *c = &cases[i];
        if (!selected(c, want, nwant, quick))
            continue;
        struct result r;
        ran++;
        if (audit_case(c, n, seed + i, &r) != 0) {
            printf("%-42s  ERROR\n", c->name);
            errors++;
            continue;
        }
        if (r.refused) {
            printf("%-42s %8.3f %9s %9s ok (refused)\n", c->name, r.claim, "-", "-");
            continue;
        }
        printf("%-42s %8.3f %9.3f %9.3f %s (%ld/%ld vs %ld/%ld)\n", c->name, r.claim, r.eps_lo,
               r.eps_hat, r.pass ? "ok" : "EXCEEDS CLAIM", r.hits, r.n_hits, r.fa, r.n_fa);
        failed += !r.pass;
        if (failed && first_fail)
            break;
    }
    fflush(stdout);
    if (ran == 0) {
        usage();
        return 2;
    }
    printf("%d case(s), %d exceed their claim, %d error(s)\n", ran, failed, errors);
    return errors ? 2 : failed ? 1 : 0;
}
