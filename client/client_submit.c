/*
 * client_submit.c — sending one episode: idempotency keys, the local check
 * of an episode before it costs a round trip, and POST /v1/episodes (its
 * 201 receipt decoded by proto/codec.c).
 */
#include "client_impl.h"

#include <sodium.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bb_client_new_key(char buf[65])
{
    unsigned char raw[32];
    (void)client_sodium_init(); /* a failure shows at bb_client_new */
    randombytes_buf(raw, sizeof(raw));
    sodium_bin2hex(buf, 65, raw, sizeof(raw));
    sodium_memzero(raw, sizeof(raw));
}

int client_key_ok(const char *key)
{
    size_t n = strlen(key);
    if (n < 1 || n > BB_CLIENT_KEY_MAX)
        return 0;
    for (const char *p = key; *p; p++)
        if (*p < 0x21 || *p > 0x7e)
            return 0;
    return 1;
}

int client_check_episode(struct bb_client *c, const struct bb_episode_buf *e)
{
    char field[128] = "", why[256] = "";
    struct bb_episode v = bb_episode_buf_view(e);
    int rc = bb_episode_check(&v, e->H, e->A, e->d, field, sizeof(field), why, sizeof(why));
    if (rc != BB_OK) {
        char detail[512];
        snprintf(detail, sizeof(detail), "%s: %s", field, why);
        client_say(c, "invalid episode", detail);
    }
    return rc;
}

int bb_client_submit(struct bb_client *c, const struct bb_episode_buf *e, const char *key,
                     struct bb_client_receipt *receipt)
{
    struct transport_resp r = {0};
    struct bb_receipt got;
    char *body = NULL, fresh[65], kh[BB_CLIENT_KEY_MAX + 32], why[256] = "";
    const char *extra[2] = {kh, NULL};
    size_t len = 0;
    int rc = BB_EINVAL;

    client_forget_answer(c);
    if (!key) {
        bb_client_new_key(fresh);
        key = fresh;
    }
    if (!client_key_ok(key)) {
        client_say(c, "bad idempotency key", "1 to 128 printable ASCII characters");
        goto out;
    }
    rc = client_check_episode(c, e);
    if (rc != BB_OK)
        goto out;
    rc = BB_ENOMEM;
    body = bb_episode_to_json(e, &len);
    if (!body)
        goto out;
    snprintf(kh, sizeof(kh), "Idempotency-Key: %s", key);
    rc = client_request(c, "POST", "/v1/episodes", AUTH_CLINIC, extra, body, len, 1, &r);
    if (rc != BB_OK)
        goto out;
    rc = bb_receipt_from_json(r.body, r.len, &got, why, sizeof(why));
    if (rc != BB_OK) {
        client_say(c, "malformed answer", why);
        goto out;
    }
    if (receipt) {
        receipt->episode = got.episode;
        /* A daemon that does not echo the version took the one asked for. */
        receipt->billboard_version =
            got.billboard_version != UINT64_MAX ? got.billboard_version : e->billboard_version;
        receipt->status = (int)r.status;
    }
out:
    free(body);
    transport_resp_release(&r);
    return rc;
}
