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
/* A table entry: the action an episode's sample of the billboard's noise
 * prefers (bb_billboard_sample): q then v of bb_sample_pick, A (d + 1)
 * doubles of sample at (h*S + s)*A*(d + 1). */
#define BB_SIM_SAMPLE (-3)

/* The doubles a table's sample array holds: H S A (d + 1). */
size_t bb_sim_sample_size(const struct bb_sim_env *env);

/* pi[h*S + s] = the action of bb_billboard_act_episode(b, h+1, phi(s, .), z_h)
 * for every step and state, z_h episode_key's direction for step h+1, or
 * BB_SIM_SET where the plausible set holds more than one action, with the
 * set in set[(h*S + s)*A ..], or, with b->sample, BB_SIM_SAMPLE and the
 * sample's rows in sample (bb_sim_sample_size doubles; may be NULL for a
 * billboard without b->sample); pi (H*S), set (H*S*A) and sample are
 * caller-owned. For a billboard with b->uniform the table is one
 * episode's: with episode_key, the random policies that episode draws
 * (proto/explore.c), without it BB_SIM_UNIFORM everywhere; otherwise the key
 * is not read and the table is the version's. b must be factored and of
 * env's sizes (H, d, A): BB_EINVAL otherwise; errors of the policy are
 * returned. */
int bb_sim_policy_table(const struct bb_sim_env *env, const struct bb_billboard *b,
                        const char *episode_key, int *pi, unsigned char *set,
                        double *sample) BB_WARN_UNUSED;

/* out[i] = pi[i], except at BB_SIM_SET entries: the action episode_key
 * picks from the entry's plausible set (bb_plausible_pick with the key's
 * direction for that step), and at BB_SIM_SAMPLE entries: the action the
 * key's noise sample prefers (bb_sample_pick, the same direction), as
 * bb_billboard_act_episode does for a clinic that knows its episode. pi,
 * set, sample as bb_sim_policy_table's; out (H*S) is caller-owned. Errors
 * of bb_explore_direction are returned. */
int bb_sim_policy_resolve(const struct bb_sim_env *env, const int *pi, const unsigned char *set,
                          const double *sample, const char *episode_key,
                          int *out) BB_WARN_UNUSED;

/* 1 if the table pi (H*S) has a BB_SIM_SET or BB_SIM_SAMPLE entry: its
 * episodes differ by their keys. */
int bb_sim_has_set(const struct bb_sim_env *env, const int *pi);

/* The action of table entry (h, s) (0-based h): pi's, or a draw from rng
 * for BB_SIM_UNIFORM and BB_SIM_SET; a resolved table (no BB_SIM_SAMPLE
 * entry) only. */
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
