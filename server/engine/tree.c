/*
 * tree.c — binary-tree mechanism with node noise drawn once (see tree.h).
 */
#include "tree.h"

#include <stdlib.h>
#include <string.h>

long bb_tree_node_of(long leaf, int level)
{
    return (leaf - 1) >> level;
}

int bb_tree_init(struct bb_tree *t, int d, long K_max, int L, double sigma, double grid,
                 int diagonal)
{
    memset(t, 0, sizeof(*t));
    if (d < 1 || K_max < 1 || L < 1 || L > BB_TREE_MAX_LEVELS || (1L << (L - 1)) < K_max)
        return BB_EINVAL;
    t->d = d;
    t->L = L;
    t->K_max = K_max;
    t->grid = grid;
    int rc = bb_sym_sampler_init(&t->noise_sampler, sigma, grid, diagonal);
    if (rc != BB_OK)
        return rc;
    size_t dd = (size_t)d * d;
    t->sum = calloc(dd, sizeof(double));
    t->noise = calloc(dd, sizeof(double));
    t->node = calloc(dd * (size_t)L, sizeof(double));
    t->scratch = calloc(dd, sizeof(double));
    if (!t->sum || !t->noise || !t->node || !t->scratch) {
        bb_tree_release(t);
        return BB_ENOMEM;
    }
    return BB_OK;
}

void bb_tree_release(struct bb_tree *t)
{
    free(t->sum);
    free(t->noise);
    free(t->node);
    free(t->scratch);
    memset(t, 0, sizeof(*t));
}

static int trailing_zeros(long k)
{
    return __builtin_ctzl((unsigned long)k);
}

/* Adds the snapped phi phi^T to sum, kills the nodes below the new one's
 * level and returns that level. */
static int append_leaf(struct bb_tree *t, const double *phi)
{
    int d = t->d;
    for (int i = 0; i < d; i++)
        for (int j = i; j < d; j++) {
            double c = bb_grid_snap(phi[i] * phi[j], t->grid);
            t->sum[(size_t)i * d + j] += c;
            if (j != i)
                t->sum[(size_t)j * d + i] += c;
        }
    t->k++;
    int level = trailing_zeros(t->k);
    size_t dd = (size_t)d * d;
    /* Leaf k completes the level-tz(k) node; the live nodes below it are now
     * inside it and leave the prefix decomposition. */
    for (int j = 0; j < level; j++) {
        double *nj = t->node + (size_t)j * dd;
        for (size_t e = 0; e < dd; e++)
            t->noise[e] -= nj[e];
        memset(nj, 0, dd * sizeof(double));
        t->node_leaf[j] = 0;
        t->missing &= ~(1ULL << j);
    }
    t->node_leaf[level] = t->k;
    return level;
}

static void set_node(struct bb_tree *t, int level, const double *noise)
{
    size_t dd = (size_t)t->d * t->d;
    double *n = t->node + (size_t)level * dd;
    memcpy(n, noise, dd * sizeof(double));
    for (size_t e = 0; e < dd; e++)
        t->noise[e] += n[e];
}

void bb_tree_draw(const struct bb_tree *t, struct bb_rng *r, double *z)
{
    bb_sym_sampler_draw(&t->noise_sampler, t->d, r, z);
}

int bb_tree_next_level(const struct bb_tree *t)
{
    return trailing_zeros(t->k + 1);
}

int bb_tree_add_noise(struct bb_tree *t, const double *phi, const double *noise, int *level)
{
    if (t->k >= t->K_max)
        return BB_EFULL;
    if (t->missing)
        return BB_EINVAL;
    int lv = append_leaf(t, phi);
    set_node(t, lv, noise);
    if (level)
        *level = lv;
    return BB_OK;
}

int bb_tree_add(struct bb_tree *t, const double *phi, struct bb_rng *r, int *level)
{
    if (t->k >= t->K_max)
        return BB_EFULL;
    if (t->missing)
        return BB_EINVAL;
    bb_tree_draw(t, r, t->scratch);
    return bb_tree_add_noise(t, phi, t->scratch, level);
}

int bb_tree_replay(struct bb_tree *t, const double *phi)
{
    if (t->k >= t->K_max)
        return BB_EFULL;
    int lv = append_leaf(t, phi);
    t->missing |= 1ULL << lv;
    return BB_OK;
}

int bb_tree_load_node(struct bb_tree *t, int level, long leaf, const double *noise)
{
    if (level < 0 || level >= t->L || t->node_leaf[level] != leaf || leaf == 0)
        return BB_ENOTFOUND;
    if (!(t->missing & (1ULL << level)))
        return BB_ECONFLICT; /* already present: never replace noise */
    set_node(t, level, noise);
    t->missing &= ~(1ULL << level);
    return BB_OK;
}

const double *bb_tree_node(const struct bb_tree *t, int level, long *leaf)
{
    if (level < 0 || level >= t->L || t->node_leaf[level] == 0 ||
        (t->missing & (1ULL << level)))
        return NULL;
    if (leaf)
        *leaf = t->node_leaf[level];
    return t->node + (size_t)level * t->d * t->d;
}

int bb_tree_prefix(const struct bb_tree *t, double *out)
{
    if (t->missing)
        return BB_EINVAL;
    size_t dd = (size_t)t->d * t->d;
    for (size_t e = 0; e < dd; e++)
        out[e] = t->sum[e] + t->noise[e];
    return BB_OK;
}
