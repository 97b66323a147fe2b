/*
 * counts.c — the transition counts' calibration (counts.h;
 * docs/PRIVACY.md §2.6).
 */
#include "counts.h"

#include <math.h>

#include "features.h"
#include "mutation.h"
#include "noise.h"
#include "paramset.h"
#include "release.h"
#include "ynoise.h"

int bb_params_counts(const struct bb_params *p)
{
    return bb_params_tabular(p) && bb_params_reward_stream(p) && p->H >= 2 && !p->warm_copy;
}

int bb_params_states(const struct bb_params *p)
{
    return p->A > 0 ? p->d / p->A : 0;
}

double bb_params_rho_counts(const struct bb_params *p)
{
    return bb_params_counts(p) ? p->rho_y - bb_params_rho_reward(p) : 0.0;
}

double bb_params_sigma_counts(const struct bb_params *p)
{
    const double rho = bb_params_rho_counts(p);
    if (!(rho > 0))
        return 0.0;
    /* Delta^2 = 2 (H - 1): sigma^2 = Delta^2 S / (2 rho); the audit's
     * mutation calibrates for adding an episode, Delta^2 = H - 1 */
    const double pair = BB_MUTANT(COUNTS_ADD_ONLY) ? 1.0 : 2.0;
    return sqrt(pair * (p->H - 1) * bb_sqrt_sum_squares(p->releases) / (2.0 * rho));
}

double bb_params_grid_counts(const struct bb_params *p)
{
    return bb_grid_for(bb_params_sigma_counts(p));
}

double bb_params_counts_gram_sd(const struct bb_params *p, double counts_sd)
{
    const double s = bb_params_sigma_counts_drawn(p);
    if (!(s > 0) || !(counts_sd > 0))
        return 0.0;
    if (p->mechanism == BB_MECH_GRID_SQRT)
        return counts_sd * p->sigma_gram_eff / s;
    return p->prefix_sd;
}

double bb_params_sigma_counts_drawn(const struct bb_params *p)
{
    const double s = bb_params_sigma_counts(p);
    if (s == 0)
        return 0.0;
    const double g = bb_params_grid_counts(p), S = bb_sqrt_sum_squares(p->releases);
    const double w = (double)p->d * bb_params_states(p), G = (double)p->releases;
    return s * (1.0 + 2.0 * g * sqrt(w * G) / sqrt(2.0 * S));
}
