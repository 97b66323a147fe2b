/*
 * lsvi.c — least-squares value iteration, BLAS-3 (lsvi.h).
 */
#include "lsvi.h"

#include <cblas.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "billboard/billboard.h"
#include "linalg.h"
#include "mutation.h"
#include "params.h"

/* Rows per chunk: the chunk's copy for the triangular solve stays in L2. */
#define LSVI_CHUNK_ROWS 8192

int bb_lsvi_ws_init(struct bb_lsvi_ws *ws, int A, int d, int threads)
{
    memset(ws, 0, sizeof(*ws));
    if (threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (int)n : 1;
    }
    ws->threads = threads < BB_LSVI_MAX_THREADS ? threads : BB_LSVI_MAX_THREADS;
    size_t per = (size_t)(LSVI_CHUNK_ROWS / A);
    if (per < 1)
        per = 1;
    ws->rows = per * (size_t)A;
    ws->target = malloc(sizeof(double) * BB_STORE_BLOCK);
    ws->y = malloc(sizeof(double) * (size_t)d);
    ws->w_next = malloc(sizeof(double) * (size_t)d);
    ws->eye = calloc((size_t)d * d, sizeof(double));
    ws->sq = malloc(sizeof(double) * (size_t)d * d);
    ws->qd = malloc(sizeof(double) * (size_t)d);
    ws->linv = malloc(sizeof(double) * (size_t)d * d);
    ws->vs = malloc(sizeof(double) * (size_t)d);
    int ok = ws->target && ws->y && ws->w_next && ws->eye && ws->sq && ws->qd && ws->linv &&
             ws->vs;
    for (int j = 0; ok && j < d; j++)
        ws->eye[(size_t)j * d + j] = 1.0;
    for (int t = 0; t < ws->threads; t++) {
        ws->work[t] = malloc(sizeof(double) * ws->rows * (size_t)d);
        ws->q[t] = malloc(sizeof(double) * ws->rows);
        ok = ok && ws->work[t] && ws->q[t];
    }
    if (!ok) {
        bb_lsvi_ws_release(ws);
        return BB_ENOMEM;
    }
    return BB_OK;
}

void bb_lsvi_ws_release(struct bb_lsvi_ws *ws)
{
    for (int t = 0; t < BB_LSVI_MAX_THREADS; t++) {
        free(ws->work[t]);
        free(ws->q[t]);
    }
    free(ws->target);
    free(ws->y);
    free(ws->w_next);
    free(ws->eye);
    free(ws->sq);
    free(ws->qd);
    free(ws->linv);
    free(ws->vs);
    memset(ws, 0, sizeof(*ws));
}

/* One thread's share of a block: episodes [from, to). */
struct share {
    const struct bb_lsvi_job *job;
    struct bb_lsvi_ws *ws;
    int t;
    const double *feat, *chol, *w;
    double cap;
    long from, to;
    double discount; /* nu sigma_{h+1}: the next values' noise discount, 0 = none */
};

/* target[i] += clip(max_a (Q_{h+1}(x_{h+1}^i, a) - nu s_{h+1}(x_{h+1}^i, a)),
 * floor, cap) for the share's episodes, given their step-(h+1) feature rows:
 * Q_{h+1} clipped at cap (H or the steps remaining after h,
 * bb_params_value_cap, or the next-value bound) before the discount, and
 * s_{h+1}(x, a) = sigma_{h+1} ||Lambda~_{h+1}^-1 phi(x, a)||, the sd of the y
 * noise in Q_{h+1}(x, a) given Lambda~_{h+1} (docs/PRIVACY.md §3.5). */
static void *next_values(void *arg)
{
    const struct share *s = arg;
    const struct bb_params *p = s->job->p;
    const int A = p->A, d = p->d;
    const double cap = s->cap;
    const size_t per = s->ws->rows / (size_t)A;
    double *q = s->ws->q[s->t];
    for (long i0 = s->from; i0 < s->to; i0 += (long)per) {
        long m = s->to - i0 < (long)per ? s->to - i0 : (long)per;
        bb_q_values(d, s->chol, s->w, p->beta, cap, s->feat + (size_t)i0 * A * d, (size_t)m * A, q,
                    s->ws->work[s->t]);
        if (s->discount > 0) {
            /* work holds the rows (L^-1 x)^T (bb_q_values); times L^-1 on the
             * right: (L^-T L^-1 x)^T = (Lambda~^-1 x)^T */
            double *v = s->ws->work[s->t];
            cblas_dtrmm(CblasRowMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit,
                        (int)(m * A), d, 1.0, s->ws->linv, d, v, d);
            for (long r = 0; r < m * A; r++) {
                const double cut = s->discount * cblas_dnrm2(d, v + (size_t)r * d, 1);
                if (BB_MUTANT(DISCOUNT_AFTER_CLIP))
                    v[(size_t)r * d] = cut; /* taken off below, after the clip */
                else
                    q[r] -= cut;
            }
        }
        for (long i = 0; i < m; i++) {
            const double *qi = q + (size_t)i * A;
            const int best = bb_argmax(qi, A);
            double v = qi[best];
            if (v < p->v_floor && !BB_MUTANT(NO_LOWER_CLIP))
                v = p->v_floor;
            if (BB_MUTANT(DISCOUNT_AFTER_CLIP) && s->discount > 0)
                v -= s->ws->work[s->t][((size_t)i * A + best) * d];
            s->ws->target[i0 + i] += v;
        }
    }
    return NULL;
}

/* Centred targets (lsvi.h): target[i] -= c 1^T phi_i for the block's len
 * chosen rows phi_i (len x d). */
static void centre_targets(double *target, const double *chosen, long len, int d, double c)
{
    for (long i = 0; i < len; i++) {
        const double *x = chosen + (size_t)i * d;
        double sum = 0;
        for (int j = 0; j < d; j++)
            sum += x[j];
        target[i] -= c * sum;
    }
}

/* target[i] *= w_i, the weight of the block's chosen row i
 * (bb_params_row_weight): y_h is the sum of w phi t. */
static void weigh_targets(double *target, const double *chosen, long len, const struct bb_params *p)
{
    for (long i = 0; i < len; i++)
        target[i] *= bb_params_row_weight(p, chosen + (size_t)i * p->d);
}

/* ... and y~ += c (Lambda~ - ridge I) 1 after the noise: row sums of the
 * released Gram matrix, its ridge taken off the diagonal. */
static void uncentre(double *y, const double *gram, int d, double ridge, double c)
{
    for (int j = 0; j < d; j++) {
        const double *row = gram + (size_t)j * d;
        double sum = -ridge;
        for (int k = 0; k < d; k++)
            sum += row[k];
        y[j] += c * sum;
    }
}

/* y += sum_i snap(phi_i t_i) for the block's len chosen rows phi_i (len x
 * d), every product snapped to grid before it is added: the sum of values
 * on the grid is exact (bb_params_exact_k_max), whatever the order. */
static void add_snapped(double *y, const double *chosen, const double *target, long len, int d,
                        double grid)
{
    for (long i = 0; i < len; i++) {
        const double *x = chosen + (size_t)i * d, t = target[i];
        for (int j = 0; j < d; j++)
            y[j] += bb_grid_snap(x[j] * t, grid);
    }
}

/* Splits a block's len episodes over the workspace's threads, in whole
 * chunks, and waits for all of them. */
static void add_next_values(const struct bb_lsvi_job *job, struct bb_lsvi_ws *ws,
                            const double *feat, long len, const double *chol, const double *w,
                            double cap, double discount)
{
    const long per = (long)(ws->rows / (size_t)job->p->A);
    long chunks = (len + per - 1) / per;
    int n = ws->threads < chunks ? ws->threads : (int)chunks;
    struct share sh[BB_LSVI_MAX_THREADS];
    pthread_t tid[BB_LSVI_MAX_THREADS];
    int started[BB_LSVI_MAX_THREADS] = {0};
    for (int t = 0; t < n; t++) {
        long c0 = chunks * t / n, c1 = chunks * (t + 1) / n;
        sh[t] = (struct share){
            job, ws, t, feat, chol, w, cap, c0 * per, c1 * per < len ? c1 * per : len, discount};
    }
    for (int t = 1; t < n; t++)
        started[t] = pthread_create(&tid[t], NULL, next_values, &sh[t]) == 0;
    if (n > 0)
        next_values(&sh[0]);
    for (int t = 1; t < n; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            next_values(&sh[t]); /* no thread to be had: do it here */
    }
}

double bb_lsvi_next_bound(int d, const double *l, const double *u, double beta,
                          const double *eye, double *sq, double *q)
{
    bb_q_values(d, l, u, beta, INFINITY, eye, (size_t)d, q, sq);
    double b = 0;
    for (int j = 0; j < d; j++)
        if (q[j] > b)
            b = q[j];
    return (1.0 + BB_SIMPLEX_SLACK) * b;
}

/* With the counts (lsvi.h): v := the next values of the S tabular states,
 * whose rows e_{sA+a} are rows sA .. sA+A-1 of the identity, and y +=
 * N~_h (v - m 1) for the d x S release N (row-major), whose entries have
 * noise sd a; the centre goes back as m (Lambda~_h - r I) 1, whose
 * diagonal has noise sd b. Every m gives the same sum without noise; *m :=
 * the one with the least noise per coordinate, a^2 ||v - m 1||^2 + b^2
 * m^2: m = a^2 S vbar / (a^2 S + b^2) (vbar their mean; vbar itself
 * without noise). Returns that noise's sd. */
static double add_counted_values(const struct bb_lsvi_job *job, struct bb_lsvi_ws *ws,
                                 const double *N, const double *chol, const double *w,
                                 double cap, double discount, double a, double b, double *m)
{
    const int d = job->p->d, S = d / job->p->A;
    memset(ws->target, 0, sizeof(double) * (size_t)S);
    add_next_values(job, ws, ws->eye, S, chol, w, cap, discount);
    double mean = 0, norm = 0;
    for (int q = 0; q < S; q++)
        mean += ws->target[q];
    mean /= S;
    const double a2S = a * a * S, c = a2S + b * b > 0 ? a2S * mean / (a2S + b * b) : mean;
    for (int q = 0; q < S; q++) {
        ws->vs[q] = ws->target[q] - c;
        norm += ws->vs[q] * ws->vs[q];
    }
    cblas_dgemv(CblasRowMajor, CblasNoTrans, d, S, 1.0, N, S, ws->vs, 1, 1.0, ws->y, 1);
    *m = c;
    return sqrt(a * a * norm + b * b * c * c);
}

int bb_lsvi_run(const struct bb_lsvi_job *job, struct bb_lsvi_ws *ws)
{
    const struct bb_params *p = job->p;
    const int H = p->H, d = p->d;
    const size_t dd = (size_t)d * d;
    const long nblocks = (job->n + BB_STORE_BLOCK - 1) / BB_STORE_BLOCK;

    /* The weights the next values come from: step h+1's published w, or,
     * with a prior, its regression shrunk towards the prior (ws->w_next,
     * written at the end of step h+1). Step 0's target is the largest, so
     * a prior anywhere is one there. */
    const int prior = job->ridge > 0 && bb_params_prior_target(p, 0) != 0 && job->prior_cut < 1;
    const int bound = bb_params_next_bound(p);
    double b_next = INFINITY; /* B_{h+1}: none for the last step */
    const double centre = bb_params_y_centre(p);
    const int counts = job->counts != NULL;
    if ((centre > 0 || counts) && !job->gram)
        return BB_EINVAL;
    if (counts && (d % p->A != 0 || !job->counts_sd))
        return BB_EINVAL;
    const size_t dS = (size_t)d * (size_t)(d / p->A);
    double discount = 0; /* nu sigma_{h+1}: none for the last step */
    const int stream = job->reward != NULL;
    for (int h = H - 1; h >= 0; h--) {
        memset(ws->y, 0, sizeof(double) * (size_t)d);
        const double value_cap = bb_params_value_cap(p, h);
        double cap = value_cap;
        if (b_next < cap) /* also false for a NaN bound: the cap stands */
            cap = b_next;
        /* With the stream the noise scales with cap itself: a clip at a
         * larger cap is as valid and keeps its grid away from 0. */
        if (stream && cap < ldexp(value_cap, -20))
            cap = ldexp(value_cap, -20);
        const double *w_next = prior ? ws->w_next : job->w + (size_t)(h + 1) * d;
        /* c_h: 0 unless centred; the part summed here is the next values'
         * alone with the stream, the rewards' alone with the counts, and
         * both parts are added back below */
        const double c = centre * (counts ? 1.0 : stream ? cap : 1.0 + cap);
        const double ridge = job->ridge_step ? job->ridge_step[h] : job->ridge;
        const struct bb_sampler *ys = &job->y_noise[h];
        struct bb_sampler at;
        /* y_noise[h] draws at the base sd of the full cap; a smaller cap or
         * this update's share of rho_y draws at its own (ynoise.h) */
        if (ys->s2 != 0 && (cap < bb_params_value_cap(p, h) ||
                            bb_params_y_update_share(p, job->update) != 1.0)) {
            int rc = bb_sampler_init(&at, bb_params_sigma_y_drawn_update(p, h, cap, job->update),
                                     bb_params_grid_y_update(p, h, cap, job->update));
            if (rc != BB_OK)
                return rc;
            ys = &at;
        }
        const int exact = ys->s2 != 0 && bb_params_y_exact(p);
        if (discount > 0 && h < H - 1) { /* the next values' noise sds: L_{h+1}^-1 */
            int rc = bb_chol_inverse_factor(job->chol + (size_t)(h + 1) * dd, ws->linv, d);
            if (rc != BB_OK)
                return rc;
        }
        /* with the stream the episodes hold only the next values, which
         * the last step has none of and the counts hold: then y_h = 0 */
        const int sum = !stream || (!counts && h < H - 1);
        for (long b = 0; b < (sum ? nblocks : 0); b++) {
            long len = bb_store_block_len(b, job->n);
            if (stream) /* the rewards are the stream's (rstream.h) */
                memset(ws->target, 0, sizeof(double) * (size_t)len);
            else
                memcpy(ws->target, bb_store_reward(job->store, b, h),
                       sizeof(double) * (size_t)len);
            if (h < H - 1 && !counts)
                add_next_values(job, ws, bb_store_feat(job->store, b, h + 1), len,
                                job->chol + (size_t)(h + 1) * dd, w_next,
                                cap, discount);
            if (c > 0 && !BB_MUTANT(CENTRE_WRONG))
                centre_targets(ws->target, bb_store_chosen(job->store, b, h), len, d, c);
            if (p->row_weight == BB_ROW_WEIGHT_NORM)
                weigh_targets(ws->target, bb_store_chosen(job->store, b, h), len, p);
            /* y_h += Phi_h^T target (Alg. 1 line 8). */
            if (exact)
                add_snapped(ws->y, bb_store_chosen(job->store, b, h), ws->target, len, d,
                            ys->grid);
            else
                cblas_dgemv(CblasRowMajor, CblasTrans, (int)len, d, 1.0,
                            bb_store_chosen(job->store, b, h), d, ws->target, 1, 1.0, ws->y, 1);
        }
        double mean = 0, sd = ys->s2 != 0 ? ys->sigma : 0.0;
        if (counts && h < H - 1) /* the next values from the counts; their noise */
            sd = add_counted_values(job, ws, job->counts + (size_t)h * dS,
                                    job->chol + (size_t)(h + 1) * dd, w_next, cap, discount,
                                    job->counts_sd[h],
                                    bb_params_counts_gram_sd(p, job->counts_sd[h]), &mean);
        double *wh = job->w + (size_t)h * d;
        /* the sd of the noise in y~_h: this update's draw (or the counts')
         * and the stream's */
        if (stream)
            sd = sqrt(sd * sd + job->reward_sd[h] * job->reward_sd[h]);
        if (job->sigma_y)
            job->sigma_y[h] = sd;
        /* the noise in w_h, for step h-1's next values: none without noise */
        discount = p->next_discount * sd;
        for (int j = 0; j < d; j++) {
            double v = ws->y[j];
            if (ys->s2 != 0 && !counts && !(BB_MUTANT(NOISE_OFF_STEP) && h == 0)) /* line 9 */
                v = (exact ? v : bb_grid_snap(v, ys->grid)) + bb_sampler_draw(ys, job->rng);
            if (stream)
                v += job->reward[(size_t)h * d + j];
            wh[j] = v;
        }
        if (job->y_noisy) /* the releases themselves, each on its grid */
            memcpy(job->y_noisy + (size_t)h * d, wh, sizeof(double) * (size_t)d);
        if (counts) /* both parts' centres: the rewards' and the values' */
            uncentre(wh, job->gram + (size_t)h * dd, d, ridge,
                     mean + centre * (stream && h == H - 1 ? 1.0 + cap : 1.0));
        else if (centre > 0) /* c_h, or with the stream both parts' centres */
            uncentre(wh, job->gram + (size_t)h * dd, d, ridge, centre * (1.0 + cap));
        int rc;
        if (prior) { /* the next values of step h-1: towards m_h, not 0 */
            const double m = ridge * (1.0 - job->prior_cut) * bb_params_prior_target(p, h);
            for (int j = 0; j < d; j++)
                ws->w_next[j] = wh[j] + m;
            if ((rc = bb_chol_solve(job->chol + (size_t)h * dd, d, ws->w_next)) != BB_OK)
                return rc;
        }
        rc = bb_chol_solve(job->chol + (size_t)h * dd, d, wh); /* line 10 */
        if (rc != BB_OK)
            return rc;
        if (bound)
            b_next = bb_lsvi_next_bound(d, job->chol + (size_t)h * dd, prior ? ws->w_next : wh,
                                        p->beta, ws->eye, ws->sq, ws->qd);
    }
    return BB_OK;
}
