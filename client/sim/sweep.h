/*
 * sweep.h — a seeded, parallel sweep over configurations (issue 9).
 *
 * A sweep is the cross product of axes (each a configuration flag of
 * config.h with a list of values), budgets epsilon, environment seeds and
 * run seeds. Every cell runs the private algorithm in-process and, on the
 * same environment and seed, the uniformly random policy, so each private
 * regret has its own baseline: ratio = regret / random regret. Runs are
 * spread over `jobs` forked processes; results are the same for any jobs.
 *
 * Output: one CSV row per run (out_csv, may be NULL) and a Markdown table
 * (out_md) with, per configuration and epsilon, the mean ratio, the worst
 * seed's ratio and which seed it was, the standard deviation, the best
 * seed's ratio, and the mean regret; rows of one epsilon sorted by mean,
 * best first.
 */
#ifndef BB_SIM_SWEEP_H
#define BB_SIM_SWEEP_H

#include <stdio.h>

#include "env.h"
#include "run.h"

#define BB_SWEEP_MAX_AXES 8
#define BB_SWEEP_MAX_VALUES 16
#define BB_SWEEP_MAX_SEEDS 64

struct bb_sim_axis {
    char flag[32];                             /* "--beta" */
    const char *value[BB_SWEEP_MAX_VALUES];    /* borrowed */
    int n;
};

/* Makes an environment for seed (env-seed of the simplex MDP; ignored by
 * fixed environments). BB_OK and *out (caller frees), or an error. */
typedef int (*bb_sim_env_maker)(const void *ctx, long seed, struct bb_sim_env **out);

struct bb_sim_sweep {
    struct bb_params base;  /* defaults and fixed flags */
    enum bb_sim_algo algo;  /* private (default), paper, lsvi-ucb-rare, ... */
    struct bb_sim_axis axis[BB_SWEEP_MAX_AXES];
    int naxes;
    double eps[BB_SWEEP_MAX_VALUES];
    int neps;
    long env_seed[BB_SWEEP_MAX_SEEDS], seed[BB_SWEEP_MAX_SEEDS];
    int nenv, nseed;
    long episodes;
    int clinics; /* N for the swept algorithm (1 if < 1); random plays alone */
    int jobs;
    bb_sim_env_maker make_env;
    const void *env_ctx;
};

/* Parses "flag=v1,v2,..." (flag without dashes) into a new axis of s; the
 * values point into spec, which must outlive s. BB_EINVAL if malformed, if
 * a value is not accepted by the flag, or if there are too many. */
int bb_sim_sweep_axis(struct bb_sim_sweep *s, char *spec, char *why, size_t whylen)
    BB_WARN_UNUSED;

/* Runs the sweep. A configuration the engine refuses at some budget (say
 * --max-updates above the bound it implies) is not run there and is listed
 * after the table as "skipped: ε = E, FLAGS: reason". BB_OK, or the first
 * run's error with a reason in why. */
int bb_sim_sweep_run(const struct bb_sim_sweep *s, FILE *out_csv, FILE *out_md, char *why,
                     size_t whylen) BB_WARN_UNUSED;

#endif
