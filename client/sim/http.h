/*
 * http.h — one simulated run over HTTP: N clinic threads against a running
 * billboardd through libbillboard (include/billboard/client.h).
 *
 * Each clinic is a thread with its own bb_client and token. Until K episodes
 * are claimed, it fetches the billboard (ETag: a 304 costs nothing), turns
 * the version into an action table once (policy.h; the same
 * bb_billboard_act() as bb_client_recommend_local), plays one episode and
 * POSTs it with an idempotency key (retried by the library on network errors
 * and 5xx with the same key). The exact regret of every episode is recorded
 * as in run.h. switches[k] counts the distinct nonzero billboard versions
 * used by episodes 0..k (in claim order); at the end the daemon's own count
 * is read from GET /v1/privacy into r->updates.
 */
#ifndef BB_SIM_HTTP_H
#define BB_SIM_HTTP_H

#include <stddef.h>

#include "run.h"

/* Runs r against the daemon at url with one clinic per token (ntokens =
 * r->clinics, borrowed); cacert (borrowed, may be NULL) is the CA file
 * trusted for an https:// url (bb_client_set_cacert). r->env must have the daemon's H, d, A (checked
 * against GET /v1/config); r->params is filled from it (beta, privacy,
 * ridge, N_max) and r->algo becomes private or lsvi-ucb-rare accordingly.
 * On error returns the library's error with a reason in why. */
int bb_sim_run_http(struct bb_sim_run *r, const char *url, const char *cacert,
                    char *const *tokens, char *why, size_t whylen) BB_WARN_UNUSED;

#endif
