/*
 * transport.h — one HTTP exchange with billboardd over libcurl (library-internal).
 *
 * A struct transport wraps one reusable curl easy handle, so consecutive
 * requests of a client share a keep-alive connection. It knows nothing of
 * the API: it sends a method, URL, headers and body, and collects the status,
 * the body, and the ETag, Content-Type and Retry-After headers. Retries live in
 * client_request.c, the policy for them in retry.c.
 */
#ifndef BB_CLIENT_TRANSPORT_H
#define BB_CLIENT_TRANSPORT_H

#include <stddef.h>

#include "billboard/err.h"

#define TRANSPORT_ETAG_MAX 256

struct transport;

/* One answer. body is owned by the response (transport_resp_release). */
struct transport_resp {
    long status; /* 0 if no answer was received */
    char *body;  /* NUL-terminated, may be NULL if empty */
    size_t len;
    char etag[TRANSPORT_ETAG_MAX]; /* "" if absent */
    char ctype[128];               /* Content-Type, "" if absent */
    char retry_after[64];          /* Retry-After as sent, "" if absent */
};

/* New transport; caller owns it (transport_free). NULL on ENOMEM or if
 * libcurl cannot be initialised. Initialises libcurl globally once. */
struct transport *transport_new(void);
void transport_free(struct transport *t);

/* Trusts only the CA certificates in the PEM file at path (copied) for
 * https:// URLs, instead of the system's store; NULL goes back to the
 * system's store. Peer and host name verification are always on. BB_OK or
 * BB_ENOMEM. */
int transport_set_cacert(struct transport *t, const char *path) BB_WARN_UNUSED;

/* Performs one request. headers: NULL-terminated array of "Name: value"
 * lines (borrowed); body/len the request body (borrowed; NULL for none).
 * timeout_ms bounds the whole exchange. On BB_OK an HTTP answer was received
 * (any status) and *r holds it (release it in every case). On BB_ENET no
 * answer was received and err (borrowed buffer, may be NULL) holds libcurl's
 * message; BB_ETLS likewise when TLS refused the daemon's certificate (or
 * the CA file), which no retry can mend. BB_ENOMEM on allocation failure. */
int transport_do(struct transport *t, const char *method, const char *url,
                 const char *const *headers, const char *body, size_t len, long timeout_ms,
                 struct transport_resp *r, char *err, size_t errlen) BB_WARN_UNUSED;

void transport_resp_release(struct transport_resp *r);

#endif
