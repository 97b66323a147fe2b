/*
 * auth.c — token hashing and the clinic registry (auth.h).
 */
#include "auth.h"

#include <pthread.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct entry {
    int64_t id;
    int revoked;
    unsigned char hash[BB_AUTH_HASH];
};

struct bb_auth {
    pthread_rwlock_t lock;
    unsigned char key[BB_AUTH_KEY];
    int has_admin;
    unsigned char admin[BB_AUTH_HASH];
    struct entry *v; /* owned */
    size_t n, cap;
};

int bb_auth_new(const unsigned char *key, struct bb_auth **out)
{
    struct bb_auth *a = calloc(1, sizeof(*a));
    *out = NULL;
    if (!a)
        return BB_ENOMEM;
    if (pthread_rwlock_init(&a->lock, NULL) != 0) {
        free(a);
        return BB_ENOMEM;
    }
    memcpy(a->key, key, BB_AUTH_KEY);
    *out = a;
    return BB_OK;
}

void bb_auth_free(struct bb_auth *a)
{
    if (!a)
        return;
    pthread_rwlock_destroy(&a->lock);
    sodium_memzero(a->key, sizeof(a->key));
    sodium_memzero(a->admin, sizeof(a->admin));
    free(a->v);
    free(a);
}

void bb_auth_hash(const struct bb_auth *a, const char *token, size_t len,
                  unsigned char out[BB_AUTH_HASH])
{
    crypto_generichash(out, BB_AUTH_HASH, (const unsigned char *)token, len, a->key, BB_AUTH_KEY);
}

int bb_auth_set_admin(struct bb_auth *a, const char *token, size_t len)
{
    if (len < 16)
        return BB_EINVAL;
    bb_auth_hash(a, token, len, a->admin);
    a->has_admin = 1;
    return BB_OK;
}

void bb_auth_new_token(char out[BB_AUTH_TOKEN_MAX])
{
    unsigned char raw[32];
    randombytes_buf(raw, sizeof(raw));
    memcpy(out, "bbt_", 4);
    sodium_bin2base64(out + 4, BB_AUTH_TOKEN_MAX - 4, raw, sizeof(raw),
                      sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    sodium_memzero(raw, sizeof(raw));
}

int bb_auth_add(struct bb_auth *a, int64_t id, const unsigned char *hash, int revoked)
{
    int rc = BB_ENOMEM;
    pthread_rwlock_wrlock(&a->lock);
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 16;
        struct entry *v = realloc(a->v, cap * sizeof(*v));
        if (!v)
            goto out;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n].id = id;
    a->v[a->n].revoked = revoked;
    memcpy(a->v[a->n].hash, hash, BB_AUTH_HASH);
    a->n++;
    rc = BB_OK;
out:
    pthread_rwlock_unlock(&a->lock);
    return rc;
}

static void set_revoked(struct bb_auth *a, int64_t id, int revoked)
{
    pthread_rwlock_wrlock(&a->lock);
    for (size_t i = 0; i < a->n; i++)
        if (a->v[i].id == id)
            a->v[i].revoked = revoked;
    pthread_rwlock_unlock(&a->lock);
}

void bb_auth_revoke(struct bb_auth *a, int64_t id)
{
    set_revoked(a, id, 1);
}

void bb_auth_reinstate(struct bb_auth *a, int64_t id)
{
    set_revoked(a, id, 0);
}

int bb_auth_active(struct bb_auth *a, int64_t id)
{
    int active = 0;
    pthread_rwlock_rdlock(&a->lock);
    for (size_t i = 0; i < a->n; i++)
        if (a->v[i].id == id)
            active = !a->v[i].revoked;
    pthread_rwlock_unlock(&a->lock);
    return active;
}

/* The token of "Bearer <token>", or NULL. */
static const char *bearer(const char *authorization, size_t *len)
{
    if (!authorization || strncasecmp(authorization, "Bearer ", 7) != 0)
        return NULL;
    const char *t = authorization + 7;
    while (*t == ' ')
        t++;
    size_t n = strlen(t);
    while (n > 0 && t[n - 1] == ' ')
        n--;
    if (n == 0 || n >= 1024)
        return NULL;
    *len = n;
    return t;
}

int bb_auth_admin(struct bb_auth *a, const char *authorization)
{
    size_t len;
    const char *t = bearer(authorization, &len);
    unsigned char h[BB_AUTH_HASH];
    if (!t || !a->has_admin)
        return BB_EAUTH;
    bb_auth_hash(a, t, len, h);
    return sodium_memcmp(h, a->admin, BB_AUTH_HASH) == 0 ? BB_OK : BB_EAUTH;
}

int bb_auth_clinic(struct bb_auth *a, const char *authorization, int64_t *clinic)
{
    size_t len;
    const char *t = bearer(authorization, &len);
    unsigned char h[BB_AUTH_HASH];
    int rc = BB_EAUTH;
    if (!t)
        return BB_EAUTH;
    bb_auth_hash(a, t, len, h);
    pthread_rwlock_rdlock(&a->lock);
    /* Compare against every entry so the time does not depend on which matched. */
    for (size_t i = 0; i < a->n; i++) {
        if (sodium_memcmp(h, a->v[i].hash, BB_AUTH_HASH) == 0 && !a->v[i].revoked) {
            *clinic = a->v[i].id;
            rc = BB_OK;
        }
    }
    pthread_rwlock_unlock(&a->lock);
    return rc;
}
