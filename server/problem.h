/*
 * problem.h — every HTTP error of billboardd as RFC 9457 problem+json.
 *
 * One function, bb_problem_status(), maps an error code to an HTTP status;
 * bb_problem_json() renders the body. Error codes are enum bb_err plus the
 * few conditions that exist only on HTTP (below), which err.h — shared with
 * the client library — has no reason to know. The "type" URIs are in
 * billboard/problem.h, which the client reads too.
 */
#ifndef BB_PROBLEM_H
#define BB_PROBLEM_H

#include <stddef.h>

#include "billboard/err.h"

/* HTTP-only conditions, outside the range of enum bb_err. */
enum bbd_err {
    BBD_ETOOBIG = -100,    /* body over the configured cap -> 413 */
    BBD_EMEDIA = -101,     /* Content-Type is not application/json -> 415 */
    BBD_EMETHOD = -102,    /* known path, wrong method -> 405 */
    BBD_ENOROUTE = -103,   /* no such path -> 404 */
    BBD_EUNAVAIL = -104,   /* shutting down or storage failed -> 503 */
    BBD_EHEADER = -105,    /* malformed request header (Idempotency-Key) -> 400 */
    BBD_EKEYREUSE = -106,  /* idempotency key reused with another body -> 409 */
    BBD_EFORBIDDEN = -107, /* a valid token of the wrong role (clinic on admin) -> 403 */
    BBD_EHEADERS = -108,   /* request line and header fields over the limit -> 431 */
};

/* The HTTP status of err (an enum bb_err or enum bbd_err). BB_OK gives 200;
 * unknown codes give 500. */
unsigned bb_problem_status(int err);

/* Seconds a client should wait before trying again (Retry-After), 0 for an
 * error that time does not cure. Only 503s have one. */
unsigned bb_problem_retry_after(int err);

/* The problem+json body for err: {"type", "title", "status", "detail"?,
 * "pointer"?}. detail and pointer (a JSON pointer into the request body) may
 * be NULL. Returns a malloc'd NUL-terminated string (caller frees) and its
 * length in *len, or NULL on ENOMEM. */
char *bb_problem_json(int err, const char *detail, const char *pointer, size_t *len);

#endif
