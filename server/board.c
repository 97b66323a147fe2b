/*
 * board.c — published billboards (board.h).
 */
#include "board.h"

#include <microhttpd.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "billboard/codec.h"

void bb_board_etag(uint64_t version, const char *body, size_t len, char out[BB_ETAG_MAX])
{
    unsigned char h[8];
    char hex[17];
    crypto_generichash(h, sizeof(h), (const unsigned char *)body, len, NULL, 0);
    sodium_bin2hex(hex, sizeof(hex), h, sizeof(h));
    snprintf(out, BB_ETAG_MAX, "\"v%llu-%s\"", (unsigned long long)version, hex);
}

int bb_board_new(const char *body, size_t len, const struct bb_billboard *factored,
                 struct bb_board **out)
{
    int rc = BB_ENOMEM;
    struct bb_board *b = calloc(1, sizeof(*b));
    *out = NULL;
    if (!b)
        goto out;
    atomic_init(&b->ref, 1);
    if (!(b->body = malloc(len + 1)))
        goto out;
    memcpy(b->body, body, len);
    b->body[len] = '\0';
    b->len = len;
    if (factored) {
        if ((rc = bb_billboard_copy(&b->bb, factored)) != BB_OK)
            goto out;
    } else if ((rc = bb_billboard_from_json(body, len, &b->bb, NULL, 0)) != BB_OK) {
        goto out;
    }
    if (!b->bb.factored && (rc = bb_billboard_factor(&b->bb)) != BB_OK)
        goto out;
    b->version = b->bb.version;
    bb_board_etag(b->version, body, len, b->etag);
    rc = BB_ENOMEM;
    /* The response owns a copy, so it may outlive this board while MHD sends it. */
    b->resp = MHD_create_response_from_buffer(b->len, b->body, MHD_RESPMEM_MUST_COPY);
    if (!b->resp)
        goto out;
    if (MHD_add_response_header(b->resp, "Content-Type", "application/json") != MHD_YES ||
        MHD_add_response_header(b->resp, "ETag", b->etag) != MHD_YES ||
        MHD_add_response_header(b->resp, "Cache-Control", "no-cache") != MHD_YES)
        goto out;
    *out = b;
    return BB_OK;
out:
    bb_board_put(b);
    return rc;
}

void bb_board_put(struct bb_board *b)
{
    if (!b || atomic_fetch_sub(&b->ref, 1) != 1)
        return;
    /* MHD holds its own reference to resp while a connection sends it. */
    if (b->resp)
        MHD_destroy_response(b->resp);
    bb_billboard_release(&b->bb);
    free(b->body);
    free(b);
}

void bb_board_slot_init(struct bb_board_slot *s)
{
    pthread_mutex_init(&s->mu, NULL);
    s->cur = NULL;
}

void bb_board_slot_release(struct bb_board_slot *s)
{
    bb_board_put(s->cur);
    s->cur = NULL;
    pthread_mutex_destroy(&s->mu);
}

struct bb_board *bb_board_get(struct bb_board_slot *s)
{
    pthread_mutex_lock(&s->mu);
    struct bb_board *b = s->cur;
    if (b)
        atomic_fetch_add(&b->ref, 1);
    pthread_mutex_unlock(&s->mu);
    return b;
}

void bb_board_swap(struct bb_board_slot *s, struct bb_board *b)
{
    pthread_mutex_lock(&s->mu);
    struct bb_board *old = s->cur;
    s->cur = b;
    pthread_mutex_unlock(&s->mu);
    bb_board_put(old);
}
