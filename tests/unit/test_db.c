/*
 * test_db.c — the SQLite store on a real file: schema and pragmas verified
 * at open, every table's round trip, uniqueness, the read-only pool.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_bad_files),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
