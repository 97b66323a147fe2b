/*
 * params.h — the privacy calibration of Private LSVI-UCB: the configuration
 * (struct bb_params) and its derivation.
 *
 * Every noise scale, shift and cap the engine uses is derived from the
 * configuration fixed at initialisation (DESIGN.md §3; derivations in
 * docs/PRIVACY.md), by bb_params_derive and the concept headers it includes,
 * one per part of the calibration:
 *   enums.h       the configuration's enums and their names
 *   conversion.h  rho <-> (epsilon, delta)
 *   release.h     release grids, square-root and Honaker coefficients
 *   features.h    the declared feature set
 *   ynoise.h      the noise of the regression targets
 * A mechanism's own calibration (its S and prefix term) is its mech_*.c's
 * (mech_impl.h). Nothing else in the code computes a privacy constant.
 */
#ifndef BB_PARAMS_H
#define BB_PARAMS_H

#include <stddef.h>

#include "billboard/err.h"
#include "conversion.h"
#include "enums.h"
#include "features.h"
#include "release.h"
#include "ynoise.h"

/* Release start 'auto': k0 >= snr * d * sigma_y (params.c), snr
 * BB_RELEASE_START_SNR, or BB_RELEASE_START_SNR_ONEHOT for onehot rows
 * (bb_params_start_snr), and k0 at most K_max / BB_RELEASE_START_CAP.
 * Chosen on the tuning families: docs/RESULTS.md, "Tuning record". */
#define BB_RELEASE_START_SNR        5.0
#define BB_RELEASE_START_SNR_ONEHOT 3.0
#define BB_RELEASE_START_CAP        5

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
    double release_base;  /* g of the release grid (grid mechanisms); default 1.5 */
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
                           0 = towards 0, the paper's */
    enum bb_features features;
    enum bb_y_sensitivity y_sensitivity; /* which bound on y's change; default centred */
    double plausible_z;                  /* z: clinics draw uniformly among the actions the y
                                            noise cannot tell from the greedy one at z of its
                                            sds (bb_billboard_plausible; post-processing,
                                            docs/PRIVACY.md §3.4); 0 = always the greedy one */
    double plausible_floor;              /* f: an action joins only where that noise's sd is at
                                          least f of the step's value range H - h + 1 */

    /* --- derived by bb_params_derive --- */
    int is_private;     /* rho finite */
    int L;              /* tree levels: ceil(log2 K_max) + 1 */
    long releases;      /* R: release points, K_max (tree) or G (grid) */
    double sens_factor; /* S: sum of squared strategy coefficients an episode's
                           increment meets (tree and tree-honaker L, grid 1,
                           grid-sqrt sum c_l^2) */
    double prefix_sd;   /* largest per-entry sd of a released prefix's noise
                           (of its diagonal entries, the largest) */
    double rho_gram;    /* f * rho */
    double rho_y;       /* (1 - f) * rho */
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

/* Fills p with the defaults (f = 0.2, p = 0.05, C = 2, delta = 1e-5, beta = 1,
 * corrected calibration, rare switching, mechanism auto on a g = 1.5 grid,
 * tight shift bound at scale auto (0.25, or 0.4 with onehot rows), its ridge
 * doubled where Lambda~_h is indefinite, V clipped to the steps left, step
 * h's y noise proportional to its sensitivity, next values from regressions
 * shrunk towards 0.5 of each step's largest target, the plausible set at
 * z = 1, floor 0.025) and zero sizes. docs/RESULTS.md, "Tuning record",
 * says how they were chosen. */
void bb_params_defaults(struct bb_params *p);

/* Validates the configuration in p and computes every derived field.
 * On error returns BB_EINVAL and writes a one-line reason into why (if
 * non-NULL); p's derived fields are then unspecified. */
int bb_params_derive(struct bb_params *p, char *why, size_t whylen) BB_WARN_UNUSED;

/* The ratio the auto release start asks of k0 / d against sigma_y:
 * BB_RELEASE_START_SNR_ONEHOT for onehot rows, BB_RELEASE_START_SNR
 * otherwise (docs/PRIVACY.md §1.2). A function of the configuration only. */
double bb_params_start_snr(const struct bb_params *p);

/* The mechanisms' parameters in words, for GET /v1/privacy: the Gram
 * mechanism's ("L=18", "g=1.5 k0=1") into gram, y's ("value clip
 * remaining") into y. */
void bb_params_describe(const struct bb_params *p, char *gram, size_t gramlen, char *y,
                        size_t ylen);

/* zCDP spent by the Gram mechanism after k episodes (each episode's full
 * cost is charged when it is added): k > 0 ? rho_gram : 0 — the cost does
 * not grow with k because every episode meets the same strategy
 * coefficients (sum S) whenever it arrives. 0 when non-private. */
double bb_params_rho_gram_spent(const struct bb_params *p, long episodes);

/* zCDP spent on y after n updates: n * rho_y / N_max. 0 when non-private. */
double bb_params_rho_y_spent(const struct bb_params *p, long updates);

/* The privacy budget spent after the given episodes and updates: the sum
 * of the two above, which are written into *gram and *y where those are
 * non-NULL. rho-zCDP composes additively (docs/PRIVACY.md). */
double bb_params_rho_spent(const struct bb_params *p, long episodes, long updates, double *gram,
                           double *y);

#endif
