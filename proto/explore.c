/*
 * explore.c — an episode's exploration directions: the random draws that
 * make the prior's random action consistent within an episode.
 *
 * While the billboard holds no data (b->uniform) the action is random. Drawn
 * afresh at every step it is a random walk, which on a chain-shaped MDP
 * (RiverSwim) almost never reaches the far end within H steps. Drawn once per
 * episode and played at every step it never tries, at a later step, another
 * action in a state it has already acted in, so the step-h regressions miss
 * those pairs (on the two-state fixture, a pair was never seen). The middle
 * way: step h plays a = argmax_a phi(x, a)^T z_h with
 *     z_h = c z_0 + sqrt(1 - c^2) xi_h,   z_0, xi_1, ..., xi_H ~ N(0, I_d),
 * c = BB_EXPLORE_PERSISTENCE: every z_h is N(0, I_d) and two steps' z are
 * correlated c^2. With one-hot features each step's action is uniform per
 * state, and a state keeps its action from one step to another with
 * probability 1/2 + arcsin(c^2)/pi (0.801 at c = 0.9). The draws read no
 * data: they are the prior's, and cost no privacy (docs/PRIVACY.md §3.1).
 *
 * The draws are a function of an episode key (any string the clinic keeps
 * for the episode; the CLI uses the episode's idempotency key), so that the
 * clinic, the daemon (POST /v1/recommend) and the simulator compute the same
 * action. A standard normal vector n(key, t), t = 0 for z_0 and t = h for xi_h:
 *     seed      = BLAKE2b-256("billboard/explore/1" NUL || t as 4 bytes LE || key)
 *     bytes     = randombytes_buf_deterministic(16 ceil(d/2), seed) (ChaCha20)
 *     u, v      = each 8-byte word (little-endian) -> ((w >> 11) + 1) 2^-53 in (0, 1]
 *     n_2i, n_2i+1 = sqrt(-2 ln u) (cos 2 pi v, sin 2 pi v)   (Box–Muller)
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

/* n(key, t) of the header into out (d entries). */
static int normal_vector(const char *key, uint32_t t, int d, double *out)
{
    size_t pairs = ((size_t)d + 1) / 2;
    unsigned char seed[randombytes_SEEDBYTES], *bytes = malloc(16 * pairs);
    const unsigned char tb[4] = {(unsigned char)t, (unsigned char)(t >> 8),
                                 (unsigned char)(t >> 16), (unsigned char)(t >> 24)};
    if (!bytes)
        return BB_ENOMEM;
    crypto_generichash_state st;
    crypto_generichash_init(&st, NULL, 0, sizeof(seed));
    crypto_generichash_update(&st, (const unsigned char *)context, sizeof(context));
    crypto_generichash_update(&st, tb, sizeof(tb));
    crypto_generichash_update(&st, (const unsigned char *)key, strlen(key));
    crypto_generichash_final(&st, seed, sizeof(seed));
    randombytes_buf_deterministic(bytes, 16 * pairs, seed);
    for (size_t i = 0; i < pairs; i++) {
        double r = sqrt(-2.0 * log(unit(bytes + 16 * i)));
        double a = 2.0 * M_PI * unit(bytes + 16 * i + 8);
        out[2 * i] = r * cos(a);
        if (2 * i + 1 < (size_t)d)
            out[2 * i + 1] = r * sin(a);
    }
    sodium_memzero(seed, sizeof(seed));
    free(bytes);
    return BB_OK;
}

int bb_explore_direction(const char *episode_key, int h, int d, double *z)
{
    if (!episode_key || !episode_key[0] || d < 1 || h < 1)
        return BB_EINVAL;
    if (sodium_init() < 0)
        return BB_EIO;
    double *xi = malloc(sizeof(double) * (size_t)d);
    if (!xi)
        return BB_ENOMEM;
    const double c = BB_EXPLORE_PERSISTENCE, s = sqrt(1.0 - c * c);
    int rc = normal_vector(episode_key, 0, d, z);
    if (rc == BB_OK)
        rc = normal_vector(episode_key, (uint32_t)h, d, xi);
    for (int j = 0; rc == BB_OK && j < d; j++)
        z[j] = c * z[j] + s * xi[j];
    free(xi);
    return rc;
}
