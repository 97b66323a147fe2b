/*
 * statestore.c — the clinic's local SQLite file (statestore.h).
 *
 * Schema (application_id 0x62624331 "bbC1", user_version 1):
 *   episode(id, H, A, d, version, key UNIQUE, state, steps, created,
 *           k, ack_version, reason)
 *   step(episode, h, features BLOB, action, reward), h 0-based
 *   billboard_cache(id = 1, server, etag, body): the last billboard fetched
 *
 * After opening, every statement is a row of one table (stmt_sql), prepared
 * once and reused, the idiom of the daemon's server/db.c.
 */
#include "statestore.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "billboard/client.h"
#include "buf.h"
#include "privfile.h"

#define APP_ID 0x62624331
#define FORMAT 1

/* Every statement after opening, prepared once on first use (as in the
 * daemon's db.c): a CLI command or a clinic's loop runs the same few
 * statements again and again. */
enum stmt {
    S_BEGIN,
    S_COMMIT,
    S_ROLLBACK,
    S_EP_INS,
    S_EP_INFO,
    S_EP_GET,
    S_EP_MOVE,
    S_EP_ABORT,
    S_EP_QUEUED,
    S_EP_CURRENT,
    S_EP_UNSENT,
    S_EP_SENT,
    S_EP_REJECTED,
    S_EP_COUNT,
    S_EP_PRUNE,
    S_EP_ALL,
    S_STEP_INS,
    S_STEP_COUNT,
    S_STEP_ALL,
    S_CACHE_GET,
    S_CACHE_PUT,
    S_FEATURES_GET,
    S_FEATURES_PUT,
    S_COUNT
};

static const char *const stmt_sql[S_COUNT] = {
    [S_BEGIN] = "BEGIN IMMEDIATE",
    [S_COMMIT] = "COMMIT",
    [S_ROLLBACK] = "ROLLBACK",
    [S_EP_INS] = "INSERT INTO episode(H, A, d, version, key, state) VALUES(?1, ?2, ?3, ?4, ?5, 0)",
    [S_EP_INFO] = "SELECT H, A, d, steps, state FROM episode WHERE id = ?1",
    [S_EP_GET] = "SELECT H, A, d, version, key, steps FROM episode WHERE id = ?1",
    [S_EP_MOVE] = "UPDATE episode SET state = ?1 WHERE id = ?2 AND state = ?3",
    [S_EP_ABORT] = "DELETE FROM episode WHERE id = ?1 AND state = 0",
    [S_EP_QUEUED] = "UPDATE episode SET steps = H, state = 1 WHERE id = ?1",
    [S_EP_CURRENT] = "SELECT id FROM episode WHERE state = 0 ORDER BY id DESC LIMIT 1",
    [S_EP_UNSENT] = "SELECT id FROM episode WHERE state = 1 ORDER BY id",
    [S_EP_SENT] = "UPDATE episode SET state = 2, k = ?1, ack_version = ?2 WHERE id = ?3 AND "
                  "state = 1",
    [S_EP_REJECTED] = "UPDATE episode SET state = 3, reason = ?1 WHERE id = ?2 AND state = 1",
    [S_EP_COUNT] = "SELECT count(*) FROM episode WHERE state = ?1",
    [S_EP_PRUNE] = "DELETE FROM episode WHERE state = 2",
    /* created is stored with milliseconds; listed in RFC 3339 to the
     * second, the one format of every listing (docs/CLI.md). */
    [S_EP_ALL] = "SELECT id, state, steps, H, version, k, "
                 "strftime('%Y-%m-%dT%H:%M:%SZ', created), reason FROM episode ORDER BY id",
    [S_STEP_INS] = "INSERT INTO step(episode, h, features, action, reward) "
                   "VALUES(?1, ?2, ?3, ?4, ?5)",
    [S_STEP_COUNT] = "UPDATE episode SET steps = steps + 1 WHERE id = ?1",
    [S_STEP_ALL] = "SELECT h, features, action, reward FROM step WHERE episode = ?1 ORDER BY h",
    [S_CACHE_GET] = "SELECT etag, body FROM billboard_cache WHERE id = 1 AND server = ?1",
    [S_CACHE_PUT] = "INSERT OR REPLACE INTO billboard_cache(id, server, etag, body) "
                    "VALUES(1, ?1, ?2, ?3)",
    [S_FEATURES_GET] = "SELECT features FROM config_cache WHERE id = 1 AND server = ?1",
    [S_FEATURES_PUT] = "INSERT OR REPLACE INTO config_cache(id, server, features) "
                       "VALUES(1, ?1, ?2)",
};

struct statestore {
    sqlite3 *db;
    sqlite3_stmt *st[S_COUNT]; /* prepared on first use, finalized on close */
};

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS episode("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " H INTEGER NOT NULL, A INTEGER NOT NULL, d INTEGER NOT NULL,"
    " version INTEGER NOT NULL,"
    " key TEXT NOT NULL UNIQUE,"
    " state INTEGER NOT NULL,"
    " steps INTEGER NOT NULL DEFAULT 0,"
    " created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),"
    " k INTEGER, ack_version INTEGER, reason TEXT);"
    "CREATE TABLE IF NOT EXISTS step("
    " episode INTEGER NOT NULL REFERENCES episode(id) ON DELETE CASCADE,"
    " h INTEGER NOT NULL,"
    " features BLOB NOT NULL, action INTEGER NOT NULL, reward REAL NOT NULL,"
    " PRIMARY KEY(episode, h));"
    "CREATE INDEX IF NOT EXISTS episode_state ON episode(state, id);"
    "CREATE TABLE IF NOT EXISTS billboard_cache("
    " id INTEGER PRIMARY KEY CHECK (id = 1), server TEXT NOT NULL, etag TEXT NOT NULL,"
    " body BLOB NOT NULL);"
    "CREATE TABLE IF NOT EXISTS config_cache("
    " id INTEGER PRIMARY KEY CHECK (id = 1), server TEXT NOT NULL, features TEXT NOT NULL);";

/* Opening runs once, before any statement of the table: its pragmas and
 * the schema go through these two. */
static int exec(sqlite3 *db, const char *sql)
{
    return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? BB_OK : BB_EIO;
}

static int pragma_int(sqlite3 *db, const char *sql, long *out)
{
    sqlite3_stmt *st = NULL;
    int rc = BB_EIO;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        goto out;
    if (sqlite3_step(st) != SQLITE_ROW)
        goto out;
    *out = (long)sqlite3_column_int64(st, 0);
    rc = BB_OK;
out:
    sqlite3_finalize(st);
    return rc;
}

int statestore_open(const char *path, struct statestore **out, char *why, size_t whylen)
{
    int rc = BB_EIO;
    sqlite3 *db = NULL;
    long app = 0, ver = 0, tables = 0;
    const char *msg = "cannot open";

    *out = NULL;
    /* The file holds patients' features: readable by its owner only,
     * whatever the umask, and so are the -wal and -shm files SQLite gives
     * its mode (privfile.h). */
    char reason[512];
    if (bb_private_file(path, reason, sizeof(reason)) != BB_OK) {
        if (why && whylen)
            snprintf(why, whylen, "%s", reason);
        return BB_EIO;
    }
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
        goto out;
    sqlite3_busy_timeout(db, 5000);
    if (pragma_int(db, "PRAGMA application_id", &app) != BB_OK ||
        pragma_int(db, "PRAGMA user_version", &ver) != BB_OK ||
        pragma_int(db, "SELECT count(*) FROM sqlite_master", &tables) != BB_OK)
        goto out;
    if (tables > 0 && (app != APP_ID || ver != FORMAT)) {
        msg = "not a billboard client state file (or another format version)";
        sqlite3_close(db);
        db = NULL;
        goto out;
    }
    /* WAL + FULL: a step that returned is on disk even if the process or
     * the machine dies right after. */
    long fs = 0;
    if (sqlite3_exec(db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL) != SQLITE_OK ||
        exec(db, "PRAGMA synchronous=FULL") != BB_OK ||
        exec(db, "PRAGMA foreign_keys=ON") != BB_OK ||
        pragma_int(db, "PRAGMA synchronous", &fs) != BB_OK || fs != 2)
        goto out;
    /* Tables added within format 1 (the cache) appear in older files too. */
    if (tables > 0 && exec(db, schema) != BB_OK)
        goto out;
    if (tables == 0) {
        char sql[128];
        if (exec(db, "BEGIN IMMEDIATE") != BB_OK)
            goto out;
        snprintf(sql, sizeof(sql), "PRAGMA application_id=%d; PRAGMA user_version=%d;", APP_ID,
                 FORMAT);
        if (exec(db, schema) != BB_OK || exec(db, sql) != BB_OK) {
            exec(db, "ROLLBACK");
            goto out;
        }
        if (exec(db, "COMMIT") != BB_OK)
            goto out;
    }
    struct statestore *s = calloc(1, sizeof(*s));
    if (!s) {
        rc = BB_ENOMEM;
        msg = "out of memory";
        goto out;
    }
    s->db = db;
    db = NULL;
    *out = s;
    rc = BB_OK;
out:
    if (rc != BB_OK && why && whylen)
        snprintf(why, whylen, "%s: %s", path, db ? sqlite3_errmsg(db) : msg);
    if (db)
        sqlite3_close(db);
    return rc;
}

void statestore_close(struct statestore *s)
{
    if (!s)
        return;
    for (int i = 0; i < S_COUNT; i++)
        sqlite3_finalize(s->st[i]);
    sqlite3_close(s->db);
    free(s);
}

/* The prepared statement i, reset and unbound; NULL on error. Every caller
 * resets it again when done, so no statement keeps a read transaction open
 * between calls. */
static sqlite3_stmt *stmt(struct statestore *s, enum stmt i)
{
    if (!s->st[i] && sqlite3_prepare_v3(s->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
                                        &s->st[i], NULL) != SQLITE_OK)
        return NULL;
    sqlite3_reset(s->st[i]);
    sqlite3_clear_bindings(s->st[i]);
    return s->st[i];
}

/* Runs statement st (may be NULL: a failed stmt()) that returns no rows. */
static int run(sqlite3_stmt *st)
{
    if (!st)
        return BB_EIO;
    int rc = sqlite3_step(st) == SQLITE_DONE ? BB_OK : BB_EIO;
    sqlite3_reset(st);
    return rc;
}

/* Runs an UPDATE or DELETE of one row: BB_ENOTFOUND if it touched none. */
static int run_one(struct statestore *s, sqlite3_stmt *st)
{
    int rc = run(st);
    if (rc == BB_OK && sqlite3_changes(s->db) != 1)
        rc = BB_ENOTFOUND;
    return rc;
}

static int begin(struct statestore *s)
{
    return run(stmt(s, S_BEGIN));
}

static int commit(struct statestore *s)
{
    return run(stmt(s, S_COMMIT));
}

static void rollback(struct statestore *s)
{
    (void)run(stmt(s, S_ROLLBACK));
}

int statestore_begin(struct statestore *s, int H, int A, int d, uint64_t version, const char *key,
                     int64_t *id)
{
    sqlite3_stmt *st = stmt(s, S_EP_INS);
    int rc = BB_EIO;
    if (!st)
        goto out;
    sqlite3_bind_int(st, 1, H);
    sqlite3_bind_int(st, 2, A);
    sqlite3_bind_int(st, 3, d);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)version);
    sqlite3_bind_text(st, 5, key, -1, SQLITE_STATIC);
    int src = sqlite3_step(st);
    if (src == SQLITE_CONSTRAINT) {
        rc = BB_ECONFLICT;
        goto out;
    }
    if (src != SQLITE_DONE)
        goto out;
    *id = (int64_t)sqlite3_last_insert_rowid(s->db);
    rc = BB_OK;
out:
    sqlite3_reset(st);
    return rc;
}

int statestore_info(struct statestore *s, int64_t id, int *H, int *A, int *d, int *steps,
                    enum statestore_state *state)
{
    sqlite3_stmt *st = stmt(s, S_EP_INFO);
    int rc = BB_EIO;
    if (!st)
        goto out;
    sqlite3_bind_int64(st, 1, id);
    int src = sqlite3_step(st);
    if (src == SQLITE_DONE) {
        rc = BB_ENOTFOUND;
        goto out;
    }
    if (src != SQLITE_ROW)
        goto out;
    if (H)
        *H = sqlite3_column_int(st, 0);
    if (A)
        *A = sqlite3_column_int(st, 1);
    if (d)
        *d = sqlite3_column_int(st, 2);
    if (steps)
        *steps = sqlite3_column_int(st, 3);
    if (state)
        *state = (enum statestore_state)sqlite3_column_int(st, 4);
    rc = BB_OK;
out:
    sqlite3_reset(st);
    return rc;
}

/* Binds step h of an episode to the step insert st. */
static void bind_step(sqlite3_stmt *st, int64_t id, int h, const double *features, size_t row,
                      int action, double reward)
{
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int(st, 2, h);
    sqlite3_bind_blob(st, 3, features, (int)(sizeof(double) * row), SQLITE_STATIC);
    sqlite3_bind_int(st, 4, action);
    sqlite3_bind_double(st, 5, reward);
}

int statestore_step(struct statestore *s, int64_t id, const double *features, int action,
                    double reward)
{
    sqlite3_stmt *ins, *upd;
    int H = 0, A = 0, d = 0, steps = 0, in_txn = 0;
    enum statestore_state state;
    int rc = begin(s);
    if (rc != BB_OK)
        goto out;
    in_txn = 1;
    rc = statestore_info(s, id, &H, &A, &d, &steps, &state);
    if (rc != BB_OK)
        goto out;
    if (state != ST_OPEN) {
        rc = BB_ENOTFOUND;
        goto out;
    }
    if (steps >= H) {
        rc = BB_ERANGE;
        goto out;
    }
    rc = BB_EIO;
    if (!(ins = stmt(s, S_STEP_INS)))
        goto out;
    bind_step(ins, id, steps, features, (size_t)A * (size_t)d, action, reward);
    rc = run(ins);
    if (rc != BB_OK)
        goto out;
    upd = stmt(s, S_STEP_COUNT);
    if (upd)
        sqlite3_bind_int64(upd, 1, id);
    rc = run(upd);
    if (rc != BB_OK)
        goto out;
    rc = commit(s);
    in_txn = rc != BB_OK;
out:
    if (in_txn)
        rollback(s);
    return rc;
}

/* Moves id from state `from` to `to`; BB_ENOTFOUND if it is not in `from`. */
static int move_state(struct statestore *s, int64_t id, int from, int to)
{
    sqlite3_stmt *st = stmt(s, S_EP_MOVE);
    if (st) {
        sqlite3_bind_int(st, 1, to);
        sqlite3_bind_int64(st, 2, id);
        sqlite3_bind_int(st, 3, from);
    }
    return run_one(s, st);
}

int statestore_finish(struct statestore *s, int64_t id)
{
    int H = 0, steps = 0;
    enum statestore_state state;
    int rc = statestore_info(s, id, &H, NULL, NULL, &steps, &state);
    if (rc != BB_OK)
        goto out;
    if (state != ST_OPEN) {
        rc = BB_ENOTFOUND;
        goto out;
    }
    if (steps < H) {
        rc = BB_ERANGE;
        goto out;
    }
    rc = move_state(s, id, ST_OPEN, ST_UNSENT);
out:
    return rc;
}

int statestore_abort(struct statestore *s, int64_t id)
{
    sqlite3_stmt *st = stmt(s, S_EP_ABORT);
    if (st)
        sqlite3_bind_int64(st, 1, id);
    return run_one(s, st);
}

int statestore_enqueue(struct statestore *s, const struct bb_episode_buf *e, const char *key,
                       int64_t *id)
{
    sqlite3_stmt *st;
    int64_t nid = 0;
    int in_txn = 0;
    size_t row = (size_t)e->A * (size_t)e->d;
    int rc = begin(s);
    if (rc != BB_OK)
        goto out;
    in_txn = 1;
    rc = statestore_begin(s, e->H, e->A, e->d, e->billboard_version, key, &nid);
    if (rc != BB_OK)
        goto out;
    for (int h = 0; h < e->H; h++) {
        rc = BB_EIO;
        if (!(st = stmt(s, S_STEP_INS)))
            goto out;
        bind_step(st, nid, h, e->features + (size_t)h * row, row, e->action[h], e->reward[h]);
        rc = run(st);
        if (rc != BB_OK)
            goto out;
    }
    st = stmt(s, S_EP_QUEUED);
    if (st)
        sqlite3_bind_int64(st, 1, nid);
    rc = run(st);
    if (rc != BB_OK)
        goto out;
    rc = commit(s);
    in_txn = rc != BB_OK;
    if (rc == BB_OK && id)
        *id = nid;
out:
    if (in_txn)
        rollback(s);
    return rc;
}

int statestore_load(struct statestore *s, int64_t id, struct bb_episode_buf *out, char *key,
                    int *steps)
{
    sqlite3_stmt *ep = stmt(s, S_EP_GET), *st = NULL;
    int rc = BB_EIO;
    memset(out, 0, sizeof(*out));
    if (!ep)
        goto out;
    sqlite3_bind_int64(ep, 1, id);
    int src = sqlite3_step(ep);
    if (src != SQLITE_ROW) {
        rc = src == SQLITE_DONE ? BB_ENOTFOUND : BB_EIO;
        goto out;
    }
    int H = sqlite3_column_int(ep, 0), A = sqlite3_column_int(ep, 1), d = sqlite3_column_int(ep, 2);
    rc = bb_episode_buf_init(out, H, A, d);
    if (rc != BB_OK)
        goto out;
    out->billboard_version = (uint64_t)sqlite3_column_int64(ep, 3);
    if (key)
        snprintf(key, BB_CLIENT_KEY_MAX + 1, "%s", (const char *)sqlite3_column_text(ep, 4));
    if (steps)
        *steps = sqlite3_column_int(ep, 5);
    rc = BB_EIO;
    if (!(st = stmt(s, S_STEP_ALL)))
        goto out;
    sqlite3_bind_int64(st, 1, id);
    size_t row = (size_t)A * (size_t)d;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        int h = sqlite3_column_int(st, 0);
        const void *blob = sqlite3_column_blob(st, 1);
        size_t n = (size_t)sqlite3_column_bytes(st, 1);
        if (h < 0 || h >= H || n != sizeof(double) * row) {
            rc = BB_EIO; /* the file was altered behind our back */
            goto out;
        }
        memcpy(out->features + (size_t)h * row, blob, n);
        out->action[h] = sqlite3_column_int(st, 2);
        out->reward[h] = sqlite3_column_double(st, 3);
    }
    rc = src == SQLITE_DONE ? BB_OK : BB_EIO;
out:
    sqlite3_reset(ep);
    sqlite3_reset(st);
    return rc;
}

int statestore_current(struct statestore *s, int64_t *id)
{
    sqlite3_stmt *st = stmt(s, S_EP_CURRENT);
    int rc = BB_EIO;
    if (!st)
        goto out;
    int src = sqlite3_step(st);
    if (src != SQLITE_ROW) {
        rc = src == SQLITE_DONE ? BB_ENOTFOUND : BB_EIO;
        goto out;
    }
    *id = (int64_t)sqlite3_column_int64(st, 0);
    rc = BB_OK;
out:
    sqlite3_reset(st);
    return rc;
}

int statestore_unsent(struct statestore *s, int64_t **ids, size_t *n)
{
    sqlite3_stmt *st = stmt(s, S_EP_UNSENT);
    struct bb_buf v = BB_BUF_INIT; /* the ids, as native int64_t */
    int src, rc = BB_EIO;
    *ids = NULL;
    *n = 0;
    if (!st)
        goto out;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = (int64_t)sqlite3_column_int64(st, 0);
        bb_buf_add(&v, &id, sizeof(id));
    }
    if (v.oom) {
        rc = BB_ENOMEM;
        goto out;
    }
    if (src != SQLITE_DONE)
        goto out;
    *n = v.len / sizeof(int64_t);
    /* malloc'd memory is aligned for any type. */
    *ids = (int64_t *)(void *)bb_buf_detach(&v, NULL);
    rc = BB_OK;
out:
    bb_buf_release(&v);
    sqlite3_reset(st);
    return rc;
}

int statestore_mark_sent(struct statestore *s, int64_t id, uint64_t episode, uint64_t version)
{
    sqlite3_stmt *st = stmt(s, S_EP_SENT);
    if (st) {
        sqlite3_bind_int64(st, 1, (sqlite3_int64)episode);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)version);
        sqlite3_bind_int64(st, 3, id);
    }
    return run_one(s, st);
}

int statestore_mark_rejected(struct statestore *s, int64_t id, const char *reason)
{
    sqlite3_stmt *st = stmt(s, S_EP_REJECTED);
    if (st) {
        sqlite3_bind_text(st, 1, reason ? reason : "", -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, id);
    }
    return run_one(s, st);
}

int statestore_count(struct statestore *s, enum statestore_state state, long *n)
{
    sqlite3_stmt *st = stmt(s, S_EP_COUNT);
    int rc = BB_EIO;
    if (!st)
        goto out;
    sqlite3_bind_int(st, 1, (int)state);
    if (sqlite3_step(st) != SQLITE_ROW)
        goto out;
    *n = (long)sqlite3_column_int64(st, 0);
    rc = BB_OK;
out:
    sqlite3_reset(st);
    return rc;
}

int statestore_cache_get(struct statestore *s, const char *server, char **body, size_t *len,
                         char *etag, size_t etaglen)
{
    sqlite3_stmt *st = stmt(s, S_CACHE_GET);
    int rc = BB_EIO;
    *body = NULL;
    *len = 0;
    if (!st)
        goto out;
    sqlite3_bind_text(st, 1, server, -1, SQLITE_STATIC);
    int src = sqlite3_step(st);
    if (src != SQLITE_ROW) {
        rc = src == SQLITE_DONE ? BB_ENOTFOUND : BB_EIO;
        goto out;
    }
    size_t n = (size_t)sqlite3_column_bytes(st, 1);
    char *b = malloc(n + 1);
    if (!b) {
        rc = BB_ENOMEM;
        goto out;
    }
    if (n)
        memcpy(b, sqlite3_column_blob(st, 1), n);
    b[n] = '\0';
    snprintf(etag, etaglen, "%s", (const char *)sqlite3_column_text(st, 0));
    *body = b;
    *len = n;
    rc = BB_OK;
out:
    sqlite3_reset(st);
    return rc;
}

int statestore_cache_put(struct statestore *s, const char *server, const char *body, size_t len,
                         const char *etag)
{
    sqlite3_stmt *st = stmt(s, S_CACHE_PUT);
    if (st) {
        sqlite3_bind_text(st, 1, server, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, etag, -1, SQLITE_STATIC);
        sqlite3_bind_blob(st, 3, body, (int)len, SQLITE_STATIC);
    }
    return run(st);
}

int statestore_features_get(struct statestore *s, const char *server, char *out, size_t outlen)
{
    sqlite3_stmt *st = stmt(s, S_FEATURES_GET);
    int rc = BB_EIO;
    if (!st)
        return rc;
    sqlite3_bind_text(st, 1, server, -1, SQLITE_STATIC);
    int src = sqlite3_step(st);
    if (src == SQLITE_ROW) {
        snprintf(out, outlen, "%s", (const char *)sqlite3_column_text(st, 0));
        rc = BB_OK;
    } else {
        rc = src == SQLITE_DONE ? BB_ENOTFOUND : BB_EIO;
    }
    sqlite3_reset(st);
    return rc;
}

int statestore_features_put(struct statestore *s, const char *server, const char *features)
{
    sqlite3_stmt *st = stmt(s, S_FEATURES_PUT);
    if (st) {
        sqlite3_bind_text(st, 1, server, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, features, -1, SQLITE_STATIC);
    }
    return run(st);
}

int statestore_prune(struct statestore *s, long *n)
{
    int rc = run(stmt(s, S_EP_PRUNE));
    if (rc == BB_OK && n)
        *n = (long)sqlite3_changes(s->db);
    return rc;
}

static const char *state_name(int st)
{
    static const char *const names[] = {"open", "unsent", "sent", "rejected"};
    return st >= 0 && st < 4 ? names[st] : "unknown";
}

int statestore_list(struct statestore *s, struct bb_client_episode_list *out)
{
    sqlite3_stmt *st = stmt(s, S_EP_ALL);
    int src, rc = !st ? BB_EIO : BB_OK;
    if (rc != BB_OK)
        goto out;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        struct bb_client_episode_row *v = realloc(out->rows, sizeof(*v) * (out->n + 1));
        if (!v) {
            rc = BB_ENOMEM;
            goto out;
        }
        out->rows = v;
        const char *created = (const char *)sqlite3_column_text(st, 6);
        const char *reason = (const char *)sqlite3_column_text(st, 7);
        struct bb_client_episode_row row = {
            .id = sqlite3_column_int64(st, 0),
            .state = state_name(sqlite3_column_int(st, 1)),
            .steps = sqlite3_column_int(st, 2),
            .H = sqlite3_column_int(st, 3),
            .billboard_version = sqlite3_column_int64(st, 4),
            .episode = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1
                                                                 : sqlite3_column_int64(st, 5),
        };
        snprintf(row.created, sizeof(row.created), "%s", created ? created : "");
        if (reason && !(row.reason = strdup(reason))) {
            rc = BB_ENOMEM;
            goto out;
        }
        out->rows[out->n++] = row;
    }
    if (src != SQLITE_DONE)
        rc = BB_EIO;
out:
    sqlite3_reset(st);
    return rc;
}
