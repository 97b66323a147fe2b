/*
 * featureset.c — the declared feature sets (featureset.h).
 */
#include "featureset.h"

#include <stdio.h>
#include <string.h>

int bb_feature_set_parse(const char *name, enum bb_feature_set *out)
{
    static const char *const names[] = {"ball", "simplex", "onehot"};
    for (int i = 0; i < 3; i++)
        if (name && strcmp(name, names[i]) == 0) {
            *out = (enum bb_feature_set)i;
            return 0;
        }
    return -1;
}

int bb_feature_row_in_set(enum bb_feature_set set, const double *phi, int d, double slack,
                          char *why, size_t whylen)
{
    if (set == BB_FEATURE_SET_BALL)
        return 1;
    const int onehot = set == BB_FEATURE_SET_ONEHOT;
    const char *declared = onehot ? "onehot (every entry >= 0, their sum <= 1, at most one nonzero)"
                                  : "simplex (every entry >= 0, their sum <= 1)";
    double sum = 0;
    int nonzero = 0;
    for (int j = 0; j < d; j++) {
        if (phi[j] < 0) {
            if (why && whylen)
                snprintf(why, whylen,
                         "feature %d is negative; this billboard's features are declared %s", j,
                         declared);
            return 0;
        }
        sum += phi[j];
        nonzero += phi[j] != 0;
    }
    if (sum > 1.0 + slack) {
        if (why && whylen)
            snprintf(why, whylen,
                     "feature row sums to %.12g; this billboard's features are declared %s", sum,
                     declared);
        return 0;
    }
    if (onehot && nonzero > 1) {
        if (why && whylen)
            snprintf(why, whylen,
                     "feature row has %d nonzero entries; this billboard's features are "
                     "declared %s",
                     nonzero, declared);
        return 0;
    }
    return 1;
}
