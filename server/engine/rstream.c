/*
 * rstream.c — the reward stream (rstream.h; docs/PRIVACY.md §2.4).
 */
#include "rstream.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mutation.h"
#include "noise.h"
#include "params.h"
#include "release.h"

struct bb_rstream {
    const struct bb_params *p; /* borrowed */
    int H, d;
    long k;                    /* episodes taken */
    long G;                    /* grid points */
    long *point;               /* owned, G: k_1 .. k_G */
    double *c;                 /* owned, G: the square-root coefficients (C = B) */
    double kappa;              /* the centre, bb_params_y_centre */
    long done;                 /* grid points reached */
    struct bb_sampler *noise;  /* owned, H: step h's */
    double *x;                 /* owned, H * (G+1) * d: increments; slot G past k_G */
    double *z;                 /* owned, H * G * d: Z_j */
    unsigned char *have;       /* owned, H * G: Z_j present */
    double *y;                 /* owned, d: scratch */
    struct bb_mech_record *rec; /* owned, H: the last add's records */
    size_t nrec;
};

static double *x_at(const struct bb_rstream *s, int h, long j)
{
    return s->x + ((size_t)h * (size_t)(s->G + 1) + (size_t)j) * (size_t)s->d;
}

static double *z_at(const struct bb_rstream *s, int h, long j)
{
    return s->z + ((size_t)h * (size_t)s->G + (size_t)j) * (size_t)s->d;
}

void bb_rstream_free(struct bb_rstream *s)
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

int bb_rstream_new(const struct bb_params *p, struct bb_rstream **out)
{
    *out = NULL;
    if (!bb_params_reward_stream(p))
        return BB_EINVAL;
    struct bb_rstream *s = calloc(1, sizeof(*s));
    if (!s)
        return BB_ENOMEM;
    s->p = p;
    s->H = p->H;
    s->d = p->d;
    s->kappa = BB_MUTANT(STREAM_UNCENTRED) ? 0.0 : bb_params_y_centre(p);
    s->G = bb_release_grid(p->release_start, p->release_base, p->K_max, NULL, 0);
    int rc = BB_ENOMEM;
    if (s->G < 1) {
        rc = BB_EINVAL;
        goto fail;
    }
    const size_t G = (size_t)s->G, d = (size_t)s->d, H = (size_t)s->H;
    s->point = malloc(G * sizeof(long));
    s->c = malloc(G * sizeof(double));
    s->noise = calloc(H, sizeof(*s->noise));
    s->x = calloc(H * (G + 1) * d, sizeof(double));
    s->z = calloc(H * G * d, sizeof(double));
    s->have = calloc(H * G, 1);
    s->y = calloc(d, sizeof(double));
    s->rec = calloc(H, sizeof(*s->rec));
    if (!s->point || !s->c || !s->noise || !s->x || !s->z || !s->have || !s->y || !s->rec)
        goto fail;
    bb_release_grid(p->release_start, p->release_base, p->K_max, s->point, s->G);
    bb_sqrt_coefficients(s->c, s->G);
    for (int h = 0; h < s->H; h++)
        if ((rc = bb_sampler_init(&s->noise[h], bb_params_sigma_reward_drawn(p, h),
                                  bb_params_grid_reward(p, h))) != BB_OK)
            goto fail;
    *out = s;
    return BB_OK;
fail:
    bb_rstream_free(s);
    return rc;
}

int bb_rstream_owns(const struct bb_mech_record *rec)
{
    return rec->slot < 0;
}

int bb_rstream_ready(const struct bb_rstream *s)
{
    for (int h = 0; h < s->H; h++)
        for (long j = 0; j < s->done; j++)
            if (!s->have[(size_t)h * (size_t)s->G + (size_t)j])
                return BB_EINVAL;
    return BB_OK;
}

int bb_rstream_add(struct bb_rstream *s, const double *const *rows, const double *reward,
                   struct bb_rng *r)
{
    if (s->k >= s->p->K_max)
        return BB_EFULL;
    if (r && bb_rstream_ready(s) != BB_OK)
        return BB_EINVAL; /* a replay is not complete: adding would draw over a gap */
    s->nrec = 0;
    const int d = s->d;
    for (int h = 0; h < s->H; h++) {
        const double *phi = rows[h], g = s->noise[h].grid;
        double sum = 0;
        for (int j = 0; j < d; j++)
            sum += phi[j];
        const double t = reward[h] - s->kappa * sum;
        double *x = x_at(s, h, s->done); /* past k_G: the open slot G */
        for (int j = 0; j < d; j++)
            x[j] += bb_grid_snap(phi[j] * t, g);
    }
    s->k++;
    if (s->done >= s->G || s->point[s->done] != s->k)
        return BB_OK;
    const long j = s->done;
    for (int h = 0; h < s->H; h++) {
        unsigned char *have = &s->have[(size_t)h * (size_t)s->G + (size_t)j];
        *have = 0;
        if (!r)
            continue; /* replay: Z_j comes from the store */
        double *z = z_at(s, h, j);
        for (int i = 0; i < d; i++)
            z[i] = bb_sampler_draw(&s->noise[h], r);
        *have = 1;
        s->rec[s->nrec++] = (struct bb_mech_record){
            .step = h, .slot = -(j + 1), .tag = s->k, .len = (size_t)d * sizeof(double), .bytes = z};
    }
    s->done++;
    return BB_OK;
}

size_t bb_rstream_records(const struct bb_rstream *s, const struct bb_mech_record **out)
{
    *out = s->rec;
    return s->nrec;
}

int bb_rstream_load(struct bb_rstream *s, const struct bb_mech_record *rec)
{
    const long j = -rec->slot - 1;
    if (rec->step < 0 || rec->step >= s->H || j < 0 || j >= s->G || rec->tag != s->point[j] ||
        rec->len != (size_t)s->d * sizeof(double))
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

int bb_rstream_release(const struct bb_rstream *s, int h, double *out, double *sd)
{
    if (h < 0 || h >= s->H)
        return BB_ERANGE;
    if (bb_rstream_ready(s) != BB_OK)
        return BB_EINVAL;
    const long t = s->done - 1; /* the latest release (all zero before the first) */
    bb_factorization_decode(s->c, s->c, t, x_at(s, h, 0), z_at(s, h, 0), (size_t)s->d,
                            s->noise[h].grid, 1, s->y, out);
    double b2 = 0; /* the decoder b = c */
    for (long l = 0; l <= t; l++)
        b2 += s->c[l] * s->c[l];
    *sd = s->noise[h].sigma * sqrt(b2);
    return BB_OK;
}
