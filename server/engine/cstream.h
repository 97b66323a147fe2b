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
 * The release, the records and the recovery are stream.h's; the stream's
 * records are slot -(2^32 + j) for Z_j (tag k_j), apart from the reward
 * stream's (rstream.h) and the Gram mechanism's.
 */
#ifndef BB_CSTREAM_H
#define BB_CSTREAM_H

#include <stddef.h>

#include "billboard/err.h"
#include "mech.h"
#include "paramset.h"
#include "rng.h"

struct bb_cstream;

/* Creates the stream for derived params p (borrowed for its lifetime),
 * which must have it in force (bb_params_counts). BB_OK, BB_EINVAL or
 * BB_ENOMEM. */
int bb_cstream_new(const struct bb_params *p, struct bb_cstream **out) BB_WARN_UNUSED;
void bb_cstream_free(struct bb_cstream *s);

/* Whether a stored record is the count stream's. */
int bb_cstream_owns(const struct bb_mech_record *rec);

/* Adds the next episode: cell[h] the cell it chose at step h (the index of
 * its chosen row's one, s_h A + a_h) and state[h] its state at step h
 * (0 <= state < S), h < H. Draws the noise a grid point makes due with r;
 * r NULL is a replay (bb_stream_add). BB_EFULL past K_max, BB_EINVAL while
 * a replay is incomplete or for a cell or state out of range. Nothing
 * changes on error. */
int bb_cstream_add(struct bb_cstream *s, const int *cell, const int *state, struct bb_rng *r)
    BB_WARN_UNUSED;

/* The records the last add drew (zero or H - 1), borrowed until the next. */
size_t bb_cstream_records(const struct bb_cstream *s, const struct bb_mech_record **out);

/* Recovery, as bb_stream_load. */
int bb_cstream_load(struct bb_cstream *s, const struct bb_mech_record *rec) BB_WARN_UNUSED;

/* BB_OK when no reached grid point misses its noise, else BB_EINVAL. */
int bb_cstream_ready(const struct bb_cstream *s) BB_WARN_UNUSED;

/* out (d S) := step h's latest release N~_h (all zero before the first
 * grid point; h < H - 1) and *sd := the sd of its noise per entry
 * (bb_stream_release). BB_EINVAL while noise is missing, BB_ERANGE for a
 * bad h. */
int bb_cstream_release(const struct bb_cstream *s, int h, double *out, double *sd)
    BB_WARN_UNUSED;

#endif
