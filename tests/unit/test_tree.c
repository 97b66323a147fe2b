/*
 * test_tree.c — the binary-tree mechanism: exact sums, node structure,
 * prefix noise, persistence and replay.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "engine/noise.h"
#include "engine/rng.h"
#include "engine/tree.h"

static void random_phi(struct bb_rng *r, double *phi, int d)
{
    double n2 = 0;
    for (int j = 0; j < d; j++) {
        phi[j] = 2 * bb_rng_uniform(r) - 1;
        n2 += phi[j] * phi[j];
    }
    double scale = bb_rng_uniform(r) / sqrt(n2); /* norm uniform in [0, 1) */
    for (int j = 0; j < d; j++)
        phi[j] *= scale;
}

static void test_noiseless_prefix_is_exact_sum(void **state)
{
    (void)state;
    const int d = 5;
    const long K = 300;
    struct bb_tree t;
    struct bb_rng r;
    bb_rng_init_seeded(&r, 1);
    assert_int_equal(bb_tree_init(&t, d, K, 10, 0.0, 0.0, 0), BB_OK);
    double *ref = calloc(d * d, sizeof(double)), *out = calloc(d * d, sizeof(double));
    double phi[5];
    for (long k = 1; k <= K; k++) {
        random_phi(&r, phi, d);
        for (int i = 0; i < d; i++)
            for (int j = 0; j < d; j++)
                ref[i * d + j] += phi[i] * phi[j];
        assert_int_equal(bb_tree_add(&t, phi, &r, NULL), BB_OK);
        assert_int_equal(bb_tree_prefix(&t, out), BB_OK);
        for (int e = 0; e < d * d; e++)
            assert_rel(out[e], ref[e], 1e-12);
    }
    /* K_max is a hard limit. */
    assert_int_equal(bb_tree_add(&t, phi, &r, NULL), BB_EFULL);
    bb_tree_release(&t);
    free(ref);
    free(out);
}

static void test_each_leaf_in_L_nodes(void **state)
{
    (void)state;
    /* The tree has L levels and a leaf lies in exactly one node of each: L
     * nodes. Only the nodes that some prefix uses are ever created (the
     * node m of level j, when m is even: its last leaf has exactly j
     * trailing zeros), so the privacy-relevant count, the created nodes
     * covering a leaf, is at most L. Run whole trees and check both. */
    const long Ks[] = {1, 2, 3, 100, 512, 1000, 1024};
    for (size_t c = 0; c < sizeof(Ks) / sizeof(Ks[0]); c++) {
        long K = Ks[c];
        int L = 1;
        while ((1L << (L - 1)) < K)
            L++;
        struct bb_tree t;
        struct bb_rng r;
        bb_rng_init_seeded(&r, 7);
        assert_int_equal(bb_tree_init(&t, 1, K, L, 0.0, 0.0, 0), BB_OK);
        int *count = calloc((size_t)K + 1, sizeof(int));
        double phi = 0.5;
        for (long k = 1; k <= K; k++) {
            int level;
            assert_int_equal(bb_tree_add(&t, &phi, &r, &level), BB_OK);
            /* The node created at leaf k ends at k and spans 2^level leaves,
             * so it is node number (k-1) >> level of its level. */
            long first = k - (1L << level) + 1;
            assert_true(first >= 1);
            assert_int_equal(bb_tree_node_of(first, level), bb_tree_node_of(k, level));
            for (long leaf = first; leaf <= k; leaf++)
                count[leaf]++;
        }
        for (long leaf = 1; leaf <= K; leaf++) {
            int conceptual = 0, created = 0;
            for (int lv = 0; lv < L; lv++) {
                long m = bb_tree_node_of(leaf, lv);
                assert_true(m * (1L << lv) < leaf && leaf <= (m + 1) * (1L << lv));
                conceptual++;
                created += m % 2 == 0 && (m + 1) * (1L << lv) <= K;
            }
            assert_int_equal(conceptual, L);
            assert_int_equal(bb_tree_node_of(leaf, L - 1), 0); /* one root */
            assert_int_equal(count[leaf], created);
            assert_true(count[leaf] <= L);
        }
        free(count);
        bb_tree_release(&t);
    }
}

static void test_prefix_noise_is_popcount_nodes(void **state)
{
    (void)state;
    const int d = 3;
    const long K = 200;
    struct bb_tree t;
    struct bb_rng r;
    bb_rng_init_seeded(&r, 2);
    double sigma = 2.0, grid = bb_grid_for(sigma);
    assert_int_equal(bb_tree_init(&t, d, K, 9, sigma, grid, 0), BB_OK);
    double phi[3], out[9], sum[9] = {0};
    for (long k = 1; k <= K; k++) {
        random_phi(&r, phi, d);
        for (int i = 0; i < d; i++)
            for (int j = 0; j < d; j++)
                sum[i * d + j] += bb_grid_snap(phi[i] * phi[j], grid);
        int level;
        assert_int_equal(bb_tree_add(&t, phi, &r, &level), BB_OK);
        assert_int_equal(level, __builtin_ctzl((unsigned long)k));
        /* The live nodes are exactly the set bits of k, each ending where
         * the binary decomposition of 1..k says. */
        int live = 0;
        double noise[9] = {0};
        for (int lv = 0; lv < t.L; lv++) {
            long leaf;
            const double *n = bb_tree_node(&t, lv, &leaf);
            if (!(k & (1L << lv))) {
                assert_null(n);
                continue;
            }
            assert_non_null(n);
            assert_int_equal(leaf, k & ~((1L << lv) - 1));
            live++;
            for (int e = 0; e < 9; e++) {
                assert_true(bb_on_grid(n[e], grid));
                noise[e] += n[e];
            }
            for (int i = 0; i < d; i++) /* symmetric node noise */
                for (int j = 0; j < d; j++)
                    assert_true(n[i * d + j] == n[j * d + i]);
        }
        assert_int_equal(live, __builtin_popcountl((unsigned long)k));
        assert_int_equal(bb_tree_prefix(&t, out), BB_OK);
        for (int e = 0; e < 9; e++) {
            /* Exact: grid values add without rounding. */
            assert_true(out[e] == sum[e] + noise[e]);
            assert_true(bb_on_grid(out[e], grid));
        }
    }
    bb_tree_release(&t);
}

static void test_node_noise_drawn_once_and_reloaded(void **state)
{
    (void)state;
    const int d = 4;
    const long K = 100, stop = 77; /* 77 = 1001101b: live levels 0, 2, 3, 6 */
    double sigma = 5.0, grid = bb_grid_for(sigma);
    struct bb_rng r, data;
    bb_rng_init_seeded(&r, 3);
    bb_rng_init_seeded(&data, 4);
    struct bb_tree a, b;
    assert_int_equal(bb_tree_init(&a, d, K, 8, sigma, grid, 0), BB_OK);
    assert_int_equal(bb_tree_init(&b, d, K, 8, sigma, grid, 0), BB_OK);
    double phis[77][4];
    for (long k = 0; k < stop; k++) {
        random_phi(&data, phis[k], d);
        assert_int_equal(bb_tree_add(&a, phis[k], &r, NULL), BB_OK);
    }
    /* "Restart": replay the leaves without drawing, then load the live
     * nodes as stored. Until then no prefix may be computed. */
    for (long k = 0; k < stop; k++)
        assert_int_equal(bb_tree_replay(&b, phis[k]), BB_OK);
    double pa[16], pb[16];
    assert_int_equal(bb_tree_prefix(&b, pb), BB_EINVAL);
    assert_int_equal(bb_tree_add(&b, phis[0], &r, NULL), BB_EINVAL);
    /* A dead or wrong node is refused. */
    assert_int_equal(bb_tree_load_node(&b, 1, 76, pa), BB_ENOTFOUND);
    assert_int_equal(bb_tree_load_node(&b, 0, 76, pa), BB_ENOTFOUND);
    for (int lv = 0; lv < a.L; lv++) {
        long leaf;
        const double *n = bb_tree_node(&a, lv, &leaf);
        if (n)
            assert_int_equal(bb_tree_load_node(&b, lv, leaf, n), BB_OK);
    }
    /* Noise is never replaced once present. */
    long leaf0;
    const double *n0 = bb_tree_node(&a, 0, &leaf0);
    assert_int_equal(bb_tree_load_node(&b, 0, leaf0, n0), BB_ECONFLICT);
    assert_int_equal(bb_tree_prefix(&a, pa), BB_OK);
    assert_int_equal(bb_tree_prefix(&b, pb), BB_OK);
    assert_memory_equal(pa, pb, sizeof(pa));
    /* Both continue identically from here with the same stream. */
    struct bb_rng r1, r2;
    bb_rng_init_seeded(&r1, 5);
    bb_rng_init_seeded(&r2, 5);
    for (long k = stop; k < K; k++) {
        double phi[4];
        random_phi(&data, phi, d);
        assert_int_equal(bb_tree_add(&a, phi, &r1, NULL), BB_OK);
        assert_int_equal(bb_tree_add(&b, phi, &r2, NULL), BB_OK);
        assert_int_equal(bb_tree_prefix(&a, pa), BB_OK);
        assert_int_equal(bb_tree_prefix(&b, pb), BB_OK);
        assert_memory_equal(pa, pb, sizeof(pa));
    }
    bb_tree_release(&a);
    bb_tree_release(&b);
}

static void test_noise_scale(void **state)
{
    (void)state;
    /* Diagonal entries of node noise have variance sigma^2, off-diagonal
     * ones sigma^2 / 2 (DESIGN.md §3): check over many single-leaf trees. */
    const int d = 3, n = 20000;
    double sigma = 4.0, grid = bb_grid_for(sigma);
    struct bb_rng r;
    bb_rng_init_seeded(&r, 6);
    double s_diag = 0, s_off = 0, phi[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        struct bb_tree t;
        assert_int_equal(bb_tree_init(&t, d, 1, 1, sigma, grid, 0), BB_OK);
        assert_int_equal(bb_tree_add(&t, phi, &r, NULL), BB_OK);
        const double *z = bb_tree_node(&t, 0, NULL);
        s_diag += z[0] * z[0];
        s_off += z[1] * z[1];
        bb_tree_release(&t);
    }
    double v = sigma * sigma, se = v * sqrt(2.0 / n);
    assert_true(fabs(s_diag / n - v) <= 4.42 * se);
    assert_true(fabs(s_off / n - v / 2) <= 4.42 * se / 2);
}

static void test_init_rejects(void **state)
{
    (void)state;
    struct bb_tree t;
    assert_int_equal(bb_tree_init(&t, 3, 1000, 10, 0, 0, 0), BB_EINVAL); /* 2^9 < 1000 */
    assert_int_equal(bb_tree_init(&t, 0, 10, 5, 0, 0, 0), BB_EINVAL);
    assert_int_equal(bb_tree_init(&t, 3, 1000, 11, 0, 0, 0), BB_OK);
    bb_tree_release(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_noiseless_prefix_is_exact_sum),
        cmocka_unit_test(test_each_leaf_in_L_nodes),
        cmocka_unit_test(test_prefix_noise_is_popcount_nodes),
        cmocka_unit_test(test_node_noise_drawn_once_and_reloaded),
        cmocka_unit_test(test_noise_scale),
        cmocka_unit_test(test_init_rejects),
    };
    return cmocka_run_group_tests_name("tree", tests, NULL, NULL);
}
