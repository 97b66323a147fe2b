/*
 * options.c — billboardd's command line (options.h).
 *
 * getopt_long knows the daemon's own flags; an argument it does not know
 * exactly as spelled (a configuration flag, an abbreviation, "--flag=value",
 * anything else) is offered to bb_config_option() with the next argument as
 * its value, and is unknown if that refuses it too. So the spellings
 * accepted are exactly those --help lists, and no configuration flag is
 * listed twice.
 */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/config.h"

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
    O_PRINT_PARAMS,
    O_PRINT_ROUTES,
    O_HELP = 'h',
};

static const struct option longopts[] = {
    {"db", required_argument, NULL, O_DB},
    {"listen", required_argument, NULL, O_LISTEN},
    {"port", required_argument, NULL, O_PORT},
    {"port-file", required_argument, NULL, O_PORT_FILE},
    {"admin-token-file", required_argument, NULL, O_ADMIN_TOKEN_FILE},
    {"threads", required_argument, NULL, O_THREADS},
    {"max-connections", required_argument, NULL, O_MAX_CONNECTIONS},
    {"per-ip-limit", required_argument, NULL, O_PER_IP_LIMIT},
    {"timeout", required_argument, NULL, O_TIMEOUT},
    {"conn-memory", required_argument, NULL, O_CONN_MEMORY},
    {"max-body", required_argument, NULL, O_MAX_BODY},
    {"print-params", no_argument, NULL, O_PRINT_PARAMS},
    {"print-routes", no_argument, NULL, O_PRINT_ROUTES},
    {"help", no_argument, NULL, O_HELP},
    {NULL, 0, NULL, 0},
};

void bb_options_usage(FILE *f)
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
            "                         libmicrohttpd zeroes it on every request); a request\n"
            "                         line and header fields over half of it get 431\n"
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

/* A decimal in [lo, hi]: no sign, no blanks, nothing after it. */
static int parse_uint(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
{
    char *end;
    errno = 0;
    if (!s || *s == '-' || *s == '\0')
        return BB_EINVAL;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v > hi || v < lo)
        return BB_EINVAL;
    *out = v;
    return BB_OK;
}

/* Is arg exactly the spelling of the option getopt_long matched? (It also
 * takes abbreviations and "--flag=value", which billboardd never did.) */
static int spelled(const char *arg, int val)
{
    if (val == O_HELP && strcmp(arg, "-h") == 0)
        return 1;
    for (const struct option *lo = longopts; lo->name; lo++)
        if (lo->val == val)
            return strncmp(arg, "--", 2) == 0 && strcmp(arg + 2, lo->name) == 0;
    return 0;
}

/* Takes a numeric flag's value: 0 or the exit status. A missing value is
 * a bad one, as billboardd always said. */
static int number(const char *flag, const char *v, unsigned long lo, unsigned long hi,
                  unsigned long *out)
{
    if (parse_uint(v, lo, hi, out) != BB_OK) {
        fprintf(stderr, "billboardd: bad value '%s' for %s\n", v ? v : "", flag);
        return 2;
    }
    return 0;
}

/* Takes a string flag's value: 0 or the exit status. */
static int text(const char *flag, const char *v, const char **out)
{
    if (!v) {
        fprintf(stderr, "billboardd: %s needs a value\n", flag);
        return 2;
    }
    *out = v;
    return 0;
}

/* argv[i] is no flag of the daemon's: a configuration flag with its value
 * argv[i + 1], or unknown. 0 or the exit status. */
static int configuration(struct bb_options *o, const char *a, const char *v)
{
    char why[256];
    int rc = bb_config_option(&o->given, a, v, why, sizeof(why));
    if (rc == BB_ENOTFOUND) {
        fprintf(stderr, "billboardd: unknown option '%s'\n", a);
        bb_options_usage(stderr);
        return 2;
    }
    if (rc != BB_OK) {
        fprintf(stderr, "billboardd: %s\n", why);
        return 2;
    }
    if (o->ngiven == BB_OPTIONS_MAX_GIVEN) {
        fprintf(stderr, "billboardd: too many configuration flags\n");
        return 2;
    }
    o->gname[o->ngiven] = a;
    o->gval[o->ngiven++] = v;
    return 0;
}

int bb_options_parse(struct bb_options *o, int argc, char **argv)
{
    unsigned long n = 0;
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
    /* "+": stop at the first non-flag (it is unknown); ":": report a
     * missing value as ':'. Our own messages only. */
    opterr = 0;
    while (status == 0 && optind < argc) {
        int at = optind;
        int c = getopt_long(argc, argv, "+:h", longopts, NULL);
        const char *a = argv[at];
        if (c == -1) /* a non-flag argument, or "--": unknown */
            return configuration(o, a, at + 1 < argc ? argv[at + 1] : NULL);
        if (c == ':' && spelled(a, optopt)) {
            c = optopt; /* the last argument, without its value */
            optarg = NULL;
        } else if (c == '?' || c == ':' || !spelled(a, c)) {
            /* Not the daemon's: with its value, as billboardd always read it. */
            if ((status = configuration(o, a, at + 1 < argc ? argv[at + 1] : NULL)) == 0)
                optind = at + 2;
            continue;
        }
        switch (c) {
        case O_HELP:
            o->help = 1;
            return 0;
        case O_PRINT_PARAMS:
            o->print_params = 1;
            break;
        case O_PRINT_ROUTES:
            o->print_routes = 1;
            break;
        case O_DB:
            status = text(a, optarg, &o->db);
            break;
        case O_LISTEN:
            status = text(a, optarg, &o->listen);
            break;
        case O_PORT_FILE:
            status = text(a, optarg, &o->port_file);
            break;
        case O_ADMIN_TOKEN_FILE:
            status = text(a, optarg, &o->admin_file);
            break;
        case O_PORT:
            if (!(status = number(a, optarg, 0, 65535, &n)))
                o->port = (unsigned)n;
            break;
        case O_THREADS:
            if (!(status = number(a, optarg, 1, 64, &n)))
                o->http.threads = (unsigned)n;
            break;
        case O_MAX_CONNECTIONS:
            if (!(status = number(a, optarg, 1, 65536, &n)))
                o->http.conn_limit = (unsigned)n;
            break;
        case O_PER_IP_LIMIT:
            if (!(status = number(a, optarg, 1, 65536, &n)))
                o->http.per_ip_limit = (unsigned)n;
            break;
        case O_TIMEOUT:
            if (!(status = number(a, optarg, 1, 86400, &n)))
                o->http.timeout_s = (unsigned)n;
            break;
        case O_CONN_MEMORY:
            if (!(status = number(a, optarg, 8192, 1UL << 24, &n)))
                o->http.conn_memory = n;
            break;
        case O_MAX_BODY:
            if (!(status = number(a, optarg, 1024, 1UL << 30, &n)))
                o->max_body = n;
            break;
        }
    }
    return status;
}
