/*
 * auth.h — bearer tokens: the admin token and the clinics' tokens.
 *
 * A clinic token is "bbt_" + 32 random bytes in unpadded base64url, shown
 * once when the clinic is enrolled. Only its keyed BLAKE2b-256 hash
 * (crypto_generichash under a 32-byte server key kept in the database's
 * meta table) is stored; a presented token is hashed the same way and
 * compared with sodium_memcmp against every enrolled hash. The admin token
 * is held only as the same kind of hash. All plaintext tokens are wiped
 * with sodium_memzero once hashed.
 *
 * The registry is shared by the HTTP threads (lookups) and the writer
 * (enrol, revoke); a rwlock guards it.
 */
#ifndef BB_AUTH_H
#define BB_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "billboard/err.h"

#define BB_AUTH_KEY       32
#define BB_AUTH_HASH      32
#define BB_AUTH_TOKEN_MAX 64 /* bytes of a token string, NUL included */

struct bb_auth;

/* New registry hashing under key (copied). BB_OK or BB_ENOMEM. */
int bb_auth_new(const unsigned char *key, struct bb_auth **out) BB_WARN_UNUSED;
/* Wipes the key and frees. NULL is a no-op. */
void bb_auth_free(struct bb_auth *a);

/* Sets the admin token (borrowed, len bytes; the caller wipes its copy).
 * BB_EINVAL if shorter than 16 bytes. Without it every admin call is 401. */
int bb_auth_set_admin(struct bb_auth *a, const char *token, size_t len) BB_WARN_UNUSED;

/* The keyed hash of a token. */
void bb_auth_hash(const struct bb_auth *a, const char *token, size_t len,
                  unsigned char out[BB_AUTH_HASH]);

/* A fresh clinic token into out (BB_AUTH_TOKEN_MAX bytes). */
void bb_auth_new_token(char out[BB_AUTH_TOKEN_MAX]);

/* Registry changes (writer thread, after the change is committed). */
int bb_auth_add(struct bb_auth *a, int64_t id, const unsigned char *hash,
                int revoked) BB_WARN_UNUSED;
void bb_auth_revoke(struct bb_auth *a, int64_t id);
/* Undoes bb_auth_revoke of a revocation whose commit failed: the clinic is
 * active again, as the database still has it. */
void bb_auth_reinstate(struct bb_auth *a, int64_t id);
/* 1 if clinic id is enrolled and not revoked. */
int bb_auth_active(struct bb_auth *a, int64_t id);

/* Checks an Authorization header value (may be NULL) against the admin
 * token / the active clinics. BB_OK (and *clinic) or BB_EAUTH. */
int bb_auth_admin(struct bb_auth *a, const char *authorization) BB_WARN_UNUSED;
int bb_auth_clinic(struct bb_auth *a, const char *authorization, int64_t *clinic) BB_WARN_UNUSED;

#endif
