/*
 * conversion.h — a zCDP budget rho and the (epsilon, delta) it guarantees
 * (docs/PRIVACY.md §4): Bun–Steinke 2016 and Canonne–Kamath–Steinke 2020.
 * Both directions are sound for every rho-zCDP mechanism.
 */
#ifndef BB_CONVERSION_H
#define BB_CONVERSION_H

#include "enums.h"

/* epsilon(rho, delta) = rho + 2 sqrt(rho ln(1/delta)) (Bun–Steinke 2016, Prop. 1.3). */
double bb_epsilon_from_rho(double rho, double delta);

/* The rho solving epsilon = rho + 2 sqrt(rho ln(1/delta)). */
double bb_rho_from_epsilon(double epsilon, double delta);

/* The tighter conversion of Canonne–Kamath–Steinke 2020 (Prop. 12):
 * inf over alpha > 1 of the resulting epsilon. The value returned is that
 * of an alpha actually evaluated, so never below the infimum: a sound
 * epsilon for rho. */
double bb_epsilon_from_rho_cks(double rho, double delta);

/* The largest rho (to 1e-12 relative, rounded down) whose CKS epsilon is
 * at most epsilon: bb_epsilon_from_rho_cks(result, delta) <= epsilon. */
double bb_rho_from_epsilon_cks(double epsilon, double delta);

/* The conversion's epsilon for rho, and its rho for (epsilon, delta). */
double bb_conversion_epsilon(enum bb_conversion c, double rho, double delta);
double bb_conversion_rho(enum bb_conversion c, double epsilon, double delta);

#endif
