/*
 * release.c — release grids and the coefficients of the mechanisms'
 * strategies (release.h; docs/PRIVACY.md §1).
 */
#include "release.h"

#include <math.h>
#include <string.h>

#include "noise.h"

long bb_release_grid(double k0, double g, long K_max, long *out, long cap)
{
    long n = 0, last = 0;
    for (double x = k0; x <= (double)K_max; x *= g) {
        long k = (long)ceil(x - 1e-9 * x); /* ceil, robust to pow's last bit */
        if (k <= last)
            continue;
        if (out && n < cap)
            out[n] = k;
        n++;
        last = k;
    }
    return n;
}

void bb_sqrt_coefficients(double *c, long n)
{
    for (long l = 0; l < n; l++)
        c[l] = l == 0 ? 1.0 : c[l - 1] * (double)(2 * l - 1) / (double)(2 * l);
}

double bb_sqrt_sum_squares(long n)
{
    double c = 1.0, sum = 0.0;
    for (long l = 0; l < n; l++) {
        sum += c * c;
        c *= (double)(2 * l + 1) / (double)(2 * l + 2);
    }
    return sum;
}

void bb_factorization_decode(const double *c, const double *b, long t, const double *x,
                             const double *z, size_t n, double grid, int snap, double *scratch,
                             double *out)
{
    memset(out, 0, n * sizeof(double));
    for (long i = 0; i <= t; i++) {
        memset(scratch, 0, n * sizeof(double));
        for (long l = 0; l <= i; l++) {
            const double cl = c[i - l];
            if (cl == 0.0)
                continue;
            const double *xl = x + (size_t)l * n;
            for (size_t e = 0; e < n; e++)
                scratch[e] += cl * xl[e];
        }
        const double *zi = z + (size_t)i * n, bi = b[t - i];
        for (size_t e = 0; e < n; e++)
            out[e] += bi * ((snap ? bb_grid_snap(scratch[e], grid) : scratch[e]) + zi[e]);
    }
}

double bb_honaker_variance(int level)
{
    double v = 1.0;
    for (int j = 1; j <= level; j++)
        v = 2.0 * v / (1.0 + 2.0 * v);
    return v;
}

double bb_honaker_weight(int level)
{
    if (level == 0)
        return 1.0;
    double v = bb_honaker_variance(level - 1);
    return 2.0 * v / (1.0 + 2.0 * v);
}

double bb_honaker_max_prefix_variance(long K_max)
{
    /* v_j > 0, so among the n <= K_max the best agrees with K_max down to
     * some set bit i of K_max, clears it and sets every bit below it (or is
     * K_max itself): at most 64 candidates. */
    double v[64], best = 0.0;
    for (int j = 0; j < 64; j++)
        v[j] = bb_honaker_variance(j);
    for (int i = -1; i < 63; i++) {
        unsigned long n;
        if (i < 0)
            n = (unsigned long)K_max;
        else if (((unsigned long)K_max >> i) & 1UL)
            n = ((unsigned long)K_max & ~((2UL << i) - 1)) | ((1UL << i) - 1);
        else
            continue;
        double s = 0.0;
        for (int j = 0; j < 64; j++)
            if ((n >> j) & 1UL)
                s += v[j];
        if (n >= 1 && s > best)
            best = s;
    }
    return best;
}
