/*
 * main.c — billboard-sim: simulated clinics against Private LSVI-UCB, with
 * the exact regret of every episode (issue 4). `billboard-sim --help`.
 */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cblas.h>

#include "args.h"
#include "engine/config.h"
#include "env.h"
#include "http.h"
#include "report.h"
#include "run.h"
#include "sweep.h"
#include "version.h"

#define MAX_LIST 16
#define MAX_RUNS 256

static int sim_owns(const char *name);

/* The configuration's flags (stored 0) or its stored-only keys (stored 1),
 * from config.c's table, as --names wrapped under the usage text; not the
 * ones the simulator takes as its own options or refuses (sim_owns). */
static void print_keys(FILE *f, int stored)
{
    int col = 0;
    for (size_t i = 0; bb_config_key(i); i++) {
        const char *k = bb_config_key(i);
        if (sim_owns(k))
            continue;
        int is_flag = 0;
        for (size_t j = 0; bb_config_flag(j) && !is_flag; j++)
            is_flag = strcmp(bb_config_flag(j), k) == 0;
        if (is_flag == stored)
            continue;
        int w = (int)strlen(k) + 3;
        if (col > 0 && col + w > 76) {
            fputc('\n', f);
            col = 0;
        }
        col += fprintf(f, "%s--%s", col == 0 ? "    " : " ", k);
    }
    if (col > 0)
        fputc('\n', f);
}

static void usage(FILE *f)
{
    fprintf(f, "Usage: billboard-sim [options]\n"
               "Plays K episodes from N simulated clinics against Private LSVI-UCB and\n"
               "records the exact regret V*_1(x_1) - V^pi_1(x_1) of every episode.\n"
               "--version prints the version.\n\n"
               "Environment:\n"
               "  --env NAME|FILE      simplex (default), riverswim, or a JSON file (docs/ENV.md)\n"
               "  --states S           states (simplex: 50, riverswim: 6)\n"
               "  --actions A          simplex actions (default 5)\n"
               "  --dim d              simplex feature dimension (default 8)\n"
               "  --horizon H          steps (simplex: 5, riverswim: 20)\n"
               "  --alpha a            Dirichlet concentration of the simplex MDP (default 0.3)\n"
               "  --env-seed N         seed of the simplex MDP (default 1)\n\n"
               "Runs:\n"
               "  --algo LIST          comma list of lsvi-ucb, lsvi-ucb-rare, private, paper,\n"
               "                       random, solo (default lsvi-ucb-rare,private,random);\n"
               "                       solo: each of the --clinics acts alone, non-private,\n"
               "                       on its own patients (beta 2 unless --beta is given);\n"
               "                       with solo the table adds regret per patient\n"
               "  --episodes K         episodes per run (default 1000)\n"
               "  --clinics N          concurrent clinics (default 1)\n"
               "  --seed N             seed of the engine noise and the environment (default 1)\n"
               "  --epsilon LIST       budgets for private and paper, one run each (default 10);\n"
               "                       'inf' runs them non-private\n"
               "  --beta B             bonus scale (default: billboardd's, docs/RESULTS.md)\n"
               "  --beta-sweep LIST    one run per beta, e.g. 0.1,0.3,1,3,10\n"
               "  Also every configuration flag of billboardd (billboardd --help lists\n"
               "  them; --features defaults to the environment's set: tabular if every\n"
               "  state's rows are e_{sA+a}, onehot if every row has one nonzero entry,\n"
               "  simplex if every row is >= 0 with sum <= 1, else ball):\n");
    print_keys(f, 0);
    fprintf(f, "  and, for ablations, every key the daemon stores that no flag sets\n"
               "  (docs/DAEMON.md, \"Stored keys\"):\n");
    print_keys(f, 1);
    fprintf(f, "\n"
               "Sweep (instead of the runs above; docs/RESULTS.md):\n"
               "  --sweep FLAG=LIST    an axis: a configuration flag without dashes and its\n"
               "                       values, e.g. --sweep beta=1,2 --sweep mechanism=tree,grid;\n"
               "                       also a stored key no flag sets (next-discount);\n"
               "                       repeatable; the sweep runs their cross product\n"
               "  --env-seeds LIST     environment seeds, e.g. 2-9 (default --env-seed)\n"
               "  --seeds LIST         run seeds, e.g. 1-5 (default --seed)\n"
               "  --jobs N             parallel processes (default: the cores)\n"
               "  Each run of the algorithm (--algo, default private; once per --epsilon) is\n"
               "  paired with the random policy on the same seeds; --csv gets a row per run,\n"
               "  --summary (default stdout) the mean, sd and range of regret / random.\n"
               "  A combination the engine refuses (e.g. --max-updates above the bound) is\n"
               "  skipped and listed under the table.\n\n"
               "Over HTTP (instead of in-process):\n"
               "  --server URL         play against a running billboardd through libbillboard;\n"
               "                       its /v1/config fixes H, d, A, beta and the privacy budget\n"
               "  --token-file FILE    clinic tokens, one per line; clinic i uses line i mod n\n"
               "                       (default: BILLBOARD_TOKEN for every clinic)\n"
               "  --cacert FILE        trust only the CA certificates in FILE (PEM) for an\n"
               "                       https:// server (default: BILLBOARD_CACERT, else the\n"
               "                       system's CA store); verification is always on\n\n"
               "Output:\n"
               "  --csv FILE           CSV rows (default: none; '-' for stdout)\n"
               "  --every M            a CSV row every M episodes (default K/1000)\n"
               "  --summary FILE       Markdown table of the runs (default: stderr; '-' for\n"
               "                       stdout)\n"
               "  --checkpoints LIST   episode counts of the table's regret columns\n"
               "                       (default 1000,10000,100000)\n"
               "  --plot PREFIX        PREFIX-regret.png and PREFIX-switches.png (gnuplot)\n"
               "  --quiet              no progress on stderr\n");
}

/* Splits a comma list of numbers ("inf" allowed) into out. */
static int parse_list(const char *s, double *out, int max, int *n)
{
    char buf[512];
    snprintf(buf, sizeof(buf), "%s", s);
    *n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (*n >= max || bb_parse_double(t, &out[*n]) != BB_OK)
            return BB_EINVAL;
        (*n)++;
    }
    return *n > 0 ? BB_OK : BB_EINVAL;
}

/* A whole number >= lo. */
static int parse_min(const char *s, long lo, long *out)
{
    long v;
    if (bb_parse_long(s, &v) != BB_OK || v < lo)
        return BB_EINVAL;
    *out = v;
    return BB_OK;
}

static void progress(void *arg, long done, long total)
{
    const char *label = arg;
    int width = 40, fill = (int)((double)done / (double)total * width);
    fprintf(stderr, "\r%-32.32s [", label);
    for (int i = 0; i < width; i++)
        fputc(i < fill ? '#' : '.', stderr);
    fprintf(stderr, "] %ld/%ld", done, total);
    if (done >= total)
        fputc('\n', stderr);
}

struct opts {
    const char *env, *csv, *summary, *plot, *server, *token_file, *cacert;
    long S, A, d, H, env_seed, K, clinics, seed, every;
    double alpha;
    double eps[MAX_LIST], betas[MAX_LIST];
    int neps, nbetas, beta_given;
    long checkpoints[MAX_LIST];
    int ncheck;
    int algo_on[BB_SIM_NALGO];
    int quiet;
    struct bb_params base;
    /* sweep mode (sweep.h) */
    const char *axes[BB_SWEEP_MAX_AXES];
    int naxes;
    long env_seeds[BB_SWEEP_MAX_SEEDS], seeds[BB_SWEEP_MAX_SEEDS];
    int nenv_seeds, nseeds;
    long jobs;
};

/* The simulator's own flags; every configuration flag of config.h but the
 * sizes is appended to the table at run time (id >= O_CONFIG). */
enum {
    O_HELP = 1,
    O_QUIET,
    O_ENV,
    O_CSV,
    O_SUMMARY,
    O_PLOT,
    O_SERVER,
    O_TOKEN_FILE,
    O_CACERT,
    O_STATES,
    O_ACTIONS,
    O_DIM,
    O_HORIZON,
    O_ENV_SEED,
    O_EPISODES,
    O_CLINICS,
    O_SEED,
    O_EVERY,
    O_ALPHA,
    O_EPSILON,
    O_BETA,
    O_BETA_SWEEP,
    O_CHECKPOINTS,
    O_ALGO,
    O_SWEEP,
    O_ENV_SEEDS,
    O_SEEDS,
    O_JOBS,
    O_VERSION,
    O_CONFIG = 1000,
};

static const struct bb_opt own[] = {
    {"help", 0, O_HELP},
    {"version", 0, O_VERSION},
    {"quiet", 0, O_QUIET},
    {"env", 1, O_ENV},
    {"csv", 1, O_CSV},
    {"summary", 1, O_SUMMARY},
    {"plot", 1, O_PLOT},
    {"server", 1, O_SERVER},
    {"token-file", 1, O_TOKEN_FILE},
    {"cacert", 1, O_CACERT},
    {"states", 1, O_STATES},
    {"actions", 1, O_ACTIONS}, /* size the environment here, not the engine */
    {"dim", 1, O_DIM},
    {"horizon", 1, O_HORIZON},
    {"env-seed", 1, O_ENV_SEED},
    {"episodes", 1, O_EPISODES},
    {"clinics", 1, O_CLINICS},
    {"seed", 1, O_SEED},
    {"every", 1, O_EVERY},
    {"alpha", 1, O_ALPHA},
    {"epsilon", 1, O_EPSILON},
    {"beta", 1, O_BETA},
    {"beta-sweep", 1, O_BETA_SWEEP},
    {"checkpoints", 1, O_CHECKPOINTS},
    {"algo", 1, O_ALGO},
    {"sweep", 1, O_SWEEP},
    {"env-seeds", 1, O_ENV_SEEDS},
    {"seeds", 1, O_SEEDS},
    {"jobs", 1, O_JOBS},
};

#define NOWN (sizeof(own) / sizeof(own[0]))
#define MAX_OPTS (NOWN + 64)

/* The budget is the --epsilon list's, one run per value ('inf': non-private):
 * a --rho would be replaced by it, so the simulator refuses it. */
static const char *const refused_config[] = {"rho"};

/* Whether name (without dashes) is one of the simulator's own options or a
 * configuration key it refuses, rather than one it hands to the engine. */
static int sim_owns(const char *name)
{
    for (size_t i = 0; i < NOWN; i++)
        if (strcmp(own[i].name, name) == 0)
            return 1;
    for (size_t i = 0; i < sizeof(refused_config) / sizeof(refused_config[0]); i++)
        if (strcmp(refused_config[i], name) == 0)
            return 1;
    return 0;
}

/* The options with one whole number: where it goes and its least value. */
static const struct {
    int id;
    size_t off;
    long lo;
} whole[] = {
    {O_STATES, offsetof(struct opts, S), 1},         {O_ACTIONS, offsetof(struct opts, A), 1},
    {O_DIM, offsetof(struct opts, d), 1},            {O_HORIZON, offsetof(struct opts, H), 1},
    {O_ENV_SEED, offsetof(struct opts, env_seed), 0}, {O_EPISODES, offsetof(struct opts, K), 1},
    {O_CLINICS, offsetof(struct opts, clinics), 1},  {O_SEED, offsetof(struct opts, seed), 0},
    {O_EVERY, offsetof(struct opts, every), 1},      {O_JOBS, offsetof(struct opts, jobs), 1},
};

/* The options with a string, kept as given. */
static const struct {
    int id;
    size_t off;
} text[] = {
    {O_ENV, offsetof(struct opts, env)},     {O_CSV, offsetof(struct opts, csv)},
    {O_SUMMARY, offsetof(struct opts, summary)}, {O_PLOT, offsetof(struct opts, plot)},
    {O_SERVER, offsetof(struct opts, server)}, {O_TOKEN_FILE, offsetof(struct opts, token_file)},
    {O_CACERT, offsetof(struct opts, cacert)},
};

/* Parses "1,3,5-9" into out (at most max). */
static int parse_seeds(const char *s, long *out, int max, int *n)
{
    char buf[512];
    snprintf(buf, sizeof(buf), "%s", s);
    *n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        long lo, hi;
        char *dash = strchr(t, '-');
        if (dash)
            *dash = '\0';
        if (parse_min(t, 0, &lo) != BB_OK || (dash && parse_min(dash + 1, lo, &hi) != BB_OK))
            return BB_EINVAL;
        if (!dash)
            hi = lo;
        for (long v = lo; v <= hi; v++) {
            if (*n >= max)
                return BB_EINVAL;
            out[(*n)++] = v;
        }
    }
    return *n > 0 ? BB_OK : BB_EINVAL;
}

/* "private,random,...": the algorithms to run. */
static int parse_algos(const char *v, int *on)
{
    char buf[256];
    int rc = BB_OK;
    snprintf(buf, sizeof(buf), "%s", v);
    memset(on, 0, sizeof(int) * BB_SIM_NALGO);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t && rc == BB_OK;
         t = strtok_r(NULL, ",", &save)) {
        enum bb_sim_algo al;
        rc = bb_sim_algo_parse(t, &al);
        if (rc == BB_OK)
            on[al] = 1;
    }
    return rc;
}

/* Sets the simulator's option id to v. BB_OK or BB_EINVAL. */
static int set_option(struct opts *o, int id, const char *v)
{
    double tmp[MAX_LIST];
    int n, rc;
    for (size_t i = 0; i < sizeof(whole) / sizeof(whole[0]); i++)
        if (whole[i].id == id)
            return parse_min(v, whole[i].lo, (long *)(void *)((char *)o + whole[i].off));
    for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++)
        if (text[i].id == id) {
            *(const char **)(void *)((char *)o + text[i].off) = v;
            return BB_OK;
        }
    switch (id) {
    case O_QUIET:
        o->quiet = 1;
        return BB_OK;
    case O_ALPHA:
        return parse_list(v, &o->alpha, 1, &n);
    case O_EPSILON:
        return parse_list(v, o->eps, MAX_LIST, &o->neps);
    case O_BETA:
        return parse_list(v, o->betas, 1, &o->nbetas);
    case O_BETA_SWEEP:
        return parse_list(v, o->betas, MAX_LIST, &o->nbetas);
    case O_CHECKPOINTS:
        rc = parse_list(v, tmp, MAX_LIST, &o->ncheck);
        for (int k = 0; rc == BB_OK && k < o->ncheck; k++)
            o->checkpoints[k] = (long)tmp[k];
        return rc;
    case O_ENV_SEEDS:
        return parse_seeds(v, o->env_seeds, BB_SWEEP_MAX_SEEDS, &o->nenv_seeds);
    case O_SEEDS:
        return parse_seeds(v, o->seeds, BB_SWEEP_MAX_SEEDS, &o->nseeds);
    case O_SWEEP:
        if (o->naxes >= BB_SWEEP_MAX_AXES)
            return BB_EINVAL;
        o->axes[o->naxes++] = v;
        return BB_OK;
    case O_ALGO:
        return parse_algos(v, o->algo_on);
    }
    return BB_EINVAL;
}

static void defaults(struct opts *o)
{
    memset(o, 0, sizeof(*o));
    o->env = "simplex";
    o->S = o->A = o->d = o->H = -1;
    o->env_seed = 1;
    o->alpha = 0.3;
    o->K = 1000;
    o->clinics = 1;
    o->seed = 1;
    o->eps[0] = 10;
    o->neps = 1;
    o->betas[0] = NAN; /* the configuration's beta (params.c) */
    o->nbetas = 1;
    o->checkpoints[0] = 1000;
    o->checkpoints[1] = 10000;
    o->checkpoints[2] = 100000;
    o->ncheck = 3;
    o->jobs = sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
    o->algo_on[BB_SIM_LSVI_UCB_RARE] = o->algo_on[BB_SIM_PRIVATE] = o->algo_on[BB_SIM_RANDOM] = 1;
    bb_params_defaults(&o->base);
    o->base.features = BB_FEATURES_AUTO; /* the environment's (bb_sim_params) */
}

/* The simulator's flags and every configuration flag it does not own into
 * t (MAX_OPTS entries); returns the count. */
static size_t flags(struct bb_opt *t)
{
    size_t nt = 0;
    for (size_t i = 0; i < NOWN; i++)
        t[nt++] = own[i];
    for (size_t i = 0; bb_config_key(i); i++)
        if (!bb_opt_find(own, NOWN, bb_config_key(i))) {
            assert(nt < MAX_OPTS); /* raise MAX_OPTS */
            t[nt++] = (struct bb_opt){bb_config_key(i), 1, O_CONFIG + (int)i};
        }
    return nt;
}

/* 0 when argv is read into o, 1 after --help, else BB_EINVAL (said). */
static int parse_args(int argc, char **argv, struct opts *o)
{
    char why[256], flag[64];
    struct bb_opt table[MAX_OPTS];
    const size_t nt = flags(table);
    struct bb_args a;
    struct bb_arg g;
    defaults(o);
    bb_args_init(&a, argc, argv, 1);
    while (bb_args_next(&a, table, nt, &g) != BB_ARG_END) {
        if (g.kind == BB_ARG_POSITIONAL) {
            fprintf(stderr, "billboard-sim: unexpected argument %s (see --help)\n", g.word);
            return BB_EINVAL;
        }
        if (g.kind == BB_ARG_NO_VALUE) {
            fprintf(stderr, "billboard-sim: %s needs a value\n", g.word);
            return BB_EINVAL;
        }
        if (g.kind != BB_ARG_OPTION) {
            fprintf(stderr, "billboard-sim: unknown option %s (see --help)\n", g.word);
            return BB_EINVAL;
        }
        if (g.opt->id == O_HELP) {
            usage(stdout);
            return 1;
        }
        if (g.opt->id == O_VERSION) {
            printf("billboard-sim %s\n", bb_version());
            return 1;
        }
        snprintf(flag, sizeof(flag), "--%s", g.opt->name);
        if (g.opt->id >= O_CONFIG && sim_owns(g.opt->name)) {
            fprintf(stderr, "billboard-sim: %s: give the budgets as --epsilon LIST ('inf' for "
                            "non-private), one run each\n", flag);
            return BB_EINVAL;
        }
        if (g.opt->id >= O_CONFIG) {
            int rc = bb_config_stored_option(&o->base, flag, g.value, why, sizeof(why));
            if (rc != BB_OK) {
                fprintf(stderr, "billboard-sim: %s\n", why);
                return rc;
            }
        } else if (set_option(o, g.opt->id, g.value) != BB_OK) {
            fprintf(stderr, "billboard-sim: bad value '%s' for %s\n", g.value, flag);
            return BB_EINVAL;
        }
    }
    o->beta_given = !isnan(o->betas[0]);
    if (isnan(o->betas[0]))
        o->betas[0] = o->base.beta;
    return BB_OK;
}

static int make_env(const struct opts *o, struct bb_sim_env **env)
{
    char why[512];
    int rc;
    if (strcmp(o->env, "simplex") == 0) {
        rc = bb_sim_env_simplex(o->S > 0 ? (int)o->S : 50, o->A > 0 ? (int)o->A : 5,
                                o->d > 0 ? (int)o->d : 8, o->H > 0 ? (int)o->H : 5, o->alpha,
                                (uint64_t)o->env_seed, env);
        if (rc != BB_OK)
            fprintf(stderr, "billboard-sim: simplex MDP: %s\n", bb_strerror(rc));
    } else if (strcmp(o->env, "riverswim") == 0) {
        rc = bb_sim_env_riverswim(o->S > 0 ? (int)o->S : 6, o->H > 0 ? (int)o->H : 20, env);
        if (rc != BB_OK)
            fprintf(stderr, "billboard-sim: riverswim: %s\n", bb_strerror(rc));
    } else {
        rc = bb_sim_env_load(o->env, env, why, sizeof(why));
        if (rc != BB_OK)
            fprintf(stderr, "billboard-sim: %s\n", why);
    }
    return rc;
}

static int make_env_seeded(const void *ctx, long seed, struct bb_sim_env **out)
{
    struct opts o = *(const struct opts *)ctx;
    o.env_seed = seed;
    return make_env(&o, out);
}

/* An output file named on the command line: "-" is stdout, none is dflt. */
static FILE *open_out(const char *path, FILE *dflt)
{
    if (!path)
        return dflt;
    return strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
}

/* Closes what open_out opened, leaving the standard streams open: 0 or EOF. */
static int close_out(FILE *f)
{
    return f && f != stdout && f != stderr ? fclose(f) : 0;
}

/* Sweep mode (sweep.h): returns the exit status. */
static int sweep(struct opts *o)
{
    static struct bb_sim_sweep s; /* large; one per process */
    char why[512];
    FILE *csv = NULL, *md = NULL;
    int status = 2;
    s.base = o->base;
    s.base.beta = o->betas[0];
    s.algo = BB_SIM_PRIVATE;
    for (int al = 0; al < BB_SIM_NALGO; al++)
        if (o->algo_on[al] && al != BB_SIM_RANDOM && !o->algo_on[BB_SIM_PRIVATE])
            s.algo = (enum bb_sim_algo)al;
    if (s.algo == BB_SIM_SOLO && !o->beta_given)
        s.base.beta = BB_SIM_SOLO_BETA;
    s.clinics = (int)o->clinics;
    for (int i = 0; i < o->naxes; i++) {
        char *spec = strdup(o->axes[i]); /* the axis keeps pointers into it */
        if (!spec || bb_sim_sweep_axis(&s, spec, why, sizeof(why)) != BB_OK) {
            fprintf(stderr, "billboard-sim: --sweep %s: %s\n", o->axes[i], spec ? why : "ENOMEM");
            return 2;
        }
    }
    memcpy(s.eps, o->eps, sizeof(double) * (size_t)o->neps);
    s.neps = o->neps;
    s.nenv = o->nenv_seeds ? o->nenv_seeds : 1;
    s.nseed = o->nseeds ? o->nseeds : 1;
    for (int i = 0; i < s.nenv; i++)
        s.env_seed[i] = o->nenv_seeds ? o->env_seeds[i] : o->env_seed;
    for (int i = 0; i < s.nseed; i++)
        s.seed[i] = o->nseeds ? o->seeds[i] : o->seed;
    s.episodes = o->K;
    s.jobs = (int)o->jobs;
    s.make_env = make_env_seeded;
    s.env_ctx = o;
    if (o->csv && !(csv = open_out(o->csv, NULL))) {
        fprintf(stderr, "billboard-sim: %s: %s\n", o->csv, strerror(errno));
        goto out;
    }
    if (!(md = open_out(o->summary, stdout))) {
        fprintf(stderr, "billboard-sim: %s: %s\n", o->summary, strerror(errno));
        goto out;
    }
    status = 1;
    if (bb_sim_sweep_run(&s, csv, md, why, sizeof(why)) != BB_OK) {
        fprintf(stderr, "billboard-sim: sweep: %s\n", why);
        goto out;
    }
    status = 0;
out:
    if (close_out(csv) != 0)
        status = 1;
    if (close_out(md) != 0)
        status = 1;
    return status;
}

/* Reads up to max tokens, one per line (blank lines skipped), into
 * tokens (caller frees each). Returns the count, or -1 on error. */
static int read_tokens(const char *path, char **tokens, int max)
{
    FILE *f = fopen(path, "r");
    char line[512];
    int n = 0;
    if (!f) {
        fprintf(stderr, "billboard-sim: %s: %s\n", path, strerror(errno));
        return -1;
    }
    while (n < max && fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0])
            continue;
        if (!(tokens[n] = strdup(line)))
            break;
        n++;
    }
    fclose(f);
    if (n == 0)
        fprintf(stderr, "billboard-sim: %s: no token\n", path);
    return n > 0 ? n : -1;
}

/* One run over HTTP: N clinic threads against --server. */
static int run_http(const struct opts *o, const struct bb_sim_env *env, struct bb_sim_run *r,
                    char *label, size_t labellen)
{
    char *file_tokens[256] = {0};
    char **tokens = NULL;
    char why[512] = "";
    int status = 1, nt = 0;
    const int N = (int)o->clinics;
    if (o->token_file) {
        if ((nt = read_tokens(o->token_file, file_tokens, 256)) < 0)
            goto out;
    } else if (getenv("BILLBOARD_TOKEN")) {
        file_tokens[0] = strdup(getenv("BILLBOARD_TOKEN"));
        nt = file_tokens[0] ? 1 : 0;
    }
    if (nt == 0) {
        fprintf(stderr, "billboard-sim: --server needs --token-file or BILLBOARD_TOKEN\n");
        goto out;
    }
    if (!(tokens = calloc((size_t)N, sizeof(*tokens))))
        goto out;
    for (int i = 0; i < N; i++)
        tokens[i] = file_tokens[i % nt];
    r->env = env;
    r->episodes = o->K;
    r->clinics = N;
    r->seed = (uint64_t)o->seed;
    if (!o->quiet) {
        r->progress = progress;
        r->progress_arg = (void *)"http";
    }
    const char *cacert = o->cacert ? o->cacert : getenv("BILLBOARD_CACERT");
    if (cacert && !*cacert)
        cacert = NULL;
    int rc = bb_sim_run_http(r, o->server, cacert, tokens, why, sizeof(why));
    if (rc != BB_OK) {
        fprintf(stderr, "billboard-sim: %s: %s\n", o->server, why);
        goto out;
    }
    if (r->params.is_private)
        snprintf(label, labellen, "http %s eps=%g", bb_sim_algo_name(r->algo), r->params.epsilon);
    else
        snprintf(label, labellen, "http %s", bb_sim_algo_name(r->algo));
    status = 0;
out:
    for (int i = 0; i < nt; i++)
        free(file_tokens[i]);
    free(tokens);
    return status;
}

/* A run's label: the algorithm, its epsilon (solo: its number of clinics),
 * its beta when several. */
static void label_run(const struct opts *o, const struct bb_sim_run *r, int with_eps, double eps,
                      double beta, char *out, size_t outlen)
{
    if (with_eps && isinf(eps))
        snprintf(out, outlen, "%s eps=inf", bb_sim_algo_name(r->algo));
    else if (with_eps)
        snprintf(out, outlen, "%s eps=%g", bb_sim_algo_name(r->algo), eps);
    else if (r->algo == BB_SIM_SOLO)
        snprintf(out, outlen, "solo N=%ld", o->clinics);
    else
        snprintf(out, outlen, "%s", bb_sim_algo_name(r->algo));
    if (o->nbetas > 1 && r->algo != BB_SIM_RANDOM) {
        size_t l = strlen(out);
        snprintf(out + l, outlen - l, " beta=%g", beta);
    }
}

/* The plan of in-process runs into runs, items and labels (MAX_RUNS each):
 * per beta, each algorithm; private and paper once per epsilon; random
 * once (it has no beta); solo at BB_SIM_SOLO_BETA unless --beta is given.
 * Returns the number of runs. */
static int plan_runs(const struct opts *o, const struct bb_sim_env *env,
                     struct bb_sim_run *runs, struct bb_sim_report_item *items,
                     char (*labels)[64])
{
    int nruns = 0;
    for (int b = 0; b < o->nbetas; b++)
        for (int al = 0; al < BB_SIM_NALGO; al++) {
            if (!o->algo_on[al] || (al == BB_SIM_RANDOM && b > 0))
                continue;
            int per = al == BB_SIM_PRIVATE || al == BB_SIM_PAPER ? o->neps : 1;
            for (int e = 0; e < per && nruns < MAX_RUNS; e++) {
                struct bb_sim_run *r = &runs[nruns];
                int with_eps = per > 1 || al == BB_SIM_PRIVATE || al == BB_SIM_PAPER;
                r->env = env;
                r->algo = (enum bb_sim_algo)al;
                r->base = o->base;
                r->base.beta =
                    al == BB_SIM_SOLO && !o->beta_given ? BB_SIM_SOLO_BETA : o->betas[b];
                r->episodes = o->K;
                r->clinics = (int)o->clinics;
                r->seed = (uint64_t)o->seed;
                if (with_eps) {
                    r->base.rho = 0;
                    r->base.epsilon = o->eps[e];
                }
                label_run(o, r, with_eps, o->eps[e], o->betas[b], labels[nruns], 64);
                if (!o->quiet) {
                    r->progress = progress;
                    r->progress_arg = labels[nruns];
                }
                items[nruns].run = r;
                items[nruns].label = labels[nruns];
                nruns++;
            }
        }
    return nruns;
}

/* Runs each planned run (in process; over HTTP it has run already), says
 * how it went on stderr and writes its rows to csv (may be NULL). BB_OK or
 * the first error (said). */
static int execute_runs(const struct opts *o, struct bb_sim_run *runs,
                        const struct bb_sim_report_item *items, int nruns, FILE *csv)
{
    char why[512] = "";
    for (int i = 0; i < nruns; i++) {
        struct bb_sim_run *r = &runs[i];
        int rc = o->server ? BB_OK : bb_sim_run_inprocess(r, why, sizeof(why));
        if (rc != BB_OK) {
            fprintf(stderr, "billboard-sim: %s: %s\n", items[i].label, why);
            return rc;
        }
        double cum = 0.0;
        for (long k = 0; k < r->episodes; k++)
            cum += r->regret[k];
        fprintf(stderr,
                "%s: K=%ld cumulative regret %.3f, switches %ld, updates %ld, "
                "%.0f episodes/s (%.2f s)\n",
                items[i].label, r->episodes, cum, r->switches[r->episodes - 1], r->updates,
                r->seconds > 0 ? (double)r->episodes / r->seconds : 0.0, r->seconds);
        if (o->server)
            fprintf(stderr,
                    "%s: the daemon reports %ld updates (GET /v1/privacy); "
                    "the clinics used %ld new versions\n",
                    items[i].label, r->updates, r->switches[r->episodes - 1]);
        if (r->notpd)
            fprintf(stderr, "%s: %ld updates refused (noisy Gram matrix not PD)\n", items[i].label,
                    r->notpd);
        if (csv)
            bb_sim_report_csv(csv, r, o->every > 0 ? o->every : (o->K / 1000 > 0 ? o->K / 1000 : 1));
    }
    return BB_OK;
}

/* The summary table and the plots. 0, or 1 after a message. */
static int write_summary(const struct opts *o, const struct bb_sim_env *env,
                         const struct bb_sim_report_item *items, int nruns)
{
    FILE *summary = open_out(o->summary, stderr);
    if (!summary) {
        fprintf(stderr, "billboard-sim: %s: %s\n", o->summary, strerror(errno));
        return 1;
    }
    bb_sim_report_table(summary, items, nruns, o->checkpoints, o->ncheck);
    if (close_out(summary) != 0) {
        fprintf(stderr, "billboard-sim: %s: %s\n", o->summary, strerror(errno));
        return 1;
    }
    if (o->plot) {
        char title[160];
        snprintf(title, sizeof(title), "%s (S=%d A=%d d=%d H=%d)", env->name, env->S, env->A,
                 env->d, env->H);
        if (bb_sim_report_plot(o->plot, title, items, nruns, 1) != BB_OK) {
            fprintf(stderr, "billboard-sim: gnuplot failed for %s\n", o->plot);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct opts o;
    struct bb_sim_env *env = NULL;
    struct bb_sim_run *runs = NULL;
    struct bb_sim_report_item items[MAX_RUNS];
    char labels[MAX_RUNS][64];
    int nruns = 0, status = 2;
    FILE *csv = NULL;

    /* One run is one thread, and OpenBLAS runs single-threaded
     * (docs/RESULTS.md, "Tuning record"); OPENBLAS_NUM_THREADS, if set,
     * still wins. */
    if (!getenv("OPENBLAS_NUM_THREADS"))
        openblas_set_num_threads(1);
    int rc = parse_args(argc, argv, &o);
    if (rc == 1)
        return 0;
    if (rc != BB_OK)
        return 2;
    if (o.naxes || o.nenv_seeds || o.nseeds)
        return sweep(&o);
    if (make_env(&o, &env) != BB_OK)
        goto out;
    status = 1;
    runs = calloc(MAX_RUNS, sizeof(*runs));
    if (!runs)
        goto out;
    if (o.server) {
        if (run_http(&o, env, &runs[0], labels[0], sizeof(labels[0])) != 0)
            goto out;
        items[0].run = &runs[0];
        items[0].label = labels[0];
        nruns = 1;
    } else {
        nruns = plan_runs(&o, env, runs, items, labels);
    }
    if (o.csv) {
        csv = open_out(o.csv, NULL);
        if (!csv) {
            fprintf(stderr, "billboard-sim: %s: %s\n", o.csv, strerror(errno));
            goto out;
        }
        bb_sim_report_csv_header(csv);
    }
    if (execute_runs(&o, runs, items, nruns, csv) != BB_OK)
        goto out;
    if (close_out(csv) != 0) {
        csv = NULL;
        fprintf(stderr, "billboard-sim: %s: %s\n", o.csv, strerror(errno));
        goto out;
    }
    csv = NULL;
    status = write_summary(&o, env, items, nruns);
out:
    close_out(csv);
    for (int i = 0; runs && i < nruns; i++)
        bb_sim_run_release(&runs[i]);
    bb_sim_env_free(env);
    free(runs);
    return status;
}
