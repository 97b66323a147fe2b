/*
 * db.c — the SQLite store (db.h). Only this file includes sqlite3.h.
 */
#include "db.h"

#include "args.h"

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "privfile.h"

/* 2: mechanism state in mech_state (was one mechanism's own table in 1). */
#define SCHEMA_VERSION "2"

enum stmt {
    S_BEGIN,
    S_COMMIT,
    S_ROLLBACK,
    S_PING,
    S_META_GET,
    S_META_PUT,
    S_CLINIC_INS,
    S_CLINIC_REVOKE,
    S_CLINIC_EXISTS,
    S_CLINIC_ALL,
    S_EP_INS,
    S_EP_ALL,
    S_IDEM_GET,
    S_IDEM_PUT,
    S_MECH_PUT,
    S_MECH_ALL,
    S_BB_PUT,
    S_BB_GET,
    S_BB_LATEST,
    S_EP_COUNT,
    S_BB_MAX,
    S_BB_INDEX,
    S_COUNT
};

static const char *const sql[S_COUNT] = {
    [S_BEGIN] = "BEGIN IMMEDIATE",
    [S_COMMIT] = "COMMIT",
    [S_ROLLBACK] = "ROLLBACK",
    [S_PING] = "SELECT count(*) FROM meta",
    [S_META_GET] = "SELECT value FROM meta WHERE key = ?1",
    [S_META_PUT] = "INSERT INTO meta(key, value) VALUES (?1, ?2) "
                   "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    [S_CLINIC_INS] = "INSERT INTO clinics(name, token_hash, created) VALUES (?1, ?2, ?3)",
    [S_CLINIC_REVOKE] = "UPDATE clinics SET revoked = ?2 WHERE id = ?1 AND revoked IS NULL",
    [S_CLINIC_EXISTS] = "SELECT 1 FROM clinics WHERE id = ?1",
    [S_CLINIC_ALL] = "SELECT id, name, token_hash, created, coalesce(revoked, 0) "
                     "FROM clinics ORDER BY id",
    [S_EP_INS] = "INSERT INTO episodes(k, clinic_id, billboard_version, features, actions, "
                 "rewards) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [S_EP_ALL] = "SELECT k, billboard_version, features, actions, rewards FROM episodes "
                 "ORDER BY k",
    [S_IDEM_GET] = "SELECT body_hash, status, response FROM idempotency "
                   "WHERE clinic_id = ?1 AND key = ?2",
    [S_IDEM_PUT] = "INSERT INTO idempotency(clinic_id, key, body_hash, status, response, "
                   "episode) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [S_MECH_PUT] = "INSERT INTO mech_state(step, slot, tag, bytes) VALUES (?1, ?2, ?3, ?4) "
                   "ON CONFLICT(step, slot) DO UPDATE SET tag = excluded.tag, "
                   "bytes = excluded.bytes",
    [S_MECH_ALL] = "SELECT step, slot, tag, bytes FROM mech_state ORDER BY step, slot",
    [S_BB_PUT] = "INSERT INTO billboards(version, episode, etag, body, y_noisy, published) "
                 "VALUES (?1, ?2, ?3, ?4, ?5, CAST(strftime('%s', 'now') AS INTEGER))",
    [S_BB_GET] = "SELECT body, etag FROM billboards WHERE version = ?1",
    [S_BB_LATEST] = "SELECT body, etag FROM billboards ORDER BY version DESC LIMIT 1",
    [S_EP_COUNT] = "SELECT count(*) FROM episodes",
    [S_BB_MAX] = "SELECT coalesce(max(version), -1) FROM billboards",
    [S_BB_INDEX] = "SELECT version, episode, coalesce(published, 0) FROM billboards "
                   "ORDER BY version",
};

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value BLOB NOT NULL);"
    "CREATE TABLE IF NOT EXISTS clinics("
    "  id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL,"
    "  token_hash BLOB NOT NULL UNIQUE, created INTEGER NOT NULL, revoked INTEGER);"
    "CREATE TABLE IF NOT EXISTS episodes("
    "  k INTEGER PRIMARY KEY, clinic_id INTEGER NOT NULL REFERENCES clinics(id),"
    "  billboard_version INTEGER NOT NULL, features BLOB NOT NULL,"
    "  actions BLOB NOT NULL, rewards BLOB NOT NULL);"
    "CREATE TABLE IF NOT EXISTS idempotency("
    "  clinic_id INTEGER NOT NULL REFERENCES clinics(id), key TEXT NOT NULL,"
    "  body_hash BLOB NOT NULL, status INTEGER NOT NULL, response BLOB NOT NULL,"
    "  episode INTEGER NOT NULL REFERENCES episodes(k),"
    "  PRIMARY KEY(clinic_id, key)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS mech_state("
    "  step INTEGER NOT NULL, slot INTEGER NOT NULL, tag INTEGER NOT NULL,"
    "  bytes BLOB NOT NULL, PRIMARY KEY(step, slot)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS billboards("
    "  version INTEGER PRIMARY KEY, episode INTEGER NOT NULL, etag TEXT NOT NULL,"
    "  body BLOB NOT NULL, y_noisy BLOB, published INTEGER);"
    "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', '" SCHEMA_VERSION "');";

/* A database from before billboards kept their publication time gains the
 * column, empty for the versions it already holds (an additive change: the
 * schema version stays). SQLITE_OK, or SQLite's code with *err set. */
static int add_published(sqlite3 *h, char **err)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(h,
                                "SELECT count(*) FROM pragma_table_info('billboards') "
                                "WHERE name = 'published'",
                                -1, &s, NULL);
    int have = rc == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int(s, 0) > 0;
    sqlite3_finalize(s);
    if (rc != SQLITE_OK) {
        *err = sqlite3_mprintf("%s", sqlite3_errmsg(h));
        return rc;
    }
    return have ? SQLITE_OK
                : sqlite3_exec(h, "ALTER TABLE billboards ADD COLUMN published INTEGER", NULL,
                               NULL, err);
}

struct bb_db {
    sqlite3 *h;
    int readonly;
    sqlite3_stmt *st[S_COUNT];
};

/* SQLite's message for h's last error, with the system's where it names
 * one SQLite does not ("disk I/O error (No space left on device)"). */
static void say_error(sqlite3 *h, const char *msg, char *out, size_t outlen)
{
    int e = h ? sqlite3_system_errno(h) : 0;
    if (e != 0 && strstr(msg, "full") == NULL)
        snprintf(out, outlen, "%s (%s)", msg, strerror(e));
    else
        snprintf(out, outlen, "%s", msg);
}

static int fail(char *why, size_t whylen, const char *what, sqlite3 *h)
{
    char msg[256];
    say_error(h, h ? sqlite3_errmsg(h) : "out of memory", msg, sizeof(msg));
    if (why && whylen)
        snprintf(why, whylen, "%s: %s", what, msg);
    return BB_EIO;
}

/* Runs a pragma and checks its single text answer. */
static int pragma(sqlite3 *h, const char *q, const char *want, char *why, size_t whylen)
{
    sqlite3_stmt *s = NULL;
    int rc = BB_EIO;
    if (sqlite3_prepare_v2(h, q, -1, &s, NULL) != SQLITE_OK)
        goto out;
    int step = sqlite3_step(s);
    if (want == NULL) {
        rc = (step == SQLITE_ROW || step == SQLITE_DONE) ? BB_OK : BB_EIO;
        goto out;
    }
    if (step != SQLITE_ROW)
        goto out;
    const char *got = (const char *)sqlite3_column_text(s, 0);
    if (got && strcmp(got, want) == 0) {
        rc = BB_OK;
        goto out;
    }
    if (why && whylen)
        snprintf(why, whylen, "%s gave '%s', expected '%s'", q, got ? got : "", want);
    sqlite3_finalize(s);
    return BB_EIO;
out:
    if (rc != BB_OK)
        fail(why, whylen, q, h);
    sqlite3_finalize(s);
    return rc;
}

/* How a connection is opened: the writer's, a reader's of a served
 * database (WAL), or a reader's of a database file in any journal mode (a
 * backup, bb_db_open_file). */
enum open_mode { OPEN_RW, OPEN_RO, OPEN_FILE };

static int open_db(const char *path, enum open_mode mode, struct bb_db **out, char *why,
                   size_t whylen)
{
    int rc = BB_ENOMEM;
    struct bb_db *db = calloc(1, sizeof(*db));
    *out = NULL;
    if (!db)
        goto out;
    db->readonly = mode != OPEN_RW;
    int flags = db->readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    flags |= SQLITE_OPEN_NOMUTEX; /* one thread at a time per connection */
    rc = BB_EIO;
    /* Patients' features: the file, and the -wal and -shm SQLite gives its
     * mode, are the owner's only, whatever the umask. */
    if (mode == OPEN_RW && (rc = bb_private_file(path, why, whylen)) != BB_OK)
        goto out;
    if (sqlite3_open_v2(path, &db->h, flags, NULL) != SQLITE_OK) {
        fail(why, whylen, path, db->h);
        goto out;
    }
    sqlite3_extended_result_codes(db->h, 1);
    sqlite3_busy_timeout(db->h, 10000);
    if (mode == OPEN_RW) {
        if ((rc = pragma(db->h, "PRAGMA journal_mode=WAL", "wal", why, whylen)) != BB_OK)
            goto out;
        if ((rc = pragma(db->h, "PRAGMA synchronous=FULL", NULL, why, whylen)) != BB_OK)
            goto out;
        char *err = NULL;
        if (sqlite3_exec(db->h, schema, NULL, NULL, &err) != SQLITE_OK ||
            add_published(db->h, &err) != SQLITE_OK) {
            char msg[256];
            say_error(db->h, err ? err : "?", msg, sizeof(msg));
            if (why && whylen)
                snprintf(why, whylen, "creating schema: %s", msg);
            sqlite3_free(err);
            rc = BB_EIO;
            goto out;
        }
    } else if (mode == OPEN_RO &&
               (rc = pragma(db->h, "PRAGMA journal_mode", "wal", why, whylen)) != BB_OK) {
        goto out;
    }
    if ((rc = pragma(db->h, "PRAGMA synchronous=FULL", NULL, why, whylen)) != BB_OK)
        goto out;
    /* Verify rather than trust: 2 is FULL. */
    if ((rc = pragma(db->h, "PRAGMA synchronous", "2", why, whylen)) != BB_OK)
        goto out;
    if ((rc = pragma(db->h, "PRAGMA foreign_keys=ON", NULL, why, whylen)) != BB_OK)
        goto out;
    if ((rc = pragma(db->h, "SELECT value FROM meta WHERE key = 'schema_version'", SCHEMA_VERSION,
                     why, whylen)) != BB_OK)
        goto out;
    *out = db;
    return BB_OK;
out:
    bb_db_close(db);
    return rc;
}

int bb_db_open(const char *path, int readonly, struct bb_db **out, char *why, size_t whylen)
{
    return open_db(path, readonly ? OPEN_RO : OPEN_RW, out, why, whylen);
}

int bb_db_open_file(const char *path, struct bb_db **out, char *why, size_t whylen)
{
    return open_db(path, OPEN_FILE, out, why, whylen);
}

int bb_db_copy(struct bb_db *db, const char *path, const char *journal_mode, char *why,
               size_t whylen)
{
    return bb_db_copy_marked(db, path, journal_mode, NULL, why, whylen);
}

int bb_db_copy_marked(struct bb_db *db, const char *path, const char *journal_mode,
                      const char *backup_mark, char *why, size_t whylen)
{
    sqlite3 *to = NULL;
    sqlite3_backup *b = NULL;
    char q[64];
    int rc = BB_EIO, step = SQLITE_OK;
    if (sqlite3_open_v2(path, &to, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        fail(why, whylen, path, to);
        goto out;
    }
    if (!(b = sqlite3_backup_init(to, "main", db->h, "main"))) {
        fail(why, whylen, "backup", to);
        goto out;
    }
    /* All pages in one step: one read transaction on the source, so the copy
     * is the snapshot of everything committed when it began, and in WAL mode
     * the writer goes on meanwhile. (Steps of a few pages would restart
     * whenever another process writes, forever under steady load.) Readers
     * of a WAL database are busy only while one recovers the WAL index. */
    for (int tries = 0; tries < 200; tries++) {
        step = sqlite3_backup_step(b, -1);
        if (step != SQLITE_BUSY && step != SQLITE_LOCKED)
            break;
        nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
    }
    int fin = sqlite3_backup_finish(b);
    b = NULL;
    if (step != SQLITE_DONE || fin != SQLITE_OK) {
        if (why && whylen)
            snprintf(why, whylen, "backup into %s: %s", path,
                     sqlite3_errstr(step != SQLITE_DONE ? step : fin));
        goto out;
    }
    if (backup_mark) {
        char *sq = sqlite3_mprintf("INSERT OR REPLACE INTO meta(key, value) VALUES ('%q', '%q')",
                                   BB_DB_META_BACKUP, backup_mark);
        int erc = sq ? sqlite3_exec(to, sq, NULL, NULL, NULL) : SQLITE_NOMEM;
        sqlite3_free(sq);
        if (erc != SQLITE_OK) {
            fail(why, whylen, path, to);
            goto out;
        }
    }
    snprintf(q, sizeof(q), "PRAGMA journal_mode=%s", journal_mode);
    if ((rc = pragma(to, q, journal_mode, why, whylen)) != BB_OK)
        goto out;
    rc = pragma(to, "PRAGMA quick_check", "ok", why, whylen);
out:
    if (b)
        sqlite3_backup_finish(b);
    if (to && sqlite3_close(to) != SQLITE_OK && rc == BB_OK) {
        fail(why, whylen, path, to);
        rc = BB_EIO;
    }
    return rc;
}

void bb_db_close(struct bb_db *db)
{
    if (!db)
        return;
    for (int i = 0; i < S_COUNT; i++)
        sqlite3_finalize(db->st[i]);
    sqlite3_close(db->h);
    free(db);
}

/* The prepared statement i, reset and unbound; NULL on error. */
static sqlite3_stmt *stmt(struct bb_db *db, enum stmt i)
{
    if (!db->st[i]) {
        if (sqlite3_prepare_v3(db->h, sql[i], -1, SQLITE_PREPARE_PERSISTENT, &db->st[i], NULL) !=
            SQLITE_OK)
            return NULL;
    }
    sqlite3_reset(db->st[i]);
    sqlite3_clear_bindings(db->st[i]);
    return db->st[i];
}

static int status(int sqlite_rc)
{
    if (sqlite_rc == SQLITE_DONE || sqlite_rc == SQLITE_ROW || sqlite_rc == SQLITE_OK)
        return BB_OK;
    if ((sqlite_rc & 0xff) == SQLITE_CONSTRAINT)
        return BB_ECONFLICT;
    return BB_EIO;
}

/* Runs a statement that returns no rows. */
static int run(sqlite3_stmt *s)
{
    if (!s)
        return BB_EIO;
    int rc = status(sqlite3_step(s));
    sqlite3_reset(s);
    return rc;
}

int bb_db_begin(struct bb_db *db)
{
    return run(stmt(db, S_BEGIN));
}

int bb_db_commit(struct bb_db *db)
{
    return run(stmt(db, S_COMMIT));
}

void bb_db_rollback(struct bb_db *db)
{
    (void)run(stmt(db, S_ROLLBACK));
}

int bb_db_full(struct bb_db *db)
{
    return (sqlite3_errcode(db->h) & 0xff) == SQLITE_FULL || sqlite3_system_errno(db->h) == ENOSPC;
}

int bb_db_ping(struct bb_db *db)
{
    sqlite3_stmt *s = stmt(db, S_PING);
    if (!s)
        return BB_EIO;
    int rc = sqlite3_step(s) == SQLITE_ROW ? BB_OK : BB_EIO;
    sqlite3_reset(s);
    return rc;
}

/* Copies column c of s into a malloc'd buffer with a NUL after it. */
static int column_dup(sqlite3_stmt *s, int c, void **val, size_t *len)
{
    const void *p = sqlite3_column_blob(s, c);
    size_t n = (size_t)sqlite3_column_bytes(s, c);
    char *v = malloc(n + 1);
    if (!v)
        return BB_ENOMEM;
    if (n)
        memcpy(v, p, n);
    v[n] = '\0';
    *val = v;
    if (len)
        *len = n;
    return BB_OK;
}

int bb_db_meta_get(struct bb_db *db, const char *key, void **val, size_t *len)
{
    sqlite3_stmt *s = stmt(db, S_META_GET);
    int rc = BB_EIO;
    *val = NULL;
    if (!s)
        return BB_EIO;
    sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW)
        rc = column_dup(s, 0, val, len);
    else if (step == SQLITE_DONE)
        rc = BB_ENOTFOUND;
    sqlite3_reset(s);
    return rc;
}

int bb_db_meta_put(struct bb_db *db, const char *key, const void *val, size_t len)
{
    sqlite3_stmt *s = stmt(db, S_META_PUT);
    if (!s)
        return BB_EIO;
    sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_blob(s, 2, val, (int)len, SQLITE_STATIC);
    return run(s);
}

/* ---- the meta rows the daemon uses, each by its own accessor ---- */

#define META_CONFIG          "config"
#define META_TOKEN_KEY       "token_key"
#define META_UPDATES_CHARGED "updates_charged"
#define META_DERIVED         "derived"

int bb_db_config_get(struct bb_db *db, char **config)
{
    size_t len = 0;
    return bb_db_meta_get(db, META_CONFIG, (void **)config, &len);
}

int bb_db_config_put(struct bb_db *db, const char *config)
{
    return bb_db_meta_put(db, META_CONFIG, config, strlen(config));
}

int bb_db_derived_get(struct bb_db *db, char **derived)
{
    size_t len = 0;
    return bb_db_meta_get(db, META_DERIVED, (void **)derived, &len);
}

int bb_db_derived_put(struct bb_db *db, const char *derived)
{
    return bb_db_meta_put(db, META_DERIVED, derived, strlen(derived));
}

int bb_db_token_key_get(struct bb_db *db, unsigned char **key, size_t *len)
{
    return bb_db_meta_get(db, META_TOKEN_KEY, (void **)key, len);
}

int bb_db_token_key_put(struct bb_db *db, const unsigned char *key, size_t len)
{
    return bb_db_meta_put(db, META_TOKEN_KEY, key, len);
}

int bb_db_updates_charged_get(struct bb_db *db, long *n)
{
    char *v = NULL;
    size_t len = 0;
    int rc = bb_db_meta_get(db, META_UPDATES_CHARGED, (void **)&v, &len);
    if (rc == BB_OK && bb_parse_long(v, n) != BB_OK)
        rc = BB_EIO; /* not what bb_db_updates_charged_put stored */
    free(v);
    return rc;
}

int bb_db_updates_charged_put(struct bb_db *db, long n)
{
    char v[32];
    int len = snprintf(v, sizeof(v), "%ld", n);
    return bb_db_meta_put(db, META_UPDATES_CHARGED, v, (size_t)len);
}

int bb_db_clinic_insert(struct bb_db *db, const char *name, const unsigned char *hash,
                        int64_t created, int64_t *id)
{
    sqlite3_stmt *s = stmt(db, S_CLINIC_INS);
    if (!s)
        return BB_EIO;
    sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_blob(s, 2, hash, BB_DB_HASH, SQLITE_STATIC);
    sqlite3_bind_int64(s, 3, created);
    int rc = run(s);
    if (rc == BB_OK)
        *id = sqlite3_last_insert_rowid(db->h);
    return rc;
}

int bb_db_clinic_revoke(struct bb_db *db, int64_t id, int64_t now)
{
    sqlite3_stmt *s = stmt(db, S_CLINIC_EXISTS);
    if (!s)
        return BB_EIO;
    sqlite3_bind_int64(s, 1, id);
    int step = sqlite3_step(s);
    sqlite3_reset(s);
    if (step == SQLITE_DONE)
        return BB_ENOTFOUND;
    if (step != SQLITE_ROW)
        return BB_EIO;
    if (!(s = stmt(db, S_CLINIC_REVOKE)))
        return BB_EIO;
    sqlite3_bind_int64(s, 1, id);
    sqlite3_bind_int64(s, 2, now);
    return run(s);
}

int bb_db_clinics_each(struct bb_db *db, bb_db_clinic_fn fn, void *ctx)
{
    sqlite3_stmt *s = stmt(db, S_CLINIC_ALL);
    int rc = BB_EIO, step;
    if (!s)
        return BB_EIO;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        if (sqlite3_column_bytes(s, 2) != BB_DB_HASH)
            goto out;
        rc = fn(ctx, sqlite3_column_int64(s, 0), (const char *)sqlite3_column_text(s, 1),
                sqlite3_column_blob(s, 2), sqlite3_column_int64(s, 3), sqlite3_column_int64(s, 4));
        if (rc != 0)
            goto out;
    }
    rc = step == SQLITE_DONE ? BB_OK : BB_EIO;
out:
    sqlite3_reset(s);
    return rc;
}

int bb_db_episode_insert(struct bb_db *db, int64_t k, int64_t clinic, int64_t version,
                         const struct bb_episode_buf *e)
{
    sqlite3_stmt *s = stmt(db, S_EP_INS);
    if (!s)
        return BB_EIO;
    size_t nf = (size_t)e->H * e->A * e->d;
    int32_t *a32 = malloc(sizeof(int32_t) * (size_t)e->H);
    if (!a32)
        return BB_ENOMEM;
    for (int h = 0; h < e->H; h++)
        a32[h] = e->action[h];
    sqlite3_bind_int64(s, 1, k);
    sqlite3_bind_int64(s, 2, clinic);
    sqlite3_bind_int64(s, 3, version);
    sqlite3_bind_blob(s, 4, e->features, (int)(nf * sizeof(double)), SQLITE_STATIC);
    sqlite3_bind_blob(s, 5, a32, (int)(sizeof(int32_t) * (size_t)e->H), SQLITE_STATIC);
    sqlite3_bind_blob(s, 6, e->reward, (int)(sizeof(double) * (size_t)e->H), SQLITE_STATIC);
    int rc = run(s);
    free(a32);
    return rc;
}

int bb_db_episodes_each(struct bb_db *db, int H, int A, int d, bb_db_episode_fn fn, void *ctx)
{
    struct bb_episode_buf e = {0};
    sqlite3_stmt *s = stmt(db, S_EP_ALL);
    int rc = BB_EIO, step;
    if (!s)
        goto out;
    if ((rc = bb_episode_buf_init(&e, H, A, d)) != BB_OK)
        goto out;
    const size_t nf = sizeof(double) * (size_t)H * A * d;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        rc = BB_EIO;
        if ((size_t)sqlite3_column_bytes(s, 2) != nf ||
            (size_t)sqlite3_column_bytes(s, 3) != sizeof(int32_t) * (size_t)H ||
            (size_t)sqlite3_column_bytes(s, 4) != sizeof(double) * (size_t)H)
            goto out;
        e.billboard_version = (uint64_t)sqlite3_column_int64(s, 1);
        memcpy(e.features, sqlite3_column_blob(s, 2), nf);
        const int32_t *a32 = sqlite3_column_blob(s, 3);
        for (int h = 0; h < H; h++) {
            int32_t v;
            memcpy(&v, (const char *)a32 + sizeof(v) * (size_t)h, sizeof(v));
            e.action[h] = v;
        }
        memcpy(e.reward, sqlite3_column_blob(s, 4), sizeof(double) * (size_t)H);
        if ((rc = fn(ctx, sqlite3_column_int64(s, 0), &e)) != 0)
            goto out;
    }
    rc = step == SQLITE_DONE ? BB_OK : BB_EIO;
out:
    if (s)
        sqlite3_reset(s);
    bb_episode_buf_release(&e);
    return rc;
}

int bb_db_idem_get(struct bb_db *db, int64_t clinic, const char *key, unsigned char *hash,
                   int *status_out, char **resp, size_t *len)
{
    sqlite3_stmt *s = stmt(db, S_IDEM_GET);
    int rc = BB_EIO;
    *resp = NULL;
    if (!s)
        return BB_EIO;
    sqlite3_bind_int64(s, 1, clinic);
    sqlite3_bind_text(s, 2, key, -1, SQLITE_STATIC);
    int step = sqlite3_step(s);
    if (step == SQLITE_DONE) {
        rc = BB_ENOTFOUND;
    } else if (step == SQLITE_ROW && sqlite3_column_bytes(s, 0) == BB_DB_HASH) {
        memcpy(hash, sqlite3_column_blob(s, 0), BB_DB_HASH);
        *status_out = sqlite3_column_int(s, 1);
        rc = column_dup(s, 2, (void **)resp, len);
    }
    sqlite3_reset(s);
    return rc;
}

int bb_db_idem_put(struct bb_db *db, int64_t clinic, const char *key, const unsigned char *hash,
                   int status_code, const char *resp, size_t len, int64_t episode)
{
    sqlite3_stmt *s = stmt(db, S_IDEM_PUT);
    if (!s)
        return BB_EIO;
    sqlite3_bind_int64(s, 1, clinic);
    sqlite3_bind_text(s, 2, key, -1, SQLITE_STATIC);
    sqlite3_bind_blob(s, 3, hash, BB_DB_HASH, SQLITE_STATIC);
    sqlite3_bind_int(s, 4, status_code);
    sqlite3_bind_blob(s, 5, resp, (int)len, SQLITE_STATIC);
    sqlite3_bind_int64(s, 6, episode);
    return run(s);
}

int bb_db_mech_put(struct bb_db *db, const struct bb_mech_record *r)
{
    sqlite3_stmt *s = stmt(db, S_MECH_PUT);
    if (!s || r->len > (size_t)INT32_MAX)
        return BB_EIO;
    sqlite3_bind_int(s, 1, r->step);
    sqlite3_bind_int64(s, 2, r->slot);
    sqlite3_bind_int64(s, 3, r->tag);
    sqlite3_bind_blob(s, 4, r->bytes, (int)r->len, SQLITE_STATIC);
    return run(s);
}

void bb_db_mech_state_free(struct bb_db_mech_state *st)
{
    if (!st)
        return;
    for (size_t i = 0; i < st->n; i++)
        free((void *)st->rec[i].bytes);
    free(st->rec);
    st->rec = NULL;
    st->n = 0;
}

int bb_db_mech_state_get(struct bb_db *db, struct bb_db_mech_state *st)
{
    sqlite3_stmt *s = stmt(db, S_MECH_ALL);
    int rc = BB_EIO, step;
    size_t cap = 0;
    st->rec = NULL;
    st->n = 0;
    if (!s)
        return BB_EIO;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        rc = BB_ENOMEM;
        if (st->n == cap) {
            size_t c = cap ? 2 * cap : 64;
            struct bb_mech_record *r = realloc(st->rec, c * sizeof(*r));
            if (!r)
                goto out;
            st->rec = r;
            cap = c;
        }
        size_t len = (size_t)sqlite3_column_bytes(s, 3);
        void *bytes = malloc(len ? len : 1); /* aligned for any type */
        if (!bytes)
            goto out;
        memcpy(bytes, sqlite3_column_blob(s, 3), len);
        st->rec[st->n++] = (struct bb_mech_record){.step = sqlite3_column_int(s, 0),
                                                   .slot = (long)sqlite3_column_int64(s, 1),
                                                   .tag = (long)sqlite3_column_int64(s, 2),
                                                   .len = len,
                                                   .bytes = bytes};
    }
    rc = step == SQLITE_DONE ? BB_OK : BB_EIO;
out:
    sqlite3_reset(s);
    if (rc != BB_OK)
        bb_db_mech_state_free(st);
    return rc;
}

int bb_db_billboard_put(struct bb_db *db, uint64_t version, uint64_t episode, const char *etag,
                        const char *body, size_t len, const double *y_noisy, size_t ny)
{
    sqlite3_stmt *s = stmt(db, S_BB_PUT);
    if (!s)
        return BB_EIO;
    sqlite3_bind_int64(s, 1, (int64_t)version);
    sqlite3_bind_int64(s, 2, (int64_t)episode);
    sqlite3_bind_text(s, 3, etag, -1, SQLITE_STATIC);
    sqlite3_bind_blob(s, 4, body, (int)len, SQLITE_STATIC);
    if (y_noisy)
        sqlite3_bind_blob(s, 5, y_noisy, (int)(sizeof(double) * ny), SQLITE_STATIC);
    else
        sqlite3_bind_null(s, 5);
    return run(s);
}

int bb_db_billboard_get(struct bb_db *db, int64_t version, char **body, size_t *len, char **etag)
{
    sqlite3_stmt *s = stmt(db, version < 0 ? S_BB_LATEST : S_BB_GET);
    int rc = BB_EIO;
    *body = NULL;
    *etag = NULL;
    if (!s)
        return BB_EIO;
    if (version >= 0)
        sqlite3_bind_int64(s, 1, version);
    int step = sqlite3_step(s);
    if (step == SQLITE_DONE) {
        rc = BB_ENOTFOUND;
    } else if (step == SQLITE_ROW) {
        rc = column_dup(s, 0, (void **)body, len);
        if (rc == BB_OK)
            rc = column_dup(s, 1, (void **)etag, NULL);
        if (rc != BB_OK) {
            free(*body);
            *body = NULL;
        }
    }
    sqlite3_reset(s);
    return rc;
}

int bb_db_billboard_index(struct bb_db *db, int64_t **versions, int64_t **episodes,
                          int64_t **published, size_t *n)
{
    sqlite3_stmt *s = stmt(db, S_BB_INDEX);
    int rc = BB_EIO;
    size_t cap = 0;
    *versions = *episodes = *published = NULL;
    *n = 0;
    if (!s)
        return BB_EIO;
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            int64_t *v = realloc(*versions, cap * sizeof(**versions));
            if (v)
                *versions = v;
            int64_t *e = v ? realloc(*episodes, cap * sizeof(**episodes)) : NULL;
            if (e)
                *episodes = e;
            int64_t *t = e ? realloc(*published, cap * sizeof(**published)) : NULL;
            if (t)
                *published = t;
            if (!v || !e || !t) {
                rc = BB_ENOMEM;
                goto out;
            }
        }
        (*versions)[*n] = sqlite3_column_int64(s, 0);
        (*episodes)[*n] = sqlite3_column_int64(s, 1);
        (*published)[*n] = sqlite3_column_int64(s, 2);
        (*n)++;
    }
    rc = step == SQLITE_DONE ? BB_OK : BB_EIO;
out:
    sqlite3_reset(s);
    if (rc != BB_OK) {
        free(*versions);
        free(*episodes);
        free(*published);
        *versions = *episodes = *published = NULL;
        *n = 0;
    }
    return rc;
}

struct bb_db_pool {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int n, free_n;
    struct bb_db **all;  /* owned */
    struct bb_db **idle; /* borrowed from all */
};

int bb_db_pool_new(const char *path, int n, struct bb_db_pool **out, char *why, size_t whylen)
{
    int rc = BB_ENOMEM;
    struct bb_db_pool *p = calloc(1, sizeof(*p));
    *out = NULL;
    if (!p)
        goto out;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->all = calloc((size_t)n, sizeof(*p->all));
    p->idle = calloc((size_t)n, sizeof(*p->idle));
    if (!p->all || !p->idle)
        goto out;
    for (int i = 0; i < n; i++) {
        if ((rc = bb_db_open(path, 1, &p->all[i], why, whylen)) != BB_OK)
            goto out;
        p->n++;
        p->idle[p->free_n++] = p->all[i];
    }
    *out = p;
    return BB_OK;
out:
    bb_db_pool_free(p);
    return rc;
}

void bb_db_pool_free(struct bb_db_pool *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->n; i++)
        bb_db_close(p->all[i]);
    free(p->all);
    free(p->idle);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

struct bb_db *bb_db_pool_get(struct bb_db_pool *p)
{
    pthread_mutex_lock(&p->mu);
    while (p->free_n == 0)
        pthread_cond_wait(&p->cv, &p->mu);
    struct bb_db *db = p->idle[--p->free_n];
    pthread_mutex_unlock(&p->mu);
    return db;
}

void bb_db_pool_put(struct bb_db_pool *p, struct bb_db *db)
{
    pthread_mutex_lock(&p->mu);
    p->idle[p->free_n++] = db;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

int bb_db_summary(struct bb_db *db, int64_t *episodes, int64_t *version)
{
    sqlite3_stmt *a = stmt(db, S_EP_COUNT), *b = stmt(db, S_BB_MAX);
    int rc = BB_EIO;
    if (a && b && sqlite3_step(a) == SQLITE_ROW && sqlite3_step(b) == SQLITE_ROW) {
        *episodes = sqlite3_column_int64(a, 0);
        *version = sqlite3_column_int64(b, 0);
        rc = BB_OK;
    }
    if (a)
        sqlite3_reset(a);
    if (b)
        sqlite3_reset(b);
    return rc;
}
