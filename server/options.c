/*
 * options.c — billboardd's command line (options.h).
 *
 * One table holds the daemon's own flags and, after them, every
 * configuration flag (engine/config.h's bb_config_flag); proto/args.c reads
 * the command line against it by the rules all three programs share (names
 * spelt out in full, --flag value or --flag=value). The daemon's flags go to
 * daemon_flag(), the configuration's to bb_config_option(); anything else is
 * an unknown option. So the spellings accepted are exactly those --help
 * lists, and no configuration flag is listed twice.
 *
 * A --config file is found first (prescan) and applied key by key through
 * the same two tables and the same setter (daemon_flag, or
 * bb_config_option), then the command line on top of it.
 */
#include "options.h"

#include <arpa/inet.h>
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "engine/config.h"
#include "tls.h"

enum {
    O_DB = 256,
    O_LISTEN,
    O_PORT,
    O_PORT_FILE,
    O_ADMIN_TOKEN_FILE,
    O_THREADS,
    O_MAX_CONNECTIONS,
    O_PER_IP_LIMIT,
    O_TIMEOUT,
    O_CONN_MEMORY,
    O_MAX_BODY,
    O_TLS_CERT,
    O_TLS_KEY,
    O_TLS_PRIORITIES,
    O_INSECURE_HTTP,
    O_PRINT_PARAMS,
    O_PRINT_ROUTES,
    O_CONFIG,
    O_BACKUP,
    O_RESTORE,
    O_RELEASE_JOURNAL,
    O_LOG_FORMAT,
    O_ACCESS_LOG,
    O_VERSION,
    O_METRICS_LISTEN,
    O_HELP,
    O_CONFIG_FLAG = 1000, /* + the index of bb_config_flag() */
};

/* The daemon's own flags: one line each. The configuration flags follow
 * them in the table the parse reads (table()). */
static const struct bb_opt own[] = {
    {"db", 1, O_DB},
    {"listen", 1, O_LISTEN},
    {"port", 1, O_PORT},
    {"port-file", 1, O_PORT_FILE},
    {"admin-token-file", 1, O_ADMIN_TOKEN_FILE},
    {"threads", 1, O_THREADS},
    {"max-connections", 1, O_MAX_CONNECTIONS},
    {"per-ip-limit", 1, O_PER_IP_LIMIT},
    {"timeout", 1, O_TIMEOUT},
    {"conn-memory", 1, O_CONN_MEMORY},
    {"max-body", 1, O_MAX_BODY},
    {"tls-cert", 1, O_TLS_CERT},
    {"tls-key", 1, O_TLS_KEY},
    {"tls-priorities", 1, O_TLS_PRIORITIES},
    {"insecure-http", 0, O_INSECURE_HTTP},
    {"print-params", 0, O_PRINT_PARAMS},
    {"print-routes", 0, O_PRINT_ROUTES},
    {"config", 1, O_CONFIG},
    {"backup", 1, O_BACKUP},
    {"restore", 1, O_RESTORE},
    {"release-journal", 1, O_RELEASE_JOURNAL},
    {"log-format", 1, O_LOG_FORMAT},
    {"access-log", 1, O_ACCESS_LOG},
    {"version", 0, O_VERSION},
    {"metrics-listen", 1, O_METRICS_LISTEN},
    {"help", 0, O_HELP},
};
enum { NOWN = sizeof(own) / sizeof(own[0]), MAX_CONFIG_FLAGS = 96 };

/* Every flag: the daemon's, then the configuration's (id O_CONFIG_FLAG + i,
 * value required). *n receives the count. */
static const struct bb_opt *table(size_t *n)
{
    static struct bb_opt t[NOWN + MAX_CONFIG_FLAGS];
    static size_t nt;
    if (!nt) {
        memcpy(t, own, sizeof(own));
        nt = NOWN;
        for (size_t i = 0; bb_config_flag(i); i++) {
            assert(nt < NOWN + MAX_CONFIG_FLAGS); /* raise MAX_CONFIG_FLAGS */
            t[nt++] = (struct bb_opt){bb_config_flag(i), 1, O_CONFIG_FLAG + (int)i};
        }
    }
    *n = nt;
    return t;
}

/* "--name" of configuration flag i: bb_config_option's spelling, kept for
 * the life of the process (the given flags are checked again later). */
static const char *config_flag(size_t i)
{
    static char names[MAX_CONFIG_FLAGS][48];
    if (!names[i][0])
        snprintf(names[i], sizeof(names[i]), "--%s", bb_config_flag(i));
    return names[i];
}

/* The default priority string for --help: indented, broken after a ':'
 * before column 80. */
static const char *wrapped_priorities(void)
{
    static char out[512];
    const char *indent = "                         ";
    const char *s = BB_TLS_PRIORITIES_DEFAULT;
    size_t n = 0, col = 0;
    while (*s && n + 64 < sizeof(out)) {
        size_t tok = strcspn(s, ":") + (s[strcspn(s, ":")] == ':');
        if (col == 0 || col + tok > 79) {
            n += (size_t)snprintf(out + n, sizeof(out) - n, "%s%s", col ? "\n" : "", indent);
            col = strlen(indent);
        }
        memcpy(out + n, s, tok);
        n += tok;
        col += tok;
        s += tok;
    }
    snprintf(out + n, sizeof(out) - n, "\n");
    return out;
}

void bb_options_usage(FILE *f)
{
    fprintf(f,
            "usage: billboardd --db FILE [options] [configuration]\n"
            "       billboardd --config FILE [options] [configuration]\n"
            "       billboardd --db FILE --backup OUT\n"
            "       billboardd --db FILE --restore BACKUP\n"
            "       billboardd --print-params [configuration]\n"
            "       billboardd --print-routes\n"
            "\n"
            "The curator of Private LSVI-UCB: serves the REST API of proto/openapi.yaml,\n"
            "keeps every episode in SQLite (WAL, synchronous=FULL) and survives kill -9.\n"
            "\n"
            "Service:\n"
            "  --config FILE          read flags from FILE: 'key = value' lines, a key per\n"
            "                         flag below without its dashes ('port = 8080'; a flag\n"
            "                         without a value: 'key = true'), '#' comments; flags\n"
            "                         on the command line override the file\n"
            "  --db FILE              SQLite database, created mode 0600 with the\n"
            "                         configuration on first start, read on later starts;\n"
            "                         one billboardd at a time serves it\n"
            "  --listen ADDR          IPv4/IPv6 address to bind (default 127.0.0.1); one\n"
            "                         that is not loopback needs HTTPS or --insecure-http\n"
            "  --port N               TCP port; 0 binds an ephemeral one (default 8080)\n"
            "  --port-file F          write the bound port to F once listening\n"
            "  --admin-token-file F   admin bearer token (first line of F, >= 16 bytes);\n"
            "                         else $BILLBOARD_ADMIN_TOKEN; else admin routes are 401\n"
            "  --threads N            HTTP polling threads (default 2)\n"
            "  --max-connections N    open connections in total (default 1024)\n"
            "  --per-ip-limit N       open connections per client address (default 256)\n"
            "  --timeout S            idle connection timeout, seconds (default 30)\n"
            "  --conn-memory BYTES    per-connection memory for headers (default 32768;\n"
            "                         libmicrohttpd zeroes it on every request); a request\n"
            "                         line and header fields over half of it get 431\n"
            "  --max-body BYTES       request body cap, checked before and while reading\n"
            "                         (default 1048576)\n"
            "  --print-params         print the derived parameters as JSON and exit\n"
            "  --print-routes         print 'METHOD PATH' per route and exit\n"
            "  --backup OUT           copy --db to the new file OUT (mode 0600) with SQLite's\n"
            "                         online backup, safe while a daemon serves it, and exit\n"
            "  --restore BACKUP       create --db (which must not exist) from BACKUP, after\n"
            "                         checking it, and exit; then start the daemon on it.\n"
            "                         It charges the releases the lost database may have\n"
            "                         made after the backup: those --release-journal\n"
            "                         recorded, else the worst case (docs/DAEMON.md)\n"
            "  --release-journal FILE append a synced line to FILE (on other storage than\n"
            "                         --db) before every commit that releases, charges or\n"
            "                         publishes; --restore reads it. Once given, required\n"
            "  --log-format F         text (default: 'TIME LEVEL billboardd: message') or\n"
            "                         json (one object a line, for journald and shippers)\n"
            "  --access-log on|off    a log line per request (default on): time, client\n"
            "                         address, method, route, status, bytes, latency,\n"
            "                         clinic id; never a token or a feature value\n"
            "  --metrics-listen A:P   also serve GET /metrics, without a token, on address\n"
            "                         A port P (plain HTTP; [A]:P for IPv6) for a\n"
            "                         Prometheus on a private network; on --listen's\n"
            "                         address /metrics needs the admin token\n"
            "  --version              print the version and exit\n"
            "  --help                 this text\n"
            "\n"
            "HTTPS (libmicrohttpd with GnuTLS; SIGHUP reloads the certificate and key):\n"
            "  --tls-cert FILE        serve HTTPS with the PEM certificate chain in FILE\n"
            "                         (the server's certificate first, then intermediates)\n"
            "  --tls-key FILE         its private key (PEM, unencrypted)\n"
            "  --tls-priorities S     GnuTLS priority string; the default allows TLS 1.3\n"
            "                         and 1.2, AEAD ciphers and forward secrecy only:\n"
            "%s"
            "  --insecure-http        allow plain HTTP on an address that is not loopback\n"
            "                         (refused otherwise: clinics' tokens and patients'\n"
            "                         features would cross the network in clear text)\n"
            "\n"
            "The configuration flags below are fixed when the database is created: a\n"
            "later start may repeat them but not change them (that would void the\n"
            "privacy proof). --update-rule every is refused unless the run is\n"
            "non-private (--rho inf).\n\n%s",
            wrapped_priorities(), bb_config_usage());
}

/* A decimal in [lo, hi]: no sign, no blanks, nothing after it. */
static int parse_uint(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
{
    long v;
    if (!s || *s == '-' || *s == '+' || bb_parse_long(s, &v) != BB_OK || v < 0 ||
        (unsigned long)v > hi || (unsigned long)v < lo)
        return BB_EINVAL;
    *out = (unsigned long)v;
    return BB_OK;
}

/* The daemon's flag named name (without dashes), or NULL. */
static const struct bb_opt *named(const char *name)
{
    return bb_opt_find(own, NOWN, name);
}

/* The commands, and --config itself: no keys of the configuration file. */
static int command(int val)
{
    return val == O_HELP || val == O_VERSION || val == O_PRINT_PARAMS || val == O_PRINT_ROUTES ||
           val == O_CONFIG || val == O_BACKUP || val == O_RESTORE;
}

/* Takes a numeric flag's value: 0 or the exit status. A missing value is
 * a bad one, as billboardd always said. at: "" on the command line, else
 * "FILE:LINE: ". */
static int number(const char *at, const char *flag, const char *v, unsigned long lo,
                  unsigned long hi, unsigned long *out)
{
    if (parse_uint(v, lo, hi, out) != BB_OK) {
        fprintf(stderr, "billboardd: %sbad value '%s' for %s\n", at, v ? v : "", flag);
        return 2;
    }
    return 0;
}

/* Takes a string flag's value: 0 or the exit status. */
static int text(const char *at, const char *flag, const char *v, const char **out)
{
    if (!v) {
        fprintf(stderr, "billboardd: %s%s needs a value\n", at, flag);
        return 2;
    }
    *out = v;
    return 0;
}

/* Takes a two-way flag's value: *out = 0 for no, 1 for yes; 0 or the exit
 * status. */
static int one_of(const char *at, const char *flag, const char *v, const char *no,
                  const char *yes, int *out)
{
    if (v && (strcmp(v, no) == 0 || strcmp(v, yes) == 0)) {
        *out = strcmp(v, yes) == 0;
        return 0;
    }
    fprintf(stderr, "billboardd: %sbad value '%s' for %s (%s or %s)\n", at, v ? v : "", flag, no,
            yes);
    return 2;
}

/* Sets the daemon's flag c (spelled flag, for messages) to v, NULL for a
 * flag without a value: 0 or the exit status. The one setter of the
 * command line and the configuration file. */
static int daemon_flag(struct bb_options *o, int c, const char *at, const char *flag, const char *v)
{
    unsigned long n = 0;
    int status = 0;
    if (!at[0] && c >= O_DB && c < O_DB + 64)
        o->cli_flags |= 1ULL << (c - O_DB);
    switch (c) {
    case O_HELP:
        o->help = 1;
        break;
    case O_PRINT_PARAMS:
        o->print_params = 1;
        break;
    case O_VERSION:
        o->version = 1;
        break;
    case O_LOG_FORMAT:
        status = one_of(at, flag, v, "text", "json", &o->log_json);
        break;
    case O_METRICS_LISTEN:
        status = text(at, flag, v, &o->metrics_listen);
        break;
    case O_ACCESS_LOG:
        status = one_of(at, flag, v, "on", "off", &o->http.access_log_off);
        break;
    case O_PRINT_ROUTES:
        o->print_routes = 1;
        break;
    case O_CONFIG:
        status = text(at, flag, v, &o->config);
        break;
    case O_BACKUP:
        status = text(at, flag, v, &o->backup);
        break;
    case O_RESTORE:
        status = text(at, flag, v, &o->restore);
        break;
    case O_RELEASE_JOURNAL:
        status = text(at, flag, v, &o->release_journal);
        break;
    case O_DB:
        status = text(at, flag, v, &o->db);
        break;
    case O_LISTEN:
        status = text(at, flag, v, &o->listen);
        break;
    case O_PORT_FILE:
        status = text(at, flag, v, &o->port_file);
        break;
    case O_ADMIN_TOKEN_FILE:
        status = text(at, flag, v, &o->admin_file);
        break;
    case O_TLS_CERT:
        status = text(at, flag, v, &o->tls_cert);
        break;
    case O_TLS_KEY:
        status = text(at, flag, v, &o->tls_key);
        break;
    case O_TLS_PRIORITIES:
        status = text(at, flag, v, &o->tls_priorities);
        break;
    case O_INSECURE_HTTP:
        o->insecure_http = 1;
        break;
    case O_PORT:
        if (!(status = number(at, flag, v, 0, 65535, &n)))
            o->port = (unsigned)n;
        break;
    case O_THREADS:
        if (!(status = number(at, flag, v, 1, 64, &n)))
            o->http.threads = (unsigned)n;
        break;
    case O_MAX_CONNECTIONS:
        if (!(status = number(at, flag, v, 1, 65536, &n)))
            o->http.conn_limit = (unsigned)n;
        break;
    case O_PER_IP_LIMIT:
        if (!(status = number(at, flag, v, 1, 65536, &n)))
            o->http.per_ip_limit = (unsigned)n;
        break;
    case O_TIMEOUT:
        if (!(status = number(at, flag, v, 1, 86400, &n)))
            o->http.timeout_s = (unsigned)n;
        break;
    case O_CONN_MEMORY:
        if (!(status = number(at, flag, v, 8192, 1UL << 24, &n)))
            o->http.conn_memory = n;
        break;
    case O_MAX_BODY:
        if (!(status = number(at, flag, v, 1024, 1UL << 30, &n)))
            o->max_body = n;
        break;
    }
    return status;
}

/* "--name" of one of the daemon's own flags, for messages. */
static const char *spelt(const struct bb_opt *opt)
{
    static char buf[64];
    snprintf(buf, sizeof(buf), "--%s", opt->name);
    return buf;
}

/* 1 if arg ("--value-clip", maybe with "=value") names a key the database
 * stores that no flag sets (engine/config.h's bb_config_key). */
static int stored_key(const char *arg)
{
    if (strncmp(arg, "--", 2) != 0)
        return 0;
    const size_t n = strcspn(arg + 2, "=");
    for (size_t i = 0; bb_config_key(i); i++)
        if (strlen(bb_config_key(i)) == n && strncmp(bb_config_key(i), arg + 2, n) == 0)
            return 1;
    return 0;
}

static const char stored_why[] =
    "how the learner works within its budget is fixed by this version and stored "
    "with the database when it is created (docs/DAEMON.md, \"Stored keys\")";

/* Says that arg is no option of billboardd, then the usage: the exit status. */
static int unknown_option(const char *arg)
{
    if (stored_key(arg)) {
        fprintf(stderr, "billboardd: '%.*s' is not a flag: %s\n", (int)strcspn(arg, "="), arg,
                stored_why);
        return 2;
    }
    fprintf(stderr, "billboardd: unknown option '%s'\n", arg);
    bb_options_usage(stderr);
    return 2;
}

/* A configuration flag a with its value v, from the command line (line 0)
 * or the file: 0 or the exit status. One given on the command line
 * replaces the file's. */
static int configuration(struct bb_options *o, const char *a, const char *v, int line,
                         const char *at)
{
    char why[256];
    int rc = bb_config_option(&o->given, a, v, why, sizeof(why));
    if (rc == BB_ENOTFOUND && line && stored_key(a)) {
        fprintf(stderr, "billboardd: %s'%s' is not a setting: %s\n", at, a + 2, stored_why);
        return 2;
    }
    if (rc == BB_ENOTFOUND && line) {
        fprintf(stderr,
                "billboardd: %sunknown key '%s' (the keys are the flags of billboardd --help, "
                "without their dashes)\n",
                at, a + 2);
        return 2;
    }
    if (rc == BB_ENOTFOUND)
        return unknown_option(a);
    if (rc != BB_OK) {
        fprintf(stderr, "billboardd: %sbad value '%s' for %s\n", at, v ? v : "", line ? a + 2 : a);
        return 2;
    }
    int kept = 0;
    for (int i = 0; i < o->ngiven; i++)
        if (line || !o->gline[i] || strcmp(o->gname[i], a) != 0) {
            o->gname[kept] = o->gname[i];
            o->gval[kept] = o->gval[i];
            o->gline[kept++] = o->gline[i];
        }
    o->ngiven = kept;
    if (o->ngiven == BB_OPTIONS_MAX_GIVEN) {
        fprintf(stderr, "billboardd: too many configuration flags\n");
        return 2;
    }
    o->gname[o->ngiven] = a;
    o->gval[o->ngiven] = v;
    o->gline[o->ngiven++] = line;
    return 0;
}

/* Finds --config's value, and --help, before the parse: the file goes
 * first and the command line on top. 0 or the exit status. */
static int prescan(struct bb_options *o, int argc, char **argv)
{
    size_t n;
    const struct bb_opt *t = table(&n);
    struct bb_args a;
    struct bb_arg g;
    bb_args_init(&a, argc, argv, 1);
    while (bb_args_next(&a, t, n, &g) != BB_ARG_END) {
        if (g.kind != BB_ARG_OPTION)
            continue;
        if (g.opt->id == O_HELP) {
            o->help = 1;
            return 0;
        }
        if (g.opt->id == O_CONFIG) {
            if (o->config) {
                fprintf(stderr, "billboardd: --config given twice\n");
                return 2;
            }
            o->config = g.value;
        }
    }
    return 0;
}

/* Applies the configuration file's keys: 0 or the exit status. */
static int config_file(struct bb_options *o)
{
    char why[4352], at[4352];
    if (bb_conffile_read(&o->file, o->config, why, sizeof(why)) != BB_OK) {
        fprintf(stderr, "billboardd: %s\n", why);
        return 2;
    }
    for (size_t i = 0; i < o->file.n; i++) {
        const struct bb_conffile_entry *e = &o->file.e[i];
        const struct bb_opt *lo = named(e->key);
        int status = 0;
        snprintf(at, sizeof(at), "%s:%d: ", o->file.path, e->line);
        if (lo && command(lo->id)) {
            fprintf(stderr,
                    "billboardd: %s%s is a command, not a setting: give --%s on the "
                    "command line\n",
                    at, e->key, e->key);
            status = 2;
        } else if (lo && !lo->takes_value) {
            if (strcmp(e->value, "true") == 0) {
                status = daemon_flag(o, lo->id, at, e->key, NULL);
            } else if (strcmp(e->value, "false") != 0) {
                fprintf(stderr, "billboardd: %s%s takes true or false, not '%s'\n", at, e->key,
                        e->value);
                status = 2;
            }
        } else if (lo) {
            status = daemon_flag(o, lo->id, at, e->key, e->value);
        } else {
            status = configuration(o, e->flag, e->value, e->line, at);
        }
        if (status)
            return status;
    }
    return 0;
}

int bb_options_parse(struct bb_options *o, int argc, char **argv)
{
    int status = 0;
    o->listen = "127.0.0.1";
    o->port = 8080;
    o->max_body = 1 << 20;
    o->http = (struct bb_http_opts){.threads = 2,
                                    .conn_limit = 1024,
                                    .per_ip_limit = 256,
                                    .timeout_s = 30,
                                    .conn_memory = 32768};
    bb_params_defaults(&o->given);
    if ((status = prescan(o, argc, argv)) != 0 || o->help)
        return status;
    if (o->config && (status = config_file(o)) != 0)
        return status;
    size_t n;
    const struct bb_opt *t = table(&n);
    struct bb_args a;
    struct bb_arg g;
    bb_args_init(&a, argc, argv, 1);
    while (status == 0 && bb_args_next(&a, t, n, &g) != BB_ARG_END) {
        if (g.kind == BB_ARG_POSITIONAL || g.kind == BB_ARG_UNKNOWN ||
            g.kind == BB_ARG_EXTRA_VALUE)
            status = unknown_option(g.word);
        else if (g.opt->id >= O_CONFIG_FLAG)
            status = configuration(o, config_flag((size_t)(g.opt->id - O_CONFIG_FLAG)), g.value,
                                   0, "");
        else if ((status = daemon_flag(o, g.opt->id, "", spelt(g.opt), g.value)) == 0 &&
                 o->help)
            return 0;
    }
    if (status == 0 && !!o->print_params + !!o->print_routes + !!o->backup + !!o->restore > 1) {
        fprintf(stderr, "billboardd: --print-params, --print-routes, --backup and --restore are "
                        "separate commands: give one\n");
        status = 2;
    }
    return status;
}

const char *bb_options_at(const struct bb_options *o, const char *key, char *buf, size_t len)
{
    const struct bb_opt *lo = named(key);
    buf[0] = '\0';
    if (lo && lo->id >= O_DB && lo->id < O_DB + 64 && (o->cli_flags >> (lo->id - O_DB)) & 1)
        return buf; /* the command line's */
    if (!lo) { /* a configuration key: the one in effect, as kept in order */
        for (int i = o->ngiven - 1; i >= 0; i--)
            if (strcmp(o->gname[i] + 2, key) == 0) {
                if (o->gline[i])
                    snprintf(buf, len, "%s:%d: ", o->file.path, o->gline[i]);
                return buf;
            }
        return buf;
    }
    for (size_t i = 0; i < o->file.n; i++)
        if (strcmp(o->file.e[i].key, key) == 0)
            snprintf(buf, len, "%s:%d: ", o->file.path, o->file.e[i].line);
    return buf;
}

void bb_options_release(struct bb_options *o)
{
    bb_conffile_release(&o->file);
}

int bb_listen_is_loopback(const char *addr)
{
    struct in_addr a4;
    struct in6_addr a6;
    if (inet_pton(AF_INET, addr, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127; /* 127.0.0.0/8 */
    if (inet_pton(AF_INET6, addr, &a6) == 1) {
        if (IN6_IS_ADDR_LOOPBACK(&a6))
            return 1;
        /* ::ffff:127.x.y.z is IPv4 loopback too. */
        return IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127;
    }
    return 0;
}

int bb_options_metrics_addr(const char *spec, char *addr, size_t addrlen, unsigned *port)
{
    const char *colon = strrchr(spec, ':');
    unsigned long n;
    if (!colon || parse_uint(colon + 1, 0, 65535, &n) != BB_OK)
        return -1;
    const char *a = spec;
    size_t len = (size_t)(colon - spec);
    if (len >= 2 && a[0] == '[' && a[len - 1] == ']') {
        a++;
        len -= 2;
    }
    if (len == 0 || len >= addrlen)
        return -1;
    memcpy(addr, a, len);
    addr[len] = '\0';
    struct in6_addr any;
    if (inet_pton(AF_INET, addr, &any) != 1 && inet_pton(AF_INET6, addr, &any) != 1)
        return -1;
    *port = (unsigned)n;
    return 0;
}

int bb_options_check(const struct bb_options *o)
{
    char maddr[64];
    unsigned mport;
    if (o->metrics_listen &&
        bb_options_metrics_addr(o->metrics_listen, maddr, sizeof(maddr), &mport) != 0) {
        char at[4352];
        fprintf(stderr,
                "billboardd: %smetrics-listen '%s' is not ADDR:PORT with an IP address "
                "(127.0.0.1:9464, [::1]:9464)\n",
                bb_options_at(o, "metrics-listen", at, sizeof(at)), o->metrics_listen);
        return 2;
    }
    struct in6_addr any;
    if (inet_pton(AF_INET, o->listen, &any) != 1 && inet_pton(AF_INET6, o->listen, &any) != 1) {
        char at[4352];
        fprintf(stderr,
                "billboardd: %slisten '%s' is not an IPv4 or IPv6 address (host names are not "
                "accepted): give 127.0.0.1 or ::1 for this host, 0.0.0.0 or :: for every "
                "interface\n",
                bb_options_at(o, "listen", at, sizeof(at)), o->listen);
        return 2;
    }
    if (!o->tls_cert != !o->tls_key) {
        fprintf(stderr, "billboardd: %s needs %s too\n", o->tls_cert ? "--tls-cert" : "--tls-key",
                o->tls_cert ? "--tls-key" : "--tls-cert");
        return 2;
    }
    if (o->tls_priorities && !o->tls_cert) {
        fprintf(stderr, "billboardd: --tls-priorities needs --tls-cert and --tls-key\n");
        return 2;
    }
    if (!o->tls_cert && !o->insecure_http && !bb_listen_is_loopback(o->listen)) {
        fprintf(stderr,
                "billboardd: refusing plain HTTP on %s, which is not a loopback address: "
                "clinics' tokens and patients' features would cross the network in clear "
                "text. Serve HTTPS with --tls-cert FILE --tls-key FILE, or, behind a "
                "TLS-terminating proxy or on a private network, say --insecure-http\n",
                o->listen);
        return 2;
    }
    return 0;
}
