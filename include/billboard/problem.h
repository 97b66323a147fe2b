/*
 * billboard/problem.h — the problem type URIs of billboardd's errors (wire
 * contract, RFC 9457).
 *
 * Every error answer of the daemon is application/problem+json whose "type"
 * is one of the URIs below. The daemon writes them (server/problem.c) and
 * libbillboard decides on them (client/retry.c: which 409 is K_max, which is
 * N_max, which is a reused idempotency key), so both sides use these
 * definitions and no one matches titles, which are prose and may change.
 * The URIs never change meaning; new ones may be added. proto/openapi.yaml
 * lists them with their statuses.
 */
#ifndef BILLBOARD_PROBLEM_H
#define BILLBOARD_PROBLEM_H

#define BB_PROBLEM_URN "urn:billboard:problem:"

#define BB_PROBLEM_MALFORMED          BB_PROBLEM_URN "malformed"                /* 400 */
#define BB_PROBLEM_BAD_HEADER         BB_PROBLEM_URN "bad-header"               /* 400 */
#define BB_PROBLEM_UNAUTHORIZED       BB_PROBLEM_URN "unauthorized"             /* 401 */
#define BB_PROBLEM_FORBIDDEN          BB_PROBLEM_URN "forbidden"                /* 403 */
#define BB_PROBLEM_NOT_FOUND          BB_PROBLEM_URN "not-found"                /* 404 */
#define BB_PROBLEM_METHOD_NOT_ALLOWED BB_PROBLEM_URN "method-not-allowed"       /* 405 */
#define BB_PROBLEM_EPISODE_BUDGET     BB_PROBLEM_URN "episode-budget-exhausted" /* 409 */
#define BB_PROBLEM_UPDATE_CAP         BB_PROBLEM_URN "update-cap-reached"       /* 409 */
#define BB_PROBLEM_CONFLICT           BB_PROBLEM_URN "conflict"                 /* 409 */
#define BB_PROBLEM_KEY_REUSED         BB_PROBLEM_URN "idempotency-key-reused"   /* 409 */
#define BB_PROBLEM_BODY_TOO_LARGE     BB_PROBLEM_URN "body-too-large"           /* 413 */
#define BB_PROBLEM_MEDIA_TYPE         BB_PROBLEM_URN "unsupported-media-type"   /* 415 */
#define BB_PROBLEM_VALIDATION         BB_PROBLEM_URN "validation"               /* 422 */
#define BB_PROBLEM_HEADERS_TOO_LARGE  BB_PROBLEM_URN "headers-too-large"        /* 431 */
#define BB_PROBLEM_INTERNAL           BB_PROBLEM_URN "internal"                 /* 500 */
#define BB_PROBLEM_OVERLOADED         BB_PROBLEM_URN "overloaded"               /* 503 */
#define BB_PROBLEM_STORAGE            BB_PROBLEM_URN "storage"                  /* 503 */
#define BB_PROBLEM_UNAVAILABLE        BB_PROBLEM_URN "unavailable"              /* 503 */

#endif
