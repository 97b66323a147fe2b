/*
 * billboardd.c — the curator daemon's entry point: flags, the stored
 * configuration, recovery, and the signal loop.
 *
 *   billboardd --print-params [configuration]     derived parameters as JSON
 *   billboardd --print-routes                     the route table
 *   billboardd --db FILE [--listen A] [--port N] [--port-file F] [configuration] ...
 *
 * Start-up order: open and verify the database; on first start store the
 * configuration, the token-hash key and billboard version 0 in one
 * transaction; on later starts read the configuration and refuse any flag
 * that contradicts it; rebuild the engine from the stored episodes and
 * mechanism records without drawing noise, restore the latest stored
 * billboard; only then listen. SIGTERM/SIGINT: stop accepting, let the
 * writer commit and answer everything queued, exit 0.
 */
#include <cblas.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "billboard/codec.h"
#include "board.h"
#include "engine/config.h"
#include "daemon.h"
#include "db.h"
#include "engine/engine.h"
#include "http.h"
#include "engine/params.h"
#include "routes.h"
#include "writer.h"

#define MAX_GIVEN 32

struct opts {
    const char *db, *listen, *port_file, *admin_file;
    unsigned port;
    struct bb_http_opts http;
    size_t max_body;
    int print_params, print_routes;
    struct bb_params given; /* defaults + configuration flags */
    const char *gname[MAX_GIVEN], *gval[MAX_GIVEN];
    int ngiven;
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: billboardd --db FILE [options] [configuration]\n"
            "       billboardd --print-params [configuration]\n"
            "       billboardd --print-routes\n"
            "\n"
            "The curator of Private LSVI-UCB: serves the REST API of proto/openapi.yaml,\n"
            "keeps every episode in SQLite (WAL, synchronous=FULL) and survives kill -9.\n"
            "\n"
            "Service:\n"
            "  --db FILE              SQLite database; created with the configuration on\n"
            "                         first start, read on later starts\n"
            "  --listen ADDR          IPv4/IPv6 address to bind (default 127.0.0.1)\n"
            "  --port N               TCP port; 0 binds an ephemeral one (default 8080)\n"
            "  --port-file F          write the bound port to F once listening\n"
            "  --admin-token-file F   admin bearer token (first line of F, >= 16 bytes);\n"
            "                         else $BILLBOARD_ADMIN_TOKEN; else admin routes are 401\n"
            "  --threads N            HTTP polling threads (default 2)\n"
            "  --max-connections N    open connections in total (default 1024)\n"
            "  --per-ip-limit N       open connections per client address (default 256)\n"
            "  --timeout S            idle connection timeout, seconds (default 30)\n"
            "  --conn-memory BYTES    per-connection memory for headers (default 32768;\n"
            "                         libmicrohttpd zeroes it on every request)\n"
            "  --max-body BYTES       request body cap, checked before and while reading\n"
            "                         (default 1048576)\n"
            "  --print-params         print the derived parameters as JSON and exit\n"
            "  --print-routes         print 'METHOD PATH' per route and exit\n"
            "  --help                 this text\n"
            "\n"
            "The configuration flags below are fixed when the database is created: a\n"
            "later start may repeat them but not change them (that would void the\n"
            "privacy proof). --calibration paper and --update-rule every are refused\n"
            "unless the run is non-private (--rho inf).\n\n%s",
            bb_config_usage());
}

static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
    char *end;
    errno = 0;
    if (!s || *s == '-' || *s == '\0')
        return BB_EINVAL;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v > max)
        return BB_EINVAL;
    *out = v;
    return BB_OK;
}

/* Parses argv into o. Returns 0, or the exit status (after a message). */
static int parse_args(int argc, char **argv, struct opts *o, int *done)
{
    char why[256];
    *done = 0;
    o->listen = "127.0.0.1";
    o->port = 8080;
    o->max_body = 1 << 20;
    o->http = (struct bb_http_opts){.threads = 2,
                                    .conn_limit = 1024,
                                    .per_ip_limit = 256,
                                    .timeout_s = 30,
                                    .conn_memory = 32768};
    bb_params_defaults(&o->given);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned long n = 0;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            *done = 1;
            return 0;
        }
        if (strcmp(a, "--print-params") == 0) {
            o->print_params = 1;
            continue;
        }
        if (strcmp(a, "--print-routes") == 0) {
            o->print_routes = 1;
            continue;
        }
#define STR_OPT(flag, field)                                                                       \
    if (strcmp(a, flag) == 0) {                                                                    \
        if (!v)                                                                                    \
            goto missing;                                                                          \
        field = v;                                                                                 \
        i++;                                                                                       \
        continue;                                                                                  \
    }
#define NUM_OPT(flag, field, lo, hi)                                                               \
    if (strcmp(a, flag) == 0) {                                                                    \
        if (parse_uint(v, hi, &n) != BB_OK || n + 1 < (lo) + 1UL)                                  \
            goto bad;                                                                              \
        field = n;                                                                                 \
        i++;                                                                                       \
        continue;                                                                                  \
    }
        STR_OPT("--db", o->db)
        STR_OPT("--listen", o->listen)
        STR_OPT("--port-file", o->port_file)
        STR_OPT("--admin-token-file", o->admin_file)
        NUM_OPT("--port", o->port, 0, 65535)
        NUM_OPT("--threads", o->http.threads, 1, 64)
        NUM_OPT("--max-connections", o->http.conn_limit, 1, 65536)
        NUM_OPT("--per-ip-limit", o->http.per_ip_limit, 1, 65536)
        NUM_OPT("--timeout", o->http.timeout_s, 1, 86400)
        NUM_OPT("--conn-memory", o->http.conn_memory, 8192, 1UL << 24)
        NUM_OPT("--max-body", o->max_body, 1024, 1UL << 30)
#undef STR_OPT
#undef NUM_OPT
        int rc = bb_config_option(&o->given, a, v, why, sizeof(why));
        if (rc == BB_ENOTFOUND) {
            fprintf(stderr, "billboardd: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        }
        if (rc != BB_OK) {
            fprintf(stderr, "billboardd: %s\n", why);
            return 2;
        }
        if (o->ngiven == MAX_GIVEN) {
            fprintf(stderr, "billboardd: too many configuration flags\n");
            return 2;
        }
        o->gname[o->ngiven] = a;
        o->gval[o->ngiven++] = v;
        i++;
        continue;
    missing:
        fprintf(stderr, "billboardd: %s needs a value\n", a);
        return 2;
    bad:
        fprintf(stderr, "billboardd: bad value '%s' for %s\n", v ? v : "", a);
        return 2;
    }
    return 0;
}

/* --print-params, exactly as before the daemon existed. */
static int print_params(struct bb_params *p)
{
    char why[256];
    if (p->calibration != BB_CAL_CORRECTED) {
        fprintf(stderr, "billboardd: only the corrected calibration may be served\n");
        return 2;
    }
    if (bb_params_derive(p, why, sizeof(why)) != BB_OK) {
        fprintf(stderr, "billboardd: %s\n", why);
        return 2;
    }
    json_t *o = bb_config_to_json(p);
    if (!o || json_dumpf(o, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) != 0) {
        json_decref(o);
        return 1;
    }
    fputc('\n', stdout);
    json_decref(o);
    return 0;
}

/* ---- the stored configuration ---- */

/* The flags given on this start must agree with the stored configuration. */
static int config_check(const struct opts *o, const struct bb_params *stored, const char *db,
                        const char *stored_json)
{
    char why[256];
    for (int i = 0; i < o->ngiven; i++) {
        struct bb_params t = *stored;
        if (bb_config_option(&t, o->gname[i], o->gval[i], why, sizeof(why)) != BB_OK)
            return BB_EINVAL;
        char *a = bb_config_dump(&t);
        int same = a && strcmp(a, stored_json) == 0;
        free(a);
        if (!same) {
            fprintf(stderr,
                    "billboardd: %s %s contradicts the configuration stored in %s: the "
                    "configuration is fixed when the database is created, because changing "
                    "it mid-run would void the privacy guarantee. Stored: %s\n",
                    o->gname[i], o->gval[i], db, stored_json);
            return BB_ECONFLICT;
        }
    }
    return BB_OK;
}

static int servable(const struct bb_params *p)
{
    if (p->is_private && p->calibration != BB_CAL_CORRECTED) {
        fprintf(stderr, "billboardd: the paper's calibration under-noises y; it is only "
                        "accepted for a non-private run (--rho inf)\n");
        return 0;
    }
    if (p->is_private && p->update_rule != BB_UPDATE_RARE) {
        fprintf(stderr, "billboardd: --update-rule every breaks the N_max bound; it is only "
                        "accepted for a non-private run (--rho inf)\n");
        return 0;
    }
    return 1;
}

/* ---- recovery ---- */

/* The recovery source (engine.h): the stored episodes in commit order. */
struct source {
    struct bbd *d;
    bb_engine_put put;
    void *sink;
    long k;
};

static int source_one(void *ctx, int64_t k, const struct bb_episode_buf *e)
{
    struct source *src = ctx;
    struct bb_episode v = bb_episode_buf_view(e);
    if (k != ++src->k) {
        fprintf(stderr, "billboardd: episode %lld out of order\n", (long long)k);
        return BB_EIO;
    }
    return src->put(src->sink, &v);
}

static int source_each(void *ctx, bb_engine_put put, void *sink)
{
    struct source *src = ctx;
    src->put = put;
    src->sink = sink;
    return bb_db_episodes_each(src->d->db, src->d->p.H, src->d->p.A, src->d->p.d, source_one,
                               src);
}

/* Rebuilds the engine from the database and makes the latest stored
 * billboard current. */
static int recover(struct bbd *d)
{
    char *body = NULL, *etag = NULL, *charged = NULL;
    size_t len = 0;
    struct bb_billboard b = {0};
    struct bb_board *board = NULL;
    struct bb_db_mech_state st = {0};
    struct source src = {.d = d};
    int rc = bb_db_mech_state_get(d->db, &st);
    if (rc == BB_OK)
        rc = bb_engine_recover(d->engine, source_each, &src, st.rec, st.n);
    bb_db_mech_state_free(&st);
    if (rc != BB_OK) {
        fprintf(stderr,
                "billboardd: recovering %ld stored episodes and the %s mechanism's noise: %s\n",
                src.k, bb_engine_mechanism(d->engine), bb_strerror(rc));
        goto out;
    }
    if ((rc = bb_db_billboard_get(d->db, -1, &body, &len, &etag)) != BB_OK) {
        fprintf(stderr, "billboardd: no stored billboard: %s\n", bb_strerror(rc));
        goto out;
    }
    if ((rc = bb_billboard_from_json(body, len, &b, NULL, 0)) != BB_OK)
        goto out;
    /* An update charged but never stored (killed between begin and commit)
     * still counts against N_max (writer.c). */
    long updates = (long)b.version;
    size_t clen = 0;
    if (bb_db_meta_get(d->db, "updates_charged", (void **)&charged, &clen) == BB_OK) {
        long c = strtol(charged, NULL, 10);
        if (c > updates)
            updates = c;
    }
    if ((rc = bb_engine_restore_billboard(d->engine, &b, updates)) != BB_OK) {
        fprintf(stderr, "billboardd: restoring the billboard: %s\n", bb_strerror(rc));
        goto out;
    }
    if ((rc = bb_board_new(body, len, NULL, &board)) != BB_OK)
        goto out;
    d->stats.episodes = bb_engine_episodes(d->engine);
    d->stats.updates = bb_engine_updates(d->engine);
    d->stats.version = (long)board->version;
    bb_board_swap(&d->board, board);
out:
    bb_billboard_release(&b);
    free(body);
    free(etag);
    free(charged);
    return rc;
}

/* First start: configuration, key and billboard 0 in one transaction. */
static int create(struct bbd *d, const char *config)
{
    unsigned char key[BB_AUTH_KEY];
    size_t len = 0;
    char etag[BB_ETAG_MAX];
    const struct bb_billboard *b0 = bb_engine_billboard(d->engine);
    char *body = bb_billboard_to_json(b0, &len);
    int rc = BB_ENOMEM;
    if (!body)
        goto out;
    randombytes_buf(key, sizeof(key));
    bb_board_etag(b0->version, body, len, etag);
    rc = bb_db_begin(d->db);
    if (rc == BB_OK)
        rc = bb_db_meta_put(d->db, "config", config, strlen(config));
    if (rc == BB_OK)
        rc = bb_db_meta_put(d->db, "token_key", key, sizeof(key));
    if (rc == BB_OK)
        rc = bb_db_billboard_put(d->db, 0, 0, etag, body, len, NULL, 0);
    if (rc == BB_OK)
        rc = bb_db_commit(d->db);
    else
        bb_db_rollback(d->db);
out:
    sodium_memzero(key, sizeof(key));
    free(body);
    return rc;
}

static int load_clinic(void *ctx, int64_t id, const char *name, const unsigned char *hash,
                       int64_t created, int64_t revoked)
{
    (void)name;
    (void)created;
    return bb_auth_add(ctx, id, hash, revoked != 0);
}

static int admin_token(struct bbd *d, const char *file)
{
    char buf[4096];
    size_t n = 0;
    int rc = BB_OK;
    if (file) {
        FILE *f = fopen(file, "r");
        if (!f) {
            fprintf(stderr, "billboardd: %s: %s\n", file, strerror(errno));
            return BB_EIO;
        }
        n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        n = strcspn(buf, "\r\n");
    } else {
        char *env = getenv("BILLBOARD_ADMIN_TOKEN");
        if (!env) {
            fprintf(stderr, "billboardd: no admin token (--admin-token-file or "
                            "BILLBOARD_ADMIN_TOKEN): clinic administration is disabled\n");
            return BB_OK;
        }
        n = strlen(env);
        if (n >= sizeof(buf))
            n = sizeof(buf) - 1;
        memcpy(buf, env, n);
        sodium_memzero(env, strlen(env));
    }
    if (bb_auth_set_admin(d->auth, buf, n) != BB_OK) {
        fprintf(stderr, "billboardd: the admin token must be at least 16 bytes\n");
        rc = BB_EINVAL;
    }
    sodium_memzero(buf, sizeof(buf));
    return rc;
}

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

/* Opens, configures and recovers; the caller tears down d in any case. */
static int setup(struct bbd *d, struct opts *o)
{
    char why[512];
    char *stored = NULL, *given = NULL;
    unsigned char *key = NULL;
    size_t len = 0;
    int rc = bb_db_open(o->db, 0, &d->db, why, sizeof(why));
    if (rc != BB_OK) {
        fprintf(stderr, "billboardd: %s\n", why);
        goto out;
    }
    rc = bb_db_meta_get(d->db, "config", (void **)&stored, &len);
    int fresh = rc == BB_ENOTFOUND;
    if (rc != BB_OK && !fresh) {
        fprintf(stderr, "billboardd: %s: cannot read the stored configuration\n", o->db);
        goto out;
    }
    if (fresh) {
        d->p = o->given;
    } else {
        if ((rc = bb_config_load(stored, &d->p, why, sizeof(why))) != BB_OK) {
            fprintf(stderr, "billboardd: %s: stored configuration unreadable: %s\n", o->db, why);
            goto out;
        }
        if ((rc = config_check(o, &d->p, o->db, stored)) != BB_OK)
            goto out;
    }
    rc = BB_ENOMEM;
    if (!(given = bb_config_dump(&d->p)))
        goto out;
    if ((rc = bb_params_derive(&d->p, why, sizeof(why))) != BB_OK) {
        fprintf(stderr, "billboardd: %s\n", why);
        goto out;
    }
    rc = BB_EINVAL;
    if (!servable(&d->p))
        goto out;
    if ((rc = bb_rng_init_secure(&d->rng)) != BB_OK)
        goto out;
    if ((rc = bb_engine_new(&d->p, &d->rng, &d->engine)) != BB_OK)
        goto out;
    if (fresh && (rc = create(d, given)) != BB_OK) {
        fprintf(stderr, "billboardd: %s: cannot store the configuration\n", o->db);
        goto out;
    }
    if ((rc = recover(d)) != BB_OK)
        goto out;
    if ((rc = bb_db_meta_get(d->db, "token_key", (void **)&key, &len)) != BB_OK ||
        len != BB_AUTH_KEY) {
        fprintf(stderr, "billboardd: %s: token key missing\n", o->db);
        rc = BB_EIO;
        goto out;
    }
    if ((rc = bb_auth_new(key, &d->auth)) != BB_OK)
        goto out;
    if ((rc = bb_db_clinics_each(d->db, load_clinic, d->auth)) != BB_OK)
        goto out;
    if ((rc = admin_token(d, o->admin_file)) != BB_OK)
        goto out;
    if ((rc = bb_db_pool_new(o->db, (int)o->http.threads + 2, &d->pool, why, sizeof(why))) !=
        BB_OK) {
        fprintf(stderr, "billboardd: %s\n", why);
        goto out;
    }
    d->max_body = o->max_body;
out:
    if (key)
        sodium_memzero(key, BB_AUTH_KEY);
    free(key);
    free(stored);
    free(given);
    return rc;
}

static void teardown(struct bbd *d)
{
    bb_writer_free(d->writer);
    bb_db_pool_free(d->pool);
    bb_auth_free(d->auth);
    bb_engine_free(d->engine);
    bb_rng_release(&d->rng);
    bb_db_close(d->db);
    bb_board_slot_release(&d->board);
    pthread_mutex_destroy(&d->stats_mu);
}

int main(int argc, char **argv)
{
    static struct opts o;
    static struct bbd d;
    struct bb_http *http = NULL;
    int done = 0, status = 1;
    /* The LSVI update runs its own threads around BLAS calls on small
     * matrices (d <= ~64), where OpenBLAS's threads only spin (lsvi.h);
     * OPENBLAS_NUM_THREADS, if set, still wins. */
    if (!getenv("OPENBLAS_NUM_THREADS"))
        openblas_set_num_threads(1);
    int rc = parse_args(argc, argv, &o, &done);
    if (rc || done)
        return rc;
    if (o.print_routes) {
        bb_routes_print(stdout);
        return 0;
    }
    if (o.print_params)
        return print_params(&o.given);
    if (!o.db) {
        usage(stderr);
        return 2;
    }
    if (sodium_init() < 0) {
        fprintf(stderr, "billboardd: libsodium cannot initialise\n");
        return 1;
    }
    /* Signals are taken by sigtimedwait below; every thread inherits the mask. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    pthread_mutex_init(&d.stats_mu, NULL);
    bb_board_slot_init(&d.board);
    atomic_init(&d.fatal, 0);
    if (setup(&d, &o) != BB_OK)
        goto out;
    if (bb_writer_start(&d, &d.writer) != BB_OK)
        goto out;
    char why[256] = "";
    unsigned port = 0;
    o.http.listen = o.listen;
    o.http.port = o.port;
    if (bb_http_start(&d, &o.http, &http, &port, why, sizeof(why)) != BB_OK) {
        fprintf(stderr, "billboardd: %s\n", why);
        goto stop;
    }
    if (o.port_file && write_port(o.port_file, port) != BB_OK) {
        fprintf(stderr, "billboardd: cannot write %s\n", o.port_file);
        goto stop;
    }
    pthread_mutex_lock(&d.stats_mu);
    fprintf(stderr, "billboardd: serving %s on %s port %u (episodes %ld, billboard v%ld)\n",
            o.db, o.listen, port, d.stats.episodes, d.stats.version);
    pthread_mutex_unlock(&d.stats_mu);
    status = 0;
    for (;;) {
        struct timespec ts = {0, 200 * 1000 * 1000};
        int sig = sigtimedwait(&sigs, NULL, &ts);
        if (sig == SIGTERM || sig == SIGINT) {
            fprintf(stderr, "billboardd: signal %d: finishing in-flight requests\n", sig);
            break;
        }
        if (atomic_load(&d.fatal)) {
            status = 1;
            break;
        }
    }
stop:
    if (!http)
        status = 1;
    bb_http_quiesce(http);
    bb_writer_stop(d.writer);
    bb_http_stop(http, 3000);
    if (atomic_load(&d.fatal))
        status = 1;
out:
    teardown(&d);
    return status;
}
