/*
 * features.h — the declared set of the clinics' feature rows (enum
 * bb_features): what the engine accepts, and what that set lets the
 * mechanisms and the y noise assume (docs/PRIVACY.md §1.6, §2.2, §3.3).
 */
#ifndef BB_FEATURES_H
#define BB_FEATURES_H

#include <stddef.h>

struct bb_params;

/* Rows count as in the simplex up to this rounding of their sum. */
#define BB_SIMPLEX_SLACK 1e-9

/* Whether the declared rows lie in the simplex: BB_FEATURES_SIMPLEX or
 * BB_FEATURES_ONEHOT. */
int bb_params_simplex_rows(const struct bb_params *p);

/* Whether every Gram sum is diagonal, so the mechanisms noise the diagonal
 * only (noise.h, bb_sym_sampler): BB_FEATURES_ONEHOT. */
int bb_params_diagonal_gram(const struct bb_params *p);

/* Whether a feature row lies in the declared set beyond the unit ball: for
 * simplex rows, every entry >= 0 and their sum <= 1 + BB_SIMPLEX_SLACK; for
 * BB_FEATURES_ONEHOT also at most one entry nonzero; always for
 * BB_FEATURES_BALL. The reason into why. */
int bb_params_feature_row_ok(const struct bb_params *p, const double *phi, char *why,
                             size_t whylen);

#endif
