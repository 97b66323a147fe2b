/*
 * policy.h — the action table of a billboard over a finite environment.
 *
 * A clinic acts by bb_billboard_act() (the one policy function, proto/).
 * Over a finite state space that policy is a table pi_h(s); the simulator
 * computes it once per billboard version (S*H calls of the policy) so that
 * playing an episode is a lookup and the policy can be evaluated exactly.
 */
#ifndef BB_SIM_POLICY_H
#define BB_SIM_POLICY_H

#include "billboard/billboard.h"
#include "env.h"

/* A table entry: a uniformly random action (a billboard with b->uniform). */
#define BB_SIM_UNIFORM (-1)

/* pi[h*S + s] = the action of bb_billboard_act_episode(b, h+1, phi(s, .), z_h)
 * for every step and state, z_h episode_key's direction for step h+1; pi is
 * caller-owned, H*S. For a billboard with b->uniform the table is one
 * episode's: with episode_key, the random policies that episode draws
 * (proto/explore.c), without it BB_SIM_UNIFORM everywhere; otherwise the key
 * is not read and the table is the version's. b must be factored and of
 * env's sizes (H, d, A): BB_EINVAL otherwise; errors of the policy are
 * returned. */
int bb_sim_policy_table(const struct bb_sim_env *env, const struct bb_billboard *b,
                        const char *episode_key, int *pi) BB_WARN_UNUSED;

/* A fresh episode key for the simulator's clinics: 32 bytes of rng as hex. */
struct bb_rng;
void bb_sim_episode_key(struct bb_rng *rng, char key[65]);

#endif
