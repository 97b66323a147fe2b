/*
 * policy.c — a billboard's action table over a finite environment (policy.h).
 */
#include "policy.h"

#include <stdlib.h>

int bb_sim_policy_table(const struct bb_sim_env *env, const struct bb_billboard *b, int *pi)
{
    if (b->H != env->H || b->d != env->d || b->A != env->A)
        return BB_EINVAL;
    double *q = malloc(sizeof(double) * (size_t)env->A);
    if (!q)
        return BB_ENOMEM;
    int rc = BB_OK;
    if (b->uniform) { /* every action equally likely (billboard.h) */
        for (size_t i = 0; i < (size_t)env->H * env->S; i++)
            pi[i] = BB_SIM_UNIFORM;
        free(q);
        return BB_OK;
    }
    for (int h = 0; h < env->H && rc == BB_OK; h++)
        for (int s = 0; s < env->S && rc == BB_OK; s++)
            rc = bb_billboard_act(b, h + 1, bb_sim_env_features(env, s), q,
                                  &pi[(size_t)h * env->S + s]);
    free(q);
    return rc;
}
