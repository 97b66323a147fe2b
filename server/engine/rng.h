/*
 * rng.h — the engine's random stream: ChaCha20 keyed from libsodium's CSPRNG.
 *
 * bb_rng_init_secure() takes a fresh 256-bit key from randombytes_buf() (the
 * OS CSPRNG); the stream is then ChaCha20 (libsodium's
 * crypto_stream_chacha20_ietf) in 4 KiB blocks, so drawing millions of
 * numbers costs no system calls. bb_rng_init_seeded() derives the key from a
 * 64-bit seed: for tests and the simulator only, never for published noise
 * (billboardd refuses it).
 */
#ifndef BB_RNG_H
#define BB_RNG_H

#include <stdint.h>
#include <stddef.h>

#include "billboard/err.h"

#define BB_RNG_BLOCK 4096

struct bb_rng {
    unsigned char key[32];
    uint64_t block;  /* counter of the next block, used as the nonce */
    size_t pos;      /* next unread byte in buf */
    int deterministic;
    uint64_t bits;   /* unread random bits, for bb_rng_bit */
    int nbits;
    unsigned char buf[BB_RNG_BLOCK];
};

/* Keys r from the OS CSPRNG. Returns BB_OK, or BB_EIO if libsodium cannot
 * be initialised. */
int bb_rng_init_secure(struct bb_rng *r);

/* Keys r from seed: reproducible streams for tests and the simulator. */
void bb_rng_init_seeded(struct bb_rng *r, uint64_t seed);

/* Keys child with 32 bytes from parent: an independent stream (for a second
 * thread), secure if parent is; deterministic if parent is. */
void bb_rng_init_child(struct bb_rng *child, struct bb_rng *parent);

/* Wipes the key and buffer (sodium_memzero). */
void bb_rng_release(struct bb_rng *r);

void bb_rng_bytes(struct bb_rng *r, void *out, size_t n);
uint64_t bb_rng_u64(struct bb_rng *r);

/* One uniform random bit. */
int bb_rng_bit(struct bb_rng *r);

/* Uniform integer in [0, n), n >= 1, by rejection (no modulo bias). */
uint64_t bb_rng_below(struct bb_rng *r, uint64_t n);
unsigned __int128 bb_rng_below128(struct bb_rng *r, unsigned __int128 n);

/* Uniform double in [0, 1) with 53 random bits. For simulated environments,
 * never for privacy noise. */
double bb_rng_uniform(struct bb_rng *r);

#endif
