/*
 * reply.h — one request's state and the one way it is answered.
 *
 * struct bb_req is what the server (http.c) keeps per request and a route
 * handler (routes.c) reads and answers; the answering functions below are
 * the only ones that queue a response, and bb_reply_problem() is the only
 * way an error is answered (problem.h maps the error to its status and
 * body). Each returns libmicrohttpd's MHD_Result for the access handler.
 */
#ifndef BB_REPLY_H
#define BB_REPLY_H

#include <microhttpd.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "auth.h"
#include "buf.h"
#include "job.h"

struct bb_route;

/* Per-request state, owned by the server (freed in the completed callback). */
struct bb_req {
    const struct bb_route *route;
    int route_idx;
    struct MHD_Connection *conn;
    char param[64];     /* the {…} path segment, if any */
    char allow[64];     /* 405: the methods the path has */
    struct bb_buf body; /* owned: the upload so far; p is NULL while empty */
    size_t dropped;     /* bytes discarded past the cap */
    int too_big;        /* body over the cap: answer 413 at the end */
    int answered;       /* a response is queued */
    unsigned status;    /* the status answered, for metrics */
    int other_method;   /* 405: route_idx is the path's, not the method's */
    size_t bytes;       /* the body answered, for the access log */
    char method[16];    /* the request's method, for the access log */
    struct timespec t0; /* the head arrived (CLOCK_MONOTONIC) */
    int64_t clinic;     /* authenticated clinic */
    int submitted;      /* job handed to the writer */
    struct bb_job job;
    char token[BB_AUTH_TOKEN_MAX]; /* clinic add: plaintext, wiped on free */
};

/* Answers with status and a copy of body (len bytes, borrowed); ctype may
 * be NULL for no Content-Type. */
enum MHD_Result bb_reply_send(struct bb_req *r, unsigned status, const char *ctype,
                              const char *body, size_t len);
/* Answers with a pre-built response (borrowed; MHD takes its own reference). */
enum MHD_Result bb_reply_resp(struct bb_req *r, unsigned status, struct MHD_Response *resp);
/* The one way errors are answered: status from bb_problem_status(err). */
enum MHD_Result bb_reply_problem(struct bb_req *r, int err, const char *detail,
                                 const char *pointer);

#endif
