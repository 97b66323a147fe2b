/*
 * options.h — billboardd's command line.
 *
 *   billboardd --print-params [configuration]     derived parameters as JSON
 *   billboardd --print-routes                     the route table
 *   billboardd --db FILE [--listen A] [--port N] [--port-file F]
 *              [--tls-cert F --tls-key F [--tls-priorities S]] [--insecure-http]
 *              [configuration] ...
 *
 * The daemon's own flags are parsed with getopt_long; every other flag is a
 * configuration flag (engine/config.h), applied to the defaults and kept in
 * the order given, so that a later start can check each against the
 * configuration stored in the database (configure.h). Flags are taken only
 * as spelled in --help, each with its value as the next argument.
 */
#ifndef BB_OPTIONS_H
#define BB_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "engine/params.h"
#include "http.h"

#define BB_OPTIONS_MAX_GIVEN 32

struct bb_options {
    const char *db, *listen, *port_file, *admin_file; /* borrowed from argv */
    const char *tls_cert, *tls_key, *tls_priorities;  /* borrowed; NULL: plain HTTP */
    int insecure_http; /* plain HTTP allowed on a non-loopback address */
    unsigned port;
    struct bb_http_opts http; /* limits; listen and port are set by main */
    size_t max_body;
    int help, print_params, print_routes;
    struct bb_params given; /* defaults + the configuration flags given */
    /* The configuration flags as given (borrowed from argv), in order. */
    const char *gname[BB_OPTIONS_MAX_GIVEN], *gval[BB_OPTIONS_MAX_GIVEN];
    int ngiven;
};

/* Parses argv into o (zeroed by the caller). Returns 0, or the exit status
 * (2) after a message on stderr: an unknown flag (with the usage), a flag
 * without its value, a value out of range, too many configuration flags.
 * --help or -h sets o->help and stops parsing. */
int bb_options_parse(struct bb_options *o, int argc, char **argv);

/* The rules between flags, checked once every flag is read: --tls-cert and
 * --tls-key come together (--tls-priorities only with them), and plain HTTP
 * is served on a loopback address only, unless --insecure-http. Returns 0,
 * or the exit status (2) after a message on stderr. */
int bb_options_check(const struct bb_options *o);

/* 1 if addr is an IPv4 or IPv6 loopback literal (127.0.0.0/8, ::1,
 * ::ffff:127.0.0.0/104), else 0 (any other address, or not a literal). */
int bb_listen_is_loopback(const char *addr);

/* The --help text, the configuration flags' included. */
void bb_options_usage(FILE *f);

#endif
