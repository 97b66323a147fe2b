/*
 * test_golden.c — billboards are byte-identical for the same seed.
 *
 * For every mechanism and every declared feature set (and a non-private
 * run), a small engine with a fixed rng seed takes a fixed stream of
 * episodes, updating whenever Alg. 1 line 6 asks; every billboard it
 * publishes is encoded with the wire codec (billboard/codec.h) and the
 * bytes of all of them, in order, are hashed with SHA-256. The expected
 * hashes were recorded from the code before the engine's calibration moved
 * behind the mechanism seam (issue 32), so a refactor that changes one
 * noise draw, one derived constant or one digit of the encoding fails here.
 * A deliberate change of the output updates the table and says why: the
 * exact arithmetic (docs/PRIVACY.md §5) added a second column, recorded when
 * they came; the first, float sums, is what a database created before them
 * still publishes, bit for bit. The reward stream (§2.4) has its own table,
 * recorded when it came; the first table runs without it, as a database
 * created before it does. Both run with the plausible set (stored key
 * `explore set`), as the databases they were recorded from have it.
 *
 * OpenBLAS picks its kernels by CPU, and kernels sum in different orders:
 * the same code gives other last bits on another machine. The test pins
 * the kernel set every x86-64 CPU runs (OPENBLAS_CORETYPE, read when the
 * library loads, so main re-executes itself with it set), so the hashes
 * hold on any such machine.
 */
#include "testutil.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "billboard/codec.h"
#include "engine/engine.h"

enum { H = 3, A = 3, D = 4, K = 150 };

/* One row of phi in the declared set, drawn from r. */
static void feature_row(struct bb_rng *r, enum bb_features f, double *phi)
{
    double s = 0;
    switch (f) {
    case BB_FEATURES_ONEHOT:
        memset(phi, 0, D * sizeof(*phi));
        phi[bb_rng_below(r, D)] = 1.0;
        return;
    case BB_FEATURES_SIMPLEX:
        for (int j = 0; j < D; j++)
            s += phi[j] = bb_rng_uniform(r);
        for (int j = 0; j < D; j++)
            phi[j] *= (0.5 + 0.5 * bb_rng_uniform(r)) / s;
        return;
    default:
        for (int j = 0; j < D; j++) {
            phi[j] = 2.0 * bb_rng_uniform(r) - 1.0;
            s += phi[j] * phi[j];
        }
        for (int j = 0; j < D; j++)
            phi[j] *= (0.2 + 0.8 * bb_rng_uniform(r)) / sqrt(s);
        return;
    }
}

struct golden {
    enum bb_mechanism mech;
    enum bb_features features;
    double rho;
    const char *sha256;       /* hex, of every billboard's bytes in order: float y sums */
    const char *sha256_exact; /* the same with exact arithmetic (the default) */
    int stream;               /* with the reward stream (stream_cases) */
};

static const struct golden cases[] = {
    {BB_MECH_TREE, BB_FEATURES_BALL, 10.0, "c566f6b85e1b27768f74362af0ee601db5e2ea0ea945e82d0d2f5f58a5ddb2ac",
     "a52bf70e48a781245726a0e2f9ad1dd20f1226ba9e83a75ecf45e2875956d96e", 0},
    {BB_MECH_TREE, BB_FEATURES_SIMPLEX, 10.0, "27c81a2bfaedb1b67013a606f2120cc1d30d5e580122daade0a8cb1438f5fd48",
     "04927210a3f3deee502fd2be0d3e9e689e81b758089b346ebcfb44f7810cc490", 0},
    {BB_MECH_TREE, BB_FEATURES_ONEHOT, 10.0, "9686bd27021f0963f027295eb4e21e9baa5d6c1501b876ecd121027f79d922ab",
     "2cd62e3fabfa01f3f8fff54c2fa94203516fae698e13af11669a6ef4236b9d85", 0},
    {BB_MECH_TREE_HONAKER, BB_FEATURES_BALL, 10.0, "333303c30341cbe1c29dabc660b0ad5d4573d0d7b50829e35de09958ab434613",
     "4b6c733163cd83d4d977d211cf6870a98c9d270d0a6fd5946bf5e839c165ee53", 0},
    {BB_MECH_TREE_HONAKER, BB_FEATURES_SIMPLEX, 10.0, "1f87cfb3ae8fc7be3824cf27244d66730978054bc7ee23b67d850a8f680c0d98",
     "075421d81edef8cbfed7dbcf08240063766137792f0af7d4a572412ca1287ade", 0},
    {BB_MECH_TREE_HONAKER, BB_FEATURES_ONEHOT, 10.0, "171eff1815f35a9642e7e07085b5dc05b6d7e5ca88a9f076e9220706fed288e1",
     "14b79fa123c6ed3d86fa433a050532c66777e8c68f2a00a23aa61ffc244f2af9", 0},
    {BB_MECH_GRID, BB_FEATURES_BALL, 10.0, "ed438586897e8c8abc5908a66ff2e86f2ae45e5b719df77730f5df4163d4bfb5",
     "f735d92ab7ddea792dafe1d7c31109175205e40581cdf7e4fa079dc6ebf52dd9", 0},
    {BB_MECH_GRID, BB_FEATURES_SIMPLEX, 10.0, "8d93a67ddd8304eacc65ba1effea176f73a872f7df2bbe71d8b219a8465ef976",
     "b74cd8ea0aaf7ffd9bd36631f761236339c1446980e7b80f92b25fcaee27664f", 0},
    {BB_MECH_GRID, BB_FEATURES_ONEHOT, 10.0, "919000582ce95ffcaaf348cd8f099ed8f9997498cca11307c4c47e985dcb704e",
     "3fc0ef35db94b716d7bf498c14bfdd872a05b711b259f45a8c8fbc9144b5045d", 0},
    {BB_MECH_GRID_SQRT, BB_FEATURES_BALL, 10.0, "a3386ec9c3378f08a3a86eb7634658e6e7e4e23d4ecd71bd2d8a93c590065e15",
     "49fc24d54728cfb6b86d01f6505d2134bc2feb566ea4eb2573061de9e241ffc2", 0},
    {BB_MECH_GRID_SQRT, BB_FEATURES_SIMPLEX, 10.0, "b797a73acec41e0174ef47e1338a916a2fc5633169c4820a0c2b9b3aa46704b2",
     "b5a0d6f3d061f975ae392a9b3836c27c98f52edd694dae32668cb23892bb0dc6", 0},
    {BB_MECH_GRID_SQRT, BB_FEATURES_ONEHOT, 10.0, "529f94ab1dad2bfea8712f720d1d9f4bbd304595931302281a422c7b011c5bef",
     "a79d2ab2663e1453e6d97767284143490ed120a52000b1acf1b0f2187f1f2e76", 0},
    {BB_MECH_AUTO, BB_FEATURES_SIMPLEX, INFINITY, "5f9a00be7f015a64bdaa75253e20d9d5cdc68a2b856a9f96716f9f29bc5d956f",
     "5f9a00be7f015a64bdaa75253e20d9d5cdc68a2b856a9f96716f9f29bc5d956f", 0},
};

/* With the reward stream (docs/PRIVACY.md §2.4), the default of a private
 * grid: recorded when it came; the table above is what a database created
 * before it still publishes. */
static const struct golden stream_cases[] = {
    {BB_MECH_GRID, BB_FEATURES_SIMPLEX, 10.0, "-",
     "cc81d42af7c6bb58ff21bc0a97da1d5668f59b9ec697deb4c5eb646981c02f8f", 1},
    {BB_MECH_GRID_SQRT, BB_FEATURES_BALL, 10.0, "-",
     "b8d8db5c30bdec959818605976172cc8c799a17be19951d4ef3638b2658ee48d", 1},
    {BB_MECH_GRID_SQRT, BB_FEATURES_SIMPLEX, 10.0, "-",
     "6900496bbbcaae8b4135eb25d063d764c8cc9ef951e37e5904784e5ef4341c4e", 1},
    {BB_MECH_GRID_SQRT, BB_FEATURES_ONEHOT, 10.0, "-",
     "b4e31c50ee4b3a87c54757db7b73be46b6dce015ce28a14def818a821199a1c7", 1},
};

/* Runs one case and writes the hex SHA-256 of its billboards into hex;
 * returns the number of billboards. */
static long run(const struct golden *g, enum bb_arithmetic arithmetic,
                char hex[2 * crypto_hash_sha256_BYTES + 1])
{
    struct bb_params p;
    bb_params_defaults(&p);
    p.release_base = 1.5;  /* the default when the hashes were recorded */
    p.next_discount = 0.0; /* the backward pass then (a database before it) */
    p.first_share = 1.0;   /* every update the same share then (a database before it) */
    p.prior_value = 0.5;   /* the default then (every database stores its own) */
    p.final_prior = BB_FINAL_PRIOR_KEPT; /* the prior at every update then (a database before it) */
    p.row_weight = BB_ROW_WEIGHT_ONE;    /* every row weighed 1 then (a database before it) */
    p.rewards = g->stream ? BB_REWARDS_STREAM : BB_REWARDS_UPDATE; /* (a database before it) */
    p.explore = BB_EXPLORE_SET; /* both tables predate the sample, which changes only the
                                 * policy fields on the wire (test_codec), not a number */
    p.arithmetic = arithmetic;
    p.H = H, p.d = D, p.A = A, p.K_max = K, p.rho = g->rho;
    p.mechanism = g->mech, p.features = g->features;
    char why[160];
    if (bb_params_derive(&p, why, sizeof(why)) != BB_OK)
        fail_msg("%s", why);
    struct bb_rng rng, data;
    bb_rng_init_seeded(&rng, 32);
    bb_rng_init_seeded(&data, 1032);
    struct bb_engine *e;
    assert_int_equal(bb_engine_new(&p, &rng, &e), BB_OK);
    crypto_hash_sha256_state st;
    crypto_hash_sha256_init(&st);
    long boards = 0;
    double feat[H * A * D], rew[H];
    int act[H];
    for (long k = 0; k <= K; k++) {
        if (k == K || bb_engine_update_due(e)) {
            if (k < K) {
                int rc = bb_engine_update(e);
                if (rc != BB_OK && rc != BB_ENOTPD)
                    fail_msg("update at k = %ld: %d", k, rc);
            }
            size_t len;
            char *s = bb_billboard_to_json(bb_engine_billboard(e), &len);
            assert_non_null(s);
            crypto_hash_sha256_update(&st, (const unsigned char *)s, len);
            free(s);
            boards++;
        }
        if (k == K)
            break;
        for (int row = 0; row < H * A; row++)
            feature_row(&data, p.features, feat + row * D);
        for (int h = 0; h < H; h++)
            act[h] = (int)bb_rng_below(&data, A), rew[h] = bb_rng_uniform(&data);
        struct bb_episode ep = {feat, act, rew};
        if (bb_engine_add(e, &ep, NULL, 0, why, sizeof(why)) != BB_OK)
            fail_msg("episode %ld: %s", k, why);
    }
    unsigned char md[crypto_hash_sha256_BYTES];
    crypto_hash_sha256_final(&st, md);
    sodium_bin2hex(hex, 2 * crypto_hash_sha256_BYTES + 1, md, sizeof(md));
    bb_engine_free(e);
    bb_rng_release(&rng);
    bb_rng_release(&data);
    return boards;
}

static void test_billboards_byte_identical(void **state)
{
    (void)state;
    int bad = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        for (int exact = 0; exact < 2; exact++) {
            char hex[2 * crypto_hash_sha256_BYTES + 1];
            const char *want = exact ? cases[i].sha256_exact : cases[i].sha256;
            long n = run(&cases[i], exact ? BB_ARITH_EXACT : BB_ARITH_FLOAT, hex);
            assert_true(n >= 2); /* version 0 and at least one update */
            if (strcmp(hex, want) != 0) {
                print_message("case %zu (mechanism %d, features %d, rho %g, %s y sums): %ld "
                              "billboards, sha256 %s, want %s\n",
                              i, (int)cases[i].mech, (int)cases[i].features, cases[i].rho,
                              exact ? "exact" : "float", n, hex, want);
                bad++;
            }
        }
    assert_int_equal(bad, 0);
}

static void test_stream_billboards_byte_identical(void **state)
{
    (void)state;
    int bad = 0;
    for (size_t i = 0; i < sizeof(stream_cases) / sizeof(stream_cases[0]); i++) {
        char hex[2 * crypto_hash_sha256_BYTES + 1];
        long n = run(&stream_cases[i], BB_ARITH_EXACT, hex);
        assert_true(n >= 2);
        if (strcmp(hex, stream_cases[i].sha256_exact) != 0) {
            print_message("stream case %zu (mechanism %d, features %d): %ld billboards, "
                          "sha256 %s, want %s\n",
                          i, (int)stream_cases[i].mech, (int)stream_cases[i].features, n, hex,
                          stream_cases[i].sha256_exact);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

#define CORETYPE "Prescott"

int main(int argc, char **argv)
{
    (void)argc;
    const char *core = getenv("OPENBLAS_CORETYPE");
    if (!core || strcmp(core, CORETYPE) != 0) {
        setenv("OPENBLAS_CORETYPE", CORETYPE, 1);
        execv("/proc/self/exe", argv);
        perror("test_golden: re-executing with OPENBLAS_CORETYPE set");
        return 1;
    }
    if (sodium_init() < 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_billboards_byte_identical),
        cmocka_unit_test(test_stream_billboards_byte_identical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
