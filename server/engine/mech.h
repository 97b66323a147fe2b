/*
 * mech.h — continual release of the private Gram statistics, one interface.
 *
 * For every step h the curator needs, before episode k+1, a private version
 * of the prefix sum Lambda_h^k = sum_{i<=k} phi_h^i phi_h^i^T (Alg. 1 line
 * 19, without the PD shift). A mechanism turns the stream of chosen feature
 * rows into such releases; which one is used is fixed in the configuration
(enums.h, enum bb_mechanism); its privacy cost is its calibrate op
 * (mech_impl.h)
 * and docs/PRIVACY.md. Every mechanism:
 *
 *   - takes each episode once, with bb_mech_add(), and draws the noise that
 *     episode makes due — never anything else, never twice;
 *   - releases at data-independent episode counts (bb_mech_is_release):
 *     every episode, or the points of a release grid. Between releases the
 *     last released prefix stays current;
 *   - describes the noise an add drew as opaque records (step, slot, tag,
 *     bytes). The caller persists them — a record replaces the stored one
 *     with the same (step, slot) — before anything computed from the
 *     release is published;
 *   - after a restart, is rebuilt by bb_mech_replay() of every stored
 *     episode (no draws) and bb_mech_load() of every stored record; records
 *     that no longer matter are ignored, and bb_mech_ready() refuses to
 *     release until every piece of noise it needs was supplied.
 *
 * Outside the engine nobody knows what a slot or a tag means.
 */
#ifndef BB_MECH_H
#define BB_MECH_H

#include <stddef.h>

#include "billboard/err.h"
#include "paramset.h"
#include "rng.h"

/* One piece of mechanism state to persist. bytes is borrowed. */
struct bb_mech_record {
    int step;          /* h, 0-based */
    long slot;         /* which piece of the step's state */
    long tag;          /* identifies the piece's content (e.g. the episode that made it) */
    size_t len;        /* bytes */
    const void *bytes;
};

struct bb_mech;

/* Creates the mechanism p->mechanism for derived params p (borrowed for the
 * mechanism's lifetime). BB_OK, BB_EINVAL or BB_ENOMEM. */
int bb_mech_new(const struct bb_params *p, struct bb_mech **out) BB_WARN_UNUSED;
void bb_mech_free(struct bb_mech *m);

/* The mechanism's name as configured ("tree", "grid", ...). Static. */
const char *bb_mech_name(const struct bb_mech *m);

/* Episodes taken so far. */
long bb_mech_episodes(const struct bb_mech *m);

/* 1 if the prefix of k episodes is released (k >= 1), else 0. */
int bb_mech_is_release(const struct bb_mech *m, long k);

/* Adds episode k+1: phi[h] (d entries, borrowed) is its chosen row of step
 * h. Draws the noise this episode makes due with r. Returns BB_EFULL past
 * K_max and BB_EINVAL while a replay is not complete; nothing changes then. */
int bb_mech_add(struct bb_mech *m, const double *const *phi, struct bb_rng *r) BB_WARN_UNUSED;

/* The records drawn by the last bb_mech_add() (zero or more), in *out.
 * Borrowed, valid until the next add. Returns their number. */
size_t bb_mech_records(const struct bb_mech *m, const struct bb_mech_record **out);

/* out (d*d) := the latest released private prefix of step h (the prefix of
 * the largest release point <= episodes; all zero before the first).
 * BB_EINVAL while noise is missing. */
int bb_mech_prefix(const struct bb_mech *m, int h, double *out) BB_WARN_UNUSED;

/* Recovery: adds a stored episode like bb_mech_add() without drawing. */
int bb_mech_replay(struct bb_mech *m, const double *const *phi) BB_WARN_UNUSED;

/* Recovery: supplies one stored record, after every replay. A record the
 * mechanism no longer needs is ignored (BB_OK); BB_EINVAL if it is
 * malformed, BB_ECONFLICT if that noise is present already. */
int bb_mech_load(struct bb_mech *m, const struct bb_mech_record *rec) BB_WARN_UNUSED;

/* BB_OK when every piece of noise the current state needs is present,
 * else BB_EINVAL (a record is missing from the store). */
int bb_mech_ready(const struct bb_mech *m) BB_WARN_UNUSED;

#endif
