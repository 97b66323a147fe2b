/*
 * enums.h — the configuration's enums and their names.
 *
 * Each value is the stored configuration key of its choice (databases keep
 * the number's name, and bb_config_load reads it back), so values are never
 * renumbered. One table per enum gives every value's configuration name;
 * config.c parses and prints with the same tables, and --help lists them.
 * The mechanisms' names are the mechanisms' own (mech.c's table).
 */
#ifndef BB_ENUMS_H
#define BB_ENUMS_H

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
 *   BB_FEATURES_TABULAR  onehot rows in the tabular layout: a state s's row
 *                        of action a is e_{sA+a}, d = S A, so the state an
 *                        episode moved to is known from its rows. Everything
 *                        onehot gives, and the next values in the targets
 *                        come from transition counts released once
 *                        (cstream.h; docs/PRIVACY.md §2.6)
 *   BB_FEATURES_AUTO     the simulator's: the smallest of tabular, onehot,
 *                        simplex, ball that holds every row of the environment's
 *                        feature map; bb_params_derive refuses it */
enum bb_features {
    BB_FEATURES_BALL = 0,
    BB_FEATURES_SIMPLEX = 1,
    BB_FEATURES_ONEHOT = 2,
    BB_FEATURES_TABULAR = 3,
    BB_FEATURES_AUTO = 4,
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

/* What the engine does at a release where step h's Lambda~_h = released
 * prefix + ridge I is not positive definite (docs/PRIVACY.md §1.4; a
 * function of the released prefix either way, so post-processing):
 *   BB_INDEF_REFUSE  keep it: no update until a release where every step's
 *                    is (BB_ENOTPD; databases created before this option)
 *   BB_INDEF_DOUBLE  the default: step h's ridge is doubled, at that
 *                    release, until its Lambda~_h is (at most
 *                    BB_RIDGE_DOUBLINGS times) */
enum bb_indefinite { BB_INDEF_REFUSE = 0, BB_INDEF_DOUBLE = 1 };

/* Whether every rounding before the noise is inside the sensitivity the
 * noise is drawn for (docs/PRIVACY.md §5; a stored key of the
 * configuration, not a flag):
 *   BB_ARITH_FLOAT  as databases created before it have it: y_h summed in
 *                   floating point (cblas_dgemv) and only the sum snapped,
 *                   and a Gram product phi_i phi_j's own rounding (at most
 *                   2^-54) not charged beside its snap
 *   BB_ARITH_EXACT  the default: every term phi_ij t_i of y_h snapped to
 *                   the noise grid and the terms added exactly (the change
 *                   is at most Delta_h + 2 g_h sqrt d), and the Gram
 *                   inflation charges each product's rounding, d 2^-53 in
 *                   all (||D||_F <= sqrt 2 + (g + 2^-53) d) */
enum bb_arithmetic { BB_ARITH_FLOAT = 0, BB_ARITH_EXACT = 1 };

/* Where the rewards in the regression targets are released (stored key
 * `rewards`, never a flag; docs/PRIVACY.md §2.4):
 *   BB_REWARDS_UPDATE  as databases created before it have it: y_h, rewards
 *                      and next values together, noised at every update
 *   BB_REWARDS_STREAM  the default: the reward part sum_i phi_h^i r_h^i by
 *                      continual release on the Gram matrices' grid
 *                      (rstream.h), once for every update; each update
 *                      noises only the next-value part */
enum bb_rewards { BB_REWARDS_UPDATE = 0, BB_REWARDS_STREAM = 1 };

/* How a clinic explores after an update (stored key `explore`, never a
 * flag; post-processing, docs/PRIVACY.md §3.6):
 *   BB_EXPLORE_SET     as databases created before it have it: uniformly
 *                      among the plausible set (plausible_z, bb_billboard_plausible)
 *   BB_EXPLORE_SAMPLE  the default: the best action under a sample of the
 *                      y noise the billboard carries (bb_billboard_sample) */
enum bb_explore { BB_EXPLORE_SET = 0, BB_EXPLORE_SAMPLE = 1 };

/* How the prior of the next values ends (stored key `final-prior`, never a
 * flag; bb_params_prior_cut; post-processing, docs/PRIVACY.md §3.2):
 *   BB_FINAL_PRIOR_KEPT   as databases created before the key have it:
 *                         every update's next values are shrunk towards
 *                         the prior, the final one's too
 *   BB_FINAL_PRIOR_NONE   as databases created before the taper have it:
 *                         the final update's (bb_schedule_final) towards 0; the
 *                         prior makes thinly visited cells worth a visit,
 *                         which no later update can put to use
 *   BB_FINAL_PRIOR_TAPER  the default: every update's prior weighs the root
 *                         of the share of K_max that comes after the next
 *                         release point, what is left to use what it
 *                         explores; 0 at the final update */
enum bb_final_prior { BB_FINAL_PRIOR_KEPT = 0, BB_FINAL_PRIOR_NONE = 1, BB_FINAL_PRIOR_TAPER = 2 };

/* How each episode's rows weigh in the sums (stored key `row-weight`,
 * never a flag; bb_params_row_weight, docs/PRIVACY.md §1.7):
 *   BB_ROW_WEIGHT_ONE   as databases created before the key have it: every
 *                       row weighs 1
 *   BB_ROW_WEIGHT_NORM  the default: a row weighs as much as the
 *                       sensitivity bounds of its declared set allow,
 *                       ||phi||_1/||phi||_2 for simplex rows, 1/||phi||_2
 *                       for ball rows, 1 for one-hot and tabular rows */
enum bb_row_weight { BB_ROW_WEIGHT_ONE = 0, BB_ROW_WEIGHT_NORM = 1 };
#define BB_RIDGE_DOUBLINGS 64

/* The names of each enum's values, indexed by value, NULL after the last:
 * "corrected", "paper"; "rare", "every", "release"; "paper", "tight";
 * "horizon", "remaining"; "uniform", "greedy"; "ball", "simplex",
 * "onehot", "tabular", "auto"; "bun-steinke", "cks"; "triangle", "nonnegative",
 * "centred"; "refuse", "double"; "float", "exact"; "update", "stream";
 * "set", "sample"; "kept", "none", "taper"; "one", "norm".
 * Static. */
extern const char *const bb_calibration_names[];
extern const char *const bb_update_rule_names[];
extern const char *const bb_bound_names[];
extern const char *const bb_value_clip_names[];
extern const char *const bb_prior_policy_names[];
extern const char *const bb_features_names[];
extern const char *const bb_conversion_names[];
extern const char *const bb_y_sensitivity_names[];
extern const char *const bb_indefinite_names[];
extern const char *const bb_arithmetic_names[];
extern const char *const bb_rewards_names[];
extern const char *const bb_explore_names[];
extern const char *const bb_final_prior_names[];
extern const char *const bb_row_weight_names[];

/* names[v], or NULL if v is not a value of the table's enum. */
const char *bb_enum_name(const char *const *names, int v);

/* The configuration name of a value; NULL if it is not one. Static. */
const char *bb_calibration_name(enum bb_calibration c);
const char *bb_update_rule_name(enum bb_update_rule r);
const char *bb_bound_name(enum bb_bound b);
const char *bb_value_clip_name(enum bb_value_clip c);
const char *bb_prior_policy_name(enum bb_prior_policy p);
const char *bb_features_name(enum bb_features f);
const char *bb_conversion_name(enum bb_conversion c);
const char *bb_y_sensitivity_name(enum bb_y_sensitivity s);
const char *bb_indefinite_name(enum bb_indefinite i);
const char *bb_arithmetic_name(enum bb_arithmetic s);
const char *bb_rewards_name(enum bb_rewards r);
const char *bb_explore_name(enum bb_explore e);
const char *bb_final_prior_name(enum bb_final_prior f);
const char *bb_row_weight_name(enum bb_row_weight w);

/* A mechanism's name ("tree", "grid", "grid-sqrt", "auto",
 * "tree-honaker"), from its entry in mech.c's table; NULL if unknown. */
const char *bb_mechanism_name(enum bb_mechanism m);

/* Whether mechanism m releases after every episode (the trees; the others
 * release on the grid of bb_release_grid). 0 for auto and unknown values. */
int bb_mechanism_is_tree(enum bb_mechanism m);

#endif
