/*
 * writer.c — the single writer thread, group commit and updates (writer.h).
 *
 * Durability order for an episode: bb_engine_add() draws the noise of the
 * H tree nodes the episode completes; the episode, its idempotency key and
 * those nodes (upserted by (h, level): only live nodes matter, see tree.h)
 * go into the open transaction; COMMIT; only then does any client hear of
 * it. If SQLite fails after the engine changed, memory and disk disagree,
 * so the daemon answers 503, marks itself fatal and stops: a restart
 * rebuilds the engine from what was committed.
 *
 * Updates and crashes. bb_engine_update_begin() charges the update against
 * N_max. Before the worker draws any y noise the charge is committed
 * (meta.updates_charged), so a daemon killed between begin and the
 * billboard's commit restarts with that update counted: the draw is
 * discarded unpublished (it released nothing), the next billboard skips its
 * version number, and no sequence of crashes can make the process draw y
 * noise more than N_max times. Recovery restores the latest billboard with
 * its version raised to the charged count (billboardd.c).
 */
#include "writer.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "engine.h"
#include "metrics.h"
#include "problem.h"

#define MAX_BATCH 512

struct bb_writer {
    struct bbd *d;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct bb_job *head, *tail;
    int stop;
    /* the update in flight, if any */
    struct bb_update *upd;
    pthread_t worker;
    int upd_ready, upd_rc;
    struct timespec upd_start;
    int upd_blocked; /* ECAP or ENOTPD reported once */
    long failed_at;  /* episodes when an update last failed; -1 = none */
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

static void publish_stats(struct bb_writer *w)
{
    struct bbd *d = w->d;
    pthread_mutex_lock(&d->stats_mu);
    d->stats.episodes = bb_engine_episodes(d->engine);
    d->stats.updates = bb_engine_updates(d->engine);
    pthread_mutex_unlock(&d->stats_mu);
}

static void go_fatal(struct bb_writer *w, const char *what)
{
    if (!atomic_exchange(&w->d->fatal, 1))
        fprintf(stderr,
                "billboardd: storage failure (%s); stopping so that a restart "
                "recovers from what is committed\n",
                what);
}

/* Applies one episode inside the open transaction. Returns BB_OK when the
 * job got its answer (success or a client error) and BB_EIO when the
 * database failed. */
static int apply_episode(struct bb_writer *w, struct bb_job *j)
{
    struct bbd *d = w->d;
    unsigned char hash[BB_DB_HASH];
    int status = 0, rc;
    char *resp = NULL;
    size_t len = 0;

    if (!bb_auth_active(d->auth, j->clinic)) {
        set_err(j, BB_EAUTH, NULL, "the clinic's token was revoked");
        return BB_OK;
    }
    rc = bb_db_idem_get(d->db, j->clinic, j->key, hash, &status, &resp, &len);
    if (rc == BB_OK) {
        if (sodium_memcmp(hash, j->body_hash, BB_DB_HASH) == 0) {
            j->status = (unsigned)status;
            j->resp = resp;
            j->resp_len = len;
            j->replayed = 1;
            j->err = BB_OK;
        } else {
            free(resp);
            set_err(j, BBD_EKEYREUSE, NULL, "this Idempotency-Key was used with a different body");
        }
        return BB_OK;
    }
    if (rc != BB_ENOTFOUND)
        return BB_EIO;
    if (j->ep.billboard_version > (uint64_t)d->stats.version) {
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
    const long k = bb_engine_episodes(d->engine);
    const int level = __builtin_ctzl((unsigned long)k); /* leaf k completes level tz(k) */
    for (int h = 0; h < d->p.H; h++) {
        long leaf = 0;
        const double *noise = bb_tree_node(bb_engine_tree(d->engine, h), level, &leaf);
        if (!noise || leaf != k)
            return BB_EIO;
        if (bb_db_node_put(d->db, h, level, leaf, noise, d->p.d) != BB_OK)
            return BB_EIO;
    }
    if (bb_db_episode_insert(d->db, k, j->clinic, (int64_t)j->ep.billboard_version, &j->ep) !=
        BB_OK)
        return BB_EIO;
    char body[96];
    int n = snprintf(body, sizeof(body), "{\"episode\":%ld,\"billboard_version\":%ld}", k,
                     d->stats.version);
    if (bb_db_idem_put(d->db, j->clinic, j->key, j->body_hash, 201, body, (size_t)n, k) != BB_OK)
        return BB_EIO;
    if (!(j->resp = strdup(body)))
        return BB_EIO;
    j->resp_len = (size_t)n;
    j->status = 201;
    j->err = BB_OK;
    return BB_OK;
}

static int apply_clinic_add(struct bb_writer *w, struct bb_job *j)
{
    j->created = (int64_t)time(NULL);
    if (bb_db_clinic_insert(w->d->db, j->name, j->token_hash, j->created, &j->id) != BB_OK)
        return BB_EIO;
    j->status = 201;
    j->err = BB_OK;
    return BB_OK;
}

static int apply_clinic_revoke(struct bb_writer *w, struct bb_job *j)
{
    int rc = bb_db_clinic_revoke(w->d->db, j->clinic, (int64_t)time(NULL));
    if (rc == BB_ENOTFOUND) {
        set_err(j, BB_ENOTFOUND, NULL, "no clinic with this id");
        return BB_OK;
    }
    if (rc != BB_OK)
        return BB_EIO;
    /* Later episodes of this batch must already see the revocation. */
    bb_auth_revoke(w->d->auth, j->clinic);
    j->status = 204;
    j->err = BB_OK;
    return BB_OK;
}

/* One group commit: every job of the batch in one transaction. */
static void apply_batch(struct bb_writer *w, struct bb_job *batch)
{
    struct bbd *d = w->d;
    struct timespec t0, t1;
    long jobs = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long before = bb_engine_episodes(d->engine);
    int rc = atomic_load(&d->fatal) ? BB_EIO : bb_db_begin(d->db);
    for (struct bb_job *j = batch; rc == BB_OK && j; j = j->next, jobs++) {
        if (j->kind == BB_JOB_EPISODE)
            rc = apply_episode(w, j);
        else if (j->kind == BB_JOB_CLINIC_ADD)
            rc = apply_clinic_add(w, j);
        else
            rc = apply_clinic_revoke(w, j);
    }
    if (rc == BB_OK)
        rc = bb_db_commit(d->db);
    if (rc != BB_OK) {
        if (!atomic_load(&d->fatal))
            bb_db_rollback(d->db);
        go_fatal(w, "group commit");
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    bb_metrics_commit(jobs,
                      (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    long added = bb_engine_episodes(d->engine) - before;
    for (struct bb_job *j = batch, *next; j; j = next) {
        next = j->next;
        if (rc != BB_OK) {
            free(j->resp);
            j->resp = NULL;
            set_err(j, BBD_EUNAVAIL, NULL, "storage failed; the request was not applied");
        } else if (j->kind == BB_JOB_CLINIC_ADD && j->err == BB_OK &&
                   bb_auth_add(d->auth, j->id, j->token_hash, 0) != BB_OK) {
            go_fatal(w, "clinic registry out of memory");
        }
        complete(j);
    }
    if (rc == BB_OK && added > 0) {
        bb_metrics_episodes_add(added);
        publish_stats(w);
    }
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

static int store_charge(struct bb_writer *w)
{
    char v[32];
    int n = snprintf(v, sizeof(v), "%ld", bb_engine_updates(w->d->engine));
    int rc = bb_db_begin(w->d->db);
    if (rc == BB_OK)
        rc = bb_db_meta_put(w->d->db, "updates_charged", v, (size_t)n);
    if (rc == BB_OK)
        rc = bb_db_commit(w->d->db);
    else
        bb_db_rollback(w->d->db);
    return rc;
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
    if (store_charge(w) != BB_OK) {
        bb_update_free(w->upd);
        w->upd = NULL;
        go_fatal(w, "storing the update charge");
        return;
    }
    publish_stats(w);
    clock_gettime(CLOCK_MONOTONIC, &w->upd_start);
    w->upd_ready = 0;
    if (pthread_create(&w->worker, NULL, worker_main, w) != 0) {
        /* Run it here instead: slower, still correct. */
        w->upd_rc = bb_engine_update_run(w->upd);
        w->upd_ready = 1;
        w->worker = pthread_self();
    }
}

/* Finishes the update whose run ended: store the billboard, then serve it. */
static void finish(struct bb_writer *w)
{
    struct bbd *d = w->d;
    struct bb_board *b = NULL;
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
    rc = BB_ENOMEM;
    if (!(body = bb_billboard_to_json(bb, &len)))
        goto out;
    if ((rc = bb_board_new(body, len, bb, &b)) != BB_OK)
        goto out;
    rc = bb_db_begin(d->db);
    if (rc == BB_OK)
        rc = bb_db_billboard_put(d->db, b->version, bb->episode, b->etag, body, len,
                                 bb_update_y_noisy(w->upd), (size_t)d->p.H * d->p.d);
    if (rc == BB_OK)
        rc = bb_db_commit(d->db);
    if (rc != BB_OK) {
        bb_db_rollback(d->db);
        go_fatal(w, "storing a billboard");
        goto out;
    }
    /* Committed: now, and only now, serve it. */
    pthread_mutex_lock(&d->stats_mu);
    d->stats.version = (long)b->version;
    pthread_mutex_unlock(&d->stats_mu);
    bb_board_swap(&d->board, b);
    b = NULL;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    bb_metrics_update_seconds((double)(now.tv_sec - w->upd_start.tv_sec) +
                              (double)(now.tv_nsec - w->upd_start.tv_nsec) / 1e9);
out:
    if (rc != BB_OK && !atomic_load(&d->fatal)) {
        fprintf(stderr, "billboardd: update failed, billboard unchanged: %s\n", bb_strerror(rc));
        w->failed_at = bb_engine_episodes(d->engine);
    }
    free(body);
    bb_board_put(b);
    bb_update_free(w->upd);
    w->upd = NULL;
    publish_stats(w);
}

static void *writer_main(void *arg)
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
        if (batch)
            apply_batch(w, batch);
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
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    publish_stats(w);
    if (pthread_create(&w->thread, NULL, writer_main, w) != 0) {
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        free(w);
        return BB_ENOMEM;
    }
    *out = w;
    return BB_OK;
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
    pthread_join(w->thread, NULL);
}

void bb_writer_free(struct bb_writer *w)
{
    if (!w)
        return;
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
}
