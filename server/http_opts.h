/*
 * http_opts.h — what the HTTP server (http.h) is started with: limits,
 * where to listen, and how. Its own header so that the command line
 * (options.h) can fill one without the server's dependencies.
 */
#ifndef BB_HTTP_OPTS_H
#define BB_HTTP_OPTS_H

#include <stddef.h>

struct bb_tls;

/* Server limits, where to listen, and how (HTTP or HTTPS). */
struct bb_http_opts {
    const char *listen;    /* IPv4 or IPv6 literal */
    unsigned port;         /* 0: ephemeral */
    unsigned threads;      /* polling threads */
    unsigned conn_limit;   /* total connections */
    unsigned per_ip_limit; /* connections per client address */
    unsigned timeout_s;    /* idle connection timeout */
    size_t conn_memory;    /* per-connection memory pool, bytes */
    struct bb_tls *tls;    /* borrowed, outlives the server; NULL: plain HTTP */
    int access_log_off;    /* 1: no access log line per request (log.h) */
    int metrics_only;      /* 1: serve GET /metrics alone, without a token
                            * (--metrics-listen); every other path is 404 */
};

#endif
