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
/* A table entry: an action drawn uniformly from the entry's plausible set,
 * the A bytes of set at (h*S + s)*A (bb_billboard_plausible). */
#define BB_SIM_SET (-2)

/* pi[h*S + s] = the action of bb_billboard_act_episode(b, h+1, phi(s, .), z_h)
 * for every step and state, z_h episode_key's direction for step h+1, or
 * BB_SIM_SET where the plausible set holds more than one action, with the
 * set in set[(h*S + s)*A ..]; pi (H*S) and set (H*S*A) are caller-owned. For a billboard with b->uniform the table is one
 * episode's: with episode_key, the random policies that episode draws
 * (proto/explore.c), without it BB_SIM_UNIFORM everywhere; otherwise the key
 * is not read and the table is the version's. b must be factored and of
 * env's sizes (H, d, A): BB_EINVAL otherwise; errors of the policy are
 * returned. */
int bb_sim_policy_table(const struct bb_sim_env *env, const struct bb_billboard *b,
                        const char *episode_key, int *pi, unsigned char *set) BB_WARN_UNUSED;

/* out[i] = pi[i], except at BB_SIM_SET entries: the action episode_key
 * picks from the entry's plausible set (bb_plausible_pick with the key's
 * direction for that step), as bb_billboard_act_episode does for a clinic
 * that knows its episode. pi, set as bb_sim_policy_table's; out (H*S) is
 * caller-owned. Errors of bb_explore_direction are returned. */
int bb_sim_policy_resolve(const struct bb_sim_env *env, const int *pi, const unsigned char *set,
                          const char *episode_key, int *out) BB_WARN_UNUSED;

/* 1 if the table pi (H*S) has a BB_SIM_SET entry. */
int bb_sim_has_set(const struct bb_sim_env *env, const int *pi);

/* The action of table entry (h, s) (0-based h): pi's, or a draw from rng
 * for BB_SIM_UNIFORM and BB_SIM_SET. */
struct bb_rng;
int bb_sim_policy_action(const struct bb_sim_env *env, const int *pi, const unsigned char *set,
                         int h, int s, struct bb_rng *rng);

/* Plays one episode of env with the table pi (NULL: uniformly random
 * everywhere) and set, drawing from rng (Alg. 1 lines 15-19): features
 * (H*A*d), action (H) and reward (H) receive it, all borrowed. Returns the
 * initial state. */
int bb_sim_policy_play(const struct bb_sim_env *env, const int *pi, const unsigned char *set,
                       struct bb_rng *rng, double *features, int *action, double *reward);

/* A fresh episode key for the simulator's clinics: 32 bytes of rng as hex. */
void bb_sim_episode_key(struct bb_rng *rng, char key[65]);

#endif
