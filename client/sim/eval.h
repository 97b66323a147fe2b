/*
 * eval.h — exact values of a finite linear MDP by backward induction.
 *
 * Value arrays are (H+1)*S, V_h(s) at V[h*S + s] for h = 0..H (0-based
 * steps, V_H = 0). Policies are step-dependent action tables pi[h*S + s],
 * an entry -1 meaning a uniformly random action and -2 one drawn uniformly
 * from the actions a with set[(h*S + s)*A + a] != 0. Nothing is sampled: the regret the simulator reports
 * is V*_1(x_1) - V^pi_1(x_1), an exact expectation.
 */
#ifndef BB_SIM_EVAL_H
#define BB_SIM_EVAL_H

#include "env.h"

/* V* of env into V (caller-owned, (H+1)*S); if pi is non-NULL, also an
 * optimal action table (H*S, first maximiser). */
void bb_sim_eval_optimal(const struct bb_sim_env *env, double *V, int *pi);

/* V^pi of the policy pi (H*S actions in [0, A), or -1 (BB_SIM_UNIFORM,
 * policy.h) for every action with probability 1/A, or -2 (BB_SIM_SET) for
 * each action of that entry's row of set, H*S*A, with equal probability
 * (so too -3, BB_SIM_SAMPLE, whose row is the greedy action);
 * set is read only there and may be NULL without such entries) into V. */
void bb_sim_eval_policy(const struct bb_sim_env *env, const int *pi, const unsigned char *set,
                        double *V);

/* V of the policy choosing every action uniformly at random, into V. */
void bb_sim_eval_uniform(const struct bb_sim_env *env, double *V);

/* sum_s init(s) V_0(s): the value from the initial distribution. */
double bb_sim_eval_initial(const struct bb_sim_env *env, const double *V);

#endif
