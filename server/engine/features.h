/*
 * features.h — the declared set of the clinics' feature rows (enum
 * bb_features): what the engine accepts, and what that set lets the
 * mechanisms and the y noise assume (docs/PRIVACY.md §1.6, §2.2, §3.3).
 */
#ifndef BB_FEATURES_H
#define BB_FEATURES_H

#include <stddef.h>

struct bb_params;

/* The next-value bound's margin over the simplex's corners (lsvi.h), for
 * the rounding of computing it; the rows themselves are checked exactly
 * (bb_params_feature_row_ok). */
#define BB_SIMPLEX_SLACK 1e-9

/* Whether the declared rows lie in the simplex: BB_FEATURES_SIMPLEX,
 * BB_FEATURES_ONEHOT or BB_FEATURES_TABULAR. */
int bb_params_simplex_rows(const struct bb_params *p);

/* How far above 1 the squared norm of an accepted ball row can be: the
 * check (bb_feature_row_check) compares the floating-point sum of the d
 * squares with 1, whose error is at most gamma_d times the exact sum, so an
 * accepted row has ||phi||^2 <= 1 / (1 - gamma_d) = 1 + eta, eta =
 * gamma_d / (1 - gamma_d), gamma_d = d u / (1 - d u), u = 2^-53. With
 * exact arithmetic (enums.h) every sensitivity of a ball row is charged
 * (1 + eta) times its unit-ball value; 0 for simplex rows (their exact
 * check keeps ||phi||_2 <= ||phi||_1 <= 1) and with float arithmetic. */
double bb_params_row_slack(const struct bb_params *p);

/* The weight w of the row phi in every sum that takes it (stored key
 * `row-weight`, docs/PRIVACY.md §1.7): the Gram matrices take
 * (sqrt(w) phi)(sqrt(w) phi)^T, the targets and the reward streams w phi t.
 * With `norm`, w is as large as the sensitivity bounds of the declared set
 * allow: ||phi||_1/||phi||_2 for simplex rows, so that ||w phi||_2 =
 * ||phi||_1 <= 1 and every bound that used ||phi||_2 <= ||phi||_1 holds as
 * it stood; 1/||phi||_2 for ball rows, so that ||w phi||_2 <= 1; 1 for
 * one-hot and tabular rows, where both are 1. Each is the computed ratio
 * times (1 - 2^-40), which keeps it below the exact ratio by more than the
 * rounding of computing it (at most (1.5d + 2) 2^-53 relative, d <= 1024),
 * and w = 1 where that is below 1 and for a row whose squared norm is
 * below 2^-900 or 0 (where underflow could spoil the ratio, and 1 is
 * within every bound). Always 1 with `one` (which the paper's calibration
 * sets) and without privacy, where no sensitivity bound asks for a weight:
 * the non-private runs are Alg. 1's plain ridge regression. Promises, for
 * every accepted row: w >= 1; ||w phi||_2 <= ||phi||_1 for simplex rows
 * and <= 1 for ball rows; w ||phi||_2^2 <= 1 (the Gram's unit-ball
 * bound). */
double bb_params_row_weight(const struct bb_params *p, const double *phi);

/* Whether every Gram sum is diagonal, so the mechanisms noise the diagonal
 * only (noise.h, bb_sym_sampler): BB_FEATURES_ONEHOT or _TABULAR. */
int bb_params_diagonal_gram(const struct bb_params *p);

/* Whether the rows are declared tabular (enums.h): the state an episode
 * moved to is known from its rows (bb_params_state_ok). */
int bb_params_tabular(const struct bb_params *p);

/* Whether the A rows of one state (A x d) lie in the declared set
 * (bb_feature_state_in_set): for tabular rows its state into *state (-1
 * for other sets; may be NULL), else 0 with the first bad action into *bad
 * and the reason into why. */
int bb_params_state_ok(const struct bb_params *p, const double *rows, int *state, int *bad,
                       char *why, size_t whylen);

/* Whether a feature row lies in the declared set beyond the unit ball: for
 * simplex rows, every entry >= 0 and their exact real sum <= 1; for
 * BB_FEATURES_ONEHOT and _TABULAR also at most one entry nonzero (the
 * tabular layout is a state's, bb_params_state_ok); always for
 * BB_FEATURES_BALL. The reason into why. */
int bb_params_feature_row_ok(const struct bb_params *p, const double *phi, char *why,
                             size_t whylen);

#endif
