/*
 * factorization.c — the release-grid factorization mechanisms'
 * machinery (factorization.h): releases only at the grid points
 * k_1 < ... < k_G (bb_release_grid), over the increments
 * x_j = sum of phi phi^T over the episodes k_{j-1} < k <= k_j.
 *
 * A factorization mechanism A = B C of the G x G prefix-sum matrix A has a
 * lower-triangular Toeplitz strategy C (coefficients c_l) and decoder B
 * (b_l). At grid point k_j it draws Z_j (the symmetric noise of noise.h,
 * diagonal variance sigma^2), publishes nothing but
 *     y_j = snap((C x)_j) + Z_j,    (C x)_j = sum_{i<=j} c_{j-i} x_i,
 * and releases the prefix P_j = sum_{i<=j} b_{j-i} y_i — post-processing of
 * y_1..y_j, which are exact on the Gram grid. So P_j = sum_{i<=j} x_i plus
 * noise sum_{i<=j} b_{j-i} Z_i (plus the snapping of C x, where the
 * strategy mixes increments). The mechanisms choose C and B:
 * mech_grid.c, mech_grid_sqrt.c.
 *
 * Records: Z_j of step h, with slot = j (1-based) and tag = k_j. Each is
 * written once and never replaced; recovery needs all of them up to the
 * last grid point reached. Privacy: docs/PRIVACY.md.
 */
#include "factorization.h"

#include <stdlib.h>
#include <string.h>

#include "features.h"
#include "noise.h"
#include "release.h"

struct grid {
    int H, d, snap_outputs; /* snap_outputs: snap (C x)_j to the grid */
    long G;                 /* grid points */
    long *point;            /* owned, G: k_1 .. k_G */
    double *c, *b;          /* owned, G: strategy and decoder coefficients */
    long done;              /* completed increments (grid points reached) */
    struct bb_sym_sampler noise;
    double grid;         /* Gram grid */
    double *x;           /* owned, H * (G+1) * dd: increments; slot G is the open one past k_G */
    double *z;           /* owned, H * G * dd: Z_j */
    unsigned char *have; /* owned, H * G: Z_j present */
    double *scratch;     /* owned, dd */
};

static size_t dd_of(const struct grid *g)
{
    return (size_t)g->d * g->d;
}

static double *x_at(const struct grid *g, int h, long j)
{
    return g->x + ((size_t)h * (size_t)(g->G + 1) + (size_t)j) * dd_of(g);
}

static double *z_at(const struct grid *g, int h, long j)
{
    return g->z + ((size_t)h * (size_t)g->G + (size_t)j) * dd_of(g);
}

void factorization_release(struct bb_mech *m)
{
    struct grid *g = m->impl;
    free(g->point);
    free(g->c);
    free(g->b);
    free(g->x);
    free(g->z);
    free(g->have);
    free(g->scratch);
    free(g);
    m->impl = NULL;
}

int factorization_init(struct bb_mech *m, factorization_coefficients coefficients, int snap_outputs)
{
    const struct bb_params *p = m->p;
    struct grid *g = calloc(1, sizeof(*g));
    if (!g)
        return BB_ENOMEM;
    m->impl = g;
    g->H = p->H;
    g->d = p->d;
    g->snap_outputs = snap_outputs;
    g->G = bb_release_grid(p->release_start, p->release_base, p->K_max, NULL, 0);
    g->grid = p->grid_gram;
    if (g->G < 1)
        return BB_EINVAL;
    int rc =
        bb_sym_sampler_init(&g->noise, p->sigma_gram_eff, p->grid_gram, bb_params_diagonal_gram(p));
    if (rc != BB_OK)
        return rc;
    const size_t G = (size_t)g->G, dd = dd_of(g);
    g->point = malloc(G * sizeof(long));
    g->c = malloc(G * sizeof(double));
    g->b = malloc(G * sizeof(double));
    g->x = calloc((size_t)g->H * (G + 1) * dd, sizeof(double));
    g->z = calloc((size_t)g->H * G * dd, sizeof(double));
    g->have = calloc((size_t)g->H * G, 1);
    g->scratch = calloc(dd, sizeof(double));
    if (!g->point || !g->c || !g->b || !g->x || !g->z || !g->have || !g->scratch)
        return BB_ENOMEM;
    bb_release_grid(p->release_start, p->release_base, p->K_max, g->point, g->G);
    coefficients(g->c, g->b, g->G);
    return BB_OK;
}

int factorization_is_release(const struct bb_mech *m, long k)
{
    const struct grid *g = m->impl;
    long lo = 0, hi = g->G - 1;
    while (lo <= hi) {
        long mid = (lo + hi) / 2;
        if (g->point[mid] == k)
            return 1;
        if (g->point[mid] < k)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return 0;
}

int factorization_add(struct bb_mech *m, const double *const *phi, struct bb_rng *r)
{
    struct grid *g = m->impl;
    const long k = m->k + 1;
    const int d = g->d;
    const int release = g->done < g->G && g->point[g->done] == k;
    for (int h = 0; h < g->H; h++) {
        double *x = x_at(g, h, g->done); /* past k_G: the open slot G */
        for (int i = 0; i < d; i++)
            for (int j = i; j < d; j++) {
                double v = bb_grid_snap(phi[h][i] * phi[h][j], g->grid);
                x[(size_t)i * d + j] += v;
                if (j != i)
                    x[(size_t)j * d + i] += v;
            }
    }
    if (!release)
        return BB_OK;
    const long j = g->done;
    for (int h = 0; h < g->H; h++) {
        if (!r) { /* replay: Z_j comes from the store */
            g->have[(size_t)h * g->G + j] = 0;
            continue;
        }
        double *z = z_at(g, h, j);
        bb_sym_sampler_draw(&g->noise, d, r, z);
        g->have[(size_t)h * g->G + j] = 1;
        int rc = mech_emit(m, h, j + 1, k, z, dd_of(g) * sizeof(double));
        if (rc != BB_OK)
            return rc;
    }
    g->done++;
    return BB_OK;
}

int factorization_load(struct bb_mech *m, const struct bb_mech_record *rec)
{
    struct grid *g = m->impl;
    const long j = rec->slot - 1;
    if (j < 0 || j >= g->G || rec->tag != g->point[j] || rec->len != dd_of(g) * sizeof(double))
        return BB_EINVAL;
    if (j >= g->done)
        return BB_OK; /* a grid point not reached by the stored episodes: cannot be, ignore */
    unsigned char *have = &g->have[(size_t)rec->step * g->G + j];
    if (*have)
        return BB_ECONFLICT;
    memcpy(z_at(g, rec->step, j), rec->bytes, rec->len);
    *have = 1;
    return BB_OK;
}

int factorization_ready(const struct bb_mech *m)
{
    const struct grid *g = m->impl;
    for (int h = 0; h < g->H; h++)
        for (long j = 0; j < g->done; j++)
            if (!g->have[(size_t)h * g->G + j])
                return BB_EINVAL;
    return BB_OK;
}

int factorization_prefix(const struct bb_mech *m, int h, double *out)
{
    const struct grid *g = m->impl;
    if (factorization_ready(m) != BB_OK)
        return BB_EINVAL;
    /* the latest release, g->done - 1 (all zero before the first) */
    bb_factorization_decode(g->c, g->b, g->done - 1, x_at(g, h, 0), z_at(g, h, 0),
                            dd_of(g), g->grid, g->snap_outputs, g->scratch, out);
    return BB_OK;
}
