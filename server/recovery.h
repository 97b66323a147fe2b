/*
 * recovery.h — what a start makes of the database: the first start's
 * content, and the engine and billboard every start rebuilds from it.
 *
 * A first start stores the configuration, its derived parameters
 * (pinned.h), the token-hash key and billboard version 0 in one
 * transaction. Every start then rebuilds the engine from
 * the stored episodes and mechanism records without drawing noise
 * (bb_engine_recover()) and makes the latest stored billboard current, with
 * every update charged against N_max counted (writer.h).
 */
#ifndef BB_RECOVERY_H
#define BB_RECOVERY_H

#include "billboard/err.h"

struct bbd;

/* First start: stores config (borrowed, bb_config_dump() form), d->p's
 * derived parameters (bb_pinned_dump()), a new token-hash key and the
 * engine's billboard 0 into d->db in one transaction. Nothing is stored on error. */
int bb_recovery_create(struct bbd *d, const char *config) BB_WARN_UNUSED;

/* Rebuilds d->engine (new, nothing added) from d->db, makes the latest
 * stored billboard current in the engine and in d->board, and sets
 * d->stats. On error a message is on stderr and the engine is unusable. */
int bb_recovery_run(struct bbd *d) BB_WARN_UNUSED;

#endif
