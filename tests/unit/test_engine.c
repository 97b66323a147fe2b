/*
 * test_engine.c — Algorithm 1 end to end in-process: the update rule and
 * its cap, validation that changes nothing, non-private operation through
 * the same code, the prior's cut reaching the backward pass, split updates,
 * and recovery by replay.
 */
#include "testutil.h"
#include "test_records.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/noise.h"
#include "linalg.h"
#include "engine/schedule.h"

enum { H = 3, A = 3, D = 4 };

struct ep {
    double feat[H * A * D];
    int act[H];
    double rew[H];
};

static void random_episode(struct bb_rng *r, struct ep *e)
{
    for (int row = 0; row < H * A; row++) {
        double *phi = e->feat + row * D, n2 = 0;
        for (int j = 0; j < D; j++) {
            phi[j] = bb_rng_uniform(r);
            n2 += phi[j] * phi[j];
        }
        double s = (0.2 + 0.8 * bb_rng_uniform(r)) / sqrt(n2);
        for (int j = 0; j < D; j++)
            phi[j] *= s;
    }
    for (int h = 0; h < H; h++) {
        e->act[h] = (int)bb_rng_below(r, A);
        e->rew[h] = bb_rng_uniform(r);
    }
}

static struct bb_episode view(const struct ep *e)
{
    struct bb_episode v = {e->feat, e->act, e->rew};
    return v;
}

static void params(struct bb_params *p, long K, double rho, long cap)
{
    bb_params_defaults(p);
    /* The paper's construction (a release after every episode), which the
     * rule's exact bookkeeping below assumes; the grids in test_recovery. */
    p->mechanism = BB_MECH_TREE, p->shift_bound = BB_BOUND_PAPER, p->shift_scale = 1;
    p->value_clip = BB_VCLIP_HORIZON, p->gram_share = 0.5;
    p->H = H, p->d = D, p->A = A, p->K_max = K, p->rho = rho, p->max_updates_cap = cap;
    p->beta = 0.5;
    char why[128];
    if (bb_params_derive(p, why, sizeof(why)) != BB_OK)
        fail_msg("%s", why);
}

/* Plays n episodes; before each one checks that the engine wants an update
 * exactly when some log-det grew by ln C since the last update and the cap
 * allows it. Returns the number of updates. */
static long play(struct bb_engine *e, struct bb_rng *data, long n)
{
    const struct bb_params *p = bb_engine_params(e);
    double last[H];
    for (int h = 0; h < H; h++)
        last[h] = D * log(bb_engine_ridge(e));
    long updates = 0;
    for (long k = 0; k < n; k++) {
        int grew = 0;
        for (int h = 0; h < H; h++)
            grew |= bb_engine_logdet(e, h) - last[h] >= log(p->update_ratio);
        int want = grew && updates < p->max_updates && k > 0;
        assert_int_equal(bb_engine_update_due(e), want);
        if (want) {
            assert_int_equal(bb_engine_update(e), BB_OK);
            updates++;
            for (int h = 0; h < H; h++)
                last[h] = bb_engine_logdet(e, h);
            const struct bb_billboard *b = bb_engine_billboard(e);
            assert_int_equal(b->version, (uint64_t)updates);
            assert_int_equal(b->episode, (uint64_t)k);
            assert_memory_equal(b->gram, bb_engine_gram(e, 0), sizeof(double) * D * D);
        }
        struct ep x;
        random_episode(data, &x);
        struct bb_episode v = view(&x);
        assert_int_equal(bb_engine_add(e, &v, NULL, 0, NULL, 0), BB_OK);
    }
    assert_int_equal(bb_engine_updates(e), updates);
    return updates;
}

static void test_rare_switching_rule(void **state)
{
    (void)state;
    struct bb_params p;
    params(&p, 2000, 100.0, 0);
    struct bb_rng rng, data;
    bb_rng_init_seeded(&rng, 1);
    bb_rng_init_seeded(&data, 2);
    struct bb_engine *e;
    assert_int_equal(bb_engine_new(&p, &rng, &e), BB_OK);
    long u = play(e, &data, 2000);
    assert_true(u >= 3);              /* the rule fired */
    assert_true(u <= p.max_updates);  /* and never past N_max */
    /* Published Gram matrices lie on the grid. */
    const struct bb_billboard *b = bb_engine_billboard(e);
    for (int i = 0; i < H * D * D; i++)
        assert_true(bb_on_grid(b->gram[i], p.grid_gram));
    assert_int_equal(bb_engine_add(e, &(struct bb_episode){0}, NULL, 0, NULL, 0), BB_EFULL);
    bb_engine_free(e);
}

static void test_cap_is_hard(void **state)
{
    (void)state;
    struct bb_params p;
    params(&p, 2000, 100.0, 2);
    struct bb_rng rng, data;
    bb_rng_init_seeded(&rng, 3);
    bb_rng_init_seeded(&data, 4);
    struct bb_engine *e;
    assert_int_equal(bb_engine_new(&p, &rng, &e), BB_OK);
    assert_int_equal(play(e, &data, 2000), 2);
    assert_int_equal(bb_engine_update(e), BB_ECAP);
    assert_int_equal(bb_engine_updates(e), 2);
    bb_engine_free(e);
}

/* A private run's Gram matrices take each row weighed (docs/PRIVACY.md
 * §1.7): ball rows of norms 0.2-1 weigh 1/||phi||_2. At rho = 10^6 the
 * noise is far below the weights' effect: every off-diagonal entry is
 * within 0.05 of the weighted sum, and the plain sum is far off. */
static void test_private_rows_weighed(void **state)
{
    (void)state;
    struct bb_params p;
    params(&p, 500, 1e6, 0);
    assert_int_equal(p.row_weight, BB_ROW_WEIGHT_NORM);
    struct bb_rng rng, data;
    bb_rng_init_seeded(&rng, 7);
    bb_rng_init_seeded(&data, 8);
    struct bb_engine *e;
    assert_int_equal(bb_engine_new(&p, &rng, &e), BB_OK);
    static double weighed[H][D * D], plain[H][D * D];
    memset(weighed, 0, sizeof(weighed));
    memset(plain, 0, sizeof(plain));
    for (int k = 0; k < 300; k++) {
        struct ep x;
        random_episode(&data, &x);
        for (int h = 0; h < H; h++) {
            const double *phi = x.feat + (h * A + x.act[h]) * D;
            double n2 = 0;
            for (int j = 0; j < D; j++)
                n2 += phi[j] * phi[j];
            for (int i = 0; i < D * D; i++) {
                weighed[h][i] += phi[i / D] * phi[i % D] / sqrt(n2);
                plain[h][i] += phi[i / D] * phi[i % D];
            }
        }
        struct bb_episode v = view(&x);
        assert_int_equal(bb_engine_add(e, &v, NULL, 0, NULL, 0), BB_OK);
    }
    double off_plain = 0;
    for (int h = 0; h < H; h++)
        for (int i = 0; i < D * D; i++) {
            if (i / D == i % D)
                continue; /* the ridge is on the diagonal */
            assert_true(fabs(bb_engine_gram(e, h)[i] - weighed[h][i]) <= 0.05);
            off_plain = fmax(off_plain, fabs(bb_engine_gram(e, h)[i] - plain[h][i]));
        }
    assert_true(off_plain > 5.0);
    bb_engine_free(e);
}

static void test_non_private_same_code(void **state)
{
    (void)state;
    struct bb_params p;
    params(&p, 500, INFINITY, 0);
    struct bb_rng rng, data;
    bb_rng_init_seeded(&rng, 5);
    bb_rng_init_seeded(&data, 6);
    struct bb_engine *e;
    assert_int_equal(bb_engine_new(&p, &rng, &e), BB_OK);
    double ref[H][D * D];
    memset(ref, 0, sizeof(ref));
    for (int h = 0; h < H; h++)
        for (int j = 0; j < D; j++)
            ref[h][j * D + j] = 1.0; /* ridge lambda = 1 */
    long u = play(e, &data, 0);
    (void)u;
    for (int k = 0; k < 300; k++) {
        struct ep x;
        random_episode(&data, &x);
        for (int h = 0; h < H; h++) { /* every row weighs 1 without privacy */
            const double *phi = x.feat + (h * A + x.act[h]) * D;
            for (int i = 0; i < D; i++)
                for (int j = 0; j < D; j++)
                    ref[h][i * D + j] += phi[i] * phi[j];
        }
        struct bb_episode v = view(&x);
        assert_int_equal(bb_engine_add(e, &v, NULL, 0, NULL, 0), BB_OK);
    }
    for (int h = 0; h < H; h++)
        for (int i = 0; i < D * D; i++)
            assert_rel(bb_engine_gram(e, h)[i], ref[h][i], 1e-12); /* no noise */
    bb_engine_free(e);

    /* The every-episode baseline updates before every episode with data. */
    bb_params_defaults(&p);
    p.H = H, p.d = D, p.A = A, p.K_max = 50, p.rho = INFINITY, p.update_rule = BB_UPDATE_EVERY;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_int_equal(bb_engine_new(&p, &rng, &e), BB_OK);
    for (int k = 0; k < 50; k++) {
        assert_int_equal(bb_engine_update_due(e), k > 0);
        if (k > 0)
            assert_int_equal(bb_engine_update(e), BB_OK);
        struct ep x;
        random_episode(&data, &x);
        struct bb_episode v = view(&x);
        assert_int_equal(bb_engine_add(e, &v, NULL, 0, NULL, 0), BB_OK);
    }
    assert_int_equal(bb_engine_updates(e), 49);
    bb_engine_free(e);
}

static void test_bad_input_changes_nothing(void **state)
{
    (void)state;
    struct bb_params p;
    params(&p, 100, 1.0, 0);
    struct bb_rng rng, data;
    bb_rng_init_seeded(&rng, 7);
    bb_rng_init_seeded(&data, 8);
    struct bb_engine *e;
    assert_int_equal(bb_engine_new(&p, &rng, &e), BB_OK);
    struct ep good;
    random_episode(&data, &good);
    struct bb_episode v = view(&good);
    assert_int_equal(bb_engine_add(e, &v, NULL, 0, NULL, 0), BB_OK);
    double before[D * D];
    memcpy(before, bb_engine_gram(e, 1), sizeof(before));

    struct {
        const char *field;
        void (*spoil)(struct ep *);
    } cases[] = {
        {"/steps/1/features/2", NULL},
        {"/steps/0/features/0", NULL},
        {"/steps/2/reward", NULL},
        {"/steps/0/reward", NULL},
        {"/steps/1/action", NULL},
        {"/steps/2/action", NULL},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        struct ep bad = good;
        switch (c) {
        case 0: bad.feat[(1 * A + 2) * D + 1] = 1.0 + 1e-9; break; /* norm > 1, unchosen row */
        case 1: bad.feat[0] = NAN; break;
        case 2: bad.rew[2] = 1.0000001; break;
        case 3: bad.rew[0] = -0.0001; break;
        case 4: bad.act[1] = A; break;
        case 5: bad.act[2] = -1; break;
        }
        char field[64], why[128];
        struct bb_episode bv = view(&bad);
        assert_int_equal(bb_engine_add(e, &bv, field, sizeof(field), why, sizeof(why)), BB_EINVAL);
        assert_string_equal(field, cases[c].field);
        assert_true(strlen(why) > 0);
        assert_int_equal(bb_engine_episodes(e), 1);
        assert_memory_equal(bb_engine_gram(e, 1), before, sizeof(before));
    }
    /* Boundary values are accepted: norm exactly 1, rewards 0 and 1. */
    struct ep edge = good;
    memset(edge.feat, 0, sizeof(edge.feat));
    for (int row = 0; row < H * A; row++)
        edge.feat[row * D + row % D] = 1.0;
    edge.rew[0] = 0.0, edge.rew[1] = 1.0;
    struct bb_episode ev = view(&edge);
    assert_int_equal(bb_engine_add(e, &ev, NULL, 0, NULL, 0), BB_OK);
    bb_engine_free(e);
}

static void test_split_update_while_ingesting(void **state)
{
    (void)state;
    struct bb_params p;
    params(&p, 200, INFINITY, 0);
    struct bb_rng r1, r2, d1, d2;
    bb_rng_init_seeded(&r1, 9);
    bb_rng_init_seeded(&r2, 9);
    bb_rng_init_seeded(&d1, 10);
    bb_rng_init_seeded(&d2, 10);
    struct bb_engine *a, *b;
    assert_int_equal(bb_engine_new(&p, &r1, &a), BB_OK);
    assert_int_equal(bb_engine_new(&p, &r2, &b), BB_OK);
    struct ep x;
    for (int k = 0; k < 60; k++) {
        random_episode(&d1, &x);
        struct bb_episode v = view(&x);
        assert_int_equal(bb_engine_add(a, &v, NULL, 0, NULL, 0), BB_OK);
        random_episode(&d2, &x);
        v = view(&x);
        assert_int_equal(bb_engine_add(b, &v, NULL, 0, NULL, 0), BB_OK);
    }
    struct bb_update *u;
    assert_int_equal(bb_engine_update_begin(a, &u), BB_OK);
    struct bb_update *u2;
    assert_int_equal(bb_engine_update_begin(a, &u2), BB_ECONFLICT); /* one at a time */
    assert_false(bb_engine_update_due(a));
    for (int k = 0; k < 30; k++) { /* episodes keep arriving meanwhile */
        random_episode(&d1, &x);
        struct bb_episode v = view(&x);
        assert_int_equal(bb_engine_add(a, &v, NULL, 0, NULL, 0), BB_OK);
    }
    assert_int_equal(bb_engine_update_run(u), BB_OK);
    assert_int_equal(bb_engine_update_finish(a, u), BB_OK);
    bb_update_free(u);
    assert_int_equal(bb_engine_update(b), BB_OK);
    const struct bb_billboard *ba = bb_engine_billboard(a), *bbb = bb_engine_billboard(b);
    assert_int_equal(ba->episode, 60);
    assert_int_equal(ba->version, 1);
    assert_memory_equal(ba->w, bbb->w, sizeof(double) * H * D);
    assert_memory_equal(ba->gram, bbb->gram, sizeof(double) * H * D * D);
    bb_engine_free(a);
    bb_engine_free(b);
}


/* Stores the records of a's last add, as the daemon does. */
static void put_records(struct test_records *s, const struct bb_engine *a)
{
    const struct bb_mech_record *r;
    size_t n = bb_engine_records(a, &r);
    test_records_put(s, r, n);
}

/* A recovery source over an array of episodes. */
struct eps_src {
    const struct ep *eps;
    long n;
};

static int eps_each(void *ctx, bb_engine_put put, void *sink)
{
    const struct eps_src *src = ctx;
    for (long k = 0; k < src->n; k++) {
        struct bb_episode v = view(&src->eps[k]);
        int rc = put(sink, &v);
        if (rc != BB_OK)
            return rc;
    }
    return BB_OK;
}

/* Recovery through the seam, for mechanism m (defaults otherwise). */
static void recovery_with(enum bb_mechanism m)
{
    struct bb_params p;
    params(&p, 500, 1000.0, 0);
    if (m != BB_MECH_TREE) {
        bb_params_defaults(&p);
        p.H = H, p.d = D, p.A = A, p.K_max = 500, p.rho = 1000.0, p.beta = 0.5;
        p.mechanism = m;
        assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    }
    struct bb_rng r1, r2, r3, data;
    bb_rng_init_seeded(&r1, 11);
    bb_rng_init_seeded(&r2, 999); /* a restart has a fresh stream */
    bb_rng_init_seeded(&r3, 998);
    bb_rng_init_seeded(&data, 12);
    struct bb_engine *a, *c, *x;
    assert_int_equal(bb_engine_new(&p, &r1, &a), BB_OK);
    assert_int_equal(bb_engine_new(&p, &r2, &c), BB_OK);
    assert_int_equal(bb_engine_new(&p, &r3, &x), BB_OK);
    static struct ep eps[333];
    static struct test_records saved;
    for (int k = 0; k < 333; k++) {
        if (bb_engine_update_due(a))
            assert_int_equal(bb_engine_update(a), BB_OK);
        random_episode(&data, &eps[k]);
        struct bb_episode v = view(&eps[k]);
        assert_int_equal(bb_engine_add(a, &v, NULL, 0, NULL, 0), BB_OK);
        put_records(&saved, a);
    }
    assert_true(bb_engine_updates(a) > 0);
    struct eps_src src = {eps, 333};
    /* Without the records the noise is missing: refused, and no add either. */
    assert_int_equal(bb_engine_recover(x, eps_each, &src, NULL, 0), BB_EINVAL);
    struct bb_episode v0 = view(&eps[0]);
    assert_int_equal(bb_engine_add(x, &v0, NULL, 0, NULL, 0), BB_EINVAL);
    bb_engine_free(x);
    /* With the reward stream (the grids' default): its records are needed
     * too, and the recovered releases are a's. */
    double ra[D], rc_[D], sa, sc;
    const int stream = bb_engine_reward(a, 0, ra, &sa) == BB_OK;
    assert_int_equal(stream, m != BB_MECH_TREE && m != BB_MECH_TREE_HONAKER);
    if (stream) {
        static struct test_records gram_only;
        for (size_t i = 0; i < saved.n; i++)
            if (saved.rec[i].slot >= 0)
                test_records_put(&gram_only, &saved.rec[i], 1);
        assert_true(gram_only.n < saved.n);
        struct bb_engine *y;
        assert_int_equal(bb_engine_new(&p, &r3, &y), BB_OK);
        assert_int_equal(bb_engine_recover(y, eps_each, &src, gram_only.rec, gram_only.n),
                         BB_EINVAL);
        bb_engine_free(y);
        test_records_free(&gram_only);
    }
    assert_int_equal(bb_engine_recover(c, eps_each, &src, saved.rec, saved.n), BB_OK);
    assert_int_equal(bb_engine_episodes(c), 333);
    for (int h = 0; stream && h < H; h++) {
        assert_int_equal(bb_engine_reward(a, h, ra, &sa), BB_OK);
        assert_int_equal(bb_engine_reward(c, h, rc_, &sc), BB_OK);
        assert_memory_equal(ra, rc_, sizeof(ra));
        assert_true(sa == sc && sa > 0);
    }
    const struct bb_billboard *last = bb_engine_billboard(a);
    long upd = bb_engine_updates(a);
    assert_int_equal(bb_engine_restore_billboard(c, last, upd - 1), BB_EINVAL); /* < version */
    assert_int_equal(bb_engine_restore_billboard(c, last, p.max_updates + 1), BB_EINVAL);
    assert_int_equal(bb_engine_restore_billboard(c, last, upd), BB_OK);
    for (int h = 0; h < H; h++) {
        assert_memory_equal(bb_engine_gram(c, h), bb_engine_gram(a, h), sizeof(double) * D * D);
        assert_true(bb_engine_logdet(c, h) == bb_engine_logdet(a, h));
    }
    assert_int_equal(bb_engine_updates(c), bb_engine_updates(a));
    assert_int_equal(bb_engine_update_due(c), bb_engine_update_due(a));
    const struct bb_billboard *ba = bb_engine_billboard(a), *bc = bb_engine_billboard(c);
    assert_memory_equal(ba->w, bc->w, sizeof(double) * H * D);
    /* The recovered engine goes on where the first one would. */
    static struct ep more;
    random_episode(&data, &more);
    struct bb_episode vm = view(&more);
    assert_int_equal(bb_engine_add(c, &vm, NULL, 0, NULL, 0), BB_OK);
    assert_int_equal(bb_engine_episodes(c), 334);
    /* A charged but unpublished update counts: the cap is reached sooner. */
    assert_int_equal(bb_engine_restore_billboard(c, last, p.max_updates), BB_OK);
    assert_int_equal(bb_engine_updates(c), p.max_updates);
    assert_false(bb_engine_update_due(c));
    assert_int_equal(bb_engine_update(c), BB_ECAP);
    test_records_free(&saved);
    bb_engine_free(a);
    bb_engine_free(c);
}

static void test_recovery_by_replay(void **state)
{
    (void)state;
    recovery_with(BB_MECH_TREE);
    recovery_with(BB_MECH_GRID);
    recovery_with(BB_MECH_GRID_SQRT);
    recovery_with(BB_MECH_TREE_HONAKER);
}

/* The warm-up (docs/PRIVACY.md §2.5): a billboard of the immediate rewards
 * at each warm point before the first update, numbered 1..M; its noise in
 * records of its own (steps H..2H-1), needed by a recovery; the updates
 * numbered after the M warm points; a restart takes a warm billboard back. */
static void test_warm_billboards(void **state)
{
    (void)state;
    struct bb_params p;
    bb_params_defaults(&p);
    p.H = H, p.d = D, p.A = A, p.K_max = 20000, p.rho = 0.5, p.beta = 0.5;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    const long M = p.warm_points;
    assert_true(M >= 2);
    struct bb_rng r1, r2, data;
    bb_rng_init_seeded(&r1, 21);
    bb_rng_init_seeded(&r2, 22);
    bb_rng_init_seeded(&data, 23);
    struct bb_engine *a, *c;
    assert_int_equal(bb_engine_new(&p, &r1, &a), BB_OK);
    assert_int_equal(bb_engine_new(&p, &r2, &c), BB_OK);
    const long n = (long)p.release_start + 50;
    struct ep *eps = calloc((size_t)n, sizeof(*eps));
    static struct test_records saved;
    struct bb_billboard last_warm = {0};
    assert_non_null(eps);
    long warm_seen = 0;
    for (long k = 0; k < n; k++) {
        if (bb_engine_update_due(a))
            assert_int_equal(bb_engine_update(a), BB_OK);
        random_episode(&data, &eps[k]);
        struct bb_episode v = view(&eps[k]);
        assert_int_equal(bb_engine_add(a, &v, NULL, 0, NULL, 0), BB_OK);
        put_records(&saved, a);
        const struct bb_billboard *b = bb_engine_billboard(a);
        const long k1 = k + 1;
        if (k1 == 250L << warm_seen && warm_seen < M) { /* a warm point */
            warm_seen++;
            assert_int_equal(b->version, (uint64_t)warm_seen);
            assert_false(b->uniform);
            assert_true(b->sample);
            assert_int_equal(b->episode, (uint64_t)k1);
            /* w_h = Lambda~_W^-1 R~_W + kappa 1: Lambda~_W (w_h - kappa 1) = R~_W */
            const double kappa = bb_params_y_centre(&p);
            for (int h = 0; h < H; h++) {
                double r[D], sd, lhs;
                assert_int_equal(bb_engine_warm_reward(a, h, r, &sd), BB_OK);
                assert_rel(b->sigma_y[h], sd, 0);
                assert_true(sd > 0);
                for (int i = 0; i < D; i++) {
                    lhs = 0;
                    for (int j = 0; j < D; j++)
                        lhs += b->gram[((size_t)h * D + i) * D + j] * (b->w[h * D + j] - kappa);
                    assert_true(fabs(lhs - r[i]) <= 1e-9 * (1 + fabs(r[i])));
                }
            }
            assert_true(b->privacy.rho_spent >= p.rho_warm);
            if (warm_seen == M)
                assert_int_equal(bb_billboard_copy(&last_warm, b), BB_OK);
        }
        if (k1 < 250)
            assert_true(b->uniform && b->version == 0);
    }
    assert_int_equal(warm_seen, M);
    assert_true(bb_engine_updates(a) >= 1);
    const struct bb_billboard *last = bb_engine_billboard(a);
    assert_int_equal(last->version, (uint64_t)(M + bb_engine_updates(a)));
    /* The warm-up's records are needed, and only where it is in force. */
    static struct test_records main_only;
    size_t warm_records = 0;
    for (size_t i = 0; i < saved.n; i++) {
        if (saved.rec[i].step < H)
            test_records_put(&main_only, &saved.rec[i], 1);
        else
            warm_records++;
    }
    assert_true(warm_records > 0);
    struct eps_src src = {eps, n};
    struct bb_engine *y;
    assert_int_equal(bb_engine_new(&p, &r2, &y), BB_OK);
    assert_int_equal(bb_engine_recover(y, eps_each, &src, main_only.rec, main_only.n), BB_EINVAL);
    bb_engine_free(y);
    struct bb_params q = p;
    q.warm_share = 0;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    assert_int_equal(bb_engine_new(&q, &r2, &y), BB_OK);
    assert_int_equal(bb_engine_recover(y, eps_each, &src, saved.rec, saved.n), BB_EINVAL);
    bb_engine_free(y);
    assert_int_equal(bb_engine_recover(c, eps_each, &src, saved.rec, saved.n), BB_OK);
    long upd = bb_engine_updates(a);
    assert_int_equal(bb_engine_restore_billboard(c, last, upd), BB_OK);
    assert_int_equal(bb_engine_update(a), bb_engine_update(c)); /* the same next version */
    assert_int_equal(bb_engine_billboard(a)->version, bb_engine_billboard(c)->version);
    /* The first update charged and lost to a crash: the last warm billboard
     * is served, the next update is numbered after the lost one. */
    assert_int_equal(bb_engine_new(&p, &r2, &y), BB_OK);
    assert_int_equal(bb_engine_recover(y, eps_each, &src, saved.rec, saved.n), BB_OK);
    assert_int_equal(bb_engine_restore_billboard(y, &last_warm, p.max_updates + 1), BB_EINVAL);
    assert_int_equal(bb_engine_restore_billboard(y, &last_warm, 1), BB_OK);
    assert_int_equal(bb_engine_billboard(y)->version, (uint64_t)M);
    assert_false(bb_engine_billboard(y)->uniform);
    /* the schedule's reference is version 0's, not the warm billboard's */
    assert_true(bb_engine_update_due(y));
    assert_int_equal(bb_engine_update(y), BB_OK);
    assert_int_equal(bb_engine_billboard(y)->version, (uint64_t)(M + 2));
    bb_engine_free(y);
    bb_billboard_release(&last_warm);
    test_records_free(&saved);
    test_records_free(&main_only);
    free(eps);
    bb_engine_free(a);
    bb_engine_free(c);
}

static void test_version_zero(void **state)
{
    (void)state;
    struct bb_params p;
    params(&p, 100, 1.0, 0);
    struct bb_rng rng;
    bb_rng_init_seeded(&rng, 13);
    struct bb_engine *e;
    assert_int_equal(bb_engine_new(&p, &rng, &e), BB_OK);
    const struct bb_billboard *b = bb_engine_billboard(e);
    assert_int_equal(b->version, 0);
    double ridge = bb_engine_ridge(e);
    assert_true(ridge >= p.ridge && ridge - p.ridge < p.grid_gram); /* snapped up */
    for (int h = 0; h < H; h++)
        for (int i = 0; i < D; i++) {
            assert_true(b->w[h * D + i] == 0.0);
            for (int j = 0; j < D; j++)
                assert_true(b->gram[(h * D + i) * D + j] == (i == j ? ridge : 0.0));
        }
    assert_false(bb_engine_update_due(e));
    /* It holds no data: under the default prior policy it recommends
     * uniformly random actions, and a restored version 0 says so too. */
    assert_int_equal(p.prior_policy, BB_PRIOR_UNIFORM);
    assert_int_equal(b->uniform, 1);
    struct bb_billboard v0;
    assert_int_equal(bb_billboard_copy(&v0, b), BB_OK);
    v0.uniform = 0;
    v0.sample = 0; /* the policy fields follow the configuration, not the row */
    v0.plausible_z = 7;
    assert_int_equal(bb_engine_restore_billboard(e, &v0, 0), BB_OK);
    assert_int_equal(bb_engine_billboard(e)->uniform, 1);
    assert_true(bb_engine_billboard(e)->sample == 1 && bb_engine_billboard(e)->plausible_z == 0);
    /* The first update computes a policy from data: greedy from then on. */
    bb_engine_free(e);
    params(&p, 2000, 1000.0, 0);
    assert_int_equal(bb_engine_new(&p, &rng, &e), BB_OK);
    struct bb_rng data;
    bb_rng_init_seeded(&data, 14);
    while (!bb_engine_update_due(e)) {
        struct ep x;
        random_episode(&data, &x);
        struct bb_episode v = view(&x);
        assert_int_equal(bb_engine_add(e, &v, NULL, 0, NULL, 0), BB_OK);
    }
    /* Version 0 carries the sample (§3.6), no set and no noise; an update,
     * the sd each step's y noise was drawn at (no next-value bound here:
     * the configured one), for the clinics' samples. With explore set the
     * billboard carries the set's z and f instead (§3.4). */
    b = bb_engine_billboard(e);
    assert_int_equal(b->sample, 1);
    assert_true(b->plausible_z == 0 && b->plausible_floor == 0);
    struct bb_params set = p;
    set.explore = BB_EXPLORE_SET;
    struct bb_engine *es;
    assert_int_equal(bb_engine_new(&set, &rng, &es), BB_OK);
    assert_int_equal(bb_engine_billboard(es)->sample, 0);
    assert_rel(bb_engine_billboard(es)->plausible_z, p.plausible_z, 0);
    assert_rel(bb_engine_billboard(es)->plausible_floor, p.plausible_floor, 0);
    assert_true(p.plausible_z > 0 && p.plausible_floor > 0);
    bb_engine_free(es);
    for (int h = 0; h < H; h++)
        assert_true(b->sigma_y[h] == 0);
    assert_int_equal(bb_engine_update(e), BB_OK);
    assert_int_equal(bb_engine_billboard(e)->version, 1);
    assert_int_equal(bb_engine_billboard(e)->uniform, 0);
    /* update 1 draws at its share of rho_y (§2.3), not the base sd */
    assert_true(bb_params_first_share(&p) > 1);
    for (int h = 0; h < H; h++) {
        assert_true(b->sigma_y[h] > 0);
        assert_rel(b->sigma_y[h],
                   bb_params_sigma_y_drawn_update(&p, h, bb_params_value_cap(&p, h), 1), 0);
        assert_true(b->sigma_y[h] < bb_params_sigma_y_drawn_step(&p, h));
    }
    assert_true(b->sample == 1 && b->plausible_z == 0);
    bb_engine_free(e);
    /* A non-private run has no noise, no set and no sample. */
    params(&p, 100, INFINITY, 0);
    assert_int_equal(bb_engine_new(&p, &rng, &e), BB_OK);
    assert_rel(bb_engine_billboard(e)->plausible_z, 0, 0);
    assert_int_equal(bb_engine_billboard(e)->sample, 0);
    bb_engine_free(e);
    params(&p, 2000, 1000.0, 0);
    /* The paper's prior: the greedy argmax, also at version 0. */
    p.prior_policy = BB_PRIOR_GREEDY;
    assert_int_equal(bb_engine_new(&p, &rng, &e), BB_OK);
    assert_int_equal(bb_engine_billboard(e)->uniform, 0);
    assert_int_equal(bb_engine_restore_billboard(e, &v0, 0), BB_OK);
    assert_int_equal(bb_engine_billboard(e)->uniform, 0);
    bb_engine_free(e);
    bb_billboard_release(&v0);
}

/* An episode of one-hot rows: row r of the H*A is e_{r mod D}. */
static void onehot_episode(struct ep *e)
{
    memset(e, 0, sizeof(*e));
    for (int row = 0; row < H * A; row++)
        e->feat[row * D + row % D] = 1.0;
    for (int h = 0; h < H; h++)
        e->act[h] = h % A, e->rew[h] = 0.5;
}

/* Three engines on the same one-hot episodes and seeds, differing only in
 * the stored final-prior (kept, none, taper), to their first update with
 * at most `cap` updates in all; w[i] gets engine i's weights. */
static void prior_cut_run(long cap, double w[3][H * D], double *cut, int *final)
{
    static const enum bb_final_prior mode[3] = {BB_FINAL_PRIOR_KEPT, BB_FINAL_PRIOR_NONE,
                                                BB_FINAL_PRIOR_TAPER};
    struct bb_params p[3];
    struct bb_rng rng[3];
    struct bb_engine *e[3];
    for (int i = 0; i < 3; i++) {
        bb_params_defaults(&p[i]);
        p[i].H = H, p[i].d = D, p[i].A = A, p[i].K_max = 400, p[i].rho = 1.0;
        p[i].features = BB_FEATURES_ONEHOT, p[i].release_start = 50;
        p[i].max_updates_cap = cap, p[i].final_prior = mode[i];
        assert_int_equal(bb_params_derive(&p[i], NULL, 0), BB_OK);
        assert_true(bb_params_prior_target(&p[i], 0) > 0); /* one-hot rows have a prior */
        bb_rng_init_seeded(&rng[i], 31);
        assert_int_equal(bb_engine_new(&p[i], &rng[i], &e[i]), BB_OK);
    }
    struct bb_rng data;
    bb_rng_init_seeded(&data, 32);
    while (!bb_engine_update_due(e[0])) {
        struct ep x;
        onehot_episode(&x);
        for (int h = 0; h < H; h++)
            x.act[h] = (int)bb_rng_below(&data, A), x.rew[h] = bb_rng_uniform(&data);
        struct bb_episode v = view(&x);
        for (int i = 0; i < 3; i++)
            assert_int_equal(bb_engine_add(e[i], &v, NULL, 0, NULL, 0), BB_OK);
        assert_true(bb_engine_episodes(e[0]) < p[0].K_max);
    }
    for (int i = 0; i < 3; i++) {
        assert_int_equal(bb_engine_update_due(e[i]), 1);
        assert_int_equal(bb_engine_update(e[i]), BB_OK);
        memcpy(w[i], bb_engine_billboard(e[i])->w, sizeof(w[i]));
    }
    const long n = (long)bb_engine_billboard(e[2])->episode;
    *final = bb_engine_updates(e[2]) >= p[2].max_updates || n >= bb_params_last_release(&p[2]);
    *cut = bb_params_prior_cut(&p[2], n, *final);
    for (int i = 0; i < 3; i++)
        bb_engine_free(e[i]);
}

/* The prior's cut reaches the backward pass (bb_params_prior_cut,
 * docs/PRIVACY.md §3.2). Before the final update `none` keeps the prior
 * whole, as `kept` does, and `taper` weighs it less; at the final update
 * (here the only one the cap allows) `taper` drops it, as `none` does, and
 * `kept` still has it. */
static void test_prior_cut(void **state)
{
    (void)state;
    double w[3][H * D], cut;
    int final;
    prior_cut_run(0, w, &cut, &final); /* the cap the budget allows */
    assert_false(final);
    assert_true(cut > 0 && cut < 1);
    assert_memory_equal(w[1], w[0], sizeof(w[0]));
    assert_memory_not_equal(w[2], w[0], sizeof(w[0]));
    prior_cut_run(1, w, &cut, &final);
    assert_true(final);
    assert_true(cut == 1);
    assert_memory_equal(w[2], w[1], sizeof(w[0]));
    assert_memory_not_equal(w[2], w[0], sizeof(w[0]));
}

/* With simplex rows the y sensitivity rests on every accepted row being
 * nonnegative (docs/PRIVACY.md §2.1): the engine refuses a row with a
 * negative entry, or summing above 1, in any step and action, before it
 * reaches any sum, and takes one-hot rows. */
static void test_simplex_rows(void **state)
{
    (void)state;
    struct bb_params p;
    bb_params_defaults(&p);
    p.H = H, p.d = D, p.A = A, p.K_max = 100, p.rho = 1.0, p.features = BB_FEATURES_SIMPLEX;
    p.explore = BB_EXPLORE_SET; /* the set's fields (§3.4) */
    char why[128];
    if (bb_params_derive(&p, why, sizeof(why)) != BB_OK)
        fail_msg("%s", why);
    assert_rel(bb_params_y_pair(&p), 1.0, 0); /* centred targets, §2.2 */
    struct bb_rng rng;
    bb_rng_init_seeded(&rng, 9);
    struct bb_engine *e;
    assert_int_equal(bb_engine_new(&p, &rng, &e), BB_OK);
    /* The plausible set keeps the width it was tuned at against the
     * nonnegative bound's noise, sqrt 2 times the centred one (§3.4): the
     * billboard carries z sqrt 2 and f / sqrt 2; ball rows (test_version_zero)
     * and the nonnegative bound the configured ones. */
    assert_rel(bb_params_plausible_unit(&p), sqrt(2.0), 0);
    assert_rel(bb_engine_billboard(e)->plausible_z, p.plausible_z * sqrt(2.0), 1e-15);
    assert_rel(bb_engine_billboard(e)->plausible_floor, p.plausible_floor / sqrt(2.0), 1e-15);
    struct bb_params nn = p;
    nn.y_sensitivity = BB_YSENS_NONNEGATIVE;
    assert_int_equal(bb_params_derive(&nn, NULL, 0), BB_OK);
    assert_rel(bb_params_plausible_unit(&nn), 1.0, 0);
    struct ep good;
    onehot_episode(&good);
    struct ep neg = good, over = good;
    neg.feat[(2 * A + good.act[2]) * D + 1] = -1e-6; /* the chosen row, step 3 */
    over.feat[(0 * A + 1) * D + 2] = 0.5;            /* 1.5 in all, an unchosen row */
    char field[64];
    struct bb_episode v = view(&neg);
    assert_int_equal(bb_engine_add(e, &v, field, sizeof(field), why, sizeof(why)), BB_EINVAL);
    char want[64];
    snprintf(want, sizeof(want), "/steps/2/features/%d", good.act[2]);
    assert_string_equal(field, want);
    v = view(&over);
    assert_int_equal(bb_engine_add(e, &v, field, sizeof(field), why, sizeof(why)), BB_EINVAL);
    assert_string_equal(field, "/steps/0/features/1");
    assert_int_equal(bb_engine_episodes(e), 0);
    v = view(&good);
    assert_int_equal(bb_engine_add(e, &v, NULL, 0, NULL, 0), BB_OK);
    assert_int_equal(bb_engine_episodes(e), 1);
    bb_engine_free(e);
}

/* With onehot rows (docs/PRIVACY.md §1.6) the engine also refuses a simplex
 * row with two nonzero entries, in any step and action, before it reaches
 * any sum (a simplex engine takes it); and its Lambda~_h, released prefix
 * plus ridge, is diagonal. */
static void test_onehot_rows(void **state)
{
    (void)state;
    struct bb_params p;
    bb_params_defaults(&p);
    p.H = H, p.d = D, p.A = A, p.K_max = 100, p.rho = 1.0, p.features = BB_FEATURES_ONEHOT;
    p.release_start = 1;
    char why[160];
    if (bb_params_derive(&p, why, sizeof(why)) != BB_OK)
        fail_msg("%s", why);
    struct bb_params q = p;
    q.features = BB_FEATURES_SIMPLEX;
    assert_int_equal(bb_params_derive(&q, NULL, 0), BB_OK);
    struct bb_rng rng, rq;
    bb_rng_init_seeded(&rng, 9);
    bb_rng_init_seeded(&rq, 9);
    struct bb_engine *e, *f;
    assert_int_equal(bb_engine_new(&p, &rng, &e), BB_OK);
    assert_int_equal(bb_engine_new(&q, &rq, &f), BB_OK);
    struct ep good;
    onehot_episode(&good);
    struct ep two = good;
    const int row = 1 * A + 1, j = (row + 1) % D; /* step 2, action 1: unchosen there */
    two.feat[row * D + row % D] = 0.5, two.feat[row * D + j] = 0.5;
    char field[64];
    struct bb_episode v = view(&two);
    assert_int_equal(bb_engine_add(e, &v, field, sizeof(field), why, sizeof(why)), BB_EINVAL);
    assert_string_equal(field, "/steps/1/features/1");
    assert_non_null(strstr(why, "2 nonzero entries"));
    assert_int_equal(bb_engine_episodes(e), 0);
    assert_int_equal(bb_engine_add(f, &v, NULL, 0, NULL, 0), BB_OK); /* simplex takes it */
    v = view(&good);
    for (int k = 0; k < 20; k++)
        assert_int_equal(bb_engine_add(e, &v, NULL, 0, NULL, 0), BB_OK);
    assert_true(bb_engine_released(e) >= 12); /* the grid 1, 2, 3, 5, 8, 12, 18 */
    for (int h = 0; h < H; h++) {
        const double *g = bb_engine_gram(e, h);
        for (int a = 0; a < D; a++)
            for (int b = 0; b < D; b++)
                if (a != b && g[a * D + b] != 0.0)
                    fail_msg("step %d: Lambda~[%d][%d] = %g", h, a, b, g[a * D + b]);
    }
    bb_engine_free(e);
    bb_engine_free(f);
}

/* Rows that reach direction 0 only: in the others the released prefix is
 * noise alone, and a ridge far below it (--shift-scale 0.01) leaves
 * Lambda~_h indefinite at the first release. */
static void corner_episode(struct bb_rng *r, struct ep *e)
{
    memset(e->feat, 0, sizeof(e->feat));
    for (int row = 0; row < H * A; row++)
        e->feat[row * D] = 1.0;
    for (int h = 0; h < H; h++) {
        e->act[h] = (int)bb_rng_below(r, A);
        e->rew[h] = bb_rng_uniform(r);
    }
}

/* An indefinite Lambda~_h at a release (docs/PRIVACY.md §1.4): refused
 * (BB_ENOTPD, the old behaviour) or, by default, step h's ridge doubled to
 * the smallest ridge 2^j that makes it positive definite; the update then
 * goes ahead on those matrices, and a recovered engine computes the same. */
static void test_indefinite(void **state)
{
    (void)state;
    for (int rule = BB_INDEF_REFUSE; rule <= BB_INDEF_DOUBLE; rule++) {
        struct bb_params p;
        bb_params_defaults(&p);
        assert_int_equal(p.indefinite, BB_INDEF_DOUBLE);
        p.H = H, p.d = D, p.A = A, p.K_max = 400, p.rho = 1.0;
        p.release_start = 50, p.shift_scale = 0.01, p.indefinite = (enum bb_indefinite)rule;
        assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
        struct bb_rng rng, rng2, data;
        bb_rng_init_seeded(&rng, 21);
        bb_rng_init_seeded(&rng2, 22);
        bb_rng_init_seeded(&data, 23);
        struct bb_engine *e, *c;
        assert_int_equal(bb_engine_new(&p, &rng, &e), BB_OK);
        const double ridge = bb_engine_ridge(e);
        static struct ep eps[50];
        static struct test_records saved;
        for (int k = 0; k < 50; k++) {
            corner_episode(&data, &eps[k]);
            struct bb_episode v = view(&eps[k]);
            assert_int_equal(bb_engine_add(e, &v, NULL, 0, NULL, 0), BB_OK);
            put_records(&saved, e);
        }
        int doubled = 0;
        for (int h = 0; h < H; h++) {
            const double r = bb_engine_ridge_step(e, h);
            const double *g = bb_engine_gram(e, h);
            double prefix[D * D], l[D * D];
            memcpy(prefix, g, sizeof(prefix));
            for (int i = 0; i < D; i++)
                prefix[i * D + i] -= r;
            for (int i = 0; i < D; i++)
                prefix[i * D + i] += ridge; /* the prefix plus the configured ridge */
            const int base = bb_chol(prefix, l, D);
            if (rule == BB_INDEF_REFUSE) {
                assert_true(r == ridge);
                doubled |= base == BB_ENOTPD;
                continue;
            }
            int j = 0;
            while (j < BB_RIDGE_DOUBLINGS && ldexp(ridge, j) < r)
                j++;
            assert_true(r == ldexp(ridge, j)); /* ridge 2^j */
            assert_int_equal(bb_chol(g, l, D), BB_OK);
            if (j > 0) { /* and the smallest: ridge 2^(j-1) was indefinite */
                for (int i = 0; i < D; i++)
                    prefix[i * D + i] += ldexp(ridge, j - 1) - ridge;
                assert_int_equal(bb_chol(prefix, l, D), BB_ENOTPD);
                doubled = 1;
            } else {
                assert_int_equal(base, BB_OK);
            }
            for (int i = 0; i < D * D; i++)
                assert_true(bb_on_grid(g[i], p.grid_gram));
        }
        assert_true(doubled); /* the case under test happened */
        if (rule == BB_INDEF_REFUSE) {
            assert_int_equal(bb_engine_update(e), BB_ENOTPD);
            assert_int_equal(bb_engine_updates(e), 0);
            bb_engine_free(e);
            test_records_free(&saved);
            continue;
        }
        assert_true(bb_engine_update_due(e));
        assert_int_equal(bb_engine_update(e), BB_OK);
        const struct bb_billboard *b = bb_engine_billboard(e);
        assert_int_equal(b->version, 1);
        assert_memory_equal(b->gram, bb_engine_gram(e, 0), sizeof(double) * H * D * D);
        /* A restart replays the same doublings from the stored noise. */
        assert_int_equal(bb_engine_new(&p, &rng2, &c), BB_OK);
        struct eps_src src = {eps, 50};
        assert_int_equal(bb_engine_recover(c, eps_each, &src, saved.rec, saved.n), BB_OK);
        for (int h = 0; h < H; h++) {
            assert_true(bb_engine_ridge_step(c, h) == bb_engine_ridge_step(e, h));
            assert_memory_equal(bb_engine_gram(c, h), bb_engine_gram(e, h),
                                sizeof(double) * D * D);
        }
        bb_engine_free(c);
        bb_engine_free(e);
        test_records_free(&saved);
    }
}

/* With the reward stream (the default for a private grid), an update's
 * y~_h is this update's noised next-value sum plus the stream's release at
 * the same point: at the last step there are no next values, so w_h =
 * Lambda~_h^-1 (R~_h + kappa (Lambda~_h - ridge_h I) 1) exactly, and the
 * published sd is the stream's; earlier steps add this update's draw. */
static void test_stream_update(void **state)
{
    (void)state;
    struct bb_params p;
    bb_params_defaults(&p);
    p.H = H, p.d = D, p.A = A, p.K_max = 400, p.rho = 1.0, p.features = BB_FEATURES_SIMPLEX;
    p.release_start = 50;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_true(bb_params_reward_stream(&p));
    struct bb_rng rng, data;
    bb_rng_init_seeded(&rng, 21);
    bb_rng_init_seeded(&data, 22);
    struct bb_engine *e;
    assert_int_equal(bb_engine_new(&p, &rng, &e), BB_OK);
    struct ep x;
    long k = 0;
    while (!bb_engine_update_due(e)) {
        random_episode(&data, &x);
        for (int i = 0; i < H * A * D; i++)
            x.feat[i] = fabs(x.feat[i]) / D; /* into the simplex */
        struct bb_episode v = view(&x);
        assert_int_equal(bb_engine_add(e, &v, NULL, 0, NULL, 0), BB_OK);
        assert_true(++k < 400);
    }
    assert_int_equal(bb_engine_update(e), BB_OK);
    const struct bb_billboard *b = bb_engine_billboard(e);
    assert_int_equal((long)b->episode, bb_engine_released(e));
    const double kappa = bb_params_y_centre(&p);
    assert_true(kappa > 0);
    double r[D], sd, y[D];
    for (int h = 0; h < H; h++) {
        assert_int_equal(bb_engine_reward(e, h, r, &sd), BB_OK);
        if (h < H - 1) { /* this update's draw on top */
            assert_true(b->sigma_y[h] > sd);
            continue;
        }
        assert_true(b->sigma_y[h] == sd && sd > 0);
        const double *g = b->gram + (size_t)h * D * D, ridge = bb_engine_ridge_step(e, h);
        for (int i = 0; i < D; i++) { /* Lambda~ w = R~ + kappa (Lambda~ - ridge I) 1 */
            double lw = 0, row = -ridge;
            for (int j = 0; j < D; j++) {
                lw += g[i * D + j] * b->w[h * D + j];
                row += g[i * D + j];
            }
            y[i] = r[i] + kappa * row;
            assert_true(fabs(lw - y[i]) <= 1e-9 * (1 + fabs(y[i])));
        }
    }
    bb_engine_free(e);
    /* Stored databases go on releasing the rewards in every update. */
    p.rewards = BB_REWARDS_UPDATE;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_int_equal(bb_engine_new(&p, &rng, &e), BB_OK);
    assert_int_equal(bb_engine_reward(e, 0, r, &sd), BB_ENOTFOUND);
    bb_engine_free(e);
}

/* Tabular rows (docs/PRIVACY.md §2.6): an episode whose state's rows are
 * off the layout e_{sA+a} is refused, named and changes nothing; the count
 * stream's records, in slots of their own, are needed to recover; and a
 * recovered engine makes the update the first one makes on the same
 * release, bit for bit (the updates draw no noise of their own). TA
 * actions, TS states. */
enum { TA = 2, TS = 3, TD = TA * TS };
struct tep {
    double feat[H * TA * TD];
    int act[H];
    double rew[H];
};

static void tabular_episode(struct bb_rng *r, struct tep *e)
{
    memset(e->feat, 0, sizeof(e->feat));
    for (int h = 0; h < H; h++) {
        const int s = (int)bb_rng_below(r, TS);
        for (int a = 0; a < TA; a++)
            e->feat[(h * TA + a) * TD + s * TA + a] = 1.0;
        e->act[h] = (int)bb_rng_below(r, TA);
        e->rew[h] = s == TS - 1 ? bb_rng_uniform(r) : 0.1;
    }
}

static int teps_each(void *ctx, bb_engine_put put, void *sink)
{
    const struct tep *eps = ctx;
    for (long k = 0; k < 300; k++) {
        struct bb_episode v = {eps[k].feat, eps[k].act, eps[k].rew};
        int rc = put(sink, &v);
        if (rc != BB_OK)
            return rc;
    }
    return BB_OK;
}

static void test_tabular_rows(void **state)
{
    (void)state;
    struct bb_params p;
    bb_params_defaults(&p);
    p.H = H, p.d = TD, p.A = TA, p.K_max = 400, p.rho = 1.0;
    p.features = BB_FEATURES_TABULAR, p.release_start = 50;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_true(bb_params_counts(&p));
    struct bb_rng r1, r2, r3, data;
    bb_rng_init_seeded(&r1, 41);
    bb_rng_init_seeded(&r2, 42);
    bb_rng_init_seeded(&r3, 43);
    bb_rng_init_seeded(&data, 44);
    struct bb_engine *a, *c, *x;
    assert_int_equal(bb_engine_new(&p, &r1, &a), BB_OK);
    static struct tep eps[300];
    static struct test_records saved, no_counts;
    for (int k = 0; k < 300; k++) {
        if (bb_engine_update_due(a))
            assert_int_equal(bb_engine_update(a), BB_OK);
        tabular_episode(&data, &eps[k]);
        struct bb_episode v = {eps[k].feat, eps[k].act, eps[k].rew};
        assert_int_equal(bb_engine_add(a, &v, NULL, 0, NULL, 0), BB_OK);
        put_records(&saved, a);
    }
    assert_true(bb_engine_updates(a) > 0);
    /* off the layout: step 1's row of action 1 is another state's */
    struct tep bad = eps[0];
    int s1 = 0; /* step 1's state: where its row of action 0 has its one */
    for (int j = 0; j < TD; j++)
        if (bad.feat[(1 * TA) * TD + j] != 0)
            s1 = j / TA;
    double *row = bad.feat + (1 * TA + 1) * TD;
    memset(row, 0, sizeof(double) * TD);
    row[((s1 + 1) % TS) * TA + 1] = 1.0;
    struct bb_episode vb = {bad.feat, bad.act, bad.rew};
    char field[64] = "", why[256] = "";
    assert_int_equal(bb_engine_add(a, &vb, field, sizeof(field), why, sizeof(why)), BB_EINVAL);
    assert_string_equal(field, "/steps/1/features/1");
    assert_non_null(strstr(why, "declared tabular"));
    assert_int_equal(bb_engine_episodes(a), 300);
    /* the count stream's records: slots below -2^32, needed to recover */
    size_t counted = 0;
    for (size_t i = 0; i < saved.n; i++) {
        if (saved.rec[i].slot < -(1L << 32))
            counted++;
        else
            test_records_put(&no_counts, &saved.rec[i], 1);
    }
    assert_true(counted > 0);
    assert_int_equal(bb_engine_new(&p, &r3, &x), BB_OK);
    assert_int_equal(bb_engine_recover(x, teps_each, eps, no_counts.rec, no_counts.n),
                     BB_EINVAL);
    bb_engine_free(x);
    assert_int_equal(bb_engine_new(&p, &r2, &c), BB_OK);
    assert_int_equal(bb_engine_recover(c, teps_each, eps, saved.rec, saved.n), BB_OK);
    const struct bb_billboard *last = bb_engine_billboard(a);
    assert_int_equal(bb_engine_restore_billboard(c, last, bb_engine_updates(a)), BB_OK);
    /* an update now, on the same release: the same w and sds (no draw) */
    assert_int_equal(bb_engine_update(a), BB_OK);
    assert_int_equal(bb_engine_update(c), BB_OK);
    const struct bb_billboard *ba = bb_engine_billboard(a), *bc = bb_engine_billboard(c);
    assert_memory_equal(ba->w, bc->w, sizeof(double) * H * TD);
    assert_memory_equal(ba->sigma_y, bc->sigma_y, sizeof(double) * H);
    for (int h = 0; h < H - 1; h++) /* the counts' noise, with the stream's */
        assert_true(ba->sigma_y[h] > 0);
    test_records_free(&saved);
    test_records_free(&no_counts);
    bb_engine_free(a);
    bb_engine_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rare_switching_rule),
        cmocka_unit_test(test_cap_is_hard),
        cmocka_unit_test(test_non_private_same_code),
        cmocka_unit_test(test_private_rows_weighed),
        cmocka_unit_test(test_bad_input_changes_nothing),
        cmocka_unit_test(test_simplex_rows),
        cmocka_unit_test(test_onehot_rows),
        cmocka_unit_test(test_prior_cut),
        cmocka_unit_test(test_split_update_while_ingesting),
        cmocka_unit_test(test_recovery_by_replay),
        cmocka_unit_test(test_warm_billboards),
        cmocka_unit_test(test_stream_update),
        cmocka_unit_test(test_tabular_rows),
        cmocka_unit_test(test_version_zero),
        cmocka_unit_test(test_indefinite),
    };
    return cmocka_run_group_tests_name("engine", tests, NULL, NULL);
}
