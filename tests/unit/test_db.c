/*
 * test_db.c — the SQLite store on a real file: schema and pragmas verified
 * at open, every table's round trip, uniqueness, the read-only pool; the
 * file, its -wal and its -shm 0600 whatever the umask; the online copy.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"

static char dir[] = "/tmp/bb_test_db_XXXXXX";
static char path[64];

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    snprintf(path, sizeof(path), "%s/t.db", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static int count_ep(void *ctx, int64_t k, const struct bb_episode_buf *e)
{
    int *n = ctx;
    (*n)++;
    if (k != *n || e->action[1] != 1 || e->reward[0] != 0.25 || e->features[5] != -0.5 ||
        e->billboard_version != 3)
        return BB_EINVAL;
    return 0;
}

static void test_round_trips(void **state)
{
    (void)state;
    char why[256] = "";
    struct bb_db *db = NULL;
    assert_int_equal(bb_db_open(path, 0, &db, why, sizeof(why)), BB_OK);
    assert_int_equal(bb_db_ping(db), BB_OK);

    void *v = NULL;
    size_t len = 0;
    assert_int_equal(bb_db_meta_get(db, "nothing", &v, &len), BB_ENOTFOUND);
    assert_int_equal(bb_db_meta_put(db, "config", "abc", 3), BB_OK);
    assert_int_equal(bb_db_meta_put(db, "config", "abcd", 4), BB_OK);
    assert_int_equal(bb_db_meta_get(db, "config", &v, &len), BB_OK);
    assert_int_equal(len, 4);
    assert_string_equal(v, "abcd");
    free(v);

    unsigned char h1[BB_DB_HASH], h2[BB_DB_HASH], got[BB_DB_HASH];
    memset(h1, 1, sizeof(h1));
    memset(h2, 2, sizeof(h2));
    int64_t id = 0;
    assert_int_equal(bb_db_begin(db), BB_OK);
    assert_int_equal(bb_db_clinic_insert(db, "a", h1, 10, &id), BB_OK);
    assert_int_equal(id, 1);
    assert_int_equal(bb_db_clinic_insert(db, "b", h1, 10, &id), BB_ECONFLICT); /* same hash */
    assert_int_equal(bb_db_clinic_insert(db, "b", h2, 11, &id), BB_OK);
    assert_int_equal(bb_db_clinic_revoke(db, 5, 20), BB_ENOTFOUND);
    assert_int_equal(bb_db_clinic_revoke(db, 2, 20), BB_OK);

    struct bb_episode_buf e = {0};
    assert_int_equal(bb_episode_buf_init(&e, 2, 2, 3), BB_OK);
    e.features[5] = -0.5;
    e.action[1] = 1;
    e.reward[0] = 0.25;
    for (int k = 1; k <= 3; k++)
        assert_int_equal(bb_db_episode_insert(db, k, 1, 3, &e), BB_OK);
    assert_int_equal(bb_db_episode_insert(db, 3, 1, 3, &e), BB_ECONFLICT);

    assert_int_equal(bb_db_idem_put(db, 1, "key", h1, 201, "{\"episode\":1}", 13, 1), BB_OK);
    assert_int_equal(bb_db_idem_put(db, 1, "key", h1, 201, "x", 1, 2), BB_ECONFLICT);
    assert_int_equal(bb_db_idem_put(db, 2, "key", h2, 201, "y", 1, 2), BB_OK); /* per clinic */
    double noise[9] = {0};
    for (int tag = 1; tag <= 3; tag += 2) {
        noise[3] = tag + 0.5;
        struct bb_mech_record r = {.step = 1, .slot = 0, .tag = tag, .len = sizeof(noise),
                                   .bytes = noise};
        assert_int_equal(bb_db_mech_put(db, &r), BB_OK);
    }
    struct bb_mech_record other = {.step = 0, .slot = 5, .tag = 9, .len = 3, .bytes = "abc"};
    assert_int_equal(bb_db_mech_put(db, &other), BB_OK);
    assert_int_equal(bb_db_billboard_put(db, 0, 0, "\"e0\"", "{}", 2, NULL, 0), BB_OK);
    assert_int_equal(bb_db_billboard_put(db, 1, 3, "\"e1\"", "{\"v\":1}", 7, noise, 9), BB_OK);
    assert_int_equal(bb_db_billboard_put(db, 1, 3, "\"e1\"", "{}", 2, NULL, 0), BB_ECONFLICT);
    assert_int_equal(bb_db_commit(db), BB_OK);

    /* A rolled-back transaction leaves nothing. */
    assert_int_equal(bb_db_begin(db), BB_OK);
    assert_int_equal(bb_db_episode_insert(db, 4, 1, 3, &e), BB_OK);
    bb_db_rollback(db);

    int status = 0, n = 0;
    char *resp = NULL;
    assert_int_equal(bb_db_idem_get(db, 1, "key", got, &status, &resp, &len), BB_OK);
    assert_memory_equal(got, h1, BB_DB_HASH);
    assert_int_equal(status, 201);
    assert_string_equal(resp, "{\"episode\":1}");
    free(resp);
    assert_int_equal(bb_db_idem_get(db, 3, "key", got, &status, &resp, &len), BB_ENOTFOUND);
    assert_int_equal(bb_db_episodes_each(db, 2, 2, 3, count_ep, &n), BB_OK);
    assert_int_equal(n, 3);
    /* One row per (step, slot): the upsert kept the latest tag's bytes. */
    struct bb_db_mech_state st = {0};
    assert_int_equal(bb_db_mech_state_get(db, &st), BB_OK);
    assert_int_equal(st.n, 2);
    assert_int_equal(st.rec[0].step, 0);
    assert_int_equal(st.rec[0].slot, 5);
    assert_int_equal(st.rec[0].tag, 9);
    assert_int_equal(st.rec[0].len, 3);
    assert_memory_equal(st.rec[0].bytes, "abc", 3);
    assert_int_equal(st.rec[1].step, 1);
    assert_int_equal(st.rec[1].tag, 3);
    assert_int_equal(st.rec[1].len, sizeof(noise));
    assert_true(((const double *)st.rec[1].bytes)[3] == 3.5);
    bb_db_mech_state_free(&st);
    assert_int_equal(st.n, 0);
    char *body = NULL, *etag = NULL;
    assert_int_equal(bb_db_billboard_get(db, -1, &body, &len, &etag), BB_OK);
    assert_string_equal(body, "{\"v\":1}");
    assert_string_equal(etag, "\"e1\"");
    free(body);
    free(etag);
    assert_int_equal(bb_db_billboard_get(db, 7, &body, &len, &etag), BB_ENOTFOUND);
    bb_episode_buf_release(&e);

    /* The read-only pool sees the committed state and cannot write. */
    struct bb_db_pool *pool = NULL;
    assert_int_equal(bb_db_pool_new(path, 2, &pool, why, sizeof(why)), BB_OK);
    struct bb_db *r1 = bb_db_pool_get(pool), *r2 = bb_db_pool_get(pool);
    assert_ptr_not_equal(r1, r2);
    assert_int_equal(bb_db_billboard_get(r1, 0, &body, &len, &etag), BB_OK);
    assert_string_equal(body, "{}");
    free(body);
    free(etag);
    assert_int_not_equal(bb_db_meta_put(r2, "x", "y", 1), BB_OK);
    bb_db_pool_put(pool, r1);
    bb_db_pool_put(pool, r2);
    bb_db_pool_free(pool);
    bb_db_close(db);

    /* Reopening keeps everything (and verifies the pragmas again). */
    assert_int_equal(bb_db_open(path, 0, &db, why, sizeof(why)), BB_OK);
    n = 0;
    assert_int_equal(bb_db_episodes_each(db, 2, 2, 3, count_ep, &n), BB_OK);
    assert_int_equal(n, 3);
    bb_db_close(db);
}

static void test_bad_files(void **state)
{
    (void)state;
    char why[256] = "", p[96];
    struct bb_db *db = NULL;
    assert_int_equal(bb_db_open("/nonexistent/dir/x.db", 0, &db, why, sizeof(why)), BB_EIO);
    assert_null(db);
    assert_true(strlen(why) > 0);
    /* Not a billboard database: the schema version check refuses it. */
    snprintf(p, sizeof(p), "%s/other.db", dir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("this is not sqlite", f);
    fclose(f);
    assert_int_equal(bb_db_open(p, 0, &db, why, sizeof(why)), BB_EIO);
    assert_null(db);
}

static unsigned mode_of(const char *p)
{
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    return (unsigned)(st.st_mode & 0777);
}

/* Writes a row, so that the -wal and -shm files exist while db is open. */
static void write_row(struct bb_db *db)
{
    assert_int_equal(bb_db_begin(db), BB_OK);
    assert_int_equal(bb_db_meta_put(db, "row", "x", 1), BB_OK);
    assert_int_equal(bb_db_commit(db), BB_OK);
}

static void expect_private(const char *p)
{
    static const char *const side[] = {"", "-wal", "-shm"};
    char f[128];
    for (int i = 0; i < 3; i++) {
        snprintf(f, sizeof(f), "%s%s", p, side[i]);
        if (mode_of(f) != 0600)
            fail_msg("%s has mode %04o, want 0600", f, mode_of(f));
    }
}

/* Patients' features: the database and the -wal and -shm files SQLite
 * creates beside it are the owner's only under any umask, and a database an
 * older build created 0644 (with its -wal) is made private on open. */
static void test_private_files(void **state)
{
    (void)state;
    static const mode_t masks[] = {0, 022, 0277};
    char p[96], side[112], why[256] = "";
    struct bb_db *db = NULL, *r = NULL;
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof(p), "%s/private%d.db", dir, i);
        mode_t old = umask(masks[i]);
        int rc = bb_db_open(p, 0, &db, why, sizeof(why));
        if (rc == BB_OK) {
            write_row(db);
            rc = bb_db_open(p, 1, &r, why, sizeof(why)); /* a reader maps the -shm too */
        }
        umask(old);
        assert_int_equal(rc, BB_OK);
        expect_private(p);
        bb_db_close(r);
        bb_db_close(db);
    }
    /* An old database left 0644 with its -wal after a crash. */
    snprintf(p, sizeof(p), "%s/old.db", dir);
    assert_int_equal(bb_db_open(p, 0, &db, why, sizeof(why)), BB_OK);
    write_row(db);
    bb_db_close(db);
    assert_int_equal(chmod(p, 0644), 0);
    snprintf(side, sizeof(side), "%s-wal", p);
    FILE *f = fopen(side, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(chmod(side, 0644), 0);
    assert_int_equal(bb_db_open(p, 0, &db, why, sizeof(why)), BB_OK);
    write_row(db);
    expect_private(p);
    bb_db_close(db);
}

/* bb_db_copy: an online copy while the source has a writer and a WAL
 * holding committed rows, in rollback mode (one file) or WAL, private, and
 * readable by bb_db_open_file with everything committed before it began. */
static void test_copy(void **state)
{
    (void)state;
    char src[96], out[96], wal[112], why[256] = "";
    struct bb_db *w = NULL, *r = NULL, *c = NULL;
    struct bb_episode_buf e = {0};
    unsigned char h[BB_DB_HASH] = {7};
    int64_t id = 0, episodes = -1, version = -2;
    snprintf(src, sizeof(src), "%s/src.db", dir);
    assert_int_equal(bb_db_open(src, 0, &w, why, sizeof(why)), BB_OK);
    assert_int_equal(bb_episode_buf_init(&e, 2, 2, 3), BB_OK);
    assert_int_equal(bb_db_begin(w), BB_OK);
    assert_int_equal(bb_db_clinic_insert(w, "a", h, 1, &id), BB_OK);
    for (int k = 1; k <= 5; k++)
        assert_int_equal(bb_db_episode_insert(w, k, id, 0, &e), BB_OK);
    assert_int_equal(bb_db_billboard_put(w, 0, 0, "\"e0\"", "{}", 2, NULL, 0), BB_OK);
    assert_int_equal(bb_db_commit(w), BB_OK);
    /* The rows are in the WAL, not yet in the database file. */
    snprintf(wal, sizeof(wal), "%s-wal", src);
    struct stat st;
    assert_int_equal(stat(wal, &st), 0);
    assert_true(st.st_size > 0);

    const char *modes[] = {"delete", "wal"};
    for (int i = 0; i < 2; i++) {
        snprintf(out, sizeof(out), "%s/copy-%s.db", dir, modes[i]);
        FILE *f = fopen(out, "w");
        assert_non_null(f);
        fclose(f);
        assert_int_equal(chmod(out, 0600), 0);
        assert_int_equal(bb_db_open(src, 1, &r, why, sizeof(why)), BB_OK);
        assert_int_equal(bb_db_copy(r, out, modes[i], why, sizeof(why)), BB_OK);
        bb_db_close(r);
        /* The writer goes on; the copy does not see what came after. */
        assert_int_equal(bb_db_begin(w), BB_OK);
        assert_int_equal(bb_db_episode_insert(w, 6 + i, id, 0, &e), BB_OK);
        assert_int_equal(bb_db_commit(w), BB_OK);
        assert_int_equal(mode_of(out), 0600);
        snprintf(wal, sizeof(wal), "%s-wal", out);
        assert_int_equal(access(wal, F_OK), -1); /* closed: one file */
        assert_int_equal(bb_db_open_file(out, &c, why, sizeof(why)), BB_OK);
        assert_int_equal(bb_db_summary(c, &episodes, &version), BB_OK);
        assert_int_equal(episodes, 5 + i);
        assert_int_equal(version, 0);
        bb_db_close(c);
        /* Only a WAL copy can be served as it is. */
        assert_int_equal(bb_db_open(out, 1, &c, why, sizeof(why)), i == 1 ? BB_OK : BB_EIO);
        bb_db_close(c);
        c = NULL;
    }
    bb_episode_buf_release(&e);
    bb_db_close(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_private_files),
        cmocka_unit_test(test_copy),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
