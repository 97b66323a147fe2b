/*
 * writer.c — the single writer: the engine thread, the commit thread, group
 * commit and updates (writer.h).
 *
 * Two threads, one pipeline, so that the engine's work on the next episodes
 * (drawing mechanism noise is most of it) overlaps the fsync of the last:
 *
 *   engine thread  takes the queued jobs in order; checks the clinic and
 *                  the Idempotency-Key; bb_engine_add(); copies the noise
 *                  records the add drew; hands a unit per job to the
 *                  committer.
 *   commit thread  takes every unit ready (group commit), writes them in
 *                  one transaction — episode, idempotency key, noise
 *                  records (engine/mech.h: opaque here, each replacing the
 *                  stored one of its step and slot) — COMMITs, and only then
 *                  completes the jobs, so a
 *                  2xx always means committed. k is the engine's order,
 *                  which the committer keeps.
 *
 * Idempotency across the pipeline: a key whose unit is not yet committed is
 * in the engine thread's pending list (removed only once its commit is
 * visible), so a lookup checks that list first and then the database
 * through a read-only connection. A replay of a pending key is answered only
 * after the original commits: it travels the pipeline behind it. Every job,
 * error or not, goes through the committer in order.
 *
 * Failure: if SQLite fails after the engine changed, memory and disk
 * disagree; the daemon answers 503 to everything, marks itself fatal and
 * stops, and a restart rebuilds the engine from what was committed.
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
#include "writer.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "engine/engine.h"
#include "metrics.h"
#include "problem.h"

#define MAX_BATCH 512

enum unit_kind { U_JOB, U_CHARGE, U_BILLBOARD };

/* What the committer writes for one step of the pipeline. */
struct unit {
    enum unit_kind kind;
    long seq;               /* engine-thread order */
    struct bb_job *job;     /* U_JOB: completed after the commit */
    int write;              /* U_JOB episode: accepted, rows to write */
    long k;                 /* episode number */
    struct bb_mech_record *rec; /* owned: the noise records the add drew */
    size_t nrec;
    unsigned char *recmem;  /* owned: their bytes */
    long charged;           /* U_CHARGE */
    struct bb_board *board; /* U_BILLBOARD: owned reference */
    uint64_t episode;       /* U_BILLBOARD */
    double *y_noisy;        /* U_BILLBOARD: owned, H*d */
    double seconds;         /* U_BILLBOARD: update duration so far */
    struct unit *next;
};

/* A key whose unit is not yet known committed. */
struct pending {
    long seq;
    int64_t clinic;
    char key[BB_IDEM_KEY_MAX + 1];
    unsigned char hash[BB_DB_HASH];
    char *resp; /* owned */
    size_t resp_len;
    struct pending *next;
};

struct bb_writer {
    struct bbd *d;
    pthread_t engine_thread, commit_thread;
    struct bb_db *rdb; /* read-only, the engine thread's */
    /* jobs from HTTP threads -> engine thread */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct bb_job *head, *tail;
    int stop;
    /* the update in flight (engine thread) */
    struct bb_update *upd;
    pthread_t worker;
    int upd_ready, upd_rc;
    struct timespec upd_start;
    int upd_blocked; /* ECAP or ENOTPD reported once */
    long failed_at;  /* episodes when an update last failed; -1 = none */
    /* engine thread -> committer */
    pthread_mutex_t cmu;
    pthread_cond_t ccv;
    struct unit *uhead, *utail;
    int cstop;
    long seq;                /* last unit handed over (engine thread) */
    long committed_seq;      /* last unit committed (under cmu) */
    struct pending *ph, *pt; /* engine thread only */
};

static void set_err(struct bb_job *j, int err, const char *field, const char *detail)
{
    j->err = err;
    snprintf(j->field, sizeof(j->field), "%s", field ? field : "");
    snprintf(j->detail, sizeof(j->detail), "%s", detail ? detail : "");
}

static void complete(struct bb_job *j)
{
    atomic_store(&j->finished, 1);
    j->done(j);
}

static void go_fatal(struct bb_writer *w, const char *what)
{
    if (!atomic_exchange(&w->d->fatal, 1))
        fprintf(stderr,
                "billboardd: storage failure (%s); stopping so that a restart "
                "recovers from what is committed\n",
                what);
}

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* ---------------- the committer ---------------- */

static void unit_free(struct unit *u)
{
    free(u->rec);
    free(u->recmem);
    free(u->y_noisy);
    bb_board_put(u->board);
    free(u);
}

/* Hands u to the committer (engine thread). */
static void hand_over(struct bb_writer *w, struct unit *u)
{
    u->seq = ++w->seq;
    u->next = NULL;
    pthread_mutex_lock(&w->cmu);
    if (w->utail)
        w->utail->next = u;
    else
        w->uhead = u;
    w->utail = u;
    pthread_cond_broadcast(&w->ccv);
    pthread_mutex_unlock(&w->cmu);
}

/* Blocks until unit seq is committed (or the daemon went fatal). */
static void wait_committed(struct bb_writer *w, long seq)
{
    pthread_mutex_lock(&w->cmu);
    while (w->committed_seq < seq && !atomic_load(&w->d->fatal))
        pthread_cond_wait(&w->ccv, &w->cmu);
    pthread_mutex_unlock(&w->cmu);
}

static int write_unit(struct bb_writer *w, struct unit *u)
{
    struct bbd *d = w->d;
    struct bb_job *j = u->job;
    int rc = BB_OK;
    switch (u->kind) {
    case U_CHARGE:
        return bb_db_updates_charged_put(d->db, u->charged);
    case U_BILLBOARD:
        return bb_db_billboard_put(d->db, u->board->version, u->episode, u->board->etag,
                                   u->board->body, u->board->len, u->y_noisy,
                                   (size_t)d->p.H * d->p.d);
    case U_JOB:
        break;
    }
    if (j->kind == BB_JOB_EPISODE && u->write) {
        for (size_t i = 0; rc == BB_OK && i < u->nrec; i++)
            rc = bb_db_mech_put(d->db, &u->rec[i]);
        if (rc == BB_OK)
            rc = bb_db_episode_insert(d->db, u->k, j->clinic, (int64_t)j->ep.billboard_version,
                                      &j->ep);
        if (rc == BB_OK)
            rc = bb_db_idem_put(d->db, j->clinic, j->key, j->body_hash, 201, j->resp, j->resp_len,
                                u->k);
    } else if (j->kind == BB_JOB_CLINIC_ADD && j->err == BB_OK) {
        j->created = (int64_t)time(NULL);
        rc = bb_db_clinic_insert(d->db, j->name, j->token_hash, j->created, &j->id);
    } else if (j->kind == BB_JOB_CLINIC_REVOKE && j->err == BB_OK) {
        rc = bb_db_clinic_revoke(d->db, j->clinic, (int64_t)time(NULL));
        if (rc == BB_ENOTFOUND) {
            set_err(j, BB_ENOTFOUND, NULL, "no clinic with this id");
            rc = BB_OK;
        }
    }
    return rc;
}

/* After the commit: what becomes visible, then the answers. */
static void after_commit(struct bb_writer *w, struct unit *u, int ok)
{
    struct bbd *d = w->d;
    struct bb_job *j = u->job;
    if (!ok) {
        if (j) {
            free(j->resp);
            j->resp = NULL;
            j->replayed = 0;
            set_err(j, BBD_EUNAVAIL, NULL, "storage failed; the request was not applied");
        }
        return;
    }
    if (u->kind == U_CHARGE) {
        pthread_mutex_lock(&d->stats_mu);
        d->stats.updates = u->charged;
        pthread_mutex_unlock(&d->stats_mu);
    } else if (u->kind == U_BILLBOARD) {
        /* Committed: now, and only now, serve it. */
        pthread_mutex_lock(&d->stats_mu);
        d->stats.version = (long)u->board->version;
        pthread_mutex_unlock(&d->stats_mu);
        bb_board_swap(&d->board, u->board);
        u->board = NULL;
        bb_metrics_update_seconds(u->seconds);
    } else if (j->kind == BB_JOB_EPISODE && u->write) {
        pthread_mutex_lock(&d->stats_mu);
        d->stats.episodes = u->k;
        pthread_mutex_unlock(&d->stats_mu);
        bb_metrics_episodes_add(1);
    } else if (j->kind == BB_JOB_CLINIC_ADD && j->err == BB_OK) {
        if (bb_auth_add(d->auth, j->id, j->token_hash, 0) != BB_OK)
            go_fatal(w, "clinic registry out of memory");
    } else if (j->kind == BB_JOB_CLINIC_REVOKE && j->err == BB_OK) {
        /* Also covers a clinic enrolled after the engine thread revoked it. */
        bb_auth_revoke(d->auth, j->clinic);
    }
}

static void *commit_main(void *arg)
{
    struct bb_writer *w = arg;
    struct bbd *d = w->d;
    for (;;) {
        pthread_mutex_lock(&w->cmu);
        while (!w->uhead && !w->cstop)
            pthread_cond_wait(&w->ccv, &w->cmu);
        struct unit *batch = w->uhead;
        w->uhead = w->utail = NULL;
        int stop = w->cstop && !batch;
        pthread_mutex_unlock(&w->cmu);
        if (stop)
            break;
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        long n = 0, last = 0;
        int rc = atomic_load(&d->fatal) ? BB_EIO : bb_db_begin(d->db);
        for (struct unit *u = batch; u; u = u->next, n++) {
            last = u->seq;
            if (rc == BB_OK)
                rc = write_unit(w, u);
        }
        if (rc == BB_OK)
            rc = bb_db_commit(d->db);
        if (rc != BB_OK) {
            if (!atomic_load(&d->fatal))
                bb_db_rollback(d->db);
            go_fatal(w, "group commit");
        }
        bb_metrics_commit(n, since(&t0));
        for (struct unit *u = batch; u; u = u->next)
            after_commit(w, u, rc == BB_OK);
        pthread_mutex_lock(&w->cmu);
        w->committed_seq = last;
        pthread_cond_broadcast(&w->ccv);
        pthread_mutex_unlock(&w->cmu);
        for (struct unit *u = batch, *next; u; u = next) {
            next = u->next;
            if (u->job)
                complete(u->job);
            unit_free(u);
        }
    }
    return NULL;
}

/* ---------------- the engine thread ---------------- */

/* Drops pending keys whose commit is visible. */
static void pending_purge(struct bb_writer *w)
{
    pthread_mutex_lock(&w->cmu);
    long done = w->committed_seq;
    pthread_mutex_unlock(&w->cmu);
    while (w->ph && w->ph->seq <= done) {
        struct pending *p = w->ph;
        w->ph = p->next;
        if (!w->ph)
            w->pt = NULL;
        free(p->resp);
        free(p);
    }
}

static struct pending *pending_find(struct bb_writer *w, int64_t clinic, const char *key)
{
    for (struct pending *p = w->ph; p; p = p->next)
        if (p->clinic == clinic && strcmp(p->key, key) == 0)
            return p;
    return NULL;
}

static int pending_add(struct bb_writer *w, const struct bb_job *j, long seq)
{
    struct pending *p = calloc(1, sizeof(*p));
    if (!p || !(p->resp = malloc(j->resp_len + 1))) {
        free(p);
        return BB_ENOMEM;
    }
    p->seq = seq;
    p->clinic = j->clinic;
    memcpy(p->key, j->key, sizeof(p->key));
    memcpy(p->hash, j->body_hash, BB_DB_HASH);
    memcpy(p->resp, j->resp, j->resp_len + 1);
    p->resp_len = j->resp_len;
    if (w->pt)
        w->pt->next = p;
    else
        w->ph = p;
    w->pt = p;
    return BB_OK;
}

/* Answers j from an earlier request with the same key. */
static int replay(struct bb_job *j, const unsigned char *hash, int status, const char *resp,
                  size_t len)
{
    if (sodium_memcmp(hash, j->body_hash, BB_DB_HASH) != 0) {
        set_err(j, BBD_EKEYREUSE, NULL, "this Idempotency-Key was used with a different body");
        return BB_OK;
    }
    if (!(j->resp = malloc(len + 1)))
        return BB_ENOMEM;
    memcpy(j->resp, resp, len);
    j->resp[len] = '\0';
    j->resp_len = len;
    j->status = (unsigned)status;
    j->replayed = 1;
    j->err = BB_OK;
    return BB_OK;
}

/* Copies the noise records of the engine's last add into u: they are the
 * engine's until its next add, the committer's after. */
static int copy_records(struct unit *u, const struct bb_engine *e)
{
    const struct bb_mech_record *rec;
    size_t n = bb_engine_records(e, &rec), total = 0;
    for (size_t i = 0; i < n; i++)
        total += rec[i].len;
    if (n == 0)
        return BB_OK;
    if (!(u->rec = malloc(n * sizeof(*u->rec))) || !(u->recmem = malloc(total ? total : 1)))
        return BB_ENOMEM;
    unsigned char *p = u->recmem;
    for (size_t i = 0; i < n; i++) {
        u->rec[i] = rec[i];
        memcpy(p, rec[i].bytes, rec[i].len);
        u->rec[i].bytes = p;
        p += rec[i].len;
    }
    u->nrec = n;
    return BB_OK;
}

/* Decides an episode and, if accepted, adds it to the engine and fills u.
 * Returns BB_OK when the job has its answer (success or a client error);
 * anything else is fatal. */
static int engine_episode(struct bb_writer *w, struct bb_job *j, struct unit *u)
{
    struct bbd *d = w->d;
    if (!bb_auth_active(d->auth, j->clinic)) {
        set_err(j, BB_EAUTH, NULL, "the clinic's token was revoked");
        return BB_OK;
    }
    pending_purge(w);
    const struct pending *p = pending_find(w, j->clinic, j->key);
    if (p)
        return replay(j, p->hash, 201, p->resp, p->resp_len);
    unsigned char hash[BB_DB_HASH];
    int status = 0;
    char *resp = NULL;
    size_t len = 0;
    int rc = bb_db_idem_get(w->rdb, j->clinic, j->key, hash, &status, &resp, &len);
    if (rc == BB_OK) {
        rc = replay(j, hash, status, resp, len);
        free(resp);
        return rc;
    }
    if (rc != BB_ENOTFOUND)
        return BB_EIO;
    pthread_mutex_lock(&d->stats_mu);
    long version = d->stats.version;
    pthread_mutex_unlock(&d->stats_mu);
    if (j->ep.billboard_version > (uint64_t)version) {
        set_err(j, BB_EINVAL, "/billboard_version", "no billboard of that version exists");
        return BB_OK;
    }
    struct bb_episode view = bb_episode_buf_view(&j->ep);
    char field[96] = "", why[160] = "";
    rc = bb_engine_add(d->engine, &view, field, sizeof(field), why, sizeof(why));
    if (rc == BB_EFULL) {
        set_err(j, BB_EFULL, NULL, "K_max episodes were received; the billboard stays as is");
        return BB_OK;
    }
    if (rc != BB_OK) {
        set_err(j, rc, field, why);
        return BB_OK;
    }
    /* From here the engine holds the episode: any failure is fatal. */
    u->k = bb_engine_episodes(d->engine);
    if ((rc = copy_records(u, d->engine)) != BB_OK)
        return rc;
    struct bb_receipt receipt = {(uint64_t)u->k, (uint64_t)version};
    if (!(j->resp = bb_receipt_to_json(&receipt, &j->resp_len)))
        return BB_ENOMEM;
    j->status = 201;
    j->err = BB_OK;
    u->write = 1;
    return BB_OK;
}

/* One job through the engine thread, then to the committer. */
static void engine_job(struct bb_writer *w, struct bb_job *j)
{
    struct unit *u = calloc(1, sizeof(*u));
    int rc = BB_ENOMEM;
    if (!u) {
        set_err(j, BB_ENOMEM, NULL, NULL);
        complete(j);
        return;
    }
    u->kind = U_JOB;
    u->job = j;
    if (atomic_load(&w->d->fatal)) {
        set_err(j, BBD_EUNAVAIL, NULL, "storage failed; the request was not applied");
        rc = BB_OK;
    } else if (j->kind == BB_JOB_EPISODE) {
        rc = engine_episode(w, j, u);
    } else if (j->kind == BB_JOB_CLINIC_REVOKE) {
        /* Refuse the clinic's next episodes at once; the 204 waits for the commit. */
        bb_auth_revoke(w->d->auth, j->clinic);
        j->status = 204;
        j->err = BB_OK;
        rc = BB_OK;
    } else {
        j->status = 201;
        j->err = BB_OK;
        rc = BB_OK;
    }
    if (rc != BB_OK) {
        /* The engine and the database may now disagree: stop (go_fatal)
         * and answer 503 rather than anything half done. */
        go_fatal(w, "applying an episode");
        free(j->resp);
        j->resp = NULL;
        u->write = 0;
        set_err(j, BBD_EUNAVAIL, NULL, "storage failed; the request was not applied");
    }
    /* Listed as pending before the committer can see (and free) the unit;
     * hand_over() gives it the sequence number w->seq + 1. */
    if (u->write && pending_add(w, j, w->seq + 1) != BB_OK)
        go_fatal(w, "idempotency bookkeeping out of memory");
    hand_over(w, u);
}

static void *worker_main(void *arg)
{
    struct bb_writer *w = arg;
    int rc = bb_engine_update_run(w->upd);
    pthread_mutex_lock(&w->mu);
    w->upd_rc = rc;
    w->upd_ready = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Alg. 1 line 6: begins an update when one is due and none is running. */
static void maybe_begin(struct bb_writer *w)
{
    struct bbd *d = w->d;
    if (w->upd || w->stop || atomic_load(&d->fatal) || !bb_engine_update_due(d->engine))
        return;
    /* Each begin is charged against N_max: after a failed update wait for
     * new data rather than burn the cap on the same failure. */
    if (w->failed_at == bb_engine_episodes(d->engine))
        return;
    int rc = bb_engine_update_begin(d->engine, &w->upd);
    if (rc != BB_OK) {
        w->upd = NULL;
        if (!w->upd_blocked)
            fprintf(stderr, "billboardd: update not begun: %s\n", bb_strerror(rc));
        w->upd_blocked = 1;
        return;
    }
    /* The charge is durable before any y noise is drawn. */
    struct unit *u = calloc(1, sizeof(*u));
    if (!u) {
        bb_update_free(w->upd);
        w->upd = NULL;
        go_fatal(w, "out of memory charging an update");
        return;
    }
    u->kind = U_CHARGE;
    u->charged = bb_engine_updates(d->engine);
    hand_over(w, u);
    wait_committed(w, w->seq);
    if (atomic_load(&d->fatal)) {
        bb_update_free(w->upd);
        w->upd = NULL;
        return;
    }
    clock_gettime(CLOCK_MONOTONIC, &w->upd_start);
    w->upd_ready = 0;
    if (pthread_create(&w->worker, NULL, worker_main, w) != 0) {
        /* Run it here instead: slower, still correct. */
        w->upd_rc = bb_engine_update_run(w->upd);
        w->upd_ready = 1;
        w->worker = pthread_self();
    }
}

/* Finishes the update whose run ended; the committer stores the billboard
 * and then serves it. */
static void finish(struct bb_writer *w)
{
    struct bbd *d = w->d;
    struct unit *u = NULL;
    char *body = NULL;
    size_t len = 0;
    int rc;
    if (!pthread_equal(w->worker, pthread_self()))
        pthread_join(w->worker, NULL);
    w->upd_ready = 0;
    if ((rc = w->upd_rc) != BB_OK)
        goto out;
    if ((rc = bb_engine_update_finish(d->engine, w->upd)) != BB_OK)
        goto out;
    const struct bb_billboard *bb = bb_engine_billboard(d->engine);
    const size_t ny = (size_t)d->p.H * d->p.d;
    rc = BB_ENOMEM;
    if (!(u = calloc(1, sizeof(*u))) || !(u->y_noisy = malloc(sizeof(double) * ny)))
        goto out;
    if (!(body = bb_billboard_to_json(bb, &len)))
        goto out;
    if ((rc = bb_board_new(body, len, bb, &u->board)) != BB_OK)
        goto out;
    memcpy(u->y_noisy, bb_update_y_noisy(w->upd), sizeof(double) * ny);
    u->kind = U_BILLBOARD;
    u->episode = bb->episode;
    u->seconds = since(&w->upd_start);
    hand_over(w, u);
    u = NULL;
out:
    if (rc != BB_OK && !atomic_load(&d->fatal)) {
        fprintf(stderr, "billboardd: update failed, billboard unchanged: %s\n", bb_strerror(rc));
        w->failed_at = bb_engine_episodes(d->engine);
    }
    if (u)
        unit_free(u);
    free(body);
    bb_update_free(w->upd);
    w->upd = NULL;
}

static void *engine_main(void *arg)
{
    struct bb_writer *w = arg;
    maybe_begin(w);
    for (;;) {
        pthread_mutex_lock(&w->mu);
        while (!w->head && !w->upd_ready && !(w->stop && !w->upd))
            pthread_cond_wait(&w->cv, &w->mu);
        struct bb_job *batch = w->head, *last = NULL;
        int n = 0;
        for (struct bb_job *j = w->head; j && n < MAX_BATCH; j = j->next, n++)
            last = j;
        if (last) {
            w->head = last->next;
            if (!w->head)
                w->tail = NULL;
            last->next = NULL;
        }
        int ready = w->upd_ready;
        int done = w->stop && !w->head && !batch && !w->upd;
        pthread_mutex_unlock(&w->mu);
        if (done)
            break;
        for (struct bb_job *j = batch, *next; j; j = next) {
            next = j->next;
            engine_job(w, j);
        }
        if (ready)
            finish(w);
        maybe_begin(w);
    }
    return NULL;
}

int bb_writer_start(struct bbd *d, struct bb_writer **out)
{
    struct bb_writer *w = calloc(1, sizeof(*w));
    *out = NULL;
    if (!w)
        return BB_ENOMEM;
    w->d = d;
    w->failed_at = -1;
    w->rdb = bb_db_pool_get(d->pool);
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    pthread_mutex_init(&w->cmu, NULL);
    pthread_cond_init(&w->ccv, NULL);
    if (pthread_create(&w->commit_thread, NULL, commit_main, w) != 0)
        goto fail;
    if (pthread_create(&w->engine_thread, NULL, engine_main, w) != 0) {
        pthread_mutex_lock(&w->cmu);
        w->cstop = 1;
        pthread_cond_broadcast(&w->ccv);
        pthread_mutex_unlock(&w->cmu);
        pthread_join(w->commit_thread, NULL);
        goto fail;
    }
    *out = w;
    return BB_OK;
fail:
    bb_db_pool_put(d->pool, w->rdb);
    pthread_cond_destroy(&w->ccv);
    pthread_mutex_destroy(&w->cmu);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
    return BB_ENOMEM;
}

void bb_writer_submit(struct bb_writer *w, struct bb_job *j)
{
    j->next = NULL;
    atomic_store(&j->finished, 0);
    pthread_mutex_lock(&w->mu);
    if (w->stop || atomic_load(&w->d->fatal)) {
        pthread_mutex_unlock(&w->mu);
        set_err(j, BBD_EUNAVAIL, NULL, "the service is shutting down");
        complete(j);
        return;
    }
    if (w->tail)
        w->tail->next = j;
    else
        w->head = j;
    w->tail = j;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

void bb_writer_stop(struct bb_writer *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->stop = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->engine_thread, NULL);
    /* Everything the engine thread handed over is committed and answered. */
    pthread_mutex_lock(&w->cmu);
    w->cstop = 1;
    pthread_cond_broadcast(&w->ccv);
    pthread_mutex_unlock(&w->cmu);
    pthread_join(w->commit_thread, NULL);
}

void bb_writer_free(struct bb_writer *w)
{
    if (!w)
        return;
    while (w->ph) {
        struct pending *p = w->ph;
        w->ph = p->next;
        free(p->resp);
        free(p);
    }
    bb_db_pool_put(w->d->pool, w->rdb);
    pthread_cond_destroy(&w->ccv);
    pthread_mutex_destroy(&w->cmu);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
}
