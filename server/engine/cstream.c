/*
 * cstream.c — the count stream (cstream.h; docs/PRIVACY.md §2.6), a stream
 * (stream.h) of d S entries per step h < H - 1.
 */
#include "cstream.h"

#include <stdlib.h>

#include "params.h"

int bb_cstream_new(const struct bb_params *p, struct bb_stream **out)
{
    *out = NULL;
    if (!bb_params_counts(p))
        return BB_EINVAL;
    double *sigma = malloc(sizeof(double) * (size_t)p->H);
    double *grid = malloc(sizeof(double) * (size_t)p->H);
    int rc = sigma && grid ? BB_OK : BB_ENOMEM;
    for (int h = 0; rc == BB_OK && h < p->H; h++) {
        sigma[h] = bb_params_sigma_counts_drawn(p);
        grid[h] = bb_params_grid_counts(p);
    }
    if (rc == BB_OK)
        rc = bb_stream_new(p, p->H - 1, (size_t)p->d * (size_t)bb_params_states(p), sigma, grid,
                           BB_STREAM_SLOTS, out);
    free(sigma);
    free(grid);
    return rc;
}

int bb_cstream_owns(const struct bb_mech_record *rec)
{
    return bb_stream_owns(BB_STREAM_SLOTS, rec);
}

/* An episode's path: its cells and states. */
struct path {
    int S;
    const int *cell, *state;
};

/* step h's term: 1 at (cell_h, state_{h+1}) */
static void count_terms(void *ctx, int h, double g, double *x)
{
    (void)g; /* integers: on every grid of spacing 2^-j */
    const struct path *t = ctx;
    x[(size_t)t->cell[h] * (size_t)t->S + (size_t)t->state[h + 1]] += 1.0;
}

int bb_cstream_add(struct bb_stream *s, const struct bb_params *p, const int *cell,
                   const int *state, struct bb_rng *r)
{
    const int S = bb_params_states(p);
    for (int h = 0; h < p->H; h++)
        if (cell[h] < 0 || cell[h] >= p->d || state[h] < 0 || state[h] >= S)
            return BB_EINVAL;
    struct path t = {S, cell, state};
    return bb_stream_add(s, count_terms, &t, r);
}
