/*
 * billboard/billboard.h — the published billboard and the one policy function.
 *
 * A billboard is what the curator publishes after an update (Alg. 1 lines
 * 7–12): for every step h the weights w_h and the noisy Gram matrix
 * Lambda~_h. A clinic turns it plus its own patient's features into an action
 *
 *     Q_h(x, a) = min(phi(x,a)^T w_h + beta ||phi(x,a)||_{Lambda~_h^-1}, H),
 *     a = argmax_a Q_h(x, a)       (lowest index among ties)
 *
 * and the curator uses the very same function inside LSVI. Steps are 1-based
 * in the API (h = 1..H), as in the paper.
 */
#ifndef BILLBOARD_BILLBOARD_H
#define BILLBOARD_BILLBOARD_H

#include <stddef.h>
#include <stdint.h>

#include "billboard/err.h"

/* The privacy ledger as it stood when this billboard version was published:
 * a snapshot, part of the version's immutable bytes (GET /v1/privacy has
 * the ledger now). */
struct bb_privacy_summary {
    double rho;        /* total zCDP budget (INFINITY if non-private) */
    double epsilon;    /* epsilon(rho, delta) */
    double delta;
    double rho_spent;  /* gram and reward-stream shares once data exists + y per update */
    long updates;      /* updates made (policy switches) */
    long max_updates;  /* N_max */
    long episodes;     /* episodes received */
    long max_episodes; /* K_max */
    long restores;     /* restores from a backup, each charged (on the wire when > 0) */
    double rho_restored; /* what they charged, included in rho_spent */
};

struct bb_billboard {
    uint64_t version;  /* 0 = before any data */
    uint64_t episode;  /* number of episodes it was computed from (k - 1) */
    int H, d, A;
    double beta;
    int uniform;       /* 1: the billboard holds no data yet (version 0 under the
                        * default prior policy) and recommends a random action:
                        * uniform at each ask, or an episode's correlated
                        * random policies (bb_billboard_act_episode);
                        * "uniform" on the wire, false when absent */
    double *w;         /* owned: H*d, w_h at w + (h-1)*d */
    double *gram;      /* owned: H*d*d, Lambda~_h, row-major */
    double *chol;      /* owned: H*d*d, lower Cholesky factors of gram, filled
                        * by bb_billboard_factor; never on the wire */
    double *sigma_y;   /* owned: H, the sd of the y noise in w_h (0: none) */
    double plausible_z;/* z of the plausible set (bb_billboard_plausible);
                        * 0 = always the greedy action */
    double plausible_floor; /* its floor f. sigma_y, z and f are on the wire
                        * only when z > 0 */
    int sample;        /* 1: after an update act on a sample of the y noise
                        * (bb_billboard_sample) instead of the plausible set;
                        * "explore": "sample" on the wire, with sigma_y */
    int factored;      /* chol is valid */
    struct bb_privacy_summary privacy;
};

/* Allocates w, gram, chol for the given sizes, all zero. Returns BB_OK,
 * BB_EINVAL for bad sizes, or BB_ENOMEM. */
int bb_billboard_init(struct bb_billboard *b, int H, int d, int A) BB_WARN_UNUSED;

/* Frees the arrays; b may then be re-initialised. Safe on a zeroed b. */
void bb_billboard_release(struct bb_billboard *b);

/* Deep copy: dst must be released or zeroed; on error dst is left zeroed. */
int bb_billboard_copy(struct bb_billboard *dst, const struct bb_billboard *src) BB_WARN_UNUSED;

/* Factors every Lambda~_h once (clients do this once per version).
 * Returns BB_ENOTPD if some Lambda~_h is not positive definite. */
int bb_billboard_factor(struct bb_billboard *b) BB_WARN_UNUSED;

/* The policy: Q-values of the A actions whose feature rows are
 * features[a*d .. a*d+d) at step h (1..H), written to q (A entries, borrowed),
 * and the recommended action to *action (may be NULL): the greedy one, or,
 * when the plausible set holds more than one action, one of them drawn
 * uniformly at each ask (bb_billboard_plausible), or, with b->sample and y
 * noise, the best under a fresh sample of that noise (bb_billboard_sample,
 * a fresh direction at each ask), or, when b->uniform, one drawn
 * uniformly from all actions — the Q-values are then the prior's and say
 * nothing yet. Draws use libsodium's CSPRNG. b must be factored. */
int bb_billboard_act(const struct bb_billboard *b, int h, const double *features, double *q,
                     int *action) BB_WARN_UNUSED;

/* The same policy for a step of a known episode: z (d entries, borrowed) is
 * the episode's exploration direction for step h (bb_explore_direction), or
 * NULL. Where bb_billboard_act would draw at random and z is given, the
 * action is instead the one z prefers (bb_plausible_pick): among all actions
 * while b->uniform, among the plausible set after an update; with b->sample
 * the one the noise sample of direction z prefers (bb_sample_pick). An episode's
 * steps then follow correlated random policies instead of a fresh coin each
 * (proto/explore.c), and asking again for the same step gives the same
 * answer. Where the policy is greedy z is not read. */
int bb_billboard_act_episode(const struct bb_billboard *b, int h, const double *features,
                             const double *z, double *q, int *action) BB_WARN_UNUSED;

/* bb_billboard_act_episode with the direction of episode_key for step h
 * (NULL: none), derived only where the policy is random (b->uniform, a
 * plausible set of more than one action, or b->sample): what a clinic, the CLI and
 * POST /v1/recommend call. Errors of either function are returned. */
int bb_billboard_act_keyed(const struct bb_billboard *b, int h, const double *features,
                           const char *episode_key, double *q, int *action) BB_WARN_UNUSED;

/* The action among those with set[a] != 0 (all A when set is NULL) whose
 * feature row (features[a*d ..]) has the largest inner product with z (d
 * entries): the episode's own random choice (bb_billboard_act_episode).
 * With one-hot rows and z ~ N(0, I_d) it is uniform over the set. Ties go
 * to the lowest index; an empty set gives 0. */
int bb_plausible_pick(int A, int d, const double *features, const unsigned char *set,
                      const double *z);

/* Correlation c of an episode's draws between steps (proto/explore.c). */
#define BB_EXPLORE_PERSISTENCE 0.9

/* An episode's exploration direction for step h (1..): z (d entries)
 * ~ N(0, I_d), c^2-correlated with the episode's other steps, a fixed
 * function of episode_key (a non-empty string the clinic keeps for the
 * episode, e.g. its idempotency key) and h, the same on every machine
 * (proto/explore.c gives the construction). BB_EINVAL for an empty key,
 * h < 1 or d < 1, BB_EIO if libsodium cannot start, BB_ENOMEM. */
int bb_explore_direction(const char *episode_key, int h, int d, double *z) BB_WARN_UNUSED;

/* The kernel under bb_billboard_act and LSVI, on any number of rows:
 *   q[r] = min(x_r^T w + beta * sqrt(x_r^T (L L^T)^-1 x_r), cap)
 * l: lower Cholesky factor (d*d), w: d weights, x: rows*d features,
 * work: rows*d doubles of scratch, on return the rows L^-1 x_r (X L^-T).
 * The bonus is one BLAS-3 triangular solve over all rows, not a loop of dot
 * products. */
void bb_q_values(int d, const double *l, const double *w, double beta, double cap,
                 const double *x, size_t rows, double *q, double *work);

/* The plausible set at step h (1..H) of the actions with feature rows
 * features and Q-values q (bb_q_values): set[a] = 1 for g = bb_argmax(q)
 * and for every action a with
 *   q[a] + z s_a >= q[g] - z s_g  and  s_a >= f (H - h + 1),
 *   s_a = sigma_y_h ||Lambda~_h^-1 phi(x, a)||_2,
 * z = b->plausible_z, f = b->plausible_floor: the actions whose Q-value the
 * y noise in w_h cannot tell from the greedy one's at z of its standard
 * deviations (s_a is the sd of phi(x,a)^T w_h that noise alone gives), and
 * for which that noise is at least f of the step's value range (the
 * rewards left), 0 elsewhere. Returns the set's size (>= 1: g is always in it); only {g}
 * when z or sigma_y_h is 0, when b->uniform, or when w_h is the prior's.
 * Post-processing of the billboard (docs/PRIVACY.md §3.4). Returns
 * BB_ENOMEM, BB_EINVAL (not factored) or BB_ERANGE (h) as a negative. */
int bb_billboard_plausible(const struct bb_billboard *b, int h, const double *features,
                           const double *q, unsigned char *set) BB_WARN_UNUSED;

/* The noise-matched sample at step h (1..H) of the actions with feature rows
 * features: v[a*d .. a*d+d) = sigma_y_h Lambda~_h^-1 phi(x, a) for every
 * action a (v: A*d, caller-owned), so that for z ~ N(0, I_d)
 *   q[a] + v_a^T z  =  phi(x, a)^T (w_h + Lambda~_h^-1 n),  n ~ N(0, sigma_y_h^2 I_d),
 * the Q-values under a fresh draw of the noise the billboard's y~_h carries,
 * jointly over the actions. Where that noise leaves two actions' order in
 * doubt, each is played in proportion to its chance of being the better
 * one; none is shut out for good, however far behind. Post-processing of
 * the billboard with the clinic's own randomness (docs/PRIVACY.md §3.6).
 * BB_EINVAL (not factored), BB_ERANGE (h) or BB_ENOMEM. */
int bb_billboard_sample(const struct bb_billboard *b, int h, const double *features,
                        double *v) BB_WARN_UNUSED;

/* argmax_a q[a] + v_a^T z over the A actions (v as bb_billboard_sample's,
 * z: d entries, the episode's direction for the step): the action a sample
 * of the noise prefers. Ties go to the lowest index. */
int bb_sample_pick(int A, int d, const double *q, const double *v, const double *z);

/* Index of the first maximum of q[0..n). */
int bb_argmax(const double *q, int n);

#endif
