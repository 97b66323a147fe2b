/*
 * features.c — the declared feature set (features.h).
 */
#include "features.h"

#include <math.h>

#include "featureset.h"
#include "mutation.h"
#include "paramset.h"

int bb_params_simplex_rows(const struct bb_params *p)
{
    return p->features == BB_FEATURES_SIMPLEX || p->features == BB_FEATURES_ONEHOT ||
           p->features == BB_FEATURES_TABULAR;
}

double bb_params_row_slack(const struct bb_params *p)
{
    if (bb_params_simplex_rows(p) || p->arithmetic != BB_ARITH_EXACT || !p->is_private)
        return 0.0;
    const double du = (double)p->d * 0x1p-53, gamma = du / (1.0 - du);
    return gamma / (1.0 - gamma);
}

double bb_params_row_weight(const struct bb_params *p, const double *phi)
{
    if (p->row_weight != BB_ROW_WEIGHT_NORM || !p->is_private || bb_params_diagonal_gram(p))
        return 1.0;
    double sum = 0, sq = 0;
    for (int j = 0; j < p->d; j++) {
        sum += phi[j];
        sq += phi[j] * phi[j];
    }
    if (!(sq >= 0x1p-900))
        return 1.0;
    double w = (p->features == BB_FEATURES_SIMPLEX ? sum : 1.0) / sqrt(sq);
    if (BB_MUTANT(WEIGHT_SQUARED))
        w *= w;
    return w * (1.0 - 0x1p-40) > 1.0 ? w * (1.0 - 0x1p-40) : 1.0;
}

int bb_params_diagonal_gram(const struct bb_params *p)
{
    return p->features == BB_FEATURES_ONEHOT || p->features == BB_FEATURES_TABULAR;
}

int bb_params_tabular(const struct bb_params *p)
{
    return p->features == BB_FEATURES_TABULAR;
}

/* The protocol's name of the declared set. */
static enum bb_feature_set set_of(const struct bb_params *p)
{
    switch (p->features) {
    case BB_FEATURES_ONEHOT:
        return BB_FEATURE_SET_ONEHOT;
    case BB_FEATURES_TABULAR:
        return BB_FEATURE_SET_TABULAR;
    case BB_FEATURES_SIMPLEX:
        return BB_FEATURE_SET_SIMPLEX;
    default:
        return BB_FEATURE_SET_BALL;
    }
}

int bb_params_state_ok(const struct bb_params *p, const double *rows, int *state, int *bad,
                       char *why, size_t whylen)
{
    return bb_feature_state_in_set(set_of(p), rows, p->A, p->d, state, bad, why, whylen);
}

int bb_params_feature_row_ok(const struct bb_params *p, const double *phi, char *why, size_t whylen)
{
    return bb_feature_row_in_set(set_of(p), phi, p->d, why, whylen);
}
