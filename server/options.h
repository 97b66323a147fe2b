/*
 * options.h — billboardd's command line and configuration file.
 *
 *   billboardd --print-params [configuration]     derived parameters as JSON
 *   billboardd --print-routes                     the route table
 *   billboardd --db FILE --backup OUT             online backup (backup.h)
 *   billboardd --db FILE --restore BACKUP         a new database from a backup
 *   billboardd --db FILE [--listen A] [--port N] [--port-file F]
 *              [--tls-cert F --tls-key F [--tls-priorities S]] [--insecure-http]
 *              [configuration] ...
 *   billboardd --config FILE [flags]              the same, from a file
 *
 * Beside the daemon's own flags, every flag is a configuration flag
 * (engine/config.h), applied to the defaults and kept in the order given,
 * so that a later start can check each against the configuration stored in
 * the database (configure.h). Flags are taken only as spelled in --help,
 * each with its value as the next argument or after '=' (proto/args.h).
 *
 * --config FILE (conffile.h) names a file of "key = value" lines whose keys
 * are the flags' names without dashes, taken from the same two tables: a
 * flag added to either is a key too. A flag without a value is a key with
 * the value true or false. The file is applied
 * first and the command line on top: a flag given on the command line
 * replaces the file's key. The commands (--help, --print-params,
 * --print-routes, --backup, --restore) and --config itself are no keys.
 */
#ifndef BB_OPTIONS_H
#define BB_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "conffile.h"
#include "engine/params.h"
#include "http_opts.h"

#define BB_OPTIONS_MAX_GIVEN 32

struct bb_options {
    /* Borrowed from argv or from file. */
    const char *db, *listen, *port_file, *admin_file;
    const char *tls_cert, *tls_key, *tls_priorities; /* NULL: plain HTTP */
    int insecure_http;            /* plain HTTP allowed on a non-loopback address */
    const char *config;           /* --config FILE */
    const char *backup, *restore; /* --backup OUT, --restore BACKUP */
    const char *release_journal;  /* --release-journal FILE (ledger.h); NULL: none */
    unsigned port;
    struct bb_http_opts http; /* limits; listen and port are set by main */
    size_t max_body;
    int help, print_params, print_routes;
    int version;  /* --version */
    const char *metrics_listen; /* --metrics-listen ADDR:PORT, or NULL */
    int log_json; /* --log-format json */
    struct bb_params given; /* defaults + the configuration flags given */
    /* The configuration flags in effect as given, in order (borrowed from
     * argv or file): gline[i] is 0 for the command line, else the line of
     * the configuration file that gave it. */
    const char *gname[BB_OPTIONS_MAX_GIVEN], *gval[BB_OPTIONS_MAX_GIVEN];
    int gline[BB_OPTIONS_MAX_GIVEN];
    int ngiven;
    struct bb_conffile file; /* --config's content; owned */
    unsigned long long cli_flags; /* the daemon's flags given on the command line */
};

/* Parses argv (and the --config file it names) into o (zeroed by the
 * caller). Returns 0, or the exit status (2) after a message on stderr: an
 * unknown flag (with the usage), a flag without its value, a value out of
 * range, too many configuration flags, two commands at once, an unreadable
 * configuration file, or one with a syntax error, an unknown key or a bad
 * value ("FILE:LINE: ..."). --help or -h sets o->help and stops parsing
 * (the file is not read). Either way the caller calls bb_options_release(). */
int bb_options_parse(struct bb_options *o, int argc, char **argv);

/* The rules between flags, checked once every flag is read: --tls-cert and
 * --tls-key come together (--tls-priorities only with them), and plain HTTP
 * is served on a loopback address only, unless --insecure-http. Returns 0,
 * or the exit status (2) after a message on stderr. */
int bb_options_check(const struct bb_options *o);

/* 1 if addr is an IPv4 or IPv6 loopback literal (127.0.0.0/8, ::1,
 * ::ffff:127.0.0.0/104), else 0 (any other address, or not a literal). */
int bb_listen_is_loopback(const char *addr);

/* Where key (a flag's name without dashes: "admin-token-file", "delta")
 * got its value in effect: "FILE:LINE: " into buf if from the --config file,
 * else "" (the command line or the default). Returns buf. */
const char *bb_options_at(const struct bb_options *o, const char *key, char *buf, size_t len);

/* Splits --metrics-listen's "ADDR:PORT" ("[ADDR]:PORT" for IPv6) into
 * addr (addrlen bytes) and *port: 0, or -1 if it is not an IP address and
 * a port in [0, 65535]. */
int bb_options_metrics_addr(const char *spec, char *addr, size_t addrlen, unsigned *port);

/* Frees what o owns (the configuration file's content). */
void bb_options_release(struct bb_options *o);

/* The --help text, the configuration flags' included. */
void bb_options_usage(FILE *f);

#endif
