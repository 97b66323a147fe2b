/*
 * billboard/client.h — libbillboard, the clinic side of the billboard protocol.
 *
 * A struct bb_client talks to one billboardd over HTTP (libcurl) and keeps
 * the clinic's own data in an optional local SQLite file (the "state store"):
 * the episode in progress and finished episodes not yet acknowledged by the
 * daemon, each with the idempotency key generated once for it, so that after
 * a crash of the clinic's process a resend replays instead of duplicating.
 *
 * Typical use:
 *
 *     struct bb_client *c;
 *     bb_client_new("http://127.0.0.1:8080", token, "clinic.db", &c);
 *     bb_client_fetch_billboard(c, NULL);        // GET /v1/billboard, ETag cached
 *     const struct bb_billboard *b = bb_client_billboard(c);
 *     bb_client_episode_begin(c, b->H, b->A, b->d, b->version, &id);
 *     for (h = 1..H) {
 *         bb_client_recommend_local(c, h, phi, q, &a);   // the shared policy
 *         ... treat, observe reward r ...
 *         bb_client_episode_step(c, id, phi, a, r);
 *     }
 *     bb_client_episode_finish(c, id);           // now queued, unsent
 *     bb_client_flush(c, NULL, NULL, &sent);     // POST /v1/episodes for each
 *     bb_client_free(c);
 *
 * Errors. Every fallible call returns BB_OK or a negative enum bb_err:
 *   BB_ENET      the daemon could not be reached (after the retries)
 *   BB_ETLS      TLS refused the daemon's certificate (untrusted, wrong host
 *                name, unreadable CA file; see bb_client_set_cacert); not
 *                retried
 *   BB_ESERVER   the daemon answered 5xx or 429 (after the retries)
 *   BB_EPROTO    HTTP 400/415, or an answer that is not what the API says
 *   BB_EAUTH     HTTP 401: missing, bad or revoked token; 403: a valid token
 *                of the wrong role (a clinic's on an admin call, or the reverse)
 *   BB_ENOTFOUND HTTP 404 (e.g. no such billboard version or clinic)
 *   BB_ECONFLICT HTTP 409: idempotency key reused with another body
 *   BB_EFULL     HTTP 409 because K_max episodes are already used
 *   BB_ECAP      HTTP 409 because the update cap N_max is reached
 *   BB_EINVAL    HTTP 413/422 (validation), 431, or a bad argument to the call
 *   BB_EIO       the local state store failed
 *   BB_ENOMEM    allocation failed
 * After a call that talked to the daemon, bb_client_last_status() is the HTTP
 * status (0 if none was received) and bb_client_last_title()/_detail() the
 * problem+json title and detail of an error answer (or the libcurl message of
 * a network or TLS error).
 *
 * HTTPS. An https:// base URL is verified against the system's CA store, or
 * against bb_client_set_cacert's file; verification cannot be turned off.
 *
 * The three 409s are told apart by the problem type URI of the answer
 * (billboard/problem.h), not by its wording.
 *
 * Retries. Network errors, 5xx and 429 answers are retried with exponential
 * backoff (base, doubling, capped per wait, plus jitter) until max_attempts
 * or until the total time spent waiting would exceed total_ms; a 429 or 503
 * with Retry-After (seconds or an HTTP date) waits at least that long, but
 * never more than cap_ms at a time. Other 4xx answers are never retried.
 * Only requests that are safe to repeat are retried: GETs, DELETE, POST
 * /v1/recommend (stores nothing) and POST /v1/episodes (always with an
 * Idempotency-Key); POST /v1/clinics is not. Every call therefore
 * returns within about max_attempts * timeout_ms + total_ms.
 *
 * Threads. A bb_client is used by one thread at a time; distinct clients may
 * be used concurrently (libcurl and libsodium are initialised once, safely).
 * Processes may share a state file one after another (the CLI does); two
 * clients flushing the same file at once would send some episodes twice,
 * which the daemon answers as replays, so nothing is counted twice.
 *
 * Ownership. Every pointer a function returns or takes is marked below:
 * "caller owns" (the caller frees it), "borrowed" (valid until the stated
 * event, never freed by the caller), or "copied" (the library keeps its own
 * copy; the caller's buffer may be reused at once).
 */
#ifndef BILLBOARD_CLIENT_H
#define BILLBOARD_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "billboard/billboard.h"
#include "billboard/clinic.h"
#include "billboard/codec.h"
#include "billboard/config_info.h"
#include "billboard/episode.h"
#include "billboard/err.h"

#define BB_CLIENT_KEY_MAX 128 /* longest Idempotency-Key the daemon accepts */

struct bb_client; /* opaque */

/* ------------------------------------------------------------------ */
/* Lifecycle                                                           */

/* Creates a client for the daemon at base_url (e.g. "http://127.0.0.1:8080",
 * no trailing "/v1"). token is the clinic's bearer token, or NULL for calls
 * that need none (billboard, privacy, config). state_path is the local state
 * store (SQLite file, created with mode 0600 if missing) or NULL for none; the episode and
 * flush calls then return BB_EINVAL. All three strings are copied; the token
 * copy is wiped with sodium_memzero by bb_client_free. On success *out is a
 * new client the caller owns (bb_client_free). Returns BB_OK, BB_EINVAL (bad
 * URL), BB_EIO (state file cannot be opened or is not a state store), or
 * BB_ENOMEM; *out is NULL on error. */
int bb_client_new(const char *base_url, const char *token, const char *state_path,
                  struct bb_client **out) BB_WARN_UNUSED;

/* Frees c, its cached billboard, and wipes its tokens. NULL is a no-op. */
void bb_client_free(struct bb_client *c);

/* Sets the admin token for the /v1/clinics calls (copied, wiped on free or
 * replacement). NULL clears it. Returns BB_OK or BB_ENOMEM. */
int bb_client_set_admin_token(struct bb_client *c, const char *admin_token) BB_WARN_UNUSED;

/* Trusts only the CA certificates in the PEM file at path (copied) to
 * verify the daemon's certificate on https:// URLs, instead of the
 * system's CA store: for a daemon with a private CA or a self-signed
 * certificate. NULL goes back to the system's store. The certificate chain
 * and the host name are always verified; nothing turns that off. Returns
 * BB_OK, BB_EIO if path cannot be read, or BB_ENOMEM. */
int bb_client_set_cacert(struct bb_client *c, const char *path) BB_WARN_UNUSED;

/* Retry and timeout policy. Defaults: max_attempts 6, base_ms 100, cap_ms
 * 5000, total_ms 30000, timeout_ms 10000 per request (connect included). */
struct bb_client_retry {
    int max_attempts; /* total tries, >= 1 (1 = no retry) */
    long base_ms;     /* first wait */
    long cap_ms;      /* longest single wait */
    long total_ms;    /* longest total waiting across the retries of one call */
    long timeout_ms;  /* per HTTP request */
};

/* Replaces c's policy with *r (copied). Returns BB_EINVAL if a field is out
 * of range (max_attempts < 1, negative times, timeout_ms < 1). */
int bb_client_set_retry(struct bb_client *c, const struct bb_client_retry *r) BB_WARN_UNUSED;

/* The default policy, for callers that change one field. */
struct bb_client_retry bb_client_retry_default(void);

/* ------------------------------------------------------------------ */
/* The last answer                                                     */

/* HTTP status of the last request c made (0 if none was answered). */
int bb_client_last_status(const struct bb_client *c);

/* problem+json "title" and "detail" of the last error answer, or for a
 * network error "network error" and libcurl's message; "" when there is
 * none. Borrowed: valid until the next call on c. Never NULL. */
const char *bb_client_last_title(const struct bb_client *c);
const char *bb_client_last_detail(const struct bb_client *c);

/* Number of HTTP attempts the last call made (1 if it was not retried). */
int bb_client_last_attempts(const struct bb_client *c);

/* ------------------------------------------------------------------ */
/* Billboard and policy                                                */

/* GET /v1/billboard with If-None-Match of the cached ETag. On 200 the body
 * is parsed and factored (bb_billboard_factor) and replaces the cached
 * billboard; on 304 nothing is parsed. *changed (may be NULL) is 1 if a new
 * billboard was installed, 0 on 304. Retried like every GET. On error the
 * cached billboard is kept. With a state file, the last billboard fetched is
 * kept there too: a new client installs it (parsed once) before its first
 * request, so it asks with If-None-Match and, if the daemon is unreachable,
 * bb_client_billboard() still returns it while this call returns BB_ENET. */
int bb_client_fetch_billboard(struct bb_client *c, int *changed) BB_WARN_UNUSED;

/* The cached, factored billboard, or NULL before the first successful fetch.
 * Borrowed: valid until the next bb_client_fetch_billboard() or
 * bb_client_free() on c. */
const struct bb_billboard *bb_client_billboard(const struct bb_client *c);

/* The ETag of the cached billboard ("" if none). Borrowed, as above. */
const char *bb_client_billboard_etag(const struct bb_client *c);

/* GET /v1/billboard/{version}: a past billboard, parsed and factored into
 * *out, which must be zeroed or released; the caller owns it afterwards
 * (bb_billboard_release). BB_ENOTFOUND if the daemon has no such version. */
int bb_client_get_billboard_version(struct bb_client *c, uint64_t version,
                                    struct bb_billboard *out) BB_WARN_UNUSED;

/* The recommendation for one state at step h (1..H) from the cached
 * billboard, computed locally with the shared policy bb_billboard_act():
 * features is borrowed, A*d doubles, row a = phi(x, a); q (borrowed, A
 * doubles) receives the Q-values and may be NULL; *action the greedy action.
 * No network. BB_EINVAL if no billboard is cached; BB_ERANGE if h is out of
 * range. Features are not validated here (the daemon validates episodes). */
int bb_client_recommend_local(struct bb_client *c, int h, const double *features, double *q,
                              int *action) BB_WARN_UNUSED;

/* POST /v1/recommend (thin-client mode; needs the clinic token): the same
 * computation done by the daemon on billboard version `version`, or on its
 * current one when version is UINT64_MAX. q (may be NULL) receives A
 * doubles, *action the action, *used_version (may be NULL) the version the
 * daemon used. It stores nothing, so it is retried like a GET. */
int bb_client_recommend_remote(struct bb_client *c, int h, const double *features, int A, int d,
                               uint64_t version, double *q, int *action,
                               uint64_t *used_version) BB_WARN_UNUSED;

/* The same two for a step of a known episode: episode_key (borrowed, 1..128
 * visible ASCII; the CLI passes the episode's idempotency key) makes the
 * random action of a billboard that holds no data yet the episode's own
 * consistent draw (bb_billboard_act_episode) instead of a fresh coin per
 * step; NULL behaves as above. Once the billboard holds data the key changes
 * nothing. */
int bb_client_recommend_local_episode(struct bb_client *c, const char *episode_key, int h,
                                      const double *features, double *q,
                                      int *action) BB_WARN_UNUSED;
int bb_client_recommend_remote_episode(struct bb_client *c, const char *episode_key, int h,
                                       const double *features, int A, int d, uint64_t version,
                                       double *q, int *action,
                                       uint64_t *used_version) BB_WARN_UNUSED;

/* ------------------------------------------------------------------ */
/* Episodes                                                            */

/* What the daemon answered to an accepted episode. */
struct bb_client_receipt {
    uint64_t episode;           /* k, the episode's index in commit order */
    uint64_t billboard_version; /* as echoed by the daemon */
    int status;                 /* HTTP status of the answer (201 when
                                 * stored; a replay may answer 200 or 201) */
};

/* POST /v1/episodes of e (borrowed) with Authorization: Bearer <token> and
 * Idempotency-Key: key (borrowed, 1..128 printable ASCII; NULL = a fresh
 * random key, which makes the call unsafe to repeat after a crash — use the
 * state store or pass your own key for that). Retried on network errors and
 * 5xx with the same key and body; a 4xx is final. *receipt (may be NULL) is
 * filled on success. */
int bb_client_submit(struct bb_client *c, const struct bb_episode_buf *e, const char *key,
                     struct bb_client_receipt *receipt) BB_WARN_UNUSED;

/* Writes a fresh idempotency key (32 random bytes from libsodium, hex, 64
 * characters + NUL) into buf (borrowed, at least 65 bytes). */
void bb_client_new_key(char buf[65]);

/* ------------------------------------------------------------------ */
/* Local state store (needs state_path)                                */

/* Begins an episode in the state store with sizes H, A, d and the billboard
 * version the clinic's policy uses for it (normally
 * bb_client_billboard(c)->version); generates and stores its idempotency
 * key. *id receives the local id (> 0). Committed before it returns. */
int bb_client_episode_begin(struct bb_client *c, int H, int A, int d, uint64_t billboard_version,
                            int64_t *id) BB_WARN_UNUSED;

/* Appends the next step of episode id: features (borrowed, A*d doubles),
 * the chosen action, the observed reward. Committed before it returns.
 * BB_ENOTFOUND: no such open episode. BB_ERANGE: the episode already has H
 * steps. BB_EINVAL: action outside [0, A), reward outside [0,1], a feature
 * row with ||phi|| > 1 or a non-finite number (reject, never clip). */
int bb_client_episode_step(struct bb_client *c, int64_t id, const double *features, int action,
                           double reward) BB_WARN_UNUSED;

/* Marks episode id finished: it joins the unsent queue. BB_ERANGE if it has
 * fewer than H steps; BB_ENOTFOUND if there is no such open episode. */
int bb_client_episode_finish(struct bb_client *c, int64_t id) BB_WARN_UNUSED;

/* Drops an open (unfinished) episode. BB_ENOTFOUND if there is none. */
int bb_client_episode_abort(struct bb_client *c, int64_t id) BB_WARN_UNUSED;

/* The most recently begun episode that is still open: *id and *steps (steps
 * recorded so far, may be NULL). BB_ENOTFOUND if none is open. Used to resume
 * after a crash. */
int bb_client_episode_current(struct bb_client *c, int64_t *id, int *steps) BB_WARN_UNUSED;

/* Adds a finished episode e (borrowed) straight to the unsent queue with a
 * fresh key (or key, copied, if not NULL). *id (may be NULL) receives its
 * local id. */
int bb_client_enqueue(struct bb_client *c, const struct bb_episode_buf *e, const char *key,
                      int64_t *id) BB_WARN_UNUSED;

/* Loads local episode id (open or finished) into *out (must be zeroed or
 * released; caller owns it afterwards) and its key into key (borrowed
 * buffer, BB_CLIENT_KEY_MAX + 1 bytes; may be NULL). *steps (may be NULL)
 * receives the steps recorded. */
int bb_client_episode_load(struct bb_client *c, int64_t id, struct bb_episode_buf *out, char *key,
                           int *steps) BB_WARN_UNUSED;

/* Counts of the state store: open episodes and finished unsent ones. */
int bb_client_pending(struct bb_client *c, long *open, long *unsent) BB_WARN_UNUSED;

/* One episode of the state store, as bb_client_episodes lists it. */
struct bb_client_episode_row {
    int64_t id;                /* local id */
    const char *state;         /* static: "open", "unsent", "sent" or "rejected" */
    int steps, H;              /* steps recorded so far, of H */
    int64_t billboard_version; /* the version its policy used */
    int64_t episode;           /* the daemon's index k; -1 until acknowledged */
    char created[32];          /* RFC 3339 UTC to the second, "YYYY-MM-DDThh:mm:ssZ" */
    char *reason;              /* owned: why the daemon refused it; NULL if it did not */
};

/* The episodes of the state store; rows owned (n entries). */
struct bb_client_episode_list {
    size_t n;
    struct bb_client_episode_row *rows;
};

/* Frees l's rows and empties it. NULL is a no-op. */
void bb_client_episode_list_release(struct bb_client_episode_list *l);

/* Every episode of the state store, oldest first, into *out (empty or
 * released by the caller; the caller releases it afterwards, also on
 * error). */
int bb_client_episodes(struct bb_client *c, struct bb_client_episode_list *out) BB_WARN_UNUSED;

/* Deletes from the state store every episode the daemon has acknowledged,
 * features and all (data minimisation: the daemon holds them now). Open,
 * unsent and rejected episodes stay. *pruned (may be NULL) receives how
 * many were deleted. */
int bb_client_prune(struct bb_client *c, long *pruned) BB_WARN_UNUSED;

/* Called by bb_client_flush after every episode: done of total handled. */
typedef void (*bb_client_progress_fn)(void *user, size_t done, size_t total);

/* Sends every finished unsent episode, oldest first, each with its stored
 * key; an acknowledged one is marked sent with its receipt. Stops at the
 * first error that is not specific to one episode (network, 5xx after the
 * retries, 401, K_max) and returns it; an episode the daemon rejects as
 * invalid (422/400/409 key conflict), or that fails the local validation, is
 * marked rejected, kept in the file for inspection, and the flush goes on;
 * the return value is then the first such error. progress (may be NULL) is
 * called with user after each episode. *sent (may be NULL) receives the
 * number acknowledged in this call. */
int bb_client_flush(struct bb_client *c, bb_client_progress_fn progress, void *user,
                    size_t *sent) BB_WARN_UNUSED;

/* ------------------------------------------------------------------ */
/* Public information                                                  */

/* GET /v1/privacy decoded into *out (overwritten on success;
 * billboard/privacy.h). BB_EPROTO, with the reason in the last answer's
 * detail, if the answer is not a privacy budget. */
int bb_client_privacy(struct bb_client *c, struct bb_privacy_budget *out) BB_WARN_UNUSED;

/* GET /v1/config decoded into *out (zeroed or released by the caller; the
 * caller releases it with bb_config_info_release afterwards, also on error;
 * billboard/config_info.h). BB_EPROTO, with the reason in the last answer's
 * detail, if the answer is not a configuration. */
int bb_client_config(struct bb_client *c, struct bb_config_info *out) BB_WARN_UNUSED;

/* Whether the A feature rows (A x d, row-major) lie in the feature set
 * the deployment declared ("features" of GET /v1/config: ball, simplex or
 * onehot), as the daemon will check them at submit. The set is the one the
 * state file keeps (every bb_client_config keeps it), else fetched once.
 * BB_OK also when the set cannot be learnt (the daemon still checks);
 * BB_EINVAL with title "invalid features" and the daemon's words as detail
 * ("/features/1: feature 0 is negative; ..."). bb_client_episode_step
 * checks each step the same way, against the kept set only. */
int bb_client_check_features(struct bb_client *c, const double *features, int A,
                             int d) BB_WARN_UNUSED;

/* The sizes of the deployment, from GET /v1/config. */
int bb_client_sizes(struct bb_client *c, int *H, int *A, int *d) BB_WARN_UNUSED;

/* ------------------------------------------------------------------ */
/* Administration (needs bb_client_set_admin_token)                    */

/* POST /v1/clinics {"name": name (borrowed)}: *out receives the new
 * clinic (billboard/clinic.h) with its token, which the daemon shows only
 * this once: the caller should store it and wipe out->token promptly
 * (sodium_memzero). Not retried. Times ("created", "revoked") are Unix
 * seconds, as the API sends them. */
int bb_client_clinic_add(struct bb_client *c, const char *name,
                         struct bb_clinic *out) BB_WARN_UNUSED;

/* GET /v1/clinics into *out (empty or released by the caller; the caller
 * releases it with bb_clinic_list_release afterwards, also on error). */
int bb_client_clinic_list(struct bb_client *c, struct bb_clinic_list *out) BB_WARN_UNUSED;

/* DELETE /v1/clinics/{id}: revokes clinic id (borrowed string). */
int bb_client_clinic_revoke(struct bb_client *c, const char *id) BB_WARN_UNUSED;

#endif
