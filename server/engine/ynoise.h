/*
 * ynoise.h — the noise of the regression targets y_h (Alg. 1 lines 7–10):
 * each step's sensitivity, its sigma and grid, the centre of the targets,
 * the value cap and the prior they are shrunk towards (docs/PRIVACY.md §2,
 * §3). Functions of the derived parameters only (params.h).
 */
#ifndef BB_YNOISE_H
#define BB_YNOISE_H

struct bb_params;

/* kappa = 1 - 1/sqrt 2: the smallest centre, as a share of the largest
 * target, at which the centred sum's sensitivity is B_h (docs/PRIVACY.md
 * §2.2: it is B_h max(1, sqrt 2 (1 - kappa)) for kappa <= 1/2). */
#define BB_Y_CENTRE (1.0 - 0.70710678118654752440)

/* The upper clip of V_{h+1} in the targets of step h (0-based): H, or
 * H - h - 1 with BB_VCLIP_REMAINING. */
double bb_params_value_cap(const struct bb_params *p, int h);

/* Step h's (0-based) regression-target sensitivity Delta_h = y_pair (1 + cap):
 * y_pair (H+1) with V clipped to [0, H], y_pair (H-h) with V clipped to the
 * steps left. */
double bb_params_y_sensitivity(const struct bb_params *p, int h);

/* The factor of the largest target in y's sensitivity: 1 where the
 * centred targets are in force and sqrt 2 where the nonnegative bound is
 * (a private run, BB_YSENS_CENTRED or BB_YSENS_NONNEGATIVE, simplex rows,
 * the corrected calibration), else 2 (the triangle inequality). */
double bb_params_y_pair(const struct bb_params *p);

/* The centre of step h's targets as a share of their largest value B_h:
 * BB_Y_CENTRE where the centred targets are in force (y_pair 1), else 0.
 * The engine subtracts c_h = centre * B_h times each row's entry sum from
 * its target before the sum, and adds c_h (Lambda~_h - ridge I) 1 back after
 * the noise (server/engine/lsvi.c). */
double bb_params_y_centre(const struct bb_params *p);

/* The plausible set's z and floor f were tuned against the noise of §2.1's
 * bound; with centred targets the drawn noise is 1/sqrt 2 of it, and the
 * billboard carries z u and f / u, u = sqrt 2 (1 elsewhere), so that the
 * set keeps the width it was tuned at in units of the drawn sd
 * (docs/PRIVACY.md §3.4). */
double bb_params_plausible_unit(const struct bb_params *p);

/* Step h's y noise before grid inflation: sigma_y when every step has the
 * same (exponent 0, the horizon clip, the paper's calibration), else
 * y_unit * Delta_h^p, so that sum_h Delta_h^2 / sigma_h^2 is the same as with
 * sigma_y everywhere: the same rho_y. 0 when non-private. */
double bb_params_sigma_y_step(const struct bb_params *p, int h);

/* How many grid steps per coordinate snapping adds to y's change, over the
 * two neighbours: 1 when the float sum is snapped (g_h / 2 each side;
 * BB_ARITH_FLOAT), 2 when every term is (g_h / 2 for the snap and at most
 * g_h / 2 for the term's rounding, each side; BB_ARITH_EXACT; docs/PRIVACY.md
 * §5). */
double bb_params_y_snaps(const struct bb_params *p);

/* Step h's y grid (noise.h), and the noise drawn there: sigma_h inflated by
 * the grid's slack, sigma_h (1 + n g_h sqrt(d) / Delta_h), n =
 * bb_params_y_snaps, so the ratio of sensitivity to noise, and with it
 * rho_y, holds after snapping. */
double bb_params_grid_y_step(const struct bb_params *p, int h);
double bb_params_sigma_y_drawn_step(const struct bb_params *p, int h);

/* Step h's y noise when its next values are clipped at cap, at most
 * bb_params_value_cap(p, h): the sensitivity y_pair * range(cap) and sigma
 * scaled together from the _step values (sigma_at = sigma_step * range(cap)
 * / range(value_cap), range = bb_params_y_range: 1 + cap, or cap with the
 * stream), so the step's rho is the same for every cap; 0 where the range
 * at the value cap is 0 (the stream's last step: nothing to noise); the grid
 * is the one for that sigma, and _drawn_at inflates for snapping to it as
 * _drawn_step does. At cap = bb_params_value_cap(p, h) they equal the
 * _step values. */
double bb_params_sigma_y_at(const struct bb_params *p, int h, double cap);
double bb_params_grid_y_at(const struct bb_params *p, int h, double cap);
double bb_params_sigma_y_drawn_at(const struct bb_params *p, int h, double cap);

/* The first update's share of rho_y in force, in units of the average
 * rho_y / N_max: the stored first-share a, at most N_max / 2 so that every
 * later update keeps more than half the average; 1 with fewer than two
 * updates, without noise and under the paper's calibration
 * (docs/PRIVACY.md §2.3). */
double bb_params_first_share(const struct bb_params *p);

/* Update j's (1-based) share of rho_y in the same units: a =
 * bb_params_first_share for j = 1, (N - a) / (N - 1) for every later
 * update, so that the N = N_max shares sum to N and the updates together
 * cost rho_y; 1 for j <= 0 (the base noise of the _step and _at values).
 * Update j draws every step's noise at 1 / sqrt(share) times the base sd:
 * bb_params_y_update_scale. */
double bb_params_y_update_share(const struct bb_params *p, long j);
double bb_params_y_update_scale(const struct bb_params *p, long j);

/* Step h's y noise at update j with its next values clipped at cap: the
 * _at sd times bb_params_y_update_scale(p, j), on the grid for that sd,
 * inflated for snapping to it as _drawn_at is. j <= 0 (scale 1) gives the
 * _at values. */
double bb_params_grid_y_update(const struct bb_params *p, int h, double cap, long j);
double bb_params_sigma_y_drawn_update(const struct bb_params *p, int h, double cap, long j);

/* Whether the reward part of the targets is released by continual release
 * (rstream.h; docs/PRIVACY.md §2.4): a private run of the corrected
 * calibration with rewards BB_REWARDS_STREAM and a grid mechanism, whose
 * release points the stream shares. Then y_h splits into
 *   R_h = sum_i phi_h^i (r_h^i - kappa 1^T phi_h^i)          (the stream)
 *   Y_h = sum_i phi_h^i (V_{h+1}(x^i) - kappa c_h 1^T phi_h^i) (each update)
 * (kappa = bb_params_y_centre, 0 unless centred), of sensitivities y_pair
 * and y_pair c_h, c_h step h's value cap, and rho_y splits between them
 * as docs/PRIVACY.md §2.4 derives: with Q = sum_k (S_R + sqrt(N) c_k) / B_k,
 * S_R = bb_sqrt_sum_squares(G), B_k = 1 + c_k and N = N_max,
 *   sigma_R,h = y_pair sqrt(B_h Q / (2 rho_y))           (every release)
 *   sigma_V,h = y_pair sqrt(sqrt(N) c_h B_h Q / (2 rho_y)) (every update)
 * which minimises sum_h Var_h / B_h^2 at the cost rho_y. The stream costs
 * rho_R = rho_y S_R (sum_h 1 / B_h) / Q, the updates the rest. */
int bb_params_reward_stream(const struct bb_params *p);

/* The range of the targets' part an update noises when the next values are
 * clipped at cap: cap with the stream (the next values alone), 1 + cap
 * without (rewards and next values). */
double bb_params_y_range(const struct bb_params *p, double cap);

/* sigma_R,h and sigma_V,h above; 0 without the stream, and sigma_V,h 0
 * with the transition counts (counts.h), which then hold the next values'
 * part and its noise. With the stream,
 * bb_params_sigma_y_step(p, h) is sigma_V,h: the _at, _update and _drawn
 * values below scale it with the range y_pair * bb_params_y_range. */
double bb_params_sigma_reward(const struct bb_params *p, int h);
double bb_params_sigma_next(const struct bb_params *p, int h);

/* The stream's grid of step h and the noise it draws there: sigma_R,h
 * inflated for snapping its terms and its outputs (docs/PRIVACY.md §2.4). */
double bb_params_grid_reward(const struct bb_params *p, int h);
double bb_params_sigma_reward_drawn(const struct bb_params *p, int h);

/* rho_R, the stream's part of rho_y; 0 without the stream. */
double bb_params_rho_reward(const struct bb_params *p);

/* Whether the backward pass clips the next values at the bound from the
 * released regression and scales the y noise with it: a private run with
 * the corrected calibration and simplex rows (bb_params_simplex_rows). */
int bb_params_next_bound(const struct bb_params *p);

/* The value step h's (0-based) regression is shrunk towards when it gives
 * the next values of step h-1's targets, in a private run: m_h = kappa *
 * Delta_h / 2, kappa times the step's largest target (1 + value cap).
 * lsvi.c solves u_h = Lambda~_h^-1 (y~_h + ridge m_h 1): with no data in a
 * direction, phi . u_h = m_h for features whose coordinates sum to 1
 * (one-hot, the simplex), instead of 0, and the pull fades as
 * ridge / (n + ridge) with the n visits. The published w_h stays
 * Lambda~_h^-1 y~_h. 0 when non-private (textbook LSVI-UCB, ridge 1) or
 * kappa = 0. A function of public constants. */
double bb_params_prior_target(const struct bb_params *p, int h);

/* Whether every step has the same noise sigma_y (exponent 0, the horizon
 * clip, or the paper's calibration). */
int bb_params_y_uniform(const struct bb_params *p);

/* Engine-internal, for bb_params_derive: sets sigma_y, y_unit, sigma_y_eff
 * and grid_y of p from its H, d, N_max, rho_y and clips. */
void ynoise_derive(struct bb_params *p);

#endif
