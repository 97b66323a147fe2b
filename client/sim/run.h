/*
 * run.h — one simulated run: K episodes from N clinics, in-process.
 *
 * The clinics play in rounds: at the start of a round each of the N clinics
 * reads the current billboard (all see the same version), plays one episode
 * with it, and the curator then receives the N episodes in order, checking
 * Alg. 1 line 6 (and updating) after each one. With N = 1 this is exactly
 * Algorithm 1. For every episode k the run records the exact regret
 * V*_1(x_1^k) - V^{pi_k}_1(x_1^k) of the policy the clinic actually used,
 * and the number of policy switches so far: the billboard versions other
 * than the initial version 0 that some clinic has acted on.
 *
 * The algorithms (each labelled in every output):
 *   lsvi-ucb       non-private LSVI-UCB, a new policy after every episode
 *   lsvi-ucb-rare  non-private, Alg. 1's determinant-doubling rule
 *   private        Private LSVI-UCB, corrected calibration (DESIGN.md §3)
 *   paper          the paper's calibration as printed (under-noised y, no
 *                  lower clip): for comparison only
 *   random         every action uniformly at random (no curator)
 *   solo           no federation: each of the N clinics runs non-private
 *                  LSVI-UCB (Alg. 1's rule) on its own patients only,
 *                  episode k going to clinic k mod N as in the rounds
 *                  above (solo.c); the run's regret is every patient's
 */
#ifndef BB_SIM_RUN_H
#define BB_SIM_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "engine/params.h"
#include "env.h"

enum bb_sim_algo {
    BB_SIM_LSVI_UCB = 0,
    BB_SIM_LSVI_UCB_RARE,
    BB_SIM_PRIVATE,
    BB_SIM_PAPER,
    BB_SIM_RANDOM,
    BB_SIM_SOLO,
    BB_SIM_NALGO
};

/* The label of a ("lsvi-ucb", ...). Static. */
const char *bb_sim_algo_name(enum bb_sim_algo a);
/* BB_OK and *out, or BB_EINVAL for an unknown label. */
int bb_sim_algo_parse(const char *name, enum bb_sim_algo *out) BB_WARN_UNUSED;

/* Fills p (copy of base) for running algo on env: sizes from env, K_max
 * (base's, or episodes if unset), rho/epsilon, update rule and calibration
 * from the algorithm (base's epsilon/rho are kept for private and paper,
 * forced to infinity otherwise), then derives. BB_EINVAL + why on error. */
/* Whether every phi(s,a) of env lies in the set (bb_params_feature_row_ok). */
int bb_sim_env_in(const struct bb_sim_env *env, enum bb_features set);

/* The feature map's set: the smallest of BB_FEATURES_ONEHOT (every row
 * >= 0, sum <= 1, at most one nonzero entry), BB_FEATURES_SIMPLEX (>= 0,
 * sum <= 1) and BB_FEATURES_BALL that holds every phi(s,a) of env. A
 * property of the public feature map, so a free choice of the defaults. */
enum bb_features bb_sim_env_domain(const struct bb_sim_env *env);

int bb_sim_params(const struct bb_sim_env *env, enum bb_sim_algo algo, const struct bb_params *base,
                  long episodes, struct bb_params *p, char *why, size_t whylen) BB_WARN_UNUSED;

struct bb_sim_run {
    /* --- set by the caller --- */
    const struct bb_sim_env *env; /* borrowed */
    enum bb_sim_algo algo;
    struct bb_params base; /* configuration flags (beta, epsilon, C, K_max, ...) */
    long episodes;         /* K */
    int clinics;           /* N >= 1 */
    uint64_t seed;         /* engine noise and environment randomness */
    /* called about every 1% of the run, may be NULL */
    void (*progress)(void *arg, long done, long total);
    void *progress_arg;

    /* --- results, owned by the run (bb_sim_run_release) --- */
    struct bb_params params; /* as derived */
    double *regret;          /* episodes: exact per-episode regret */
    long *switches;          /* episodes: switches up to and including episode k */
    long updates;            /* updates the curator made */
    long notpd;              /* updates refused because Lambda~ was not PD */
    double v_star;           /* V*_1 from the initial distribution */
    double seconds;          /* wall time of the episode loop */
};

/* Runs r (caller fields set, result fields zero). On error returns the
 * engine's or the environment's error with a reason in why. */
int bb_sim_run_inprocess(struct bb_sim_run *r, char *why, size_t whylen) BB_WARN_UNUSED;

/* The solo run (algo BB_SIM_SOLO), called by bb_sim_run_inprocess: N
 * non-private engines, each with K_max = ceil(K/N), on the patients the
 * federated run of the same seed meets (the same random streams, drawn in
 * the same episode order; a patient's later states follow the actions). */
int bb_sim_run_solo(struct bb_sim_run *r, char *why, size_t whylen) BB_WARN_UNUSED;

/* The bonus scale of solo clinics when the command line names none: chosen
 * on the tuning environments (docs/RESULTS.md, "Acting alone"). */
#define BB_SIM_SOLO_BETA 2.0

/* One clinic's episode buffers (caller-owned arrays), played into by
 * bb_sim_policy_play (policy.h). */
struct bb_sim_clinic {
    double *features; /* H*A*d */
    int *action;      /* H */
    double *reward;   /* H */
};

struct bb_rng;

/* The run's three streams from its seed: engine noise, environment
 * (patients), episode keys. */
void bb_sim_run_seed(uint64_t seed, struct bb_rng *engine, struct bb_rng *env, struct bb_rng *keys);

/* Monotonic seconds. */
double bb_sim_now(void);

/* Frees the result arrays; safe on a zeroed or failed run. */
void bb_sim_run_release(struct bb_sim_run *r);

#endif
