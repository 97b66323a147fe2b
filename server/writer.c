/*
 * writer.c — the single writer's job queue, its engine thread and its API
 * (writer.h); the rooms are ingest.c, commit.c and update.c
 * (writer_impl.h).
 */
#include "writer_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "problem.h"

#define MAX_BATCH 512

struct bb_writer {
    struct bb_writer_ctx x;
    pthread_t engine_thread;
    /* jobs from HTTP threads -> engine thread */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct bb_job *head, *tail;
    int stop;
    struct committer commit; /* engine thread -> commit thread */
    struct ingest ingest;    /* engine thread only */
    struct updater update;   /* engine thread; its worker reports under mu */
};

void writer_set_err(struct bb_job *j, int err, const char *field, const char *detail)
{
    j->err = err;
    snprintf(j->field, sizeof(j->field), "%s", field ? field : "");
    snprintf(j->detail, sizeof(j->detail), "%s", detail ? detail : "");
}

void writer_complete(struct bb_job *j)
{
    atomic_store(&j->finished, 1);
    j->done(j);
}

void writer_fatal(const struct bb_writer_ctx *x, const char *what)
{
    if (!atomic_exchange(x->fatal, 1))
        bb_log(BB_LOG_ERROR,
               "storage failure (%s); stopping so that a restart "
               "recovers from what is committed",
               what);
}

double writer_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static int stopping(struct bb_writer *w)
{
    pthread_mutex_lock(&w->mu);
    int stop = w->stop;
    pthread_mutex_unlock(&w->mu);
    return stop;
}

static void *engine_main(void *arg)
{
    struct bb_writer *w = arg;
    update_maybe_begin(&w->update, stopping(w));
    for (;;) {
        pthread_mutex_lock(&w->mu);
        while (!w->head && !w->update.ready && !(w->stop && !w->update.upd))
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
        int ready = w->update.ready;
        int done = w->stop && !w->head && !batch && !w->update.upd;
        pthread_mutex_unlock(&w->mu);
        if (done)
            break;
        for (struct bb_job *j = batch, *next; j; j = next) {
            next = j->next;
            ingest_job(&w->ingest, j);
        }
        if (ready)
            update_finish(&w->update);
        update_maybe_begin(&w->update, stopping(w));
    }
    return NULL;
}

int bb_writer_start(const struct bb_writer_ctx *x, struct bb_writer **out)
{
    struct bb_writer *w = calloc(1, sizeof(*w));
    *out = NULL;
    if (!w)
        return BB_ENOMEM;
    w->x = *x;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    ingest_init(&w->ingest, &w->x, &w->commit);
    update_init(&w->update, &w->x, &w->commit, &w->mu, &w->cv);
    if (commit_start(&w->commit, &w->x) != BB_OK)
        goto fail;
    if (pthread_create(&w->engine_thread, NULL, engine_main, w) != 0) {
        commit_stop(&w->commit);
        commit_release(&w->commit);
        goto fail;
    }
    *out = w;
    return BB_OK;
fail:
    ingest_release(&w->ingest);
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
    if (w->stop || atomic_load(w->x.fatal)) {
        pthread_mutex_unlock(&w->mu);
        writer_set_err(j, BBD_EUNAVAIL, NULL, "the service is shutting down");
        writer_complete(j);
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
    commit_stop(&w->commit);
}

void bb_writer_free(struct bb_writer *w)
{
    if (!w)
        return;
    ingest_release(&w->ingest);
    commit_release(&w->commit);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
}
