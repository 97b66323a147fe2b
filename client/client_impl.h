/*
 * client_impl.h — what the files of libbillboard's client share
 * (library-internal; the API is include/billboard/client.h).
 *
 * struct bb_client is defined here so each concept of the API can live in
 * its own file:
 *
 *   client.c            lifecycle, policy setters, the last answer
 *   client_request.c    one API call: headers, retries, problem+json
 *   client_billboard.c  the billboard: fetch, ETag, the state file's cache
 *   client_recommend.c  recommendations, local and remote
 *   client_submit.c     idempotency keys and POST /v1/episodes
 *   client_episodes.c   the local episode store and the flush
 *   client_info.c       public information: privacy, config, sizes
 *   client_admin.c      clinic administration
 */
#ifndef BB_CLIENT_IMPL_H
#define BB_CLIENT_IMPL_H

#include <stddef.h>

#include "billboard/client.h"
#include "featureset.h"
#include "statestore.h"
#include "transport.h"

/* Which credentials a call sends. */
enum client_auth { AUTH_NONE, AUTH_CLINIC, AUTH_ADMIN };

struct bb_client {
    char *base;            /* owned, no trailing '/' */
    char *token;           /* owned, wiped on free */
    char *admin;           /* owned, wiped on free */
    struct transport *tp;  /* owned */
    struct statestore *st; /* owned; NULL without a state file */
    struct bb_client_retry retry;
    struct bb_billboard bb; /* owned: cached, factored when have_bb */
    int have_bb;
    int cache_tried; /* the state file's cached billboard was looked at */
    char etag[TRANSPORT_ETAG_MAX];
    int status, attempts;
    char title[256];
    char detail[1024];
};

/* The feature set the deployment declared: the one the state file keeps
 * for this server, else (may_fetch) GET /v1/config's. BB_OK, or
 * BB_ENOTFOUND if it is not known (*out is then the ball). */
int client_feature_set(struct bb_client *c, int may_fetch, enum bb_feature_set *out);
/* BB_OK if the A rows (A x d) lie in set; else BB_EINVAL with title
 * "invalid features" and "PREFIX/features/a: <the daemon's words>". */
int client_rows_in_set(struct bb_client *c, enum bb_feature_set set, const double *features,
                       int A, int d, const char *prefix);

/* Initialises libsodium once per process. BB_OK, or BB_ENOMEM if it could
 * not be initialised. */
int client_sodium_init(void);

/* Wipes (sodium_memzero) and frees the string s (taken); NULL is a no-op. */
void client_free_secret(char *s);

/* Sets the last answer's title and detail (both borrowed, copied). */
void client_say(struct bb_client *c, const char *title, const char *detail);

/* Starts a local call: clears status, attempts, title and detail, since the
 * last answer no longer describes it. */
void client_forget_answer(struct bb_client *c);

/* One API call: method on base + path, with the credentials of `auth`, the
 * extra header lines (borrowed, NULL-terminated, may be NULL) and body
 * (borrowed, len bytes, NULL for none). Retries transient failures within
 * c's policy when `retryable`. BB_OK means a 2xx or 304 answer is in *r
 * (caller releases it with transport_resp_release); on error *r is released
 * and c's title and detail say why. */
int client_request(struct bb_client *c, const char *method, const char *path, enum client_auth auth,
                   const char *const *extra, const char *body, size_t len, int retryable,
                   struct transport_resp *r) BB_WARN_UNUSED;

/* After decoding an answer: when rc is an error, says "malformed answer"
 * with why in c. Returns rc. */
int client_decoded(struct bb_client *c, int rc, const char *why);

/* The shape of proto/'s decoders: buf (len bytes) into the struct at out. */
typedef int (*client_decoder)(const char *buf, size_t len, void *out, char *why, size_t whylen);

/* GET path (retried) and its answer decoded by dec into out. BB_EPROTO,
 * with the reason in c, if the answer does not decode. */
int client_get_decoded(struct bb_client *c, const char *path, enum client_auth auth,
                       client_decoder dec, void *out) BB_WARN_UNUSED;

/* 1 if key (borrowed) is a valid Idempotency-Key: 1 to BB_CLIENT_KEY_MAX
 * printable ASCII characters. */
int client_key_ok(const char *key);

/* Checks episode e (borrowed) locally, before it costs a round trip; on
 * failure returns its enum bb_err and says why in c. */
int client_check_episode(struct bb_client *c, const struct bb_episode_buf *e) BB_WARN_UNUSED;

#endif
