/*
 * features.c — the declared feature set (features.h).
 */
#include "features.h"

#include <stdio.h>

#include "paramset.h"

int bb_params_simplex_rows(const struct bb_params *p)
{
    return p->features == BB_FEATURES_SIMPLEX || p->features == BB_FEATURES_ONEHOT;
}

int bb_params_diagonal_gram(const struct bb_params *p)
{
    return p->features == BB_FEATURES_ONEHOT;
}

int bb_params_feature_row_ok(const struct bb_params *p, const double *phi, char *why, size_t whylen)
{
    if (!bb_params_simplex_rows(p))
        return 1;
    const int onehot = p->features == BB_FEATURES_ONEHOT;
    const char *set = onehot ? "onehot (every entry >= 0, their sum <= 1, at most one nonzero)"
                             : "simplex (every entry >= 0, their sum <= 1)";
    double sum = 0;
    int nonzero = 0;
    for (int j = 0; j < p->d; j++) {
        if (phi[j] < 0) {
            if (why && whylen)
                snprintf(why, whylen,
                         "feature %d is negative; this billboard's features are declared %s", j,
                         set);
            return 0;
        }
        sum += phi[j];
        nonzero += phi[j] != 0;
    }
    if (sum > 1.0 + BB_SIMPLEX_SLACK) {
        if (why && whylen)
            snprintf(why, whylen,
                     "feature row sums to %.12g; this billboard's features are declared %s", sum,
                     set);
        return 0;
    }
    if (onehot && nonzero > 1) {
        if (why && whylen)
            snprintf(why, whylen,
                     "feature row has %d nonzero entries; this billboard's features are "
                     "declared %s",
                     nonzero, set);
        return 0;
    }
    return 1;
}
