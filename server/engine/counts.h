/*
 * counts.h — the transition counts of tabular rows: when they stand for the
 * next values in the regression targets, and their calibration
 * (docs/PRIVACY.md §2.6).
 *
 * With tabular rows (features.h: a state s's row of action a is e_{sA+a},
 * S = d / A states) the next-value part of step h's targets is
 *   Y_h = sum_i phi_h^i V_{h+1}(x_{h+1}^i) = N_h v_{h+1},
 * N_h (d x S) the count of the episodes that chose cell c at step h and
 * moved to state s', and v_{h+1} (S) the next values of the S states. The
 * count stream (cstream.h) releases every N_h, h < H - 1, once, on the
 * Gram's grid by the square-root factorization; each update computes
 * N~_h (v - m 1) from the release and its own values (post-processing), so
 * the updates themselves draw no y noise and cost nothing more. Replacing
 * one episode moves at most two entries of each N_h, each by 1: the
 * stream's sensitivity is Delta^2 = 2 (H - 1) per increment, and each
 * episode meets one increment, whose squared strategy column is at most
 * S = bb_sqrt_sum_squares(G). Its noise is
 *   sigma_N = sqrt((H - 1) S / rho_N),   rho_N = rho_y - rho_R,
 * the part of rho_y the updates' next values have without it (ynoise.h).
 */
#ifndef BB_COUNTS_H
#define BB_COUNTS_H

struct bb_params;

/* The largest count stream, in entries kept ((H - 1) (2G + 1) d S):
 * bb_params_derive refuses a configuration whose stream is larger. */
#define BB_COUNTS_MAX_ENTRIES (1L << 26)

/* Whether the count stream is in force: tabular rows (bb_params_tabular),
 * the reward stream (bb_params_reward_stream), H >= 2, not the warm-up's
 * params. */
int bb_params_counts(const struct bb_params *p);

/* S = d / A, the tabular layout's states. */
int bb_params_states(const struct bb_params *p);

/* rho_N = rho_y - rho_R, the stream's; 0 without it. */
double bb_params_rho_counts(const struct bb_params *p);

/* sigma_N above; 0 without the stream. */
double bb_params_sigma_counts(const struct bb_params *p);

/* The stream's grid, and the noise it draws: sigma_N inflated for
 * snapping its outputs (C x)_j, each entry off by at most 2 g, over the
 * G outputs and d S entries 2 g sqrt(d S G) against the sqrt(2 S) the
 * noise is calibrated for (docs/PRIVACY.md §2.6). The counts themselves
 * are integers, exact. */
double bb_params_grid_counts(const struct bb_params *p);
double bb_params_sigma_counts_drawn(const struct bb_params *p);

/* The sd of the noise in a released Gram diagonal entry at the release
 * whose counts have noise sd counts_sd (bb_cstream_release), for the
 * centre of the next values (lsvi.h): with grid-sqrt, which releases at the
 * same points with the same coefficients, sigma_Lambda,drawn /
 * sigma_N,drawn times counts_sd; with another grid mechanism the largest
 * prefix sd, p->prefix_sd, an upper bound. 0 without noise. */
double bb_params_counts_gram_sd(const struct bb_params *p, double counts_sd);

#endif
