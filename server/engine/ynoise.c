/*
 * ynoise.c — the y noise of every step (ynoise.h; docs/PRIVACY.md §2).
 */
#include "ynoise.h"

#include <math.h>

#include "counts.h"
#include "features.h"
#include "mutation.h"
#include "noise.h"
#include "params.h"
#include "paramset.h"
#include "release.h"

double bb_params_value_cap(const struct bb_params *p, int h)
{
    if (p->warm_copy)
        return 0.0; /* the warm-up's targets are the rewards alone */
    return p->value_clip == BB_VCLIP_REMAINING ? (double)(p->H - h - 1) : (double)p->H;
}

/* A bound other than the triangle one can be in force: a private run with
 * simplex rows, the corrected calibration. */
static int simplex_bound(const struct bb_params *p)
{
    return p->is_private && bb_params_simplex_rows(p) && p->calibration == BB_CAL_CORRECTED;
}

double bb_params_y_pair(const struct bb_params *p)
{
    if (!simplex_bound(p))
        return 2.0;
    switch (p->y_sensitivity) {
    case BB_YSENS_CENTRED:
        return 1.0;
    case BB_YSENS_NONNEGATIVE:
        return sqrt(2.0);
    case BB_YSENS_TRIANGLE:
        break;
    }
    return 2.0;
}

double bb_params_y_centre(const struct bb_params *p)
{
    return simplex_bound(p) && p->y_sensitivity == BB_YSENS_CENTRED ? BB_Y_CENTRE : 0.0;
}

double bb_params_plausible_unit(const struct bb_params *p)
{
    return bb_params_y_centre(p) > 0 ? sqrt(2.0) : 1.0;
}

double bb_params_y_sensitivity(const struct bb_params *p, int h)
{
    return bb_params_y_pair(p) * (1.0 + bb_params_value_cap(p, h));
}

int bb_params_y_uniform(const struct bb_params *p)
{
    return p->y_exponent == 0 || p->value_clip == BB_VCLIP_HORIZON ||
           p->calibration == BB_CAL_PAPER;
}

double bb_params_sigma_y_step(const struct bb_params *p, int h)
{
    if (bb_params_reward_stream(p))
        return bb_params_sigma_next(p, h);
    if (bb_params_y_uniform(p))
        return p->sigma_y;
    return p->y_unit * pow(bb_params_y_sensitivity(p, h), p->y_exponent);
}

double bb_params_prior_target(const struct bb_params *p, int h)
{
    if (!p->is_private)
        return 0.0;
    return p->prior_value * (1.0 + bb_params_value_cap(p, h));
}

double bb_params_grid_y_step(const struct bb_params *p, int h)
{
    return bb_grid_for(bb_params_sigma_y_step(p, h));
}

double bb_params_sigma_y_drawn_step(const struct bb_params *p, int h)
{
    return bb_params_sigma_y_drawn_at(p, h, bb_params_value_cap(p, h));
}

double bb_params_y_range(const struct bb_params *p, double cap)
{
    return bb_params_reward_stream(p) ? cap : 1.0 + cap;
}

double bb_params_sigma_y_at(const struct bb_params *p, int h, double cap)
{
    const double full = bb_params_y_range(p, bb_params_value_cap(p, h));
    return full > 0 ? bb_params_sigma_y_step(p, h) * bb_params_y_range(p, cap) / full : 0.0;
}

double bb_params_grid_y_at(const struct bb_params *p, int h, double cap)
{
    return bb_params_grid_y_update(p, h, cap, 0);
}

double bb_params_y_snaps(const struct bb_params *p)
{
    return bb_params_y_exact(p) ? 2.0 : 1.0;
}

double bb_params_sigma_y_drawn_at(const struct bb_params *p, int h, double cap)
{
    return bb_params_sigma_y_drawn_update(p, h, cap, 0);
}

double bb_params_first_share(const struct bb_params *p)
{
    if (!p->is_private || p->calibration == BB_CAL_PAPER || p->max_updates < 2 ||
        !(p->first_share > 1))
        return 1.0;
    const double half = 0.5 * (double)p->max_updates;
    return p->first_share < half ? p->first_share : half;
}

double bb_params_y_update_share(const struct bb_params *p, long j)
{
    const double a = bb_params_first_share(p), N = (double)p->max_updates;
    if (j <= 0 || a == 1.0)
        return 1.0;
    return j == 1 || BB_MUTANT(SHARE_ALL_FIRST) ? a : (N - a) / (N - 1.0);
}

double bb_params_y_update_scale(const struct bb_params *p, long j)
{
    const double share = bb_params_y_update_share(p, j);
    return share == 1.0 ? 1.0 : 1.0 / sqrt(share);
}

double bb_params_grid_y_update(const struct bb_params *p, int h, double cap, long j)
{
    return bb_grid_for(bb_params_sigma_y_at(p, h, cap) * bb_params_y_update_scale(p, j));
}

double bb_params_sigma_y_drawn_update(const struct bb_params *p, int h, double cap, long j)
{
    const double range = bb_params_y_range(p, cap);
    if (!(range > 0) || bb_params_sigma_y_at(p, h, cap) == 0)
        return 0.0; /* nothing to noise: the stream holds the whole target */
    /* A ball row of ||phi||^2 <= 1 + eta moves a term by (1 + eta) times
     * the unit ball's bound at most (bb_params_row_slack). */
    return bb_params_sigma_y_at(p, h, cap) * bb_params_y_update_scale(p, j) *
           (1.0 + bb_params_row_slack(p) +
            bb_params_y_snaps(p) * bb_params_grid_y_update(p, h, cap, j) * sqrt((double)p->d) /
                (bb_params_y_pair(p) * range));
}

int bb_params_next_bound(const struct bb_params *p)
{
    return p->is_private && p->calibration == BB_CAL_CORRECTED && bb_params_simplex_rows(p);
}

/* y: sensitivity 2(H+1) with V in [0, H]; H releases per update, at most
 * N_max updates: rho_y = H N_max (2(H+1))^2 / (2 sigma_y^2). With the
 * nonnegative or centred bound every sensitivity, and so sigma_y, is
 * y_pair / 2 of that (exactly 1 otherwise). */
static double sigma_y_of(const struct bb_params *p)
{
    const double H = p->H, N = (double)p->max_updates;
    if (p->calibration == BB_CAL_PAPER)
        return sqrt(3.0 * H * H * N / p->rho_y); /* 6 H^2 N / rho with f = 1/2 */
    if (p->value_clip == BB_VCLIP_HORIZON)
        return sqrt(2.0 * H * N * (H + 1) * (H + 1) / p->rho_y) * (bb_params_y_pair(p) / 2.0);
    /* step h's sensitivity 2(H-h+1): sum_h 4(H-h+1)^2 / 2 = H(H+1)(2H+1)/3 */
    return sqrt(N * H * (H + 1) * (2 * H + 1) / (3.0 * p->rho_y)) * (bb_params_y_pair(p) / 2.0);
}

int bb_params_reward_stream(const struct bb_params *p)
{
    return p->is_private && p->calibration == BB_CAL_CORRECTED &&
           p->rewards == BB_REWARDS_STREAM && !bb_mechanism_is_tree(p->mechanism);
}

/* Q = sum_k (S_R + sqrt(N) c_k) / B_k of docs/PRIVACY.md §2.4: S_R the
 * square-root factorization's sum over the G releases, c_k step k's value
 * cap, B_k = 1 + c_k. */
static double split_q(const struct bb_params *p)
{
    const double S = bb_sqrt_sum_squares(p->releases), rn = sqrt((double)p->max_updates);
    double q = 0;
    for (int k = 0; k < p->H; k++) {
        const double c = bb_params_value_cap(p, k);
        q += (S + rn * c) / (1.0 + c);
    }
    return q;
}

double bb_params_sigma_reward(const struct bb_params *p, int h)
{
    if (!bb_params_reward_stream(p))
        return 0.0;
    const double B = 1.0 + bb_params_value_cap(p, h);
    return bb_params_y_pair(p) * sqrt(B * split_q(p) / (2.0 * p->rho_y));
}

double bb_params_sigma_next(const struct bb_params *p, int h)
{
    if (!bb_params_reward_stream(p) || bb_params_counts(p))
        return 0.0; /* with the counts the updates draw nothing (counts.h) */
    const double c = bb_params_value_cap(p, h), B = 1.0 + c;
    return bb_params_y_pair(p) *
           sqrt(sqrt((double)p->max_updates) * c * B * split_q(p) / (2.0 * p->rho_y));
}

double bb_params_rho_reward(const struct bb_params *p)
{
    if (!bb_params_reward_stream(p))
        return 0.0;
    double inv = 0;
    for (int k = 0; k < p->H; k++)
        inv += 1.0 / (1.0 + bb_params_value_cap(p, k));
    return p->rho_y * bb_sqrt_sum_squares(p->releases) * inv / split_q(p);
}

double bb_params_grid_reward(const struct bb_params *p, int h)
{
    return bb_grid_for(bb_params_sigma_reward(p, h));
}

double bb_params_sigma_reward_drawn(const struct bb_params *p, int h)
{
    const double s = bb_params_sigma_reward(p, h);
    if (s == 0)
        return 0.0;
    /* Per coordinate each snapped term is off by g/2 and its product's
     * rounding by at most as much, on either side of the replacement: the
     * increment moves by pair (1 + eta) + 2 g sqrt d; each snapped output
     * (C x)_j likewise by 2 g sqrt d more, over the G outputs 2 g sqrt(d G),
     * against the sqrt(S_R) pair the noise is calibrated for. */
    const double g = bb_params_grid_reward(p, h), pair = bb_params_y_pair(p);
    const double S = bb_sqrt_sum_squares(p->releases), rd = sqrt((double)p->d);
    return s * (1.0 + bb_params_row_slack(p) + 2.0 * g * rd / pair +
                2.0 * g * rd * sqrt((double)p->releases / S) / pair);
}

void ynoise_derive(struct bb_params *p)
{
    p->sigma_y = sigma_y_of(p);
    /* Per-step noise at the same rho_y: sum_h Delta_h^2 / sigma_h^2 =
     * sum_h Delta_h^2 / sigma_y^2 with sigma_h = y_unit Delta_h^p, so
     * y_unit = sigma_y sqrt(sum_h Delta_h^(2-2p) / sum_h Delta_h^2). */
    double s2 = 0, s2p = 0;
    for (int h = 0; h < p->H; h++) {
        double D = bb_params_y_sensitivity(p, h);
        s2 += D * D;
        s2p += pow(D, 2.0 - 2.0 * p->y_exponent);
    }
    p->y_unit = p->sigma_y * sqrt(s2p / s2);
    /* Each step has its own grid; snapping grows step h's sensitivity by
     * g_h sqrt d, and its noise is inflated by the same ratio. */
    p->sigma_y_eff = 0;
    for (int h = 0; h < p->H; h++) {
        double s = bb_params_sigma_y_drawn_step(p, h);
        if (s > p->sigma_y_eff) {
            p->sigma_y_eff = s;
            p->grid_y = bb_params_grid_y_step(p, h);
        }
    }
}
