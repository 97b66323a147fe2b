/*
 * lsvi.c — least-squares value iteration, BLAS-3 (lsvi.h).
 */
#include "lsvi.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#include "billboard/billboard.h"
#include "linalg.h"

/* Rows per chunk: the chunk's copy for the triangular solve stays in L2. */
#define LSVI_CHUNK_ROWS 8192

int bb_lsvi_ws_init(struct bb_lsvi_ws *ws, int A, int d)
{
    memset(ws, 0, sizeof(*ws));
    size_t per = (size_t)(LSVI_CHUNK_ROWS / A);
    if (per < 1)
        per = 1;
    ws->rows = per * (size_t)A;
    ws->work = malloc(sizeof(double) * ws->rows * (size_t)d);
    ws->q = malloc(sizeof(double) * ws->rows);
    ws->target = malloc(sizeof(double) * BB_STORE_BLOCK);
    ws->y = malloc(sizeof(double) * (size_t)d);
    if (!ws->work || !ws->q || !ws->target || !ws->y) {
        bb_lsvi_ws_release(ws);
        return BB_ENOMEM;
    }
    return BB_OK;
}

void bb_lsvi_ws_release(struct bb_lsvi_ws *ws)
{
    free(ws->work);
    free(ws->q);
    free(ws->target);
    free(ws->y);
    memset(ws, 0, sizeof(*ws));
}

/* target[i] += clip(max_a Q_{h+1}(x_{h+1}^i, a), floor, H) for the len
 * episodes of one block, given their step-(h+1) feature rows. */
static void add_next_values(const struct bb_lsvi_job *job, struct bb_lsvi_ws *ws,
                            const double *feat, long len, const double *chol, const double *w)
{
    const struct bb_params *p = job->p;
    const int A = p->A, d = p->d;
    const double cap = (double)p->H;
    const size_t per = ws->rows / (size_t)A;
    for (long i0 = 0; i0 < len; i0 += (long)per) {
        long m = len - i0 < (long)per ? len - i0 : (long)per;
        bb_q_values(d, chol, w, p->beta, cap, feat + (size_t)i0 * A * d, (size_t)m * A, ws->q,
                    ws->work);
        for (long i = 0; i < m; i++) {
            const double *q = ws->q + (size_t)i * A;
            double v = q[bb_argmax(q, A)];
            if (v < p->v_floor)
                v = p->v_floor;
            ws->target[i0 + i] += v;
        }
    }
}

int bb_lsvi_run(const struct bb_lsvi_job *job, struct bb_lsvi_ws *ws)
{
    const struct bb_params *p = job->p;
    const int H = p->H, d = p->d;
    const size_t dd = (size_t)d * d;
    const long nblocks = (job->n + BB_STORE_BLOCK - 1) / BB_STORE_BLOCK;

    for (int h = H - 1; h >= 0; h--) {
        memset(ws->y, 0, sizeof(double) * (size_t)d);
        for (long b = 0; b < nblocks; b++) {
            long len = bb_store_block_len(b, job->n);
            memcpy(ws->target, bb_store_reward(job->store, b, h), sizeof(double) * (size_t)len);
            if (h < H - 1)
                add_next_values(job, ws, bb_store_feat(job->store, b, h + 1), len,
                                job->chol + (size_t)(h + 1) * dd, job->w + (size_t)(h + 1) * d);
            /* y_h += Phi_h^T target (Alg. 1 line 8). */
            cblas_dgemv(CblasRowMajor, CblasTrans, (int)len, d, 1.0,
                        bb_store_chosen(job->store, b, h), d, ws->target, 1, 1.0, ws->y, 1);
        }
        double *wh = job->w + (size_t)h * d;
        for (int j = 0; j < d; j++) {
            double v = ws->y[j];
            if (job->y_noise->s2 != 0) /* Alg. 1 line 9, corrected sigma_y */
                v = bb_grid_snap(v, job->y_noise->grid) + bb_sampler_draw(job->y_noise, job->rng);
            wh[j] = v;
        }
        if (job->y_noisy)
            memcpy(job->y_noisy + (size_t)h * d, wh, sizeof(double) * (size_t)d);
        int rc = bb_chol_solve(job->chol + (size_t)h * dd, d, wh); /* line 10 */
        if (rc != BB_OK)
            return rc;
    }
    return BB_OK;
}
