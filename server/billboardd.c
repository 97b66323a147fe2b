/*
 * billboardd.c — the curator daemon's entry point: argv, signals and the
 * process's lifecycle.
 *
 *   billboardd --print-params [configuration]     derived parameters as JSON
 *   billboardd --print-routes                     the route table
 *   billboardd --db FILE --backup OUT             online backup (backup.h)
 *   billboardd --db FILE --restore BACKUP         a new database from a backup
 *   billboardd --db FILE [--listen A] [--port N] [--port-file F]
 *              [--tls-cert F --tls-key F] [configuration] ...
 *   billboardd --config FILE [flags]              the same, from a file
 *
 * Start-up order: parse the flags and the configuration file, and check the
 * rules between them (options.h: plain HTTP only on loopback unless
 * --insecure-http); load the certificate and key (tls.h); lock the database
 * file (lock.h); open the database, settle the configuration and recover the
 * engine and the billboard (daemon.h); start the writer; only then listen
 * and write the port file. SIGTERM or SIGINT: stop accepting, let the
 * writer commit and answer everything queued, exit 0. SIGHUP: reload the
 * certificate and key; a pair that does not load is logged and the one
 * served before stays. A storage failure (d.fatal) ends the process with 1,
 * so that a restart recovers from what was committed; a full disk does not
 * (writer_impl.h: the writer rebuilds the engine and retries). Exit status 2: bad
 * flags, configuration (e.g. a new database without --horizon), certificate
 * or key, a database another billboardd serves (or a backup or restore
 * that would replace a file). A start that fails before it listens removes
 * the database file if it created it.
 */
#include <cblas.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backup.h"
#include "configure.h"
#include "daemon.h"
#include "http.h"
#include "ledger.h"
#include "log.h"
#include "metrics.h"
#include "options.h"
#include "routes.h"
#include "tls.h"
#include "version.h"
#include "writer.h"

static int write_port(const char *path, unsigned port)
{
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return BB_EIO;
    int ok = fprintf(f, "%u\n", port) > 0;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0)
        return BB_EIO;
    return BB_OK;
}

/* SIGHUP: the renewed certificate and key, or the old pair and why. */
static void reload(struct bb_tls *tls)
{
    char why[512];
    if (!tls) {
        bb_log(BB_LOG_WARN, "SIGHUP: serving plain HTTP, no certificate to reload");
        return;
    }
    if (bb_tls_reload(tls, why, sizeof(why)) != BB_OK) {
        bb_log(BB_LOG_WARN, "SIGHUP: %s; still serving the previous certificate", why);
        return;
    }
    bb_tls_describe(tls, why, sizeof(why));
    bb_log(strstr(why, "(EXPIRED)") ? BB_LOG_WARN : BB_LOG_INFO,
           "SIGHUP: now serving certificate %s", why);
}

/* --restore: charges the restore into the copy before it is put in place. */
struct restore_ctx {
    const struct bb_options *o;
    struct bb_params p;
    struct bb_restore_charge charge;
};

static int restore_prepare(struct bb_db *copy, void *arg, char *why, size_t whylen)
{
    struct restore_ctx *r = arg;
    char *config = NULL;
    int fresh = 0;
    int rc = bb_configure_resolve(copy, r->o, &r->p, &fresh, &config);
    free(config);
    if (rc == BB_OK && fresh)
        rc = BB_EINVAL;
    if (rc != BB_OK) {
        snprintf(why, whylen, "the backup's configuration cannot be served (above)");
        return rc;
    }
    return bb_ledger_restore(copy, &r->p, r->o->release_journal, &r->charge, why, whylen);
}

/* --backup or --restore: the exit status. */
static int backup(const struct bb_options *o)
{
    char why[8192];
    struct bb_backup_info info;
    struct restore_ctx r = {.o = o};
    int rc = o->backup ? bb_backup_run(o->db, o->backup, &info, why, sizeof(why))
                       : bb_backup_restore(o->restore, o->db, restore_prepare, &r, &info, why,
                                           sizeof(why));
    /* A command's answer, not a daemon's event: plain lines. */
    if (rc != BB_OK) {
        fprintf(stderr, "billboardd: %s\n", why);
        return rc == BB_ECONFLICT || rc == BB_EINVAL ? 2 : 1;
    }
    fprintf(stderr, "billboardd: %s %s to %s: %lld episodes, billboards up to version %lld\n",
            o->backup ? "backed up" : "restored", o->backup ? o->db : o->restore,
            o->backup ? o->backup : o->db, (long long)info.episodes, (long long)info.version);
    if (o->restore && r.p.is_private)
        fprintf(stderr,
                "billboardd: the restore charges %s: %ld lost timeline(s) past a release point"
                " (rho %.6g for the Gram matrices, %.6g for the warm-up) and %ld lost"
                " update(s) (rho %.6g for y); GET /v1/privacy shows it. Billboard versions"
                " continue at %ld.\n",
                r.charge.from_journal ? "what the release journal recorded"
                                      : "the worst case (no release journal knows the backup)",
                r.charge.lost_timelines, r.charge.rho_gram, r.charge.rho_warm,
                r.charge.lost_updates, r.charge.rho_y, r.charge.first_version);
    return 0;
}

/* Everything but serving: the exit status, or -1 to serve. */
static int command(struct bb_options *o, int argc, char **argv)
{
    int rc = bb_options_parse(o, argc, argv);
    if (rc)
        return rc;
    bb_log_setup(o->log_json);
    if (o->help) {
        bb_options_usage(stdout);
        return 0;
    }
    if (o->version) {
        printf("billboardd %s\n", bb_version());
        return 0;
    }
    if (o->print_routes) {
        bb_routes_print(stdout);
        return 0;
    }
    if (o->print_params) {
        rc = bb_configure_print(o, stdout);
        return rc == BB_OK ? 0 : rc == BB_EINVAL ? 2 : 1;
    }
    if (!o->db) {
        bb_log(BB_LOG_ERROR, "no database: give --db FILE (or 'db = FILE' in --config)");
        bb_options_usage(stderr);
        return 2;
    }
    if (o->backup || o->restore)
        return backup(o);
    if ((rc = bb_options_check(o)) != 0)
        return rc;
    return -1;
}

/* The certificate and key of --tls-cert/--tls-key into *tls (NULL without
 * them). 0, or the exit status, said in the log with where the flag was
 * given. */
static int open_tls(struct bb_options *o, struct bb_tls **tls)
{
    char why[256] = "";
    *tls = NULL;
    if (!o->tls_cert)
        return 0;
    int rc = bb_tls_open(o->tls_cert, o->tls_key, o->tls_priorities, tls, why, sizeof(why));
    if (rc == BB_OK)
        return 0;
    /* "--tls-cert FILE: ...": where that key was given, if in --config. */
    char key[32] = "", at[4352] = "";
    const char *flag = strstr(why, "--");
    if (flag && sscanf(flag, "--%31[a-z-]", key) == 1)
        bb_options_at(o, key, at, sizeof(at));
    bb_log(BB_LOG_ERROR, "%s%s", at, why);
    return rc == BB_ENOMEM ? 1 : 2;
}

/* The operator's metrics listener of --metrics-listen (checked by
 * bb_options_check) into *metrics, or none. BB_OK, or an error logged. */
static int start_metrics(struct bbd *d, const struct bb_options *o, struct bb_http **metrics)
{
    char maddr[64], why[256] = "";
    unsigned mport = 0;
    struct bb_http_opts mo = o->http;
    if (!o->metrics_listen)
        return BB_OK;
    if (bb_options_metrics_addr(o->metrics_listen, maddr, sizeof(maddr), &mo.port) != 0)
        return BB_EINVAL;
    mo.listen = maddr;
    mo.tls = NULL;
    mo.threads = 1;
    mo.metrics_only = 1;
    if (bb_http_start(d, &mo, metrics, &mport, why, sizeof(why)) != BB_OK) {
        bb_log(BB_LOG_ERROR, "--metrics-listen: %s", why);
        return BB_EIO;
    }
    bb_log(BB_LOG_INFO, "metrics on %s port %u (GET /metrics without a token)", maddr, mport);
    return BB_OK;
}

/* Waits for SIGTERM or SIGINT (taken by sigtimedwait: sigs is blocked in
 * every thread), reloading the certificate on SIGHUP and checking the
 * random source about once a second. 0, or 1 if the daemon hit a fatal
 * error. */
static int serve(struct bbd *d, const sigset_t *sigs, struct bb_tls *tls)
{
    for (unsigned tick = 1;; tick++) {
        struct timespec ts = {0, 200 * 1000 * 1000};
        int sig = sigtimedwait(sigs, NULL, &ts);
        if (sig == SIGTERM || sig == SIGINT) {
            bb_log(BB_LOG_INFO, "signal %d: finishing in-flight requests", sig);
            return 0;
        }
        if (sig == SIGHUP)
            reload(tls);
        if (tick % 5 == 0)
            (void)bb_entropy_check(&d->entropy);
        if (atomic_load(&d->fatal))
            return 1;
    }
}

int main(int argc, char **argv)
{
    static struct bb_options o;
    static struct bbd d;
    struct bb_http *http = NULL, *metrics = NULL;
    int status = 1, listened = 0;
    /* The LSVI update runs its own threads around BLAS calls on small
     * matrices (d <= ~64), where OpenBLAS's threads only spin (lsvi.h);
     * OPENBLAS_NUM_THREADS, if set, still wins. */
    if (!getenv("OPENBLAS_NUM_THREADS"))
        openblas_set_num_threads(1);
    bb_metrics_init();
    if ((status = command(&o, argc, argv)) >= 0) {
        bb_options_release(&o);
        return status;
    }
    status = 1;
    d.lock_fd = -1; /* bb_daemon_release() may run before bb_daemon_open() */
    char why[256] = "";
    struct bb_tls *tls = NULL;
    if (sodium_init() < 0) {
        bb_log(BB_LOG_ERROR, "libsodium cannot initialise");
        goto out;
    }
    if ((status = open_tls(&o, &tls)) != 0)
        goto out;
    status = 1;
    /* Signals are taken by sigtimedwait below; every thread inherits the mask. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    int rc = bb_daemon_open(&d, &o);
    if (rc != BB_OK) {
        if (rc == BB_EINVAL || rc == BB_ECONFLICT)
            status = 2; /* the flags, the configuration, the database's lock */
        goto out;
    }
    struct bb_writer_ctx wx = {d.engine, d.db,     d.pool,   d.auth,     &d.board,          &d.stats,
                               &d.fatal, &d.ledger, &d.entropy, bb_daemon_rebuild, &d};
    if (bb_writer_start(&wx, &d.writer) != BB_OK)
        goto out;
    unsigned port = 0;
    o.http.listen = o.listen;
    o.http.port = o.port;
    o.http.tls = tls;
    if (bb_http_start(&d, &o.http, &http, &port, why, sizeof(why)) != BB_OK) {
        bb_log(BB_LOG_ERROR, "%s", why);
        goto stop;
    }
    listened = 1;
    if (start_metrics(&d, &o, &metrics) != BB_OK)
        goto stop;
    if (o.port_file && write_port(o.port_file, port) != BB_OK) {
        bb_log(BB_LOG_ERROR, "cannot write %s", o.port_file);
        goto stop;
    }
    struct bb_counts now = bb_stats_get(&d.stats);
    bb_log(BB_LOG_INFO, "serving %s on %s port %u over %s (episodes %ld, billboard v%ld)", o.db,
           o.listen, port, tls ? "HTTPS" : "HTTP", now.episodes, now.version);
    if (tls) {
        bb_tls_describe(tls, why, sizeof(why));
        bb_log(strstr(why, "(EXPIRED)") ? BB_LOG_WARN : BB_LOG_INFO, "certificate %s", why);
    }
    status = serve(&d, &sigs, tls);
stop:
    if (!http)
        status = 1;
    bb_http_quiesce(http);
    bb_http_quiesce(metrics);
    bb_writer_stop(d.writer);
    bb_http_stop(http, 3000);
    bb_http_stop(metrics, 1000);
    if (atomic_load(&d.fatal))
        status = 1;
out:
    /* A database this start created and never served is removed: a failed
     * first start leaves nothing behind to be mistaken for a configured
     * service. Once it listened, a client may have written to it. */
    bb_daemon_release(&d, !listened);
    bb_tls_free(tls);
    bb_options_release(&o);
    return status;
}
