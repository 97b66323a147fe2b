/*
 * update.c — the writer's update orchestration (writer_impl.h), Alg. 1
 * lines 6-13: when an update is due, begin it on the engine thread and
 * commit its charge against N_max (writer.h: before any y noise is drawn);
 * run it on a worker thread while ingest continues; finish it on the engine
 * thread and hand the billboard to the committer, which stores it and only
 * then serves it.
 */
#include "writer_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

void update_init(struct updater *u, const struct bb_writer_ctx *x, struct committer *c,
                 pthread_mutex_t *mu, pthread_cond_t *cv)
{
    *u = (struct updater){.x = x, .c = c, .mu = mu, .cv = cv, .failed_at = -1};
}

static void *worker_main(void *arg)
{
    struct updater *u = arg;
    int rc = bb_engine_update_run(u->upd);
    pthread_mutex_lock(u->mu);
    u->rc = rc;
    u->ready = 1;
    pthread_cond_signal(u->cv);
    pthread_mutex_unlock(u->mu);
    return NULL;
}

void update_maybe_begin(struct updater *u, int stopping)
{
    const struct bb_writer_ctx *x = u->x;
    if (u->upd || stopping || atomic_load(x->fatal) || !bb_engine_update_due(x->engine))
        return;
    /* Each begin is charged against N_max: after a failed update wait for
     * new data rather than burn the cap on the same failure. */
    if (u->failed_at == bb_engine_episodes(x->engine))
        return;
    int rc = bb_engine_update_begin(x->engine, &u->upd);
    if (rc != BB_OK) {
        u->upd = NULL;
        if (!u->blocked)
            bb_log(BB_LOG_ERROR, "update not begun: %s", bb_strerror(rc));
        u->blocked = 1;
        return;
    }
    /* The charge is durable before any y noise is drawn. */
    struct unit *charge = calloc(1, sizeof(*charge));
    if (!charge) {
        bb_update_free(u->upd);
        u->upd = NULL;
        writer_fatal(x, "out of memory charging an update");
        return;
    }
    charge->kind = U_CHARGE;
    charge->charged = bb_engine_updates(x->engine);
    commit_hand_over(u->c, charge);
    commit_wait(u->c, u->c->seq);
    if (atomic_load(x->fatal)) {
        bb_update_free(u->upd);
        u->upd = NULL;
        return;
    }
    clock_gettime(CLOCK_MONOTONIC, &u->start);
    pthread_mutex_lock(u->mu);
    u->ready = 0;
    pthread_mutex_unlock(u->mu);
    if (pthread_create(&u->worker, NULL, worker_main, u) != 0) {
        /* Run it here instead: slower, still correct. */
        u->rc = bb_engine_update_run(u->upd);
        u->ready = 1;
        u->worker = pthread_self();
    }
}

void update_finish(struct updater *u)
{
    const struct bb_writer_ctx *x = u->x;
    struct unit *b = NULL;
    char *body = NULL;
    size_t len = 0;
    int rc;
    if (!pthread_equal(u->worker, pthread_self()))
        pthread_join(u->worker, NULL);
    u->ready = 0;
    if ((rc = u->rc) != BB_OK)
        goto out;
    if ((rc = bb_engine_update_finish(x->engine, u->upd)) != BB_OK)
        goto out;
    const struct bb_billboard *bb = bb_engine_billboard(x->engine);
    const size_t ny = (size_t)bb->H * bb->d;
    rc = BB_ENOMEM;
    if (!(b = calloc(1, sizeof(*b))) || !(b->y_noisy = malloc(sizeof(double) * ny)))
        goto out;
    if (!(body = bb_billboard_to_json(bb, &len)))
        goto out;
    if ((rc = bb_board_new(body, len, bb, &b->board)) != BB_OK)
        goto out;
    memcpy(b->y_noisy, bb_update_y_noisy(u->upd), sizeof(double) * ny);
    b->ny = ny;
    b->kind = U_BILLBOARD;
    b->episode = bb->episode;
    b->seconds = writer_since(&u->start);
    commit_hand_over(u->c, b);
    b = NULL;
out:
    if (rc != BB_OK && !atomic_load(x->fatal)) {
        bb_log(BB_LOG_ERROR, "update failed, billboard unchanged: %s", bb_strerror(rc));
        u->failed_at = bb_engine_episodes(x->engine);
    }
    unit_free(b);
    free(body);
    bb_update_free(u->upd);
    u->upd = NULL;
}
