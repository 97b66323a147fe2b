/*
 * mech_impl.h — what a continual-release mechanism implements (mech.h).
 *
 * Engine-internal. mech.c keeps the episode count and the record list and
 * checks the arguments; an implementation keeps its own state in impl and
 * emits records with mech_emit(). A mechanism is everything its ops say:
 * its name, its calibration, where it releases, how it draws and records
 * its noise. Adding one: a file mech_<name>.c defining its ops, a line in
 * mech.c's MECHANISMS list, its value (the stored configuration key) in
 * enums.h, and its proof in docs/PRIVACY.md. Nothing else in the engine, the daemon or
 * the simulator names a mechanism.
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
    enum bb_mechanism kind; /* the stored configuration key; never renumbered */
    const char *name;       /* the configuration name (--mechanism NAME) */
    /* 1: a release after every episode, R = K_max releases (the trees);
     * 0: releases at the points of bb_release_grid, R = G. */
    int tree;
    /* The calibration (docs/PRIVACY.md §1), from p's H, d, K_max, L and
     * releases (R): the sensitivity factor S, the sum of the squared
     * strategy coefficients one episode's increment meets (so that
     * sigma_gram = sqrt(H S / rho_gram)), and the largest per-entry
     * variance of a released prefix's noise in units of sigma_gram^2 (the
     * tight shift bound's prefix term). */
    void (*calibrate)(const struct bb_params *p, double *sens_factor, double *prefix_terms);
    /* The noise added to sigma_gram_eff for snapping the strategy's outputs
     * to the Gram grid, from p's sigma_gram, grid_gram, d, releases and
     * sens_factor; NULL where the outputs are not snapped. */
    double (*output_snap)(const struct bb_params *p);
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

/* The ops of mechanism m (not auto); NULL if m is not one. Static. */
const struct bb_mech_ops *mech_ops_for(enum bb_mechanism m);

/* Appends a record to the current add's list. BB_OK or BB_ENOMEM. */
int mech_emit(struct bb_mech *m, int step, long slot, long tag, const void *bytes,
              size_t len) BB_WARN_UNUSED;

/* For the mechanisms over one binary tree per step (mech_tree.c, whose
 * records are a node per (step, level)): load a record into trees[step],
 * ignoring a dead node; and whether no step still misses a node's noise. */
struct bb_tree;
int mech_trees_load(const struct bb_mech *m, struct bb_tree *trees,
                    const struct bb_mech_record *rec) BB_WARN_UNUSED;
int mech_trees_ready(const struct bb_mech *m, const struct bb_tree *trees) BB_WARN_UNUSED;

#endif
