/*
 * stream.h — continual release of per-step vector sums on the release grid
 * (docs/PRIVACY.md §2.4, §2.6): the machinery the reward stream (rstream.h)
 * and the transition-count stream (cstream.h) share.
 *
 * A stream has `steps` steps, each summing vectors of `width` entries over
 * the episodes. It releases at the Gram mechanism's grid points, k_1 < ...
 * < k_G (bb_release_grid), by the square-root factorization of
 * mech_grid_sqrt.c: at k_j it draws Z_j (width discrete Gaussians of step
 * h's sampler) and keeps y_j = snap((C x)_j) + Z_j, x_j the increment of
 * the episodes k_{j-1} < k <= k_j; the release is R~_j = sum_{i <= j}
 * b_{j-i} y_i, b = c the square-root coefficients. What goes into an
 * increment, and how it is calibrated, is the caller's.
 *
 * Like a mechanism (mech.h) it takes each episode once, draws only the
 * noise that episode makes due, describes it as records for the caller to
 * persist before anything computed from it is published, and after a
 * restart is rebuilt by replaying the stored episodes (no draws) and
 * loading the stored records. Its records live in slots of their own:
 * slot -(slot0 + j + 1) for Z_j (tag k_j), j < BB_STREAM_SLOTS, never a
 * slot a Gram mechanism uses (>= 0) nor another stream's.
 */
#ifndef BB_STREAM_H
#define BB_STREAM_H

#include <stddef.h>

#include "billboard/err.h"
#include "mech.h"
#include "paramset.h"
#include "rng.h"

/* The slots one stream may own: more than any grid has points. */
#define BB_STREAM_SLOTS (1L << 32)

struct bb_stream;

/* A stream of steps x width on p's grid (p borrowed for its lifetime),
 * step h's noise drawn at sigma[h] on grid[h] (copied), its records in the
 * slots after slot0 (a multiple of BB_STREAM_SLOTS). BB_OK, BB_EINVAL or
 * BB_ENOMEM. */
int bb_stream_new(const struct bb_params *p, int steps, size_t width, const double *sigma,
                  const double *grid, long slot0, struct bb_stream **out) BB_WARN_UNUSED;
void bb_stream_free(struct bb_stream *s);

/* Adds an episode's terms to the open increment of step h (width
 * entries); each must be on step h's grid, so that sums are exact. */
typedef void (*bb_stream_terms)(void *ctx, int h, double grid, double *increment);

/* Takes the next episode: terms(ctx, h, ...) for every step, then draws
 * the noise a grid point makes due with r; r NULL is a replay, which draws
 * nothing and leaves that noise to bb_stream_load(). BB_EFULL past K_max;
 * BB_EINVAL while a replay is incomplete (r non-NULL but noise missing).
 * Nothing changes on error. */
int bb_stream_add(struct bb_stream *s, bb_stream_terms terms, void *ctx, struct bb_rng *r)
    BB_WARN_UNUSED;

/* The records the last add drew (zero or steps), borrowed until the next. */
size_t bb_stream_records(const struct bb_stream *s, const struct bb_mech_record **out);

/* Whether a stored record is in the slots of a stream whose slot0 that
 * is. */
int bb_stream_owns(long slot0, const struct bb_mech_record *rec);

/* Recovery: supplies one stored record of the stream. A grid point not yet
 * reached is ignored; BB_EINVAL if malformed, BB_ECONFLICT if present. */
int bb_stream_load(struct bb_stream *s, const struct bb_mech_record *rec) BB_WARN_UNUSED;

/* BB_OK when no reached grid point misses its noise, else BB_EINVAL. */
int bb_stream_ready(const struct bb_stream *s) BB_WARN_UNUSED;

/* out (width) := step h's latest release (all zero before the first grid
 * point), and *sd := the sd of its noise per entry, sigma[h] sqrt(sum_{l
 * <= j} c_l^2) at the j-th release (0 before the first). BB_EINVAL while
 * noise is missing, BB_ERANGE for a bad h. */
int bb_stream_release(const struct bb_stream *s, int h, double *out, double *sd) BB_WARN_UNUSED;

#endif
