/*
 * test_writer.c — the single writer on real parts: a SQLite file in a
 * temporary folder, a real engine, the real clinic registry. What it
 * asserts: jobs are applied and answered in submission order; an answer
 * means committed, a failed group commit answers every job in it 503 and
 * keeps none of it; an Idempotency-Key replay travels behind its original;
 * an update is charged, stored and only then served, and one whose
 * billboard cannot be stored is never served; stop answers every queued
 * job and refuses later ones.
 */
#include "testutil.h"

#include <pthread.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "billboard/codec.h"
#include "board.h"
#include "db.h"
#include "engine/engine.h"
#include "problem.h"
#include "stats.h"
#include "writer.h"

enum { H = 2, A = 2, D = 3, NJOBS = 64 };

/* One writer over a fresh database, with clinic 1 enrolled. */
struct fx {
    char dir[64], path[96];
    struct bb_params p;
    struct bb_rng rng;
    struct bb_engine *engine;
    struct bb_db *db, *peek; /* the writer's; a second read-write connection */
    struct bb_db_pool *pool;
    struct bb_auth *auth;
    struct bb_board_slot board;
    struct bb_stats stats;
    atomic_int fatal;
    struct bb_entropy entropy;
    struct bb_writer *w;
    /* completions, in order */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int ndone;
    struct bb_job *done[NJOBS * 2];
    int bad_visibility; /* an answer came before its commit was visible */
};

/* rule: when updates are due; max_updates: N_max (0: the bound). */
static struct fx *fx_new(enum bb_update_rule rule, long max_updates)
{
    struct fx *f = calloc(1, sizeof(*f));
    char why[256];
    assert_non_null(f);
    snprintf(f->dir, sizeof(f->dir), "/tmp/bb_test_writer_XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->path, sizeof(f->path), "%s/w.db", f->dir);
    bb_params_defaults(&f->p);
    f->p.H = H, f->p.d = D, f->p.A = A, f->p.K_max = 4 * NJOBS, f->p.rho = INFINITY;
    f->p.update_rule = rule;
    f->p.max_updates_cap = max_updates;
    assert_int_equal(bb_params_derive(&f->p, why, sizeof(why)), BB_OK);
    bb_rng_init_seeded(&f->rng, 7);
    assert_int_equal(bb_engine_new(&f->p, &f->rng, &f->engine), BB_OK);
    assert_int_equal(bb_db_open(f->path, 0, &f->db, why, sizeof(why)), BB_OK);
    assert_int_equal(bb_db_open(f->path, 0, &f->peek, why, sizeof(why)), BB_OK);

    /* What a first start stores and serves: billboard 0. */
    size_t len = 0;
    char etag[BB_ETAG_MAX];
    const struct bb_billboard *b0 = bb_engine_billboard(f->engine);
    char *body = bb_billboard_to_json(b0, &len);
    assert_non_null(body);
    bb_board_etag(0, body, len, etag);
    struct bb_board *board = NULL;
    assert_int_equal(bb_board_new(body, len, NULL, &board), BB_OK);
    bb_board_slot_init(&f->board);
    bb_board_swap(&f->board, board);

    unsigned char key[BB_AUTH_KEY], hash[BB_AUTH_HASH];
    randombytes_buf(key, sizeof(key));
    assert_int_equal(bb_auth_new(key, &f->auth), BB_OK);
    bb_auth_hash(f->auth, "clinic-one-token", 16, hash);
    int64_t id = 0;
    assert_int_equal(bb_db_begin(f->db), BB_OK);
    assert_int_equal(bb_db_billboard_put(f->db, 0, 0, etag, body, len, NULL, 0), BB_OK);
    assert_int_equal(bb_db_clinic_insert(f->db, "one", hash, 1, &id), BB_OK);
    assert_int_equal(bb_db_commit(f->db), BB_OK);
    assert_int_equal(id, 1);
    assert_int_equal(bb_auth_add(f->auth, 1, hash, 0), BB_OK);
    free(body);

    assert_int_equal(bb_db_pool_new(f->path, 2, &f->pool, why, sizeof(why)), BB_OK);
    bb_stats_init(&f->stats);
    atomic_init(&f->fatal, 0);
    bb_entropy_init(&f->entropy);
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cv, NULL);
    return f;
}

static void fx_start(struct fx *f)
{
    struct bb_writer_ctx x = {f->engine, f->db,    f->pool,     f->auth, &f->board, &f->stats,
                              &f->fatal, NULL,     &f->entropy, NULL,    NULL};
    assert_int_equal(bb_writer_start(&x, &f->w), BB_OK);
}

static void fx_free(struct fx *f)
{
    bb_writer_stop(f->w);
    bb_writer_free(f->w);
    bb_db_pool_free(f->pool);
    bb_auth_free(f->auth);
    bb_engine_free(f->engine);
    bb_rng_release(&f->rng);
    bb_db_close(f->peek);
    bb_db_close(f->db);
    bb_board_slot_release(&f->board);
    bb_stats_release(&f->stats);
    pthread_cond_destroy(&f->cv);
    pthread_mutex_destroy(&f->mu);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
    assert_int_equal(system(cmd), 0);
    free(f);
}

/* done(): runs on the commit thread (or in submit once stopped). An
 * accepted episode's key must already be readable from another
 * connection: the answer comes after the COMMIT. */
static void on_done(struct bb_job *j)
{
    struct fx *f = j->ctx;
    if (j->kind == BB_JOB_EPISODE && j->err == BB_OK && !j->replayed) {
        unsigned char hash[BB_DB_HASH];
        int status = 0;
        char *resp = NULL;
        size_t len = 0;
        if (bb_db_idem_get(f->peek, j->clinic, j->key, hash, &status, &resp, &len) != BB_OK ||
            len != j->resp_len || memcmp(resp, j->resp, len) != 0)
            f->bad_visibility = 1;
        free(resp);
    }
    pthread_mutex_lock(&f->mu);
    f->done[f->ndone++] = j;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
}

/* An episode job from clinic 1 with key "k<i>" and a body told by seed. */
static struct bb_job *episode_job(struct fx *f, const char *key, int seed)
{
    struct bb_job *j = calloc(1, sizeof(*j));
    assert_non_null(j);
    j->kind = BB_JOB_EPISODE;
    j->clinic = 1;
    snprintf(j->key, sizeof(j->key), "%s", key);
    crypto_generichash(j->body_hash, sizeof(j->body_hash), (const unsigned char *)&seed,
                       sizeof(seed), NULL, 0);
    assert_int_equal(bb_episode_buf_init(&j->ep, H, A, D), BB_OK);
    for (int i = 0; i < H * A * D; i++)
        j->ep.features[i] = 0.1 + 0.3 * (double)((seed + i) % 2);
    for (int h = 0; h < H; h++) {
        j->ep.action[h] = (seed + h) % A;
        j->ep.reward[h] = 0.5;
    }
    j->done = on_done;
    j->ctx = f;
    return j;
}

static void job_free(struct bb_job *j)
{
    bb_episode_buf_release(&j->ep);
    free(j->resp);
    free(j);
}

/* Waits (up to 30 s) until n jobs are done. */
static void wait_done(struct fx *f, int n)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;
    pthread_mutex_lock(&f->mu);
    while (f->ndone < n)
        if (pthread_cond_timedwait(&f->cv, &f->mu, &until) != 0)
            break;
    int got = f->ndone;
    pthread_mutex_unlock(&f->mu);
    assert_int_equal(got, n);
}

/* Waits (up to 30 s) until cond(f) holds. */
static int eventually(struct fx *f, int (*cond)(struct fx *f))
{
    for (int i = 0; i < 3000; i++) {
        if (cond(f))
            return 1;
        usleep(10000);
    }
    return cond(f);
}

static int count_one(void *ctx, int64_t k, const struct bb_episode_buf *e)
{
    long *n = ctx;
    (void)k;
    (void)e;
    ++*n;
    return 0;
}

static long stored_episodes(struct fx *f)
{
    long n = 0;
    assert_int_equal(bb_db_episodes_each(f->peek, H, A, D, count_one, &n), BB_OK);
    return n;
}

static int in_order(void *ctx, int64_t k, const struct bb_episode_buf *e)
{
    long *n = ctx;
    (void)e;
    return k == ++*n ? 0 : BB_EINVAL; /* k is 1, 2, ... with no gap */
}

/* Every episode stored, k = 1..n. */
static long stored_in_order(struct fx *f)
{
    long n = 0;
    assert_int_equal(bb_db_episodes_each(f->peek, H, A, D, in_order, &n), BB_OK);
    return n;
}

static uint64_t receipt_episode(const struct bb_job *j)
{
    struct bb_receipt r;
    assert_int_equal(bb_receipt_from_json(j->resp, j->resp_len, &r, NULL, 0), BB_OK);
    return r.episode;
}

static void test_order(void **state)
{
    (void)state;
    struct fx *f = fx_new(BB_UPDATE_RARE, 0);
    struct bb_job *jobs[NJOBS];
    char key[16];
    fx_start(f);
    for (int i = 0; i < NJOBS; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        jobs[i] = episode_job(f, key, i);
        bb_writer_submit(f->w, jobs[i]);
    }
    wait_done(f, NJOBS);
    assert_string_equal(jobs[0]->resp, "{\"episode\":1,\"billboard_version\":0}");
    for (int i = 0; i < NJOBS; i++) {
        assert_ptr_equal(f->done[i], jobs[i]); /* answered in submission order */
        assert_int_equal(jobs[i]->err, BB_OK);
        assert_int_equal(jobs[i]->status, 201);
        assert_int_equal(atomic_load(&jobs[i]->finished), 1);
        assert_true(receipt_episode(jobs[i]) == (uint64_t)i + 1); /* k is that order */
    }
    assert_false(f->bad_visibility);
    assert_int_equal(stored_in_order(f), NJOBS);
    assert_int_equal(bb_stats_get(&f->stats).episodes, NJOBS);
    assert_int_equal(bb_engine_episodes(f->engine), NJOBS);
    fx_free(f);
    for (int i = 0; i < NJOBS; i++)
        job_free(jobs[i]);
}

static void test_idempotency_in_flight(void **state)
{
    (void)state;
    struct fx *f = fx_new(BB_UPDATE_RARE, 0);
    fx_start(f);
    /* Submitted back to back: the replay finds the original pending, not
     * yet committed, and is answered behind it with the same bytes. */
    struct bb_job *a = episode_job(f, "same", 1), *b = episode_job(f, "same", 1),
                  *c = episode_job(f, "same", 2);
    bb_writer_submit(f->w, a);
    bb_writer_submit(f->w, b);
    bb_writer_submit(f->w, c);
    wait_done(f, 3);
    assert_ptr_equal(f->done[0], a);
    assert_ptr_equal(f->done[1], b);
    assert_int_equal(a->err, BB_OK);
    assert_false(a->replayed);
    assert_int_equal(b->err, BB_OK);
    assert_true(b->replayed);
    assert_int_equal(b->status, 201);
    assert_int_equal(b->resp_len, a->resp_len);
    assert_memory_equal(b->resp, a->resp, a->resp_len);
    assert_int_equal(c->err, BBD_EKEYREUSE); /* same key, another body */
    assert_int_equal(stored_episodes(f), 1);
    fx_free(f);
    job_free(a);
    job_free(b);
    job_free(c);
}

static void test_group_commit_failure(void **state)
{
    (void)state;
    struct fx *f = fx_new(BB_UPDATE_RARE, 0);
    /* Episode 3 is already on disk: the group that writes k = 3 fails on
     * its uniqueness, so that whole group must roll back. */
    struct bb_job *pre = episode_job(f, "pre", 99);
    assert_int_equal(bb_db_begin(f->peek), BB_OK);
    assert_int_equal(bb_db_episode_insert(f->peek, 3, 1, 0, &pre->ep), BB_OK);
    assert_int_equal(bb_db_commit(f->peek), BB_OK);
    fx_start(f);
    struct bb_job *jobs[8];
    char key[16];
    for (int i = 0; i < 8; i++) {
        snprintf(key, sizeof(key), "g%d", i);
        jobs[i] = episode_job(f, key, i);
        bb_writer_submit(f->w, jobs[i]);
    }
    wait_done(f, 8);
    assert_true(atomic_load(&f->fatal));
    assert_false(f->bad_visibility);
    int committed = 0;
    for (int i = 0; i < 8; i++) {
        unsigned char hash[BB_DB_HASH];
        int status = 0;
        char *resp = NULL;
        size_t len = 0;
        int rc = bb_db_idem_get(f->peek, 1, jobs[i]->key, hash, &status, &resp, &len);
        free(resp);
        if (jobs[i]->err == BB_OK) {
            /* Answered 201: committed, and before every failed one. */
            assert_int_equal(committed, i);
            assert_int_equal(rc, BB_OK);
            committed++;
        } else {
            assert_int_equal(jobs[i]->err, BBD_EUNAVAIL);
            assert_null(jobs[i]->resp);
            assert_int_equal(rc, BB_ENOTFOUND); /* nothing of its group kept */
        }
    }
    assert_true(committed <= 2);                         /* k = 3 and everything after it failed */
    assert_int_equal(stored_episodes(f), committed + 1); /* and the one put there */
    /* Fatal: later jobs are refused at once. */
    struct bb_job *late = episode_job(f, "late", 50);
    bb_writer_submit(f->w, late);
    assert_int_equal(atomic_load(&late->finished), 1);
    assert_int_equal(late->err, BBD_EUNAVAIL);
    fx_free(f);
    for (int i = 0; i < 8; i++)
        job_free(jobs[i]);
    job_free(pre);
    job_free(late);
}

static int served_v1(struct fx *f)
{
    struct bb_board *b = bb_board_get(&f->board);
    int v = (int)b->version;
    bb_board_put(b);
    return v == 1 && bb_stats_get(&f->stats).version == 1;
}

static void test_update_published(void **state)
{
    (void)state;
    struct fx *f = fx_new(BB_UPDATE_EVERY, 1); /* one update, then N_max */
    fx_start(f);
    struct bb_job *j = episode_job(f, "u", 1);
    bb_writer_submit(f->w, j);
    wait_done(f, 1);
    /* Due once data exists: charged, run, stored, then served. */
    assert_true(eventually(f, served_v1));
    long charged = 0;
    assert_int_equal(bb_db_updates_charged_get(f->peek, &charged), BB_OK);
    assert_int_equal(charged, 1);
    assert_int_equal(bb_stats_get(&f->stats).updates, 1);
    char *body = NULL, *etag = NULL;
    size_t len = 0;
    assert_int_equal(bb_db_billboard_get(f->peek, 1, &body, &len, &etag), BB_OK);
    struct bb_board *b = bb_board_get(&f->board);
    assert_string_equal(etag, b->etag); /* what is served is what is stored */
    assert_int_equal(len, b->len);
    assert_memory_equal(body, b->body, len);
    bb_board_put(b);
    free(body);
    free(etag);
    fx_free(f);
    job_free(j);
}

static int went_fatal(struct fx *f)
{
    return atomic_load(&f->fatal);
}

static void test_update_fails(void **state)
{
    (void)state;
    struct fx *f = fx_new(BB_UPDATE_EVERY, 1);
    /* A billboard 1 already on disk: the update's billboard cannot be
     * stored, and so must never be served. */
    assert_int_equal(bb_db_begin(f->peek), BB_OK);
    assert_int_equal(bb_db_billboard_put(f->peek, 1, 0, "\"x\"", "{}", 2, NULL, 0), BB_OK);
    assert_int_equal(bb_db_commit(f->peek), BB_OK);
    fx_start(f);
    struct bb_job *j = episode_job(f, "u", 1);
    bb_writer_submit(f->w, j);
    wait_done(f, 1);
    assert_true(eventually(f, went_fatal));
    struct bb_board *b = bb_board_get(&f->board);
    assert_int_equal(b->version, 0); /* still billboard 0 */
    bb_board_put(b);
    assert_int_equal(bb_stats_get(&f->stats).version, 0);
    /* The charge was committed before the run: a restart counts it. */
    long charged = 0;
    assert_int_equal(bb_db_updates_charged_get(f->peek, &charged), BB_OK);
    assert_int_equal(charged, 1);
    char *body = NULL, *etag = NULL;
    size_t len = 0;
    assert_int_equal(bb_db_billboard_get(f->peek, 1, &body, &len, &etag), BB_OK);
    assert_string_equal(etag, "\"x\""); /* the row put there, untouched */
    free(body);
    free(etag);
    fx_free(f);
    job_free(j);
}

static void test_stop_with_jobs_queued(void **state)
{
    (void)state;
    struct fx *f = fx_new(BB_UPDATE_EVERY, 0);
    struct bb_job *jobs[NJOBS];
    char key[16];
    fx_start(f);
    for (int i = 0; i < NJOBS; i++) {
        snprintf(key, sizeof(key), "s%d", i);
        jobs[i] = episode_job(f, key, i);
        bb_writer_submit(f->w, jobs[i]);
    }
    bb_writer_stop(f->w); /* most of them still queued */
    /* Every queued job was applied, committed and answered. */
    assert_int_equal(f->ndone, NJOBS);
    for (int i = 0; i < NJOBS; i++) {
        assert_ptr_equal(f->done[i], jobs[i]);
        assert_int_equal(jobs[i]->err, BB_OK);
        assert_true(receipt_episode(jobs[i]) == (uint64_t)i + 1);
    }
    assert_false(f->bad_visibility);
    assert_int_equal(stored_in_order(f), NJOBS);
    /* An update running at stop was waited for: what is served is stored. */
    struct bb_board *b = bb_board_get(&f->board);
    char *body = NULL, *etag = NULL;
    size_t len = 0;
    assert_int_equal(bb_db_billboard_get(f->peek, -1, &body, &len, &etag), BB_OK);
    assert_string_equal(etag, b->etag);
    assert_int_equal(bb_stats_get(&f->stats).version, (long)b->version);
    bb_board_put(b);
    free(body);
    free(etag);
    /* After stop: refused at once. */
    struct bb_job *late = episode_job(f, "late", 1000);
    bb_writer_submit(f->w, late);
    assert_int_equal(atomic_load(&late->finished), 1);
    assert_int_equal(late->err, BBD_EUNAVAIL);
    assert_string_equal(late->detail, "the service is shutting down");
    fx_free(f);
    for (int i = 0; i < NJOBS; i++)
        job_free(jobs[i]);
    job_free(late);
}

int main(void)
{
    if (sodium_init() < 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_idempotency_in_flight),
        cmocka_unit_test(test_group_commit_failure),
        cmocka_unit_test(test_update_published),
        cmocka_unit_test(test_update_fails),
        cmocka_unit_test(test_stop_with_jobs_queued),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
