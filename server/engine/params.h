/*
 * params.h — the privacy calibration of Private LSVI-UCB: the configuration
 * (struct bb_params) and its derivation.
 *
 * Every noise scale, shift and cap the engine uses is derived from the
 * configuration fixed at initialisation (DESIGN.md §3; derivations in
 * docs/PRIVACY.md), by bb_params_derive and the concept headers it includes,
 * one per part of the calibration:
 *   paramset.h    struct bb_params: the configuration and what is derived
 *   enums.h       the configuration's enums and their names
 *   conversion.h  rho <-> (epsilon, delta)
 *   release.h     release grids, square-root and Honaker coefficients
 *   features.h    the declared feature set
 *   ynoise.h      the noise of the regression targets
 *   counts.h      the transition counts of tabular rows
 * A mechanism's own calibration (its S and prefix term) is its mech_*.c's
 * (mech_impl.h). Nothing else in the code computes a privacy constant.
 */
#ifndef BB_PARAMS_H
#define BB_PARAMS_H

#include <stddef.h>

#include "billboard/err.h"
#include "conversion.h"
#include "counts.h"
#include "enums.h"
#include "features.h"
#include "paramset.h"
#include "release.h"
#include "ynoise.h"

/* Release start 'auto': k0 >= snr * d * sigma_y (params.c), snr
 * BB_RELEASE_START_SNR, or BB_RELEASE_START_SNR_ONEHOT for onehot rows
 * (bb_params_start_snr), and k0 at most K_max / BB_RELEASE_START_CAP.
 * Chosen on the tuning families: docs/RESULTS.md, "Tuning record". */
#define BB_RELEASE_START_SNR        5.0
#define BB_RELEASE_START_SNR_ONEHOT 3.0
#define BB_RELEASE_START_CAP        5


/* The largest K_max at which the exactness premise of docs/PRIVACY.md §5
 * holds on p's derived Gram grid g: every sum of snapped Gram entries
 * (each |.| <= 1, at most K_max of them) below 2^53 g, so exact; with
 * grid-sqrt also the floating-point error of (C x)_t, at most
 * gamma_G K_max (gamma_G = G u / (1 - G u), u = 2^-53), within the g / 2
 * its inflation allows; with exact y sums (bb_params_y_exact) also every
 * step's sum of snapped terms, each at most B_h + g_h, below 2^53 g_h.
 * LONG_MAX without noise. bb_params_derive refuses a K_max above it. */
long bb_params_exact_k_max(const struct bb_params *p);

/* Whether step targets are summed exactly (BB_ARITH_EXACT in a private run
 * of the corrected calibration; lsvi.c): every term phi_ij t_i snapped to
 * the step's noise grid, the snapped terms added in doubles, exact by the
 * premise above. */
int bb_params_y_exact(const struct bb_params *p);

/* r_h < g / B for step h's grid g and largest target B, whatever cap is in
 * force: 2^-21 sigma_h / (1 + value cap_h). bb_params_derive refuses exact
 * sums with r_h < (d + 9) 2^-53, where a term's rounding could exceed g/2. */
double bb_params_y_grid_ratio(const struct bb_params *p, int h);

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

/* zCDP spent by the reward stream (ynoise.h) after k episodes: its whole
 * rho_R from the first episode on, as the Gram mechanism's (0 without it
 * and when non-private). */
double bb_params_rho_reward_spent(const struct bb_params *p, long episodes);

/* zCDP spent by the count stream (counts.h) after k episodes: its whole
 * rho_N from the first episode on, as the reward stream's (0 without it
 * and when non-private). */
double bb_params_rho_counts_spent(const struct bb_params *p, long episodes);

/* The warm-up's first point: its points are BB_WARM_START 2^j below k0. */
#define BB_WARM_START 250.0

/* The warm-up's own params (docs/PRIVACY.md §2.5) into w: a grid-sqrt
 * Gram mechanism and a reward stream of rewards alone (no next values,
 * value caps 0) over the points BB_WARM_START 2^j < k0, at rho_warm, a
 * gram_share of it for the Gram. BB_ENOTFOUND where p has no
 * warm-up (p->warm_points == 0). */
int bb_params_warm(const struct bb_params *p, struct bb_params *w) BB_WARN_UNUSED;

/* The warm points <= episodes: the warm billboards published by then
 * (every warm point reached is numbered, before any update). */
long bb_params_warm_reached(const struct bb_params *p, long episodes);

/* The last point at which the Gram matrices are released: the grid's last
 * (bb_release_grid) for a grid mechanism, K_max for the trees, which
 * release every episode, and for a non-private run. Public parameters
 * only. */
long bb_params_last_release(const struct bb_params *p);

/* The first release point after `episodes` (episodes + 1 for the trees and a
 * non-private run); K_max when there is none. Public parameters only. */
long bb_params_next_release(const struct bb_params *p, long episodes);

/* The share of the next values' prior (bb_params_prior_target) taken away
 * at an update on the first `episodes` episodes, `final` if no update can
 * follow it (bb_schedule_final): the prior's weight is ridge (1 - cut).
 *   kept:  0 always;
 *   none:  1 at the final update, else 0;
 *   taper: 1 at the final update, else 1 - sqrt((K_max - k_next) / K_max),
 *          k_next = bb_params_next_release(p, episodes): the prior weighs
 *          the root of the share of the run left once the next update can
 *          act on what it explores.
 * A function of public counts, so what it decides is post-processing
 * (docs/PRIVACY.md §3.2). */
double bb_params_prior_cut(const struct bb_params *p, long episodes, int final);

/* The n-th warm point, BB_WARM_START 2^(n-1), for n >= 1; 0 for n = 0. With
 * n = bb_params_warm_reached(p, k): the latest warm point <= k; with
 * n = p->warm_points: the last. */
long bb_params_warm_point(long n);

/* zCDP spent by the warm-up: rho_warm from the first episode on (its
 * releases come before anything else is published: early, never late). */
double bb_params_rho_warm_spent(const struct bb_params *p, long episodes);

/* zCDP spent by the updates' y noise after n updates: n shares of rho_y -
 * rho_R - rho_N (the first update's bb_params_y_update_share, then the
 * later ones'), each share in units of 1 / N_max of it; exactly that after
 * N_max. 0 when non-private, before the first update, and with the
 * counts, whose updates draw nothing. */
double bb_params_rho_y_spent(const struct bb_params *p, long updates);

/* The privacy budget spent after the given episodes and updates: the sum
 * of the above, the Gram mechanism's written into *gram and the streams'
 * and the updates' together (y's budget) into *y where those are
 * non-NULL. rho-zCDP composes additively (docs/PRIVACY.md). */
double bb_params_rho_spent(const struct bb_params *p, long episodes, long updates, double *gram,
                           double *y);

#endif
