/*
 * policy.c — a billboard's action table over a finite environment (policy.h).
 */
#include "policy.h"

#include <stdlib.h>

#include "engine/rng.h"

int bb_sim_policy_table(const struct bb_sim_env *env, const struct bb_billboard *b,
                        const char *episode_key, int *pi)
{
    if (b->H != env->H || b->d != env->d || b->A != env->A)
        return BB_EINVAL;
    if (b->uniform && !episode_key) { /* a fresh coin at every step (billboard.h) */
        for (size_t i = 0; i < (size_t)env->H * env->S; i++)
            pi[i] = BB_SIM_UNIFORM;
        return BB_OK;
    }
    double *q = malloc(sizeof(double) * (size_t)env->A), *z = NULL;
    int rc = q ? BB_OK : BB_ENOMEM;
    if (rc == BB_OK && b->uniform && !(z = malloc(sizeof(double) * (size_t)env->d)))
        rc = BB_ENOMEM;
    for (int h = 0; h < env->H && rc == BB_OK; h++) {
        if (z) /* the episode's direction for this step (proto/explore.c) */
            rc = bb_explore_direction(episode_key, h + 1, env->d, z);
        for (int s = 0; s < env->S && rc == BB_OK; s++)
            rc = bb_billboard_act_episode(b, h + 1, bb_sim_env_features(env, s), z, q,
                                          &pi[(size_t)h * env->S + s]);
    }
    free(q);
    free(z);
    return rc;
}

void bb_sim_episode_key(struct bb_rng *rng, char key[65])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[32];
    bb_rng_bytes(rng, raw, sizeof(raw));
    for (int i = 0; i < 32; i++) {
        key[2 * i] = hex[raw[i] >> 4];
        key[2 * i + 1] = hex[raw[i] & 15];
    }
    key[64] = '\0';
}
