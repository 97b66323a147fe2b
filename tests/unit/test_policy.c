/*
 * test_policy.c — the shared policy: Q-values, cap at H, argmax, against
 * the formula evaluated with an explicit inverse.
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
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

/* The plausible set on known values (docs/PRIVACY.md §3.4): step 1 has
 * Lambda = [[2,1],[1,2]], Lambda^-1 = [[2,-1],[-1,2]]/3, w = (1, 0), beta 0.
 * Action 0, x = (1, 0): Q = 1, Lambda^-1 x = (2, -1)/3, norm sqrt(5)/3.
 * Action 1, x = (0.6, 0.8): Q = 0.6, Lambda^-1 x = (0.4, 1)/3, norm
 * sqrt(1.16)/3. With sigma_y = 1, action 1 joins once
 * 0.6 + z sqrt(1.16)/3 >= 1 - z sqrt(5)/3, z >= 1.2 / (sqrt(1.16) + sqrt(5))
 * = 0.3621984...; a diagonal Lambda would not tell L^-1 from L^-T. Then the
 * policy draws both, uniformly; below the threshold, z = 0, sigma_y = 0 or
 * a uniform billboard, only the greedy action. */
static void test_plausible_set(void **state)
{
    (void)state;
    enum { H = 2, D = 2, A = 2, N = 4000 };
    struct bb_billboard b;
    assert_int_equal(bb_billboard_init(&b, H, D, A), BB_OK);
    const double lam[4] = {2, 1, 1, 2};
    memcpy(b.gram, lam, sizeof(lam));
    b.gram[4] = b.gram[7] = 1.0;
    b.w[0] = 1.0;
    b.beta = 0;
    const double x[A * D] = {1, 0, 0.6, 0.8};
    double q[A];
    unsigned char set[A];
    int act;
    assert_int_equal(bb_billboard_plausible(&b, 1, x, (double[A]){1, 0}, set), BB_EINVAL);
    assert_int_equal(bb_billboard_factor(&b), BB_OK);
    assert_int_equal(bb_billboard_act(&b, 1, x, q, &act), BB_OK);
    assert_rel(q[0], 1.0, 1e-12);
    assert_rel(q[1], 0.6, 1e-12);
    const double zc = 1.2 / (sqrt(1.16) + sqrt(5.0));
    assert_rel(zc, 0.3621984, 1e-6);
    b.sigma_y[0] = 1.0;
    b.plausible_z = zc * (1 - 1e-9);
    assert_int_equal(bb_billboard_plausible(&b, 1, x, q, set), 1);
    assert_true(set[0] == 1 && set[1] == 0);
    for (int i = 0; i < 100; i++) {
        assert_int_equal(bb_billboard_act(&b, 1, x, q, &act), BB_OK);
        assert_int_equal(act, 0);
    }
    b.plausible_z = zc * (1 + 1e-9);
    assert_int_equal(bb_billboard_plausible(&b, 1, x, q, set), 2);
    assert_true(set[0] == 1 && set[1] == 1);
    int count[A] = {0};
    for (int i = 0; i < N; i++) {
        assert_int_equal(bb_billboard_act(&b, 1, x, q, &act), BB_OK);
        assert_true(act >= 0 && act < A);
        count[act]++;
    }
    /* Binomial(4000, 1/2): sd 32; 6 sd either side. */
    assert_true(count[0] > N / 2 - 190 && count[0] < N / 2 + 190);
    /* sigma_y scales the widths exactly as z does. */
    b.plausible_z = 1.0;
    b.sigma_y[0] = zc * (1 - 1e-9);
    assert_int_equal(bb_billboard_plausible(&b, 1, x, q, set), 1);
    b.sigma_y[0] = zc * (1 + 1e-9);
    assert_int_equal(bb_billboard_plausible(&b, 1, x, q, set), 2);
    /* The floor: at sigma_y = 1, z = 1 (inside the set) action 1's sd,
     * sqrt(1.16)/3 = 0.359, must be at least f times step 1's range
     * H - h + 1 = 2, so f = 0.1795 is the edge. */
    b.sigma_y[0] = 1.0;
    b.plausible_floor = sqrt(1.16) / 6 * (1 - 1e-9);
    assert_int_equal(bb_billboard_plausible(&b, 1, x, q, set), 2);
    b.plausible_floor = sqrt(1.16) / 6 * (1 + 1e-9);
    assert_int_equal(bb_billboard_plausible(&b, 1, x, q, set), 1);
    assert_true(set[0] == 1 && set[1] == 0);
    /* Step 2 has no noise: only the greedy action, whatever z. */
    assert_int_equal(bb_billboard_plausible(&b, 2, x, q, set), 1);
    b.plausible_z = 0;
    assert_int_equal(bb_billboard_plausible(&b, 1, x, q, set), 1);
    b.plausible_z = 1.0;
    b.uniform = 1; /* version 0: the random policy, no set */
    assert_int_equal(bb_billboard_plausible(&b, 1, x, q, set), 1);
    b.uniform = 0;
    assert_int_equal(bb_billboard_plausible(&b, 0, x, q, set), BB_ERANGE);
    assert_int_equal(bb_billboard_plausible(&b, H + 1, x, q, set), BB_ERANGE);
    /* A copy carries the set's parameters. */
    struct bb_billboard c;
    assert_int_equal(bb_billboard_copy(&c, &b), BB_OK);
    assert_rel(c.sigma_y[0], b.sigma_y[0], 0);
    assert_rel(c.plausible_z, 1.0, 0);
    assert_rel(c.plausible_floor, b.plausible_floor, 0);
    bb_billboard_release(&c);
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

/* The exploration directions against an independent implementation of
 * their construction (proto/explore.c): Python's hashlib BLAKE2b-256 and the
 * cryptography package's ChaCha20 with libsodium's DRG nonce "LibsodiumDRG",
 * Box-Muller, then z_h = 0.9 n_0 + sqrt(0.19) n_h; the values below are
 * what that script printed. */
static void test_explore_direction_known_values(void **state)
{
    (void)state;
    double z[4];
    static const struct {
        const char *key;
        int h, d;
        double want[4];
    } cases[] = {
        {"patient-17", 1, 3, {0.54843918959321147, -0.1918265216199819, 1.7732033310137931}},
        {"patient-17", 2, 3, {-0.052004323008381315, -0.3391123514513813, 2.6823252037981091}},
        {"3f9c2a", 5, 4,
         {0.66275118983447179, -1.4610477364857957, 0.085925231210257524,
          -0.81373180188475314}},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(bb_explore_direction(cases[i].key, cases[i].h, cases[i].d, z), BB_OK);
        for (int j = 0; j < cases[i].d; j++)
            assert_rel(z[j], cases[i].want[j], 1e-13);
    }
    assert_int_equal(bb_explore_direction("", 1, 3, z), BB_EINVAL);
    assert_int_equal(bb_explore_direction(NULL, 1, 3, z), BB_EINVAL);
    assert_int_equal(bb_explore_direction("k", 1, 0, z), BB_EINVAL);
    assert_int_equal(bb_explore_direction("k", 0, 3, z), BB_EINVAL);
}

/* Over many keys each step's direction is standard normal (mean 0,
 * variance 1, entries uncorrelated) and two steps' directions correlate
 * c^2 = 0.81 entry by entry (N = 4000 keys, d = 6; tolerances 5 sd). */
static void test_explore_direction_distribution(void **state)
{
    (void)state;
    enum { N = 4000, D = 6 };
    double sum[D] = {0}, sq[D] = {0}, cross = 0, across = 0;
    for (int i = 0; i < N; i++) {
        char key[32];
        double z[D], z2[D];
        snprintf(key, sizeof(key), "episode-%d", i);
        assert_int_equal(bb_explore_direction(key, 1, D, z), BB_OK);
        assert_int_equal(bb_explore_direction(key, 2, D, z2), BB_OK);
        for (int j = 0; j < D; j++) {
            sum[j] += z[j];
            sq[j] += z[j] * z[j];
        }
        cross += z[0] * z[1];
        across += z[3] * z2[3];
    }
    for (int j = 0; j < D; j++) {
        double mean = sum[j] / N, var = sq[j] / N - mean * mean;
        if (fabs(mean) > 5 / sqrt(N) || fabs(var - 1) > 5 * sqrt(2.0 / N))
            fail_msg("z_%d: mean %g, variance %g over %d keys", j, mean, var, N);
    }
    if (fabs(cross / N) > 5 / sqrt(N))
        fail_msg("z_0 z_1 correlate: %g", cross / N);
    double c2 = BB_EXPLORE_PERSISTENCE * BB_EXPLORE_PERSISTENCE;
    if (fabs(across / N - c2) > 5 * sqrt((1 + c2 * c2) / N))
        fail_msg("steps 1 and 2 correlate %g, want %g", across / N, c2);
}

/* While the billboard holds no data, an episode's action at step h is
 * argmax_a phi_a^T z_h whatever the Q-values, the same for the same key and
 * step; with one-hot features each state's action is uniform over the keys
 * and independent of the other state's, and a state keeps its action from
 * step 1 to step 2 with probability 1/2 + arcsin(c^2)/pi (0.801). Once the
 * billboard holds data, the direction changes nothing. */
static void test_episode_policy(void **state)
{
    (void)state;
    enum { H = 3, S = 2, A = 2, D = S * A, N = 8000 };
    struct bb_billboard b;
    assert_int_equal(bb_billboard_init(&b, H, D, A), BB_OK);
    for (int h = 0; h < H; h++)
        for (int j = 0; j < D; j++)
            b.gram[(h * D + j) * D + j] = 1.0;
    b.w[0] = 1.0; /* greedy: action 0 in state 0 */
    assert_int_equal(bb_billboard_factor(&b), BB_OK);
    double x[S][A * D] = {{0}}; /* one-hot: phi(s, a) = e_{s*A + a} */
    for (int s = 0; s < S; s++)
        for (int a = 0; a < A; a++)
            x[s][a * D + s * A + a] = 1.0;
    double q[A], z[D];
    int act, count[A][A] = {{0}}, kept = 0;
    b.uniform = 1;
    for (int i = 0; i < N; i++) {
        char key[32];
        snprintf(key, sizeof(key), "k%d", i);
        int at[H + 1][S];
        for (int h = 1; h <= H; h++) {
            assert_int_equal(bb_explore_direction(key, h, D, z), BB_OK);
            for (int s = 0; s < S; s++) {
                at[h][s] = z[s * A + 1] > z[s * A] ? 1 : 0;
                assert_int_equal(bb_billboard_act_episode(&b, h, x[s], z, q, &act), BB_OK);
                assert_int_equal(act, at[h][s]);
            }
        }
        count[at[1][0]][at[1][1]]++;
        kept += at[1][0] == at[2][0];
    }
    /* Each of the four (state 0, state 1) action pairs has probability 1/4:
     * N/4 = 2000, sd 38.7, six sd 232. */
    for (int a0 = 0; a0 < A; a0++)
        for (int a1 = 0; a1 < A; a1++)
            if (abs(count[a0][a1] - N / 4) > 232)
                fail_msg("pair (%d, %d) drawn %d times of %d", a0, a1, count[a0][a1], N);
    double c2 = BB_EXPLORE_PERSISTENCE * BB_EXPLORE_PERSISTENCE;
    double p = 0.5 + asin(c2) / M_PI, sd = sqrt(p * (1 - p) / N);
    if (fabs((double)kept / N - p) > 6 * sd)
        fail_msg("state 0 kept its action %d times of %d, want about %g", kept, N, p * N);
    /* Greedy once there is data: the direction is not read. */
    b.uniform = 0;
    z[0] = -100.0;
    assert_int_equal(bb_billboard_act_episode(&b, 1, x[0], z, q, &act), BB_OK);
    assert_int_equal(act, 0);
    assert_int_equal(bb_billboard_act_episode(&b, 1, x[0], NULL, q, &act), BB_OK);
    assert_int_equal(act, 0);
    bb_billboard_release(&b);
}

/* After an update, a step of a known episode picks from the plausible set
 * with the episode's direction: the member whose row has the largest inner
 * product with z, never an action outside the set, the same answer when
 * asked again, and (one-hot rows) each member equally often over episodes. */
static void test_episode_set_pick(void **state)
{
    (void)state;
    enum { D = 3, A = 3, N = 4000 };
    struct bb_billboard b;
    assert_int_equal(bb_billboard_init(&b, 1, D, A), BB_OK);
    for (int j = 0; j < D; j++)
        b.gram[j * D + j] = 1.0;
    b.w[0] = 1.0;
    b.w[1] = 0.5;
    b.w[2] = -10.0;
    b.beta = 0;
    b.sigma_y[0] = 1.0;
    b.plausible_z = 1.0; /* s_a = 1: the set is q_a + 1 >= 1 - 1, {0, 1} */
    assert_int_equal(bb_billboard_factor(&b), BB_OK);
    const double x[A * D] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    const unsigned char set[A] = {1, 1, 0};
    double q[A];
    unsigned char got[A];
    assert_int_equal(bb_billboard_act(&b, 1, x, q, NULL), BB_OK);
    assert_int_equal(bb_billboard_plausible(&b, 1, x, q, got), 2);
    assert_memory_equal(got, set, A);
    /* The pick: largest x_a^T z over the members; ties to the lowest. */
    assert_int_equal(bb_plausible_pick(A, D, x, set, (double[D]){0.1, 0.2, 5}), 1);
    assert_int_equal(bb_plausible_pick(A, D, x, NULL, (double[D]){0.1, 0.2, 5}), 2);
    assert_int_equal(bb_plausible_pick(A, D, x, set, (double[D]){0.3, 0.2, 5}), 0);
    assert_int_equal(bb_plausible_pick(A, D, x, set, (double[D]){0.2, 0.2, 0}), 0);
    assert_int_equal(bb_plausible_pick(A, D, x, (unsigned char[A]){0}, (double[D]){1, 2, 3}), 0);
    int act;
    assert_int_equal(bb_billboard_act_episode(&b, 1, x, (double[D]){0.1, 0.2, 5}, q, &act), BB_OK);
    assert_int_equal(act, 1);
    assert_int_equal(bb_billboard_act_episode(&b, 1, x, (double[D]){0.3, 0.2, 5}, q, &act), BB_OK);
    assert_int_equal(act, 0);
    /* Keyed: the key's direction decides, so asking twice agrees. */
    int count[A] = {0};
    for (int i = 0; i < N; i++) {
        char key[32];
        snprintf(key, sizeof(key), "episode-%d", i);
        double z[D];
        int again;
        assert_int_equal(bb_explore_direction(key, 1, D, z), BB_OK);
        assert_int_equal(bb_billboard_act_keyed(&b, 1, x, key, q, &act), BB_OK);
        assert_int_equal(act, z[1] > z[0] ? 1 : 0);
        assert_int_equal(bb_billboard_act_keyed(&b, 1, x, key, q, &again), BB_OK);
        assert_int_equal(again, act);
        count[act]++;
    }
    /* Binomial(4000, 1/2): sd 32; 6 sd either side. */
    assert_int_equal(count[2], 0);
    assert_true(count[0] > N / 2 - 190 && count[0] < N / 2 + 190);
    /* Without a set the key is not read: greedy. */
    b.plausible_z = 0;
    for (int i = 0; i < 50; i++) {
        char key[32];
        snprintf(key, sizeof(key), "episode-%d", i);
        assert_int_equal(bb_billboard_act_keyed(&b, 1, x, key, q, &act), BB_OK);
        assert_int_equal(act, 0);
    }
    bb_billboard_release(&b);
}

/* The noise-matched sample (bb_billboard_sample, bb_sample_pick): its rows
 * sigma_y Lambda~^-1 x_a on known values, the pick, and the keyed policy's
 * choice frequency against the normal law it follows. */
static void test_sample(void **state)
{
    (void)state;
    enum { D = 2, A = 2, N = 4000 };
    struct bb_billboard b;
    assert_int_equal(bb_billboard_init(&b, 2, D, A), BB_OK);
    /* Step 1: Lambda~ = [[2,1],[1,2]], inverse [[2,-1],[-1,2]] / 3;
     * step 2: diag(16, 1). */
    const double lam[D * D] = {2, 1, 1, 2};
    memcpy(b.gram, lam, sizeof(lam));
    b.gram[D * D] = 16;
    b.gram[D * D + 3] = 1;
    b.sigma_y[0] = 3;
    b.sigma_y[1] = 2;
    b.w[D] = 1; /* step 2: q = (1, 0) on the unit rows */
    b.beta = 0;
    b.sample = 1;
    const double x[A * D] = {1, 0, 0, 1};
    double v[A * D], q[A];
    assert_int_equal(bb_billboard_sample(&b, 1, x, v), BB_EINVAL); /* not factored */
    assert_int_equal(bb_billboard_factor(&b), BB_OK);
    assert_int_equal(bb_billboard_sample(&b, 1, x, v), BB_OK);
    const double want1[A * D] = {2, -1, -1, 2}; /* 3 Lambda~^-1 x_a */
    for (int j = 0; j < A * D; j++)
        assert_rel(v[j], want1[j], 1e-14);
    assert_int_equal(bb_billboard_sample(&b, 2, x, v), BB_OK);
    const double want2[A * D] = {2.0 / 16, 0, 0, 2};
    for (int j = 0; j < A * D; j++)
        assert_rel(v[j], want2[j], 1e-14);
    assert_int_equal(bb_billboard_sample(&b, 0, x, v), BB_ERANGE);
    assert_int_equal(bb_billboard_sample(&b, 3, x, v), BB_ERANGE);
    /* The pick: argmax q_a + v_a^T z; ties to the lowest index. */
    const double qk[A] = {1, 0};
    assert_int_equal(bb_sample_pick(A, D, qk, v, (double[D]){0, 0}), 0);
    assert_int_equal(bb_sample_pick(A, D, qk, v, (double[D]){0, 0.6}), 1);  /* 1.2 > 1 */
    assert_int_equal(bb_sample_pick(A, D, qk, v, (double[D]){-8, 0}), 0);   /* 0 = 0 */
    assert_int_equal(bb_sample_pick(A, D, qk, v, (double[D]){-8, 0.01}), 1);
    /* Keyed: the key's direction decides, asking twice agrees, and action 1
     * wins when 2 z_2 - z_1 / 8 > 1: P = Phi(-1 / sqrt(4 + 1/64)) = 0.30888. */
    int count = 0, act, again;
    for (int i = 0; i < N; i++) {
        char key[32];
        snprintf(key, sizeof(key), "episode-%d", i);
        double z[D];
        assert_int_equal(bb_explore_direction(key, 2, D, z), BB_OK);
        assert_int_equal(bb_billboard_act_keyed(&b, 2, x, key, q, &act), BB_OK);
        assert_int_equal(act, bb_sample_pick(A, D, q, v, z));
        assert_int_equal(bb_billboard_act_keyed(&b, 2, x, key, q, &again), BB_OK);
        assert_int_equal(again, act);
        count += act;
    }
    /* Binomial(4000, 0.30888): 1235.5, sd 29.2; 6 sd either side. Unscaled rows
     * (sigma 1) would give Phi(-1 / 1.0020) = 0.159, 636. */
    assert_true(count > 1236 - 176 && count < 1236 + 176);
    /* A fresh direction at each ask without a key: both actions come up. */
    int seen[A] = {0};
    for (int i = 0; i < 200; i++) {
        assert_int_equal(bb_billboard_act(&b, 2, x, q, &act), BB_OK);
        seen[act]++;
    }
    assert_true(seen[0] > 0 && seen[1] > 0);
    /* No noise at the step: greedy, the key not read. */
    b.sigma_y[1] = 0;
    for (int i = 0; i < 50; i++) {
        char key[32];
        snprintf(key, sizeof(key), "episode-%d", i);
        assert_int_equal(bb_billboard_act_keyed(&b, 2, x, key, q, &act), BB_OK);
        assert_int_equal(act, 0);
    }
    bb_billboard_release(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_q_values_match_formula),
        cmocka_unit_test(test_uniform_billboard),
        cmocka_unit_test(test_plausible_set),
        cmocka_unit_test(test_explore_direction_known_values),
        cmocka_unit_test(test_explore_direction_distribution),
        cmocka_unit_test(test_episode_policy),
        cmocka_unit_test(test_episode_set_pick),
        cmocka_unit_test(test_sample),
        cmocka_unit_test(test_cap_and_ties),
        cmocka_unit_test(test_not_positive_definite),
        cmocka_unit_test(test_logdet),
    };
    return cmocka_run_group_tests_name("policy", tests, NULL, NULL);
}
