/*
 * rstream.c — the reward stream (rstream.h; docs/PRIVACY.md §2.4), a
 * stream (stream.h) of d entries per step.
 */
#include "rstream.h"

#include <stdlib.h>

#include "mutation.h"
#include "noise.h"
#include "params.h"
#include "stream.h"

struct bb_rstream {
    struct bb_stream *s; /* owned */
    int H, d;
    double kappa;        /* the centre, bb_params_y_centre */
};

void bb_rstream_free(struct bb_rstream *s)
{
    if (!s)
        return;
    bb_stream_free(s->s);
    free(s);
}

int bb_rstream_new(const struct bb_params *p, struct bb_rstream **out)
{
    *out = NULL;
    if (!bb_params_reward_stream(p))
        return BB_EINVAL;
    struct bb_rstream *s = calloc(1, sizeof(*s));
    double *sigma = malloc(sizeof(double) * (size_t)p->H);
    double *grid = malloc(sizeof(double) * (size_t)p->H);
    int rc = s && sigma && grid ? BB_OK : BB_ENOMEM;
    if (rc == BB_OK) {
        s->H = p->H;
        s->d = p->d;
        s->kappa = BB_MUTANT(STREAM_UNCENTRED) ? 0.0 : bb_params_y_centre(p);
        for (int h = 0; h < p->H; h++) {
            sigma[h] = bb_params_sigma_reward_drawn(p, h);
            grid[h] = bb_params_grid_reward(p, h);
        }
        rc = bb_stream_new(p, p->H, (size_t)p->d, sigma, grid, 0, &s->s);
    }
    free(sigma);
    free(grid);
    if (rc != BB_OK) {
        bb_rstream_free(s);
        return rc;
    }
    *out = s;
    return BB_OK;
}

int bb_rstream_owns(const struct bb_mech_record *rec)
{
    return bb_stream_owns(0, rec);
}

/* An episode's terms: its chosen rows and rewards. */
struct terms {
    const struct bb_rstream *s;
    const double *const *rows;
    const double *weight;
    const double *reward;
};

/* step h's term w phi (r - kappa 1^T phi), w the row's weight, every
 * product snapped */
static void reward_terms(void *ctx, int h, double g, double *x)
{
    const struct terms *t = ctx;
    const int d = t->s->d;
    const double *phi = t->rows[h];
    double sum = 0;
    for (int j = 0; j < d; j++)
        sum += phi[j];
    const double c = (t->reward[h] - t->s->kappa * sum) * t->weight[h];
    for (int j = 0; j < d; j++)
        x[j] += bb_grid_snap(phi[j] * c, g);
}

int bb_rstream_add(struct bb_rstream *s, const double *const *rows, const double *weight,
                   const double *reward, struct bb_rng *r)
{
    struct terms t = {s, rows, weight, reward};
    return bb_stream_add(s->s, reward_terms, &t, r);
}

size_t bb_rstream_records(const struct bb_rstream *s, const struct bb_mech_record **out)
{
    return bb_stream_records(s->s, out);
}

int bb_rstream_load(struct bb_rstream *s, const struct bb_mech_record *rec)
{
    return bb_stream_load(s->s, rec);
}

int bb_rstream_ready(const struct bb_rstream *s)
{
    return bb_stream_ready(s->s);
}

int bb_rstream_release(const struct bb_rstream *s, int h, double *out, double *sd)
{
    return bb_stream_release(s->s, h, out, sd);
}
