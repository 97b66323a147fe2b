/*
 * retry.h — which answers are worth another try, how long to wait, and what
 * an HTTP status means as an enum bb_err (library-internal, pure functions).
 *
 * Network errors, 5xx and 429 (Too Many Requests) are transient and
 * retried; every other 4xx is the caller's problem and final. Waits grow
 * exponentially from base_ms, doubling per attempt, capped at cap_ms, with
 * "equal jitter" (half fixed, half random) so that many clinics retrying
 * after one outage spread out. A 429 or 503 that carries Retry-After waits
 * at least that long, still at most cap_ms.
 *
 * Errors are told apart by the problem+json "type" URI the daemon sends
 * (billboard/problem.h), never by the title, which is prose.
 */
#ifndef BB_CLIENT_RETRY_H
#define BB_CLIENT_RETRY_H

#include <stdint.h>
#include <time.h>

#include "billboard/client.h"

/* 1 if a call that failed with err (an enum bb_err) should be tried again. */
int retry_is_transient(int err);

/* The wait before attempt `attempt` + 1, after `attempt` (>= 1) failed
 * tries: min(cap, base * 2^(attempt-1)) split as half + jitter, where
 * jitter01 in [0, 1) is the random draw (so tests can pin it). */
long retry_wait_ms(const struct bb_client_retry *p, int attempt, double jitter01);

/* The wait after a failed attempt that was answered with HTTP status (0 if
 * no answer) and a Retry-After of after_ms (retry_after_ms(); -1 if none):
 * for a 429 or 503 with Retry-After, max(after_ms, the backoff) bounded by
 * cap_ms; otherwise retry_wait_ms(). */
long retry_next_wait_ms(const struct bb_client_retry *p, int attempt, double jitter01, long status,
                        long after_ms);

/* The value of a Retry-After header (borrowed, may be NULL or "") in
 * milliseconds from now: delta-seconds ("120") or an HTTP-date in the IMF
 * fixdate form ("Sun, 06 Nov 1994 08:49:37 GMT"; a date in the past is 0).
 * -1 if absent or malformed. At most a day, whatever the header says. */
long retry_after_ms(const char *value, time_t now);

/* 1 if another attempt is allowed: attempt < max_attempts and the time
 * already spent (elapsed_ms) plus the next wait stays within total_ms. */
int retry_allowed(const struct bb_client_retry *p, int attempt, long elapsed_ms, long wait_ms);

/* The enum bb_err of an HTTP status and the problem type URI of its body
 * (may be NULL): a 409 is BB_EFULL for BB_PROBLEM_EPISODE_BUDGET (K_max
 * reached), BB_ECAP for BB_PROBLEM_UPDATE_CAP, else BB_ECONFLICT (e.g. an
 * idempotency key reused with another body); a 429 is BB_ESERVER (the
 * daemon cannot serve now: transient). 2xx and 304 are BB_OK. */
int retry_status_err(long status, const char *type);

#endif
