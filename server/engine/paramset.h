/*
 * paramset.h — struct bb_params: the configuration of a billboard and the
 * constants derived from it. The caller sets the configuration (or
 * bb_params_defaults and the flags of config.h do), bb_params_derive
 * (params.h) fills the rest; every part of the engine reads it. The
 * functions over it are params.h's and its concept headers'.
 */
#ifndef BB_PARAMSET_H
#define BB_PARAMSET_H

#include "enums.h"

/* prior_value 'auto': kappa by the feature set (bb_params_derive). */
#define BB_PRIOR_VALUE_AUTO (-1.0)

struct bb_params {
    /* --- configuration (set by the caller, then bb_params_derive) --- */
    int H;                         /* horizon, steps per episode */
    int d;                         /* feature dimension */
    int A;                         /* number of actions */
    long K_max;                    /* maximum number of episodes */
    double rho;                    /* zCDP budget; INFINITY = non-private */
    double epsilon;                /* if > 0 and rho unset (0), rho is solved from (epsilon, delta)
                                      by the conversion; derived: the epsilon rho guarantees by it */
    double delta;                  /* for the (epsilon, delta) report; default 1e-5 */
    enum bb_conversion conversion; /* (epsilon, delta) <-> rho; default CKS */
    double gram_share;             /* f: rho_gram = f*rho, rho_y = (1-f)*rho; default 0.2 */
    double failure_prob;           /* p; default 0.05 */
    double update_ratio;           /* C; default 2 */
    long max_updates_cap;          /* configured N_max cap; 0 = the default bound */
    double beta;                   /* bonus scale (tuned; see docs/RESULTS.md) */
    enum bb_calibration calibration;
    enum bb_update_rule update_rule;
    enum bb_mechanism mechanism;
    double release_base;  /* g of the release grid (grid mechanisms); 0 = auto (the
                             default), resolved by bb_params_derive: 1.25, or 1.1
                             for tabular rows */
    double release_start; /* k0: the first release point; 0 = auto (the default),
                             resolved by bb_params_derive */
    enum bb_bound shift_bound;
    double shift_scale;            /* lambda~ = shift_scale * the bound; 0 = auto (the
                                      default), resolved by bb_params_derive: 0.25, or
                                      0.4 of the diagonal bound of onehot rows */
    enum bb_indefinite indefinite; /* an indefinite Lambda~_h; default double */
    enum bb_value_clip value_clip;
    enum bb_prior_policy prior_policy;
    double y_exponent;  /* p: step h's y noise sigma_h is proportional to its
                           sensitivity Delta_h^p, at the same rho_y (docs/PRIVACY.md
                           §2); 0 = one sigma_y for every step */
    double prior_value; /* kappa: the next values in step h's targets come from
                           step h+1's regression shrunk towards kappa times its
                           largest target instead of 0 (bb_params_prior_target,
                           lsvi.h; post-processing, docs/PRIVACY.md §3.2);
                           0 = towards 0, the paper's; BB_PRIOR_VALUE_AUTO
                           = by the feature set, resolved by bb_params_derive */
    enum bb_features features;
    enum bb_y_sensitivity y_sensitivity; /* which bound on y's change; default centred */
    double plausible_z;                  /* z, with explore set: clinics draw uniformly among the actions the y
                                            noise cannot tell from the greedy one at z of its
                                            sds (bb_billboard_plausible; post-processing,
                                            docs/PRIVACY.md §3.4); 0 = always the greedy one */
    double plausible_floor;              /* f: an action joins only where that noise's sd is at
                                          least f of the step's value range H - h + 1 */
    enum bb_arithmetic arithmetic;       /* whether every rounding before the noise is charged
                                            (enums.h); stored, never a flag: exact by default */
    double next_discount;                /* nu: the next value in step h's targets is
                                            max_a (Q_{h+1}(x, a) - nu s_{h+1}(x, a)), s the sd
                                            of the y noise in Q_{h+1} (lsvi.c; post-processing,
                                            docs/PRIVACY.md §3.5); stored, never a flag;
                                            0 = max_a Q_{h+1}, the paper's */
    double first_share;                  /* a: the first update's share of rho_y, in units of
                                            the average rho_y / N_max; the later updates share
                                            the rest equally (bb_params_y_update_share,
                                            docs/PRIVACY.md §2.3); stored, never a flag;
                                            1 = every update the same */
    enum bb_rewards rewards;             /* where the targets' rewards are released (enums.h);
                                            stored, never a flag: a stream by default */
    enum bb_explore explore;             /* how clinics explore after an update (enums.h);
                                            stored, never a flag: a noise sample by default,
                                            and then plausible_z and plausible_floor are
                                            not read */
    enum bb_final_prior final_prior;     /* how the next values' prior ends (enums.h);
                                            stored, never a flag: taper by default */
    enum bb_row_weight row_weight;       /* how each row weighs in the sums (enums.h,
                                            bb_params_row_weight); stored, never a
                                            flag: norm by default */
    double warm_share;                   /* phi: the warm-up's share of rho, spent on a
                                            counter of its own over the episodes before
                                            the first release (bb_params_warm,
                                            docs/PRIVACY.md §2.5); stored, never a flag;
                                            0 = no warm-up */

    /* --- derived by bb_params_derive --- */
    int is_private;     /* rho finite */
    int L;              /* tree levels: ceil(log2 K_max) + 1 */
    long releases;      /* R: release points, K_max (tree) or G (grid) */
    double sens_factor; /* S: sum of squared strategy coefficients an episode's
                           increment meets (tree and tree-honaker L, grid 1,
                           grid-sqrt sum c_l^2) */
    double prefix_sd;   /* largest per-entry sd of a released prefix's noise
                           (of its diagonal entries, the largest) */
    long warm_points;   /* M: warm points 250 2^j below k0 (0: no warm-up) */
    double rho_warm;    /* phi rho where M > 0, else 0 */
    int warm_copy;      /* 1 in the warm-up's own params (bb_params_warm) */
    double rho_gram;    /* f (rho - rho_warm) */
    double rho_y;       /* (1 - f) (rho - rho_warm) */
    double sigma_gram;  /* sigma_Lambda = sqrt(H S / rho_gram), per node or increment */
    double shift;       /* lambda~ = shift_scale * bound (enum bb_bound) */
    double ridge;       /* diagonal added to every Gram matrix: 2*shift, or 1 if non-private */
    long max_updates;   /* N_max, a hard cap */
    double sigma_y;     /* the y noise if every step had the same: sqrt(2 H N_max
                           (H+1)^2 / rho_y), or with the remaining clip
                           sqrt(N_max H (H+1)(2H+1) / (3 rho_y)); the steps' own
                           are bb_params_sigma_y_step */
    double y_unit;      /* sigma_h = y_unit * Delta_h^p (bb_params_sigma_y_step) */
    double v_floor;     /* lower clip of V_{h+1}: 0 (corrected) or -INFINITY (paper) */

    /* Grids (noise.h) and the noise actually drawn. Snapping to a grid of
     * spacing g moves each coordinate by at most g/2, so the L2 sensitivity
     * grows by at most g*sqrt(#coordinates); the drawn sigma is inflated by
     * exactly that ratio so the zCDP costs above still hold. */
    double grid_gram;      /* grid of every Gram entry and node noise */
    double sigma_gram_eff; /* sigma_gram * (1 + grid_gram * d / sqrt 2) */
    double grid_y;         /* the grid of sigma_y_eff's step (each step has its
                              own: bb_params_grid_y_step) */
    double sigma_y_eff;    /* the largest y noise drawn at any step:
                              max_h bb_params_sigma_y_drawn_step(p, h) */
};

#endif
