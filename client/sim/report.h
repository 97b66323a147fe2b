/*
 * report.h — what a set of runs prints: CSV rows, a Markdown summary table,
 * and gnuplot PNGs of cumulative regret and switches against K.
 */
#ifndef BB_SIM_REPORT_H
#define BB_SIM_REPORT_H

#include <stdio.h>

#include "run.h"

/* A finished run and the label it is reported under (borrowed). */
struct bb_sim_report_item {
    const struct bb_sim_run *run;
    const char *label; /* e.g. "private eps=1 beta=0.3" */
};

/* CSV header and rows (every `every` episodes and the last) of one run:
 * env,algo,epsilon,beta,clinics,episode,regret,cum_regret,switches */
void bb_sim_report_csv_header(FILE *f);
void bb_sim_report_csv(FILE *f, const struct bb_sim_run *r, long every);

/* Least-squares slope of log(cumulative regret) against log k over
 * log-spaced k in [from, K]; NAN if the regret is 0 somewhere there. */
double bb_sim_report_slope(const struct bb_sim_run *r, long from);

/* The determinant-doubling bound on the number of updates after K episodes
 * with ridge lambda = p->ridge and C = 2: H d log2(1 + K / (lambda d)).
 * For private runs it is indicative (Lambda~ also holds tree noise). */
double bb_sim_report_switch_bound(const struct bb_params *p, long K);

/* Markdown table: one row per run with the cumulative regret at each of
 * the checkpoints (n of them, episode counts; "—" past the run), switches,
 * the switch bound, N_max, the slope, V* and the speed; when a run is solo,
 * also each run's regret per patient (cumulative / K) and its ratio to the
 * first solo run's. */
void bb_sim_report_table(FILE *f, const struct bb_sim_report_item *items, int n,
                         const long *checkpoints, int ncheck);

/* Two PNGs, prefix-regret.png and prefix-switches.png, by piping a script
 * with inline data to gnuplot. The switches plot also draws the
 * O(dH log K) reference dH log2(1 + K/d) when bound is nonzero.
 * BB_EIO if gnuplot cannot be run or fails. */
int bb_sim_report_plot(const char *prefix, const char *title,
                       const struct bb_sim_report_item *items, int n, int bound) BB_WARN_UNUSED;

#endif
