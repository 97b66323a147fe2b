/*
 * client_request.c — one API call of libbillboard: the URL, the headers and
 * credentials, the retries of transient failures within the client's policy
 * (retry.c: backoff, Retry-After), and the status and problem+json
 * title/detail of the answer recorded for bb_client_last_*().
 */
#include "client_impl.h"

#include <jansson.h>

#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "retry.h"

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Reads the problem+json of an error answer into c->title/detail and
 * returns its enum bb_err. */
static int answer_err(struct bb_client *c, const struct transport_resp *r)
{
    /* The type URI decides (retry.h); title and detail are for people. */
    const char *title = NULL, *detail = NULL, *type = NULL, *pointer = NULL;
    json_t *j = NULL;
    char fallback[64], full[sizeof(c->detail)];

    if (r->body && r->len)
        j = json_loadb(r->body, r->len, 0, NULL);
    if (json_is_object(j)) {
        title = json_string_value(json_object_get(j, "title"));
        detail = json_string_value(json_object_get(j, "detail"));
        type = json_string_value(json_object_get(j, "type"));
        pointer = json_string_value(json_object_get(j, "pointer"));
    }
    snprintf(fallback, sizeof(fallback), "HTTP %ld", r->status);
    /* The JSON pointer of the offending field, when the daemon names one. */
    snprintf(full, sizeof(full), "%s%s%s%s", detail ? detail : "", pointer && detail ? " " : "",
             pointer ? "at " : "", pointer ? pointer : "");
    client_say(c, title ? title : fallback, full);
    int rc = retry_status_err(r->status, type);
    json_decref(j);
    return rc;
}

int client_request(struct bb_client *c, const char *method, const char *path, enum client_auth auth,
                   const char *const *extra, const char *body, size_t len, int retryable,
                   struct transport_resp *r)
{
    int rc = BB_ENOMEM;
    char *url = NULL, *authz = NULL;
    const char *hdr[12];
    size_t nh = 0;
    long start = now_ms();

    memset(r, 0, sizeof(*r));
    client_forget_answer(c);
    size_t ul = strlen(c->base) + strlen(path) + 1;
    url = malloc(ul);
    if (!url)
        goto out;
    snprintf(url, ul, "%s%s", c->base, path);

    hdr[nh++] = "Accept: application/json, application/problem+json";
    if (body)
        hdr[nh++] = "Content-Type: application/json";
    if (auth != AUTH_NONE) {
        const char *tok = auth == AUTH_CLINIC ? c->token : c->admin;
        if (!tok) {
            client_say(c, "no token",
                       auth == AUTH_CLINIC ? "this call needs a clinic token"
                                           : "this call needs the admin token");
            rc = BB_EAUTH;
            goto out;
        }
        size_t al = strlen(tok) + 32;
        authz = malloc(al);
        if (!authz)
            goto out;
        snprintf(authz, al, "Authorization: Bearer %s", tok);
        hdr[nh++] = authz;
    }
    for (const char *const *e = extra; e && *e && nh < sizeof(hdr) / sizeof(hdr[0]) - 1; e++)
        hdr[nh++] = *e;
    hdr[nh] = NULL;

    for (;;) {
        char neterr[256];
        long after = -1;
        c->attempts++;
        transport_resp_release(r);
        rc = transport_do(c->tp, method, url, hdr, body, len, c->retry.timeout_ms, r, neterr,
                          sizeof(neterr));
        if (rc == BB_ENET || rc == BB_ETLS) {
            c->status = 0;
            client_say(c, bb_strerror(rc), neterr);
        } else if (rc == BB_OK) {
            c->status = (int)r->status;
            rc = retry_status_err(r->status, NULL);
            if (rc != BB_OK)
                rc = answer_err(c, r);
            after = retry_after_ms(r->retry_after, time(NULL));
        }
        if (rc == BB_OK || !retryable || !retry_is_transient(rc))
            break;
        double jitter = (double)randombytes_uniform(1u << 20) / (double)(1u << 20);
        long wait = retry_next_wait_ms(&c->retry, c->attempts, jitter, c->status, after);
        if (!retry_allowed(&c->retry, c->attempts, now_ms() - start, wait))
            break;
        sleep_ms(wait);
    }
out:
    if (rc != BB_OK)
        transport_resp_release(r);
    free(url);
    client_free_secret(authz);
    return rc;
}

int client_decoded(struct bb_client *c, int rc, const char *why)
{
    if (rc != BB_OK)
        client_say(c, "malformed answer", why);
    return rc;
}

int client_get_decoded(struct bb_client *c, const char *path, enum client_auth auth,
                       client_decoder dec, void *out)
{
    struct transport_resp r;
    char why[256] = "";
    int rc = client_request(c, "GET", path, auth, NULL, NULL, 0, 1, &r);
    if (rc == BB_OK)
        rc = client_decoded(c, dec(r.body, r.len, out, why, sizeof(why)), why);
    transport_resp_release(&r);
    return rc;
}
