/*
 * params.c — derivation of every privacy constant (DESIGN.md §3).
 *
 * Neighbouring datasets differ in one episode (replace-one). All mechanisms
 * are analysed in zCDP and composed additively: rho = rho_gram + rho_y.
 * docs/PRIVACY.md derives each formula; the unit test checks them on known
 * values.
 */
#include "params.h"

#include "noise.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void bb_params_defaults(struct bb_params *p)
{
    memset(p, 0, sizeof(*p));
    p->delta = 1e-5;
    p->gram_share = 0.5;
    p->failure_prob = 0.05;
    p->update_ratio = 2.0;
    p->beta = 2.0; /* the sweep's choice, docs/RESULTS.md */
    p->calibration = BB_CAL_CORRECTED;
    p->update_rule = BB_UPDATE_RARE;
}

const char *bb_mechanism_name(enum bb_mechanism m)
{
    switch (m) {
    case BB_MECH_TREE:
        return "tree";
    }
    return NULL;
}

double bb_epsilon_from_rho(double rho, double delta)
{
    return rho + 2.0 * sqrt(rho * log(1.0 / delta));
}

double bb_rho_from_epsilon(double epsilon, double delta)
{
    /* With s = sqrt(rho), l = ln(1/delta): s^2 + 2 s sqrt(l) - epsilon = 0. */
    double l = log(1.0 / delta);
    double s = sqrt(l + epsilon) - sqrt(l);
    return s * s;
}

double bb_epsilon_from_rho_cks(double rho, double delta)
{
    /* CKS 2020 Prop. 12 for (a, a rho)-RDP, solved for epsilon:
     * eps(a) = a rho + (ln(1/delta) + (a-1) ln(1-1/a) - ln a) / (a-1).
     * Minimised over a > 1 by golden-section search on a log scale. */
    double lo = log(1e-9), hi = log(1e6); /* over ln(a - 1) */
    const double g = (sqrt(5.0) - 1.0) / 2.0;
    double best = INFINITY;
    for (int it = 0; it < 200; it++) {
        double m1 = hi - g * (hi - lo), m2 = lo + g * (hi - lo);
        double e[2];
        double m[2] = {m1, m2};
        for (int j = 0; j < 2; j++) {
            double a = 1.0 + exp(m[j]);
            e[j] = a * rho + (log(1.0 / delta) + (a - 1.0) * log1p(-1.0 / a) - log(a)) / (a - 1.0);
            if (e[j] < best)
                best = e[j];
        }
        if (e[0] < e[1])
            hi = m2;
        else
            lo = m1;
    }
    return best;
}

static int fail(char *why, size_t whylen, const char *msg)
{
    if (why && whylen)
        snprintf(why, whylen, "%s", msg);
    return BB_EINVAL;
}

int bb_params_derive(struct bb_params *p, char *why, size_t whylen)
{
    if (p->H < 1 || p->H > 1000)
        return fail(why, whylen, "horizon H must be in [1, 1000]");
    if (p->d < 1 || p->d > 1024)
        return fail(why, whylen, "dimension d must be in [1, 1024]");
    if (p->A < 1 || p->A > 1024)
        return fail(why, whylen, "actions A must be in [1, 1024]");
    if (p->K_max < 1 || p->K_max > (1L << 40))
        return fail(why, whylen, "max episodes K_max must be in [1, 2^40]");
    if (!(p->delta > 0 && p->delta < 1))
        return fail(why, whylen, "delta must be in (0, 1)");
    if (!(p->gram_share > 0 && p->gram_share < 1))
        return fail(why, whylen, "gram share f must be in (0, 1)");
    if (!(p->failure_prob > 0 && p->failure_prob < 1))
        return fail(why, whylen, "failure probability p must be in (0, 1)");
    if (!(p->update_ratio > 1) || !isfinite(p->update_ratio))
        return fail(why, whylen, "update ratio C must be a finite number > 1");
    if (!(p->beta >= 0) || !isfinite(p->beta))
        return fail(why, whylen, "beta must be a finite number >= 0");
    if (p->max_updates_cap < 0)
        return fail(why, whylen, "max updates must be >= 1");
    if (p->rho == 0 && p->epsilon > 0) {
        if (!isfinite(p->epsilon))
            p->rho = INFINITY;
        else
            p->rho = bb_rho_from_epsilon(p->epsilon, p->delta);
    }
    if (!(p->rho > 0))
        return fail(why, whylen, "privacy budget rho (or epsilon) must be > 0");

    /* L = ceil(log2 K_max) + 1 levels: every leaf lies in one node per level. */
    int L = 1;
    while ((1L << (L - 1)) < p->K_max)
        L++;
    p->L = L;
    p->is_private = isfinite(p->rho);
    p->v_floor = p->calibration == BB_CAL_PAPER ? -INFINITY : 0.0;

    if (!p->is_private) {
        /* Non-private LSVI-UCB through the same code: no noise, ridge 1. */
        p->rho_gram = p->rho_y = INFINITY;
        p->epsilon = INFINITY;
        p->sigma_gram = 0;
        p->sigma_y = 0;
        p->ridge = 1.0;
        p->shift = 0.5;
        p->max_updates = p->max_updates_cap > 0 ? p->max_updates_cap : p->K_max;
        p->grid_gram = p->grid_y = 0;
        p->sigma_gram_eff = p->sigma_y_eff = 0;
        return BB_OK;
    }
    if (p->update_rule != BB_UPDATE_RARE)
        return fail(why, whylen, "private runs must use the rare-switching rule");

    p->rho_gram = p->gram_share * p->rho;
    p->rho_y = (1.0 - p->gram_share) * p->rho;
    p->epsilon = bb_epsilon_from_rho(p->rho, p->delta);

    /* Tree: one node costs ||D||_F^2 / (2 sigma^2) <= 1/sigma^2, each episode
     * is in L nodes of each of H trees: rho_gram = H L / sigma^2. */
    p->sigma_gram = sqrt((double)p->H * L / p->rho_gram);

    /* PD shift, the paper's operator-norm bound (Alg. 1 line 2). */
    p->shift = p->sigma_gram * sqrt((double)L) *
               (4.0 * sqrt((double)p->d) + 2.0 * log((double)p->K_max * p->H / p->failure_prob));
    p->ridge = 2.0 * p->shift;

    /* Switching-cost bound (Theorem 4.1), enforced as a hard cap. */
    double nmax = ceil((double)p->d * p->H / log(2.0) *
                       log1p((double)p->K_max / (p->shift * p->d)));
    long bound = nmax < 1 ? 1 : (long)nmax;
    if (p->max_updates_cap > bound) {
        if (why && whylen)
            snprintf(why, whylen,
                     "max updates %ld exceeds the switching-cost bound N_max = %ld "
                     "(a larger cap only adds noise)",
                     p->max_updates_cap, bound);
        return BB_EINVAL;
    }
    p->max_updates = p->max_updates_cap > 0 ? p->max_updates_cap : bound;

    /* y: sensitivity 2(H+1) with V in [0, H]; H releases per update, at most
     * N_max updates: rho_y = H N_max (2(H+1))^2 / (2 sigma_y^2). */
    double H = p->H, N = (double)p->max_updates;
    if (p->calibration == BB_CAL_PAPER)
        p->sigma_y = sqrt(3.0 * H * H * N / p->rho_y); /* 6 H^2 N / rho with f = 1/2 */
    else
        p->sigma_y = sqrt(2.0 * H * N * (H + 1) * (H + 1) / p->rho_y);

    /* Grid snapping (noise.h): the Gram change ||D||_F <= sqrt 2 becomes
     * <= sqrt 2 + g d (d^2 entries, each off by < g); y's 2(H+1) becomes
     * 2(H+1) + g sqrt d. Inflate sigma by the same ratio. */
    p->grid_gram = bb_grid_for(p->sigma_gram);
    p->sigma_gram_eff = p->sigma_gram * (1.0 + p->grid_gram * p->d / sqrt(2.0));
    p->grid_y = bb_grid_for(p->sigma_y);
    p->sigma_y_eff = p->sigma_y * (1.0 + p->grid_y * sqrt((double)p->d) / (2.0 * (H + 1)));
    return BB_OK;
}

double bb_params_rho_gram_spent(const struct bb_params *p, long episodes)
{
    if (!p->is_private)
        return 0.0; /* nothing is spent where nothing is promised */
    return episodes > 0 ? p->rho_gram : 0.0;
}

double bb_params_rho_y_spent(const struct bb_params *p, long updates)
{
    if (!p->is_private)
        return 0.0;
    return p->rho_y * (double)updates / (double)p->max_updates;
}
