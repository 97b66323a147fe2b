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

typedef unsigned __int128 u128;

double bb_grid_for(double sigma)
{
    if (!(sigma > 0))
        return 0.0;
    return ldexp(1.0, ilogb(sigma) - BB_GRID_BITS);
}

int bb_sampler_init(struct bb_sampler *s, double sigma, double grid)
{
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
    if (ratio < 1 || ratio > 0x1p30)
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

/* Bernoulli(num/den) for num <= den. */
static int bernoulli(struct bb_rng *r, u128 num, u128 den)
{
    return bb_rng_below128(r, den) < num;
}

/* CKS Alg. 1 for gamma = num/den in [0, 1]. */
static int bernoulli_exp_le1(struct bb_rng *r, u128 num, u128 den)
{
    u128 k = 1;
    while (bernoulli(r, num, den * k))
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
        /* |y| >= 2^40 has probability below exp(-2^18) at these scales; it
         * would overflow the numerator, and its acceptance probability
         * exp(-(|y| - s2/t)^2 / (2 s2)) is 0 to every printed digit. */
        if (ay >= ((u128)1 << 40))
            continue;
        u128 a = ay * t;
        u128 diff = a > s2 ? a - s2 : s2 - a;
        if (bb_bernoulli_exp(r, diff * diff, den))
            return y;
    }
}

double bb_sampler_draw(const struct bb_sampler *s, struct bb_rng *r)
{
    return s->grid * (double)bb_sampler_draw_int(s, r);
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
