/*
 * writer_impl.h — the writer's rooms and what they share (writer.h).
 * Only writer.c, ingest.c, commit.c and update.c include it.
 *
 * Two threads, one pipeline, so that the engine's work on the next episodes
 * (drawing mechanism noise is most of it) overlaps the fsync of the last:
 *
 *   engine thread  (writer.c) takes the queued jobs in order and runs each
 *                  through ingest (ingest.c), then begins or finishes an
 *                  update (update.c); every step becomes a unit handed to
 *                  the committer, in order.
 *   commit thread  (commit.c) takes every unit ready (group commit), writes
 *                  them in one transaction, COMMITs, and only then makes
 *                  them visible and completes their jobs, so a 2xx always
 *                  means committed. Units keep the engine thread's order.
 *
 * Failure: if SQLite fails after the engine changed, memory and disk
 * disagree; the writer answers 503 to everything, marks the daemon fatal
 * and the daemon stops; a restart rebuilds the engine from what was
 * committed. A commit that fails for want of space (a full disk) is
 * transient instead: the committer rolls the group back and stalls
 * (answering 503 to every unit handed over until the engine thread has
 * caught up); the engine thread waits until nothing is in flight, rebuilds
 * the engine from what is committed (x->rebuild, what a restart does),
 * answers episodes 503 for a second, and then tries again: ingest resumes
 * by itself once space returns.
 */
#ifndef BB_WRITER_IMPL_H
#define BB_WRITER_IMPL_H

#include <pthread.h>
#include <time.h>

#include "writer.h"

/* ---- shared by the rooms (writer.c) ---- */

/* Sets j's error answer; field and detail may be NULL. */
void writer_set_err(struct bb_job *j, int err, const char *field, const char *detail);
/* Marks j finished and calls its done(). */
void writer_complete(struct bb_job *j);
/* Marks the daemon fatal (storage failed), saying so once. */
void writer_fatal(const struct bb_writer_ctx *x, const char *what);
/* Seconds since t0 (CLOCK_MONOTONIC). */
double writer_since(const struct timespec *t0);

/* ---- units: what the committer writes for one step ---- */

enum unit_kind { U_JOB, U_CHARGE, U_BILLBOARD };

struct unit {
    enum unit_kind kind;
    long seq;                   /* engine-thread order */
    struct bb_job *job;         /* U_JOB: completed after the commit */
    int write;                  /* U_JOB episode: accepted, rows to write */
    long k;                     /* episode number */
    long released;              /* U_JOB episode: bb_ledger_released after it */
    struct bb_mech_record *rec; /* owned: the noise records the add drew */
    size_t nrec;
    unsigned char *recmem;  /* owned: their bytes */
    long charged;           /* U_CHARGE */
    struct bb_board *board; /* U_BILLBOARD, or the warm billboard of a U_JOB episode
                               that reached a warm point (docs/PRIVACY.md §2.5),
                               stored with it: owned reference */
    uint64_t episode;       /* of board */
    double *y_noisy;        /* U_BILLBOARD: owned, ny */
    size_t ny;              /* U_BILLBOARD: H*d */
    double seconds;         /* U_BILLBOARD: update duration so far */
    struct unit *next;
};

/* Frees u and what it owns; NULL is a no-op. */
void unit_free(struct unit *u);

/* ---- the committer (commit.c) ---- */

struct committer {
    const struct bb_writer_ctx *x;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct unit *head, *tail; /* handed over, not yet taken */
    int stop;
    long seq;           /* last unit handed over (engine thread only) */
    long committed_seq; /* last unit committed (under mu) */
    long released, charged, version; /* the journal's last line (commit thread) */
    atomic_int stalled; /* a commit failed for want of space: write nothing
                         * until the engine thread has rebuilt the engine */
};

/* Starts the commit thread over x (borrowed). */
int commit_start(struct committer *c, const struct bb_writer_ctx *x) BB_WARN_UNUSED;
/* Hands u (taken) to the committer with sequence number c->seq + 1
 * (engine thread). */
void commit_hand_over(struct committer *c, struct unit *u);
/* Blocks until unit seq is committed or the daemon went fatal. */
void commit_wait(struct committer *c, long seq);
/* The sequence number of the last unit committed. */
long commit_visible(struct committer *c);
/* Commits and completes everything handed over, then ends the thread
 * (once nothing more will be handed over). */
void commit_stop(struct committer *c);
void commit_release(struct committer *c);

/* ---- ingest (ingest.c), on the engine thread ---- */

struct pending; /* a key whose unit is not yet known committed */

struct ingest {
    const struct bb_writer_ctx *x;
    struct committer *c;
    struct bb_db *rdb; /* read-only, lent by x->pool */
    struct pending *head, *tail;
    struct timespec full_until; /* episodes answer 503 until then (CLOCK_MONOTONIC) */
};

void ingest_init(struct ingest *in, const struct bb_writer_ctx *x, struct committer *c);
/* Decides j, applies it to the engine if it is an accepted episode, and
 * hands it to the committer, which completes it. */
void ingest_job(struct ingest *in, struct bb_job *j);
void ingest_release(struct ingest *in);
/* After a rebuild: forgets every pending key (all answered by now) and
 * answers episodes 503 for the next `seconds`. */
void ingest_reset(struct ingest *in, int seconds);

/* ---- update orchestration (update.c), on the engine thread ---- */

struct updater {
    const struct bb_writer_ctx *x;
    struct committer *c;
    pthread_mutex_t *mu;   /* the writer's queue lock: the worker reports under it */
    pthread_cond_t *cv;    /* and wakes the engine thread with it */
    struct bb_update *upd; /* in flight; NULL if none */
    pthread_t worker;
    int ready, rc; /* run ended (under mu), its result */
    struct timespec start;
    int blocked;    /* ECAP or ENOTPD reported once */
    long failed_at; /* episodes when an update last failed; -1 = none */
};

void update_init(struct updater *u, const struct bb_writer_ctx *x, struct committer *c,
                 pthread_mutex_t *mu, pthread_cond_t *cv);
/* Alg. 1 line 6: begins an update when one is due and none is running,
 * unless stopping. The charge is committed before the run starts. */
void update_maybe_begin(struct updater *u, int stopping);
/* Finishes the update whose run ended (u->ready); the committer stores the
 * billboard and then serves it. */
void update_finish(struct updater *u);
/* Drops the update in flight, if any, unfinished (waits for its run). */
void update_abandon(struct updater *u);

#endif
