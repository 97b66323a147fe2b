/*
 * featureset.h — the feature sets a deployment may declare (billboardd
 * --features, "features" of GET /v1/config) and the check that a row lies
 * in one. The daemon's engine (bb_params_feature_row_ok) and the clinic's
 * library (before a step is stored or a recommendation is made) use this
 * one function, so both refuse the same rows with the same words.
 */
#ifndef BB_FEATURESET_H
#define BB_FEATURESET_H

#include <stddef.h>

enum bb_feature_set {
    BB_FEATURE_SET_BALL = 0,    /* any row of L2 norm <= 1 (bb_feature_row_check) */
    BB_FEATURE_SET_SIMPLEX = 1, /* every entry >= 0, their sum <= 1 */
    BB_FEATURE_SET_ONEHOT = 2,  /* simplex, and at most one entry nonzero */
    BB_FEATURE_SET_TABULAR = 3, /* a state's rows phi(s, a) = e_{sA+a}, d = S A */
};

/* The set named name ("ball", "simplex", "onehot", "tabular") into *out:
 * 0, or -1 for another name. */
int bb_feature_set_parse(const char *name, enum bb_feature_set *out);

/* 1 if the d entries of phi lie in set — for simplex and onehot, every
 * entry >= 0 and the exact real sum of the doubles <= 1 (docs/PRIVACY.md
 * §3.3: rounding never accepts a row outside), else 0 with the reason into why
 * ("feature 0 is negative; this billboard's features are declared simplex
 * (...)"). The ball's own bound is bb_feature_row_check's: always 1 here. */
int bb_feature_row_in_set(enum bb_feature_set set, const double *phi, int d, char *why,
                          size_t whylen);

/* 1 if the A rows of one state (A x d, row a action a's) lie in set: each
 * row by bb_feature_row_in_set, and for tabular the rows are e_{sA+a} of
 * one state s < d / A (d a multiple of A), which goes into *state (may be
 * NULL; -1 for other sets). Else 0, the first bad row into *bad (may be
 * NULL) and the reason into why. */
int bb_feature_state_in_set(enum bb_feature_set set, const double *features, int A, int d,
                            int *state, int *bad, char *why, size_t whylen);

#endif
