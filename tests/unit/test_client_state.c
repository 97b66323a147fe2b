/*
 * test_client_state.c — the clinic's local state store through the public
 * API (no daemon needed): an open episode and unsent finished ones survive
 * closing and reopening the file, the idempotency key is drawn once and
 * stays, steps are validated (reject, never clip), and the life cycle
 * open -> unsent is enforced.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>
#include <sys/stat.h>

#include "billboard/client.h"
#include "statestore.h"

enum { H = 3, A = 2, D = 4 };

struct fx {
    char dir[64];
    char path[96];
};

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    snprintf(f->dir, sizeof(f->dir), "/tmp/bbcstXXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->path, sizeof(f->path), "%s/state.db", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;
    char p[128];
    const char *suffix[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof(p), "%s%s", f->path, suffix[i]);
        unlink(p);
    }
    rmdir(f->dir);
    free(f);
    return 0;
}

static struct bb_client *open_client(const char *path)
{
    struct bb_client *c = NULL;
    assert_int_equal(bb_client_new("http://127.0.0.1:9", "tok", path, &c), BB_OK);
    assert_non_null(c);
    return c;
}

/* Features of step h: every row has norm <= 1 and differs per (h, a, j). */
static void features(int h, double *f)
{
    for (int a = 0; a < A; a++)
        for (int j = 0; j < D; j++)
            f[a * D + j] = 0.1 * (h + 1) + 0.01 * a + 0.001 * j;
}

static void test_open_episode_survives_reopen(void **state)
{
    struct fx *fx = *state;
    double f[A * D];
    int64_t id = 0, id2 = 0;
    int steps = -1;
    char key1[BB_CLIENT_KEY_MAX + 1], key2[BB_CLIENT_KEY_MAX + 1];

    struct bb_client *c = open_client(fx->path);
    assert_int_equal(bb_client_episode_begin(c, H, A, D, 7, &id), BB_OK);
    assert_true(id > 0);
    features(0, f);
    assert_int_equal(bb_client_episode_step(c, id, f, 1, 0.25), BB_OK);
    features(1, f);
    assert_int_equal(bb_client_episode_step(c, id, f, 0, 0.5), BB_OK);
    struct bb_episode_buf e = {0};
    assert_int_equal(bb_client_episode_load(c, id, &e, key1, NULL), BB_OK);
    bb_episode_buf_release(&e);
    bb_client_free(c); /* as if the process died here */

    c = open_client(fx->path);
    assert_int_equal(bb_client_episode_current(c, &id2, &steps), BB_OK);
    assert_int_equal(id2, id);
    assert_int_equal(steps, 2);
    assert_int_equal(bb_client_episode_load(c, id, &e, key2, &steps), BB_OK);
    assert_string_equal(key1, key2); /* drawn once, kept */
    assert_int_equal((int)strlen(key1), 64);
    assert_int_equal(e.H, H);
    assert_int_equal(e.A, A);
    assert_int_equal(e.d, D);
    assert_int_equal(e.billboard_version, 7);
    features(1, f);
    assert_memory_equal(e.features + A * D, f, sizeof(f));
    assert_int_equal(e.action[0], 1);
    assert_int_equal(e.action[1], 0);
    assert_true(e.reward[0] == 0.25 && e.reward[1] == 0.5);
    bb_episode_buf_release(&e);

    /* Finishing needs all H steps. */
    assert_int_equal(bb_client_episode_finish(c, id), BB_ERANGE);
    features(2, f);
    assert_int_equal(bb_client_episode_step(c, id, f, 1, 1.0), BB_OK);
    assert_int_equal(bb_client_episode_step(c, id, f, 1, 1.0), BB_ERANGE);
    assert_int_equal(bb_client_episode_finish(c, id), BB_OK);
    assert_int_equal(bb_client_episode_current(c, &id2, NULL), BB_ENOTFOUND);
    /* Finished: no more steps, no second finish. */
    assert_int_equal(bb_client_episode_step(c, id, f, 0, 0.0), BB_ENOTFOUND);
    assert_int_equal(bb_client_episode_finish(c, id), BB_ENOTFOUND);
    bb_client_free(c);

    c = open_client(fx->path);
    long open = -1, unsent = -1;
    assert_int_equal(bb_client_pending(c, &open, &unsent), BB_OK);
    assert_int_equal(open, 0);
    assert_int_equal(unsent, 1);
    assert_int_equal(bb_client_episode_load(c, id, &e, key2, &steps), BB_OK);
    assert_string_equal(key1, key2);
    assert_int_equal(steps, H);
    bb_episode_buf_release(&e);
    bb_client_free(c);
}

static void test_step_rejects_out_of_range(void **state)
{
    struct fx *fx = *state;
    double f[A * D];
    int64_t id;
    int steps = -1;
    struct bb_client *c = open_client(fx->path);
    assert_int_equal(bb_client_episode_begin(c, H, A, D, 0, &id), BB_OK);
    features(0, f);
    assert_int_equal(bb_client_episode_step(c, id, f, A, 0.5), BB_EINVAL);  /* action */
    assert_int_equal(bb_client_episode_step(c, id, f, -1, 0.5), BB_EINVAL); /* action */
    assert_int_equal(bb_client_episode_step(c, id, f, 0, 1.5), BB_EINVAL);  /* reward */
    assert_int_equal(bb_client_episode_step(c, id, f, 0, -0.1), BB_EINVAL); /* reward */
    assert_int_equal(bb_client_episode_step(c, id, f, 0, NAN), BB_EINVAL);
    f[D + 1] = 2.0; /* row of action 1 now has norm > 1: rejected, not clipped */
    assert_int_equal(bb_client_episode_step(c, id, f, 0, 0.5), BB_EINVAL);
    assert_non_null(strstr(bb_client_last_detail(c), "/steps/0/features/1"));
    features(0, f);
    f[3] = INFINITY;
    assert_int_equal(bb_client_episode_step(c, id, f, 0, 0.5), BB_EINVAL);
    /* Nothing of the rejected steps was stored. */
    assert_int_equal(bb_client_episode_current(c, &id, &steps), BB_OK);
    assert_int_equal(steps, 0);
    assert_int_equal(bb_client_episode_step(c, 999, f, 0, 0.5), BB_ENOTFOUND);
    /* Abort drops it. */
    assert_int_equal(bb_client_episode_abort(c, id), BB_OK);
    assert_int_equal(bb_client_episode_current(c, &id, &steps), BB_ENOTFOUND);
    bb_client_free(c);
}

static void test_enqueue_keys_and_order(void **state)
{
    struct fx *fx = *state;
    struct bb_episode_buf e = {0}, back = {0};
    int64_t id1, id2, id3;
    char k[BB_CLIENT_KEY_MAX + 1];
    struct bb_client *c = open_client(fx->path);

    assert_int_equal(bb_episode_buf_init(&e, H, A, D), BB_OK);
    for (int h = 0; h < H; h++) {
        features(h, e.features + h * A * D);
        e.action[h] = h % A;
        e.reward[h] = 0.1 * h;
    }
    e.billboard_version = 3;
    assert_int_equal(bb_client_enqueue(c, &e, "my-key-1", &id1), BB_OK);
    assert_int_equal(bb_client_enqueue(c, &e, NULL, &id2), BB_OK);
    /* A key belongs to one episode. */
    assert_int_equal(bb_client_enqueue(c, &e, "my-key-1", &id3), BB_ECONFLICT);
    assert_int_equal(bb_client_enqueue(c, &e, "bad key", &id3), BB_EINVAL);
    e.reward[1] = 2.0;
    assert_int_equal(bb_client_enqueue(c, &e, NULL, &id3), BB_EINVAL);
    e.reward[1] = 0.1;
    assert_true(id2 > id1);
    bb_client_free(c);

    c = open_client(fx->path);
    long unsent = 0;
    assert_int_equal(bb_client_pending(c, NULL, &unsent), BB_OK);
    assert_int_equal(unsent, 2);
    assert_int_equal(bb_client_episode_load(c, id1, &back, k, NULL), BB_OK);
    assert_string_equal(k, "my-key-1");
    assert_memory_equal(back.features, e.features, sizeof(double) * H * A * D);
    assert_memory_equal(back.action, e.action, sizeof(int) * H);
    assert_memory_equal(back.reward, e.reward, sizeof(double) * H);
    assert_int_equal(back.billboard_version, 3);
    bb_episode_buf_release(&back);
    assert_int_equal(bb_client_episode_load(c, id2, &back, k, NULL), BB_OK);
    assert_int_equal((int)strlen(k), 64);
    bb_episode_buf_release(&back);
    bb_episode_buf_release(&e);
    bb_client_free(c);
}

static void test_not_a_state_file(void **state)
{
    struct fx *fx = *state;
    struct bb_client *c = (struct bb_client *)1;
    FILE *f = fopen(fx->path, "w");
    assert_non_null(f);
    fputs("this is not SQLite at all, just text that is long enough to be a header", f);
    fclose(f);
    assert_int_equal(bb_client_new("http://127.0.0.1:9", NULL, fx->path, &c), BB_EIO);
    assert_null(c);
    /* No state file: the store calls say so rather than crash. */
    assert_int_equal(bb_client_new("http://127.0.0.1:9", NULL, NULL, &c), BB_OK);
    int64_t id;
    assert_int_equal(bb_client_episode_begin(c, H, A, D, 0, &id), BB_EINVAL);
    assert_int_equal(bb_client_flush(c, NULL, NULL, NULL), BB_EINVAL);
    bb_client_free(c);
    assert_int_equal(bb_client_new("ftp://x", NULL, NULL, &c), BB_EINVAL);
    assert_null(c);
}

/* An unsent episode that no longer passes validation (its file was edited)
 * is marked rejected without any traffic and does not block the queue. */
static void test_flush_sets_aside_invalid(void **state)
{
    struct fx *fx = *state;
    struct bb_episode_buf e = {0};
    int64_t id;
    struct bb_client *c = open_client(fx->path);
    assert_int_equal(bb_episode_buf_init(&e, H, A, D), BB_OK);
    for (int h = 0; h < H; h++)
        features(h, e.features + h * A * D);
    assert_int_equal(bb_client_enqueue(c, &e, NULL, &id), BB_OK);
    bb_client_free(c);

    sqlite3 *db;
    assert_int_equal(sqlite3_open(fx->path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "UPDATE step SET reward = 2.0 WHERE h = 1", NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);

    c = open_client(fx->path); /* its URL is a dead port: any traffic would be BB_ENET */
    size_t sent = 99;
    long unsent = -1;
    assert_int_equal(bb_client_flush(c, NULL, NULL, &sent), BB_EINVAL);
    assert_int_equal(sent, 0);
    assert_int_equal(bb_client_pending(c, NULL, &unsent), BB_OK);
    assert_int_equal(unsent, 0);
    assert_int_equal(bb_client_flush(c, NULL, NULL, &sent), BB_OK); /* nothing left */
    bb_episode_buf_release(&e);
    bb_client_free(c);
}

/* The file holds patients' features: created 0600. The listing says each
 * episode's state; prune deletes exactly the acknowledged episodes. */
static void test_mode_and_prune(void **state)
{
    struct fx *fx = *state;
    struct statestore *st = NULL;
    struct bb_episode_buf e = {0};
    struct stat sb;
    int64_t a, b, c, open_id;
    long n = -1;
    mode_t old = umask(022);
    assert_int_equal(statestore_open(fx->path, &st, NULL, 0), BB_OK);
    umask(old);
    assert_int_equal(stat(fx->path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);

    assert_int_equal(bb_episode_buf_init(&e, H, A, D), BB_OK);
    assert_int_equal(statestore_enqueue(st, &e, "ka", &a), BB_OK);
    assert_int_equal(statestore_enqueue(st, &e, "kb", &b), BB_OK);
    assert_int_equal(statestore_enqueue(st, &e, "kc", &c), BB_OK);
    assert_int_equal(statestore_begin(st, H, A, D, 0, "kd", &open_id), BB_OK);
    assert_int_equal(statestore_mark_sent(st, a, 1, 0), BB_OK);
    assert_int_equal(statestore_mark_sent(st, a, 1, 0), BB_ENOTFOUND); /* only from unsent */
    assert_int_equal(statestore_mark_rejected(st, b, "HTTP 422"), BB_OK);
    struct bb_client_episode_list l = {0};
    assert_int_equal(statestore_list(st, &l), BB_OK);
    assert_int_equal(l.n, 4);
    assert_string_equal(l.rows[0].state, "sent");
    assert_int_equal(l.rows[0].episode, 1);
    assert_string_equal(l.rows[1].reason, "HTTP 422");
    assert_true(l.rows[2].episode < 0); /* null on the wire: not acknowledged */
    assert_string_equal(l.rows[3].state, "open");
    bb_client_episode_list_release(&l);
    assert_int_equal(statestore_prune(st, &n), BB_OK);
    assert_int_equal(n, 1);
    struct bb_episode_buf back = {0};
    assert_int_equal(statestore_load(st, a, &back, NULL, NULL), BB_ENOTFOUND);
    bb_episode_buf_release(&back);
    long cnt = -1;
    assert_int_equal(statestore_count(st, ST_REJECTED, &cnt), BB_OK);
    assert_int_equal(cnt, 1);
    assert_int_equal(statestore_count(st, ST_UNSENT, &cnt), BB_OK);
    assert_int_equal(cnt, 1);
    assert_int_equal(statestore_count(st, ST_OPEN, &cnt), BB_OK);
    assert_int_equal(cnt, 1);
    /* No step rows are left behind by the deleted episode. */
    sqlite3 *db;
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_open(fx->path, &db), SQLITE_OK);
    assert_int_equal(
        sqlite3_prepare_v2(db, "SELECT count(*) FROM step WHERE episode = ?", -1, &q, NULL),
        SQLITE_OK);
    sqlite3_bind_int64(q, 1, a);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(q, 0), 0);
    sqlite3_finalize(q);
    sqlite3_close(db);
    bb_episode_buf_release(&e);
    statestore_close(st);
}

/* Under umask 000 (and 0277, which takes the owner's write bit too) the
 * file and the -wal and -shm SQLite creates beside it are 0600; a file an
 * older build left 0644 is made private when opened. */
static void test_private_whatever_umask(void **state)
{
    struct fx *fx = *state;
    static const mode_t masks[] = {0, 0277};
    static const char *const side[] = {"", "-wal", "-shm"};
    struct statestore *st = NULL;
    struct bb_episode_buf e = {0};
    struct stat sb;
    char p[128];
    int64_t id = 0;
    assert_int_equal(bb_episode_buf_init(&e, H, A, D), BB_OK);
    for (int m = 0; m < 3; m++) {
        if (m == 2) /* the older build's file */
            assert_int_equal(chmod(fx->path, 0644), 0);
        mode_t old = umask(masks[m % 2]);
        int rc = statestore_open(fx->path, &st, NULL, 0);
        umask(old);
        assert_int_equal(rc, BB_OK);
        snprintf(p, sizeof(p), "k%d", m);
        assert_int_equal(statestore_enqueue(st, &e, p, &id), BB_OK);
        for (int i = 0; i < 3; i++) { /* while open, all three exist */
            snprintf(p, sizeof(p), "%s%s", fx->path, side[i]);
            assert_int_equal(stat(p, &sb), 0);
            if ((sb.st_mode & 0777) != 0600)
                fail_msg("%s has mode %04o under umask %04o", p, (unsigned)(sb.st_mode & 0777),
                         (unsigned)masks[m % 2]);
        }
        statestore_close(st);
    }
    bb_episode_buf_release(&e);
}

static void test_new_key_is_fresh_hex(void **state)
{
    (void)state;
    char a[65], b[65];
    bb_client_new_key(a);
    bb_client_new_key(b);
    assert_int_equal((int)strlen(a), 64);
    assert_true(strspn(a, "0123456789abcdef") == 64);
    assert_string_not_equal(a, b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_open_episode_survives_reopen, setup, teardown),
        cmocka_unit_test_setup_teardown(test_step_rejects_out_of_range, setup, teardown),
        cmocka_unit_test_setup_teardown(test_enqueue_keys_and_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_a_state_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flush_sets_aside_invalid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mode_and_prune, setup, teardown),
        cmocka_unit_test_setup_teardown(test_private_whatever_umask, setup, teardown),
        cmocka_unit_test(test_new_key_is_fresh_hex),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
