/*
 * db.h — billboardd's SQLite store: the one place that speaks SQL.
 *
 * Schema (one file, WAL, synchronous=FULL, both verified on open):
 *   meta(key, value)           schema version, configuration, token-hash key,
 *                              updates charged (see writer.c), derived
 *                              parameters (pinned.h)
 *   clinics(id, name, token_hash, created, revoked)
 *   episodes(k, clinic_id, billboard_version, features, actions, rewards)
 *                              k = commit order, 1-based; raw arrays as
 *                              host-order BLOBs (H*A*d doubles, H int32,
 *                              H doubles)
 *   idempotency(clinic_id, key, body_hash, status, response, episode)
 *   mech_state(step, slot, tag, bytes)   the Gram mechanism's noise records
 *                              (engine/mech.h), one per (step, slot), replaced
 *                              when the mechanism emits a newer one
 *   billboards(version, episode, etag, body, y_noisy)   the exact bytes served
 *
 * A struct bb_db is one connection, used by one thread at a time. The writer
 * owns a read-write one; HTTP threads borrow read-only ones from a pool.
 * Fallible calls return BB_OK, BB_ENOTFOUND (no such row), BB_ECONFLICT
 * (uniqueness violated) or BB_EIO (anything else SQLite reports).
 */
#ifndef BB_DB_H
#define BB_DB_H

#include <stddef.h>
#include <stdint.h>

#include "billboard/codec.h"
#include "billboard/err.h"
#include "engine/mech.h"

#define BB_DB_HASH 32 /* bytes of every stored hash */

struct bb_db;

/* Opens path (creating it and the schema unless readonly), sets and verifies
 * journal_mode=WAL and synchronous=FULL, and checks the schema version.
 * Read-write, it first makes the file private (mode 0600 whatever the
 * umask; privfile.h). On error *out is NULL and why says what happened. */
int bb_db_open(const char *path, int readonly, struct bb_db **out, char *why,
               size_t whylen) BB_WARN_UNUSED;
/* Opens the database file at path read-only in whatever journal mode it is
 * (a backup is one file in rollback mode), checking its schema version. */
int bb_db_open_file(const char *path, struct bb_db **out, char *why, size_t whylen) BB_WARN_UNUSED;
void bb_db_close(struct bb_db *db);

/* Copies db's database into the file at path, which must exist, be empty
 * and be private (the caller creates it), with SQLite's online backup API
 * in one step: one read transaction, so the copy holds everything committed
 * when it began, and a WAL writer goes on meanwhile. Then sets the copy's
 * journal_mode ("delete": one self-contained file; "wal": to be served) and
 * checks it (PRAGMA quick_check). BB_OK or BB_EIO with why. */
/* The meta row that marks a database as a backup ("1") or as restored
 * from one ("0"): billboardd serves no backup (ledger.h). */
#define BB_DB_META_BACKUP "backup"

/* bb_db_copy, and the copy's BB_DB_META_BACKUP row set to backup_mark
 * (NULL: copied as it is). */
int bb_db_copy_marked(struct bb_db *db, const char *path, const char *journal_mode,
                      const char *backup_mark, char *why, size_t whylen) BB_WARN_UNUSED;
int bb_db_copy(struct bb_db *db, const char *path, const char *journal_mode, char *why,
               size_t whylen) BB_WARN_UNUSED;

/* The number of stored episodes and the latest stored billboard version
 * (-1 if none); read apart, so meant for a file no one writes (a backup). */
int bb_db_summary(struct bb_db *db, int64_t *episodes, int64_t *version) BB_WARN_UNUSED;

/* Transactions: BEGIN IMMEDIATE / COMMIT / ROLLBACK. */
int bb_db_begin(struct bb_db *db) BB_WARN_UNUSED;
int bb_db_commit(struct bb_db *db) BB_WARN_UNUSED;
void bb_db_rollback(struct bb_db *db);

/* Is the database answering? BB_OK or BB_EIO. */
int bb_db_ping(struct bb_db *db) BB_WARN_UNUSED;
/* 1 if the last call on db that failed failed for want of space
 * (SQLITE_FULL, or ENOSPC from the file system), else 0. Ask before any
 * other call on db, a rollback included. */
int bb_db_full(struct bb_db *db);

/* meta, any key (the daemon uses the typed accessors below): *val is
 * malloc'd (caller frees) and NUL-terminated beyond *len. */
int bb_db_meta_get(struct bb_db *db, const char *key, void **val, size_t *len) BB_WARN_UNUSED;
int bb_db_meta_put(struct bb_db *db, const char *key, const void *val, size_t len) BB_WARN_UNUSED;

/* The meta rows the daemon keeps, each through its own accessor so that the
 * key and the value's form are written down once. get: BB_ENOTFOUND if the
 * row was never put.
 *   config           the stored configuration (bb_config_dump()); *config
 *                    is malloc'd and NUL-terminated, caller frees
 *   token_key        the token-hash key; *key malloc'd (caller wipes and
 *                    frees), *len its length
 *   updates_charged  updates charged against N_max, the billboard's commit
 *                    not yet known (writer.h); decimal text on disk
 *   derived          the derived parameters the database was created with
 *                    (pinned.h); *derived malloc'd, NUL-terminated */
int bb_db_config_get(struct bb_db *db, char **config) BB_WARN_UNUSED;
int bb_db_config_put(struct bb_db *db, const char *config) BB_WARN_UNUSED;
int bb_db_derived_get(struct bb_db *db, char **derived) BB_WARN_UNUSED;
int bb_db_derived_put(struct bb_db *db, const char *derived) BB_WARN_UNUSED;
int bb_db_token_key_get(struct bb_db *db, unsigned char **key, size_t *len) BB_WARN_UNUSED;
int bb_db_token_key_put(struct bb_db *db, const unsigned char *key, size_t len) BB_WARN_UNUSED;
int bb_db_updates_charged_get(struct bb_db *db, long *n) BB_WARN_UNUSED;
int bb_db_updates_charged_put(struct bb_db *db, long n) BB_WARN_UNUSED;

/* Clinics. */
int bb_db_clinic_insert(struct bb_db *db, const char *name, const unsigned char *hash,
                        int64_t created, int64_t *id) BB_WARN_UNUSED;
/* Sets revoked = now unless already revoked; BB_ENOTFOUND if no such id. */
int bb_db_clinic_revoke(struct bb_db *db, int64_t id, int64_t now) BB_WARN_UNUSED;
/* Calls fn for every clinic in id order; stops at fn's first non-zero
 * return, which is returned. */
typedef int (*bb_db_clinic_fn)(void *ctx, int64_t id, const char *name, const unsigned char *hash,
                               int64_t created, int64_t revoked);
int bb_db_clinics_each(struct bb_db *db, bb_db_clinic_fn fn, void *ctx) BB_WARN_UNUSED;

/* Episodes, in commit order. */
int bb_db_episode_insert(struct bb_db *db, int64_t k, int64_t clinic, int64_t version,
                         const struct bb_episode_buf *e) BB_WARN_UNUSED;
/* Calls fn for every stored episode in k order, e filled for H, A, d. */
typedef int (*bb_db_episode_fn)(void *ctx, int64_t k, const struct bb_episode_buf *e);
int bb_db_episodes_each(struct bb_db *db, int H, int A, int d, bb_db_episode_fn fn,
                        void *ctx) BB_WARN_UNUSED;

/* Idempotency keys, scoped per clinic. get: BB_ENOTFOUND if unused;
 * *resp malloc'd, caller frees. */
int bb_db_idem_get(struct bb_db *db, int64_t clinic, const char *key, unsigned char *hash,
                   int *status, char **resp, size_t *len) BB_WARN_UNUSED;
int bb_db_idem_put(struct bb_db *db, int64_t clinic, const char *key, const unsigned char *hash,
                   int status, const char *resp, size_t len, int64_t episode) BB_WARN_UNUSED;

/* Mechanism state: stores r (borrowed), replacing the row of the same
 * (step, slot). What the columns mean is the engine's business. */
int bb_db_mech_put(struct bb_db *db, const struct bb_mech_record *r) BB_WARN_UNUSED;

/* Every stored record, ordered by (step, slot); owned by the struct, freed
 * by bb_db_mech_state_free() (also on error, which leaves it empty). */
struct bb_db_mech_state {
    struct bb_mech_record *rec; /* n records, each with its own bytes */
    size_t n;
};
int bb_db_mech_state_get(struct bb_db *db, struct bb_db_mech_state *st) BB_WARN_UNUSED;
void bb_db_mech_state_free(struct bb_db_mech_state *st);

/* Billboards: the exact bytes served, by version; y_noisy may be NULL (v0).
 * The row is stamped with the wall clock's Unix seconds when it is written:
 * its publication time, since nothing is served before it is committed. */
int bb_db_billboard_put(struct bb_db *db, uint64_t version, uint64_t episode, const char *etag,
                        const char *body, size_t len, const double *y_noisy,
                        size_t ny) BB_WARN_UNUSED;
/* version < 0: the latest. *body and *etag malloc'd, caller frees. */
int bb_db_billboard_get(struct bb_db *db, int64_t version, char **body, size_t *len,
                        char **etag) BB_WARN_UNUSED;

/* Every stored billboard's version, the episode it was computed at and
 * its publication time (Unix seconds; 0 for a version written before
 * databases kept it), in version order: three malloc'd arrays of *n
 * (caller frees all). */
int bb_db_billboard_index(struct bb_db *db, int64_t **versions, int64_t **episodes,
                          int64_t **published, size_t *n) BB_WARN_UNUSED;

/* A pool of read-only connections for the HTTP threads. get() blocks
 * while all are lent; put() gives one back. */
struct bb_db_pool;
int bb_db_pool_new(const char *path, int n, struct bb_db_pool **out, char *why,
                   size_t whylen) BB_WARN_UNUSED;
void bb_db_pool_free(struct bb_db_pool *p);
struct bb_db *bb_db_pool_get(struct bb_db_pool *p);
void bb_db_pool_put(struct bb_db_pool *p, struct bb_db *db);

#endif
