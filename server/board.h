/*
 * board.h — the billboard being served, pre-serialised and refcounted.
 *
 * A struct bb_board is one published version, immutable once made: the
 * exact bytes stored in the database, their strong ETag, a ready-made
 * libmicrohttpd response (so GET /v1/billboard does no JSON work and no
 * copy) and the factored billboard for POST /v1/recommend. The writer
 * stores a version first and only then swaps it into the slot; readers take
 * a reference, use it, and drop it.
 */
#ifndef BB_BOARD_H
#define BB_BOARD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "billboard/billboard.h"
#include "billboard/err.h"

#define BB_ETAG_MAX 48

struct MHD_Response;

struct bb_board {
    atomic_int ref;
    uint64_t version;
    char *body; /* owned: the served bytes */
    size_t len;
    char etag[BB_ETAG_MAX];    /* quoted strong ETag */
    struct bb_billboard bb;    /* owned, factored */
    struct MHD_Response *resp; /* owned reference: 200 with ETag */
};

/* The strong ETag of a billboard's bytes: "\"v<version>-<16 hex of BLAKE2b>\"". */
void bb_board_etag(uint64_t version, const char *body, size_t len, char out[BB_ETAG_MAX]);

/* A board for body (copied). factored may be NULL: the body is then parsed
 * and factored. The new board holds one reference. Returns BB_OK, BB_ENOMEM,
 * BB_EPROTO (body does not parse) or BB_ENOTPD. */
int bb_board_new(const char *body, size_t len, const struct bb_billboard *factored,
                 struct bb_board **out) BB_WARN_UNUSED;
/* Drops a reference; the last one frees. NULL is a no-op. */
void bb_board_put(struct bb_board *b);

/* The slot holding the current board. */
struct bb_board_slot {
    pthread_mutex_t mu;
    struct bb_board *cur; /* owned reference */
};

void bb_board_slot_init(struct bb_board_slot *s);
void bb_board_slot_release(struct bb_board_slot *s);
/* A new reference to the current board (caller puts it); never NULL once
 * the daemon serves. */
struct bb_board *bb_board_get(struct bb_board_slot *s);
/* Makes b current, taking the caller's reference. */
void bb_board_swap(struct bb_board_slot *s, struct bb_board *b);

#endif
