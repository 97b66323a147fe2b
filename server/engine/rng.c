/*
 * rng.c — buffered ChaCha20 stream keyed from libsodium (see rng.h).
 */
#include "rng.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "billboard/err.h"

static void refill(struct bb_rng *r)
{
    /* ChaCha20 (IETF) keystream, one nonce per 4 KiB block: the block
     * counter is the nonce, so no block repeats for 2^64 refills. */
    unsigned char nonce[crypto_stream_chacha20_ietf_NONCEBYTES] = {0};
    for (int i = 0; i < 8; i++)
        nonce[i] = (unsigned char)(r->block >> (8 * i));
    crypto_stream_chacha20_ietf(r->buf, sizeof(r->buf), nonce, r->key);
    r->block++;
    r->pos = 0;
}

int bb_rng_init_secure(struct bb_rng *r)
{
    if (sodium_init() < 0)
        return BB_EIO;
    memset(r, 0, sizeof(*r));
    randombytes_buf(r->key, sizeof(r->key));
    r->pos = BB_RNG_BLOCK;
    return BB_OK;
}

void bb_rng_init_seeded(struct bb_rng *r, uint64_t seed)
{
    memset(r, 0, sizeof(*r));
    if (sodium_init() < 0)
        abort(); /* libsodium cannot run on this machine: nothing random is safe */
    unsigned char in[8];
    for (int i = 0; i < 8; i++)
        in[i] = (unsigned char)(seed >> (8 * i));
    crypto_generichash(r->key, sizeof(r->key), in, sizeof(in), NULL, 0);
    r->deterministic = 1;
    r->pos = BB_RNG_BLOCK;
}

void bb_rng_init_child(struct bb_rng *child, struct bb_rng *parent)
{
    unsigned char key[32];
    bb_rng_bytes(parent, key, sizeof(key));
    memset(child, 0, sizeof(*child));
    memcpy(child->key, key, sizeof(key));
    sodium_memzero(key, sizeof(key));
    child->deterministic = parent->deterministic;
    child->pos = BB_RNG_BLOCK;
}

void bb_rng_release(struct bb_rng *r)
{
    sodium_memzero(r, sizeof(*r));
}

void bb_rng_bytes(struct bb_rng *r, void *out, size_t n)
{
    unsigned char *o = out;
    while (n > 0) {
        if (r->pos == BB_RNG_BLOCK)
            refill(r);
        size_t take = BB_RNG_BLOCK - r->pos;
        if (take > n)
            take = n;
        memcpy(o, r->buf + r->pos, take);
        sodium_memzero(r->buf + r->pos, take);
        r->pos += take;
        o += take;
        n -= take;
    }
}

uint64_t bb_rng_u64(struct bb_rng *r)
{
    uint64_t v;
    if (r->pos + 8 > BB_RNG_BLOCK) {
        bb_rng_bytes(r, &v, sizeof(v));
        return v;
    }
    memcpy(&v, r->buf + r->pos, 8);
    r->pos += 8;
    return v;
}

int bb_rng_bit(struct bb_rng *r)
{
    if (r->nbits == 0) {
        r->bits = bb_rng_u64(r);
        r->nbits = 64;
    }
    int b = (int)(r->bits & 1);
    r->bits >>= 1;
    r->nbits--;
    return b;
}

uint64_t bb_rng_below(struct bb_rng *r, uint64_t n)
{
    if (n <= 1)
        return 0;
    /* Mask to the bit length of n-1 and reject: expected < 2 draws. */
    uint64_t m = n - 1;
    m |= m >> 1; m |= m >> 2; m |= m >> 4; m |= m >> 8; m |= m >> 16; m |= m >> 32;
    for (;;) {
        uint64_t v = bb_rng_u64(r) & m;
        if (v < n)
            return v;
    }
}

unsigned __int128 bb_rng_below128(struct bb_rng *r, unsigned __int128 n)
{
    if (n <= 1)
        return 0;
    if (n <= UINT64_MAX)
        return bb_rng_below(r, (uint64_t)n);
    unsigned __int128 m = n - 1;
    m |= m >> 1; m |= m >> 2; m |= m >> 4; m |= m >> 8; m |= m >> 16; m |= m >> 32; m |= m >> 64;
    for (;;) {
        unsigned __int128 v = ((unsigned __int128)bb_rng_u64(r) << 64) | bb_rng_u64(r);
        v &= m;
        if (v < n)
            return v;
    }
}

double bb_rng_uniform(struct bb_rng *r)
{
    return (double)(bb_rng_u64(r) >> 11) * 0x1.0p-53;
}
