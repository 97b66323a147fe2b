/*
 * env.h — a finite linear MDP for the simulator (DESIGN.md §2, issue 4).
 *
 * S states, A actions, horizon H, features phi(s, a) in R^d and, per step h,
 * a reward vector theta_h (d) and measures mu_h (d x S) with
 *
 *     r_h(s, a)       = phi(s, a) . theta_h                  in [0, 1]
 *     P_h(s' | s, a)  = phi(s, a) . mu_h(s')                 (a distribution)
 *
 * bb_sim_env_finish() expands r and P into dense tables once, so that exact
 * evaluation (eval.h) and sampling cost no dot products. Steps are 0-based
 * here (h = 0..H-1); the billboard API is 1-based.
 *
 * Constructors (env_make.c, env_load.c) return a finished environment the
 * caller owns and frees with bb_sim_env_free().
 */
#ifndef BB_SIM_ENV_H
#define BB_SIM_ENV_H

#include <stddef.h>
#include <stdint.h>

#include "billboard/err.h"
#include "engine/rng.h"

struct bb_sim_env {
    int S, A, d, H;
    char name[64]; /* "simplex", "riverswim" or the file name */
    double *phi;   /* owned: S*A*d, phi(s,a) at phi + (s*A + a)*d */
    double *theta; /* owned: H*d */
    double *mu;    /* owned: H*d*S, mu_h(j, s') at mu + (h*d + j)*S + s' */
    double *init;  /* owned: S, the initial distribution */
    /* --- filled by bb_sim_env_finish --- */
    double *reward;    /* owned: H*S*A */
    double *trans;     /* owned: H*S*A*S, P_h(.|s,a) at trans + ((h*S + s)*A + a)*S */
    double *trans_cdf; /* owned: same layout, running sums for sampling */
    double *init_cdf;  /* owned: S */
};

/* Allocates the parameter arrays (zeroed) of an environment of these sizes.
 * *out is NULL on error. BB_EINVAL for sizes < 1 or too large, BB_ENOMEM. */
int bb_sim_env_alloc(int S, int A, int d, int H, struct bb_sim_env **out) BB_WARN_UNUSED;

/* The factor bb_sim_env_finish scales a feature map by when its rows lie
 * within 2^-44 of the simplex but some outside it (rows normalised to sum 1
 * in floating point): 1 - 2^-40. */
#define BB_SIM_SIMPLEX_FIT (1.0 - 0x1p-40)

/* Validates phi, theta, mu, init and fills the derived tables; then scales
 * a near-simplex feature map into the simplex (BB_SIM_SIMPLEX_FIT; theta
 * and mu divided by it), after the tables were computed from it. On failure
 * returns BB_EINVAL with a one-line reason naming the offending entry in why
 * (may be NULL): feature row norm > 1, reward outside [0, 1], negative
 * transition probability, a row of P or init not summing to 1 within 1e-9,
 * a non-finite number. */
int bb_sim_env_finish(struct bb_sim_env *env, char *why, size_t whylen) BB_WARN_UNUSED;

void bb_sim_env_free(struct bb_sim_env *env);

/* The feature rows of state s (A*d, borrowed). */
static inline const double *bb_sim_env_features(const struct bb_sim_env *env, int s)
{
    return env->phi + (size_t)s * env->A * env->d;
}

/* Draws an initial state. */
int bb_sim_env_reset(const struct bb_sim_env *env, struct bb_rng *rng);

/* Draws the state after action a in state s at step h (0-based). */
int bb_sim_env_step(const struct bb_sim_env *env, int h, int s, int a, struct bb_rng *rng);

/* --- env_make.c: the built-in environments ------------------------------- */

/* A random linear MDP with simplex features: phi(s,a), theta_h and every
 * mu_h(j, .) drawn from symmetric Dirichlet distributions (concentration
 * alpha; alpha < 1 gives sparser, more distinct vectors), initial state 0. */
int bb_sim_env_simplex(int S, int A, int d, int H, double alpha, uint64_t seed,
                       struct bb_sim_env **out) BB_WARN_UNUSED;

/* RiverSwim (Strehl & Littman 2008) with S states, A = 2 (0 = left,
 * 1 = right), one-hot features (d = 2S), start in state 0. Left moves left
 * surely, reward 0.005 in state 0; right moves right w.p. 0.35 (0.4 at
 * either end), stays w.p. 0.6, slips left w.p. 0.05; reward 1 for right in
 * the last state. */
int bb_sim_env_riverswim(int S, int H, struct bb_sim_env **out) BB_WARN_UNUSED;

/* --- env_load.c: a tabular linear MDP from JSON (docs/ENV.md) ------------ */

/* Loads and validates path. On failure returns BB_EIO (unreadable),
 * BB_EPROTO (not JSON) or BB_EINVAL (wrong shape or values) with a message
 * in why naming the JSON path of the problem, e.g. "/mu/1/0: ...". */
int bb_sim_env_load(const char *path, struct bb_sim_env **out, char *why,
                    size_t whylen) BB_WARN_UNUSED;

/* Writes the printf-style reason into why (may be NULL) and returns
 * BB_EINVAL: how the environment's constructors and loader refuse. */
int bb_sim_env_fail(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
