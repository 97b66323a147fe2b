/*
 * explore.c — an episode's exploration direction: the one random draw that
 * makes the prior's random action consistent within an episode.
 *
 * While the billboard holds no data (b->uniform) the action is random. Drawn
 * afresh at every step it is a random walk, which on a chain-shaped MDP
 * (RiverSwim) almost never reaches the far end within H steps. Drawn once per
 * episode as a direction z ~ N(0, I_d) and played greedily at every step,
 * a = argmax_a phi(x, a)^T z, it is a deterministic policy chosen at random:
 * with one-hot (tabular) features, an independent uniformly random action
 * per state, kept for the whole episode, which crosses a chain of n states
 * with probability 2^-n instead of next to never. The draw reads no data: it
 * is the prior's, and costs no privacy (docs/PRIVACY.md §3.1).
 *
 * z is a function of an episode key (any string the clinic keeps for the
 * episode; the CLI uses the episode's idempotency key), so that the clinic,
 * the daemon (POST /v1/recommend) and the simulator compute the same draw:
 *     seed      = BLAKE2b-256("billboard/explore/1" NUL || key)
 *     bytes     = randombytes_buf_deterministic(16 ceil(d/2), seed) (ChaCha20)
 *     u, v      = each 8-byte word (little-endian) -> ((w >> 11) + 1) 2^-53 in (0, 1]
 *     z_2i, z_2i+1 = sqrt(-2 ln u) (cos 2 pi v, sin 2 pi v)   (Box–Muller)
 */
#include "billboard/billboard.h"

#include <math.h>
#include <sodium.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char context[] = "billboard/explore/1"; /* hashed with its NUL */

/* (0, 1] from 8 bytes, little-endian: 53 random bits, never 0. */
static double unit(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return ((double)(v >> 11) + 1.0) * 0x1.0p-53;
}

int bb_explore_direction(const char *episode_key, int d, double *z)
{
    if (!episode_key || !episode_key[0] || d < 1)
        return BB_EINVAL;
    if (sodium_init() < 0)
        return BB_EIO;
    size_t pairs = ((size_t)d + 1) / 2;
    unsigned char seed[randombytes_SEEDBYTES], *bytes = malloc(16 * pairs);
    if (!bytes)
        return BB_ENOMEM;
    crypto_generichash_state st;
    crypto_generichash_init(&st, NULL, 0, sizeof(seed));
    crypto_generichash_update(&st, (const unsigned char *)context, sizeof(context));
    crypto_generichash_update(&st, (const unsigned char *)episode_key, strlen(episode_key));
    crypto_generichash_final(&st, seed, sizeof(seed));
    randombytes_buf_deterministic(bytes, 16 * pairs, seed);
    for (size_t i = 0; i < pairs; i++) {
        double r = sqrt(-2.0 * log(unit(bytes + 16 * i)));
        double t = 2.0 * M_PI * unit(bytes + 16 * i + 8);
        z[2 * i] = r * cos(t);
        if (2 * i + 1 < (size_t)d)
            z[2 * i + 1] = r * sin(t);
    }
    sodium_memzero(seed, sizeof(seed));
    free(bytes);
    return BB_OK;
}
