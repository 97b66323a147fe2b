/*
 * http.h — billboardd's HTTP server on libmicrohttpd: limits, the request
 * lifecycle, and the helpers every route answers with.
 *
 * Lifecycle (as in libmicrohttpd's post_example.c): the first call of the
 * access handler matches the route and checks what can be checked from the
 * headers — auth, media type, declared length — answering at once on error
 * so the body is never read; body chunks are appended and counted against
 * the cap; the last call runs the route. A route that needs the writer
 * suspends the connection and submits a job; the writer's done() resumes
 * it and the handler runs again to answer. Per-request state is freed only
 * in the completed callback, which also counts the request for /metrics.
 */
#ifndef BB_HTTP_H
#define BB_HTTP_H

#include <microhttpd.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon.h"
#include "writer.h"

struct bb_route;

/* Per-request state, owned by the server (freed in the completed callback). */
struct bb_req {
    const struct bb_route *route;
    int route_idx;
    struct MHD_Connection *conn;
    char param[64]; /* the {…} path segment, if any */
    char allow[64]; /* 405: the methods the path has */
    char *body;     /* owned, NUL-terminated */
    size_t len, cap;
    size_t dropped;  /* bytes discarded past the cap */
    int too_big;     /* body over the cap: answer 413 at the end */
    int answered;    /* a response is queued */
    unsigned status; /* the status answered, for metrics */
    int64_t clinic;  /* authenticated clinic */
    int submitted;   /* job handed to the writer */
    struct bb_job job;
    char token[BB_AUTH_TOKEN_MAX]; /* clinic add: plaintext, wiped on free */
};

/* Server limits and where to listen. */
struct bb_http_opts {
    const char *listen;    /* IPv4 or IPv6 literal */
    unsigned port;         /* 0: ephemeral */
    unsigned threads;      /* polling threads */
    unsigned conn_limit;   /* total connections */
    unsigned per_ip_limit; /* connections per client address */
    unsigned timeout_s;    /* idle connection timeout */
    size_t conn_memory;    /* per-connection memory pool, bytes */
};

struct bb_http;

/* Starts serving d. *port receives the bound port. */
int bb_http_start(struct bbd *d, const struct bb_http_opts *o, struct bb_http **out, unsigned *port,
                  char *why, size_t whylen) BB_WARN_UNUSED;
/* Stops accepting new connections (in-flight requests continue). */
void bb_http_quiesce(struct bb_http *h);
/* Waits up to ms for open connections to finish, then stops and frees. */
void bb_http_stop(struct bb_http *h, int ms);

/* --- answering, for routes.c; each returns an MHD_Result --- */
enum MHD_Result bb_http_reply(struct bb_req *r, unsigned status, const char *ctype,
                              const char *body, size_t len);
/* Answers with a pre-built response (borrowed; MHD takes its own reference). */
enum MHD_Result bb_http_reply_resp(struct bb_req *r, unsigned status, struct MHD_Response *resp);
/* The one way errors are answered: status from bb_problem_status(err). */
enum MHD_Result bb_http_problem(struct bb_req *r, int err, const char *detail, const char *pointer);

#endif
