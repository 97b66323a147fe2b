/*
 * engine.c — Algorithm 1 of Ngo, Vietri, Wu (2022) with the corrected
 * calibration of DESIGN.md §3 (engine.h).
 */
#include "engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linalg.h"
#include "mutation.h"
#include "lsvi.h"
#include "mech.h"
#include "noise.h"
#include "cstream.h"
#include "rstream.h"
#include "schedule.h"
#include "store.h"

struct bb_engine {
    struct bb_params p;
    struct bb_rng *rng;       /* borrowed: mechanism noise */
    struct bb_rng rng_y;      /* owned: y noise, used by one update at a time */
    struct bb_sampler *y_noise; /* H: step h's at [h] */
    double ridge;             /* 2 lambda~ (or 1), snapped up to the Gram grid */
    struct bb_mech *mech;     /* continual release of the Gram matrices */
    struct bb_rstream *rs;    /* the reward stream, or NULL (bb_params_reward_stream) */
    struct bb_rng rng_r;      /* owned with rs: its noise */
    struct bb_stream *cs;     /* the count stream, or NULL (bb_params_counts) */
    struct bb_rng rng_c;      /* owned with cs: its noise */
    int *cell, *state;        /* H each, with cs: the episode being added's path */
    struct bb_mech_record *rec; /* owned: the last add's records, the mechanism's and rs's */
    size_t nrec, caprec;
    const double **rows;      /* H: the chosen rows of the episode being added */
    double *weight;           /* H: their weights (bb_params_row_weight) */
    const double **grows;     /* H: what the Gram matrices take of them, sqrt(w) phi:
                                 rows[h] itself where w = 1, else grow[h] */
    double *grow;             /* H*d */
    long released;            /* episodes in the latest released prefix */
    struct bb_store store;
    struct bb_schedule sched;
    double *gram;             /* H*d*d: Lambda~_h^{k} for the next episode */
    double *chol;             /* H*d*d */
    double *logdet;           /* H */
    double *ridge_step;       /* H: the diagonal in Lambda~_h: ridge, or ridge 2^j
                                 where the prefix + ridge I was indefinite */
    int pd;                   /* every Lambda~_h^{k} positive definite */
    struct bb_billboard bb;   /* current, factored */
    struct bb_lsvi_ws ws;
    int busy;                 /* an update is between begin and finish */
    struct bb_params pw;      /* the warm-up's params (bb_params_warm), when it has one */
    struct bb_mech *wmech;    /* the warm-up's Gram mechanism, or NULL */
    struct bb_rstream *wrs;   /* the warm-up's reward stream (with wmech) */
    struct bb_rng rng_w;      /* owned with wmech: their noise */
    long warm_published;      /* warm billboards published so far */
    long restores;            /* bb_engine_set_ledger */
    double rho_restored;
    long version_offset;
};

struct bb_update {
    struct bb_engine *e;
    long n;
    long number; /* 1-based: the schedule's count once this update began */
    double prior_cut; /* bb_params_prior_cut */
    double *gram, *chol, *logdet, *w, *y_noisy, *sigma_y, *ridge_step;
    double *reward, *reward_sd; /* the stream's releases and their sds, or NULL */
    double *counts, *counts_sd; /* the count stream's, or NULL */
    int ran;
};

static int mutant_redraw(struct bb_engine *e, int h, double *g);
static int mutant_add_twice(struct bb_engine *e);

static int refresh(struct bb_engine *e)
{
    const int d = e->p.d;
    const size_t dd = (size_t)d * d;
    e->pd = 1;
    for (int h = 0; h < e->p.H; h++) {
        double *g = e->gram + h * dd;
        int rc = BB_MUTANT(REDRAW) ? mutant_redraw(e, h, g) : bb_mech_prefix(e->mech, h, g);
        if (rc != BB_OK)
            return rc;
        double r = e->ridge;
        for (int j = 0; j < d; j++)
            g[(size_t)j * d + j] += r; /* Alg. 1 line 19: + 2 lambda~ I */
        rc = bb_chol(g, e->chol + h * dd, d);
        /* Indefinite (docs/PRIVACY.md §1.4): with BB_INDEF_DOUBLE the ridge
         * doubles until it is not, a function of the released prefix only.
         * r stays a multiple of the Gram grid, so every sum here is exact. */
        for (int j = 0; rc == BB_ENOTPD && e->p.indefinite == BB_INDEF_DOUBLE &&
                        j < BB_RIDGE_DOUBLINGS; j++) {
            for (int i = 0; i < d; i++)
                g[(size_t)i * d + i] += r;
            r *= 2;
            rc = bb_chol(g, e->chol + h * dd, d);
        }
        e->ridge_step[h] = r;
        if (rc == BB_ENOTPD) {
            e->pd = 0;
            e->logdet[h] = -INFINITY;
        } else if (rc != BB_OK) {
            return rc;
        } else {
            e->logdet[h] = bb_chol_logdet(e->chol + h * dd, d);
        }
    }
    return BB_OK;
}

static void fill_privacy(const struct bb_engine *e, struct bb_privacy_summary *s)
{
    s->rho = e->p.rho;
    s->epsilon = e->p.epsilon;
    s->delta = e->p.delta;
    s->episodes = e->store.n;
    s->max_episodes = e->p.K_max;
    s->updates = e->sched.updates;
    s->max_updates = e->p.max_updates;
    s->rho_spent =
        bb_params_rho_spent(&e->p, e->store.n, e->sched.updates, NULL, NULL) + e->rho_restored;
    s->restores = e->restores;
    s->rho_restored = e->rho_restored;
}

void bb_engine_set_ledger(struct bb_engine *e, long restores, double rho_restored,
                          long version_offset)
{
    e->restores = restores;
    e->rho_restored = rho_restored;
    e->version_offset = version_offset;
    fill_privacy(e, &e->bb.privacy);
}

/* How clinics explore after an update, a function of the stored
 * configuration alone: no noise, no set and no sample; the set in units of
 * the drawn sd (bb_params_plausible_unit). */
static void explore_fields(const struct bb_params *p, struct bb_billboard *b)
{
    b->sample = p->is_private && p->explore == BB_EXPLORE_SAMPLE;
    const int set = p->is_private && !b->sample;
    b->plausible_z = set ? p->plausible_z * bb_params_plausible_unit(p) : 0;
    b->plausible_floor = set ? p->plausible_floor / bb_params_plausible_unit(p) : 0;
}

int bb_engine_new(const struct bb_params *p, struct bb_rng *rng, struct bb_engine **out)
{
    int rc = BB_ENOMEM;
    struct bb_engine *e = calloc(1, sizeof(*e));
    *out = NULL;
    if (!e)
        return BB_ENOMEM;
    e->p = *p;
    e->rng = rng;
    bb_rng_init_child(&e->rng_y, rng);
    const int H = p->H, d = p->d;
    const size_t dd = (size_t)d * d;

    e->ridge = p->grid_gram > 0 ? ceil(p->ridge / p->grid_gram) * p->grid_gram : p->ridge;
    rc = BB_ENOMEM;
    if (!(e->y_noise = calloc((size_t)H, sizeof(*e->y_noise))))
        goto out;
    for (int h = 0; h < H; h++)
        if ((rc = bb_sampler_init(&e->y_noise[h], bb_params_sigma_y_drawn_step(p, h),
                                  bb_params_grid_y_step(p, h))) != BB_OK)
            goto out;
    rc = BB_ENOMEM;
    e->rows = calloc((size_t)H, sizeof(*e->rows));
    e->grows = calloc((size_t)H, sizeof(*e->grows));
    e->weight = calloc((size_t)H, sizeof(double));
    e->grow = calloc((size_t)H * d, sizeof(double));
    e->gram = calloc((size_t)H * dd, sizeof(double));
    e->chol = calloc((size_t)H * dd, sizeof(double));
    e->logdet = calloc((size_t)H, sizeof(double));
    e->ridge_step = calloc((size_t)H, sizeof(double));
    if (!e->rows || !e->grows || !e->weight || !e->grow || !e->gram || !e->chol || !e->logdet ||
        !e->ridge_step)
        goto out;
    if ((rc = bb_mech_new(&e->p, &e->mech)) != BB_OK)
        goto out;
    if (bb_params_reward_stream(p)) {
        bb_rng_init_child(&e->rng_r, rng);
        if ((rc = bb_rstream_new(&e->p, &e->rs)) != BB_OK)
            goto out;
    }
    if (bb_params_counts(p)) {
        bb_rng_init_child(&e->rng_c, rng);
        if ((rc = bb_cstream_new(&e->p, &e->cs)) != BB_OK)
            goto out;
        rc = BB_ENOMEM;
        e->cell = calloc((size_t)H, sizeof(int));
        e->state = calloc((size_t)H, sizeof(int));
        if (!e->cell || !e->state)
            goto out;
    }
    if (bb_params_warm(&e->p, &e->pw) == BB_OK) {
        bb_rng_init_child(&e->rng_w, rng);
        if ((rc = bb_mech_new(&e->pw, &e->wmech)) != BB_OK ||
            (rc = bb_rstream_new(&e->pw, &e->wrs)) != BB_OK)
            goto out;
    }
    if ((rc = bb_store_init(&e->store, H, p->A, d, p->K_max)) != BB_OK)
        goto out;
    if ((rc = bb_schedule_init(&e->sched, p, e->ridge)) != BB_OK)
        goto out;
    if ((rc = bb_lsvi_ws_init(&e->ws, p->A, d, 0)) != BB_OK)
        goto out;
    if ((rc = refresh(e)) != BB_OK)
        goto out;
    /* Version 0: w = 0, Lambda~ = ridge I (Alg. 1 line 3). */
    if ((rc = bb_billboard_init(&e->bb, H, d, p->A)) != BB_OK)
        goto out;
    memcpy(e->bb.gram, e->gram, sizeof(double) * (size_t)H * dd);
    memcpy(e->bb.chol, e->chol, sizeof(double) * (size_t)H * dd);
    e->bb.factored = 1;
    e->bb.beta = p->beta;
    e->bb.uniform = p->prior_policy == BB_PRIOR_UNIFORM; /* holds no data (params.h) */
    explore_fields(p, &e->bb);
    fill_privacy(e, &e->bb.privacy);
    *out = e;
    return BB_OK;
out:
    bb_engine_free(e);
    return rc;
}

void bb_engine_free(struct bb_engine *e)
{
    if (!e)
        return;
    bb_mech_free(e->mech);
    if (e->rs) {
        bb_rstream_free(e->rs);
        bb_rng_release(&e->rng_r);
    }
    if (e->cs) {
        bb_stream_free(e->cs);
        bb_rng_release(&e->rng_c);
    }
    free(e->cell);
    free(e->state);
    if (e->wmech) {
        bb_mech_free(e->wmech);
        bb_rstream_free(e->wrs);
        bb_rng_release(&e->rng_w);
    }
    free(e->rec);
    free(e->y_noise);
    free(e->rows);
    free(e->grows);
    free(e->weight);
    free(e->grow);
    bb_store_release(&e->store);
    bb_schedule_release(&e->sched);
    bb_lsvi_ws_release(&e->ws);
    bb_billboard_release(&e->bb);
    bb_rng_release(&e->rng_y);
    free(e->gram);
    free(e->chol);
    free(e->logdet);
    free(e->ridge_step);
    free(e);
}

const struct bb_params *bb_engine_params(const struct bb_engine *e)
{
    return &e->p;
}

long bb_engine_episodes(const struct bb_engine *e)
{
    return e->store.n;
}

long bb_engine_updates(const struct bb_engine *e)
{
    return e->sched.updates;
}

double bb_engine_ridge(const struct bb_engine *e)
{
    return e->ridge;
}

double bb_engine_ridge_step(const struct bb_engine *e, int h)
{
    return h >= 0 && h < e->p.H ? e->ridge_step[h] : NAN;
}

int bb_engine_reward(const struct bb_engine *e, int h, double *out, double *sd)
{
    return e->rs ? bb_rstream_release(e->rs, h, out, sd) : BB_ENOTFOUND;
}

int bb_engine_counts(const struct bb_engine *e, int h, double *out, double *sd)
{
    return e->cs ? bb_stream_release(e->cs, h, out, sd) : BB_ENOTFOUND;
}

int bb_engine_warm_reward(const struct bb_engine *e, int h, double *out, double *sd)
{
    return e->wrs ? bb_rstream_release(e->wrs, h, out, sd) : BB_ENOTFOUND;
}

const char *bb_engine_mechanism(const struct bb_engine *e)
{
    return bb_mech_name(e->mech);
}

long bb_engine_released(const struct bb_engine *e)
{
    return e->released;
}

size_t bb_engine_records(const struct bb_engine *e, const struct bb_mech_record **out)
{
    if (!e->rs)
        return bb_mech_records(e->mech, out);
    *out = e->rec;
    return e->nrec;
}

/* Appends n records to e->rec, their steps moved by shift. */
static int append_records(struct bb_engine *e, const struct bb_mech_record *r, size_t n, int shift)
{
    if (e->nrec + n > e->caprec) {
        struct bb_mech_record *grown = realloc(e->rec, (e->nrec + n) * sizeof(*grown));
        if (!grown)
            return BB_ENOMEM;
        e->rec = grown;
        e->caprec = e->nrec + n;
    }
    for (size_t i = 0; i < n; i++) {
        e->rec[e->nrec + i] = r[i];
        e->rec[e->nrec + i].step += shift;
    }
    e->nrec += n;
    return BB_OK;
}

/* With the stream: e->rec := the mechanism's records of the last add, then
 * the stream's, the count stream's, then the warm-up's (steps H..2H-1:
 * bb_engine_warm_record). */
static int collect_records(struct bb_engine *e, int warm)
{
    const struct bb_mech_record *m, *r;
    const size_t nm = bb_mech_records(e->mech, &m), nr = bb_rstream_records(e->rs, &r);
    e->nrec = 0;
    int rc = append_records(e, m, nm, 0);
    if (rc == BB_OK)
        rc = append_records(e, r, nr, 0);
    if (rc == BB_OK && e->cs) {
        const size_t nc = bb_stream_records(e->cs, &r);
        rc = append_records(e, r, nc, 0);
    }
    if (rc == BB_OK && warm) {
        const size_t wm = bb_mech_records(e->wmech, &m), wr = bb_rstream_records(e->wrs, &r);
        rc = append_records(e, m, wm, e->p.H);
        if (rc == BB_OK)
            rc = append_records(e, r, wr, e->p.H);
    }
    return rc;
}

/* Whether every piece of noise the current state needs is present. */
static int ready(const struct bb_engine *e)
{
    int rc = bb_mech_ready(e->mech);
    if (rc == BB_OK && e->rs)
        rc = bb_rstream_ready(e->rs);
    if (rc == BB_OK && e->cs)
        rc = bb_stream_ready(e->cs);
    if (rc == BB_OK && e->wmech)
        rc = bb_mech_ready(e->wmech);
    if (rc == BB_OK && e->wrs)
        rc = bb_rstream_ready(e->wrs);
    return rc;
}

const double *bb_engine_gram(const struct bb_engine *e, int h)
{
    return e->gram + (size_t)h * e->p.d * e->p.d;
}

double bb_engine_logdet(const struct bb_engine *e, int h)
{
    return e->logdet[h];
}

const struct bb_billboard *bb_engine_billboard(const struct bb_engine *e)
{
    return &e->bb;
}

/* The chosen row of step h. */
static const double *chosen(const struct bb_engine *e, const struct bb_episode *ep, int h)
{
    return ep->features + ((size_t)h * e->p.A + (size_t)ep->action[h]) * e->p.d;
}

/* Points e->rows at the chosen row of every step of ep, with its weight
 * in e->weight and what the Gram matrices take of it in e->grows. */
static void chosen_rows(struct bb_engine *e, const struct bb_episode *ep)
{
    const int d = e->p.d;
    for (int h = 0; h < e->p.H; h++) {
        const double *phi = chosen(e, ep, h);
        const double w = bb_params_row_weight(&e->p, phi);
        e->rows[h] = e->grows[h] = phi;
        e->weight[h] = w;
        if (w != 1.0) {
            double *g = e->grow + (size_t)h * d;
            const double r = sqrt(w);
            for (int j = 0; j < d; j++)
                g[j] = r * phi[j];
            e->grows[h] = g;
        }
    }
}

/* With the count stream: e->cell and e->state := the path of ep, whose
 * rows domain_check found tabular: the cell of step h is its action's row
 * index s_h A + a_h, the state that row's index over A. */
static void tabular_path(struct bb_engine *e, const struct bb_episode *ep)
{
    const int A = e->p.A, d = e->p.d;
    for (int h = 0; h < e->p.H; h++) {
        const double *phi = chosen(e, ep, h);
        int one = 0;
        for (int j = 0; j < d; j++)
            if (phi[j] != 0)
                one = j;
        e->cell[h] = one;
        e->state[h] = one / A;
    }
}

/* After episode k was taken: if k is a release point, the released prefix
 * becomes Lambda~ (Alg. 1 line 19) and the schedule's view. */
static int warm_billboard(struct bb_engine *e);

static int after_add(struct bb_engine *e)
{
    long k = bb_mech_episodes(e->mech);
    if (e->wmech && k <= e->pw.K_max && bb_mech_is_release(e->wmech, k) && e->sched.updates == 0) {
        int rc = warm_billboard(e);
        if (rc != BB_OK)
            return rc;
    }
    if (!bb_mech_is_release(e->mech, k))
        return BB_OK;
    e->released = k;
    return refresh(e);
}

/* Every state of ep in the declared set (bb_params_state_ok); the pointer
 * to the first row that is not into field, as bb_episode_check. */
static int domain_check(const struct bb_engine *e, const struct bb_episode *ep, char *field,
                        size_t fieldlen, char *why, size_t whylen)
{
    const struct bb_params *p = &e->p;
    struct bb_params as_simplex;
    if (BB_MUTANT(SIMPLEX_OFF) && p->features == BB_FEATURES_SIMPLEX)
        return BB_OK;
    if (BB_MUTANT(TWO_HOT) && p->features == BB_FEATURES_ONEHOT) {
        as_simplex = *p;
        as_simplex.features = BB_FEATURES_SIMPLEX;
        p = &as_simplex;
    }
    for (int h = 0; h < p->H; h++) {
        int bad = 0;
        if (!bb_params_state_ok(p, ep->features + (size_t)h * p->A * p->d, NULL, &bad, why,
                                whylen)) {
            if (field && fieldlen)
                snprintf(field, fieldlen, "/steps/%d/features/%d", h, bad);
            return BB_EINVAL;
        }
    }
    return BB_OK;
}

int bb_engine_add(struct bb_engine *e, const struct bb_episode *ep, char *field, size_t fieldlen,
                  char *why, size_t whylen)
{
    if (e->store.n >= e->p.K_max)
        return BB_EFULL;
    if (ready(e) != BB_OK) /* recovery not finished: adding would draw over a gap */
        return BB_EINVAL;
    int rc = bb_episode_check(ep, e->p.H, e->p.A, e->p.d, field, fieldlen, why, whylen);
    if (rc == BB_OK)
        rc = domain_check(e, ep, field, fieldlen, why, whylen);
    if (rc != BB_OK)
        return rc;
    if ((rc = bb_store_append(&e->store, ep)) != BB_OK)
        return rc;
    /* Alg. 1 line 19: the counter of each step takes phi phi^T. Cannot fail
     * here: K_max was checked and no noise is missing. */
    chosen_rows(e, ep);
    rc = BB_MUTANT(COUNT_TWICE) ? mutant_add_twice(e) : bb_mech_add(e->mech, e->grows, e->rng);
    const int warm = e->wmech && e->store.n <= e->pw.K_max;
    if (rc == BB_OK && warm) /* the warm-up's counter takes the episodes before its last point */
        rc = bb_mech_add(e->wmech, e->grows, &e->rng_w);
    if (rc == BB_OK && warm)
        rc = bb_rstream_add(e->wrs, e->rows, e->weight, ep->reward, &e->rng_w);
    if (rc == BB_OK && e->rs) /* the reward stream takes the episode too */
        rc = bb_rstream_add(e->rs, e->rows, e->weight, ep->reward, &e->rng_r);
    if (rc == BB_OK && e->cs) { /* and the count stream its path */
        tabular_path(e, ep);
        rc = bb_cstream_add(e->cs, &e->p, e->cell, e->state, &e->rng_c);
    }
    if (rc == BB_OK && e->rs)
        rc = collect_records(e, warm);
    if (rc != BB_OK)
        return rc;
    return after_add(e);
}

static int replay_one(void *ctx, const struct bb_episode *ep)
{
    struct bb_engine *e = ctx;
    if (e->store.n >= e->p.K_max)
        return BB_EFULL;
    int rc = bb_episode_check(ep, e->p.H, e->p.A, e->p.d, NULL, 0, NULL, 0);
    if (rc == BB_OK)
        rc = domain_check(e, ep, NULL, 0, NULL, 0);
    if (rc == BB_OK)
        rc = bb_store_append(&e->store, ep);
    if (rc == BB_OK) {
        chosen_rows(e, ep);
        rc = bb_mech_replay(e->mech, e->grows);
    }
    if (rc == BB_OK && e->rs)
        rc = bb_rstream_add(e->rs, e->rows, e->weight, ep->reward, NULL);
    if (rc == BB_OK && e->cs) {
        tabular_path(e, ep);
        rc = bb_cstream_add(e->cs, &e->p, e->cell, e->state, NULL);
    }
    if (rc == BB_OK && e->wmech && e->store.n <= e->pw.K_max) {
        rc = bb_mech_replay(e->wmech, e->grows);
        if (rc == BB_OK)
            rc = bb_rstream_add(e->wrs, e->rows, e->weight, ep->reward, NULL);
    }
    return rc;
}

int bb_engine_recover(struct bb_engine *e, bb_engine_source src, void *ctx,
                      const struct bb_mech_record *rec, size_t nrec)
{
    if (e->store.n != 0)
        return BB_ECONFLICT;
    int rc = src(ctx, replay_one, e);
    for (size_t i = 0; rc == BB_OK && i < nrec; i++) {
        struct bb_mech_record r = rec[i];
        struct bb_mech *m = e->mech;
        struct bb_rstream *s = e->rs;
        if (r.step >= e->p.H) { /* the warm-up's (collect_records) */
            r.step -= e->p.H;
            m = e->wmech;
            s = e->wrs;
            if (!m) {
                rc = BB_EINVAL; /* a warm-up's record where none is in force */
                break;
            }
        }
        /* a stream's record where none is in force is malformed */
        if (bb_cstream_owns(&r))
            rc = e->cs && m == e->mech ? bb_stream_load(e->cs, &r) : BB_EINVAL;
        else if (bb_rstream_owns(&r))
            rc = s ? bb_rstream_load(s, &r) : BB_EINVAL;
        else
            rc = bb_mech_load(m, &r);
    }
    if (rc == BB_OK)
        rc = ready(e);
    if (rc != BB_OK)
        return rc;
    e->released = 0;
    for (long k = e->store.n; k >= 1 && !e->released; k--)
        if (bb_mech_is_release(e->mech, k))
            e->released = k;
    return refresh(e);
}

int bb_engine_restore_billboard(struct bb_engine *e, const struct bb_billboard *b, long updates)
{
    const struct bb_params *p = &e->p;
    /* Warm billboards (docs/PRIVACY.md §2.5) take the versions before the
     * updates': one per warm point reached (warm_billboard), all M once an
     * update was made (the first update comes after the last warm point). */
    const long warm = updates > 0 ? p->warm_points : bb_params_warm_reached(p, e->store.n);
    if (b->H != p->H || b->d != p->d || b->A != p->A ||
        updates + e->version_offset + warm < (long)b->version || updates > p->max_updates)
        return BB_EINVAL;
    struct bb_billboard copy;
    int rc = bb_billboard_copy(&copy, b);
    if (rc != BB_OK)
        return rc;
    if ((rc = bb_billboard_factor(&copy)) != BB_OK) {
        bb_billboard_release(&copy);
        return rc;
    }
    /* uniform: version 0, or a warm point whose Gram was indefinite */
    copy.uniform = p->prior_policy == BB_PRIOR_UNIFORM && updates == 0 &&
                   (copy.version == 0 || b->uniform);
    explore_fields(p, &copy);
    const size_t dd = (size_t)p->d * p->d;
    /* An update's billboard is the schedule's reference; a warm billboard
     * (computed before k0, below any update's episode) is no update, even
     * where an update was charged after it and lost to a crash: the
     * schedule keeps version 0's reference then. */
    const int reference = updates > 0 && (double)copy.episode >= p->release_start;
    for (int h = 0; reference && h < p->H; h++)
        e->sched.logdet_last[h] = bb_chol_logdet(copy.chol + h * dd, p->d);
    e->sched.updates = updates;
    if (reference)
        e->sched.last_episodes = (long)copy.episode;
    e->warm_published = warm;
    bb_billboard_release(&e->bb);
    e->bb = copy;
    return BB_OK;
}

/* At a warm point before the first update (docs/PRIVACY.md §2.5): the
 * billboard of the immediate rewards, w_h = Lambda~_w^-1 R~_w + kappa 1,
 * Lambda~_w the warm Gram prefix + its ridge (doubled
 * where indefinite, as refresh()), with the warm stream's sd for the
 * sample. A function of the warm releases only. */
static int warm_billboard(struct bb_engine *e)
{
    const struct bb_params *pw = &e->pw;
    const int H = e->p.H, d = e->p.d;
    const size_t dd = (size_t)d * d;
    const double ridge0 = pw->grid_gram > 0 ? ceil(pw->ridge / pw->grid_gram) * pw->grid_gram
                                            : pw->ridge;
    const double kappa = bb_params_y_centre(pw);
    double *gram = malloc(sizeof(double) * H * dd), *chol = malloc(sizeof(double) * H * dd);
    double *wt = malloc(sizeof(double) * (size_t)H * d), *sd = malloc(sizeof(double) * H);
    int rc = gram && chol && wt && sd ? BB_OK : BB_ENOMEM;
    for (int h = 0; rc == BB_OK && h < H; h++) {
        double *g = gram + h * dd, *l = chol + h * dd, *w = wt + (size_t)h * d;
        if ((rc = bb_mech_prefix(e->wmech, h, g)) != BB_OK)
            break;
        double r = ridge0;
        for (int j = 0; j < d; j++)
            g[(size_t)j * d + j] += r;
        rc = bb_chol(g, l, d);
        for (int j = 0; rc == BB_ENOTPD && j < BB_RIDGE_DOUBLINGS; j++) {
            for (int i = 0; i < d; i++)
                g[(size_t)i * d + i] += r;
            r *= 2;
            rc = bb_chol(g, l, d);
        }
        if (rc == BB_OK)
            rc = bb_rstream_release(e->wrs, h, w, &sd[h]);
        if (rc == BB_OK)
            rc = bb_chol_solve(l, d, w);
        /* + kappa 1: the centre back in the weights (phi^T 1 kappa is the
         * centre of a row's target), not through Lambda~, whose noise at
         * the warm points is large against its data */
        for (int j = 0; rc == BB_OK && j < d; j++)
            w[j] += kappa;
    }
    struct bb_billboard *b = &e->bb;
    if (rc == BB_OK) { /* indefinite after every doubling: the billboard before it stays */
        memcpy(b->gram, gram, sizeof(double) * H * dd);
        memcpy(b->chol, chol, sizeof(double) * H * dd);
        memcpy(b->w, wt, sizeof(double) * (size_t)H * d);
        memcpy(b->sigma_y, sd, sizeof(double) * H);
        b->factored = 1;
        b->uniform = 0;
        b->episode = (uint64_t)e->store.n;
    }
    if (rc == BB_OK || rc == BB_ENOTPD) { /* every warm point reached is numbered */
        e->warm_published++;
        b->version = (uint64_t)(e->version_offset + e->warm_published);
        fill_privacy(e, &b->privacy);
    }
    free(gram);
    free(chol);
    free(wt);
    free(sd);
    return rc == BB_ENOTPD ? BB_OK : rc;
}

int bb_engine_update_due(const struct bb_engine *e)
{
    return !e->busy && bb_schedule_due(&e->sched, e->logdet, e->released);
}

void bb_update_free(struct bb_update *u)
{
    if (!u)
        return;
    if (u->e)
        u->e->busy = 0;
    free(u->gram);
    free(u->chol);
    free(u->logdet);
    free(u->w);
    free(u->y_noisy);
    free(u->sigma_y);
    free(u->ridge_step);
    free(u->reward);
    free(u->reward_sd);
    free(u->counts);
    free(u->counts_sd);
    free(u);
}

int bb_engine_update_begin(struct bb_engine *e, struct bb_update **out)
{
    *out = NULL;
    if (e->busy)
        return BB_ECONFLICT;
    if (e->sched.updates >= e->p.max_updates)
        return BB_ECAP;
    if (!e->pd)
        return BB_ENOTPD;
    const int H = e->p.H, d = e->p.d;
    const size_t dd = (size_t)d * d;
    struct bb_update *u = calloc(1, sizeof(*u));
    if (!u)
        return BB_ENOMEM;
    u->gram = malloc(sizeof(double) * H * dd);
    u->chol = malloc(sizeof(double) * H * dd);
    u->logdet = malloc(sizeof(double) * H);
    u->w = calloc((size_t)H * d, sizeof(double));
    u->y_noisy = calloc((size_t)H * d, sizeof(double));
    u->sigma_y = calloc((size_t)H, sizeof(double));
    u->ridge_step = malloc(sizeof(double) * H);
    if (!u->gram || !u->chol || !u->logdet || !u->w || !u->y_noisy || !u->sigma_y ||
        !u->ridge_step) {
        bb_update_free(u);
        return BB_ENOMEM;
    }
    memcpy(u->gram, e->gram, sizeof(double) * H * dd);
    memcpy(u->chol, e->chol, sizeof(double) * H * dd);
    memcpy(u->logdet, e->logdet, sizeof(double) * H);
    memcpy(u->ridge_step, e->ridge_step, sizeof(double) * H);
    u->n = e->released; /* the data behind Lambda~, so w and Lambda~ agree */
    if (e->rs) { /* the stream's releases at the same point */
        u->reward = malloc(sizeof(double) * (size_t)H * d);
        u->reward_sd = malloc(sizeof(double) * H);
        int rc = u->reward && u->reward_sd ? BB_OK : BB_ENOMEM;
        for (int h = 0; rc == BB_OK && h < H; h++)
            rc = bb_rstream_release(e->rs, h, u->reward + (size_t)h * d, &u->reward_sd[h]);
        if (rc != BB_OK) {
            bb_update_free(u);
            return rc;
        }
    }
    if (e->cs) { /* and the count stream's */
        const size_t w = (size_t)d * (size_t)bb_params_states(&e->p);
        u->counts = malloc(sizeof(double) * (size_t)(H - 1) * w);
        u->counts_sd = malloc(sizeof(double) * (size_t)(H - 1));
        int rc = u->counts && u->counts_sd ? BB_OK : BB_ENOMEM;
        for (int h = 0; rc == BB_OK && h < H - 1; h++)
            rc = bb_stream_release(e->cs, h, u->counts + (size_t)h * w, &u->counts_sd[h]);
        if (rc != BB_OK) {
            bb_update_free(u);
            return rc;
        }
    }
    /* Charge the cap now: an update begun counts even if it later fails, so
     * N_max can never be exceeded by retries. */
    int rc = bb_schedule_record(&e->sched, u->logdet, u->n);
    if (rc != BB_OK) {
        bb_update_free(u);
        return rc;
    }
    u->number = e->sched.updates;
    u->prior_cut = bb_params_prior_cut(&e->p, u->n, bb_schedule_final(&e->sched, u->n));
    u->e = e;
    e->busy = 1;
    *out = u;
    return BB_OK;
}

int bb_engine_update_run(struct bb_update *u)
{
    struct bb_engine *e = u->e;
    struct bb_lsvi_job job = {
        .p = &e->p,
        .store = &e->store,
        .n = u->n,
        .chol = u->chol,
        .gram = u->gram,
        .y_noise = e->y_noise,
        .rng = &e->rng_y,
        .ridge = e->ridge,
        .ridge_step = u->ridge_step,
        .w = u->w,
        .y_noisy = u->y_noisy,
        .sigma_y = u->sigma_y,
        .reward = u->reward,
        .reward_sd = u->reward_sd,
        .counts = u->counts,
        .counts_sd = u->counts_sd,
        .update = u->number,
        .prior_cut = u->prior_cut,
    };
    int rc = bb_lsvi_run(&job, &e->ws);
    if (rc == BB_OK)
        u->ran = 1;
    return rc;
}

int bb_engine_update_finish(struct bb_engine *e, struct bb_update *u)
{
    if (!u->ran || u->e != e)
        return BB_EINVAL;
    const int H = e->p.H, d = e->p.d;
    const size_t dd = (size_t)d * d;
    struct bb_billboard *b = &e->bb;
    memcpy(b->w, u->w, sizeof(double) * H * d);
    memcpy(b->gram, u->gram, sizeof(double) * H * dd);
    memcpy(b->chol, u->chol, sizeof(double) * H * dd);
    memcpy(b->sigma_y, u->sigma_y, sizeof(double) * H); /* the plausible set's */
    b->factored = 1;
    b->uniform = 0; /* computed from data: the greedy policy from now on */
    b->version = (uint64_t)(e->sched.updates + e->version_offset + e->warm_published);
    b->episode = (uint64_t)u->n;
    fill_privacy(e, &b->privacy);
    b->privacy.episodes = u->n;
    return BB_OK;
}

const double *bb_update_y_noisy(const struct bb_update *u)
{
    return u->y_noisy;
}

int bb_engine_update(struct bb_engine *e)
{
    struct bb_update *u;
    int rc = bb_engine_update_begin(e, &u);
    if (rc != BB_OK)
        return rc;
    rc = bb_engine_update_run(u);
    if (rc == BB_OK)
        rc = bb_engine_update_finish(e, u);
    bb_update_free(u);
    return rc;
}

/* --- deliberate privacy bugs for the audit's mutation table (mutation.h) --- */

/* BB_MUT_COUNT_TWICE: phi phi^T enters the Gram sums twice, as
 * (sqrt 2 phi)(sqrt 2 phi)^T. */
static int mutant_add_twice(struct bb_engine *e)
{
    const int H = e->p.H, d = e->p.d;
    double *twice = malloc(sizeof(double) * (size_t)H * d);
    const double **rows = malloc(sizeof(*rows) * (size_t)H);
    int rc = BB_ENOMEM;
    if (twice && rows) {
        for (int h = 0; h < H; h++) {
            for (int j = 0; j < d; j++)
                twice[(size_t)h * d + j] = sqrt(2.0) * e->grows[h][j];
            rows[h] = twice + (size_t)h * d;
        }
        rc = bb_mech_add(e->mech, rows, e->rng);
    }
    free(twice);
    free(rows);
    return rc;
}

/* BB_MUT_REDRAW: the released prefix of step h as the exact sum of its
 * episodes' phi phi^T plus noise drawn now, each time it is read (a
 * restart included), instead of the stored noise. */
static int mutant_redraw(struct bb_engine *e, int h, double *g)
{
    const int d = e->p.d;
    const size_t dd = (size_t)d * d;
    double *z = malloc(sizeof(double) * dd);
    struct bb_rng fresh;
    struct bb_sym_sampler s;
    if (!z)
        return BB_ENOMEM;
    memset(g, 0, sizeof(double) * dd);
    long n = e->released;
    for (long b = 0; b * BB_STORE_BLOCK < n; b++) {
        const double *x = bb_store_chosen(&e->store, b, h);
        for (long i = 0; i < bb_store_block_len(b, n); i++) {
            const double *xi = x + (size_t)i * d, w = bb_params_row_weight(&e->p, xi);
            for (int j = 0; j < d; j++)
                for (int k = 0; k < d; k++)
                    g[(size_t)j * d + k] += w * xi[j] * xi[k];
        }
    }
    int rc = bb_sym_sampler_init(&s, e->p.sigma_gram_eff, e->p.grid_gram,
                                 bb_params_diagonal_gram(&e->p));
    if (rc == BB_OK && n > 0) {
        bb_rng_init_child(&fresh, e->rng);
        bb_sym_sampler_draw(&s, d, &fresh, z);
        bb_rng_release(&fresh);
        for (size_t i = 0; i < dd; i++)
            g[i] += z[i];
    }
    free(z);
    return rc;
}
