/*
 * daemon.c — the life of struct bbd (daemon.h): everything billboardd opens
 * before it listens, in order, and closes after.
 *
 * Open: the database file, created here if missing (so that a failed first
 * start may remove it), its lock (lock.h), then the database; the
 * configuration (configure.h) and, on a later start, the derived
 * parameters it was created with (pinned.h); the rng and the engine; on
 * first start the database's initial content, then recovery on every start
 * (recovery.h); the clinic registry with the stored token key, the clinics
 * and the admin token; the read-only pool.
 */
#include "daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "configure.h"
#include "lock.h"
#include "log.h"
#include "options.h"
#include "pinned.h"
#include "recovery.h"
#include "writer.h"

static int load_clinic(void *ctx, int64_t id, const char *name, const unsigned char *hash,
                       int64_t created, int64_t revoked)
{
    (void)name;
    (void)created;
    return bb_auth_add(ctx, id, hash, revoked != 0);
}

/* The admin token: the first line of file, else $BILLBOARD_ADMIN_TOKEN
 * (wiped from the environment), else none (admin routes answer 401). */
static int admin_token(struct bbd *d, const struct bb_options *o)
{
    char buf[4096];
    size_t n = 0;
    int rc = BB_OK;
    const char *file = o->admin_file;
    if (file) {
        FILE *f = fopen(file, "r");
        if (!f) {
            char at[4352];
            bb_options_at(o, "admin-token-file", at, sizeof(at));
            bb_log(BB_LOG_ERROR, "%s%s %s: %s", at,
                   at[0] ? "admin-token-file" : "--admin-token-file", file, strerror(errno));
            return BB_EIO;
        }
        n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        n = strcspn(buf, "\r\n");
    } else {
        char *env = getenv("BILLBOARD_ADMIN_TOKEN");
        if (!env) {
            bb_log(BB_LOG_ERROR, "no admin token (--admin-token-file or "
                                 "BILLBOARD_ADMIN_TOKEN): clinic administration is disabled");
            return BB_OK;
        }
        n = strlen(env);
        if (n >= sizeof(buf))
            n = sizeof(buf) - 1;
        memcpy(buf, env, n);
        sodium_memzero(env, strlen(env));
    }
    if (bb_auth_set_admin(d->auth, buf, n) != BB_OK) {
        bb_log(BB_LOG_ERROR, "the admin token must be at least 16 bytes");
        rc = BB_EINVAL;
    }
    sodium_memzero(buf, sizeof(buf));
    return rc;
}

/* Creates path if it does not exist yet (an empty file is an empty SQLite
 * database, mode 0600 whatever the umask), so that this start knows the
 * file is its own: only then may a failed start remove it. O_EXCL decides,
 * not a stat() another process could race. */
static int create_db_file(struct bbd *d, const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
        d->created = path;
        int ok = fchmod(fd, 0600) == 0;
        close(fd);
        if (ok)
            return BB_OK;
        bb_log(BB_LOG_ERROR, "%s: %s", path, strerror(errno));
        return BB_EIO;
    }
    if (errno == EEXIST)
        return BB_OK;
    bb_log(BB_LOG_ERROR, "cannot create %s: %s", path, strerror(errno));
    return BB_EIO;
}

/* A backup file is served only through --restore, which charges what the
 * lost database may have released after it (ledger.h). */
static int refuse_backup(struct bb_db *db, const char *path)
{
    void *v = NULL;
    size_t len = 0;
    int rc = bb_db_meta_get(db, BB_DB_META_BACKUP, &v, &len);
    int is_backup = rc == BB_OK && len == 1 && *(char *)v == '1';
    free(v);
    if (rc != BB_OK && rc != BB_ENOTFOUND)
        return rc;
    if (is_backup) {
        fprintf(stderr,
                "billboardd: %s is a backup (billboardd --backup): serving it as it is would let "
                "the privacy ledger understate what the lost database released after it. "
                "Restore it with billboardd --restore %s, which charges that\n",
                path, path);
        return BB_EINVAL;
    }
    return BB_OK;
}

int bb_daemon_open(struct bbd *d, const struct bb_options *o)
{
    char why[512];
    char *config = NULL;
    unsigned char *key = NULL;
    size_t len = 0;
    int fresh = 0;
    bb_stats_init(&d->stats);
    d->ledger.journal_fd = -1;
    bb_board_slot_init(&d->board);
    atomic_init(&d->fatal, 0);
    bb_entropy_init(&d->entropy);
    int rc = create_db_file(d, o->db);
    if (rc != BB_OK)
        goto out;
    rc = bb_lock_take(o->db, &d->lock_fd, why, sizeof(why));
    if (rc != BB_OK) {
        bb_log(BB_LOG_ERROR, "%s", why);
        goto out;
    }
    if ((rc = bb_db_open(o->db, 0, &d->db, why, sizeof(why))) != BB_OK) {
        bb_log(BB_LOG_ERROR, "%s", why);
        goto out;
    }
    if ((rc = refuse_backup(d->db, o->db)) != BB_OK)
        goto out;
    if ((rc = bb_configure_resolve(d->db, o, &d->p, &fresh, &config)) != BB_OK)
        goto out;
    if (!fresh && (rc = bb_pinned_check(d->db, &d->p, o->db)) != BB_OK)
        goto out;
    /* Never key the noise from a source that fails (entropy.h). */
    if ((rc = bb_entropy_check(&d->entropy)) != BB_OK) {
        fprintf(stderr, "billboardd: no noise can be drawn: not starting\n");
        goto out;
    }
    if ((rc = bb_rng_init_secure(&d->rng)) != BB_OK)
        goto out;
    if ((rc = bb_engine_new(&d->p, &d->rng, &d->engine)) != BB_OK)
        goto out;
    if (fresh && (rc = bb_recovery_create(d, config)) != BB_OK) {
        bb_log(BB_LOG_ERROR, "%s: cannot store the configuration", o->db);
        goto out;
    }
    if ((rc = bb_ledger_load(d->db, &d->ledger)) != BB_OK) {
        fprintf(stderr, "billboardd: %s: the ledger's rows: %s\n", o->db, bb_strerror(rc));
        goto out;
    }
    bb_engine_set_ledger(d->engine, d->ledger.restores, bb_ledger_restored(&d->ledger),
                         d->ledger.version_offset);
    if ((rc = bb_recovery_run(d)) != BB_OK)
        goto out;
    if ((rc = bb_ledger_journal_open(
             &d->ledger, d->db, o->release_journal,
             bb_ledger_released(&d->p, bb_engine_episodes(d->engine)), bb_engine_updates(d->engine),
             (long)bb_engine_billboard(d->engine)->version, why, sizeof(why))) != BB_OK) {
        fprintf(stderr, "billboardd: %s\n", why);
        goto out;
    }
    if ((rc = bb_db_token_key_get(d->db, &key, &len)) != BB_OK || len != BB_AUTH_KEY) {
        bb_log(BB_LOG_ERROR, "%s: token key missing", o->db);
        rc = BB_EIO;
        goto out;
    }
    if ((rc = bb_auth_new(key, &d->auth)) != BB_OK)
        goto out;
    if ((rc = bb_db_clinics_each(d->db, load_clinic, d->auth)) != BB_OK)
        goto out;
    if ((rc = admin_token(d, o)) != BB_OK)
        goto out;
    if ((rc = bb_db_pool_new(o->db, (int)o->http.threads + 2, &d->pool, why, sizeof(why))) !=
        BB_OK) {
        bb_log(BB_LOG_ERROR, "%s", why);
        goto out;
    }
    d->max_body = o->max_body;
out:
    if (key)
        sodium_memzero(key, len);
    free(key);
    free(config);
    return rc;
}

int bb_daemon_rebuild(void *arg, struct bb_engine **engine)
{
    struct bbd *d = arg;
    struct bb_engine *old = d->engine;
    int rc = bb_engine_new(&d->p, &d->rng, &d->engine);
    if (rc == BB_OK) {
        /* The restores' charges and the version offset, as at start. */
        bb_engine_set_ledger(d->engine, d->ledger.restores, bb_ledger_restored(&d->ledger),
                             d->ledger.version_offset);
        if ((rc = bb_recovery_run(d)) != BB_OK)
            bb_engine_free(d->engine);
    }
    if (rc != BB_OK) {
        d->engine = old;
        return rc;
    }
    bb_engine_free(old);
    *engine = d->engine;
    return BB_OK;
}

/* Removes path and the files SQLite keeps beside it, the main file last:
 * while it exists, the others are recognisably its. */
static void unlink_db(const char *path)
{
    static const char *const suffix[] = {"-wal", "-shm", "-journal", ""};
    char f[4096];
    for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
        int n = snprintf(f, sizeof(f), "%s%s", path, suffix[i]);
        if (n > 0 && (size_t)n < sizeof(f) && unlink(f) != 0 && errno != ENOENT)
            bb_log(BB_LOG_ERROR, "cannot remove %s: %s", f, strerror(errno));
    }
}

void bb_daemon_release(struct bbd *d, int discard)
{
    bb_writer_free(d->writer);
    bb_db_pool_free(d->pool);
    bb_auth_free(d->auth);
    bb_engine_free(d->engine);
    bb_ledger_close(&d->ledger);
    bb_rng_release(&d->rng);
    bb_db_close(d->db);
    /* Under the lock still, so no other daemon can have opened it. */
    if (discard && d->created)
        unlink_db(d->created);
    bb_lock_release(d->lock_fd); /* after every connection to the file */
    bb_board_slot_release(&d->board);
    bb_stats_release(&d->stats);
    bb_entropy_release(&d->entropy);
}
