/*
 * lsvi.h — the LSVI backward pass over all stored episodes (Alg. 1 lines 7–13).
 *
 * For h = H down to 1:
 *   V_{h+1}(x) = clip(max_a Q_{h+1}(x, a), floor, H)      (V_{H+1} = 0)
 *   y_h  = sum_i phi_h^i (r_h^i + V_{h+1}(x_{h+1}^i))
 *   y~_h = snap(y_h) + N_Z(0, sigma_h^2) on step h's grid (private runs;
 *          sigma_h = bb_params_sigma_y_drawn_step); with exact sums
 *          (bb_params_y_exact) y_h is instead sum_i snap(phi_h^i t_i), every
 *          term on the grid, added exactly in any order
 *   w_h  = Lambda~_h^-1 y~_h                             (Cholesky solve)
 * with Q_{h+1} from the policy kernel bb_q_values(): the bonus of every
 * stored next state for every action is one triangular solve per chunk.
 * floor is 0 (corrected) or -inf (the paper as printed). With a prior
 * m_h (bb_params_prior_target, a public constant; 0 in the paper and
 * non-private), the next values V_{h+1} in step h's targets come instead
 * from u_{h+1} = Lambda~_{h+1}^-1 (y~_{h+1} + ridge m_{h+1} 1), the
 * regression shrunk towards m_{h+1} rather than 0: rarely reached next
 * states count as worth a share of their range. w_h, what is published and
 * what clinics act on, stays Lambda~_h^-1 y~_h; y~_h is what is stored.
 * The prior's weight is ridge (1 - job->prior_cut) (bb_params_prior_cut):
 * whole, tapered by what is left of the run, or none at the final update,
 * whose explorations no later update could use.
 *
 * With a next-value bound (bb_params_next_bound: private, corrected,
 * features declared simplex), V_{h+1} in step h's targets is clipped also
 * at B_{h+1} = bb_lsvi_next_bound(u_{h+1}), the largest Q_{h+1} any feature
 * row in the simplex can have, a function of released values only; the
 * clip never binds for such rows, and step h's noise is drawn at
 * bb_params_sigma_y_drawn_at(min(cap, B_{h+1})) on that sigma's grid: a
 * smaller range, a smaller sensitivity, the same rho (docs/PRIVACY.md §3.3).
 *
 * With the reward stream (job->reward, bb_params_reward_stream) the targets
 * summed and noised here are the next values alone, y_h = sum_i phi_h^i
 * V_{h+1}(x_{h+1}^i), noised at sensitivity y_pair cap (cap floored at
 * 2^-20 of the value cap), and y~_h is that release plus the stream's R~_h.
 *
 * With the transition counts (job->counts; counts.h: tabular rows, S =
 * d / A states) the next-value part of step h < H - 1's targets is
 * instead computed from the count stream's release and this update's own
 * values, post-processing:
 *   y_h^N = N~_h (v_{h+1} - m 1),  v_{h+1}(s) = V_{h+1}(s),
 * with V_{h+1} of each state as above (clip, bound, discount), and m
 * (Lambda~_h - ridge_h I) 1 is added back after it. Sum_q N_h(j, q) = the
 * count of cell j, so with no noise that is exactly the episodes' sum for
 * every m. With a = counts_sd[h] and b the Gram diagonal's noise sd
 * (bb_params_counts_gram_sd), the noise per coordinate has variance a^2
 * ||v - m 1||^2 + b^2 m^2; m = a^2 S vbar / (a^2 S + b^2), vbar the
 * values' mean, makes it least. No noise is drawn: that sd stands in for
 * the update's own in the discount and sigma_y.
 *
 * With centred targets (bb_params_y_centre(p) = kappa > 0: private, simplex
 * rows, y-sensitivity centred) the sum released for step h is instead
 *   y_h^c = sum_i phi_h^i (t_i - c_h 1^T phi_h^i),   c_h = kappa (1 + cap_h),
 * t_i = r_h^i + V_{h+1}(x_{h+1}^i) and cap_h the clip in force, whose change
 * is at most 1 + cap_h instead of sqrt 2 (1 + cap_h) (docs/PRIVACY.md §2.2);
 * after its noise the engine adds c_h (Lambda~_h - ridge_h I) 1 back, an
 * estimate of c_h sum_i phi_h^i 1^T phi_h^i = c_h Lambda_h 1 from the
 * released Gram matrix alone, and solves with that sum. y_noisy holds the
 * release itself (centred, on its grid).
 */
#ifndef BB_LSVI_H
#define BB_LSVI_H

#include "billboard/err.h"
#include "features.h"
#include "noise.h"
#include "paramset.h"
#include "rng.h"
#include "store.h"
#include "ynoise.h"

#define BB_LSVI_MAX_THREADS 8

/* Scratch space, allocated once per engine and reused by every update.
 * The Q-values of a block's next states are computed by `threads` threads
 * (the caller's and threads - 1 more), each on its own chunks. They call
 * BLAS concurrently: a process that uses this should run BLAS itself
 * single-threaded (openblas_set_num_threads(1)), as billboardd and
 * billboard-sim do, so the two levels of threads do not fight. */
struct bb_lsvi_ws {
    int threads;
    size_t rows;                             /* rows per chunk (a multiple of A) */
    double *work[BB_LSVI_MAX_THREADS];       /* rows * d each */
    double *q[BB_LSVI_MAX_THREADS];          /* rows each */
    double *target;                          /* BB_STORE_BLOCK */
    double *y;                               /* d */
    double *w_next;                          /* d: the next values' weights */
    double *eye, *sq;                        /* d*d: the identity, scratch */
    double *qd;                              /* d: Q of the simplex's corners */
    double *linv;                            /* d*d: L^-1 of the next step's factor */
    double *vs;                              /* d: the next values of tabular states */
};

/* threads: 1 .. BB_LSVI_MAX_THREADS; 0 means the number of online CPUs. */
int bb_lsvi_ws_init(struct bb_lsvi_ws *ws, int A, int d, int threads) BB_WARN_UNUSED;
void bb_lsvi_ws_release(struct bb_lsvi_ws *ws);

struct bb_lsvi_job {
    const struct bb_params *p;       /* borrowed */
    const struct bb_store *store;    /* borrowed; episodes [0, n) are read */
    long n;
    const double *chol;              /* borrowed, H*d*d: factors of Lambda~_h^k */
    const double *gram;              /* borrowed, H*d*d: Lambda~_h^k itself, ridge
                                        included; read only with centred targets */
    const struct bb_sampler *y_noise;/* borrowed, H of them: step h's at [h]
                                        (bb_params_sigma_y_drawn_step); s2 == 0
                                        means no noise */
    struct bb_rng *rng;              /* borrowed; NULL when y_noise draws nothing */
    double ridge;                    /* the diagonal added to Lambda~_h: the weight
                                        of the prior (bb_params_prior_target) */
    const double *ridge_step;        /* borrowed, H, or NULL: step h's diagonal where
                                        it differs from ridge (enum bb_indefinite) */
    double *w;                       /* out, H*d */
    double *y_noisy;                 /* out, H*d: y~ as released: centred where
                                        the centre is in force (may be NULL) */
    double *sigma_y;                 /* out, H: the sd step h's noise was drawn at
                                        (0 without noise; may be NULL) */
    const double *reward;            /* borrowed, H*d, or NULL: the reward stream's
                                        releases R~_h (rstream.h), which then stand for
                                        the rewards in the targets */
    const double *reward_sd;         /* borrowed, H: their noise's sd (with reward) */
    const double *counts;            /* borrowed, (H-1)*d*S, or NULL: the count stream's
                                        releases N~_h (cstream.h), which then stand for
                                        the episodes' next values in the targets */
    const double *counts_sd;         /* borrowed, H-1: their noise's sd (with counts) */
    long update;                     /* this update's number, 1-based: its share of
                                        rho_y (bb_params_y_update_share); 0 draws at
                                        the base sds */
    double prior_cut;                /* the share of the prior's weight taken away
                                        (bb_params_prior_cut): 0 keeps it whole,
                                        1 leaves the next values none */
};

/* B = (1 + BB_SIMPLEX_SLACK) max(0, max_j (u_j + beta sqrt((Lambda^-1)_jj))):
 * the largest x^T u + beta ||x||_{Lambda^-1} over rows x >= 0 with
 * sum x <= 1, a convex function whose maximum over that polytope is at a
 * corner, 0 or e_j, with a margin for the rounding of computing it. l: the
 * lower Cholesky factor of Lambda; eye: the d x d identity; sq, q: d*d and
 * d of scratch. */
double bb_lsvi_next_bound(int d, const double *l, const double *u, double beta,
                          const double *eye, double *sq, double *q);

/* Runs the pass. Reads only the job's inputs, so it may run on a worker
 * thread while another thread appends episodes n, n+1, ... to the store. */
int bb_lsvi_run(const struct bb_lsvi_job *job, struct bb_lsvi_ws *ws) BB_WARN_UNUSED;

#endif
