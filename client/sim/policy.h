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

/* pi[h*S + s] = argmax_a of bb_billboard_act(b, h+1, phi(s, .)) for every
 * step and state, or BB_SIM_UNIFORM everywhere for a uniform billboard; pi is caller-owned, H*S. b must be factored and of env's
 * sizes (H, d, A): BB_EINVAL otherwise; errors of the policy are returned. */
int bb_sim_policy_table(const struct bb_sim_env *env, const struct bb_billboard *b,
                        int *pi) BB_WARN_UNUSED;

#endif
