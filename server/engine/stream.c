/*
 * stream.c — continual release of per-step vector sums (stream.h;
 * docs/PRIVACY.md §2.4, §2.6).
 */
#include "stream.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "noise.h"
#include "release.h"

struct bb_stream {
    const struct bb_params *p; /* borrowed */
    int steps;
    size_t w;                  /* entries per step */
    long slot0;
    long k;                    /* episodes taken */
    long G;                    /* grid points */
    long *point;               /* owned, G: k_1 .. k_G */
    double *c;                 /* owned, G: the square-root coefficients (C = B) */
    long done;                 /* grid points reached */
    struct bb_sampler *noise;  /* owned, steps: step h's */
    double *x;                 /* owned, steps * (G+1) * w: increments; slot G past k_G */
    double *z;                 /* owned, steps * G * w: Z_j */
    unsigned char *have;       /* owned, steps * G: Z_j present */
    double *y;                 /* owned, w: scratch */
    struct bb_mech_record *rec; /* owned, steps: the last add's records */
    size_t nrec;
};

static double *x_at(const struct bb_stream *s, int h, long j)
{
    return s->x + ((size_t)h * (size_t)(s->G + 1) + (size_t)j) * s->w;
}

static double *z_at(const struct bb_stream *s, int h, long j)
{
    return s->z + ((size_t)h * (size_t)s->G + (size_t)j) * s->w;
}

void bb_stream_free(struct bb_stream *s)
{
    if (!s)
        return;
    free(s->point);
    free(s->c);
    free(s->noise);
    free(s->x);
    free(s->z);
    free(s->have);
    free(s->y);
    free(s->rec);
    free(s);
}

int bb_stream_new(const struct bb_params *p, int steps, size_t width, const double *sigma,
                  const double *grid, long slot0, struct bb_stream **out)
{
    *out = NULL;
    if (steps < 1 || width < 1 || slot0 < 0 || slot0 % BB_STREAM_SLOTS != 0)
        return BB_EINVAL;
    struct bb_stream *s = calloc(1, sizeof(*s));
    if (!s)
        return BB_ENOMEM;
    s->p = p;
    s->steps = steps;
    s->w = width;
    s->slot0 = slot0;
    s->G = bb_release_grid(p->release_start, p->release_base, p->K_max, NULL, 0);
    int rc = BB_ENOMEM;
    if (s->G < 1 || s->G >= BB_STREAM_SLOTS) {
        rc = BB_EINVAL;
        goto fail;
    }
    const size_t G = (size_t)s->G, H = (size_t)steps;
    s->point = malloc(G * sizeof(long));
    s->c = malloc(G * sizeof(double));
    s->noise = calloc(H, sizeof(*s->noise));
    s->x = calloc(H * (G + 1) * width, sizeof(double));
    s->z = calloc(H * G * width, sizeof(double));
    s->have = calloc(H * G, 1);
    s->y = calloc(width, sizeof(double));
    s->rec = calloc(H, sizeof(*s->rec));
    if (!s->point || !s->c || !s->noise || !s->x || !s->z || !s->have || !s->y || !s->rec)
        goto fail;
    bb_release_grid(p->release_start, p->release_base, p->K_max, s->point, s->G);
    bb_sqrt_coefficients(s->c, s->G);
    for (int h = 0; h < steps; h++)
        if ((rc = bb_sampler_init(&s->noise[h], sigma[h], grid[h])) != BB_OK)
            goto fail;
    *out = s;
    return BB_OK;
fail:
    bb_stream_free(s);
    return rc;
}

int bb_stream_owns(long slot0, const struct bb_mech_record *rec)
{
    if (rec->slot >= 0)
        return 0;
    const long j = -(rec->slot + 1) - slot0; /* no overflow for any slot < 0 */
    return j >= 0 && j < BB_STREAM_SLOTS;
}

int bb_stream_ready(const struct bb_stream *s)
{
    for (int h = 0; h < s->steps; h++)
        for (long j = 0; j < s->done; j++)
            if (!s->have[(size_t)h * (size_t)s->G + (size_t)j])
                return BB_EINVAL;
    return BB_OK;
}

int bb_stream_add(struct bb_stream *s, bb_stream_terms terms, void *ctx, struct bb_rng *r)
{
    if (s->k >= s->p->K_max)
        return BB_EFULL;
    if (r && bb_stream_ready(s) != BB_OK)
        return BB_EINVAL; /* a replay is not complete: adding would draw over a gap */
    s->nrec = 0;
    for (int h = 0; h < s->steps; h++) /* past k_G: the open slot G */
        terms(ctx, h, s->noise[h].grid, x_at(s, h, s->done));
    s->k++;
    if (s->done >= s->G || s->point[s->done] != s->k)
        return BB_OK;
    const long j = s->done;
    for (int h = 0; h < s->steps; h++) {
        unsigned char *have = &s->have[(size_t)h * (size_t)s->G + (size_t)j];
        *have = 0;
        if (!r)
            continue; /* replay: Z_j comes from the store */
        double *z = z_at(s, h, j);
        for (size_t i = 0; i < s->w; i++)
            z[i] = bb_sampler_draw(&s->noise[h], r);
        *have = 1;
        s->rec[s->nrec++] = (struct bb_mech_record){.step = h,
                                                    .slot = -(s->slot0 + j + 1),
                                                    .tag = s->k,
                                                    .len = s->w * sizeof(double),
                                                    .bytes = z};
    }
    s->done++;
    return BB_OK;
}

size_t bb_stream_records(const struct bb_stream *s, const struct bb_mech_record **out)
{
    *out = s->rec;
    return s->nrec;
}

int bb_stream_load(struct bb_stream *s, const struct bb_mech_record *rec)
{
    if (!bb_stream_owns(s->slot0, rec))
        return BB_EINVAL;
    const long j = -(rec->slot + 1) - s->slot0;
    if (rec->step < 0 || rec->step >= s->steps || j >= s->G ||
        rec->tag != s->point[j] || rec->len != s->w * sizeof(double))
        return BB_EINVAL;
    if (j >= s->done)
        return BB_OK; /* a grid point the stored episodes never reached */
    unsigned char *have = &s->have[(size_t)rec->step * (size_t)s->G + (size_t)j];
    if (*have)
        return BB_ECONFLICT;
    memcpy(z_at(s, rec->step, j), rec->bytes, rec->len);
    *have = 1;
    return BB_OK;
}

int bb_stream_release(const struct bb_stream *s, int h, double *out, double *sd)
{
    if (h < 0 || h >= s->steps)
        return BB_ERANGE;
    if (bb_stream_ready(s) != BB_OK)
        return BB_EINVAL;
    const long t = s->done - 1; /* the latest release (all zero before the first) */
    bb_factorization_decode(s->c, s->c, t, x_at(s, h, 0), z_at(s, h, 0), s->w, s->noise[h].grid,
                            1, s->y, out);
    double b2 = 0; /* the decoder b = c */
    for (long l = 0; l <= t; l++)
        b2 += s->c[l] * s->c[l];
    *sd = s->noise[h].sigma * sqrt(b2);
    return BB_OK;
}
