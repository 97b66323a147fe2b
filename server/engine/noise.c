/*
 * noise.c — exact discrete Gaussian sampling on a power-of-two grid.
 *
 * Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential Privacy",
 * NeurIPS 2020, Algorithms 1 (Bernoulli(exp(-gamma))), 2 (discrete Laplace),
 * 3 (discrete Gaussian). All arithmetic is on integers; no floating point
 * touches a random decision.
 */
#include "noise.h"

#include <math.h>

#include "billboard/err.h"
#include "mutation.h"

typedef unsigned __int128 u128;

double bb_grid_for(double sigma)
{
    if (!(sigma > 0))
        return 0.0;
    return ldexp(1.0, ilogb(sigma) - BB_GRID_BITS);
}

int bb_sampler_init(struct bb_sampler *s, double sigma, double grid)
{
    if (BB_MUTANT(SIGMA_HALF))
        sigma *= 0.5;
    s->sigma = sigma;
    s->grid = grid;
    s->s2 = 0;
    s->t = 0;
    if (sigma == 0)
        return BB_OK;
    if (!(sigma > 0) || !(grid > 0) || !isfinite(sigma))
        return BB_EINVAL;
    int e;
    if (frexp(grid, &e) != 0.5) /* not a power of two */
        return BB_EINVAL;
    double ratio = sigma / grid;
    if (ratio < 1 || ratio > 0x1p24) /* keeps every product below 2^126 */
        return BB_EINVAL;
    double v = ceil(ratio * ratio);
    s->s2 = (uint64_t)v;
    /* t = floor(sqrt(s2)) + 1, in integers. */
    uint64_t q = (uint64_t)sqrt(v);
    while (q * q > s->s2)
        q--;
    while ((q + 1) * (q + 1) <= s->s2)
        q++;
    s->t = q + 1;
    return BB_OK;
}

/* Bernoulli(num/den), exactly: a uniform real U in [0, 1) is drawn bit by
 * bit and compared with the binary expansion of num/den, produced by long
 * division; the first differing bit decides. About two random bits a call,
 * instead of a rejection-sampled uniform below den. den < 2^126. */
static int bernoulli(struct bb_rng *r, u128 num, u128 den)
{
    if (num >= den)
        return 1;
    u128 rem = num;
    while (rem != 0) {
        rem <<= 1;
        int pbit = rem >= den;
        if (pbit)
            rem -= den;
        int ubit = bb_rng_bit(r);
        if (ubit != pbit)
            return ubit < pbit;
    }
    return 0; /* the expansion ended equal: U >= num/den with probability 1 */
}

/* CKS Alg. 1 for gamma = num/den in [0, 1]. */
static int bernoulli_exp_le1(struct bb_rng *r, u128 num, u128 den)
{
    u128 k = 1;
    /* k passes 40 with probability below 1/40!: stop there (the parity of an
     * event that never happens) so den * k stays far below 2^126. */
    while (k < 40 && bernoulli(r, num, den * k))
        k++;
    return (int)(k & 1);
}

int bb_bernoulli_exp(struct bb_rng *r, u128 num, u128 den)
{
    /* exp(-gamma) = exp(-1)^floor(gamma) * exp(-(gamma - floor(gamma))). */
    while (num > den) {
        if (!bernoulli_exp_le1(r, 1, 1))
            return 0;
        num -= den;
    }
    return bernoulli_exp_le1(r, num, den);
}

/* CKS Alg. 2: discrete Laplace with scale t, P(x) proportional to exp(-|x|/t). */
static int64_t discrete_laplace(struct bb_rng *r, uint64_t t)
{
    for (;;) {
        uint64_t u = bb_rng_below(r, t);
        if (!bb_bernoulli_exp(r, u, t))
            continue;
        uint64_t v = 0;
        while (bb_bernoulli_exp(r, 1, 1))
            v++;
        uint64_t x = u + t * v;
        int b = (int)(bb_rng_u64(r) & 1);
        if (b && x == 0)
            continue;
        return b ? -(int64_t)x : (int64_t)x;
    }
}

int64_t bb_sampler_draw_int(const struct bb_sampler *s, struct bb_rng *r)
{
    if (s->s2 == 0)
        return 0;
    const u128 s2 = s->s2, t = s->t;
    const u128 den = 2 * s2 * t * t;
    for (;;) {
        int64_t y = discrete_laplace(r, s->t);
        u128 ay = (u128)(y < 0 ? -y : y);
        u128 a = ay * t;
        /* |y| t >= 2^63 means |y| > 2^38 sigma (t <= 2^24 + 1): probability
         * below exp(-2^38) of the Laplace proposal, and an acceptance
         * probability exp(-(|y| - s2/t)^2 / (2 s2)) that is 0 to every digit.
         * Rejecting it keeps diff^2 below 2^126. */
        if (a >= ((u128)1 << 63))
            continue;
        u128 diff = a > s2 ? a - s2 : s2 - a;
        if (bb_bernoulli_exp(r, diff * diff, den))
            return y;
    }
}

double bb_sampler_draw(const struct bb_sampler *s, struct bb_rng *r)
{
    return s->grid * (double)bb_sampler_draw_int(s, r);
}

int bb_sym_sampler_init(struct bb_sym_sampler *s, double sigma, double grid, int diagonal)
{
    s->diagonal = diagonal;
    int rc = bb_sampler_init(&s->diag, sigma, grid);
    if (rc == BB_OK) /* the off-diagonal variance is half: (Z + Z^T) / 2 */
        rc = bb_sampler_init(&s->off, sigma / 1.4142135623730951, grid);
    return rc;
}

void bb_sym_sampler_draw(const struct bb_sym_sampler *s, int d, struct bb_rng *r, double *z)
{
    for (int i = 0; i < d; i++) {
        z[(size_t)i * d + i] = s->diag.s2 == 0 ? 0.0 : bb_sampler_draw(&s->diag, r);
        for (int j = i + 1; j < d; j++) {
            double v = s->diag.s2 == 0 || s->diagonal ? 0.0 : bb_sampler_draw(&s->off, r);
            z[(size_t)i * d + j] = v;
            z[(size_t)j * d + i] = v;
        }
    }
}

double bb_grid_snap(double x, double grid)
{
    if (grid == 0)
        return x;
    return nearbyint(x / grid) * grid;
}

int bb_on_grid(double x, double grid)
{
    if (grid == 0)
        return 1;
    double q = x / grid;
    return q == nearbyint(q);
}
