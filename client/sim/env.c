/*
 * env.c — a finite linear MDP: storage, validation, expanded tables and
 * sampling (env.h).
 */
#include "env.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "featureset.h"

/* Sizes above these make the dense tables unreasonable for a simulator. */
#define ENV_MAX_STATES 100000
#define ENV_MAX_TABLE  (1L << 28)

int bb_sim_env_fail(char *why, size_t whylen, const char *fmt, ...)
{
    if (why && whylen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
    }
    return BB_EINVAL;
}

int bb_sim_env_alloc(int S, int A, int d, int H, struct bb_sim_env **out)
{
    *out = NULL;
    if (S < 1 || A < 1 || d < 1 || H < 1 || S > ENV_MAX_STATES || A > 1024 || d > 1024 ||
        H > 1000 || (long)H * S * A * S > ENV_MAX_TABLE)
        return BB_EINVAL;
    struct bb_sim_env *e = calloc(1, sizeof(*e));
    if (!e)
        return BB_ENOMEM;
    e->S = S;
    e->A = A;
    e->d = d;
    e->H = H;
    size_t sa = (size_t)S * A;
    e->phi = calloc(sa * d, sizeof(double));
    e->theta = calloc((size_t)H * d, sizeof(double));
    e->mu = calloc((size_t)H * d * S, sizeof(double));
    e->init = calloc((size_t)S, sizeof(double));
    e->reward = calloc((size_t)H * sa, sizeof(double));
    e->trans = calloc((size_t)H * sa * S, sizeof(double));
    e->trans_cdf = calloc((size_t)H * sa * S, sizeof(double));
    e->init_cdf = calloc((size_t)S, sizeof(double));
    if (!e->phi || !e->theta || !e->mu || !e->init || !e->reward || !e->trans || !e->trans_cdf ||
        !e->init_cdf) {
        bb_sim_env_free(e);
        return BB_ENOMEM;
    }
    *out = e;
    return BB_OK;
}

void bb_sim_env_free(struct bb_sim_env *env)
{
    if (!env)
        return;
    free(env->phi);
    free(env->theta);
    free(env->mu);
    free(env->init);
    free(env->reward);
    free(env->trans);
    free(env->trans_cdf);
    free(env->init_cdf);
    free(env);
}

/* Running sums of p[0..n) into cdf; the last entry is forced to exactly 1 so
 * that sampling can never run off the end. */
static void cumulate(const double *p, int n, double *cdf)
{
    double c = 0.0;
    for (int i = 0; i < n; i++) {
        c += p[i];
        cdf[i] = c;
    }
    cdf[n - 1] = 1.0;
}

/* Rows normalised to sum 1 in floating point can sum to a hair above 1
 * exactly, and simplex rows are checked exactly (docs/PRIVACY.md §3.3): a
 * feature map whose every row is >= 0 with a floating-point sum at most
 * 1 + 2^-44, some of them outside the simplex, is scaled by
 * BB_SIM_SIMPLEX_FIT after the dynamics were computed from it. Every row
 * is then in the simplex exactly ((1 + 2^-44 + d 2^-53)(1 - 2^-40)(1 +
 * 2^-53) < 1), and theta and mu are divided by it, so the MDP is the same
 * linear MDP in the scaled map, its rewards and transitions untouched. */
static void fit_simplex(struct bb_sim_env *env)
{
    const size_t rows = (size_t)env->S * env->A, d = (size_t)env->d;
    int outside = 0;
    for (size_t r = 0; r < rows; r++) {
        const double *f = env->phi + r * d;
        double sum = 0;
        for (size_t j = 0; j < d; j++) {
            if (!(f[j] >= 0))
                return;
            sum += f[j];
        }
        if (sum > 1.0 + 0x1p-44)
            return;
        outside = outside || !bb_feature_row_in_set(BB_FEATURE_SET_SIMPLEX, f, (int)d, NULL, 0);
    }
    if (!outside)
        return;
    /* theta and mu over the factor: phi^T theta and phi^T mu, which the
     * factored evaluations use, stay the dynamics computed above. */
    for (size_t i = 0; i < rows * d; i++)
        env->phi[i] *= BB_SIM_SIMPLEX_FIT;
    for (size_t i = 0; i < (size_t)env->H * d; i++)
        env->theta[i] /= BB_SIM_SIMPLEX_FIT;
    for (size_t i = 0; i < (size_t)env->H * d * env->S; i++)
        env->mu[i] /= BB_SIM_SIMPLEX_FIT;
}

int bb_sim_env_finish(struct bb_sim_env *env, char *why, size_t whylen)
{
    const int S = env->S, A = env->A, d = env->d, H = env->H;
    /* The engine rejects ||phi||_2 > 1 (episode.h); test the same sum. */
    for (int s = 0; s < S; s++)
        for (int a = 0; a < A; a++) {
            const double *f = env->phi + ((size_t)s * A + a) * d;
            double n2 = 0.0;
            for (int j = 0; j < d; j++) {
                if (!isfinite(f[j]))
                    return bb_sim_env_fail(why, whylen, "/phi/%d/%d/%d: not a finite number", s, a, j);
                n2 += f[j] * f[j];
            }
            if (n2 > 1.0)
                return bb_sim_env_fail(why, whylen, "/phi/%d/%d: feature norm %.12g exceeds 1", s, a,
                            sqrt(n2));
        }
    for (size_t i = 0; i < (size_t)H * d; i++)
        if (!isfinite(env->theta[i]))
            return bb_sim_env_fail(why, whylen, "/theta/%zu/%zu: not a finite number", i / d, i % d);
    for (size_t i = 0; i < (size_t)H * d * S; i++)
        if (!isfinite(env->mu[i]))
            return bb_sim_env_fail(why, whylen, "/mu/%zu/%zu/%zu: not a finite number", i / ((size_t)d * S),
                        i / S % d, i % S);
    double tot = 0.0;
    for (int s = 0; s < S; s++) {
        if (!isfinite(env->init[s]) || env->init[s] < 0)
            return bb_sim_env_fail(why, whylen,
                        "/initial_distribution/%d: probability %g is negative "
                        "or not finite",
                        s, env->init[s]);
        tot += env->init[s];
    }
    if (fabs(tot - 1.0) > 1e-9)
        return bb_sim_env_fail(why, whylen, "/initial_distribution: sums to %.12g, not 1 (tolerance 1e-9)",
                    tot);
    cumulate(env->init, S, env->init_cdf);

    for (int h = 0; h < H; h++) {
        const double *th = env->theta + (size_t)h * d;
        const double *mu = env->mu + (size_t)h * d * S;
        for (int s = 0; s < S; s++)
            for (int a = 0; a < A; a++) {
                const double *f = env->phi + ((size_t)s * A + a) * d;
                double r = 0.0;
                for (int j = 0; j < d; j++)
                    r += f[j] * th[j];
                /* Tiny rounding below 0 or above 1 of an exact simplex
                 * product is clamped; anything larger is a bad file. */
                if (r < -1e-12 || r > 1.0 + 1e-12)
                    return bb_sim_env_fail(why, whylen,
                                "reward r_%d(%d,%d) = phi.theta = %.17g is outside [0, 1]", h + 1,
                                s, a, r);
                env->reward[((size_t)h * S + s) * A + a] = r < 0 ? 0 : r > 1 ? 1 : r;
                double *p = env->trans + (((size_t)h * S + s) * A + a) * S;
                double sum = 0.0;
                for (int t = 0; t < S; t++) {
                    double v = 0.0;
                    for (int j = 0; j < d; j++)
                        v += f[j] * mu[(size_t)j * S + t];
                    if (v < -1e-12)
                        return bb_sim_env_fail(why, whylen,
                                    "P_%d(%d | %d,%d) = phi.mu = %.17g is a negative probability",
                                    h + 1, t, s, a, v);
                    p[t] = v < 0 ? 0 : v;
                    sum += p[t];
                }
                if (fabs(sum - 1.0) > 1e-9)
                    return bb_sim_env_fail(why, whylen,
                                "P_%d(. | %d,%d) sums to %.12g, not 1 (tolerance 1e-9)", h + 1, s,
                                a, sum);
                cumulate(p, S, env->trans_cdf + (((size_t)h * S + s) * A + a) * S);
            }
    }
    fit_simplex(env);
    return BB_OK;
}

/* First index whose cumulative probability exceeds u (binary search). */
static int draw(const double *cdf, int n, double u)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (cdf[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

int bb_sim_env_reset(const struct bb_sim_env *env, struct bb_rng *rng)
{
    return draw(env->init_cdf, env->S, bb_rng_uniform(rng));
}

int bb_sim_env_step(const struct bb_sim_env *env, int h, int s, int a, struct bb_rng *rng)
{
    const double *cdf = env->trans_cdf + (((size_t)h * env->S + s) * env->A + a) * env->S;
    return draw(cdf, env->S, bb_rng_uniform(rng));
}
