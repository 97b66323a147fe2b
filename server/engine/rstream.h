/*
 * rstream.h — the reward stream: continual release of every step's reward
 * sum
 *     R_h^k = sum_{i <= k} phi_h^i (r_h^i - kappa 1^T phi_h^i)
 * (phi_h^i episode i's chosen row of step h, kappa = bb_params_y_centre),
 * the part of the regression targets that does not change from one update
 * to the next (ynoise.h, bb_params_reward_stream). It releases at the Gram
 * mechanism's grid points, k_1 < ... < k_G (bb_release_grid), by the
 * square-root factorization of mech_grid_sqrt.c on d-vectors: at k_j it
 * draws Z_j (d discrete Gaussians of sd bb_params_sigma_reward_drawn on
 * the grid bb_params_grid_reward) and keeps y_j = snap((C x)_j) + Z_j; the
 * release is R~_j = sum_{i <= j} b_{j-i} y_i. Every term phi_hj (r - kappa
 * s) is snapped to the grid before it is summed (exact, docs/PRIVACY.md
 * §5). The proof is docs/PRIVACY.md §2.4.
 *
 * The release, the records and the recovery are stream.h's; the
 * stream's records are slot -j for Z_j (tag k_j), never a slot a Gram
 * mechanism uses (>= 0) nor the count stream's (cstream.h).
 */
#ifndef BB_RSTREAM_H
#define BB_RSTREAM_H

#include <stddef.h>

#include "billboard/err.h"
#include "mech.h"
#include "paramset.h"
#include "rng.h"

struct bb_rstream;

/* Creates the stream for derived params p (borrowed for its lifetime),
 * which must have it in force (bb_params_reward_stream). BB_OK, BB_EINVAL
 * or BB_ENOMEM. */
int bb_rstream_new(const struct bb_params *p, struct bb_rstream **out) BB_WARN_UNUSED;
void bb_rstream_free(struct bb_rstream *s);

/* Whether a stored record is the stream's (its slot < 0). */
int bb_rstream_owns(const struct bb_mech_record *rec);

/* Adds the next episode: rows[h] (d entries) its chosen row of step h,
 * weight[h] that row's weight (bb_params_row_weight), reward[h] its reward
 * there. Draws the noise a grid point makes due with
 * r; r NULL is a replay, which draws nothing and leaves that noise to
 * bb_rstream_load(). BB_EFULL past K_max; BB_EINVAL while a replay is
 * incomplete (r non-NULL but noise missing). Nothing changes on error. */
int bb_rstream_add(struct bb_rstream *s, const double *const *rows, const double *weight,
                   const double *reward, struct bb_rng *r) BB_WARN_UNUSED;

/* The records the last add drew (zero or H), borrowed until the next add. */
size_t bb_rstream_records(const struct bb_rstream *s, const struct bb_mech_record **out);

/* Recovery: supplies one stored record of the stream. A grid point not yet
 * reached is ignored; BB_EINVAL if malformed, BB_ECONFLICT if present. */
int bb_rstream_load(struct bb_rstream *s, const struct bb_mech_record *rec) BB_WARN_UNUSED;

/* BB_OK when no reached grid point misses its noise, else BB_EINVAL. */
int bb_rstream_ready(const struct bb_rstream *s) BB_WARN_UNUSED;

/* out (d) := step h's latest release R~ (all zero before the first grid
 * point), and *sd := the sd of its noise per coordinate, sigma_drawn
 * sqrt(sum_{l <= j} b_l^2) at the j-th release (0 before the first).
 * BB_EINVAL while noise is missing, BB_ERANGE for a bad h. */
int bb_rstream_release(const struct bb_rstream *s, int h, double *out, double *sd)
    BB_WARN_UNUSED;

#endif
