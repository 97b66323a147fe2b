/*
 * statestore.c — the clinic's local SQLite file (statestore.h).
 *
 * Schema (application_id 0x62624331 "bbC1", user_version 1):
 *   episode(id, H, A, d, version, key UNIQUE, state, steps, created,
 *           k, ack_version, reason)
 *   step(episode, h, features BLOB, action, reward), h 0-based
 *   billboard_cache(id = 1, server, etag, body): the last billboard fetched
 */
#include "statestore.h"

#include <fcntl.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "billboard/client.h"

#define APP_ID 0x62624331
#define FORMAT 1

struct statestore {
    sqlite3 *db;
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
    " body BLOB NOT NULL);";

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
    /* The file holds patients' features: readable by its owner only. SQLite
     * gives the -wal and -shm files the mode of the database file. */
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        goto out;
    close(fd);
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
    sqlite3_close(s->db);
    free(s);
}

/* Prepares sql; binds nothing. */
static int prep(struct statestore *s, const char *sql, sqlite3_stmt **st)
{
    return sqlite3_prepare_v2(s->db, sql, -1, st, NULL) == SQLITE_OK ? BB_OK : BB_EIO;
}

int statestore_begin(struct statestore *s, int H, int A, int d, uint64_t version, const char *key,
                     int64_t *id)
{
    sqlite3_stmt *st = NULL;
    int rc = prep(s, "INSERT INTO episode(H, A, d, version, key, state) VALUES(?,?,?,?,?,0)", &st);
    if (rc != BB_OK)
        goto out;
    sqlite3_bind_int(st, 1, H);
    sqlite3_bind_int(st, 2, A);
    sqlite3_bind_int(st, 3, d);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)version);
    sqlite3_bind_text(st, 5, key, -1, SQLITE_TRANSIENT);
    int src = sqlite3_step(st);
    if (src == SQLITE_CONSTRAINT) {
        rc = BB_ECONFLICT;
        goto out;
    }
    if (src != SQLITE_DONE) {
        rc = BB_EIO;
        goto out;
    }
    *id = (int64_t)sqlite3_last_insert_rowid(s->db);
    rc = BB_OK;
out:
    sqlite3_finalize(st);
    return rc;
}

int statestore_info(struct statestore *s, int64_t id, int *H, int *A, int *d, int *steps,
                    enum statestore_state *state)
{
    sqlite3_stmt *st = NULL;
    int rc = prep(s, "SELECT H, A, d, steps, state FROM episode WHERE id = ?", &st);
    if (rc != BB_OK)
        goto out;
    sqlite3_bind_int64(st, 1, id);
    int src = sqlite3_step(st);
    if (src == SQLITE_DONE) {
        rc = BB_ENOTFOUND;
        goto out;
    }
    if (src != SQLITE_ROW) {
        rc = BB_EIO;
        goto out;
    }
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
    sqlite3_finalize(st);
    return rc;
}

int statestore_step(struct statestore *s, int64_t id, const double *features, int action,
                    double reward)
{
    sqlite3_stmt *ins = NULL, *upd = NULL;
    int H = 0, A = 0, d = 0, steps = 0, in_txn = 0;
    enum statestore_state state;
    int rc = exec(s->db, "BEGIN IMMEDIATE");
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
    rc = prep(s, "INSERT INTO step(episode, h, features, action, reward) VALUES(?,?,?,?,?)", &ins);
    if (rc == BB_OK)
        rc = prep(s, "UPDATE episode SET steps = steps + 1 WHERE id = ?", &upd);
    if (rc != BB_OK)
        goto out;
    sqlite3_bind_int64(ins, 1, id);
    sqlite3_bind_int(ins, 2, steps);
    sqlite3_bind_blob(ins, 3, features, (int)(sizeof(double) * (size_t)A * (size_t)d),
                      SQLITE_STATIC);
    sqlite3_bind_int(ins, 4, action);
    sqlite3_bind_double(ins, 5, reward);
    sqlite3_bind_int64(upd, 1, id);
    if (sqlite3_step(ins) != SQLITE_DONE || sqlite3_step(upd) != SQLITE_DONE) {
        rc = BB_EIO;
        goto out;
    }
    rc = exec(s->db, "COMMIT");
    in_txn = rc != BB_OK;
out:
    sqlite3_finalize(ins);
    sqlite3_finalize(upd);
    if (in_txn)
        exec(s->db, "ROLLBACK");
    return rc;
}

/* Moves id from state `from` to `to`; BB_ENOTFOUND if it is not in `from`. */
static int move_state(struct statestore *s, int64_t id, int from, int to)
{
    sqlite3_stmt *st = NULL;
    int rc = prep(s, "UPDATE episode SET state = ? WHERE id = ? AND state = ?", &st);
    if (rc != BB_OK)
        goto out;
    sqlite3_bind_int(st, 1, to);
    sqlite3_bind_int64(st, 2, id);
    sqlite3_bind_int(st, 3, from);
    if (sqlite3_step(st) != SQLITE_DONE) {
        rc = BB_EIO;
        goto out;
    }
    rc = sqlite3_changes(s->db) == 1 ? BB_OK : BB_ENOTFOUND;
out:
    sqlite3_finalize(st);
    return rc;
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
    sqlite3_stmt *st = NULL;
    int rc = prep(s, "DELETE FROM episode WHERE id = ? AND state = 0", &st);
    if (rc != BB_OK)
        goto out;
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) != SQLITE_DONE) {
        rc = BB_EIO;
        goto out;
    }
    rc = sqlite3_changes(s->db) == 1 ? BB_OK : BB_ENOTFOUND;
out:
    sqlite3_finalize(st);
    return rc;
}

int statestore_enqueue(struct statestore *s, const struct bb_episode_buf *e, const char *key,
                       int64_t *id)
{
    sqlite3_stmt *ins = NULL, *upd = NULL;
    int64_t nid = 0;
    int in_txn = 0;
    size_t row = (size_t)e->A * (size_t)e->d;
    int rc = exec(s->db, "BEGIN IMMEDIATE");
    if (rc != BB_OK)
        goto out;
    in_txn = 1;
    rc = statestore_begin(s, e->H, e->A, e->d, e->billboard_version, key, &nid);
    if (rc != BB_OK)
        goto out;
    rc = prep(s, "INSERT INTO step(episode, h, features, action, reward) VALUES(?,?,?,?,?)", &ins);
    if (rc == BB_OK)
        rc = prep(s, "UPDATE episode SET steps = H, state = 1 WHERE id = ?", &upd);
    if (rc != BB_OK)
        goto out;
    for (int h = 0; h < e->H; h++) {
        sqlite3_reset(ins);
        sqlite3_bind_int64(ins, 1, nid);
        sqlite3_bind_int(ins, 2, h);
        sqlite3_bind_blob(ins, 3, e->features + (size_t)h * row, (int)(sizeof(double) * row),
                          SQLITE_STATIC);
        sqlite3_bind_int(ins, 4, e->action[h]);
        sqlite3_bind_double(ins, 5, e->reward[h]);
        if (sqlite3_step(ins) != SQLITE_DONE) {
            rc = BB_EIO;
            goto out;
        }
    }
    sqlite3_bind_int64(upd, 1, nid);
    if (sqlite3_step(upd) != SQLITE_DONE) {
        rc = BB_EIO;
        goto out;
    }
    rc = exec(s->db, "COMMIT");
    in_txn = rc != BB_OK;
    if (rc == BB_OK && id)
        *id = nid;
out:
    sqlite3_finalize(ins);
    sqlite3_finalize(upd);
    if (in_txn)
        exec(s->db, "ROLLBACK");
    return rc;
}

int statestore_load(struct statestore *s, int64_t id, struct bb_episode_buf *out, char *key,
                    int *steps)
{
    sqlite3_stmt *ep = NULL, *st = NULL;
    memset(out, 0, sizeof(*out));
    int rc = prep(s, "SELECT H, A, d, version, key, steps FROM episode WHERE id = ?", &ep);
    if (rc != BB_OK)
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
    rc = prep(s, "SELECT h, features, action, reward FROM step WHERE episode = ? ORDER BY h", &st);
    if (rc != BB_OK)
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
    sqlite3_finalize(ep);
    sqlite3_finalize(st);
    return rc;
}

int statestore_current(struct statestore *s, int64_t *id)
{
    sqlite3_stmt *st = NULL;
    int rc = prep(s, "SELECT id FROM episode WHERE state = 0 ORDER BY id DESC LIMIT 1", &st);
    if (rc != BB_OK)
        goto out;
    int src = sqlite3_step(st);
    if (src != SQLITE_ROW) {
        rc = src == SQLITE_DONE ? BB_ENOTFOUND : BB_EIO;
        goto out;
    }
    *id = (int64_t)sqlite3_column_int64(st, 0);
out:
    sqlite3_finalize(st);
    return rc;
}

int statestore_unsent(struct statestore *s, int64_t **ids, size_t *n)
{
    sqlite3_stmt *st = NULL;
    int64_t *v = NULL;
    size_t len = 0, cap = 0;
    int src;
    *ids = NULL;
    *n = 0;
    int rc = prep(s, "SELECT id FROM episode WHERE state = 1 ORDER BY id", &st);
    if (rc != BB_OK)
        goto out;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        if (len == cap) {
            size_t nc = cap ? cap * 2 : 16;
            int64_t *nv = realloc(v, nc * sizeof(*v));
            if (!nv) {
                rc = BB_ENOMEM;
                goto out;
            }
            v = nv;
            cap = nc;
        }
        v[len++] = (int64_t)sqlite3_column_int64(st, 0);
    }
    if (src != SQLITE_DONE) {
        rc = BB_EIO;
        goto out;
    }
    *ids = v;
    *n = len;
    v = NULL;
out:
    free(v);
    sqlite3_finalize(st);
    return rc;
}

int statestore_mark_sent(struct statestore *s, int64_t id, uint64_t episode, uint64_t version)
{
    sqlite3_stmt *st = NULL;
    int rc = prep(s,
                  "UPDATE episode SET state = 2, k = ?, ack_version = ? WHERE id = ? AND "
                  "state = 1",
                  &st);
    if (rc != BB_OK)
        goto out;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)episode);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)version);
    sqlite3_bind_int64(st, 3, id);
    if (sqlite3_step(st) != SQLITE_DONE) {
        rc = BB_EIO;
        goto out;
    }
    rc = sqlite3_changes(s->db) == 1 ? BB_OK : BB_ENOTFOUND;
out:
    sqlite3_finalize(st);
    return rc;
}

int statestore_mark_rejected(struct statestore *s, int64_t id, const char *reason)
{
    sqlite3_stmt *st = NULL;
    int rc = prep(s, "UPDATE episode SET state = 3, reason = ? WHERE id = ? AND state = 1", &st);
    if (rc != BB_OK)
        goto out;
    sqlite3_bind_text(st, 1, reason ? reason : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, id);
    if (sqlite3_step(st) != SQLITE_DONE) {
        rc = BB_EIO;
        goto out;
    }
    rc = sqlite3_changes(s->db) == 1 ? BB_OK : BB_ENOTFOUND;
out:
    sqlite3_finalize(st);
    return rc;
}

int statestore_count(struct statestore *s, enum statestore_state state, long *n)
{
    sqlite3_stmt *st = NULL;
    int rc = prep(s, "SELECT count(*) FROM episode WHERE state = ?", &st);
    if (rc != BB_OK)
        goto out;
    sqlite3_bind_int(st, 1, (int)state);
    if (sqlite3_step(st) != SQLITE_ROW) {
        rc = BB_EIO;
        goto out;
    }
    *n = (long)sqlite3_column_int64(st, 0);
out:
    sqlite3_finalize(st);
    return rc;
}

int statestore_cache_get(struct statestore *s, const char *server, char **body, size_t *len,
                         char *etag, size_t etaglen)
{
    sqlite3_stmt *st = NULL;
    *body = NULL;
    *len = 0;
    int rc = prep(s, "SELECT etag, body FROM billboard_cache WHERE id = 1 AND server = ?", &st);
    if (rc != BB_OK)
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
out:
    sqlite3_finalize(st);
    return rc;
}

int statestore_cache_put(struct statestore *s, const char *server, const char *body, size_t len,
                         const char *etag)
{
    sqlite3_stmt *st = NULL;
    int rc = prep(s,
                  "INSERT OR REPLACE INTO billboard_cache(id, server, etag, body) "
                  "VALUES(1, ?, ?, ?)",
                  &st);
    if (rc != BB_OK)
        goto out;
    sqlite3_bind_text(st, 1, server, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, etag, -1, SQLITE_STATIC);
    sqlite3_bind_blob(st, 3, body, (int)len, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = BB_EIO;
out:
    sqlite3_finalize(st);
    return rc;
}

int statestore_prune(struct statestore *s, long *n)
{
    sqlite3_stmt *st = NULL;
    int rc = prep(s, "DELETE FROM episode WHERE state = 2", &st);
    if (rc != BB_OK)
        goto out;
    if (sqlite3_step(st) != SQLITE_DONE) {
        rc = BB_EIO;
        goto out;
    }
    if (n)
        *n = (long)sqlite3_changes(s->db);
out:
    sqlite3_finalize(st);
    return rc;
}

static const char *state_name(int st)
{
    static const char *const names[] = {"open", "unsent", "sent", "rejected"};
    return st >= 0 && st < 4 ? names[st] : "unknown";
}

int statestore_list(struct statestore *s, json_t **out)
{
    sqlite3_stmt *st = NULL;
    json_t *a = json_array();
    int src;
    *out = NULL;
    int rc = a ? prep(s,
                      "SELECT id, state, steps, H, version, k, created, reason FROM episode "
                      "ORDER BY id",
                      &st)
               : BB_ENOMEM;
    if (rc != BB_OK)
        goto out;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *k = sqlite3_column_type(st, 5) == SQLITE_NULL
                        ? json_null()
                        : json_integer(sqlite3_column_int64(st, 5));
        const char *reason = (const char *)sqlite3_column_text(st, 7);
        json_t *row = json_pack("{s:I, s:s, s:i, s:i, s:I, s:o, s:s, s:o}", "id",
                                (json_int_t)sqlite3_column_int64(st, 0), "state",
                                state_name(sqlite3_column_int(st, 1)), "steps",
                                sqlite3_column_int(st, 2), "H", sqlite3_column_int(st, 3),
                                "billboard_version", (json_int_t)sqlite3_column_int64(st, 4),
                                "episode", k, "created", (const char *)sqlite3_column_text(st, 6),
                                "reason", reason ? json_string(reason) : json_null());
        if (!row || json_array_append_new(a, row) != 0) {
            rc = BB_ENOMEM;
            goto out;
        }
    }
    if (src != SQLITE_DONE) {
        rc = BB_EIO;
        goto out;
    }
    *out = a;
    a = NULL;
out:
    json_decref(a);
    sqlite3_finalize(st);
    return rc;
}
