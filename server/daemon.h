/*
 * daemon.h — the state billboardd's modules share.
 *
 * One struct bbd lives in main() for the process's lifetime. Ownership:
 * bb_daemon_open() creates and bb_daemon_release() frees every member.
 * Thread rules once the writer runs (writer.h): the engine and the rng
 * belong to its engine thread, the read-write db to its commit thread; the
 * HTTP threads read the board slot, the stats, auth, the read pool and the
 * immutable params. The writer sees only its narrow struct bb_writer_ctx.
 */
#ifndef BB_DAEMON_H
#define BB_DAEMON_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "auth.h"
#include "board.h"
#include "db.h"
#include "engine/engine.h"
#include "engine/params.h"
#include "engine/rng.h"
#include "ledger.h"
#include "entropy.h"
#include "stats.h"

struct bb_writer;

struct bbd {
    struct bb_params p; /* derived; immutable once serving */
    struct bb_rng rng;  /* mechanism noise; the engine borrows it */
    struct bb_engine *engine;
    struct bb_db *db;        /* read-write, the writer's */
    struct bb_db_pool *pool; /* read-only, the HTTP threads' */
    struct bb_auth *auth;
    struct bb_board_slot board;
    struct bb_writer *writer;
    struct bb_stats stats; /* what /v1/privacy and /metrics report */
    struct bb_ledger ledger; /* timeline, restores' charges, release journal */
    atomic_int fatal;      /* storage failed: stop and let recovery run */
    struct bb_entropy entropy; /* the random source's health (entropy.h) */
    size_t max_body;       /* request body cap, bytes */
    int lock_fd;           /* holds the database's lock (lock.h); -1: none */
    const char *created;   /* the database's path if this start created the
                            * file (borrowed from the options), else NULL */
};

struct bb_options;

/* Opens everything d holds for serving what o (borrowed) asks, recovering
 * the engine and the billboard from the database (daemon.c). d must be
 * zeroed; this sets d->lock_fd first. On error a message is on stderr. Either way the caller calls
 * bb_daemon_release(d) once the writer and the server are stopped. */
int bb_daemon_open(struct bbd *d, const struct bb_options *o) BB_WARN_UNUSED;

/* The writer's rebuild (writer.h) over d (a struct bbd): replaces
 * d->engine by a new one recovered from what d->db holds, as a start
 * would, and frees the old; on error d->engine stays as it was. Only while
 * the writer has nothing in flight. */
int bb_daemon_rebuild(void *d, struct bb_engine **engine);

/* Frees every member of d (the writer's too); d may be partly open. With
 * discard, a database this start created (d->created) is removed with its
 * -wal, -shm and -journal once SQLite has closed it and before its lock is
 * released: for a start that failed before listening, so it leaves nothing
 * half-made. Never discard once the daemon has listened: a client may have
 * written to it. */
void bb_daemon_release(struct bbd *d, int discard);

#endif
