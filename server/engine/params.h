/*
 * params.h — the privacy calibration of Private LSVI-UCB, in one place.
 *
 * Every noise scale, shift and cap the engine uses is derived here from the
 * configuration fixed at initialisation (DESIGN.md §3; derivations in
 * docs/PRIVACY.md). Nothing else in the code computes a privacy constant.
 */
#ifndef BB_PARAMS_H
#define BB_PARAMS_H

#include <stddef.h>
#include "billboard/err.h"
#include "featureset.h"

/* Which calibration to derive. BB_CAL_PAPER reproduces the paper's printed
 * constants (y under-noised, no lower clip on V); it exists only so the
 * simulator can show the difference and is never accepted by billboardd. */
enum bb_calibration { BB_CAL_CORRECTED = 0, BB_CAL_PAPER = 1 };

/* How the policy is refreshed. BB_UPDATE_RARE is Alg. 1 line 6 (log-det grew
 * by ln C); BB_UPDATE_EVERY is the non-private LSVI-UCB baseline;
 * BB_UPDATE_RELEASE updates at every release point of a release grid (a
 * data-independent schedule, N_max = G). */
enum bb_update_rule { BB_UPDATE_RARE = 0, BB_UPDATE_EVERY = 1, BB_UPDATE_RELEASE = 2 };

/* The continual-release mechanism of the Gram matrices (mech.h; proofs in
 * docs/PRIVACY.md):
 *   BB_MECH_TREE       the paper's binary tree over K_max episodes, a
 *                      release after every episode
 *   BB_MECH_GRID       releases at the grid points ceil(g^j) only; the
 *                      episodes between two points form one increment with
 *                      its own noise (each episode in one noised sum)
 *   BB_MECH_GRID_SQRT  the same grid, the increments' noise correlated by
 *                      the square-root factorization of the prefix-sum
 *                      matrix (Henzinger-Upadhyay-Upadhyay 2023)
 *   BB_MECH_AUTO       the default: resolved by bb_params_derive to
 *                      grid-sqrt for a private run, tree for a non-private one
 *   BB_MECH_TREE_HONAKER  the binary tree with every node drawn and Honaker's
 *                      online (bottom-up) estimator: the tree's privacy cost,
 *                      a release after every episode, smaller prefix noise */
enum bb_mechanism {
    BB_MECH_TREE = 0,
    BB_MECH_GRID = 1,
    BB_MECH_GRID_SQRT = 2,
    BB_MECH_AUTO = 3,
    BB_MECH_TREE_HONAKER = 4,
};

/* The operator-norm bound behind the PD shift (post-processing: it decides
 * only the optimism guarantee, never the privacy):
 *   BB_BOUND_PAPER  sigma sqrt(L) (4 sqrt d + 2 ln(K_max H / p)) (Alg. 1 line 2)
 *   BB_BOUND_TIGHT  s (2 sqrt d + sqrt(2 ln(R H / p))), s the largest
 *                   per-entry standard deviation of a released prefix's noise,
 *                   R the number of releases (Gaussian matrix tail bound) */
enum bb_bound { BB_BOUND_PAPER = 0, BB_BOUND_TIGHT = 1 };

/* Release grid: the episode counts ceil(k0 g^j), j = 0, 1, ..., without
 * repeats, up to K_max. Writes at most cap of them to out (out may be NULL)
 * and returns how many there are. Data-independent. */
long bb_release_grid(double k0, double g, long K_max, long *out, long cap);

/* The square-root factorization coefficients: c_0 = 1,
 * c_l = c_{l-1} (2l - 1) / (2l), the series of (1 - x)^(-1/2), so that the
 * lower-triangular Toeplitz matrix C with C_ij = c_{i-j} satisfies C C = the
 * prefix-sum matrix. Writes c_0 .. c_{n-1}. */
void bb_sqrt_coefficients(double *c, long n);

/* Honaker's online estimator over a binary tree (docs/PRIVACY.md §1.5), in
 * units of one node's noise variance: the variance of level j's node
 * estimate, v_0 = 1, v_j = 2 v_{j-1} / (1 + 2 v_{j-1}) = 2^j / (2^{j+1} - 1),
 * and the weight of the node's own noisy value in it,
 * a_j = 2 v_{j-1} / (1 + 2 v_{j-1}) (= v_j; a_0 = 1), the children's sum
 * getting 1 - a_j. level >= 0. */
double bb_honaker_variance(int level);
double bb_honaker_weight(int level);

/* The largest prefix-noise variance of the tree with Honaker's estimator
 * over the prefixes n = 1 .. K_max, in units of one node's: the max over n
 * of the sum of v_j over the set bits j of n. */
double bb_honaker_max_prefix_variance(long K_max);

/* The range V_{h+1} is clipped to in the regression targets (lsvi.c):
 *   BB_VCLIP_HORIZON    [0, H] (DESIGN.md §3): target sensitivity 2(H+1)
 *   BB_VCLIP_REMAINING  [0, H - h], the true range of V_{h+1} (1-based h):
 *                       target of step h in [0, H-h+1], sensitivity
 *                       2(H-h+1), so sigma_y shrinks (docs/PRIVACY.md) */
enum bb_value_clip { BB_VCLIP_HORIZON = 0, BB_VCLIP_REMAINING = 1 };

/* What the billboard recommends before its first update (version 0, which
 * holds no data; a function of nothing private):
 *   BB_PRIOR_UNIFORM  a uniformly random action (the default): the policy
 *                     is no worse than random treatment while no data has
 *                     been released, and its episodes explore every action
 *   BB_PRIOR_GREEDY   the argmax of the prior's Q (bonus only), the paper's */
enum bb_prior_policy { BB_PRIOR_UNIFORM = 0, BB_PRIOR_GREEDY = 1 };

/* The set the clinics' feature rows lie in (a public property of the
 * feature map, declared by the operator):
 *   BB_FEATURES_BALL     ||phi||_2 <= 1, the paper's assumption (the default)
 *   BB_FEATURES_SIMPLEX  also phi >= 0 and sum_j phi_j <= 1 (one-hot and
 *                        soft-aggregation features, the simplex MDP):
 *                        episodes outside are refused, and the next values
 *                        in step h's targets are clipped at a bound computed
 *                        from step h+1's released regression, which never
 *                        binds for such features and lets step h's y noise
 *                        shrink with it at the same rho (lsvi.h,
 *                        bb_params_sigma_y_at; docs/PRIVACY.md §3.3)
 *   BB_FEATURES_ONEHOT   simplex rows with at most one nonzero entry (tabular
 *                        features, as on RiverSwim): everything simplex
 *                        gives, and every Gram sum is diagonal, so the
 *                        mechanisms draw no noise off the diagonal and the
 *                        tight shift bounds d scalars, not a d x d matrix
 *                        (docs/PRIVACY.md §1.6)
 *   BB_FEATURES_AUTO     the simulator's: the smallest of onehot, simplex,
 *                        ball that holds every row of the environment's
 *                        feature map; bb_params_derive refuses it */
enum bb_features {
    BB_FEATURES_BALL = 0,
    BB_FEATURES_SIMPLEX = 1,
    BB_FEATURES_ONEHOT = 2,
    BB_FEATURES_AUTO = 3,
};

/* How a budget given as (epsilon, delta) becomes the zCDP rho every noise
 * scale is derived from, and how rho is reported as epsilon (docs/PRIVACY.md
 * §4). Both are sound for every rho-zCDP mechanism; CKS is tighter:
 *   BB_CONV_BUN_STEINKE  epsilon = rho + 2 sqrt(rho ln(1/delta)) (Bun–Steinke
 *                        2016, Prop. 1.3; DESIGN.md's; databases created
 *                        before this option)
 *   BB_CONV_CKS          epsilon = inf_{a>1} of Canonne–Kamath–Steinke 2020,
 *                        Prop. 12 (the default): a larger rho for the same
 *                        (epsilon, delta), x1.15 at epsilon = 10 and x1.47 at
 *                        epsilon = 1 (delta = 1e-5) */
enum bb_conversion { BB_CONV_BUN_STEINKE = 0, BB_CONV_CKS = 1 };

/* The bound on how much replacing one episode moves step h's regression
 * targets y_h = sum_i phi_i t_i, t_i in [0, B_h] (docs/PRIVACY.md §2.1, §2.2):
 *   BB_YSENS_TRIANGLE     ||phi t - phi' t'|| <= ||phi t|| + ||phi' t'|| = 2 B_h,
 *                         for any rows in the unit ball (the paper's; databases
 *                         created before this option)
 *   BB_YSENS_NONNEGATIVE  where the rows are declared simplex (so phi >= 0,
 *                         and t >= 0 by the clips) both terms are nonnegative
 *                         vectors, their inner product is >= 0 and
 *                         ||phi t - phi' t'||^2 <= 2 B_h^2: sqrt 2 B_h.
 *   BB_YSENS_CENTRED      the default: with simplex rows the engine releases
 *                         the centred sum sum_i phi_i (t_i - c_h 1^T phi_i),
 *                         c_h = BB_Y_CENTRE B_h, whose change is at most B_h,
 *                         and adds c_h (Lambda~_h - ridge I) 1 back to the
 *                         release (post-processing; bb_params_y_centre).
 * With ball rows both fall back to the triangle bound. */
enum bb_y_sensitivity { BB_YSENS_TRIANGLE = 0, BB_YSENS_NONNEGATIVE = 1, BB_YSENS_CENTRED = 2 };

/* kappa = 1 - 1/sqrt 2: the smallest centre, as a share of the largest
 * target, at which the centred sum's sensitivity is B_h (docs/PRIVACY.md
 * §2.2: it is B_h max(1, sqrt 2 (1 - kappa)) for kappa <= 1/2). */
#define BB_Y_CENTRE (1.0 - 0.70710678118654752440)

/* What the engine does at a release where step h's Lambda~_h = released
 * prefix + ridge I is not positive definite (docs/PRIVACY.md §1.4; a
 * function of the released prefix either way, so post-processing):
 *   BB_INDEF_REFUSE  keep it: no update until a release where every step's
 *                    is (BB_ENOTPD; databases created before this option)
 *   BB_INDEF_DOUBLE  the default: step h's ridge is doubled, at that
 *                    release, until its Lambda~_h is (at most
 *                    BB_RIDGE_DOUBLINGS times) */
enum bb_indefinite { BB_INDEF_REFUSE = 0, BB_INDEF_DOUBLE = 1 };
#define BB_RIDGE_DOUBLINGS 64

/* Rows count as in the simplex up to this rounding of their sum. */
#define BB_SIMPLEX_SLACK BB_FEATURE_SET_SLACK /* featureset.h */

/* Release start 'auto': k0 >= snr * d * sigma_y (params.c), snr
 * BB_RELEASE_START_SNR, or BB_RELEASE_START_SNR_ONEHOT for onehot rows
 * (bb_params_start_snr). */
#define BB_RELEASE_START_SNR 5.0
#define BB_RELEASE_START_SNR_ONEHOT 3.0
/* ... and at most K_max / BB_RELEASE_START_CAP (4 before the centred
 * targets: docs/RESULTS.md, "More levers", 2026-11-26). */
#define BB_RELEASE_START_CAP 5

struct bb_params {
    /* --- configuration (set by the caller, then bb_params_derive) --- */
    int H;              /* horizon, steps per episode */
    int d;              /* feature dimension */
    int A;              /* number of actions */
    long K_max;         /* maximum number of episodes */
    double rho;         /* zCDP budget; INFINITY = non-private */
    double epsilon;     /* if > 0 and rho unset (0), rho is solved from (epsilon, delta)
                           by the conversion; derived: the epsilon rho guarantees by it */
    double delta;       /* for the (epsilon, delta) report; default 1e-5 */
    enum bb_conversion conversion; /* (epsilon, delta) <-> rho; default CKS */
    double gram_share;  /* f: rho_gram = f*rho, rho_y = (1-f)*rho; default 0.5 */
    double failure_prob;/* p; default 0.05 */
    double update_ratio;/* C; default 2 */
    long max_updates_cap; /* configured N_max cap; 0 = the default bound */
    double beta;        /* bonus scale (tuned; see docs/RESULTS.md) */
    enum bb_calibration calibration;
    enum bb_update_rule update_rule;
    enum bb_mechanism mechanism;
    double release_base;  /* g of the release grid (grid mechanisms); default 1.5 */
    double release_start; /* k0: the first release point; 0 = auto (the default),
                             resolved by bb_params_derive */
    enum bb_bound shift_bound;
    double shift_scale;   /* lambda~ = shift_scale * the bound; 0 = auto (the
                             default), resolved by bb_params_derive: 0.25, or
                             0.4 of the diagonal bound of onehot rows */
    enum bb_indefinite indefinite; /* an indefinite Lambda~_h; default double */
    enum bb_value_clip value_clip;
    enum bb_prior_policy prior_policy;
    double y_exponent;    /* p: step h's y noise sigma_h is proportional to its
                             sensitivity Delta_h^p, at the same rho_y (docs/PRIVACY.md
                             §2); 0 = one sigma_y for every step */
    double prior_value;   /* kappa: the next values in step h's targets come from
                             step h+1's regression shrunk towards kappa times its
                             largest target instead of 0 (bb_params_prior_target,
                             lsvi.h; post-processing, docs/PRIVACY.md §3.2);
                             0 = towards 0, the paper's */
    enum bb_features features;
    enum bb_y_sensitivity y_sensitivity; /* which bound on y's change; default centred */
    double plausible_z;   /* z: clinics draw uniformly among the actions the y
                             noise cannot tell from the greedy one at z of its
                             sds (bb_billboard_plausible; post-processing,
                             docs/PRIVACY.md §3.4); 0 = always the greedy one */
    double plausible_floor; /* f: an action joins only where that noise's sd is at
                             least f of the step's value range H - h + 1 */

    /* --- derived by bb_params_derive --- */
    int is_private;     /* rho finite */
    int L;              /* tree levels: ceil(log2 K_max) + 1 */
    long releases;      /* R: release points, K_max (tree) or G (grid) */
    double sens_factor; /* S: sum of squared strategy coefficients an episode's
                           increment meets (tree and tree-honaker L, grid 1,
                           grid-sqrt sum c_l^2) */
    double prefix_sd;   /* largest per-entry sd of a released prefix's noise
                           (of its diagonal entries, the largest) */
    double rho_gram;    /* f * rho */
    double rho_y;       /* (1 - f) * rho */
    double sigma_gram;  /* sigma_Lambda = sqrt(H S / rho_gram), per node or increment */
    double shift;       /* lambda~ = shift_scale * bound (enum bb_bound) */
    double ridge;       /* diagonal added to every Gram matrix: 2*shift, or 1 if non-private */
    long max_updates;   /* N_max, a hard cap */
    double sigma_y;     /* the y noise if every step had the same: sqrt(2 H N_max
                           (H+1)^2 / rho_y), or with the remaining clip
                           sqrt(N_max H (H+1)(2H+1) / (3 rho_y)); the steps' own
                           are bb_params_sigma_y_step */
    double y_unit;      /* sigma_h = y_unit * Delta_h^p (bb_params_sigma_y_step) */
    double v_floor;     /* lower clip of V_{h+1}: 0 (corrected) or -INFINITY (paper) */

    /* Grids (noise.h) and the noise actually drawn. Snapping to a grid of
     * spacing g moves each coordinate by at most g/2, so the L2 sensitivity
     * grows by at most g*sqrt(#coordinates); the drawn sigma is inflated by
     * exactly that ratio so the zCDP costs above still hold. */
    double grid_gram;      /* grid of every Gram entry and node noise */
    double sigma_gram_eff; /* sigma_gram * (1 + grid_gram * d / sqrt 2) */
    double grid_y;         /* the grid of sigma_y_eff's step (each step has its
                              own: bb_params_grid_y_step) */
    double sigma_y_eff;    /* the largest y noise drawn at any step:
                              max_h bb_params_sigma_y_drawn_step(p, h) */
};

/* Fills p with the defaults (f = 0.2, p = 0.05, C = 2, delta = 1e-5, beta = 1,
 * corrected calibration, rare switching, mechanism auto on a g = 1.5 grid,
 * tight shift bound at scale auto (0.25, or 0.4 with onehot rows), its ridge
 * doubled where Lambda~_h is
 * indefinite, V clipped to the steps left, step h's
 * y noise proportional to its sensitivity, next values from regressions
 * shrunk towards 0.5 of each step's largest target) and zero sizes.
 * docs/RESULTS.md says how they were chosen. */
void bb_params_defaults(struct bb_params *p);

/* Validates the configuration in p and computes every derived field.
 * On error returns BB_EINVAL and writes a one-line reason into why (if
 * non-NULL); p's derived fields are then unspecified. */
int bb_params_derive(struct bb_params *p, char *why, size_t whylen) BB_WARN_UNUSED;

/* The configuration names of a mechanism ("tree", "grid", "grid-sqrt",
 * "auto", "tree-honaker") and of a bound ("paper", "tight"); NULL if
 * unknown. */
const char *bb_mechanism_name(enum bb_mechanism m);
const char *bb_bound_name(enum bb_bound b);
const char *bb_value_clip_name(enum bb_value_clip c);

/* The upper clip of V_{h+1} in the targets of step h (0-based): H, or
 * H - h - 1 with BB_VCLIP_REMAINING. */
double bb_params_value_cap(const struct bb_params *p, int h);

/* Step h's (0-based) regression-target sensitivity Delta_h = y_pair (1 + cap):
 * y_pair (H+1) with V clipped to [0, H], y_pair (H-h) with V clipped to the
 * steps left. */
double bb_params_y_sensitivity(const struct bb_params *p, int h);

/* The factor of the largest target in y's sensitivity: 1 where the
 * centred targets are in force and sqrt 2 where the nonnegative bound is
 * (a private run, BB_YSENS_CENTRED or BB_YSENS_NONNEGATIVE, simplex rows,
 * the corrected calibration), else 2 (the triangle inequality). */
double bb_params_y_pair(const struct bb_params *p);

/* The centre of step h's targets as a share of their largest value B_h:
 * BB_Y_CENTRE where the centred targets are in force (y_pair 1), else 0.
 * The engine subtracts c_h = centre * B_h times each row's entry sum from
 * its target before the sum, and adds c_h (Lambda~_h - ridge I) 1 back after
 * the noise (server/engine/lsvi.c). */
double bb_params_y_centre(const struct bb_params *p);

/* The plausible set's z and floor f were tuned against the noise of §2.1's
 * bound; with centred targets the drawn noise is 1/sqrt 2 of it, and the
 * billboard carries z u and f / u, u = sqrt 2 (1 elsewhere), so that the
 * set keeps the width it was tuned at in units of the drawn sd
 * (docs/PRIVACY.md §3.4). */
double bb_params_plausible_unit(const struct bb_params *p);
const char *bb_y_sensitivity_name(enum bb_y_sensitivity s);
const char *bb_indefinite_name(enum bb_indefinite i);

/* Step h's y noise before grid inflation: sigma_y when every step has the
 * same (exponent 0, the horizon clip, the paper's calibration), else
 * y_unit * Delta_h^p, so that sum_h Delta_h^2 / sigma_h^2 is the same as with
 * sigma_y everywhere: the same rho_y. 0 when non-private. */
double bb_params_sigma_y_step(const struct bb_params *p, int h);

/* Step h's y grid (noise.h), and the noise drawn there: sigma_h inflated by
 * the grid's slack, sigma_h (1 + g_h sqrt(d) / Delta_h), so the ratio of
 * sensitivity to noise, and with it rho_y, holds after snapping. */
double bb_params_grid_y_step(const struct bb_params *p, int h);
double bb_params_sigma_y_drawn_step(const struct bb_params *p, int h);

/* Step h's y noise when its next values are clipped at cap, at most
 * bb_params_value_cap(p, h): the sensitivity 2(1 + cap) and sigma scaled
 * together from the _step values (sigma_at = sigma_step * (1 + cap) /
 * (1 + value_cap)), so the step's rho is the same for every cap; the grid
 * is the one for that sigma, and _drawn_at inflates for snapping to it as
 * _drawn_step does. At cap = bb_params_value_cap(p, h) they equal the
 * _step values. */
double bb_params_sigma_y_at(const struct bb_params *p, int h, double cap);
double bb_params_grid_y_at(const struct bb_params *p, int h, double cap);
double bb_params_sigma_y_drawn_at(const struct bb_params *p, int h, double cap);

/* Whether the backward pass clips the next values at the bound from the
 * released regression and scales the y noise with it: a private run with
 * the corrected calibration and simplex rows (bb_params_simplex_rows). */
int bb_params_next_bound(const struct bb_params *p);

/* Whether the declared rows lie in the simplex: BB_FEATURES_SIMPLEX or
 * BB_FEATURES_ONEHOT. */
int bb_params_simplex_rows(const struct bb_params *p);

/* Whether every Gram sum is diagonal, so the mechanisms noise the diagonal
 * only (noise.h, bb_sym_sampler): BB_FEATURES_ONEHOT. */
int bb_params_diagonal_gram(const struct bb_params *p);

/* The ratio the auto release start asks of k0 / d against sigma_y:
 * BB_RELEASE_START_SNR_ONEHOT for onehot rows, BB_RELEASE_START_SNR
 * otherwise (docs/PRIVACY.md §1.2). A function of the configuration only. */
double bb_params_start_snr(const struct bb_params *p);

/* Whether a feature row lies in the declared set beyond the unit ball: for
 * simplex rows, every entry >= 0 and their sum <= 1 + BB_SIMPLEX_SLACK; for
 * BB_FEATURES_ONEHOT also at most one entry nonzero; always for
 * BB_FEATURES_BALL. The reason into why. */
int bb_params_feature_row_ok(const struct bb_params *p, const double *phi, char *why,
                             size_t whylen);

const char *bb_features_name(enum bb_features f);

/* The value step h's (0-based) regression is shrunk towards when it gives
 * the next values of step h-1's targets, in a private run: m_h = kappa *
 * Delta_h / 2, kappa times the step's largest target (1 + value cap).
 * lsvi.c solves u_h = Lambda~_h^-1 (y~_h + ridge m_h 1): with no data in a
 * direction, phi . u_h = m_h for features whose coordinates sum to 1
 * (one-hot, the simplex), instead of 0, and the pull fades as
 * ridge / (n + ridge) with the n visits. The published w_h stays
 * Lambda~_h^-1 y~_h. 0 when non-private (textbook LSVI-UCB, ridge 1) or
 * kappa = 0. A function of public constants. */
double bb_params_prior_target(const struct bb_params *p, int h);

/* The mechanisms' parameters in words, for GET /v1/privacy: the Gram
 * mechanism's ("L=18", "g=1.5 k0=1") into gram, y's ("value clip
 * remaining") into y. */
void bb_params_describe(const struct bb_params *p, char *gram, size_t gramlen, char *y,
                        size_t ylen);

/* epsilon(rho, delta) = rho + 2 sqrt(rho ln(1/delta)) (Bun–Steinke 2016, Prop. 1.3). */
double bb_epsilon_from_rho(double rho, double delta);

/* The rho solving epsilon = rho + 2 sqrt(rho ln(1/delta)). */
double bb_rho_from_epsilon(double epsilon, double delta);

/* The tighter conversion of Canonne–Kamath–Steinke 2020 (Prop. 12):
 * inf over alpha > 1 of the resulting epsilon. The value returned is that
 * of an alpha actually evaluated, so never below the infimum: a sound
 * epsilon for rho. */
double bb_epsilon_from_rho_cks(double rho, double delta);

/* The largest rho (to 1e-12 relative, rounded down) whose CKS epsilon is
 * at most epsilon: bb_epsilon_from_rho_cks(result, delta) <= epsilon. */
double bb_rho_from_epsilon_cks(double epsilon, double delta);

/* The conversion's epsilon for rho, and its rho for (epsilon, delta). */
double bb_conversion_epsilon(enum bb_conversion c, double rho, double delta);
double bb_conversion_rho(enum bb_conversion c, double epsilon, double delta);
const char *bb_conversion_name(enum bb_conversion c);

/* zCDP spent by the Gram trees after k episodes (each episode's full cost is
 * charged when it is added): k > 0 ? rho_gram : 0 — the tree cost does not grow
 * with k because every episode lies in L nodes of each tree. */
double bb_params_rho_gram_spent(const struct bb_params *p, long episodes);

/* zCDP spent on y after n updates: n * rho_y / N_max. */
double bb_params_rho_y_spent(const struct bb_params *p, long updates);

#endif
