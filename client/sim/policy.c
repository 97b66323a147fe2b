/*
 * policy.c — a billboard's action table over a finite environment (policy.h).
 */
#include "policy.h"

#include <stdlib.h>
#include <string.h>

#include "engine/rng.h"

size_t bb_sim_sample_size(const struct bb_sim_env *env)
{
    return (size_t)env->H * env->S * env->A * (env->d + 1);
}

int bb_sim_policy_table(const struct bb_sim_env *env, const struct bb_billboard *b,
                        const char *episode_key, int *pi, unsigned char *set, double *sample)
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
        for (int s = 0; s < env->S && rc == BB_OK; s++) {
            const size_t i = (size_t)h * env->S + s;
            const double *x = bb_sim_env_features(env, s);
            if (b->uniform) {
                rc = bb_billboard_act_episode(b, h + 1, x, z, q, &pi[i]);
                continue;
            }
            /* The greedy action, the plausible set to draw from, or the
             * sample's rows. */
            if ((rc = bb_billboard_act_episode(b, h + 1, x, NULL, q, NULL)) != BB_OK)
                break;
            if (b->sample && b->sigma_y[h] > 0) {
                double *row = sample + i * env->A * (size_t)(env->d + 1);
                memcpy(row, q, sizeof(double) * (size_t)env->A);
                rc = bb_billboard_sample(b, h + 1, x, row + env->A);
                /* valued as the greedy action until an episode resolves it */
                memset(set + i * env->A, 0, (size_t)env->A);
                set[i * env->A + bb_argmax(q, env->A)] = 1;
                pi[i] = BB_SIM_SAMPLE;
                continue;
            }
            int n = bb_billboard_plausible(b, h + 1, x, q, set + i * env->A);
            rc = n < 0 ? n : BB_OK;
            pi[i] = n > 1 ? BB_SIM_SET : bb_argmax(q, env->A);
        }
    }
    free(q);
    free(z);
    return rc;
}

int bb_sim_policy_resolve(const struct bb_sim_env *env, const int *pi, const unsigned char *set,
                          const double *sample, const char *episode_key, int *out)
{
    const int S = env->S, A = env->A, d = env->d;
    double *z = malloc(sizeof(double) * (size_t)d);
    if (!z)
        return BB_ENOMEM;
    int rc = BB_OK;
    for (int h = 0; h < env->H && rc == BB_OK; h++) {
        int have = 0; /* the step's direction, drawn once it is needed */
        for (int s = 0; s < S; s++) {
            const size_t i = (size_t)h * S + s;
            out[i] = pi[i];
            if (pi[i] != BB_SIM_SET && pi[i] != BB_SIM_SAMPLE)
                continue;
            if (!have && (rc = bb_explore_direction(episode_key, h + 1, d, z)) != BB_OK)
                break;
            have = 1;
            if (pi[i] == BB_SIM_SAMPLE) {
                const double *row = sample + i * A * (size_t)(d + 1);
                out[i] = bb_sample_pick(A, d, row, row + A, z);
            } else {
                out[i] = bb_plausible_pick(A, d, bb_sim_env_features(env, s), set + i * A, z);
            }
        }
    }
    free(z);
    return rc;
}

int bb_sim_has_set(const struct bb_sim_env *env, const int *pi)
{
    for (size_t i = 0; i < (size_t)env->H * env->S; i++)
        if (pi[i] == BB_SIM_SET || pi[i] == BB_SIM_SAMPLE)
            return 1;
    return 0;
}

int bb_sim_policy_action(const struct bb_sim_env *env, const int *pi, const unsigned char *set,
                         int h, int s, struct bb_rng *rng)
{
    const int A = env->A;
    const size_t i = (size_t)h * env->S + s;
    int a = pi ? pi[i] : BB_SIM_UNIFORM;
    if (a == BB_SIM_UNIFORM)
        return (int)bb_rng_below(rng, (uint64_t)A);
    if (a != BB_SIM_SET)
        return a;
    const unsigned char *row = set + i * A;
    int n = 0;
    for (int b = 0; b < A; b++)
        n += row[b] != 0;
    int k = (int)bb_rng_below(rng, (uint64_t)n);
    for (a = 0; a < A; a++)
        if (row[a] && k-- == 0)
            break;
    return a;
}

int bb_sim_policy_play(const struct bb_sim_env *env, const int *pi, const unsigned char *set,
                       struct bb_rng *rng, double *features, int *action, double *reward)
{
    const int S = env->S, A = env->A;
    const size_t ad = (size_t)A * env->d;
    int x1 = bb_sim_env_reset(env, rng), s = x1;
    for (int h = 0; h < env->H; h++) {
        int a = bb_sim_policy_action(env, pi, set, h, s, rng);
        memcpy(features + h * ad, bb_sim_env_features(env, s), sizeof(double) * ad);
        action[h] = a;
        reward[h] = env->reward[((size_t)h * S + s) * A + a];
        s = bb_sim_env_step(env, h, s, a, rng);
    }
    return x1;
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
