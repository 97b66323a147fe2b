/*
 * policy.c — billboard + features -> Q-values -> action (Alg. 1 lines 11–12, 17).
 *
 * Used unchanged by clinics (through libbillboard), by POST /v1/recommend and
 * by the LSVI backward pass, so every party computes the same policy.
 */
#include "billboard/billboard.h"

#include <cblas.h>
#include <math.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "linalg.h"

void bb_q_values(int d, const double *l, const double *w, double beta, double cap,
                 const double *x, size_t rows, double *q, double *work)
{
    /* Z = X L^-T, i.e. z_r = L^-1 x_r, so ||z_r||^2 = x_r^T Lambda^-1 x_r. */
    memcpy(work, x, sizeof(double) * rows * (size_t)d);
    cblas_dtrsm(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, (int)rows, d,
                1.0, l, d, work, d);
    for (size_t r = 0; r < rows; r++) {
        const double *xr = x + r * (size_t)d, *zr = work + r * (size_t)d;
        double mean = 0.0, n2 = 0.0;
#pragma omp simd reduction(+ : mean, n2)
        for (int j = 0; j < d; j++) {
            mean += xr[j] * w[j];
            n2 += zr[j] * zr[j];
        }
        double v = mean + beta * sqrt(n2);
        q[r] = v < cap ? v : cap;
    }
}

int bb_argmax(const double *q, int n)
{
    int best = 0;
    for (int a = 1; a < n; a++)
        if (q[a] > q[best])
            best = a;
    return best;
}

int bb_billboard_init(struct bb_billboard *b, int H, int d, int A)
{
    memset(b, 0, sizeof(*b));
    if (H < 1 || d < 1 || A < 1)
        return BB_EINVAL;
    b->H = H;
    b->d = d;
    b->A = A;
    size_t hd = (size_t)H * d, hdd = hd * d;
    b->w = calloc(hd, sizeof(double));
    b->gram = calloc(hdd, sizeof(double));
    b->chol = calloc(hdd, sizeof(double));
    b->sigma_y = calloc((size_t)H, sizeof(double));
    if (!b->w || !b->gram || !b->chol || !b->sigma_y) {
        bb_billboard_release(b);
        return BB_ENOMEM;
    }
    return BB_OK;
}

void bb_billboard_release(struct bb_billboard *b)
{
    free(b->w);
    free(b->gram);
    free(b->chol);
    free(b->sigma_y);
    memset(b, 0, sizeof(*b));
}

int bb_billboard_copy(struct bb_billboard *dst, const struct bb_billboard *src)
{
    int rc = bb_billboard_init(dst, src->H, src->d, src->A);
    if (rc != BB_OK)
        return rc;
    size_t hd = (size_t)src->H * src->d, hdd = hd * src->d;
    memcpy(dst->w, src->w, hd * sizeof(double));
    memcpy(dst->gram, src->gram, hdd * sizeof(double));
    memcpy(dst->chol, src->chol, hdd * sizeof(double));
    memcpy(dst->sigma_y, src->sigma_y, (size_t)src->H * sizeof(double));
    dst->plausible_z = src->plausible_z;
    dst->plausible_floor = src->plausible_floor;
    dst->sample = src->sample;
    dst->factored = src->factored;
    dst->version = src->version;
    dst->episode = src->episode;
    dst->beta = src->beta;
    dst->uniform = src->uniform;
    dst->privacy = src->privacy;
    return BB_OK;
}

int bb_billboard_factor(struct bb_billboard *b)
{
    size_t dd = (size_t)b->d * b->d;
    for (int h = 0; h < b->H; h++) {
        int rc = bb_chol(b->gram + h * dd, b->chol + h * dd, b->d);
        if (rc != BB_OK) {
            b->factored = 0;
            return rc;
        }
    }
    b->factored = 1;
    return BB_OK;
}

/* Rows Lambda~_h^-1 x_a into v (A*d) from the rows x_a in features: x L^-T,
 * then (.) L^-1, i.e. L^-T (L^-1 x). */
static void inverse_rows(const struct bb_billboard *b, int h, const double *features, double *v)
{
    const int A = b->A, d = b->d;
    const double *l = b->chol + (size_t)(h - 1) * d * d;
    memcpy(v, features, sizeof(double) * (size_t)A * d);
    cblas_dtrsm(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, A, d, 1.0, l, d,
                v, d);
    cblas_dtrsm(CblasRowMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, A, d, 1.0, l,
                d, v, d);
}

int bb_billboard_plausible(const struct bb_billboard *b, int h, const double *features,
                           const double *q, unsigned char *set)
{
    if (!b->factored)
        return BB_EINVAL;
    if (h < 1 || h > b->H)
        return BB_ERANGE;
    const int A = b->A, d = b->d, g = bb_argmax(q, A);
    const double width = b->plausible_z * b->sigma_y[h - 1];
    memset(set, 0, (size_t)A);
    set[g] = 1;
    if (b->uniform || !(width > 0))
        return 1;
    double *v = malloc(sizeof(double) * (size_t)A * d);
    if (!v)
        return BB_ENOMEM;
    inverse_rows(b, h, features, v);
    /* In units of ||Lambda~^-1 x||: width = z sigma, noise floor f range / sigma. */
    const double lowest = q[g] - width * cblas_dnrm2(d, v + (size_t)g * d, 1);
    const double min_r = b->plausible_floor * (double)(b->H - h + 1) / b->sigma_y[h - 1];
    int n = 1;
    for (int a = 0; a < A; a++) {
        const double r = cblas_dnrm2(d, v + (size_t)a * d, 1);
        if (a != g && q[a] + width * r >= lowest && r >= min_r) {
            set[a] = 1;
            n++;
        }
    }
    free(v);
    return n;
}

int bb_billboard_sample(const struct bb_billboard *b, int h, const double *features, double *v)
{
    if (!b->factored)
        return BB_EINVAL;
    if (h < 1 || h > b->H)
        return BB_ERANGE;
    inverse_rows(b, h, features, v);
    const double s = b->sigma_y[h - 1];
    for (size_t j = 0; j < (size_t)b->A * b->d; j++)
        v[j] *= s;
    return BB_OK;
}

int bb_sample_pick(int A, int d, const double *q, const double *v, const double *z)
{
    int best = 0;
    double top = -INFINITY;
    for (int a = 0; a < A; a++) {
        const double *va = v + (size_t)a * d;
        double s = q[a];
        for (int j = 0; j < d; j++)
            s += va[j] * z[j];
        if (s > top) {
            top = s;
            best = a;
        }
    }
    return best;
}

/* One of the n actions with set[a] = 1, uniformly (libsodium). */
static int draw_from(const unsigned char *set, int A, int n, int *action)
{
    if (sodium_init() < 0)
        return BB_EIO; /* no entropy source: no honest random draw */
    int k = (int)randombytes_uniform((uint32_t)n);
    for (int a = 0; a < A; a++)
        if (set[a] && k-- == 0) {
            *action = a;
            return BB_OK;
        }
    return BB_EINVAL; /* n was not the set's size */
}

int bb_plausible_pick(int A, int d, const double *features, const unsigned char *set,
                      const double *z)
{
    int best = -1;
    double top = -INFINITY;
    for (int a = 0; a < A; a++) {
        if (set && !set[a])
            continue;
        const double *x = features + (size_t)a * d;
        double v = 0.0;
        for (int j = 0; j < d; j++)
            v += x[j] * z[j];
        if (best < 0 || v > top) {
            top = v;
            best = a;
        }
    }
    return best < 0 ? 0 : best;
}

/* The episode's direction for step h: z when given, else derived from
 * episode_key into *own (allocated, the caller frees), else NULL. Called only
 * where the policy is random, so a greedy answer derives nothing. */
static int episode_direction(const struct bb_billboard *b, int h, const double *z,
                             const char *episode_key, double **own, const double **out)
{
    *out = z;
    if (z || !episode_key)
        return BB_OK;
    if (!(*own = malloc(sizeof(double) * (size_t)b->d)))
        return BB_ENOMEM;
    int rc = bb_explore_direction(episode_key, h, b->d, *own);
    if (rc == BB_OK)
        *out = *own;
    return rc;
}

/* The action a sample of the y noise prefers (bb_billboard_sample): the
 * direction z, else episode_key's for step h, else a fresh one (libsodium). */
static int act_on_sample(const struct bb_billboard *b, int h, const double *features,
                         const double *z, const char *episode_key, const double *q, int *action)
{
    const int A = b->A, d = b->d;
    char fresh[2 * 16 + 1];
    if (!z && !episode_key) { /* a fresh direction: a random key's */
        if (sodium_init() < 0)
            return BB_EIO; /* no entropy source: no honest random draw */
        unsigned char raw[16];
        randombytes_buf(raw, sizeof(raw));
        sodium_bin2hex(fresh, sizeof(fresh), raw, sizeof(raw));
        episode_key = fresh;
    }
    double *v = malloc(sizeof(double) * (size_t)A * d), *own = NULL;
    const double *dir = NULL;
    int rc = v ? bb_billboard_sample(b, h, features, v) : BB_ENOMEM;
    if (rc == BB_OK)
        rc = episode_direction(b, h, z, episode_key, &own, &dir);
    if (rc == BB_OK)
        *action = bb_sample_pick(A, d, q, v, dir);
    free(v);
    free(own);
    return rc;
}

/* bb_billboard_act_episode with the direction given (z) or derived from
 * episode_key when it is needed. */
static int act(const struct bb_billboard *b, int h, const double *features, const double *z,
               const char *episode_key, double *q, int *action)
{
    if (!b->factored)
        return BB_EINVAL;
    if (h < 1 || h > b->H)
        return BB_ERANGE;
    size_t dd = (size_t)b->d * b->d;
    double *work = malloc(sizeof(double) * (size_t)b->A * b->d), *own = NULL;
    if (!work)
        return BB_ENOMEM;
    bb_q_values(b->d, b->chol + (size_t)(h - 1) * dd, b->w + (size_t)(h - 1) * b->d, b->beta,
                (double)b->H, features, (size_t)b->A, q, work);
    free(work);
    if (!action)
        return BB_OK;
    const double *dir = NULL;
    unsigned char *set = NULL;
    int rc = BB_OK, n = b->A; /* version 0: random among all actions */
    if (!b->uniform && b->sample && b->sigma_y[h - 1] > 0)
        return act_on_sample(b, h, features, z, episode_key, q, action);
    if (!b->uniform) {
        set = malloc((size_t)b->A);
        n = set ? bb_billboard_plausible(b, h, features, q, set) : BB_ENOMEM;
    }
    if (n < 0) {
        rc = n;
    } else if (n == 1) {
        *action = bb_argmax(q, b->A);
    } else if ((rc = episode_direction(b, h, z, episode_key, &own, &dir)) == BB_OK) {
        if (dir) /* the episode's own pick: correlated across steps (explore.c) */
            *action = bb_plausible_pick(b->A, b->d, features, set, dir);
        else if (set)
            rc = draw_from(set, b->A, n, action);
        else if (sodium_init() < 0)
            rc = BB_EIO; /* no entropy source: no honest random draw */
        else
            *action = (int)randombytes_uniform((uint32_t)b->A);
    }
    free(set);
    free(own);
    return rc;
}

int bb_billboard_act_episode(const struct bb_billboard *b, int h, const double *features,
                             const double *z, double *q, int *action)
{
    return act(b, h, features, z, NULL, q, action);
}

int bb_billboard_act_keyed(const struct bb_billboard *b, int h, const double *features,
                           const char *episode_key, double *q, int *action)
{
    return act(b, h, features, NULL, episode_key, q, action);
}

int bb_billboard_act(const struct bb_billboard *b, int h, const double *features, double *q,
                     int *action)
{
    return bb_billboard_act_episode(b, h, features, NULL, q, action);
}
