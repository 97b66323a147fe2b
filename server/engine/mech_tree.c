/*
 * mech_tree.c — the binary-tree mechanism behind mech.h: one tree per step
 * over K_max leaves (tree.h; the paper's counter, Alg. 1 line 19).
 *
 * Every episode is a release. Episode k completes, in each step's tree, the
 * node of level tz(k); its noise is the add's record for that step, with
 * slot = level and tag = k (the node's last leaf). A later node of the same
 * level replaces the record, which is all recovery needs: after n episodes
 * the live nodes are the newest node of each level whose bit of n is set.
 */
#include "mech_impl.h"

#include <stdlib.h>

#include "features.h"
#include "tree.h"

static int init(struct bb_mech *m)
{
    const struct bb_params *p = m->p;
    struct bb_tree *t = calloc((size_t)p->H, sizeof(*t));
    if (!t)
        return BB_ENOMEM;
    m->impl = t;
    for (int h = 0; h < p->H; h++) {
        int rc = bb_tree_init(&t[h], p->d, p->K_max, p->L, p->sigma_gram_eff, p->grid_gram,
                              bb_params_diagonal_gram(p));
        if (rc != BB_OK)
            return rc;
    }
    return BB_OK;
}

static void release(struct bb_mech *m)
{
    struct bb_tree *t = m->impl;
    for (int h = 0; h < m->p->H; h++)
        bb_tree_release(&t[h]);
    free(t);
    m->impl = NULL;
}

static int is_release(const struct bb_mech *m, long k)
{
    (void)m;
    (void)k;
    return 1;
}

static int add(struct bb_mech *m, const double *const *phi, struct bb_rng *r)
{
    struct bb_tree *t = m->impl;
    const size_t bytes = sizeof(double) * (size_t)m->p->d * m->p->d;
    for (int h = 0; h < m->p->H; h++) {
        if (!r) {
            int rc = bb_tree_replay(&t[h], phi[h]);
            if (rc != BB_OK)
                return rc;
            continue;
        }
        int level = 0;
        long leaf = 0;
        int rc = bb_tree_add(&t[h], phi[h], r, &level);
        if (rc != BB_OK)
            return rc;
        const double *noise = bb_tree_node(&t[h], level, &leaf);
        if ((rc = mech_emit(m, h, level, leaf, noise, bytes)) != BB_OK)
            return rc;
    }
    return BB_OK;
}

int mech_trees_load(const struct bb_mech *m, struct bb_tree *trees,
                    const struct bb_mech_record *rec)
{
    if (rec->len != sizeof(double) * (size_t)m->p->d * m->p->d || rec->slot < 0 ||
        rec->slot >= m->p->L)
        return BB_EINVAL;
    int rc = bb_tree_load_node(&trees[rec->step], (int)rec->slot, rec->tag, rec->bytes);
    return rc == BB_ENOTFOUND ? BB_OK : rc; /* a dead node: no longer in any prefix */
}

int mech_trees_ready(const struct bb_mech *m, const struct bb_tree *trees)
{
    for (int h = 0; h < m->p->H; h++)
        if (trees[h].missing)
            return BB_EINVAL;
    return BB_OK;
}

static int load(struct bb_mech *m, const struct bb_mech_record *rec)
{
    return mech_trees_load(m, m->impl, rec);
}

static int ready(const struct bb_mech *m)
{
    return mech_trees_ready(m, m->impl);
}

static int prefix(const struct bb_mech *m, int h, double *out)
{
    const struct bb_tree *t = m->impl;
    return bb_tree_prefix(&t[h], out);
}

/* Each episode lies in L nodes of coefficient 1: S = L; a prefix is the
 * sum of at most L live nodes: L. */
static void calibrate(const struct bb_params *p, double *sens_factor, double *prefix_terms)
{
    *sens_factor = p->L;
    *prefix_terms = p->L;
}

const struct bb_mech_ops mech_tree_ops = {
    .kind = BB_MECH_TREE,
    .name = "tree",
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
