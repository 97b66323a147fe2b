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
 * it and the handler runs again to answer. Per-request state (reply.h) is
 * freed only in the completed callback, which also counts the request for
 * /metrics.
 *
 * Dependencies run one way: http.c -> routes.c (the table and handlers) ->
 * reply.c (how a handler answers); http.c answers its own errors through
 * reply.c too.
 */
#ifndef BB_HTTP_H
#define BB_HTTP_H

#include <microhttpd.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon.h"
#include "http_opts.h"

struct bb_http;

/* Starts serving d. *port receives the bound port. */
int bb_http_start(struct bbd *d, const struct bb_http_opts *o, struct bb_http **out, unsigned *port,
                  char *why, size_t whylen) BB_WARN_UNUSED;
/* Stops accepting new connections (in-flight requests continue). */
void bb_http_quiesce(struct bb_http *h);
/* Waits up to ms for open connections to finish, then stops and frees. */
void bb_http_stop(struct bb_http *h, int ms);

#endif
