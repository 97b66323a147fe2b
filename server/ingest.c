/*
 * ingest.c — a job on the writer's engine thread (writer_impl.h): the
 * clinic's standing, the Idempotency-Key, bb_engine_add(), the receipt.
 *
 * Idempotency across the pipeline: a key whose unit is not yet committed
 * is in the pending list (removed only once its commit is visible), so a
 * lookup checks that list first and then the database through a read-only
 * connection. A replay of a pending key is answered only after the
 * original commits: it travels the pipeline behind it. Every job, error or
 * not, goes through the committer in order.
 */
#include "writer_impl.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem.h"

struct pending {
    long seq;
    int64_t clinic;
    char key[BB_IDEM_KEY_MAX + 1];
    unsigned char hash[BB_DB_HASH];
    char *resp; /* owned */
    size_t resp_len;
    struct pending *next;
};

void ingest_init(struct ingest *in, const struct bb_writer_ctx *x, struct committer *c)
{
    *in = (struct ingest){.x = x, .c = c, .rdb = bb_db_pool_get(x->pool)};
}

void ingest_release(struct ingest *in)
{
    while (in->head) {
        struct pending *p = in->head;
        in->head = p->next;
        free(p->resp);
        free(p);
    }
    in->tail = NULL;
    bb_db_pool_put(in->x->pool, in->rdb);
    in->rdb = NULL;
}

/* Drops pending keys whose commit is visible. */
static void pending_purge(struct ingest *in)
{
    long done = commit_visible(in->c);
    while (in->head && in->head->seq <= done) {
        struct pending *p = in->head;
        in->head = p->next;
        if (!in->head)
            in->tail = NULL;
        free(p->resp);
        free(p);
    }
}

static struct pending *pending_find(struct ingest *in, int64_t clinic, const char *key)
{
    for (struct pending *p = in->head; p; p = p->next)
        if (p->clinic == clinic && strcmp(p->key, key) == 0)
            return p;
    return NULL;
}

static int pending_add(struct ingest *in, const struct bb_job *j, long seq)
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
    if (in->tail)
        in->tail->next = p;
    else
        in->head = p;
    in->tail = p;
    return BB_OK;
}

/* Answers j from an earlier request with the same key. */
static int replay(struct bb_job *j, const unsigned char *hash, int status, const char *resp,
                  size_t len)
{
    if (sodium_memcmp(hash, j->body_hash, BB_DB_HASH) != 0) {
        writer_set_err(j, BBD_EKEYREUSE, NULL,
                       "this Idempotency-Key was used with a different body");
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

/* The warm billboard the engine's last add published (docs/PRIVACY.md
 * §2.5), into u: stored in the episode's transaction, served after it. */
static int warm_board(struct unit *u, const struct bb_writer_ctx *x)
{
    const struct bb_billboard *bb = bb_engine_billboard(x->engine);
    size_t len = 0;
    char *body = bb_billboard_to_json(bb, &len);
    int rc = body ? bb_board_new(body, len, bb, &u->board) : BB_ENOMEM;
    free(body);
    u->episode = bb->episode;
    return rc;
}

/* Decides an episode and, if accepted, adds it to the engine and fills u.
 * Returns BB_OK when the job has its answer (success or a client error);
 * anything else is fatal. */
static int episode(struct ingest *in, struct bb_job *j, struct unit *u)
{
    const struct bb_writer_ctx *x = in->x;
    if (!bb_auth_active(x->auth, j->clinic)) {
        writer_set_err(j, BB_EAUTH, NULL, "the clinic's token was revoked");
        return BB_OK;
    }
    pending_purge(in);
    const struct pending *p = pending_find(in, j->clinic, j->key);
    if (p)
        return replay(j, p->hash, 201, p->resp, p->resp_len);
    unsigned char hash[BB_DB_HASH];
    int status = 0;
    char *resp = NULL;
    size_t len = 0;
    int rc = bb_db_idem_get(in->rdb, j->clinic, j->key, hash, &status, &resp, &len);
    if (rc == BB_OK) {
        rc = replay(j, hash, status, resp, len);
        free(resp);
        return rc;
    }
    if (rc != BB_ENOTFOUND)
        return BB_EIO;
    long version = bb_stats_get(x->stats).version;
    if (j->ep.billboard_version > (uint64_t)version) {
        writer_set_err(j, BB_EINVAL, "/billboard_version", "no billboard of that version exists");
        return BB_OK;
    }
    struct bb_episode view = bb_episode_buf_view(&j->ep);
    char field[96] = "", why[160] = "";
    const uint64_t before = bb_engine_billboard(x->engine)->version;
    rc = bb_engine_add(x->engine, &view, field, sizeof(field), why, sizeof(why));
    if (rc == BB_EFULL) {
        writer_set_err(j, BB_EFULL, NULL,
                       "K_max episodes were received; the billboard stays as is");
        return BB_OK;
    }
    if (rc != BB_OK) {
        writer_set_err(j, rc, field, why);
        return BB_OK;
    }
    /* From here the engine holds the episode: any failure is fatal. */
    u->k = bb_engine_episodes(x->engine);
    u->released = bb_ledger_released(bb_engine_params(x->engine), u->k);
    if ((rc = copy_records(u, x->engine)) != BB_OK)
        return rc;
    if (bb_engine_billboard(x->engine)->version != before && (rc = warm_board(u, x)) != BB_OK)
        return rc;
    struct bb_receipt receipt = {(uint64_t)u->k, (uint64_t)version};
    if (!(j->resp = bb_receipt_to_json(&receipt, &j->resp_len)))
        return BB_ENOMEM;
    j->status = 201;
    j->err = BB_OK;
    u->write = 1;
    return BB_OK;
}

void ingest_reset(struct ingest *in, int seconds)
{
    while (in->head) {
        struct pending *p = in->head;
        in->head = p->next;
        free(p->resp);
        free(p);
    }
    in->tail = NULL;
    clock_gettime(CLOCK_MONOTONIC, &in->full_until);
    in->full_until.tv_sec += seconds;
}

/* 1 while a rebuilt writer waits before trying the disk again. */
static int full_wait(const struct ingest *in)
{
    struct timespec now;
    if (in->full_until.tv_sec == 0)
        return 0;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec < in->full_until.tv_sec ||
           (now.tv_sec == in->full_until.tv_sec && now.tv_nsec < in->full_until.tv_nsec);
}

void ingest_job(struct ingest *in, struct bb_job *j)
{
    const struct bb_writer_ctx *x = in->x;
    struct unit *u = calloc(1, sizeof(*u));
    char why[200];
    int rc = BB_ENOMEM;
    if (!u) {
        writer_set_err(j, BB_ENOMEM, NULL, NULL);
        writer_complete(j);
        return;
    }
    u->kind = U_JOB;
    u->job = j;
    if (atomic_load(x->fatal)) {
        writer_set_err(j, BBD_EUNAVAIL, NULL, "storage failed; the request was not applied");
        rc = BB_OK;
    } else if (atomic_load(&in->c->stalled) || full_wait(in)) {
        writer_set_err(j, BB_EIO, NULL, "the database's disk is full; the request was not applied");
        rc = BB_OK;
    } else if (j->kind == BB_JOB_EPISODE && bb_entropy_failed(x->entropy, why, sizeof(why))) {
        /* Its noise would come from a source that failed (entropy.h). */
        char detail[sizeof(why) + 64];
        snprintf(detail, sizeof(detail), "the random source failed (%s); try again later", why);
        writer_set_err(j, BBD_EUNAVAIL, NULL, detail);
        rc = BB_OK;
    } else if (j->kind == BB_JOB_EPISODE) {
        rc = episode(in, j, u);
    } else if (j->kind == BB_JOB_CLINIC_REVOKE) {
        /* Refuse the clinic's next episodes at once; the 204 waits for the
         * commit, and a failed commit reinstates it (commit.c). */
        j->revoked_here = bb_auth_active(x->auth, j->clinic);
        bb_auth_revoke(x->auth, j->clinic);
        j->status = 204;
        j->err = BB_OK;
        rc = BB_OK;
    } else {
        j->status = 201;
        j->err = BB_OK;
        rc = BB_OK;
    }
    if (rc != BB_OK) {
        /* The engine and the database may now disagree: stop (writer_fatal)
         * and answer 503 rather than anything half done. */
        writer_fatal(x, "applying an episode");
        free(j->resp);
        j->resp = NULL;
        u->write = 0;
        writer_set_err(j, BBD_EUNAVAIL, NULL, "storage failed; the request was not applied");
    }
    /* Listed as pending before the committer can see (and free) the unit;
     * commit_hand_over() gives it the sequence number c->seq + 1. */
    if (u->write && pending_add(in, j, in->c->seq + 1) != BB_OK)
        writer_fatal(x, "idempotency bookkeeping out of memory");
    commit_hand_over(in->c, u);
}
