/*
 * eval.c — backward induction over the dense tables of env.h (eval.h).
 */
#include "eval.h"

#include <string.h>

/* Q_h(s, a) = r_h(s, a) + sum_s' P_h(s' | s, a) V_{h+1}(s'). */
static double q_value(const struct bb_sim_env *env, int h, int s, int a, const double *next)
{
    const int S = env->S;
    const size_t sa = ((size_t)h * S + s) * env->A + a;
    const double *p = env->trans + sa * S;
    double q = env->reward[sa];
    for (int t = 0; t < S; t++)
        q += p[t] * next[t];
    return q;
}

void bb_sim_eval_optimal(const struct bb_sim_env *env, double *V, int *pi)
{
    const int S = env->S, H = env->H;
    memset(V + (size_t)H * S, 0, sizeof(double) * (size_t)S);
    for (int h = H - 1; h >= 0; h--) {
        const double *next = V + (size_t)(h + 1) * S;
        for (int s = 0; s < S; s++) {
            int best = 0;
            double v = q_value(env, h, s, 0, next);
            for (int a = 1; a < env->A; a++) {
                double q = q_value(env, h, s, a, next);
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
}

/* The value of step h, state s under action a, or the mean over the actions
 * for a = -1 (uniformly random), or over those of row for a = -2. */
static double action_value(const struct bb_sim_env *env, int h, int s, int a,
                           const unsigned char *row, const double *next)
{
    if (a >= 0)
        return q_value(env, h, s, a, next);
    double v = 0.0;
    int n = 0;
    for (int b = 0; b < env->A; b++)
        if (a == -1 || row[b]) {
            v += q_value(env, h, s, b, next);
            n++;
        }
    return v / n;
}

static void eval_table(const struct bb_sim_env *env, const int *pi, const unsigned char *set,
                       double *V)
{
    const int S = env->S, H = env->H, A = env->A;
    memset(V + (size_t)H * S, 0, sizeof(double) * (size_t)S);
    for (int h = H - 1; h >= 0; h--)
        for (int s = 0; s < S; s++) {
            size_t i = (size_t)h * S + s;
            V[i] = action_value(env, h, s, pi ? pi[i] : -1, set ? set + i * A : NULL,
                                V + (size_t)(h + 1) * S);
        }
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
