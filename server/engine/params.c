/*
 * params.c — the configuration's defaults and its derivation (params.h;
 * DESIGN.md §3).
 *
 * Neighbouring datasets differ in one episode (replace-one). All mechanisms
 * are analysed in zCDP and composed additively: rho = rho_gram + rho_y.
 * docs/PRIVACY.md derives each formula; the unit test checks them on known
 * values. The mechanism's own terms come from its ops (mech_impl.h), the y
 * noise's from ynoise.c.
 */
#include "params.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mech_impl.h"
#include "mutation.h"
#include "noise.h"

/* The defaults of the tuned levers (post-processing or a split of the same
 * rho; docs/PRIVACY.md). Chosen on the tuning families: docs/RESULTS.md,
 * "Tuning record". */
#define GRAM_SHARE_DEFAULT      0.2   /* f: rho_gram = f rho */
#define Y_EXPONENT_DEFAULT      1.0   /* sigma_h ~ Delta_h^p */
#define PRIOR_VALUE_ONEHOT      0.35  /* kappa of bb_params_prior_target, onehot rows */
#define PLAUSIBLE_DEFAULT       1.0   /* z of the plausible set (§3.4) */
#define PLAUSIBLE_FLOOR_DEFAULT 0.025 /* its floor f */
#define SHIFT_SCALE_DEFAULT     0.25  /* lambda~ / the tight bound (§1.4) */
#define SHIFT_SCALE_ONEHOT      0.4   /* lambda~ / the diagonal bound of onehot rows (§1.6) */
#define RELEASE_BASE_DEFAULT    1.25  /* g of the release grid k0 g^i (§1.2) */
#define RELEASE_BASE_TABULAR    1.1   /* g with tabular rows, whose updates cost no rho (§2.6) */
#define NEXT_DISCOUNT_DEFAULT   2.0   /* nu of the next values' noise discount (§3.5) */
#define FIRST_SHARE_DEFAULT     2.0   /* a: the first update's share of rho_y (§2.3) */
#define WARM_SHARE_DEFAULT      0.15  /* phi: the warm-up's share of rho (§2.5) */
/* The prior's weight under final-prior taper is the share of the run left
 * to this power (bb_params_prior_cut). Part of what a stored `taper` means:
 * never change it for databases that stored it; a new rule is a new value. */
#define PRIOR_TAPER_EXPONENT    0.5

void bb_params_defaults(struct bb_params *p)
{
    memset(p, 0, sizeof(*p));
    p->delta = 1e-5;
    p->conversion = BB_CONV_CKS;
    p->gram_share = GRAM_SHARE_DEFAULT;
    p->failure_prob = 0.05;
    p->update_ratio = 2.0;
    p->calibration = BB_CAL_CORRECTED;
    p->update_rule = BB_UPDATE_RARE;
    p->beta = 1.0;
    p->mechanism = BB_MECH_AUTO;
    p->release_base = 0;  /* auto: by the feature set, check_levers */
    p->release_start = 0; /* auto: bb_params_derive */
    p->prior_policy = BB_PRIOR_UNIFORM;
    p->shift_bound = BB_BOUND_TIGHT;
    p->shift_scale = 0; /* auto: by the feature set, bb_params_derive */
    p->indefinite = BB_INDEF_DOUBLE;
    p->value_clip = BB_VCLIP_REMAINING;
    p->y_exponent = Y_EXPONENT_DEFAULT;
    p->prior_value = BB_PRIOR_VALUE_AUTO; /* by the feature set: check_levers */
    p->features = BB_FEATURES_BALL;
    p->y_sensitivity = BB_YSENS_CENTRED;
    p->arithmetic = BB_ARITH_EXACT;
    p->plausible_z = PLAUSIBLE_DEFAULT;
    p->plausible_floor = PLAUSIBLE_FLOOR_DEFAULT;
    p->next_discount = NEXT_DISCOUNT_DEFAULT;
    p->first_share = FIRST_SHARE_DEFAULT;
    p->rewards = BB_REWARDS_STREAM;
    p->explore = BB_EXPLORE_SAMPLE;
    p->warm_share = WARM_SHARE_DEFAULT;
    p->final_prior = BB_FINAL_PRIOR_TAPER;
    p->row_weight = BB_ROW_WEIGHT_NORM;
}

/* Onehot rows start earlier: their Gram noise is diagonal, so a weight's
 * error is its own coordinate's y noise over its own count and a smaller
 * ridge (docs/PRIVACY.md §1.6), with no other coordinate's noise mixed in. */
double bb_params_start_snr(const struct bb_params *p)
{
    return bb_params_diagonal_gram(p) ? BB_RELEASE_START_SNR_ONEHOT : BB_RELEASE_START_SNR;
}

void bb_params_describe(const struct bb_params *p, char *gram, size_t gramlen, char *y, size_t ylen)
{
    const char *diag = bb_params_diagonal_gram(p) ? ", noise on the diagonal (onehot rows)" : "";
    if (bb_mechanism_is_tree(p->mechanism))
        snprintf(gram, gramlen, "L=%d%s", p->L, diag);
    else
        snprintf(gram, gramlen, "g=%g k0=%g%s", p->release_base, p->release_start, diag);
    /* at most 63 characters in all: the ledger's field (billboard/privacy.h) */
    const char *bound = bb_params_counts(p) ? ", rewards by stream, next values by counts"
                        : bb_params_reward_stream(p)
                            ? (bb_params_next_bound(p) ? ", next-value bound, rewards by stream"
                                                       : ", rewards by stream")
                            : (bb_params_next_bound(p) ? ", next-value bound" : "");
    if (bb_params_y_uniform(p) || bb_params_reward_stream(p))
        snprintf(y, ylen, "value clip %s%s", bb_value_clip_name(p->value_clip), bound);
    else
        snprintf(y, ylen, "value clip %s, sigma_h ~ Delta_h^%g%s",
                 bb_value_clip_name(p->value_clip), p->y_exponent, bound);
}

static int fail(char *why, size_t whylen, const char *msg)
{
    if (why && whylen)
        snprintf(why, whylen, "%s", msg);
    return BB_EINVAL;
}

static int derive_at(struct bb_params *p, char *why, size_t whylen);

/* The sigma_y the start's rule compares with: the first update's, whose
 * share of rho_y is bb_params_first_share (§2.3), under the triangle bound
 * (§2), y_pair / 2 of which the nonnegative and centred bounds draw, so that
 * the smaller noise is a smaller noise at the same start. */
static double start_sigma(const struct bb_params *q)
{
    return q->sigma_y * (2.0 / bb_params_y_pair(q)) * bb_params_y_update_scale(q, 1);
}

/* Release start 'auto' (docs/PRIVACY.md §1.2): the first release comes once
 * the episodes per feature direction, k0 / d, reach bb_params_start_snr
 * times the first update's sigma_y (the triangle bound's: start_sigma). It shrinks
 * as k0 grows (fewer grid points, fewer updates), so k0 is the smallest
 * integer k in [1, K_max / BB_RELEASE_START_CAP] with k >= snr d
 * sigma_y(k), found by bisection (k - snr d sigma_y(k) grows with k), or
 * that cap if there is none; with a configured --max-updates cap, at most
 * the last k whose grid still has that many points. 1 for the trees (a
 * release every episode) and for a non-private run. Public parameters
 * only. */
static int derive_auto_start(struct bb_params *p, char *why, size_t whylen)
{
    if (bb_params_tabular(p)) {
        /* Tabular rows: the start onehot rows would have on the default
         * grid, whose updates draw the noise the rule reads (§2.6). */
        struct bb_params o = *p;
        o.features = BB_FEATURES_ONEHOT;
        o.release_base = RELEASE_BASE_DEFAULT;
        int rc = derive_auto_start(&o, why, whylen);
        if (rc != BB_OK || !o.is_private || bb_mechanism_is_tree(o.mechanism)) {
            p->release_start = 1;
            return rc != BB_OK ? rc : derive_at(p, why, whylen);
        }
        p->release_start = o.release_start;
        return derive_at(p, why, whylen);
    }
    struct bb_params q = *p;
    q.release_start = 1;
    int rc = derive_at(&q, why, whylen);
    if (rc != BB_OK || !q.is_private || bb_mechanism_is_tree(q.mechanism)) {
        *p = q;
        return rc;
    }
    const double snr = bb_params_start_snr(p);
    const long cap = p->K_max / BB_RELEASE_START_CAP;
    long lo = 1, hi = cap > 1 ? cap : 1; /* answer in (lo, hi] or lo */
    if ((double)lo >= snr * q.d * start_sigma(&q))
        hi = lo;
    while (hi - lo > 1) {
        long mid = lo + (hi - lo) / 2;
        q = *p;
        q.release_start = (double)mid;
        if (derive_at(&q, NULL, 0) == BB_OK && (double)mid < snr * q.d * start_sigma(&q))
            lo = mid;
        else
            hi = mid;
    }
    /* A configured cap above the grid's G fails from some k on: then the
     * last k before that, the latest start the cap allows. */
    q = *p;
    q.release_start = (double)hi;
    if (hi > 1 && derive_at(&q, NULL, 0) != BB_OK)
        hi--;
    p->release_start = (double)hi;
    return derive_at(p, why, whylen);
}

/* The sizes and the scalar budget: a reason, or NULL if they are valid. */
static const char *check_numbers(const struct bb_params *p)
{
    if (p->H < 1 || p->H > 1000)
        return "horizon H must be in [1, 1000]";
    if (p->d < 1 || p->d > 1024)
        return "dimension d must be in [1, 1024]";
    if (p->A < 1 || p->A > 1024)
        return "actions A must be in [1, 1024]";
    if (p->K_max < 1 || p->K_max > (1L << 40))
        return "max episodes K_max must be in [1, 2^40]";
    if (!(p->delta > 0 && p->delta < 1))
        return "delta must be in (0, 1)";
    if (!(p->gram_share > 0 && p->gram_share < 1))
        return "gram share f must be in (0, 1)";
    if (!(p->failure_prob > 0 && p->failure_prob < 1))
        return "failure probability p must be in (0, 1)";
    if (!(p->update_ratio > 1) || !isfinite(p->update_ratio))
        return "update ratio C must be a finite number > 1";
    if (!(p->beta >= 0) || !isfinite(p->beta))
        return "beta must be a finite number >= 0";
    if (p->max_updates_cap < 0)
        return "max updates must be >= 1";
    return NULL;
}

/* The paper's calibration fixes the levers it has no choice of: it clips Q,
 * so V, at H only, shrinks towards 0, acts greedily, states (epsilon,
 * delta) by Bun–Steinke and assumes Lambda~ positive definite. */
static void paper_levers(struct bb_params *p)
{
    if (p->calibration != BB_CAL_PAPER)
        return;
    p->value_clip = BB_VCLIP_HORIZON;
    p->prior_value = 0;
    p->plausible_z = 0;
    p->next_discount = 0;
    p->first_share = 1;
    p->rewards = BB_REWARDS_UPDATE;
    p->explore = BB_EXPLORE_SET;
    p->warm_share = 0;
    p->final_prior = BB_FINAL_PRIOR_KEPT;
    p->row_weight = BB_ROW_WEIGHT_ONE;
    p->conversion = BB_CONV_BUN_STEINKE;
    p->indefinite = BB_INDEF_REFUSE;
}

/* The enums and the levers: a reason, or NULL if they are valid. Resolves
 * the auto shift scale and the auto prior, functions of the declared
 * feature set: onehot rows shrink the next values towards
 * PRIOR_VALUE_ONEHOT of the largest target, so that cells no data reached
 * look worth visiting; other rows towards 0, the paper's (docs/PRIVACY.md
 * §3.2). */
static const char *check_levers(struct bb_params *p)
{
    if (!bb_mechanism_name(p->mechanism))
        return "unknown mechanism";
    if (!bb_value_clip_name(p->value_clip))
        return "unknown value clip";
    paper_levers(p);
    if (!bb_conversion_name(p->conversion))
        return "unknown (epsilon, delta) conversion";
    if (!bb_y_sensitivity_name(p->y_sensitivity))
        return "unknown y sensitivity bound";
    if (!bb_arithmetic_name(p->arithmetic))
        return "unknown y summation";
    if (!bb_rewards_name(p->rewards))
        return "unknown release of the rewards";
    if (!bb_explore_name(p->explore))
        return "unknown exploration rule";
    if (!bb_final_prior_name(p->final_prior))
        return "unknown rule for how the prior ends";
    if (!bb_row_weight_name(p->row_weight))
        return "unknown row weight";
    if (!bb_indefinite_name(p->indefinite))
        return "unknown rule for an indefinite Lambda~";
    if (!bb_bound_name(p->shift_bound))
        return "unknown shift bound";
    if (p->release_base == 0)
        p->release_base = bb_params_tabular(p) ? RELEASE_BASE_TABULAR : RELEASE_BASE_DEFAULT;
    if (!(p->release_base > 1 && p->release_base <= 1024))
        return "release grid base g must be in (1, 1024]";
    if (p->release_start != 0 &&
        (!(p->release_start >= 1) || !(p->release_start <= (double)p->K_max)))
        return "release start k0 must be 'auto' or in [1, K_max]";
    if (p->prior_policy != BB_PRIOR_UNIFORM && p->prior_policy != BB_PRIOR_GREEDY)
        return "unknown prior policy";
    if (p->shift_scale == 0)
        p->shift_scale = bb_params_diagonal_gram(p) ? SHIFT_SCALE_ONEHOT : SHIFT_SCALE_DEFAULT;
    if (!(p->shift_scale > 0) || !isfinite(p->shift_scale))
        return "shift scale must be 'auto' or a finite number > 0";
    if (!(p->y_exponent >= 0 && p->y_exponent <= 4))
        return "y noise exponent must be in [0, 4]";
    if (p->prior_value == BB_PRIOR_VALUE_AUTO)
        p->prior_value = bb_params_diagonal_gram(p) ? PRIOR_VALUE_ONEHOT : 0.0;
    if (!(p->prior_value >= 0 && p->prior_value <= 1))
        return "prior value must be 'auto' or in [0, 1]";
    if (p->features != BB_FEATURES_BALL && !bb_params_simplex_rows(p))
        return "features must be ball, simplex, onehot or tabular";
    if (bb_params_tabular(p) && p->d % p->A != 0)
        return "features tabular need d = S A: the dimension must be a multiple of the actions";
    if (!(p->plausible_z >= 0 && p->plausible_z <= 10))
        return "plausible set z must be in [0, 10]";
    if (!(p->plausible_floor >= 0 && p->plausible_floor <= 1))
        return "plausible set floor must be in [0, 1]";
    if (!(p->next_discount >= 0 && p->next_discount <= 10))
        return "next-value noise discount must be in [0, 10]";
    if (!(p->warm_share >= 0 && p->warm_share <= 0.5))
        return "warm-up share must be in [0, 0.5]";
    if (!(p->first_share >= 1 && p->first_share <= 10))
        return "first update's share must be in [1, 10]";
    return NULL;
}

int bb_params_derive(struct bb_params *p, char *why, size_t whylen)
{
    const char *bad = check_numbers(p);
    if (!bad)
        bad = check_levers(p);
    if (bad)
        return fail(why, whylen, bad);
    if (p->rho == 0 && p->epsilon > 0) {
        /* With exact arithmetic the conversion aims 2^-40 below epsilon, a
         * margin far wider than the few ulps by which evaluating it in
         * floating point can err (docs/PRIVACY.md §4). */
        const double aim = p->arithmetic == BB_ARITH_EXACT ? 1.0 - 0x1p-40 : 1.0;
        if (!isfinite(p->epsilon))
            p->rho = INFINITY;
        else
            p->rho = bb_conversion_rho(p->conversion, p->epsilon * aim, p->delta);
    }
    int rc = p->release_start != 0 ? derive_at(p, why, whylen)
                                   : derive_auto_start(p, why, whylen);
    /* Exact y sums: a term's rounding, at most (d + 9) 2^-54 B per
     * coordinate, must stay within g/2 (docs/PRIVACY.md §5). */
    for (int h = 0; rc == BB_OK && bb_params_y_exact(p) && h < p->H; h++)
        if (bb_params_sigma_y_step(p, h) > 0 &&
            bb_params_y_grid_ratio(p, h) < ldexp((double)p->d + 9.0, -53))
            return fail(why, whylen,
                        "the y noise is too small for its sums to be exact on its grid "
                        "(docs/PRIVACY.md §5)");
    /* The stream's terms, at most 1: their rounding likewise within g_R / 2. */
    for (int h = 0; rc == BB_OK && bb_params_reward_stream(p) && h < p->H; h++)
        if (bb_params_grid_reward(p, h) < ldexp((double)p->d + 9.0, -53))
            return fail(why, whylen,
                        "the reward stream's noise is too small for its sums to be exact on "
                        "its grid (docs/PRIVACY.md §5)");
    if (rc == BB_OK && p->K_max > bb_params_exact_k_max(p)) {
        if (why && whylen)
            snprintf(why, whylen,
                     "max episodes K_max %ld exceeds %ld, the most at which this "
                     "configuration's sums stay exact on their grid (docs/PRIVACY.md §5)",
                     p->K_max, bb_params_exact_k_max(p));
        return BB_EINVAL;
    }
    return rc;
}

double bb_params_y_grid_ratio(const struct bb_params *p, int h)
{
    /* g = 2^(ilogb sigma - 20) > 2^-21 sigma, and sigma / (1 + cap) is the
     * same for every cap (bb_params_sigma_y_at). */
    const double range = bb_params_y_range(p, bb_params_value_cap(p, h));
    return range > 0 ? ldexp(bb_params_sigma_y_step(p, h) / range, -21) : 0.0;
}

int bb_params_y_exact(const struct bb_params *p)
{
    return p->is_private && p->calibration == BB_CAL_CORRECTED &&
           p->arithmetic == BB_ARITH_EXACT;
}

long bb_params_exact_k_max(const struct bb_params *p)
{
    if (!p->is_private || !(p->grid_gram > 0))
        return LONG_MAX;
    /* Sums of snapped entries, each |.| <= 1: exact below 2^53 g. */
    double k = ldexp(p->grid_gram, 53);
    /* Exact y sums: every snapped term is at most B + g, so n of them stay
     * below 2^53 g while n <= 2^53 (g/B) / (1 + g/B), g/B > r_h. */
    for (int h = 0; bb_params_y_exact(p) && h < p->H; h++) {
        const double r = bb_params_y_grid_ratio(p, h), ky = ldexp(r / (1.0 + r), 53);
        if (!(r > 0))
            continue; /* no sum at this step: the stream holds its target */
        if (ky < k)
            k = ky;
    }
    /* (C x)_t: G products summed, error <= gamma_G sum |c x| <=
     * gamma_G K_max (c_l <= 1, every increment's entries summing at most
     * K_max terms of size <= 1), gamma_G = G u / (1 - G u). */
    const double u = 0x1p-53, G = (double)p->releases;
    const double gamma = G * u / (1.0 - G * u);
    if (p->mechanism == BB_MECH_GRID_SQRT && p->grid_gram / 2.0 / gamma < k)
        k = p->grid_gram / 2.0 / gamma;
    /* The reward stream (rstream.c): every coordinate of an increment a sum
     * of snapped terms, each at most 1 + g_R, exact while n <= 2^53 g_R /
     * (1 + g_R); and its (C x)_t as the Gram's. */
    for (int h = 0; bb_params_reward_stream(p) && h < p->H; h++) {
        const double g = bb_params_grid_reward(p, h);
        double kr = ldexp(g / (1.0 + g), 53);
        if (g / 2.0 / gamma < kr)
            kr = g / 2.0 / gamma;
        if (kr < k)
            k = kr;
    }
    /* The count stream (cstream.c): integer increments, exact; its (C x)_t
     * as the Gram's. */
    if (bb_params_counts(p) && bb_params_grid_counts(p) / 2.0 / gamma < k)
        k = bb_params_grid_counts(p) / 2.0 / gamma;
    return k >= 0x1p62 ? LONG_MAX : (long)floor(k);
}

/* Non-private LSVI-UCB through the same code: no noise, ridge 1. */
static void derive_non_private(struct bb_params *p)
{
    p->rho_gram = p->rho_y = INFINITY;
    p->epsilon = INFINITY;
    p->sigma_gram = 0;
    p->sigma_y = 0;
    p->ridge = 1.0;
    p->shift = 0.5;
    p->max_updates = p->max_updates_cap > 0 ? p->max_updates_cap : p->releases;
    p->sens_factor = p->prefix_sd = 0;
    p->grid_gram = p->grid_y = 0;
    p->sigma_gram_eff = p->sigma_y_eff = 0;
    p->y_unit = 0;
}

/* The Gram noise. One noised sum holding the episode costs ||D||_F^2 /
 * (2 sigma^2) for a change D of Frobenius norm <= sqrt 2 times the strategy
 * coefficient it meets; over the H steps rho_gram = H S / sigma^2, S the
 * sum of the squared coefficients, which the mechanism states with the
 * largest per-entry variance of a released prefix's noise in units of
 * sigma^2 (its calibrate op; docs/PRIVACY.md §1).
 * Grid snapping (noise.h): the change ||D||_F <= sqrt 2 becomes <= sqrt 2 +
 * g d (d^2 entries, each off by < g); sigma is inflated by the same ratio,
 * and by the mechanism's own snapping of its outputs, if any. */
static void derive_gram(struct bb_params *p, const struct bb_mech_ops *ops)
{
    double prefix_terms;
    ops->calibrate(p, &p->sens_factor, &prefix_terms);
    p->sigma_gram = sqrt((double)p->H * p->sens_factor / p->rho_gram);
    p->prefix_sd = p->sigma_gram * sqrt(prefix_terms);
    p->grid_gram = bb_grid_for(p->sigma_gram);
    /* Each snapped entry is off by g/2, plus with exact arithmetic its
     * product's own rounding (|phi_i phi_j| <= 1: at most 2^-54), on either
     * side of the replacement: ||D||_F <= sqrt 2 + (g + 2^-53) d. */
    const double slack = p->arithmetic == BB_ARITH_EXACT ? 0x1p-53 : 0.0;
    /* A ball row accepted at ||phi||^2 <= 1 + eta (bb_params_row_slack)
     * changes the sum by at most sqrt 2 (1 + eta) before rounding. */
    p->sigma_gram_eff = p->sigma_gram * (1.0 + bb_params_row_slack(p) +
                                         (p->grid_gram + slack) * p->d / sqrt(2.0));
    if (ops->output_snap)
        p->sigma_gram_eff += ops->output_snap(p);
}

/* PD shift (Alg. 1 line 2): shift_scale times an operator-norm bound
 * holding for every release of every step with probability 1 - p
 * (docs/PRIVACY.md §1.4; d scalars max_j |M_jj| for onehot rows, §1.6). */
static void derive_shift(struct bb_params *p)
{
    const double G = (double)p->releases;
    double norm_bound;
    if (p->shift_bound == BB_BOUND_PAPER)
        norm_bound =
            p->sigma_gram * sqrt((double)p->L) *
            (4.0 * sqrt((double)p->d) + 2.0 * log((double)p->K_max * p->H / p->failure_prob));
    else if (bb_params_diagonal_gram(p))
        norm_bound = p->prefix_sd * sqrt(2.0 * log(2.0 * p->d * G * p->H / p->failure_prob));
    else
        norm_bound =
            p->prefix_sd * (2.0 * sqrt((double)p->d) + sqrt(2.0 * log(G * p->H / p->failure_prob)));
    p->shift = p->shift_scale * norm_bound;
    p->ridge = 2.0 * p->shift;
}

/* Switching-cost bound (Theorem 4.1), enforced as a hard cap; a release
 * grid allows at most one update per release point. */
static int derive_max_updates(struct bb_params *p, int grid, char *why, size_t whylen)
{
    double nmax =
        ceil((double)p->d * p->H / log(2.0) * log1p((double)p->K_max / (p->shift * p->d)));
    long bound = nmax < 1 ? 1 : (long)nmax;
    if (grid && (bound > p->releases || p->update_rule == BB_UPDATE_RELEASE))
        bound = p->releases;
    if (p->max_updates_cap > bound) {
        if (why && whylen)
            snprintf(why, whylen,
                     "max updates %ld exceeds the switching-cost bound N_max = %ld "
                     "(a larger cap only adds noise)",
                     p->max_updates_cap, bound);
        return BB_EINVAL;
    }
    p->max_updates = p->max_updates_cap > 0 ? p->max_updates_cap : bound;
    return BB_OK;
}

/* The rest of the derivation, at a given release start k0 >= 1. */
static int derive_at(struct bb_params *p, char *why, size_t whylen)
{
    /* auto: a release grid when there is noise to save, the tree (a
     * release, so a possible update, after every episode) when there is
     * none. A function of public parameters only. */
    if (p->mechanism == BB_MECH_AUTO)
        p->mechanism = isfinite(p->rho) ? BB_MECH_GRID_SQRT : BB_MECH_TREE;
    const struct bb_mech_ops *ops = mech_ops_for(p->mechanism);
    const int grid = !ops->tree;
    if (p->update_rule == BB_UPDATE_RELEASE && !grid)
        return fail(why, whylen, "update rule 'release' needs a grid mechanism");
    if (!(p->rho > 0))
        return fail(why, whylen, "privacy budget rho (or epsilon) must be > 0");

    /* L = ceil(log2 K_max) + 1 levels: every leaf lies in one node per level. */
    p->L = 1;
    while ((1L << (p->L - 1)) < p->K_max)
        p->L++;
    p->releases =
        grid ? bb_release_grid(p->release_start, p->release_base, p->K_max, NULL, 0) : p->K_max;
    p->is_private = isfinite(p->rho);
    p->v_floor = p->calibration == BB_CAL_PAPER ? -INFINITY : 0.0;
    if (!p->is_private) {
        derive_non_private(p);
        return BB_OK;
    }
    if (p->update_rule == BB_UPDATE_EVERY)
        return fail(why, whylen, "private runs cannot update after every episode (N_max)");

    /* The warm-up (§2.5): M points below k0 on a counter of its own, at
     * rho_warm; the rest of rho is the mechanisms' after k0. */
    p->warm_points = 0;
    if (bb_params_reward_stream(p) && p->warm_share > 0 && !p->warm_copy)
        for (double k = BB_WARM_START; k < p->release_start; k *= 2)
            p->warm_points++;
    p->rho_warm = p->warm_points > 0 ? p->warm_share * p->rho : 0.0;
    p->rho_gram = p->gram_share * (p->rho - p->rho_warm);
    p->rho_y = (1.0 - p->gram_share) * (p->rho - p->rho_warm);
    p->epsilon = bb_conversion_epsilon(p->conversion, p->rho, p->delta);
    derive_gram(p, ops);
    derive_shift(p);
    int rc = derive_max_updates(p, grid, why, whylen);
    if (rc != BB_OK)
        return rc;
    ynoise_derive(p);
    if (bb_params_counts(p) &&
        (double)(p->H - 1) * (2.0 * (double)p->releases + 1.0) * p->d * bb_params_states(p) >
            (double)BB_COUNTS_MAX_ENTRIES)
        return fail(why, whylen,
                    "the transition counts of tabular rows would take more than 512 MiB at "
                    "this H, d, A and release grid (docs/PRIVACY.md §2.6)");
    return BB_OK;
}

int bb_params_warm(const struct bb_params *p, struct bb_params *w)
{
    if (p->warm_points < 1)
        return BB_ENOTFOUND;
    *w = *p;
    w->warm_copy = 1;
    w->warm_points = 0;
    w->mechanism = BB_MECH_GRID_SQRT;
    w->release_start = BB_WARM_START;
    w->release_base = 2.0;
    w->K_max = bb_params_warm_point(p->warm_points);
    w->releases = p->warm_points;
    /* the audit's mutation: the warm-up's noise calibrated at all of rho */
    const double rho_w = BB_MUTANT(WARM_FULL_RHO) ? p->rho : p->rho_warm;
    w->rho = rho_w;
    w->rho_warm = 0;
    w->rho_gram = p->gram_share * rho_w;
    w->rho_y = (1.0 - p->gram_share) * rho_w;
    w->max_updates = 0;
    derive_gram(w, mech_ops_for(BB_MECH_GRID_SQRT));
    derive_shift(w);
    w->sigma_y = 0;
    w->sigma_y_eff = 0;
    return BB_OK;
}

/* The release points after `after` (at most p->releases of them, counted
 * from the grid's first), the first of them or the last, or fallback when
 * there is none or the grid cannot be had. */
static long grid_point(const struct bb_params *p, long after, int last, long fallback)
{
    long *k = malloc(sizeof(long) * (size_t)p->releases);
    if (!k)
        return fallback;
    long G = bb_release_grid(p->release_start, p->release_base, p->K_max, k, p->releases);
    if (G > p->releases)
        G = p->releases;
    long out = fallback;
    for (long i = 0; i < G; i++)
        if (k[i] > after) {
            out = k[i];
            if (!last)
                break;
        }
    free(k);
    return out;
}

long bb_params_last_release(const struct bb_params *p)
{
    if (!p->is_private || bb_mechanism_is_tree(p->mechanism) || p->releases < 1)
        return p->K_max;
    return grid_point(p, 0, 1, p->K_max); /* K_max: the latest a grid point can be */
}

long bb_params_next_release(const struct bb_params *p, long episodes)
{
    if (!p->is_private || bb_mechanism_is_tree(p->mechanism) || p->releases < 1)
        return episodes < p->K_max ? episodes + 1 : p->K_max;
    return grid_point(p, episodes, 0, p->K_max);
}

double bb_params_prior_cut(const struct bb_params *p, long episodes, int final)
{
    if (p->final_prior == BB_FINAL_PRIOR_KEPT)
        return 0.0;
    if (final)
        return 1.0;
    if (p->final_prior == BB_FINAL_PRIOR_NONE || p->K_max < 1)
        return 0.0;
    /* taper: the prior weighs the share of K_max after the next release */
    long next = bb_params_next_release(p, episodes);
    double left = (double)(p->K_max - next) / (double)p->K_max;
    return left > 0 ? 1.0 - pow(left, PRIOR_TAPER_EXPONENT) : 1.0;
}

long bb_params_warm_point(long n)
{
    return n > 0 ? (long)ldexp(BB_WARM_START, (int)n - 1) : 0;
}

long bb_params_warm_reached(const struct bb_params *p, long episodes)
{
    long n = 0;
    for (double k = BB_WARM_START; n < p->warm_points && k <= (double)episodes; k *= 2)
        n++;
    return n;
}

double bb_params_rho_warm_spent(const struct bb_params *p, long episodes)
{
    return p->is_private && episodes > 0 ? p->rho_warm : 0.0;
}

double bb_params_rho_gram_spent(const struct bb_params *p, long episodes)
{
    if (!p->is_private)
        return 0.0; /* nothing is spent where nothing is promised */
    return episodes > 0 ? p->rho_gram : 0.0;
}

double bb_params_rho_reward_spent(const struct bb_params *p, long episodes)
{
    return p->is_private && episodes > 0 ? bb_params_rho_reward(p) : 0.0;
}

double bb_params_rho_counts_spent(const struct bb_params *p, long episodes)
{
    return p->is_private && episodes > 0 ? bb_params_rho_counts(p) : 0.0;
}

double bb_params_rho_y_spent(const struct bb_params *p, long updates)
{
    if (!p->is_private || updates <= 0)
        return 0.0;
    /* the updates' part: none with the counts, which hold the next values */
    const double rho_u = p->rho_y - bb_params_rho_reward(p) - bb_params_rho_counts(p);
    if (!(rho_u > 0))
        return 0.0;
    if (updates >= p->max_updates && bb_params_first_share(p) != 1.0)
        return rho_u; /* every share: exactly the updates' part */
    /* the first update's share, then the later ones' (all 1 with equal shares) */
    return rho_u *
           (bb_params_y_update_share(p, 1) +
            (double)(updates - 1) * bb_params_y_update_share(p, 2)) /
           (double)p->max_updates;
}

double bb_params_rho_spent(const struct bb_params *p, long episodes, long updates, double *gram,
                           double *y)
{
    const double g = bb_params_rho_gram_spent(p, episodes);
    const double v = bb_params_rho_reward_spent(p, episodes) +
                     bb_params_rho_counts_spent(p, episodes) + bb_params_rho_y_spent(p, updates);
    if (gram)
        *gram = g;
    if (y)
        *y = v;
    return bb_params_rho_warm_spent(p, episodes) + g + v;
}
