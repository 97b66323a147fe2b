/*
 * test_policy.c — the shared policy: Q-values, cap at H, argmax, against
 * the formula evaluated with an explicit inverse.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "billboard/billboard.h"
#include "linalg.h"

static void test_q_values_match_formula(void **state)
{
    (void)state;
    enum { H = 3, D = 3, A = 4 };
    struct bb_billboard b;
    assert_int_equal(bb_billboard_init(&b, H, D, A), BB_OK);
    b.beta = 0.7;
    /* Step 2: Lambda = [[4,1,0],[1,3,0.5],[0,0.5,2]], inverse by hand
     * (cofactors / det, det = 4*(6-0.25) - 1*(2) = 21). */
    const double lam[9] = {4, 1, 0, 1, 3, 0.5, 0, 0.5, 2};
    const double inv[9] = {5.75 / 21, -2.0 / 21, 0.5 / 21, -2.0 / 21, 8.0 / 21,
                           -2.0 / 21, 0.5 / 21,  -2.0 / 21, 11.0 / 21};
    for (int h = 0; h < H; h++) {
        for (int j = 0; j < D; j++)
            b.gram[(h * D + j) * D + j] = 1.0;
    }
    memcpy(b.gram + 1 * D * D, lam, sizeof(lam));
    const double w[3] = {0.5, -1.0, 2.0};
    memcpy(b.w + 1 * D, w, sizeof(w));
    double q[A];
    int act;
    assert_int_equal(bb_billboard_act(&b, 2, (double[A * D]){0}, q, &act), BB_EINVAL); /* not factored */
    assert_int_equal(bb_billboard_factor(&b), BB_OK);
    const double x[A * D] = {0.1, 0.2, 0.3, -0.5, 0.5, 0.0, 0.0, 0.0, 0.9, 0.6, 0.0, -0.8};
    assert_int_equal(bb_billboard_act(&b, 2, x, q, &act), BB_OK);
    int best = 0;
    for (int a = 0; a < A; a++) {
        const double *xa = x + a * D;
        double mean = 0, quad = 0;
        for (int i = 0; i < D; i++) {
            mean += xa[i] * w[i];
            for (int j = 0; j < D; j++)
                quad += xa[i] * inv[i * D + j] * xa[j];
        }
        double want = fmin(mean + 0.7 * sqrt(quad), (double)H);
        assert_rel(q[a], want, 1e-12);
        if (want > q[best] + 1e-12)
            best = a;
    }
    assert_int_equal(act, best);
    assert_int_equal(act, 2); /* 0.9 * 2 plus its bonus */
    assert_int_equal(bb_billboard_act(&b, 0, x, q, &act), BB_ERANGE);
    assert_int_equal(bb_billboard_act(&b, H + 1, x, q, &act), BB_ERANGE);
    bb_billboard_release(&b);
}

/* A uniform billboard (no data yet) recommends every action equally often,
 * whatever its Q-values, which are still the formula's; a greedy one always
 * the argmax. */
static void test_uniform_billboard(void **state)
{
    (void)state;
    enum { H = 2, D = 2, A = 4, N = 8000 };
    struct bb_billboard b;
    assert_int_equal(bb_billboard_init(&b, H, D, A), BB_OK);
    for (int h = 0; h < H; h++)
        for (int j = 0; j < D; j++)
            b.gram[(h * D + j) * D + j] = 1.0;
    b.w[0] = 1.0; /* action 3's features favour it strongly */
    b.beta = 0;
    assert_int_equal(bb_billboard_factor(&b), BB_OK);
    const double x[A * D] = {0.1, 0, 0.2, 0, 0.3, 0, 0.9, 0};
    double q[A], q0[A];
    int act, count[A] = {0};
    assert_int_equal(bb_billboard_act(&b, 1, x, q0, &act), BB_OK);
    assert_int_equal(act, 3);
    b.uniform = 1;
    for (int i = 0; i < N; i++) {
        assert_int_equal(bb_billboard_act(&b, 1, x, q, &act), BB_OK);
        assert_true(act >= 0 && act < A);
        count[act]++;
    }
    assert_memory_equal(q, q0, sizeof(q));
    /* N/A = 2000 each, sd sqrt(N p (1-p)) = 38.7: six sd is 232. */
    for (int a = 0; a < A; a++)
        if (abs(count[a] - N / A) > 232)
            fail_msg("action %d drawn %d times of %d, want about %d", a, count[a], N, N / A);
    struct bb_billboard c;
    assert_int_equal(bb_billboard_copy(&c, &b), BB_OK);
    assert_int_equal(c.uniform, 1);
    bb_billboard_release(&c);
    bb_billboard_release(&b);
}

static void test_cap_and_ties(void **state)
{
    (void)state;
    double l[4] = {1, 0, 0, 1}, w[2] = {100, 100}, x[6] = {1, 0, 0, 1, 0.5, 0.5}, q[3], work[6];
    bb_q_values(2, l, w, 0.0, 5.0, x, 3, q, work);
    for (int a = 0; a < 3; a++)
        assert_true(q[a] == 5.0); /* capped at H */
    assert_int_equal(bb_argmax(q, 3), 0); /* lowest index among ties */
    const double t[4] = {1, 3, 3, 2};
    assert_int_equal(bb_argmax(t, 4), 1);
}

static void test_not_positive_definite(void **state)
{
    (void)state;
    struct bb_billboard b;
    assert_int_equal(bb_billboard_init(&b, 1, 2, 2), BB_OK);
    b.gram[0] = 1, b.gram[1] = 2, b.gram[2] = 2, b.gram[3] = 1; /* eigenvalues 3, -1 */
    assert_int_equal(bb_billboard_factor(&b), BB_ENOTPD);
    assert_false(b.factored);
    struct bb_billboard c;
    assert_int_equal(bb_billboard_copy(&c, &b), BB_OK);
    assert_memory_equal(c.gram, b.gram, 4 * sizeof(double));
    bb_billboard_release(&c);
    bb_billboard_release(&b);
    bb_billboard_release(&b); /* release twice is safe */
    assert_int_equal(bb_billboard_init(&b, 0, 2, 2), BB_EINVAL);
}

static void test_logdet(void **state)
{
    (void)state;
    const double a[9] = {4, 1, 0, 1, 3, 0.5, 0, 0.5, 2};
    double l[9];
    assert_int_equal(bb_chol(a, l, 3), BB_OK);
    assert_rel(bb_chol_logdet(l, 3), log(21.0), 1e-14);
    double x[3] = {1, 2, 3};
    assert_int_equal(bb_chol_solve(l, 3, x), BB_OK);
    for (int i = 0; i < 3; i++) {
        double s = 0;
        for (int j = 0; j < 3; j++)
            s += a[i * 3 + j] * x[j];
        assert_rel(s, i + 1.0, 1e-13);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_q_values_match_formula),
        cmocka_unit_test(test_uniform_billboard),
        cmocka_unit_test(test_cap_and_ties),
        cmocka_unit_test(test_not_positive_definite),
        cmocka_unit_test(test_logdet),
    };
    return cmocka_run_group_tests_name("policy", tests, NULL, NULL);
}
