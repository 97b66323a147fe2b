/*
 * cstream.h — the count stream: continual release of the transition counts
 * of tabular rows (counts.h),
 *     N_h^k(c, s') = #{i <= k : episode i chose cell c at step h and moved
 *                   to state s'},   h < H - 1,
 * a d x S matrix per step (row-major: entry c S + s'), on the Gram
 * mechanism's grid by the square-root factorization (stream.h), its noise
 * bb_params_sigma_counts_drawn on the grid bb_params_grid_counts. The
 * counts are integers, so every sum is exact. The proof is docs/PRIVACY.md
 * §2.6.
 *
 * The stream is a struct bb_stream: its release, records and recovery are
 * stream.h's; its records are slot -(2^32 + j) for Z_j (tag k_j), apart
 * from the reward stream's (rstream.h) and the Gram mechanism's.
 */
#ifndef BB_CSTREAM_H
#define BB_CSTREAM_H

#include <stddef.h>

#include "billboard/err.h"
#include "mech.h"
#include "paramset.h"
#include "rng.h"
#include "stream.h"

/* Creates the stream (stream.h) for derived params p (borrowed for its
 * lifetime), which must have it in force (bb_params_counts): H - 1 steps of
 * d S entries. Its records, load, readiness and releases (d S entries,
 * row-major: entry c S + s') are stream.h's. BB_OK, BB_EINVAL or
 * BB_ENOMEM. */
int bb_cstream_new(const struct bb_params *p, struct bb_stream **out) BB_WARN_UNUSED;

/* Whether a stored record is the count stream's. */
int bb_cstream_owns(const struct bb_mech_record *rec);

/* Adds the next episode to the stream of p: cell[h] the cell it chose at
 * step h (the index of its chosen row's one, s_h A + a_h) and state[h] its
 * state at step h (0 <= state < S), h < H. Draws the noise a grid point
 * makes due with r; r NULL is a replay (bb_stream_add). BB_EFULL past
 * K_max, BB_EINVAL while a replay is incomplete or for a cell or state out
 * of range. Nothing changes on error. */
int bb_cstream_add(struct bb_stream *s, const struct bb_params *p, const int *cell,
                   const int *state, struct bb_rng *r) BB_WARN_UNUSED;

#endif
