/*
 * commit.c — the writer's commit thread: group commit (writer_impl.h).
 *
 * Takes every unit the engine thread handed over, writes them in one
 * transaction — episode, idempotency key, noise records (engine/mech.h:
 * opaque here, each replacing the stored one of its step and slot), the
 * update's charge, a billboard — COMMITs, and only then makes each visible
 * (stats, the served board, the clinic registry) and completes its job. A
 * failure anywhere rolls the whole group back and answers every job in it
 * 503.
 */
#include "writer_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "log.h"
#include "fault.h"
#include "metrics.h"
#include "problem.h"
#include "status.h"

void unit_free(struct unit *u)
{
    if (!u)
        return;
    free(u->rec);
    free(u->recmem);
    free(u->y_noisy);
    bb_board_put(u->board);
    free(u);
}

void commit_hand_over(struct committer *c, struct unit *u)
{
    u->seq = ++c->seq;
    u->next = NULL;
    pthread_mutex_lock(&c->mu);
    if (c->tail)
        c->tail->next = u;
    else
        c->head = u;
    c->tail = u;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

void commit_wait(struct committer *c, long seq)
{
    pthread_mutex_lock(&c->mu);
    while (c->committed_seq < seq && !atomic_load(c->x->fatal))
        pthread_cond_wait(&c->cv, &c->mu);
    pthread_mutex_unlock(&c->mu);
}

long commit_visible(struct committer *c)
{
    pthread_mutex_lock(&c->mu);
    long seq = c->committed_seq;
    pthread_mutex_unlock(&c->mu);
    return seq;
}

static int write_unit(const struct bb_writer_ctx *x, struct unit *u)
{
    struct bb_job *j = u->job;
    int rc = BB_OK;
    switch (u->kind) {
    case U_CHARGE:
        return bb_db_updates_charged_put(x->db, u->charged);
    case U_BILLBOARD:
        return bb_db_billboard_put(x->db, u->board->version, u->episode, u->board->etag,
                                   u->board->body, u->board->len, u->y_noisy, u->ny);
    case U_JOB:
        break;
    }
    if (j->kind == BB_JOB_EPISODE && u->write) {
        for (size_t i = 0; rc == BB_OK && i < u->nrec; i++) {
            if (i == 1)
                BB_FAULT_POINT("mid_noise_persist");
            rc = bb_db_mech_put(x->db, &u->rec[i]);
        }
        if (rc == BB_OK)
            rc = bb_db_episode_insert(x->db, u->k, j->clinic, (int64_t)j->ep.billboard_version,
                                      &j->ep);
        if (rc == BB_OK)
            rc = bb_db_idem_put(x->db, j->clinic, j->key, j->body_hash, 201, j->resp, j->resp_len,
                                u->k);
        if (rc == BB_OK && u->board) /* a warm billboard, after its records */
            rc = bb_db_billboard_put(x->db, u->board->version, u->episode, u->board->etag,
                                     u->board->body, u->board->len, NULL, 0);
    } else if (j->kind == BB_JOB_CLINIC_ADD && j->err == BB_OK) {
        j->created = (int64_t)time(NULL);
        rc = bb_db_clinic_insert(x->db, j->name, j->token_hash, j->created, &j->id);
    } else if (j->kind == BB_JOB_CLINIC_REVOKE && j->err == BB_OK) {
        rc = bb_db_clinic_revoke(x->db, j->clinic, (int64_t)time(NULL));
        if (rc == BB_ENOTFOUND) {
            writer_set_err(j, BB_ENOTFOUND, NULL, "no clinic with this id");
            rc = BB_OK;
        }
    }
    return rc;
}

/* The log's line for an update's committed charge: how many of N_max,
 * and the privacy spent with it (public facts, as /v1/privacy shows). */
static void log_update(const struct bb_writer_ctx *x, const struct unit *u)
{
    const struct bb_params *p = bb_engine_params(x->engine);
    struct bb_counts now = bb_stats_get(x->stats);
    struct bb_log_field f[] = {
        {"update", NULL, (double)u->charged},
        {"max_updates", NULL, (double)p->max_updates},
        {"episodes", NULL, (double)now.episodes},
        {"rho_spent", NULL, bb_params_rho_spent(p, now.episodes, u->charged, NULL, NULL)},
        {"rho", NULL, p->rho},
    };
    bb_log_event(BB_LOG_INFO, "update", f, sizeof(f) / sizeof(f[0]));
}

/* The log's line for a billboard now served. */
static void log_publish(const struct bb_writer_ctx *x, const struct unit *u, long version)
{
    const struct bb_params *p = bb_engine_params(x->engine);
    struct bb_counts now = bb_stats_get(x->stats);
    struct bb_log_field f[] = {
        {"version", NULL, (double)version},
        {"episodes", NULL, (double)u->episode},
        {"duration_s", NULL, u->seconds},
        {"updates", NULL, (double)now.updates},
        {"rho_spent", NULL, bb_params_rho_spent(p, now.episodes, now.updates, NULL, NULL)},
        {"rho", NULL, p->rho},
    };
    bb_log_event(BB_LOG_INFO, "publish", f, sizeof(f) / sizeof(f[0]));
}

/* Serves u's committed board: now, and only now. */
static void publish(const struct bb_writer_ctx *x, struct unit *u)
{
    long version = (long)u->board->version;
    bb_stats_set_version(x->stats, version);
    BB_FAULT_POINT("mid_billboard_publish");
    bb_board_swap(x->board, u->board);
    u->board = NULL;
    log_publish(x, u, version);
}

/* After the commit: what becomes visible, then the answers. */
static void after_commit(const struct bb_writer_ctx *x, struct unit *u, int ok, int full)
{
    struct bb_job *j = u->job;
    if (!ok) {
        if (j) {
            free(j->resp);
            j->resp = NULL;
            j->replayed = 0;
            if (full)
                writer_set_err(j, BB_EIO, NULL,
                               "the database's disk is full; the request was not applied");
            else
                writer_set_err(j, BBD_EUNAVAIL, NULL,
                               "storage failed; the request was not applied");
            if (j->kind == BB_JOB_CLINIC_REVOKE && j->revoked_here)
                bb_auth_reinstate(x->auth, j->clinic);
        }
        return;
    }
    if (u->kind == U_CHARGE) {
        bb_stats_set_updates(x->stats, u->charged);
        log_update(x, u);
    } else if (u->kind == U_BILLBOARD) {
        bb_metrics_update_seconds(u->seconds);
        publish(x, u);
    } else if (j->kind == BB_JOB_EPISODE && u->write) {
        bb_stats_set_episodes(x->stats, u->k);
        bb_metrics_episodes_add(1);
        if (u->board)
            publish(x, u);
    } else if (j->kind == BB_JOB_CLINIC_ADD && j->err == BB_OK) {
        if (bb_auth_add(x->auth, j->id, j->token_hash, 0) != BB_OK)
            writer_fatal(x, "clinic registry out of memory");
    } else if (j->kind == BB_JOB_CLINIC_REVOKE && j->err == BB_OK) {
        /* Also covers a clinic enrolled after the engine thread revoked it. */
        bb_auth_revoke(x->auth, j->clinic);
    }
}

/* Whether batch releases, charges or publishes, folding what it does into
 * the ledger's view (c->released, c->charged, c->version): then the
 * journal must hold it before the COMMIT (ledger.h). */
static int journal_due(struct committer *c, const struct unit *batch)
{
    int due = 0;
    for (const struct unit *u = batch; u; u = u->next) {
        if (u->kind == U_JOB && u->write && u->released > c->released) {
            c->released = u->released;
            due = 1;
        }
        if (u->kind == U_CHARGE && u->charged > c->charged) {
            c->charged = u->charged;
            due = 1;
        }
        if (u->board && (long)u->board->version > c->version) {
            c->version = (long)u->board->version;
            due = 1;
        }
    }
    return due;
}

static void *commit_main(void *arg)
{
    struct committer *c = arg;
    const struct bb_writer_ctx *x = c->x;
    for (;;) {
        pthread_mutex_lock(&c->mu);
        while (!c->head && !c->stop)
            pthread_cond_wait(&c->cv, &c->mu);
        struct unit *batch = c->head;
        c->head = c->tail = NULL;
        int stop = c->stop && !batch;
        pthread_mutex_unlock(&c->mu);
        if (stop)
            break;
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        long n = 0, last = 0;
        int full = atomic_load(&c->stalled);
        int rc = atomic_load(x->fatal) || full ? BB_EIO : bb_db_begin(x->db);
        for (struct unit *u = batch; u; u = u->next, n++) {
            last = u->seq;
            if (rc == BB_OK)
                rc = write_unit(x, u);
        }
        if (rc == BB_OK && journal_due(c, batch))
            rc = bb_ledger_journal_append(x->ledger, c->released, c->charged, c->version);
        if (rc == BB_OK) {
            BB_FAULT_POINT("before_commit");
            rc = bb_db_commit(x->db);
        }
        if (rc == BB_OK)
            BB_FAULT_POINT("after_commit_before_reply");
        if (rc != BB_OK && !full && !atomic_load(x->fatal)) {
            full = x->rebuild && bb_db_full(x->db);
            bb_db_rollback(x->db);
            if (full && !atomic_exchange(&c->stalled, 1))
                fprintf(stderr, "billboardd: the database's disk is full: answering 503 and "
                                "retrying; nothing of the failed commit is kept\n");
        }
        if (rc != BB_OK && !full)
            writer_fatal(x, "group commit");
        bb_metrics_commit(n, writer_since(&t0));
        for (struct unit *u = batch; u; u = u->next)
            after_commit(x, u, rc == BB_OK, full);
        pthread_mutex_lock(&c->mu);
        c->committed_seq = last;
        pthread_cond_broadcast(&c->cv);
        pthread_mutex_unlock(&c->mu);
        for (struct unit *u = batch, *next; u; u = next) {
            next = u->next;
            if (u->job)
                writer_complete(u->job);
            unit_free(u);
        }
    }
    return NULL;
}

int commit_start(struct committer *c, const struct bb_writer_ctx *x)
{
    *c = (struct committer){
        .x = x,
        .released = bb_ledger_released(bb_engine_params(x->engine), bb_engine_episodes(x->engine)),
        .charged = bb_engine_updates(x->engine),
        .version = (long)bb_engine_billboard(x->engine)->version};
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    if (pthread_create(&c->thread, NULL, commit_main, c) != 0) {
        commit_release(c);
        return BB_ENOMEM;
    }
    return BB_OK;
}

void commit_stop(struct committer *c)
{
    pthread_mutex_lock(&c->mu);
    c->stop = 1;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    pthread_join(c->thread, NULL);
}

void commit_release(struct committer *c)
{
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
}
