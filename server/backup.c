/*
 * backup.c — billboardd --backup and --restore (backup.h).
 */
#include "backup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"
#include "fault.h"

#define PATH_LEN 4096

/* BB_OK if nothing is at path, BB_ECONFLICT if something is, else BB_EIO. */
static int absent(const char *path, char *why, size_t whylen)
{
    struct stat st;
    if (lstat(path, &st) == 0)
        return BB_ECONFLICT;
    if (errno == ENOENT)
        return BB_OK;
    snprintf(why, whylen, "%s: %s", path, strerror(errno));
    return BB_EIO;
}

/* A new, empty file only its owner may read, beside target (so that a
 * rename puts it in place): its name in tmp. */
static int temp_beside(const char *target, char *tmp, size_t n, char *why, size_t whylen)
{
    if ((size_t)snprintf(tmp, n, "%s.partial-XXXXXX", target) >= n) {
        snprintf(why, whylen, "%s: path too long", target);
        return BB_EIO;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(why, whylen, "%s: %s", tmp, strerror(errno));
        return BB_EIO;
    }
    /* mkstemp's 0600 is subject to the umask; SQLite must write it. */
    int ok = fchmod(fd, 0600) == 0;
    ok = close(fd) == 0 && ok;
    if (!ok) {
        snprintf(why, whylen, "%s: %s", tmp, strerror(errno));
        unlink(tmp);
        return BB_EIO;
    }
    return BB_OK;
}

/* Removes a temporary database and whatever SQLite left beside it. */
static void discard(const char *tmp)
{
    static const char *const side[] = {"", "-journal", "-wal", "-shm"};
    char p[PATH_LEN + 16];
    for (size_t i = 0; i < sizeof(side) / sizeof(side[0]); i++) {
        snprintf(p, sizeof(p), "%s%s", tmp, side[i]);
        unlink(p);
    }
}

static int sync_path(const char *path, int flags)
{
    int fd = open(path, flags | O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    return close(fd) == 0 ? rc : -1;
}

/* Syncs tmp, renames it to target unless something is there, and syncs
 * the directory: once this returns BB_OK the file is in place on disk. */
static int place(const char *tmp, const char *target, char *why, size_t whylen)
{
    char dir[PATH_LEN];
    const char *slash = strrchr(target, '/');
    if (!slash)
        snprintf(dir, sizeof(dir), ".");
    else
        snprintf(dir, sizeof(dir), "%.*s", slash == target ? 1 : (int)(slash - target), target);
    if (sync_path(tmp, 0) != 0) {
        snprintf(why, whylen, "%s: %s", tmp, strerror(errno));
        return BB_EIO;
    }
    int rc = renameat2(AT_FDCWD, tmp, AT_FDCWD, target, RENAME_NOREPLACE);
    if (rc != 0 && (errno == EINVAL || errno == ENOSYS)) {
        /* A file system without RENAME_NOREPLACE: link() never replaces. */
        if ((rc = link(tmp, target)) == 0)
            unlink(tmp);
    }
    if (rc != 0) {
        int e = errno;
        snprintf(why, whylen, "%s: %s", target,
                 e == EEXIST ? "appeared meanwhile; nothing replaced" : strerror(e));
        return e == EEXIST ? BB_ECONFLICT : BB_EIO;
    }
    if (sync_path(dir, O_DIRECTORY) != 0) {
        snprintf(why, whylen, "%s: %s", dir, strerror(errno));
        return BB_EIO;
    }
    return BB_OK;
}

static int summary(struct bb_db *db, struct bb_backup_info *info, const char *path, char *why,
                   size_t whylen)
{
    if (bb_db_summary(db, &info->episodes, &info->version) == BB_OK)
        return BB_OK;
    snprintf(why, whylen, "%s: cannot count its episodes and billboards", path);
    return BB_EIO;
}

int bb_backup_run(const char *db, const char *out, struct bb_backup_info *info, char *why,
                  size_t whylen)
{
    struct bb_db *src = NULL, *copy = NULL;
    char tmp[PATH_LEN];
    int made = 0;
    int rc = absent(out, why, whylen);
    if (rc == BB_ECONFLICT)
        snprintf(why, whylen, "%s exists: a backup never replaces a file", out);
    if (rc != BB_OK)
        return rc;
    if ((rc = bb_db_open(db, 1, &src, why, whylen)) != BB_OK)
        goto out;
    if ((rc = temp_beside(out, tmp, sizeof(tmp), why, whylen)) != BB_OK)
        goto out;
    made = 1;
    if ((rc = bb_db_copy_marked(src, tmp, "delete", "1", why, whylen)) != BB_OK)
        goto out;
    /* What was copied, read back from the copy as a billboard database. */
    if ((rc = bb_db_open_file(tmp, &copy, why, whylen)) != BB_OK ||
        (rc = summary(copy, info, tmp, why, whylen)) != BB_OK)
        goto out;
    bb_db_close(copy);
    copy = NULL;
    BB_FAULT_POINT("mid_backup");
    if ((rc = place(tmp, out, why, whylen)) == BB_OK)
        made = 0;
out:
    bb_db_close(copy);
    bb_db_close(src);
    if (made)
        discard(tmp);
    return rc;
}

int bb_backup_restore(const char *from, const char *db, bb_backup_prepare prepare, void *ctx,
                      struct bb_backup_info *info, char *why, size_t whylen)
{
    static const char *const side[] = {"", "-wal", "-shm"};
    struct bb_db *src = NULL, *copy = NULL;
    char tmp[PATH_LEN], p[PATH_LEN + 8];
    int made = 0, rc = BB_OK;
    for (size_t i = 0; rc == BB_OK && i < sizeof(side) / sizeof(side[0]); i++) {
        snprintf(p, sizeof(p), "%s%s", db, side[i]);
        if ((rc = absent(p, why, whylen)) == BB_ECONFLICT)
            snprintf(why, whylen,
                     "%s exists: a restore never replaces a database. Stop the daemon that "
                     "serves %s, move %s (with its -wal and -shm files) aside, and restore again",
                     p, db, db);
    }
    if (rc != BB_OK)
        return rc;
    char reason[512];
    if (bb_db_open_file(from, &src, reason, sizeof(reason)) != BB_OK) {
        snprintf(why, whylen, "%s is no billboard database of this version: %s", from, reason);
        return BB_EINVAL;
    }
    if ((rc = summary(src, info, from, why, whylen)) != BB_OK)
        goto out;
    if ((rc = temp_beside(db, tmp, sizeof(tmp), why, whylen)) != BB_OK)
        goto out;
    made = 1;
    if (bb_db_copy_marked(src, tmp, "wal", "0", reason, sizeof(reason)) != BB_OK) {
        snprintf(why, whylen, "%s cannot be restored: %s", from, reason);
        rc = BB_EINVAL;
        goto out;
    }
    if (prepare) {
        if ((rc = bb_db_open(tmp, 0, &copy, why, whylen)) != BB_OK ||
            (rc = prepare(copy, ctx, why, whylen)) != BB_OK)
            goto out;
        bb_db_close(copy);
        copy = NULL;
    }
    BB_FAULT_POINT("mid_restore");
    if ((rc = place(tmp, db, why, whylen)) == BB_OK)
        made = 0;
out:
    bb_db_close(copy);
    bb_db_close(src);
    if (made)
        discard(tmp);
    return rc;
}
