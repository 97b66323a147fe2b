/*
 * retry.h — which answers are worth another try, how long to wait, and what
 * an HTTP status means as an enum bb_err (library-internal, pure functions).
 *
 * Network errors and 5xx are transient and retried; every 4xx is the
 * caller's problem and final. Waits grow exponentially from base_ms,
 * doubling per attempt, capped at cap_ms, with "equal jitter" (half fixed,
 * half random) so that many clinics retrying after one outage spread out.
 */
#ifndef BB_CLIENT_RETRY_H
#define BB_CLIENT_RETRY_H

#include <stdint.h>

#include "billboard/client.h"

/* 1 if a call that failed with err (an enum bb_err) should be tried again. */
int retry_is_transient(int err);

/* The wait before attempt `attempt` + 1, after `attempt` (>= 1) failed
 * tries: min(cap, base * 2^(attempt-1)) split as half + jitter, where
 * jitter01 in [0, 1) is the random draw (so tests can pin it). */
long retry_wait_ms(const struct bb_client_retry *p, int attempt, double jitter01);

/* 1 if another attempt is allowed: attempt < max_attempts and the time
 * already spent (elapsed_ms) plus the next wait stays within total_ms. */
int retry_allowed(const struct bb_client_retry *p, int attempt, long elapsed_ms, long wait_ms);

/* The enum bb_err of an HTTP status. A 409 is BB_EFULL when the problem
 * title or type (may be NULL) says the episode budget K_max is exhausted,
 * BB_ECAP when it says the update cap N_max is reached, else BB_ECONFLICT
 * (e.g. an idempotency key reused with another body). 2xx and 304 are
 * BB_OK. */
int retry_status_err(long status, const char *title, const char *type);

#endif
