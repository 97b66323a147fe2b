/*
 * test_lsvi.c — the BLAS-3 backward pass against a plain-loop reference
 * written here (explicit inverse, dot products), including the clips of V
 * at 0 and at H, across store blocks and LSVI chunks.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "linalg.h"
#include "engine/lsvi.h"
#include "engine/params.h"
#include "engine/rng.h"
#include "engine/store.h"

enum { H = 4, A = 4, D = 6 };
#define N 9000 /* > 2 store blocks (4096), several LSVI chunks each */

static void random_row(struct bb_rng *r, double *phi)
{
    double n2 = 0;
    for (int j = 0; j < D; j++) {
        phi[j] = 2 * bb_rng_uniform(r) - 1;
        n2 += phi[j] * phi[j];
    }
    double s = bb_rng_uniform(r) / sqrt(n2);
    for (int j = 0; j < D; j++)
        phi[j] *= s;
}

/* Gauss–Jordan inverse, the reference's own linear algebra. */
static void invert(const double *a, double *inv)
{
    double m[D][2 * D];
    for (int i = 0; i < D; i++)
        for (int j = 0; j < 2 * D; j++)
            m[i][j] = j < D ? a[i * D + j] : (j - D == i);
    for (int c = 0; c < D; c++) {
        int p = c;
        for (int i = c + 1; i < D; i++)
            if (fabs(m[i][c]) > fabs(m[p][c]))
                p = i;
        for (int j = 0; j < 2 * D; j++) {
            double t = m[c][j];
            m[c][j] = m[p][j];
            m[p][j] = t;
        }
        double piv = m[c][c];
        for (int j = 0; j < 2 * D; j++)
            m[c][j] /= piv;
        for (int i = 0; i < D; i++)
            if (i != c) {
                double f = m[i][c];
                for (int j = 0; j < 2 * D; j++)
                    m[i][j] -= f * m[c][j];
            }
    }
    for (int i = 0; i < D; i++)
        for (int j = 0; j < D; j++)
            inv[i * D + j] = m[i][j + D];
}

struct fixture {
    struct bb_params p;
    struct bb_store store;
    double gram[H * D * D], chol[H * D * D], inv[H * D * D];
    double *feat;   /* N*H*A*D */
    int *act;       /* N*H */
    double *rew;    /* N*H */
    double ridge;   /* the job's ridge, the prior's weight (0: no prior) */
    double prior[H];/* the prior target of each step, worked out by hand */
    int bound;      /* clip V_{h+1} also at B_{h+1} (features simplex) */
};

/* Whether build() and the reference weigh each row by 1/||phi||_2 (ball
 * rows under row-weight norm, worked out here without the engine's margin
 * of 2^-40); else every row weighs 1 (row-weight one). */
static int weighed;

static double ref_weight(const double *phi)
{
    double q = 0;
    for (int j = 0; j < D; j++)
        q += phi[j] * phi[j];
    return weighed && q > 0 ? fmax(1.0, 1.0 / sqrt(q)) : 1.0;
}

static void build(struct fixture *f, double beta, enum bb_calibration cal, uint64_t seed,
                  enum bb_value_clip vclip)
{
    bb_params_defaults(&f->p);
    f->p.row_weight = weighed ? BB_ROW_WEIGHT_NORM : BB_ROW_WEIGHT_ONE;
    f->ridge = 0;
    f->bound = 0;
    memset(f->prior, 0, sizeof(f->prior));
    f->p.H = H, f->p.d = D, f->p.A = A, f->p.K_max = N, f->p.beta = beta;
    f->p.rho = weighed ? 1.0 : INFINITY; /* weights only where there is privacy */
    f->p.calibration = cal;
    f->p.value_clip = vclip;
    assert_int_equal(bb_params_derive(&f->p, NULL, 0), BB_OK);
    if (cal == BB_CAL_PAPER)
        f->p.v_floor = -INFINITY; /* the paper's missing lower clip */
    struct bb_rng r;
    bb_rng_init_seeded(&r, seed);
    assert_int_equal(bb_store_init(&f->store, H, A, D, N), BB_OK);
    f->feat = malloc(sizeof(double) * N * H * A * D);
    f->act = malloc(sizeof(int) * N * H);
    f->rew = malloc(sizeof(double) * N * H);
    for (int h = 0; h < H; h++) {
        memset(f->gram + h * D * D, 0, sizeof(double) * D * D);
        for (int j = 0; j < D; j++)
            f->gram[h * D * D + j * D + j] = 1.0;
    }
    for (long i = 0; i < N; i++) {
        for (int h = 0; h < H; h++) {
            for (int a = 0; a < A; a++)
                random_row(&r, f->feat + ((i * H + h) * A + a) * D);
            f->act[i * H + h] = (int)bb_rng_below(&r, A);
            f->rew[i * H + h] = bb_rng_uniform(&r);
            const double *phi = f->feat + ((i * H + h) * A + f->act[i * H + h]) * D;
            const double wt = ref_weight(phi);
            for (int x = 0; x < D; x++)
                for (int y = 0; y < D; y++)
                    f->gram[h * D * D + x * D + y] += wt * phi[x] * phi[y];
        }
        struct bb_episode ep = {f->feat + i * H * A * D, f->act + i * H, f->rew + i * H};
        assert_int_equal(bb_store_append(&f->store, &ep), BB_OK);
    }
    for (int h = 0; h < H; h++) {
        assert_int_equal(bb_chol(f->gram + h * D * D, f->chol + h * D * D, D), BB_OK);
        invert(f->gram + h * D * D, f->inv + h * D * D);
    }
}

static void release(struct fixture *f)
{
    bb_store_release(&f->store);
    free(f->feat);
    free(f->act);
    free(f->rew);
}

/* B = (1 + slack) max(0, max_j u_j + beta sqrt(inv_jj)): the largest
 * Q over the corners of the simplex, worked out with the explicit inverse. */
static double corner_bound(const double *inv, const double *u, double beta)
{
    double b = 0;
    for (int j = 0; j < D; j++)
        b = fmax(b, u[j] + beta * sqrt(inv[j * D + j]));
    return (1 + BB_SIMPLEX_SLACK) * b;
}

/* The reference pass: plain loops over episodes and actions. Counts how
 * often V was clipped at H and at the floor. The next values come from
 * u_{h+1} = inv (y + ridge prior 1), which is w_{h+1} without a prior;
 * with f->bound they are clipped at corner_bound(u_{h+1}) too (counted in
 * bounded, if not NULL). */
/* The prior's weight per step for the pass and the reference, or NULL for
 * the fixture's one ridge at every step. */
static const double *ridge_step;

static void reference(const struct fixture *f, double *w, long *capped, long *negative,
                      long *floored, long *bounded)
{
    *capped = *negative = *floored = 0;
    if (bounded)
        *bounded = 0;
    double beta = f->p.beta;
    double u[H * D];
    for (int h = H - 1; h >= 0; h--) {
        double y[D] = {0};
        for (long i = 0; i < N; i++) {
            double target = f->rew[i * H + h];
            if (h < H - 1) {
                double best = -INFINITY;
                for (int a = 0; a < A; a++) {
                    const double *x = f->feat + ((i * H + h + 1) * A + a) * D;
                    const double *inv = f->inv + (h + 1) * D * D, *wn = u + (h + 1) * D;
                    double mean = 0, quad = 0;
                    for (int s = 0; s < D; s++) {
                        mean += x[s] * wn[s];
                        for (int t = 0; t < D; t++)
                            quad += x[s] * inv[s * D + t] * x[t];
                    }
                    /* V_{h+1} <= H, or <= the H - h - 1 steps left after h */
                    const double cap =
                        f->p.value_clip == BB_VCLIP_REMAINING ? (double)(H - h - 1) : (double)H;
                    double q = mean + beta * sqrt(quad);
                    if (q > cap) {
                        q = cap;
                    }
                    if (f->bound) {
                        double b = corner_bound(f->inv + (h + 1) * D * D, wn, beta);
                        if (q > b) {
                            q = b;
                            if (bounded)
                                (*bounded)++;
                        }
                    }
                    if (q > best)
                        best = q;
                }
                if (best >= (f->p.value_clip == BB_VCLIP_REMAINING ? H - h - 1 : H))
                    (*capped)++;
                if (best < 0)
                    (*negative)++;
                if (best < f->p.v_floor) {
                    best = f->p.v_floor;
                    (*floored)++;
                }
                target += best;
            }
            const double *phi = f->feat + ((i * H + h) * A + f->act[i * H + h]) * D;
            for (int s = 0; s < D; s++)
                y[s] += ref_weight(phi) * phi[s] * target;
        }
        for (int s = 0; s < D; s++) {
            w[h * D + s] = u[h * D + s] = 0;
            for (int t = 0; t < D; t++) {
                w[h * D + s] += f->inv[h * D * D + s * D + t] * y[t];
                u[h * D + s] += f->inv[h * D * D + s * D + t] *
                                (y[t] + (ridge_step ? ridge_step[h] : f->ridge) * f->prior[h]);
            }
        }
    }
}

/* w equals the reference's weights to 1e-9 of their largest. */
static void assert_weights(const double *w, const double *ref)
{
    double scale = 0;
    for (int e = 0; e < H * D; e++)
        scale = fmax(scale, fabs(ref[e]));
    for (int e = 0; e < H * D; e++)
        if (!(fabs(w[e] - ref[e]) <= 1e-9 * scale))
            fail_msg("w[%d] = %.17g, reference %.17g", e, w[e], ref[e]);
}

/* expect: 'H' the data must hit the cap, '0' negative Q must occur.
 * kappa > 0: a private run with --prior-value kappa, the regressions shrunk
 * towards kappa times each step's largest target (H - h, 0-based, with V
 * clipped to the steps left; H + 1 with the horizon clip), weighted by a
 * ridge of 300 (the fixture's 9000 episodes would drown a ridge of 1). */
static void compare(double beta, enum bb_calibration cal, char expect, uint64_t seed, int threads,
                    enum bb_value_clip vclip, double kappa)
{
    static struct fixture f;
    build(&f, beta, cal, seed, vclip);
    if (kappa > 0) {
        f.p.rho = 1.0;
        f.p.prior_value = kappa;
        assert_int_equal(bb_params_derive(&f.p, NULL, 0), BB_OK);
        f.ridge = 300.0; /* the prior's weight: large, so that it shows */
        for (int h = 0; h < H; h++)
            f.prior[h] = kappa * (vclip == BB_VCLIP_REMAINING ? H - h : H + 1);
    }
    struct bb_lsvi_ws ws;
    assert_int_equal(bb_lsvi_ws_init(&ws, A, D, threads), BB_OK);
    struct bb_sampler none[H];
    for (int h = 0; h < H; h++)
        assert_int_equal(bb_sampler_init(&none[h], 0, 0), BB_OK);
    double w[H * D], y[H * D], ref[H * D];
    struct bb_lsvi_job job = {
        .p = &f.p, .store = &f.store, .n = N, .chol = f.chol, .y_noise = none,
        .rng = NULL, .ridge = f.ridge, .ridge_step = kappa > 0 ? ridge_step : NULL,
        .w = w, .y_noisy = y,
    };
    assert_int_equal(bb_lsvi_run(&job, &ws), BB_OK);
    if (kappa > 0) { /* the stored y~ and the published w carry no prior */
        double w0[H * D], y0[H * D];
        struct bb_lsvi_job plain = job;
        plain.ridge = 0, plain.ridge_step = NULL, plain.w = w0, plain.y_noisy = y0;
        assert_int_equal(bb_lsvi_run(&plain, &ws), BB_OK);
        for (int e = (H - 1) * D; e < H * D; e++) /* the last step's targets are rewards */
            assert_true(y[e] == y0[e] && w[e] == w0[e]);
        double moved = 0;
        for (int e = 0; e < (H - 1) * D; e++)
            moved = fmax(moved, fabs(w[e] - w0[e]));
        /* the prior changed the earlier steps' targets (not where the bonus
         * caps every next value anyway) */
        if (expect != 'H')
            assert_true(moved > 1e-4);
        /* The prior's cut (bb_params_prior_cut): all of it, the final
         * update's, is the plain pass; half of it is the pass whose prior
         * is half as large; none is the pass above. */
        double wf[H * D], yf[H * D];
        struct bb_lsvi_job cut = job;
        cut.prior_cut = 1, cut.w = wf, cut.y_noisy = yf;
        assert_int_equal(bb_lsvi_run(&cut, &ws), BB_OK);
        for (int e = 0; e < H * D; e++)
            assert_true(wf[e] == w0[e] && yf[e] == y0[e]);
        cut.prior_cut = 0;
        assert_int_equal(bb_lsvi_run(&cut, &ws), BB_OK);
        for (int e = 0; e < H * D; e++)
            assert_true(wf[e] == w[e] && yf[e] == y[e]);
        double wh[H * D], yh[H * D], cut_moved = 0;
        struct bb_lsvi_job half = job;
        half.w = wh, half.y_noisy = yh;
        f.p.prior_value = kappa / 2;
        assert_int_equal(bb_lsvi_run(&half, &ws), BB_OK);
        f.p.prior_value = kappa;
        cut.prior_cut = 0.5;
        assert_int_equal(bb_lsvi_run(&cut, &ws), BB_OK);
        for (int e = 0; e < H * D; e++) {
            assert_true(wf[e] == wh[e] && yf[e] == yh[e]);
            cut_moved = fmax(cut_moved, fabs(wf[e] - w[e]));
        }
        if (expect != 'H') /* and it is not the whole prior's */
            assert_true(cut_moved > 1e-6);
        for (int h = 0; h < H; h++) /* w solves Lambda w = y~ */
            for (int i = 0; i < D; i++) {
                double lw = 0;
                for (int j = 0; j < D; j++)
                    lw += f.gram[h * D * D + i * D + j] * w[h * D + j];
                assert_rel(lw, y[h * D + i], 1e-9);
            }
    }
    long capped, negative, floored;
    reference(&f, ref, &capped, &negative, &floored, NULL);
    assert_weights(w, ref);
    /* The data exercised the clip under test (else the test proves nothing). */
    if (expect == 'H')
        assert_true(capped > 0);
    if (expect == '0') {
        assert_true(negative > 0);
        /* Corrected: every negative value was lifted to 0; paper: none was. */
        assert_int_equal(floored, cal == BB_CAL_CORRECTED ? negative : 0);
    }
    bb_lsvi_ws_release(&ws);
    release(&f);
}

static void test_matches_reference_with_clips(void **state)
{
    (void)state;
    const enum bb_value_clip hz = BB_VCLIP_HORIZON, rem = BB_VCLIP_REMAINING;
    compare(0.05, BB_CAL_CORRECTED, '0', 11, 1, hz, 0); /* small bonus: negative Q, clipped at 0 */
    compare(400.0, BB_CAL_CORRECTED, 'H', 12, 3, hz, 0); /* large bonus: Q capped at H */
    compare(0.05, BB_CAL_CORRECTED, '0', 11, 2, hz, 0); /* threads split blocks, same answer */
    /* V clipped to the steps left: capped at H - h - 1, floored at 0. */
    compare(400.0, BB_CAL_CORRECTED, 'H', 12, 3, rem, 0);
    compare(0.05, BB_CAL_CORRECTED, '0', 11, 2, rem, 0);
}

/* Row weights (row-weight norm, docs/PRIVACY.md §1.7): in a private run
 * (the pass given no noise to draw) the fixture's ball rows, of norms
 * spread over (0, 1], weigh 1/||phi||_2 in the Gram matrices and in y; the
 * pass equals the weighted reference, with both clips and with the prior. */
static void test_weighted_rows_match_reference(void **state)
{
    (void)state;
    weighed = 1;
    compare(0.05, BB_CAL_CORRECTED, '0', 11, 2, BB_VCLIP_REMAINING, 0);
    compare(400.0, BB_CAL_CORRECTED, 'H', 12, 3, BB_VCLIP_REMAINING, 0);
    compare(0.05, BB_CAL_CORRECTED, '0', 13, 2, BB_VCLIP_REMAINING, 0.35);
}

static int unweighed(void **state)
{
    (void)state;
    weighed = 0;
    return 0;
}

static void test_prior_matches_reference(void **state)
{
    (void)state;
    /* The next values from u_h = Lambda_h^-1 (y~_h + ridge m_h 1),
     * m_h = kappa (H - h) or kappa (H + 1), through both clips; the
     * published w_h = Lambda_h^-1 y~_h. */
    compare(0.05, BB_CAL_CORRECTED, '0', 16, 2, BB_VCLIP_REMAINING, 0.3);
    compare(400.0, BB_CAL_CORRECTED, 'H', 17, 3, BB_VCLIP_REMAINING, 0.2);
    compare(0.05, BB_CAL_CORRECTED, '0', 18, 1, BB_VCLIP_HORIZON, 0.5);
    /* Each step its own weight, as where the engine doubled a step's ridge
     * on an indefinite Lambda~ (enum bb_indefinite). */
    static const double doubled[H] = {300.0, 1200.0, 75.0, 600.0};
    ridge_step = doubled;
    compare(0.05, BB_CAL_CORRECTED, '0', 16, 2, BB_VCLIP_REMAINING, 0.3);
    compare(0.05, BB_CAL_CORRECTED, '0', 18, 1, BB_VCLIP_HORIZON, 0.5);
    ridge_step = NULL;
}

static void test_paper_has_no_lower_clip(void **state)
{
    (void)state;
    compare(0.05, BB_CAL_PAPER, '0', 13, 2, BB_VCLIP_HORIZON, 0);
}

static void test_noise_lands_on_grid(void **state)
{
    (void)state;
    static struct fixture f;
    build(&f, 1.0, BB_CAL_CORRECTED, 14, BB_VCLIP_HORIZON);
    struct bb_lsvi_ws ws;
    assert_int_equal(bb_lsvi_ws_init(&ws, A, D, 0), BB_OK);
    /* Every step draws from its own sampler (bb_params_sigma_y_drawn_step):
     * sigma 50, 5000, 0.5, 500 with their own grids. */
    const double sigma[H] = {50.0, 5000.0, 0.5, 500.0};
    struct bb_sampler s[H], none[H];
    for (int h = 0; h < H; h++) {
        assert_int_equal(bb_sampler_init(&s[h], sigma[h], bb_grid_for(sigma[h])), BB_OK);
        assert_int_equal(bb_sampler_init(&none[h], 0, 0), BB_OK);
    }
    struct bb_rng r;
    bb_rng_init_seeded(&r, 15);
    double w[H * D], y[H * D], w0[H * D], y0[H * D];
    struct bb_lsvi_job job = {
        .p = &f.p, .store = &f.store, .n = N, .chol = f.chol, .y_noise = s,
        .rng = &r, .w = w, .y_noisy = y,
    };
    assert_int_equal(bb_lsvi_run(&job, &ws), BB_OK);
    for (int e = 0; e < H * D; e++)
        assert_true(bb_on_grid(y[e], bb_grid_for(sigma[e / D])));
    /* The last step's noise is its own: without noise its y is the exact
     * target, and the noised one is off by about sigma (the earlier steps'
     * targets also move with the noised w of the steps after them). */
    struct bb_lsvi_job exact = job;
    exact.y_noise = none, exact.rng = NULL, exact.w = w0, exact.y_noisy = y0;
    assert_int_equal(bb_lsvi_run(&exact, &ws), BB_OK);
    double big = 0;
    for (int i = 0; i < D; i++) {
        double z = fabs(y[(H - 1) * D + i] - y0[(H - 1) * D + i]) / sigma[H - 1];
        assert_true(z < 6);
        big = fmax(big, z);
    }
    assert_true(big > 0.01); /* all six below sigma/100: probability ~1e-13 */
    /* w solves Lambda w = y~. */
    for (int h = 0; h < H; h++)
        for (int i = 0; i < D; i++) {
            double lw = 0;
            for (int j = 0; j < D; j++)
                lw += f.gram[h * D * D + i * D + j] * w[h * D + j];
            assert_rel(lw, y[h * D + i], 1e-9);
        }
    bb_lsvi_ws_release(&ws);
    release(&f);
}

/* Features declared simplex in a private run: V_{h+1} clipped also at the
 * corner bound of step h+1's regression, and step h's noise drawn at
 * bb_params_sigma_y_drawn_at(min(cap, B_{h+1})). The fixture's rows fill
 * the unit ball, negative entries too, so the clip binds (rows in the
 * simplex never reach it; the engine refuses the others). */
static void test_next_bound_matches_reference(void **state)
{
    (void)state;
    static struct fixture f;
    build(&f, 0.05, BB_CAL_CORRECTED, 19, BB_VCLIP_REMAINING);
    f.p.rho = 1.0;
    f.p.features = BB_FEATURES_SIMPLEX;
    assert_int_equal(bb_params_derive(&f.p, NULL, 0), BB_OK);
    assert_true(bb_params_next_bound(&f.p));
    f.bound = 1;
    struct bb_lsvi_ws ws;
    assert_int_equal(bb_lsvi_ws_init(&ws, A, D, 2), BB_OK);
    /* The bound from the workspace's kernel equals the explicit one. */
    for (int h = 0; h < H; h++) {
        double u[D];
        for (int j = 0; j < D; j++)
            u[j] = (j % 3) - 1.2 + 0.1 * h;
        assert_rel(bb_lsvi_next_bound(D, f.chol + h * D * D, u, 0.7, ws.eye, ws.sq, ws.qd),
                   corner_bound(f.inv + h * D * D, u, 0.7), 1e-12);
    }
    /* Without noise: the weights are the reference's. */
    struct bb_sampler none[H], s[H];
    for (int h = 0; h < H; h++) {
        assert_int_equal(bb_sampler_init(&none[h], 0, 0), BB_OK);
        assert_int_equal(bb_sampler_init(&s[h], bb_params_sigma_y_drawn_step(&f.p, h),
                                         bb_params_grid_y_step(&f.p, h)),
                         BB_OK);
    }
    /* The targets are centred (docs/PRIVACY.md §2.2, the default with
     * simplex rows): the engine reads the released Gram matrix, whose
     * ridge here is the fixture's identity, and refuses to run without. */
    double w[H * D], y[H * D], ref[H * D], sig[H], ones[H];
    for (int h = 0; h < H; h++)
        ones[h] = 1.0;
    assert_rel(bb_params_y_centre(&f.p), BB_Y_CENTRE, 0);
    struct bb_lsvi_job job = {
        .p = &f.p, .store = &f.store, .n = N, .chol = f.chol, .y_noise = none,
        .rng = NULL, .w = w, .y_noisy = y, .sigma_y = sig,
    };
    assert_int_equal(bb_lsvi_run(&job, &ws), BB_EINVAL);
    job.gram = f.gram, job.ridge_step = ones;
    assert_int_equal(bb_lsvi_run(&job, &ws), BB_OK);
    long capped, negative, floored, bounded;
    reference(&f, ref, &capped, &negative, &floored, &bounded);
    assert_true(bounded > 0); /* the clip under test was exercised */
    assert_weights(w, ref); /* without noise the centre adds back exactly */
    for (int h = 0; h < H; h++)
        assert_rel(sig[h], 0, 0); /* no noise drawn */
    /* What is released (and stored) is the centred sum: on the last step
     * (cap 0, rewards only, c = kappa) it is the plain sum minus c
     * (Lambda - I) 1; the add-back reads the released Gram matrix, so an
     * error E in it moves w by Lambda~^-1 c E 1 and the release not at all. */
    double y2[H * D], w2[H * D], y3[H * D], w3[H * D];
    double *last = f.gram + (H - 1) * D * D, keep[D * D];
    memcpy(keep, last, sizeof(keep));
    for (int e = 0; e < D * D; e++)
        last[e] += 0.25;
    struct bb_lsvi_job shifted = job;
    shifted.y_noisy = y2, shifted.w = w2;
    assert_int_equal(bb_lsvi_run(&shifted, &ws), BB_OK);
    for (int j = 0; j < D; j++) {
        double lw = 0;
        for (int k = 0; k < D; k++)
            lw += keep[j * D + k] * (w2[(H - 1) * D + k] - w[(H - 1) * D + k]);
        assert_rel(lw, BB_Y_CENTRE * 0.25 * D, 1e-9);
        assert_rel(y2[(H - 1) * D + j], y[(H - 1) * D + j], 0);
    }
    f.p.y_sensitivity = BB_YSENS_NONNEGATIVE; /* no centre: the plain sum */
    assert_int_equal(bb_params_derive(&f.p, NULL, 0), BB_OK);
    shifted.y_noisy = y3, shifted.w = w3;
    assert_int_equal(bb_lsvi_run(&shifted, &ws), BB_OK);
    for (int j = 0; j < D; j++) {
        double row = -1.0; /* (Lambda - I) 1: the fixture's identity off */
        for (int k = 0; k < D; k++)
            row += keep[j * D + k];
        assert_rel(y[(H - 1) * D + j], y3[(H - 1) * D + j] - BB_Y_CENTRE * row, 1e-9);
        assert_rel(w3[(H - 1) * D + j], w[(H - 1) * D + j], 1e-9);
    }
    memcpy(last, keep, sizeof(keep));
    f.p.y_sensitivity = BB_YSENS_CENTRED;
    assert_int_equal(bb_params_derive(&f.p, NULL, 0), BB_OK);
    /* With noise: step h's sd and grid follow B_{h+1} of the noised w_{h+1}. */
    struct bb_rng r;
    bb_rng_init_seeded(&r, 20);
    job.y_noise = s, job.rng = &r;
    assert_int_equal(bb_lsvi_run(&job, &ws), BB_OK);
    assert_rel(sig[H - 1], bb_params_sigma_y_drawn_step(&f.p, H - 1), 0);
    int shrunk = 0;
    for (int h = 0; h < H - 1; h++) {
        double cap = fmin(bb_params_value_cap(&f.p, h),
                          corner_bound(f.inv + (h + 1) * D * D, w + (h + 1) * D, f.p.beta));
        assert_rel(sig[h], bb_params_sigma_y_drawn_at(&f.p, h, cap), 1e-9);
        for (int j = 0; j < D; j++)
            assert_true(bb_on_grid(y[h * D + j], bb_params_grid_y_at(&f.p, h, cap)));
        shrunk += sig[h] < bb_params_sigma_y_drawn_step(&f.p, h);
    }
    assert_true(shrunk > 0);
    /* Ball features: the same run draws every step at its fixed sd (the
     * triangle bound's, docs/PRIVACY.md §2.1: the engine's samplers for it). */
    f.p.features = BB_FEATURES_BALL;
    assert_int_equal(bb_params_derive(&f.p, NULL, 0), BB_OK);
    for (int h = 0; h < H; h++)
        assert_int_equal(bb_sampler_init(&s[h], bb_params_sigma_y_drawn_step(&f.p, h),
                                         bb_params_grid_y_step(&f.p, h)),
                         BB_OK);
    assert_int_equal(bb_lsvi_run(&job, &ws), BB_OK);
    for (int h = 0; h < H; h++)
        assert_rel(sig[h], bb_params_sigma_y_drawn_step(&f.p, h), 0);
    bb_lsvi_ws_release(&ws);
    release(&f);
}

/* Appends episode i of f (its arrays) to st; with row non-NULL, step H's
 * chosen row becomes row, and with reward >= 0 its reward becomes reward. */
static void append_episode(const struct fixture *f, struct bb_store *st, long i,
                           const double *row, double reward)
{
    double feat[H * A * D], rew[H];
    int act[H];
    memcpy(feat, f->feat + i * H * A * D, sizeof(feat));
    memcpy(act, f->act + i * H, sizeof(act));
    memcpy(rew, f->rew + i * H, sizeof(rew));
    if (row)
        memcpy(feat + ((H - 1) * A + act[H - 1]) * D, row, sizeof(double) * D);
    if (reward >= 0)
        rew[H - 1] = reward;
    struct bb_episode ep = {feat, act, rew};
    assert_int_equal(bb_store_append(st, &ep), BB_OK);
}

/* One noised pass over st with the rng seeded 22: y~ into y (H*D). */
static void noised_pass(struct fixture *f, const struct bb_store *st, const struct bb_sampler *s,
                        struct bb_lsvi_ws *ws, double *y)
{
    double w[H * D];
    struct bb_rng r;
    bb_rng_init_seeded(&r, 22);
    struct bb_lsvi_job job = {
        .p = &f->p, .store = st, .n = N, .chol = f->chol, .y_noise = s,
        .rng = &r, .w = w, .y_noisy = y,
    };
    assert_int_equal(bb_lsvi_run(&job, ws), BB_OK);
    bb_rng_release(&r);
}

/* Exact y sums (docs/PRIVACY.md §5), checked through the last step, whose
 * targets are the rewards (no next values) and whose noise is drawn first,
 * so that two passes with the same seed draw the same noise there:
 * - the release is the noise plus sum_i snap(phi_i r_i), every term on the
 *   grid before it is added (not the snapped float sum: against the same
 *   episodes with reward 0 the difference is exactly that sum);
 * - the order of the episodes does not change a bit of any step;
 * - replacing one episode moves it by the replacement's change within
 *   2 g sqrt d: here the triangle bound's worst case, a row e_1 with
 *   reward 1 against -e_1 with reward 1, a change of exactly 2. */
static void test_exact_sum(void **state)
{
    (void)state;
    static struct fixture f;
    build(&f, 1.0, BB_CAL_CORRECTED, 21, BB_VCLIP_REMAINING);
    f.p.rho = 10;
    assert_int_equal(bb_params_derive(&f.p, NULL, 0), BB_OK);
    assert_true(bb_params_y_exact(&f.p));
    struct bb_sampler s[H];
    for (int h = 0; h < H; h++)
        assert_int_equal(bb_sampler_init(&s[h], bb_params_sigma_y_drawn_step(&f.p, h),
                                         bb_params_grid_y_step(&f.p, h)),
                         BB_OK);
    const double g = bb_params_grid_y_step(&f.p, H - 1);
    struct bb_lsvi_ws ws;
    assert_int_equal(bb_lsvi_ws_init(&ws, A, D, 0), BB_OK);
    enum { AS_BUILT, REVERSED, NO_REWARD, WITH_E1, WITH_M1, NSTORES };
    struct bb_store st[NSTORES];
    double y[NSTORES][H * D], e1[D] = {1.0}, m1[D] = {-1.0};
    for (int k = 0; k < NSTORES; k++)
        assert_int_equal(bb_store_init(&st[k], H, A, D, N), BB_OK);
    for (long i = 0; i < N; i++) {
        append_episode(&f, &st[AS_BUILT], i, NULL, -1);
        append_episode(&f, &st[REVERSED], N - 1 - i, NULL, -1);
        append_episode(&f, &st[NO_REWARD], i, NULL, 0.0);
        append_episode(&f, &st[WITH_E1], i, i == 0 ? e1 : NULL, i == 0 ? 1.0 : -1);
        append_episode(&f, &st[WITH_M1], i, i == 0 ? m1 : NULL, i == 0 ? 1.0 : -1);
    }
    for (int k = 0; k < NSTORES; k++)
        noised_pass(&f, &st[k], s, &ws, y[k]);
    for (int j = 0; j < D; j++) {
        double want = 0;
        for (long i = 0; i < N; i++) {
            const double *phi = f.feat + ((i * H + H - 1) * A + f.act[i * H + H - 1]) * D;
            want += bb_grid_snap(phi[j] * f.rew[i * H + H - 1], g);
        }
        assert_true(y[AS_BUILT][(H - 1) * D + j] - y[NO_REWARD][(H - 1) * D + j] == want);
    }
    assert_memory_equal(y[AS_BUILT], y[REVERSED], sizeof(y[0]));
    for (int e = 0; e < H * D; e++)
        assert_true(bb_on_grid(y[AS_BUILT][e], bb_params_grid_y_step(&f.p, e / D)));
    double d2 = 0;
    for (int j = 0; j < D; j++) {
        double c = y[WITH_E1][(H - 1) * D + j] - y[WITH_M1][(H - 1) * D + j];
        d2 += c * c;
    }
    const double delta = bb_params_y_sensitivity(&f.p, H - 1), slack = 2 * g * sqrt((double)D);
    assert_rel(delta, 2.0, 0);
    assert_true(sqrt(d2) <= delta + slack && sqrt(d2) >= delta - slack);
    for (int k = 0; k < NSTORES; k++)
        bb_store_release(&st[k]);
    bb_lsvi_ws_release(&ws);
    release(&f);
}

/* The next values' noise discount (docs/PRIVACY.md §3.5): with step h+1's
 * y noise drawn at sigma_{h+1}, step h's targets take
 *   max_a (min(Q_{h+1}(x, a), cap) - nu sigma_{h+1} ||Lambda~_{h+1}^-1 phi(x, a)||),
 * floored at 0. The reference recomputes every step's y from the pass's own
 * published w_{h+1} (its noise included), with the explicit inverse, and
 * replays the noise from the same seed: y~_h = snap(y_h) + the draw. */
static double discount_reference_y(const struct fixture *f, const double *w, int h, double nu,
                                   const double *sigma, double *y, long *moved)
{
    const double cap = (double)(H - h - 1);
    double scale = 0;
    memset(y, 0, sizeof(double) * D);
    for (long i = 0; i < N; i++) {
        double target = f->rew[i * H + h];
        if (h < H - 1) {
            const double *inv = f->inv + (h + 1) * D * D, *wn = w + (h + 1) * D;
            double best = -INFINITY, plain = -INFINITY;
            int a_best = 0, a_plain = 0;
            for (int a = 0; a < A; a++) {
                const double *x = f->feat + ((i * H + h + 1) * A + a) * D;
                double mean = 0, quad = 0, n2 = 0;
                for (int s = 0; s < D; s++) {
                    double ix = 0; /* (Lambda^-1 x)_s */
                    for (int t = 0; t < D; t++)
                        ix += inv[s * D + t] * x[t];
                    mean += x[s] * wn[s];
                    quad += x[s] * ix;
                    n2 += ix * ix;
                }
                double q = fmin(mean + f->p.beta * sqrt(quad), cap);
                if (q > plain)
                    plain = q, a_plain = a;
                q -= nu * sigma[h + 1] * sqrt(n2);
                if (q > best)
                    best = q, a_best = a;
            }
            if (a_best != a_plain)
                (*moved)++;
            target += fmax(best, 0.0);
        }
        const double *phi = f->feat + ((i * H + h) * A + f->act[i * H + h]) * D;
        for (int s = 0; s < D; s++)
            y[s] += phi[s] * target;
    }
    for (int s = 0; s < D; s++)
        scale = fmax(scale, fabs(y[s]));
    return scale;
}

static void test_discount_matches_reference(void **state)
{
    (void)state;
    static struct fixture f;
    build(&f, 0.05, BB_CAL_CORRECTED, 21, BB_VCLIP_REMAINING);
    f.p.rho = 1.0;
    f.p.arithmetic = BB_ARITH_FLOAT; /* y~ = snap(y) + noise: no per-term grid */
    assert_int_equal(bb_params_derive(&f.p, NULL, 0), BB_OK);
    const double nu = f.p.next_discount;
    assert_rel(nu, 2.0, 0); /* the default */
    /* Large enough that the discount (nu sigma ||Lambda^-1 x||, ~1e-3 sigma
     * here) reorders actions; every step its own sd. */
    const double sigma[H] = {200.0, 400.0, 300.0, 500.0};
    struct bb_sampler s[H];
    for (int h = 0; h < H; h++)
        assert_int_equal(bb_sampler_init(&s[h], sigma[h], bb_grid_for(sigma[h])), BB_OK);
    struct bb_lsvi_ws ws;
    assert_int_equal(bb_lsvi_ws_init(&ws, A, D, 2), BB_OK);
    struct bb_rng r, replay;
    bb_rng_init_seeded(&r, 22);
    bb_rng_init_seeded(&replay, 22);
    double w[H * D], y[H * D];
    struct bb_lsvi_job job = {
        .p = &f.p, .store = &f.store, .n = N, .chol = f.chol, .y_noise = s,
        .rng = &r, .w = w, .y_noisy = y,
    };
    assert_int_equal(bb_lsvi_run(&job, &ws), BB_OK);
    long moved = 0;
    double off0 = 0; /* the largest miss of the undiscounted reference, in grids */
    for (int h = H - 1; h >= 0; h--) {
        double ref[D], ref0[D];
        const double scale = discount_reference_y(&f, w, h, nu, sigma, ref, &moved);
        long ignored = 0;
        discount_reference_y(&f, w, h, 0.0, sigma, ref0, &ignored);
        const double g = bb_grid_for(sigma[h]), tol = g + 1e-9 * scale;
        for (int j = 0; j < D; j++) {
            const double noise = bb_sampler_draw(&s[h], &replay);
            if (!(fabs(y[h * D + j] - (ref[j] + noise)) <= tol))
                fail_msg("step %d y~[%d] = %.17g, reference %.17g + noise %.17g", h, j,
                         y[h * D + j], ref[j], noise);
            off0 = fmax(off0, fabs(y[h * D + j] - (ref0[j] + noise)) / tol);
        }
    }
    /* The discount reordered actions and moved the targets far beyond the
     * tolerance (else the test could not tell it from nu = 0). */
    assert_true(moved > 0);
    assert_true(off0 > 1000);
    bb_lsvi_ws_release(&ws);
    release(&f);
}


/* The next values from transition counts (lsvi.h): with tabular rows
 * (state s's row of action a is e_{sA+a}) and no noise, the targets
 * computed from the exact counts N_h and the states' own values, N_h (v -
 * m 1) + m (Lambda_h - ridge I) 1, are the episodes' sum whatever the
 * centre m: the weights of the two passes agree to rounding. Without
 * privacy m is the values' mean; with it (the counts' sd given as 1, the
 * Gram's from the configuration, so m is shrunk towards 0; the discount
 * off, as the episodes' pass has no noise to discount; the prior and the
 * centred rewards in both) the other m. TA actions, TS states, d = TA TS. */
enum { TA = 2, TS = 3, TD = TA * TS, TN = 700 };
static void counts_pass(int private_run)
{
    struct bb_params p;
    bb_params_defaults(&p);
    p.H = H, p.d = TD, p.A = TA, p.K_max = TN, p.rho = private_run ? 1.0 : INFINITY;
    p.features = BB_FEATURES_TABULAR;
    p.release_start = 50, p.next_discount = 0;
    assert_int_equal(bb_params_derive(&p, NULL, 0), BB_OK);
    assert_int_equal(bb_params_counts(&p), private_run);
    assert_true(private_run ? bb_params_counts_gram_sd(&p, 1.0) > 0
                            : bb_params_counts_gram_sd(&p, 1.0) == 0);
    struct bb_store st;
    assert_int_equal(bb_store_init(&st, H, TA, TD, TN), BB_OK);
    static double gram[H * TD * TD], chol[H * TD * TD], counts[(H - 1) * TD * TS];
    memset(gram, 0, sizeof(gram));
    memset(counts, 0, sizeof(counts));
    double sd[H - 1], w0[H * TD], w1[H * TD], sy[H];
    for (int h = 0; h < H - 1; h++)
        sd[h] = private_run ? 1.0 : 0.0;
    for (int h = 0; h < H; h++)
        for (int j = 0; j < TD; j++)
            gram[(h * TD + j) * TD + j] = p.ridge;
    struct bb_rng r;
    bb_rng_init_seeded(&r, 7);
    for (long i = 0; i < TN; i++) {
        double feat[H * TA * TD] = {0}, rew[H];
        int act[H], s[H];
        for (int h = 0; h < H; h++) {
            /* a skewed walk: state 0 more often, so the values differ */
            s[h] = (int)(bb_rng_uniform(&r) * bb_rng_uniform(&r) * TS);
            act[h] = (int)(bb_rng_uniform(&r) * TA);
            rew[h] = s[h] == TS - 1 && act[h] == 1 ? 1.0 : 0.2 * bb_rng_uniform(&r);
            for (int a = 0; a < TA; a++)
                feat[(h * TA + a) * TD + s[h] * TA + a] = 1.0;
            const int c = s[h] * TA + act[h];
            gram[(h * TD + c) * TD + c] += 1.0;
            if (h > 0)
                counts[((h - 1) * TD + (s[h - 1] * TA + act[h - 1])) * TS + s[h]] += 1.0;
        }
        struct bb_episode ep = {feat, act, rew};
        assert_int_equal(bb_store_append(&st, &ep), BB_OK);
    }
    bb_rng_release(&r);
    for (int h = 0; h < H; h++)
        assert_int_equal(bb_chol(gram + h * TD * TD, chol + h * TD * TD, TD), BB_OK);
    struct bb_sampler none[H];
    for (int h = 0; h < H; h++)
        assert_int_equal(bb_sampler_init(&none[h], 0, 0), BB_OK);
    struct bb_lsvi_ws ws;
    assert_int_equal(bb_lsvi_ws_init(&ws, TA, TD, 2), BB_OK);
    /* ridge: the Gram's diagonal, whose prior is none without privacy */
    struct bb_lsvi_job job = {.p = &p, .store = &st, .n = TN, .chol = chol, .gram = gram,
                              .y_noise = none, .ridge = p.ridge, .w = w0};
    assert_int_equal(bb_lsvi_run(&job, &ws), BB_OK);
    job.w = w1, job.counts = counts, job.counts_sd = sd, job.sigma_y = sy;
    assert_int_equal(bb_lsvi_run(&job, &ws), BB_OK);
    for (int h = 0; h < H - 1; h++) /* the noise the counts' sd makes, with the Gram's */
        assert_true(private_run ? sy[h] > 0 : sy[h] == 0);
    double spread = 0;
    for (int k = 0; k < H * TD; k++) {
        assert_true(fabs(w1[k] - w0[k]) <= 1e-12 * (1.0 + fabs(w0[k])));
        spread += fabs(w0[k] - w0[0]);
    }
    assert_true(spread > 0.1); /* values that differ: not a trivial agreement */
    /* and a wrong count moves them */
    counts[TS + 1] += 5;
    assert_int_equal(bb_lsvi_run(&job, &ws), BB_OK);
    double moved = 0;
    for (int k = 0; k < H * TD; k++)
        moved += fabs(w1[k] - w0[k]);
    assert_true(moved > 1e-6);
    bb_lsvi_ws_release(&ws);
    bb_store_release(&st);
}

static void test_counts_match_episodes(void **state)
{
    (void)state;
    counts_pass(0);
    counts_pass(1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_reference_with_clips),
        cmocka_unit_test(test_paper_has_no_lower_clip),
        cmocka_unit_test(test_prior_matches_reference),
        cmocka_unit_test_teardown(test_weighted_rows_match_reference, unweighed),
        cmocka_unit_test(test_noise_lands_on_grid),
        cmocka_unit_test(test_next_bound_matches_reference),
        cmocka_unit_test(test_exact_sum),
        cmocka_unit_test(test_discount_matches_reference),
        cmocka_unit_test(test_counts_match_episodes),
    };
    return cmocka_run_group_tests_name("lsvi", tests, NULL, NULL);
}
