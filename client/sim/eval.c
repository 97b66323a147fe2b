/*
 * eval.c — backward induction over the dense tables of env.h (eval.h).
 */
#include "eval.h"

#include <stdlib.h>
#include <string.h>

/* Q_h(s, a) = r_h(s, a) + sum_s' P_h(s' | s, a) V_{h+1}(s'): over the dense
 * row of P, or, given m = mu_h V_{h+1} (d entries, step_next), as
 * phi(s, a)^T m, the same sum through P_h = phi^T mu_h in d instead of S
 * multiplications (env_finish only clamps entries within 1e-12 of 0). */
static double q_value(const struct bb_sim_env *env, int h, int s, int a, const double *next,
                      const double *m)
{
    const int S = env->S;
    const size_t sa = ((size_t)h * S + s) * env->A + a;
    double q = env->reward[sa];
    if (m) {
        const double *f = env->phi + ((size_t)s * env->A + a) * env->d;
        for (int j = 0; j < env->d; j++)
            q += f[j] * m[j];
        return q;
    }
    const double *p = env->trans + sa * S;
    for (int t = 0; t < S; t++)
        q += p[t] * next[t];
    return q;
}

/* m = mu_h V_{h+1} when that is the cheaper way (2d < S: a step costs
 * d S + S A d instead of S A S), else NULL. m has d entries of scratch, or
 * is NULL when it could not be allocated (the dense way then serves). */
static const double *step_next(const struct bb_sim_env *env, int h, const double *next, double *m)
{
    if (!m || 2 * env->d >= env->S)
        return NULL;
    const int S = env->S;
    for (int j = 0; j < env->d; j++) {
        const double *mu = env->mu + ((size_t)h * env->d + j) * S;
        double v = 0.0;
        for (int t = 0; t < S; t++)
            v += mu[t] * next[t];
        m[j] = v;
    }
    return m;
}

void bb_sim_eval_optimal(const struct bb_sim_env *env, double *V, int *pi)
{
    const int S = env->S, H = env->H;
    double *scratch = malloc(sizeof(double) * (size_t)env->d);
    memset(V + (size_t)H * S, 0, sizeof(double) * (size_t)S);
    for (int h = H - 1; h >= 0; h--) {
        const double *next = V + (size_t)(h + 1) * S, *m = step_next(env, h, next, scratch);
        for (int s = 0; s < S; s++) {
            int best = 0;
            double v = q_value(env, h, s, 0, next, m);
            for (int a = 1; a < env->A; a++) {
                double q = q_value(env, h, s, a, next, m);
                if (q > v) {
                    v = q;
                    best = a;
                }
            }
            V[(size_t)h * S + s] = v;
            if (pi)
                pi[(size_t)h * S + s] = best;
        }
    }
    free(scratch);
}

/* The value of step h, state s under action a, or the mean over the actions
 * for a = -1 (uniformly random), or over those of row for a = -2. */
static double action_value(const struct bb_sim_env *env, int h, int s, int a,
                           const unsigned char *row, const double *next, const double *m)
{
    if (a >= 0)
        return q_value(env, h, s, a, next, m);
    double v = 0.0;
    int n = 0;
    for (int b = 0; b < env->A; b++)
        if (a == -1 || row[b]) {
            v += q_value(env, h, s, b, next, m);
            n++;
        }
    return v / n;
}

static void eval_table(const struct bb_sim_env *env, const int *pi, const unsigned char *set,
                       double *V)
{
    const int S = env->S, H = env->H, A = env->A;
    double *scratch = malloc(sizeof(double) * (size_t)env->d);
    memset(V + (size_t)H * S, 0, sizeof(double) * (size_t)S);
    for (int h = H - 1; h >= 0; h--) {
        const double *next = V + (size_t)(h + 1) * S, *m = step_next(env, h, next, scratch);
        for (int s = 0; s < S; s++) {
            size_t i = (size_t)h * S + s;
            V[i] = action_value(env, h, s, pi ? pi[i] : -1, set ? set + i * A : NULL, next, m);
        }
    }
    free(scratch);
}

void bb_sim_eval_policy(const struct bb_sim_env *env, const int *pi, const unsigned char *set,
                        double *V)
{
    eval_table(env, pi, set, V);
}

void bb_sim_eval_uniform(const struct bb_sim_env *env, double *V)
{
    eval_table(env, NULL, NULL, V);
}

double bb_sim_eval_initial(const struct bb_sim_env *env, const double *V)
{
    double v = 0.0;
    for (int s = 0; s < env->S; s++)
        v += env->init[s] * V[s];
    return v;
}
