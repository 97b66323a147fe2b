/*
 * conversion.c — rho-zCDP to (epsilon, delta) and back (conversion.h;
 * docs/PRIVACY.md §4).
 */
#include "conversion.h"

#include <math.h>

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

double bb_rho_from_epsilon_cks(double epsilon, double delta)
{
    /* CKS's epsilon is increasing in rho and never above Bun–Steinke's, so
     * the answer is at least the latter's rho: bracket it and bisect,
     * keeping lo on the side where the epsilon holds. */
    double lo = bb_rho_from_epsilon(epsilon, delta), hi = 2.0 * lo + 1.0;
    if (!(lo > 0) || !isfinite(lo))
        return lo;
    if (bb_epsilon_from_rho_cks(lo, delta) > epsilon)
        return lo; /* not reached: CKS <= Bun–Steinke at every rho */
    while (bb_epsilon_from_rho_cks(hi, delta) <= epsilon)
        hi *= 2.0;
    while (hi - lo > 1e-12 * lo) {
        double mid = 0.5 * (lo + hi);
        if (bb_epsilon_from_rho_cks(mid, delta) <= epsilon)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

double bb_conversion_epsilon(enum bb_conversion c, double rho, double delta)
{
    return c == BB_CONV_CKS ? bb_epsilon_from_rho_cks(rho, delta) : bb_epsilon_from_rho(rho, delta);
}

double bb_conversion_rho(enum bb_conversion c, double epsilon, double delta)
{
    return c == BB_CONV_CKS ? bb_rho_from_epsilon_cks(epsilon, delta)
                            : bb_rho_from_epsilon(epsilon, delta);
}
