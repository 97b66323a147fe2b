/*
 * writer.h — the single writer: every change to the engine and the database.
 *
 * HTTP threads hand jobs to the writer and are told when each is done. An
 * engine thread applies the jobs in order (k is that order) and a commit
 * thread writes every ready one in a single transaction (group commit),
 * COMMITs, and only then completes them, so a 2xx always means committed.
 * The writer also schedules the LSVI updates: begin and finish on the
 * engine thread, run on a worker thread while ingest continues.
 *
 * Three rooms, one file each, sharing writer_impl.h:
 *   ingest.c   a job on the engine thread: auth, Idempotency-Key (pending
 *              and stored), bb_engine_add(), the receipt
 *   commit.c   the commit thread: group commit, then what becomes visible
 *              (stats, the board, the clinic registry) and the answers
 *   update.c   Alg. 1 lines 6-13: charge, run on a worker, finish
 * writer.c holds the job queue, the engine thread's loop and this API.
 *
 * Updates and crashes. bb_engine_update_begin() charges the update against
 * N_max. Before the worker draws any y noise the charge is committed
 * (bb_db_updates_charged_put()), so a daemon killed between begin and the
 * billboard's commit restarts with that update counted: the draw is
 * discarded unpublished (it released nothing), the next billboard skips its
 * version number, and no sequence of crashes can make the process draw y
 * noise more than N_max times. Recovery restores the latest billboard with
 * its version raised to the charged count (recovery.c). A billboard is
 * committed before it is swapped in to be served.
 */
#ifndef BB_WRITER_H
#define BB_WRITER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "auth.h"
#include "board.h"
#include "db.h"
#include "engine/engine.h"
#include "job.h"
#include "ledger.h"
#include "stats.h"

_Static_assert(BB_JOB_HASH == BB_DB_HASH, "a job's body hash is the stored one");

struct bb_writer;

/* What the writer works on: the parts of the daemon it needs, each
 * borrowed for the writer's lifetime. While the writer runs, the engine is
 * its engine thread's alone and db its commit thread's alone. */
struct bb_writer_ctx {
    struct bb_engine *engine;    /* the curator, recovered */
    struct bb_db *db;            /* read-write */
    struct bb_db_pool *pool;     /* lends the engine thread a read-only connection */
    struct bb_auth *auth;        /* the clinic registry */
    struct bb_board_slot *board; /* where a committed billboard is served */
    struct bb_stats *stats;      /* refreshed after each commit */
    atomic_int *fatal;           /* set, once, when storage fails */
    struct bb_ledger *ledger;    /* its journal gets a line before a commit that
                                    releases, charges or publishes */
};

/* Starts the writer's threads over x (copied; what it points to is
 * borrowed). An update due at start-up (recovery) is begun at once. */
int bb_writer_start(const struct bb_writer_ctx *x, struct bb_writer **out) BB_WARN_UNUSED;

/* Queues j (borrowed until done() is called; done() may run before submit
 * returns when the writer is stopping). */
void bb_writer_submit(struct bb_writer *w, struct bb_job *j);

/* Graceful stop: applies and completes every queued job, waits for a
 * running update and publishes it, then ends its threads. Jobs submitted
 * afterwards complete at once with BBD_EUNAVAIL. */
void bb_writer_stop(struct bb_writer *w);
/* Frees a stopped writer; NULL is a no-op. */
void bb_writer_free(struct bb_writer *w);

#endif
