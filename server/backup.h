/*
 * backup.h — billboardd --backup and --restore.
 *
 *   billboardd --db FILE --backup OUT       while the daemon serves FILE, or not
 *   billboardd --db FILE --restore BACKUP   FILE must not exist; then start
 *
 * A backup is SQLite's online backup of FILE (db.h, bb_db_copy): the
 * snapshot of everything committed when it began — every acknowledged
 * episode, every stored billboard, every mechanism noise record — as one
 * self-contained file in rollback-journal mode, mode 0600. A plain cp of a
 * WAL database can miss what is committed in FILE-wal, or copy a torn mix.
 *
 * A restore checks the backup (schema version, quick_check), copies it to
 * FILE in WAL mode and never overwrites: FILE, FILE-wal and FILE-shm must
 * not exist, so a served database or a stale WAL of another one is never
 * mixed in. The daemon started on it recovers as after any restart: it
 * rebuilds the engine from the stored episodes and noise and draws nothing.
 *
 * Both write a temporary file beside the target and rename it into place
 * (without replacing anything) only once it is complete and synced.
 */
#ifndef BB_BACKUP_H
#define BB_BACKUP_H

#include <stddef.h>
#include <stdint.h>

#include "billboard/err.h"

/* What a backup holds. */
struct bb_backup_info {
    int64_t episodes; /* stored episodes */
    int64_t version;  /* the latest stored billboard */
};

/* Backs the database at db up into the new file out. BB_ECONFLICT if out
 * exists, BB_EIO (or BB_ENOMEM) otherwise; the reason is in why. */
int bb_backup_run(const char *db, const char *out, struct bb_backup_info *info, char *why,
                  size_t whylen) BB_WARN_UNUSED;

struct bb_db;

/* Called on the restored copy before it is put in place (it is still
 * nobody's database): whatever it writes lands with it, and an error
 * leaves nothing at db. BB_OK, or an error with a reason in why. */
typedef int (*bb_backup_prepare)(struct bb_db *copy, void *ctx, char *why, size_t whylen);

/* Creates the database db from the backup file from, after prepare(copy,
 * ctx) (may be NULL). BB_ECONFLICT if db, db-wal or db-shm exists,
 * BB_EINVAL if from is no billboard database of this schema version or is
 * damaged, BB_EIO otherwise, or prepare's error; the reason in why. */
int bb_backup_restore(const char *from, const char *db, bb_backup_prepare prepare, void *ctx,
                      struct bb_backup_info *info, char *why,
                      size_t whylen) BB_WARN_UNUSED;

#endif
