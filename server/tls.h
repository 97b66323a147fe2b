/*
 * tls.h — billboardd's certificate and key for HTTPS, and their reload.
 *
 * libmicrohttpd does the TLS (GnuTLS inside it); this module gives it the
 * certificate chain and private key through MHD_OPTION_HTTPS_CERT_CALLBACK,
 * so that a SIGHUP can swap in a renewed pair without restarting the server:
 * every new handshake asks the callback, which answers with the pair loaded
 * last. Connections already open keep the pair they were made with.
 *
 * A pair is loaded from two PEM files: the certificate file holds the
 * server's certificate first, then any intermediates; the key file the
 * unencrypted private key. Loading checks that the key is the certificate's
 * (same public key), so a mismatched pair is refused before it is served. A
 * pair that fails to load leaves the one being served in place.
 *
 * The GnuTLS priority string (protocol versions and cipher suites) is
 * checked once at start; libmicrohttpd fixes it for the server's life.
 *
 * Threads: bb_tls_reload runs on one thread (main's); the callback runs on
 * the HTTP threads and only reads the current pair, swapped atomically.
 * Replaced pairs are kept until bb_tls_free, since a handshake in progress
 * may still hold one (a few kilobytes per reload).
 */
#ifndef BB_TLS_H
#define BB_TLS_H

#include <microhttpd.h>
#include <stddef.h>

#include "billboard/err.h"

/* The default priority string: TLS 1.3 and 1.2 only, AEAD ciphers only,
 * forward-secret key exchange only. */
#define BB_TLS_PRIORITIES_DEFAULT                                                                  \
    "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-CIPHER-ALL:+AES-256-GCM:+CHACHA20-POLY1305:"      \
    "+AES-128-GCM:-MAC-ALL:+AEAD:-KX-ALL:+ECDHE-ECDSA:+ECDHE-RSA:+DHE-RSA"

struct bb_tls;

/* Loads the pair from cert_path and key_path and checks priorities (a
 * GnuTLS priority string; NULL for BB_TLS_PRIORITIES_DEFAULT). The three
 * strings are copied. On success *out is new (caller owns, bb_tls_free).
 * Errors, with a sentence naming the file or flag in why: BB_EINVAL (this
 * libmicrohttpd has no TLS, a file that is not the PEM it should be, a key
 * that is not the certificate's, a priority string GnuTLS refuses), BB_EIO
 * (a file cannot be read), BB_ENOMEM. */
int bb_tls_open(const char *cert_path, const char *key_path, const char *priorities,
                struct bb_tls **out, char *why, size_t whylen) BB_WARN_UNUSED;

/* Reads the two files again and, if they hold a valid pair, serves it to
 * every handshake from now on. Errors as bb_tls_open; on error the pair
 * served before is kept. */
int bb_tls_reload(struct bb_tls *t, char *why, size_t whylen) BB_WARN_UNUSED;

/* Describes the pair being served in buf: its subject, SHA-256 fingerprint
 * and expiry, e.g. "CN=localhost, SHA-256 AB:CD:..., valid until
 * 2027-01-01 00:00 UTC". */
void bb_tls_describe(const struct bb_tls *t, char *buf, size_t len);

/* Fills items (three entries) with the libmicrohttpd options serving t:
 * the certificate callback, the priority string and MHD_OPTION_END; pass
 * them with MHD_OPTION_ARRAY to a daemon started with MHD_USE_TLS. One
 * bb_tls may be served per process (the callback has no closure); t must
 * outlive the daemon. */
void bb_tls_mhd_options(struct bb_tls *t, struct MHD_OptionItem items[3]);

/* Frees t and every pair it loaded. Call after the daemon serving it has
 * stopped. NULL is a no-op. */
void bb_tls_free(struct bb_tls *t);

#endif
