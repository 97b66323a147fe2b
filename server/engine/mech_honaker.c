/*
 * mech_honaker.c — the binary tree with Honaker's online estimator behind
 * mech.h (`--mechanism tree-honaker`; docs/PRIVACY.md §1.5).
 *
 * The same tree per step as mech_tree.c (tree.h), with every node noised:
 * episode k draws the noise z_j of each node ending at k, levels
 * 0 .. tz(k) (two nodes per episode, amortized), where the plain tree draws
 * only the top one. The accounting already charges every leaf in L nodes,
 * so the privacy cost is the tree's. A node's noisy value is then replaced
 * by the inverse-variance combination of itself and its two children's
 * estimates (Honaker 2015, the bottom-up half, which is all an online
 * release can use): with node variance 1,
 *
 *     zhat_0 = z_0,   zhat_j = a_j z_j + (1 - a_j) (zhat_left + zhat_right),
 *     a_j = 2^j / (2^{j+1} - 1),   Var zhat_j = v_j = 2^j / (2^{j+1} - 1),
 *
 * the right child being the level-(j-1) node ending at k (just computed)
 * and the left one the live level-(j-1) node ending at k - 2^{j-1}. The
 * prefix of n adds the estimates of n's decomposition nodes: noise variance
 * sum over the set bits j of n of v_j, instead of popcount(n).
 *
 * Exactness: zhat_j is computed in integer units of the Gram grid g and
 * rounded half up, zhat_j / g = floor((2^j z_j + (2^j - 1)(zhat_l + zhat_r))
 * / g / (2^{j+1} - 1) + 1/2), so every estimate lies on the grid, prefixes
 * are exact sums, and — the node sums being on the grid and adding up — the
 * released prefix is exactly that integer function of the nodes' noisy
 * values x + z: post-processing, not a floating-point function of the noise.
 *
 * Records: per step the estimate zhat of the node of level tz(k), slot =
 * level, tag = k, replacing the stored one, as mech_tree.c does. The
 * estimates of the lower nodes ending at k are merged into it at once and
 * never needed again (no later estimate or prefix uses them), so they are
 * not emitted. Recovery needs only the live estimates, which is what the
 * records hold: bb_tree_replay() + bb_tree_load_node(), no draws.
 */
#include "mech_impl.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>

#include "features.h"
#include "release.h"
#include "tree.h"

struct honaker {
    struct bb_tree *t; /* owned, H */
    double *z;         /* owned, dd: the draw of the current node */
    double *zhat;      /* owned, dd: the estimate of the current node */
};

static void release(struct bb_mech *m)
{
    struct honaker *s = m->impl;
    if (s->t)
        for (int h = 0; h < m->p->H; h++)
            bb_tree_release(&s->t[h]);
    free(s->t);
    free(s->z);
    free(s->zhat);
    free(s);
    m->impl = NULL;
}

static int init(struct bb_mech *m)
{
    const struct bb_params *p = m->p;
    struct honaker *s = calloc(1, sizeof(*s));
    if (!s)
        return BB_ENOMEM;
    m->impl = s;
    const size_t dd = (size_t)p->d * p->d;
    s->t = calloc((size_t)p->H, sizeof(*s->t));
    s->z = calloc(dd, sizeof(double));
    s->zhat = calloc(dd, sizeof(double));
    if (!s->t || !s->z || !s->zhat)
        return BB_ENOMEM;
    for (int h = 0; h < p->H; h++) {
        int rc = bb_tree_init(&s->t[h], p->d, p->K_max, p->L, p->sigma_gram_eff, p->grid_gram,
                              bb_params_diagonal_gram(p));
        if (rc != BB_OK)
            return rc;
    }
    return BB_OK;
}

static int is_release(const struct bb_mech *m, long k)
{
    (void)m;
    (void)k;
    return 1;
}

/* floor(a / b) for b > 0. */
static __int128 floor_div(__int128 a, __int128 b)
{
    __int128 q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* The level-j estimate of one entry, in grid units (exact integers):
 * round half up of (2^j z + (2^j - 1)(l + r)) / (2^{j+1} - 1). Adding an
 * integer m to z, l and r at once (a node sum on the grid) adds exactly m. */
static int64_t estimate(int j, int64_t z, int64_t l, int64_t r)
{
    const __int128 w = (__int128)1 << j, den = 2 * w - 1;
    const __int128 num = w * z + (w - 1) * ((__int128)l + r);
    return (int64_t)floor_div(2 * num + den, 2 * den);
}

/* Episode k+1 in tree t: draws levels 0 .. tz(k+1), leaves the estimate of
 * the top one in s->zhat. Every value is a multiple of the grid g. */
static void estimate_top(struct honaker *s, const struct bb_tree *t, int top, struct bb_rng *r)
{
    const int d = t->d;
    const double g = t->grid;
    bb_tree_draw(t, r, s->zhat); /* level 0: zhat_0 = z_0 */
    for (int j = 1; j <= top; j++) {
        long leaf = 0;
        const double *left = bb_tree_node(t, j - 1, &leaf);
        /* tz(k+1) = top: bits 0 .. top-1 of k are set, so the live node of
         * level j-1 ends at k+1 - 2^(j-1), the left child. */
        assert(left && leaf == t->k + 1 - (1L << (j - 1)));
        bb_tree_draw(t, r, s->z);
        if (g == 0) /* no noise at all (sigma 0): every estimate is zero */
            continue;
        for (int a = 0; a < d; a++)
            for (int b = a; b < d; b++) {
                const size_t e = (size_t)a * d + b;
                double v = g * (double)estimate(j, (int64_t)(s->z[e] / g), (int64_t)(left[e] / g),
                                                (int64_t)(s->zhat[e] / g));
                s->zhat[e] = v;
                s->zhat[(size_t)b * d + a] = v;
            }
    }
}

static int add(struct bb_mech *m, const double *const *phi, struct bb_rng *r)
{
    struct honaker *s = m->impl;
    const size_t bytes = sizeof(double) * (size_t)m->p->d * m->p->d;
    for (int h = 0; h < m->p->H; h++) {
        struct bb_tree *t = &s->t[h];
        if (!r) {
            int rc = bb_tree_replay(t, phi[h]);
            if (rc != BB_OK)
                return rc;
            continue;
        }
        if (t->k >= t->K_max)
            return BB_EFULL;
        if (t->missing)
            return BB_EINVAL;
        int level = bb_tree_next_level(t);
        long leaf = 0;
        estimate_top(s, t, level, r);
        int rc = bb_tree_add_noise(t, phi[h], s->zhat, &level);
        if (rc != BB_OK)
            return rc;
        const double *zhat = bb_tree_node(t, level, &leaf);
        if ((rc = mech_emit(m, h, level, leaf, zhat, bytes)) != BB_OK)
            return rc;
    }
    return BB_OK;
}

static int load(struct bb_mech *m, const struct bb_mech_record *rec)
{
    struct honaker *s = m->impl;
    return mech_trees_load(m, s->t, rec);
}

static int ready(const struct bb_mech *m)
{
    const struct honaker *s = m->impl;
    return mech_trees_ready(m, s->t);
}

static int prefix(const struct bb_mech *m, int h, double *out)
{
    const struct honaker *s = m->impl;
    return bb_tree_prefix(&s->t[h], out);
}

/* The same nodes as the tree (all of them drawn): S = L; a prefix of n
 * sums Honaker's node estimates over the set bits j of n, variance v_j
 * each, at most bb_honaker_max_prefix_variance(K_max) in all. */
static void calibrate(const struct bb_params *p, double *sens_factor, double *prefix_terms)
{
    *sens_factor = p->L;
    *prefix_terms = bb_honaker_max_prefix_variance(p->K_max);
}

const struct bb_mech_ops mech_tree_honaker_ops = {
    .kind = BB_MECH_TREE_HONAKER,
    .name = "tree-honaker",
    .tree = 1,
    .calibrate = calibrate,
    .init = init,
    .release = release,
    .is_release = is_release,
    .add = add,
    .load = load,
    .ready = ready,
    .prefix = prefix,
};
