/*
 * cstream.c — the count stream (cstream.h; docs/PRIVACY.md §2.6), a stream
 * (stream.h) of d S entries per step h < H - 1.
 */
#include "cstream.h"

#include <stdlib.h>

#include "params.h"
#include "stream.h"

struct bb_cstream {
    struct bb_stream *s; /* owned */
    int H, d, S;
};

void bb_cstream_free(struct bb_cstream *s)
{
    if (!s)
        return;
    bb_stream_free(s->s);
    free(s);
}

int bb_cstream_new(const struct bb_params *p, struct bb_cstream **out)
{
    *out = NULL;
    if (!bb_params_counts(p))
        return BB_EINVAL;
    struct bb_cstream *s = calloc(1, sizeof(*s));
    double *sigma = malloc(sizeof(double) * (size_t)p->H);
    double *grid = malloc(sizeof(double) * (size_t)p->H);
    int rc = s && sigma && grid ? BB_OK : BB_ENOMEM;
    if (rc == BB_OK) {
        s->H = p->H;
        s->d = p->d;
        s->S = bb_params_states(p);
        for (int h = 0; h < p->H; h++) {
            sigma[h] = bb_params_sigma_counts_drawn(p);
            grid[h] = bb_params_grid_counts(p);
        }
        rc = bb_stream_new(p, p->H - 1, (size_t)s->d * (size_t)s->S, sigma, grid,
                           BB_STREAM_SLOTS, &s->s);
    }
    free(sigma);
    free(grid);
    if (rc != BB_OK) {
        bb_cstream_free(s);
        return rc;
    }
    *out = s;
    return BB_OK;
}

int bb_cstream_owns(const struct bb_mech_record *rec)
{
    return bb_stream_owns(BB_STREAM_SLOTS, rec);
}

/* An episode's path: its cells and states. */
struct path {
    const struct bb_cstream *s;
    const int *cell, *state;
};

/* step h's term: 1 at (cell_h, state_{h+1}) */
static void count_terms(void *ctx, int h, double g, double *x)
{
    (void)g; /* integers: on every grid of spacing 2^-j */
    const struct path *t = ctx;
    x[(size_t)t->cell[h] * (size_t)t->s->S + (size_t)t->state[h + 1]] += 1.0;
}

int bb_cstream_add(struct bb_cstream *s, const int *cell, const int *state, struct bb_rng *r)
{
    for (int h = 0; h < s->H; h++)
        if (cell[h] < 0 || cell[h] >= s->d || state[h] < 0 || state[h] >= s->S)
            return BB_EINVAL;
    struct path t = {s, cell, state};
    return bb_stream_add(s->s, count_terms, &t, r);
}

size_t bb_cstream_records(const struct bb_cstream *s, const struct bb_mech_record **out)
{
    return bb_stream_records(s->s, out);
}

int bb_cstream_load(struct bb_cstream *s, const struct bb_mech_record *rec)
{
    return bb_stream_load(s->s, rec);
}

int bb_cstream_ready(const struct bb_cstream *s)
{
    return bb_stream_ready(s->s);
}

int bb_cstream_release(const struct bb_cstream *s, int h, double *out, double *sd)
{
    return bb_stream_release(s->s, h, out, sd);
}
