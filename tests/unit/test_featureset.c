/*
 * test_featureset.c — the declared feature sets (proto/featureset.h), the
 * one check the daemon's engine and the clinic's library share: the names
 * parse; the ball leaves rows to the norm check; simplex refuses a negative
 * entry and a sum above 1 with the words the daemon answers;
 * onehot also refuses a second nonzero entry; tabular also a state whose
 * rows are not e_{sA+a} of one s; and the engine's bb_params_feature_row_ok
 * and bb_params_state_ok give the same verdicts and words.
 */
#include "testutil.h"

#include <string.h>

#include "engine/params.h"
#include "featureset.h"

static void test_parse(void **state)
{
    (void)state;
    enum bb_feature_set s = BB_FEATURE_SET_ONEHOT;
    assert_int_equal(bb_feature_set_parse("ball", &s), 0);
    assert_int_equal(s, BB_FEATURE_SET_BALL);
    assert_int_equal(bb_feature_set_parse("simplex", &s), 0);
    assert_int_equal(s, BB_FEATURE_SET_SIMPLEX);
    assert_int_equal(bb_feature_set_parse("onehot", &s), 0);
    assert_int_equal(s, BB_FEATURE_SET_ONEHOT);
    assert_int_equal(bb_feature_set_parse("tabular", &s), 0);
    assert_int_equal(s, BB_FEATURE_SET_TABULAR);
    assert_int_equal(bb_feature_set_parse("auto", &s), -1);
    assert_int_equal(bb_feature_set_parse(NULL, &s), -1);
}

static void test_rows(void **state)
{
    (void)state;
    char why[256];
    const double neg[] = {0.2, -0.1, 0.3}, over[] = {0.5, 0.4, 0.2}, edge[] = {0.5, 0.5, 1e-10},
                 two[] = {0.5, 0.5, 0}, one[] = {0, 0.7, 0};
    assert_int_equal(bb_feature_row_in_set(BB_FEATURE_SET_BALL, neg, 3, why, sizeof(why)), 1);
    assert_int_equal(bb_feature_row_in_set(BB_FEATURE_SET_SIMPLEX, neg, 3, why, sizeof(why)),
                     0);
    assert_string_equal(why, "feature 1 is negative; this billboard's features are declared "
                             "simplex (every entry >= 0, their sum <= 1)");
    assert_int_equal(bb_feature_row_in_set(BB_FEATURE_SET_SIMPLEX, over, 3, why, sizeof(why)),
                     0);
    assert_non_null(strstr(why, "feature row sums to 1.1; "));
    /* Exactly: a sum above 1 by any amount is refused (docs/PRIVACY.md §3.3). */
    assert_int_equal(bb_feature_row_in_set(BB_FEATURE_SET_SIMPLEX, edge, 3, why, sizeof(why)),
                     0);
    assert_int_equal(bb_feature_row_in_set(BB_FEATURE_SET_SIMPLEX, two, 3, why, sizeof(why)),
                     1);
    assert_int_equal(bb_feature_row_in_set(BB_FEATURE_SET_ONEHOT, two, 3, why, sizeof(why)),
                     0);
    assert_non_null(strstr(why, "feature row has 2 nonzero entries; this billboard's features "
                                "are declared onehot"));
    assert_int_equal(bb_feature_row_in_set(BB_FEATURE_SET_ONEHOT, one, 3, NULL, 0), 1);
}

/* Tabular: A = 2, d = 6 (S = 3); the rows of state s are e_{2s}, e_{2s+1}. */
static void test_tabular_states(void **state)
{
    (void)state;
    char why[256];
    int st = 7, bad = 7;
    double rows[2][6] = {{0}};
    rows[0][4] = 1, rows[1][5] = 1; /* state 2 */
    assert_int_equal(bb_feature_state_in_set(BB_FEATURE_SET_TABULAR, rows[0], 2, 6, &st, &bad,
                                             why, sizeof(why)),
                     1);
    assert_int_equal(st, 2);
    /* onehot and the others accept it too, and name no state */
    assert_int_equal(bb_feature_state_in_set(BB_FEATURE_SET_ONEHOT, rows[0], 2, 6, &st, NULL,
                                             NULL, 0),
                     1);
    assert_int_equal(st, -1);
    /* the second row of another state */
    rows[1][5] = 0, rows[1][3] = 1;
    assert_int_equal(bb_feature_state_in_set(BB_FEATURE_SET_TABULAR, rows[0], 2, 6, &st, &bad,
                                             why, sizeof(why)),
                     0);
    assert_int_equal(bad, 1);
    assert_non_null(strstr(why, "the row of action 1 is not e_5, the row of state 2"));
    assert_int_equal(bb_feature_state_in_set(BB_FEATURE_SET_ONEHOT, rows[0], 2, 6, NULL, NULL,
                                             NULL, 0),
                     1);
    /* the first row at an odd index: no state's row of action 0 */
    memset(rows, 0, sizeof(rows));
    rows[0][1] = 1, rows[1][2] = 1;
    assert_int_equal(bb_feature_state_in_set(BB_FEATURE_SET_TABULAR, rows[0], 2, 6, NULL, &bad,
                                             why, sizeof(why)),
                     0);
    assert_int_equal(bad, 0);
    assert_non_null(strstr(why, "the row of action 0 is not e_{sA+0} for a state s"));
    /* a one of 0.5, a zero row, two ones: refused */
    memset(rows, 0, sizeof(rows));
    rows[0][0] = 0.5, rows[1][1] = 1;
    assert_int_equal(bb_feature_state_in_set(BB_FEATURE_SET_TABULAR, rows[0], 2, 6, NULL, &bad,
                                             NULL, 0),
                     0);
    rows[0][0] = 0;
    assert_int_equal(bb_feature_state_in_set(BB_FEATURE_SET_TABULAR, rows[0], 2, 6, NULL, &bad,
                                             NULL, 0),
                     0);
    assert_int_equal(bad, 0);
    rows[0][0] = 1, rows[1][0] = 1; /* action 1's row is action 0's */
    assert_int_equal(bb_feature_state_in_set(BB_FEATURE_SET_TABULAR, rows[0], 2, 6, NULL, &bad,
                                             NULL, 0),
                     0);
    assert_int_equal(bad, 1);
    /* d not a multiple of A */
    double three[3][5] = {{1, 0, 0, 0, 0}, {0, 1, 0, 0, 0}, {0, 0, 1, 0, 0}};
    assert_int_equal(bb_feature_state_in_set(BB_FEATURE_SET_TABULAR, three[0], 3, 5, NULL, NULL,
                                             why, sizeof(why)),
                     0);
    assert_non_null(strstr(why, "not a multiple of A = 3"));
    /* the engine's check is this one */
    struct bb_params p;
    bb_params_defaults(&p);
    p.d = 6, p.A = 2, p.features = BB_FEATURES_TABULAR;
    memset(rows, 0, sizeof(rows));
    rows[0][2] = 1, rows[1][3] = 1;
    assert_int_equal(bb_params_state_ok(&p, rows[0], &st, NULL, NULL, 0), 1);
    assert_int_equal(st, 1);
    rows[1][3] = 0, rows[1][1] = 1;
    char a[256] = "", b[256] = "";
    assert_int_equal(bb_params_state_ok(&p, rows[0], NULL, NULL, a, sizeof(a)), 0);
    assert_int_equal(bb_feature_state_in_set(BB_FEATURE_SET_TABULAR, rows[0], 2, 6, NULL, NULL,
                                             b, sizeof(b)),
                     0);
    assert_string_equal(a, b);
}

/* The engine's check is this one: same verdicts, same words. */
static void test_engine_agrees(void **state)
{
    (void)state;
    static const struct {
        enum bb_features f;
        enum bb_feature_set s;
    } sets[] = {{BB_FEATURES_BALL, BB_FEATURE_SET_BALL},
                {BB_FEATURES_SIMPLEX, BB_FEATURE_SET_SIMPLEX},
                {BB_FEATURES_ONEHOT, BB_FEATURE_SET_ONEHOT}};
    const double rows[][3] = {{0.2, -0.1, 0.3}, {0.5, 0.4, 0.2}, {0.5, 0.5, 0}, {0, 0.7, 0}};
    int compared = 0;
    for (size_t i = 0; i < 3; i++) {
        struct bb_params p;
        bb_params_defaults(&p);
        p.d = 3;
        p.features = sets[i].f;
        for (size_t r = 0; r < 4; r++) {
            char a[256] = "", b[256] = "";
            int engine = bb_params_feature_row_ok(&p, rows[r], a, sizeof(a));
            int shared =
                bb_feature_row_in_set(sets[i].s, rows[r], 3, b, sizeof(b));
            if (!bb_params_simplex_rows(&p))
                continue; /* the engine leaves such rows to the norm check */
            assert_int_equal(engine, shared);
            assert_string_equal(a, b);
            compared++;
        }
    }
    assert_int_equal(compared, 8); /* simplex and onehot, every row */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_engine_agrees),
        cmocka_unit_test(test_tabular_states),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
