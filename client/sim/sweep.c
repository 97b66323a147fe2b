/*
 * sweep.c — seeded, parallel sweep over configurations (sweep.h).
 *
 * The cells are numbered; worker w of n runs the cells i with i mod n == w
 * and writes its results into a shared anonymous mapping at index i, so the
 * parent needs no protocol and the results do not depend on n.
 */
#include "sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/config.h"

/* What a worker hands back for one cell. */
struct cell {
    int done;         /* 1 = ran, 2 = skipped (invalid configuration), -1 = failed */
    double regret;    /* private (or the swept algorithm) */
    double random;    /* the uniform policy, same environment and seed */
    long updates, switches;
    char why[160];
};

int bb_sim_sweep_axis(struct bb_sim_sweep *s, char *spec, char *why, size_t whylen)
{
    char *eq = strchr(spec, '=');
    if (!eq || eq == spec || s->naxes >= BB_SWEEP_MAX_AXES) {
        snprintf(why, whylen, "a sweep axis is FLAG=V1,V2,... (at most %d axes)",
                 BB_SWEEP_MAX_AXES);
        return BB_EINVAL;
    }
    struct bb_sim_axis *a = &s->axis[s->naxes];
    *eq = '\0';
    if (strcmp(spec, "rho") == 0 || strcmp(spec, "epsilon") == 0) {
        /* the budget is an axis of its own, set after the swept flags */
        snprintf(why, whylen, "%s: give the budgets as --epsilon LIST", spec);
        return BB_EINVAL;
    }
    snprintf(a->flag, sizeof(a->flag), "--%s", spec);
    a->n = 0;
    char *save = NULL;
    for (char *t = strtok_r(eq + 1, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        struct bb_params probe = s->base;
        if (a->n >= BB_SWEEP_MAX_VALUES) {
            snprintf(why, whylen, "%s: at most %d values", a->flag, BB_SWEEP_MAX_VALUES);
            return BB_EINVAL;
        }
        int rc = bb_config_stored_option(&probe, a->flag, t, why, whylen);
        if (rc == BB_ENOTFOUND)
            snprintf(why, whylen, "%s is not a configuration flag or stored key", a->flag);
        if (rc != BB_OK)
            return BB_EINVAL;
        a->value[a->n++] = t;
    }
    if (a->n == 0) {
        snprintf(why, whylen, "%s: no values", a->flag);
        return BB_EINVAL;
    }
    s->naxes++;
    return BB_OK;
}

/* The number of configurations (the product of the axes' sizes). */
static long configs(const struct bb_sim_sweep *s)
{
    long n = 1;
    for (int i = 0; i < s->naxes; i++)
        n *= s->axis[i].n;
    return n;
}

/* Applies configuration c to p; the label names the swept values. */
static int apply(const struct bb_sim_sweep *s, long c, struct bb_params *p, char *label,
                 size_t labellen)
{
    char why[160];
    int pick[BB_SWEEP_MAX_AXES];
    size_t used = 0;
    label[0] = '\0';
    for (int i = s->naxes - 1; i >= 0; i--) { /* the last axis varies fastest */
        pick[i] = (int)(c % s->axis[i].n);
        c /= s->axis[i].n;
    }
    for (int i = 0; i < s->naxes; i++) {
        const struct bb_sim_axis *a = &s->axis[i];
        const char *v = a->value[pick[i]];
        if (bb_config_stored_option(p, a->flag, v, why, sizeof(why)) != BB_OK)
            return BB_EINVAL;
        int n = snprintf(label + used, labellen - used, "%s%s %s", used ? " " : "", a->flag, v);
        if (n > 0 && (size_t)n < labellen - used)
            used += (size_t)n;
    }
    if (!s->naxes)
        snprintf(label, labellen, "(defaults)");
    return BB_OK;
}

static double total(const struct bb_sim_run *r)
{
    double t = 0;
    for (long k = 0; k < r->episodes; k++)
        t += r->regret[k];
    return t;
}

/* Runs cell i: configuration, epsilon, environment seed, run seed. */
static void run_cell(const struct bb_sim_sweep *s, long i, struct cell *out)
{
    const long ns = s->nseed, ne = s->nenv, neps = s->neps;
    const long seed = s->seed[i % ns], env_seed = s->env_seed[(i / ns) % ne];
    const double eps = s->eps[(i / ns / ne) % neps];
    const long c = i / ns / ne / neps;
    struct bb_sim_env *env = NULL;
    struct bb_sim_run r = {0}, u = {0};
    char label[256];
    int rc = s->make_env(s->env_ctx, env_seed, &env);
    if (rc != BB_OK) {
        snprintf(out->why, sizeof(out->why), "environment %ld: %s", env_seed, bb_strerror(rc));
        goto out;
    }
    r.env = u.env = env;
    r.algo = s->algo;
    u.algo = BB_SIM_RANDOM;
    r.base = u.base = s->base;
    r.episodes = u.episodes = s->episodes;
    r.clinics = s->clinics > 1 ? s->clinics : 1;
    u.clinics = 1;
    r.seed = u.seed = (uint64_t)seed;
    r.base.rho = 0;
    r.base.epsilon = eps;
    if ((rc = apply(s, c, &r.base, label, sizeof(label))) != BB_OK) {
        snprintf(out->why, sizeof(out->why), "configuration %ld", c);
        goto out;
    }
    if ((rc = bb_sim_run_inprocess(&r, out->why, sizeof(out->why))) != BB_OK ||
        (rc = bb_sim_run_inprocess(&u, out->why, sizeof(out->why))) != BB_OK)
        goto out;
    out->regret = total(&r);
    out->random = total(&u);
    out->updates = r.updates;
    out->switches = r.switches[r.episodes - 1];
out:
    out->done = rc == BB_OK ? 1 : -1;
    bb_sim_run_release(&r);
    bb_sim_run_release(&u);
    bb_sim_env_free(env);
}

/* Marks in skip[c * neps + e] the reason configuration c at budget e is
 * refused by the engine (bb_sim_params on the first environment), or
 * leaves it empty. BB_OK, or an error making that environment. */
static int check_configs(const struct bb_sim_sweep *s, long nc, char (*skip)[160], char *why,
                         size_t whylen)
{
    struct bb_sim_env *env = NULL;
    int rc = s->make_env(s->env_ctx, s->env_seed[0], &env);
    if (rc != BB_OK) {
        snprintf(why, whylen, "environment %ld: %s", s->env_seed[0], bb_strerror(rc));
        return rc;
    }
    for (long c = 0; c < nc; c++)
        for (int e = 0; e < s->neps; e++) {
            struct bb_params base = s->base, p;
            char label[256];
            base.rho = 0;
            base.epsilon = s->eps[e];
            char reason[160] = "";
            if (apply(s, c, &base, label, sizeof(label)) != BB_OK)
                snprintf(reason, sizeof(reason), "a value is refused");
            else if (bb_sim_params(env, s->algo, &base, s->episodes, &p, reason,
                                   sizeof(reason)) == BB_OK)
                continue;
            snprintf(skip[c * s->neps + e], sizeof(skip[0]), "%s",
                     reason[0] ? reason : "refused by the engine");
        }
    bb_sim_env_free(env);
    return BB_OK;
}

struct row {
    long c;
    double eps, mean, sd, lo, hi, regret;
    long worst_env, worst_seed; /* the seeds of hi */
};

static int by_eps_then_mean(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    if (x->eps != y->eps)
        return x->eps > y->eps ? -1 : 1;
    return (x->mean > y->mean) - (x->mean < y->mean);
}

/* Runs every cell that is not skipped in jobs processes, which write their
 * results into cell (shared memory); returns when all have ended. */
static void run_workers(const struct bb_sim_sweep *s, struct cell *cell, long n, int jobs)
{
    fflush(NULL);
    for (int w = 0; w < jobs; w++) {
        pid_t pid = fork();
        if (pid == 0) {
            for (long i = w; i < n; i += jobs)
                if (cell[i].done != 2)
                    run_cell(s, i, &cell[i]);
            _exit(0);
        }
        if (pid < 0) /* no process to be had: run this share here */
            for (long i = w; i < n; i += jobs)
                if (cell[i].done != 2)
                    run_cell(s, i, &cell[i]);
    }
    while (wait(NULL) > 0)
        ;
}

/* One row per configuration and budget not skipped: the mean, sd and
 * range of regret / random over the seeds, and which seeds gave the worst;
 * each run's CSV line on the way (out_csv may be NULL). Returns the number
 * of rows, or -1. */
static long summarise(const struct bb_sim_sweep *s, const struct cell *cell,
                      char (*skip)[160], long nc, struct row *rows, FILE *out_csv)
{
    long nrows = 0;
    if (out_csv)
        fprintf(out_csv, "config,epsilon,env_seed,seed,regret,random_regret,ratio,updates,"
                         "switches\n");
    for (long c = 0; c < nc; c++)
        for (int e = 0; e < s->neps; e++) {
            if (skip[c * s->neps + e][0])
                continue;
            struct row *w = &rows[nrows++];
            double sum = 0, sum2 = 0, reg = 0;
            w->c = c, w->eps = s->eps[e], w->lo = INFINITY, w->hi = -INFINITY;
            char label[256];
            struct bb_params p = s->base;
            if (apply(s, c, &p, label, sizeof(label)) != BB_OK)
                return -1;
            for (int ei = 0; ei < s->nenv; ei++)
                for (int si = 0; si < s->nseed; si++) {
                    long i = ((c * s->neps + e) * s->nenv + ei) * s->nseed + si;
                    double ratio = cell[i].regret / cell[i].random;
                    sum += ratio, sum2 += ratio * ratio, reg += cell[i].regret;
                    w->lo = fmin(w->lo, ratio);
                    if (ratio > w->hi)
                        w->hi = ratio, w->worst_env = s->env_seed[ei], w->worst_seed = s->seed[si];
                    if (out_csv)
                        fprintf(out_csv, "\"%s\",%g,%ld,%ld,%.6g,%.6g,%.6g,%ld,%ld\n", label,
                                s->eps[e], s->env_seed[ei], s->seed[si], cell[i].regret,
                                cell[i].random, ratio, cell[i].updates, cell[i].switches);
                }
            w->mean = sum / (double)(s->nenv * s->nseed);
            double var = (sum2 - sum * w->mean) / (double)(s->nenv * s->nseed - 1);
            w->sd = s->nenv * s->nseed > 1 && var > 0 ? sqrt(var) : 0;
            w->regret = reg / (double)(s->nenv * s->nseed);
        }
    return nrows;
}

/* The Markdown table of rows (sorted here), then what was skipped. */
static void print_table(const struct bb_sim_sweep *s, struct row *rows, long nrows,
                        char (*skip)[160], long nc, FILE *out_md)
{
    qsort(rows, (size_t)nrows, sizeof(*rows), by_eps_then_mean);
    /* The worst seed beside the mean: a federation plays one run. */
    fprintf(out_md,
            "| ε | configuration | regret / random, mean | worst seed | sd | best seed | mean regret |\n"
            "|---|---|---|---|---|---|---|\n");
    for (long i = 0; i < nrows; i++) {
        char label[256];
        struct bb_params p = s->base;
        if (apply(s, rows[i].c, &p, label, sizeof(label)) != BB_OK)
            continue;
        char who[64];
        if (s->nenv > 1)
            snprintf(who, sizeof(who), "env %ld, seed %ld", rows[i].worst_env, rows[i].worst_seed);
        else
            snprintf(who, sizeof(who), "seed %ld", rows[i].worst_seed);
        fprintf(out_md, "| %g | %s | %.3f | %.3f (%s) | %.3f | %.3f | %.0f |\n", rows[i].eps,
                label, rows[i].mean, rows[i].hi, who, rows[i].sd, rows[i].lo, rows[i].regret);
    }
    for (long c = 0; c < nc; c++)
        for (int e = 0; e < s->neps; e++)
            if (skip[c * s->neps + e][0]) {
                char label[256];
                struct bb_params p = s->base;
                if (apply(s, c, &p, label, sizeof(label)) == BB_OK)
                    fprintf(out_md, "\nskipped: ε = %g, %s: %s\n", s->eps[e], label,
                            skip[c * s->neps + e]);
            }
}

int bb_sim_sweep_run(const struct bb_sim_sweep *s, FILE *out_csv, FILE *out_md, char *why,
                     size_t whylen)
{
    const long nc = configs(s), per = (long)s->neps * s->nenv * s->nseed, n = nc * per;
    const int jobs = s->jobs < 1 ? 1 : (s->jobs > n ? (int)n : s->jobs);
    int rc = BB_ENOMEM;
    struct row *rows = NULL;
    if (n < 1 || s->neps < 1 || s->nenv < 1 || s->nseed < 1) {
        snprintf(why, whylen, "nothing to sweep");
        return BB_EINVAL;
    }
    const size_t bytes = sizeof(struct cell) * (size_t)n;
    struct cell *cell = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (cell == MAP_FAILED)
        return BB_ENOMEM;
    memset(cell, 0, bytes);
    /* A combination the engine refuses (say a cap above the bound it
     * implies) is reported and skipped, not fatal to the whole sweep. */
    char (*skip)[160] = calloc((size_t)(nc * s->neps), sizeof(*skip));
    if (!skip)
        goto out;
    if ((rc = check_configs(s, nc, skip, why, whylen)) != BB_OK)
        goto out;
    for (long i = 0; i < n; i++)
        if (skip[i / s->nseed / s->nenv][0]) /* = configuration * neps + budget */
            cell[i].done = 2;
    run_workers(s, cell, n, jobs);
    for (long i = 0; i < n; i++)
        if (cell[i].done != 1 && cell[i].done != 2) {
            snprintf(why, whylen, "run %ld: %s", i,
                     cell[i].done ? cell[i].why : "the worker died before it");
            rc = BB_EINVAL;
            goto out;
        }
    rc = BB_ENOMEM;
    if (!(rows = calloc((size_t)(nc * s->neps), sizeof(*rows))))
        goto out;
    long nrows = summarise(s, cell, skip, nc, rows, out_csv);
    rc = BB_EINVAL;
    if (nrows < 0)
        goto out;
    print_table(s, rows, nrows, skip, nc, out_md);
    rc = BB_OK;
out:
    free(skip);
    free(rows);
    munmap(cell, bytes);
    return rc;
}
