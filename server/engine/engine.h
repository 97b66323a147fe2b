/*
 * engine.h — Private LSVI-UCB as a library: the curator without the daemon.
 *
 * The engine holds the continual-release mechanism of the Gram matrices
 * (mech.h), the reward stream where it is in force (rstream.h), every
 * episode (store.h), the update schedule and the current billboard. The daemon wraps it with HTTP and
 * SQLite; the simulator links it directly. One thread adds episodes; an
 * update may be split (begin / run / finish) so that run() happens on a
 * worker thread while episodes keep arriving.
 *
 * Per episode k (Alg. 1): bb_engine_add() validates it, stores it, hands
 * phi_h phi_h^T to the mechanism (drawing the noise it makes due) and, if k
 * is a release point, recomputes Lambda~_h = released prefix + ridge I (the
 * ridge doubled where that is indefinite, params.h enum bb_indefinite), its
 * Cholesky factor and log-det.
 * bb_engine_update_due() is line 6; an update (lines 7–13) publishes a
 * billboard with version + 1.
 */
#ifndef BB_ENGINE_H
#define BB_ENGINE_H

#include <stddef.h>

#include "billboard/billboard.h"
#include "billboard/err.h"
#include "billboard/episode.h"
#include "params.h"
#include "rng.h"
#include "mech.h"

struct bb_engine;
struct bb_update;

/* Creates an engine for derived params p (copied). rng is borrowed for the
 * engine's lifetime and must not be used by anyone else meanwhile; a second
 * stream for update noise is keyed from it. The initial billboard (version
 * 0: w = 0, Lambda~ = ridge I) is current. */
int bb_engine_new(const struct bb_params *p, struct bb_rng *rng, struct bb_engine **out)
    BB_WARN_UNUSED;
void bb_engine_free(struct bb_engine *e);

const struct bb_params *bb_engine_params(const struct bb_engine *e);
long bb_engine_episodes(const struct bb_engine *e);
long bb_engine_updates(const struct bb_engine *e);
/* The diagonal actually added to every Gram matrix: ridge snapped up to the grid. */
double bb_engine_ridge(const struct bb_engine *e);
/* The diagonal in step h's current Lambda~_h: bb_engine_ridge(), or that
 * times 2^j where the released prefix plus it was indefinite and
 * indefinite double doubled it (docs/PRIVACY.md §1.4). */
double bb_engine_ridge_step(const struct bb_engine *e, int h);

/* Validates ep (episode.h; field/why describe a failure) and adds it.
 * BB_EINVAL on bad input, BB_EFULL past K_max; nothing changes on error.
 * The noise it drew is then readable through bb_engine_records(). */
int bb_engine_add(struct bb_engine *e, const struct bb_episode *ep, char *field, size_t fieldlen,
                  char *why, size_t whylen) BB_WARN_UNUSED;

/* The noise records the last bb_engine_add() drew (mech.h; the Gram
 * mechanism's, then the reward stream's, rstream.h): the caller
 * persists them, each replacing the stored record of the same (step, slot),
 * before it publishes anything computed after that add. Borrowed, valid
 * until the next add. Returns their number (0 when the add drew nothing). */
size_t bb_engine_records(const struct bb_engine *e, const struct bb_mech_record **out);

/* The reward stream's latest release of step h (d entries into out) and
 * its noise's sd per coordinate (rstream.h): what the next update reads.
 * BB_ENOTFOUND where no stream is in force (bb_params_reward_stream). */
int bb_engine_reward(const struct bb_engine *e, int h, double *out, double *sd) BB_WARN_UNUSED;
/* The count stream's latest release of step h < H - 1 (d S entries into
 * out, row-major: entry c S + s') and its noise's sd per entry
 * (cstream.h): what the next update reads. BB_ENOTFOUND where the counts
 * are not in force (bb_params_counts). */
int bb_engine_counts(const struct bb_engine *e, int h, double *out, double *sd) BB_WARN_UNUSED;
/* The warm-up's reward stream's release of step h, as bb_engine_reward
 * (docs/PRIVACY.md §2.5). BB_ENOTFOUND where no warm-up is in force. */
int bb_engine_warm_reward(const struct bb_engine *e, int h, double *out, double *sd)
    BB_WARN_UNUSED;

/* The mechanism's name ("tree", ...), for /v1/config. Static. */
const char *bb_engine_mechanism(const struct bb_engine *e);

/* Episodes in the latest released prefix: the data Lambda~ holds now. */
long bb_engine_released(const struct bb_engine *e);

/* Recovery source: calls put(sink, ep) for every stored episode in commit
 * order and returns the first non-BB_OK result of put, or its own error. */
typedef int (*bb_engine_put)(void *sink, const struct bb_episode *ep);
typedef int (*bb_engine_source)(void *ctx, bb_engine_put put, void *sink);

/* Rebuilds a new engine (no episode added yet) from what was persisted:
 * replays every episode of src without drawing noise, hands the mechanism
 * every stored record (stale ones are ignored), and recomputes Lambda~.
 * BB_EINVAL if a record the current state needs is missing or malformed;
 * the engine is then unusable. Draws nothing, ever. */
int bb_engine_recover(struct bb_engine *e, bb_engine_source src, void *ctx,
                      const struct bb_mech_record *rec, size_t nrec) BB_WARN_UNUSED;

/* Makes a stored billboard current (recovery): its Gram matrices become
 * the schedule's reference. updates is the number of updates charged
 * against N_max, at least b->version: an update begun but never published
 * (a crash between begin and the billboard's commit) still counts. A warm
 * billboard (docs/PRIVACY.md §2.5) is current with updates = 0; the warm
 * points the stored episodes reached count as published.
 * BB_EINVAL if b->version > updates + the warm billboards + the version
 * offset, or updates > N_max, or sizes differ. */
int bb_engine_restore_billboard(struct bb_engine *e, const struct bb_billboard *b, long updates)
    BB_WARN_UNUSED;

/* What restores from a backup charged (server/ledger.h), added to every
 * privacy summary's rho_spent from now on, and the offset of billboard
 * versions: the next billboard is numbered updates + the warm billboards +
 * version_offset + 1, so a restored timeline never reuses a number the
 * lost one served. Call before
 * bb_engine_restore_billboard. */
void bb_engine_set_ledger(struct bb_engine *e, long restores, double rho_restored,
                          long version_offset);

/* Alg. 1 line 6: 1 if an update is due before the next episode. */
int bb_engine_update_due(const struct bb_engine *e);

/* Runs a whole update now (begin, run, finish). BB_ECAP once N_max updates
 * were made, BB_ENOTPD if some Lambda~_h is not positive definite (the
 * event of probability <= p; the update is then not made). */
int bb_engine_update(struct bb_engine *e) BB_WARN_UNUSED;

/* The split update. begin() snapshots Lambda~^k and the episode count and
 * charges the schedule; run() may execute on another thread while the
 * engine's thread keeps calling bb_engine_add(); finish() (engine thread)
 * publishes the billboard. Call free() on the update in every case. */
int bb_engine_update_begin(struct bb_engine *e, struct bb_update **out) BB_WARN_UNUSED;
int bb_engine_update_run(struct bb_update *u) BB_WARN_UNUSED;
int bb_engine_update_finish(struct bb_engine *e, struct bb_update *u) BB_WARN_UNUSED;
void bb_update_free(struct bb_update *u);
/* y~ of a run update (H*d), to persist with the billboard. Borrowed. */
const double *bb_update_y_noisy(const struct bb_update *u);

/* The current billboard, factored. Borrowed; valid until the next finish. */
const struct bb_billboard *bb_engine_billboard(const struct bb_engine *e);

/* Lambda~_h^{k} for the next episode k and its log-det (h 0-based). Borrowed. */
const double *bb_engine_gram(const struct bb_engine *e, int h);
double bb_engine_logdet(const struct bb_engine *e, int h);

#endif
