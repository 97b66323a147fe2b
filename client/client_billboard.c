/*
 * client_billboard.c — the billboard on the clinic's side: GET
 * /v1/billboard with If-None-Match of the cached ETag, the copy kept in the
 * state file for the next process and for outages, and past versions.
 */
#include "client_impl.h"

#include <stdio.h>
#include <string.h>

/* Parses and factors a billboard body into *out (zeroed on error). */
static int parse_billboard(struct bb_client *c, const struct transport_resp *r,
                           struct bb_billboard *out)
{
    char why[256] = "";
    int rc = bb_billboard_from_json(r->body ? r->body : "", r->len, out, why, sizeof(why));
    if (rc != BB_OK) {
        client_say(c, "malformed billboard", why);
        goto out;
    }
    rc = bb_billboard_factor(out);
    if (rc != BB_OK) {
        client_say(c, "billboard not usable", "a Gram matrix is not positive definite");
        bb_billboard_release(out);
        rc = BB_EPROTO;
    }
out:
    return rc;
}

/* Installs the billboard cached in the state file, once per client, so a
 * new process asks with If-None-Match and still has a billboard when the
 * daemon is away. Best effort: a missing or unreadable cache is ignored. */
static void load_cached(struct bb_client *c)
{
    struct transport_resp r = {0};
    struct bb_billboard nb = {0};
    char etag[TRANSPORT_ETAG_MAX];
    if (c->have_bb || c->cache_tried || !c->st)
        return;
    c->cache_tried = 1;
    if (statestore_cache_get(c->st, c->base, &r.body, &r.len, etag, sizeof(etag)) != BB_OK)
        return;
    if (parse_billboard(c, &r, &nb) == BB_OK) {
        c->bb = nb;
        c->have_bb = 1;
        snprintf(c->etag, sizeof(c->etag), "%s", etag);
    }
    c->title[0] = c->detail[0] = '\0';
    transport_resp_release(&r);
}

int bb_client_fetch_billboard(struct bb_client *c, int *changed)
{
    struct transport_resp r;
    struct bb_billboard nb = {0};
    char inm[TRANSPORT_ETAG_MAX + 32];
    const char *extra[2] = {NULL, NULL};

    if (changed)
        *changed = 0;
    load_cached(c);
    if (c->have_bb && c->etag[0]) {
        snprintf(inm, sizeof(inm), "If-None-Match: %s", c->etag);
        extra[0] = inm;
    }
    int rc = client_request(c, "GET", "/v1/billboard", AUTH_NONE, extra, NULL, 0, 1, &r);
    if (rc != BB_OK)
        goto out;
    if (r.status == 304) {
        if (!c->have_bb) { /* we sent no If-None-Match: not a valid answer */
            client_say(c, "unexpected 304", "304 without a conditional request");
            rc = BB_EPROTO;
        }
        goto out; /* a 304 costs no parsing */
    }
    rc = parse_billboard(c, &r, &nb);
    if (rc != BB_OK)
        goto out;
    bb_billboard_release(&c->bb);
    c->bb = nb;
    c->have_bb = 1;
    snprintf(c->etag, sizeof(c->etag), "%s", r.etag);
    if (changed)
        *changed = 1;
    /* Best effort: a cache that cannot be written only costs a full GET. */
    if (c->st && r.etag[0] && statestore_cache_put(c->st, c->base, r.body, r.len, r.etag) != BB_OK)
        c->cache_tried = 1; /* nothing to do: the next process fetches in full */
out:
    transport_resp_release(&r);
    return rc;
}

const struct bb_billboard *bb_client_billboard(const struct bb_client *c)
{
    return c->have_bb ? &c->bb : NULL;
}

const char *bb_client_billboard_etag(const struct bb_client *c)
{
    return c->have_bb ? c->etag : "";
}

int bb_client_get_billboard_version(struct bb_client *c, uint64_t version, struct bb_billboard *out)
{
    struct transport_resp r;
    char path[64];
    memset(out, 0, sizeof(*out));
    snprintf(path, sizeof(path), "/v1/billboard/%llu", (unsigned long long)version);
    int rc = client_request(c, "GET", path, AUTH_NONE, NULL, NULL, 0, 1, &r);
    if (rc == BB_OK)
        rc = parse_billboard(c, &r, out);
    transport_resp_release(&r);
    return rc;
}
