/*
 * mech_impl.h — what a continual-release mechanism implements (mech.h).
 *
 * Engine-internal. mech.c keeps the episode count and the record list and
 * checks the arguments; an implementation keeps its own state in impl and
 * emits records with mech_emit(). Adding a mechanism: one file with its
 * ops, one line in mech.c's table, its calibration in params.c and its proof
 * in docs/PRIVACY.md.
 */
#ifndef BB_MECH_IMPL_H
#define BB_MECH_IMPL_H

#include "mech.h"

struct bb_mech {
    const struct bb_mech_ops *ops;
    const struct bb_params *p;  /* borrowed */
    long k;                     /* episodes taken */
    void *impl;                 /* owned by ops */
    struct bb_mech_record *rec; /* owned: records of the last add */
    size_t nrec, caprec;
};

struct bb_mech_ops {
    enum bb_mechanism kind;
    /* Allocates m->impl. */
    int (*init)(struct bb_mech *m);
    void (*release)(struct bb_mech *m);
    int (*is_release)(const struct bb_mech *m, long k);
    /* Episode m->k + 1 (m->k is incremented by mech.c afterwards). r is
     * NULL in a replay: draw nothing, mark the noise due as missing. */
    int (*add)(struct bb_mech *m, const double *const *phi, struct bb_rng *r);
    int (*load)(struct bb_mech *m, const struct bb_mech_record *rec);
    int (*ready)(const struct bb_mech *m);
    int (*prefix)(const struct bb_mech *m, int h, double *out);
};

/* Appends a record to the current add's list. BB_OK or BB_ENOMEM. */
int mech_emit(struct bb_mech *m, int step, long slot, long tag, const void *bytes, size_t len)
    BB_WARN_UNUSED;

/* For the mechanisms over one binary tree per step (mech_tree.c, whose
 * records are a node per (step, level)): load a record into trees[step],
 * ignoring a dead node; and whether no step still misses a node's noise. */
struct bb_tree;
int mech_trees_load(const struct bb_mech *m, struct bb_tree *trees,
                    const struct bb_mech_record *rec) BB_WARN_UNUSED;
int mech_trees_ready(const struct bb_mech *m, const struct bb_tree *trees) BB_WARN_UNUSED;

extern const struct bb_mech_ops mech_tree_ops;
extern const struct bb_mech_ops mech_grid_ops;
extern const struct bb_mech_ops mech_grid_sqrt_ops;
extern const struct bb_mech_ops mech_tree_honaker_ops;

#endif
