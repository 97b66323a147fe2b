/*
 * report.c — CSV, Markdown and gnuplot output of simulated runs (report.h).
 */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *eps_str(const struct bb_sim_run *r, char *buf, size_t len)
{
    if (!r->params.is_private)
        snprintf(buf, len, "inf");
    else
        snprintf(buf, len, "%g", r->params.epsilon);
    return buf;
}

void bb_sim_report_csv_header(FILE *f)
{
    fprintf(f, "env,algo,epsilon,beta,clinics,episode,regret,cum_regret,switches\n");
}

void bb_sim_report_csv(FILE *f, const struct bb_sim_run *r, long every)
{
    char eps[32];
    double cum = 0.0;
    if (every < 1)
        every = 1;
    eps_str(r, eps, sizeof(eps));
    for (long k = 0; k < r->episodes; k++) {
        cum += r->regret[k];
        if ((k + 1) % every == 0 || k + 1 == r->episodes)
            fprintf(f, "%s,%s,%s,%g,%d,%ld,%.10g,%.10g,%ld\n", r->env->name,
                    bb_sim_algo_name(r->algo), eps, r->params.beta, r->clinics, k + 1, r->regret[k],
                    cum, r->switches[k]);
    }
}

double bb_sim_report_switch_bound(const struct bb_params *p, long K)
{
    /* log det Lambda_h grows from d ln(lambda) to at most d ln(lambda + K/d)
     * (trace bound, ||phi|| <= 1); each update needs one step's det to
     * double, so there are at most H d log2(1 + K/(lambda d)) of them. */
    return (double)p->H * p->d * log2(1.0 + (double)K / (p->ridge * p->d));
}

/* Cumulative regret after the first k episodes (k <= K). */
static double cum_at(const struct bb_sim_run *r, long k)
{
    double c = 0.0;
    for (long i = 0; i < k; i++)
        c += r->regret[i];
    return c;
}

double bb_sim_report_slope(const struct bb_sim_run *r, long from)
{
    const long K = r->episodes;
    if (from < 1)
        from = 1;
    if (from >= K)
        return NAN;
    /* 40 log-spaced points; one pass over the regret. */
    const int npt = 40;
    double sx = 0, sy = 0, sxx = 0, sxy = 0, cum = 0;
    int m = 0, next = 0;
    double lf = log((double)from), lk = log((double)K);
    long target = from;
    for (long k = 1; k <= K && next < npt; k++) {
        cum += r->regret[k - 1];
        if (k < target)
            continue;
        if (!(cum > 0))
            return NAN;
        double x = log((double)k), y = log(cum);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        m++;
        next++;
        long t = (long)ceil(exp(lf + (lk - lf) * next / (npt - 1)));
        target = t > k ? t : k + 1;
    }
    double den = m * sxx - sx * sx;
    return m >= 2 && den > 0 ? (m * sxy - sx * sy) / den : NAN;
}

void bb_sim_report_table(FILE *f, const struct bb_sim_report_item *items, int n,
                         const long *checkpoints, int ncheck)
{
    /* With a solo run beside them, every run's regret per patient and its
     * ratio to the solo run's (the first one listed). */
    const struct bb_sim_run *solo = NULL;
    for (int i = 0; i < n && !solo; i++)
        if (items[i].run->algo == BB_SIM_SOLO)
            solo = items[i].run;
    fprintf(f, "| run | ε | β |");
    for (int c = 0; c < ncheck; c++)
        fprintf(f, " regret K=%ld |", checkpoints[c]);
    fprintf(f, " switches | dH log2(1+K/(λd)) | N_max | slope | V* | episodes/s |");
    if (solo)
        fprintf(f, " per patient | / solo |");
    fprintf(f, "\n|---|---|---|");
    for (int c = 0; c < ncheck; c++)
        fprintf(f, "---|");
    fprintf(f, "---|---|---|---|---|---|%s\n", solo ? "---|---|" : "");
    for (int i = 0; i < n; i++) {
        const struct bb_sim_run *r = items[i].run;
        char eps[32];
        if (r->algo == BB_SIM_RANDOM) /* no curator: neither budget nor bonus */
            fprintf(f, "| %s | — | — |", items[i].label);
        else
            fprintf(f, "| %s | %s | %g |", items[i].label, eps_str(r, eps, sizeof(eps)),
                    r->params.beta);
        for (int c = 0; c < ncheck; c++) {
            if (checkpoints[c] <= r->episodes)
                fprintf(f, " %.1f |", cum_at(r, checkpoints[c]));
            else
                fprintf(f, " — |");
        }
        double slope = bb_sim_report_slope(r, r->episodes / 100 > 10 ? r->episodes / 100 : 10);
        if (r->algo == BB_SIM_RANDOM)
            fprintf(f, " 0 | — | — |");
        else
            fprintf(f, " %ld | %.0f | %ld |", r->switches[r->episodes - 1],
                    bb_sim_report_switch_bound(&r->params, r->episodes), r->params.max_updates);
        if (isnan(slope))
            fprintf(f, " — |");
        else
            fprintf(f, " %.3f |", slope);
        fprintf(f, " %.4f | %.0f |", r->v_star,
                r->seconds > 0 ? (double)r->episodes / r->seconds : 0.0);
        if (solo) {
            double mine = cum_at(r, r->episodes) / (double)r->episodes;
            double theirs = cum_at(solo, solo->episodes) / (double)solo->episodes;
            fprintf(f, " %.4f |", mine);
            if (theirs > 0)
                fprintf(f, " %.2f |", mine / theirs);
            else
                fprintf(f, " — |");
        }
        fputc('\n', f);
    }
}

/* Up to ~400 log-spaced points of one run as an inline gnuplot datablock. */
static void datablock(FILE *g, int idx, const struct bb_sim_run *r)
{
    fprintf(g, "$R%d << EOD\n", idx);
    double cum = 0.0, next = 1.0;
    for (long k = 1; k <= r->episodes; k++) {
        cum += r->regret[k - 1];
        if ((double)k >= next || k == r->episodes) {
            fprintf(g, "%ld %.10g %ld\n", k, cum, r->switches[k - 1]);
            next = (double)k * 1.02;
        }
    }
    fprintf(g, "EOD\n");
}

int bb_sim_report_plot(const char *prefix, const char *title,
                       const struct bb_sim_report_item *items, int n, int bound)
{
    FILE *g = popen("gnuplot", "w");
    if (!g)
        return BB_EIO;
    for (int i = 0; i < n; i++)
        datablock(g, i, items[i].run);
    fprintf(g, "set terminal pngcairo size 900,600 noenhanced\n"
               "set key left top\nset grid\nset xlabel 'episodes K'\n");
    fprintf(g,
            "set output '%s-regret.png'\nset title '%s: cumulative regret'\n"
            "set ylabel 'cumulative regret'\nset logscale xy\nplot ",
            prefix, title);
    for (int i = 0; i < n; i++)
        fprintf(g, "%s$R%d using 1:2 with lines lw 2 title '%s'", i ? ", " : "", i, items[i].label);
    fprintf(g,
            "\nset output '%s-switches.png'\nset title '%s: policy switches'\n"
            "set ylabel 'switches'\nunset logscale y\nset logscale x\nplot ",
            prefix, title);
    int first = 1;
    for (int i = 0; i < n; i++) {
        if (items[i].run->algo == BB_SIM_RANDOM || items[i].run->algo == BB_SIM_LSVI_UCB)
            continue; /* 0, and one per episode: nothing to see on this scale */
        fprintf(g, "%s$R%d using 1:3 with steps lw 2 title '%s'", first ? "" : ", ", i,
                items[i].label);
        first = 0;
    }
    if (bound > 0 && n > 0) {
        const struct bb_sim_run *r = items[0].run;
        fprintf(g,
                "%s%d*%d*log(1+x/%d)/log(2) with lines dt 2 lc 'black' "
                "title 'dH log2(1 + K/d), the O(dH log K) bound'",
                first ? "" : ", ", r->params.d, r->params.H, r->params.d);
        first = 0;
    }
    if (first)
        fprintf(g, "0 notitle");
    fprintf(g, "\nset output\n");
    int st = pclose(g);
    return st == 0 ? BB_OK : BB_EIO;
}
