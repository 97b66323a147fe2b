/*
 * features.c — the declared feature set (features.h).
 */
#include "features.h"

#include "featureset.h"
#include "paramset.h"

int bb_params_simplex_rows(const struct bb_params *p)
{
    return p->features == BB_FEATURES_SIMPLEX || p->features == BB_FEATURES_ONEHOT;
}

double bb_params_row_slack(const struct bb_params *p)
{
    if (bb_params_simplex_rows(p) || p->arithmetic != BB_ARITH_EXACT || !p->is_private)
        return 0.0;
    const double du = (double)p->d * 0x1p-53, gamma = du / (1.0 - du);
    return gamma / (1.0 - gamma);
}

int bb_params_diagonal_gram(const struct bb_params *p)
{
    return p->features == BB_FEATURES_ONEHOT;
}

int bb_params_feature_row_ok(const struct bb_params *p, const double *phi, char *why, size_t whylen)
{
    if (!bb_params_simplex_rows(p))
        return 1;
    enum bb_feature_set set =
        p->features == BB_FEATURES_ONEHOT ? BB_FEATURE_SET_ONEHOT : BB_FEATURE_SET_SIMPLEX;
    return bb_feature_row_in_set(set, phi, p->d, why, whylen);
}
