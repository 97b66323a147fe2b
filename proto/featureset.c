/*
 * featureset.c — the declared feature sets (featureset.h).
 */
#include "featureset.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int bb_feature_set_parse(const char *name, enum bb_feature_set *out)
{
    static const char *const names[] = {"ball", "simplex", "onehot", "tabular"};
    for (int i = 0; i < 4; i++)
        if (name && strcmp(name, names[i]) == 0) {
            *out = (enum bb_feature_set)i;
            return 0;
        }
    return -1;
}

/* Whether the exact real sum of the n finite x_j >= 0 exceeds 1, not the
 * rounded one (docs/PRIVACY.md §3.3, "Which rows are in the simplex"): the
 * entries and -1 summed into Shewchuk's nonoverlapping partials (the
 * msum of Python's math.fsum; Fast2Sum of |a| >= |b| is exact in IEEE
 * double with round to nearest), whose largest nonzero one has the exact
 * sum's sign. An entry above 1 decides at once, so no partial overflows;
 * nonoverlapping partials of doubles in (-2^11, 2^11) number fewer than
 * 1100, and more would be refused, never accepted. */
static int sum_exceeds_one(const double *x, int n)
{
    double part[1100];
    int np = 0;
    for (int j = 0; j <= n; j++) {
        double v = j < n ? x[j] : -1.0;
        if (!(v <= 1.0)) /* and NaN */
            return 1;
        int i = 0;
        for (int k = 0; k < np; k++) {
            double y = part[k];
            if (fabs(v) < fabs(y)) {
                double t = v;
                v = y;
                y = t;
            }
            double hi = v + y, lo = y - (hi - v);
            if (lo != 0)
                part[i++] = lo;
            v = hi;
        }
        if (i >= (int)(sizeof(part) / sizeof(part[0])))
            return 1;
        part[i] = v;
        np = i + 1;
    }
    for (int k = np - 1; k >= 0; k--)
        if (part[k] != 0)
            return part[k] > 0;
    return 0;
}

int bb_feature_row_in_set(enum bb_feature_set set, const double *phi, int d, char *why,
                          size_t whylen)
{
    if (set == BB_FEATURE_SET_BALL)
        return 1;
    const int onehot = set == BB_FEATURE_SET_ONEHOT || set == BB_FEATURE_SET_TABULAR;
    const char *declared =
        set == BB_FEATURE_SET_TABULAR ? "tabular (a state's row of action a is e_{sA+a})"
        : onehot                      ? "onehot (every entry >= 0, their sum <= 1, at most one nonzero)"
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
    if (sum_exceeds_one(phi, d)) {
        /* Rounded up where the nearest double of the sum reads as 1. */
        double shown = sum > 1.0 + 1e-11 ? sum : nextafter(1.0, 2.0);
        if (why && whylen)
            snprintf(why, whylen,
                     sum > 1.0 + 1e-11
                         ? "feature row sums to %.12g; this billboard's features are declared %s"
                         : "feature row sums to %.17g; this billboard's features are declared %s",
                     shown, declared);
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

int bb_feature_state_in_set(enum bb_feature_set set, const double *features, int A, int d,
                            int *state, int *bad, char *why, size_t whylen)
{
    int s = -1;
    if (state)
        *state = -1;
    for (int a = 0; a < A; a++) {
        const double *phi = features + (size_t)a * d;
        if (bb_feature_row_in_set(set, phi, d, why, whylen) == 0) {
            if (bad)
                *bad = a;
            return 0;
        }
        if (set != BB_FEATURE_SET_TABULAR)
            continue;
        int one = -1;
        for (int j = 0; j < d; j++)
            if (phi[j] != 0)
                one = j;
        const int at = s < 0 && one >= 0 ? one - a : s * A + a;
        if (d % A != 0 || one < 0 || phi[one] != 1.0 || one != at || at % A != a) {
            if (bad)
                *bad = a;
            if (why && whylen) {
                if (d % A != 0)
                    snprintf(why, whylen,
                             "this billboard's features are declared tabular but d = %d is not "
                             "a multiple of A = %d",
                             d, A);
                else if (s < 0)
                    snprintf(why, whylen,
                             "the row of action %d is not e_{sA+%d} for a state s; this "
                             "billboard's features are declared tabular (a state's row of "
                             "action a is e_{sA+a})",
                             a, a);
                else
                    snprintf(why, whylen,
                             "the row of action %d is not e_%d, the row of state %d; this "
                             "billboard's features are declared tabular (a state's row of "
                             "action a is e_{sA+a})",
                             a, s * A + a, s);
            }
            return 0;
        }
        s = at / A;
    }
    if (state)
        *state = s;
    return 1;
}
