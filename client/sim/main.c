/*
 * main.c — billboard-sim: simulated clinics against Private LSVI-UCB, with
 * the exact regret of every episode (issue 4). `billboard-sim --help`.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cblas.h>

#include "engine/config.h"
#include "env.h"
#include "http.h"
#include "report.h"
#include "run.h"
#include "sweep.h"

#define MAX_LIST 16
#define MAX_RUNS 256

static void usage(FILE *f)
{
    fprintf(f, "Usage: billboard-sim [options]\n"
               "Plays K episodes from N simulated clinics against Private LSVI-UCB and\n"
               "records the exact regret V*_1(x_1) - V^pi_1(x_1) of every episode.\n\n"
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
               "  (also every configuration flag of billboardd: --delta --gram-share\n"
               "   --failure-prob --update-ratio --max-updates --max-episodes --mechanism\n"
               "   --release-base --release-start --shift-bound --shift-scale --indefinite\n"
               "   --value-clip --update-rule --prior-policy --y-exponent --prior-value\n"
               "   --features\n"
               "   --plausible --plausible-floor;\n"
               "   billboardd --help lists them; --features defaults to the environment's\n"
               "   set: simplex if every feature row is >= 0 with sum <= 1, else ball)\n\n"
               "Sweep (instead of the runs above; docs/RESULTS.md):\n"
               "  --sweep FLAG=LIST    an axis: a configuration flag without dashes and its\n"
               "                       values, e.g. --sweep beta=1,2 --sweep mechanism=tree,grid;\n"
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
        char *end;
        errno = 0;
        double v = strtod(t, &end);
        if (errno || end == t || *end || isnan(v) || *n >= max)
            return BB_EINVAL;
        out[(*n)++] = v;
    }
    return *n > 0 ? BB_OK : BB_EINVAL;
}

static int parse_long(const char *s, long lo, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo)
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

/* The simulator's own flags; every configuration flag of config.h is
 * appended to the getopt table at run time (val >= O_CONFIG). */
enum {
    O_HELP = 'h',
    O_QUIET = 256,
    O_ENV,
    O_CSV,
    O_SUMMARY,
    O_PLOT,
    O_SERVER,
    O_TOKEN_FILE,
    O_CACERT,
    O_STATES,
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
    O_CONFIG = 1000,
};

static const struct option own[] = {
    {"help", no_argument, NULL, O_HELP},
    {"quiet", no_argument, NULL, O_QUIET},
    {"env", required_argument, NULL, O_ENV},
    {"csv", required_argument, NULL, O_CSV},
    {"summary", required_argument, NULL, O_SUMMARY},
    {"plot", required_argument, NULL, O_PLOT},
    {"server", required_argument, NULL, O_SERVER},
    {"token-file", required_argument, NULL, O_TOKEN_FILE},
    {"cacert", required_argument, NULL, O_CACERT},
    {"states", required_argument, NULL, O_STATES},
    {"env-seed", required_argument, NULL, O_ENV_SEED},
    {"episodes", required_argument, NULL, O_EPISODES},
    {"clinics", required_argument, NULL, O_CLINICS},
    {"seed", required_argument, NULL, O_SEED},
    {"every", required_argument, NULL, O_EVERY},
    {"alpha", required_argument, NULL, O_ALPHA},
    {"epsilon", required_argument, NULL, O_EPSILON},
    {"beta", required_argument, NULL, O_BETA},
    {"beta-sweep", required_argument, NULL, O_BETA_SWEEP},
    {"checkpoints", required_argument, NULL, O_CHECKPOINTS},
    {"algo", required_argument, NULL, O_ALGO},
    {"sweep", required_argument, NULL, O_SWEEP},
    {"env-seeds", required_argument, NULL, O_ENV_SEEDS},
    {"seeds", required_argument, NULL, O_SEEDS},
    {"jobs", required_argument, NULL, O_JOBS},
};

#define NOWN (sizeof(own) / sizeof(own[0]))
#define MAX_OPTS (NOWN + 64)

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
        if (parse_long(t, 0, &lo) != BB_OK || (dash && parse_long(dash + 1, lo, &hi) != BB_OK))
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

/* Whether argv's word is the option's full name (getopt_long also takes
 * abbreviations, which this command line never did). */
static int spelled(const char *word, const char *name)
{
    if (strcmp(word, "-h") == 0 && strcmp(name, "help") == 0)
        return 1;
    size_t n = strlen(name);
    return strncmp(word, "--", 2) == 0 && strncmp(word + 2, name, n) == 0 &&
           (word[2 + n] == '\0' || word[2 + n] == '=');
}

static int parse_args(int argc, char **argv, struct opts *o)
{
    char why[256];
    struct option table[MAX_OPTS + 1];
    size_t nt = 0;
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
    for (size_t i = 0; i < NOWN; i++)
        table[nt++] = own[i];
    for (size_t i = 0; bb_config_flag(i) && nt < MAX_OPTS; i++) {
        int dup = 0; /* --actions, --dim, --horizon size the environment here */
        for (size_t k = 0; k < NOWN; k++)
            dup |= strcmp(own[k].name, bb_config_flag(i)) == 0;
        if (!dup && strcmp(bb_config_flag(i), "actions") && strcmp(bb_config_flag(i), "dim") &&
            strcmp(bb_config_flag(i), "horizon"))
            table[nt++] = (struct option){bb_config_flag(i), required_argument, NULL,
                                          O_CONFIG + (int)i};
    }
    table[nt++] = (struct option){"actions", required_argument, NULL, 'A'};
    table[nt++] = (struct option){"dim", required_argument, NULL, 'd'};
    table[nt++] = (struct option){"horizon", required_argument, NULL, 'H'};
    table[nt] = (struct option){NULL, 0, NULL, 0};

    opterr = 0;
    optind = 1;
    int c, li = -1;
    while ((c = getopt_long(argc, argv, "+:h", table, &li)) != -1) {
        const char *word, *v = optarg;
        int rc = BB_OK;
        double tmp[MAX_LIST];
        int n;
        if (c == '?' || c == ':') {
            const char *w = argv[optind - 1];
            if (c == ':')
                fprintf(stderr, "billboard-sim: %s needs a value\n", w);
            else
                fprintf(stderr, "billboard-sim: unknown option %s (see --help)\n", w);
            return BB_EINVAL;
        }
        /* The word that named the option: one before its value, or the
         * one holding "--flag=value". */
        word = (v && optind >= 2 && argv[optind - 1] == v) ? argv[optind - 2] : argv[optind - 1];
        if (c != O_HELP && li >= 0 && !spelled(word, table[li].name)) {
            fprintf(stderr, "billboard-sim: unknown option %s (see --help)\n", word);
            return BB_EINVAL;
        }
        li = -1;
        switch (c) {
        case O_HELP:
            usage(stdout);
            return 1;
        case O_QUIET:
            o->quiet = 1;
            break;
        case O_ENV:
            o->env = v;
            break;
        case O_CSV:
            o->csv = v;
            break;
        case O_SUMMARY:
            o->summary = v;
            break;
        case O_PLOT:
            o->plot = v;
            break;
        case O_SERVER:
            o->server = v;
            break;
        case O_TOKEN_FILE:
            o->token_file = v;
            break;
        case O_CACERT:
            o->cacert = v;
            break;
        case O_STATES:
            rc = parse_long(v, 1, &o->S);
            break;
        case 'A':
            rc = parse_long(v, 1, &o->A);
            break;
        case 'd':
            rc = parse_long(v, 1, &o->d);
            break;
        case 'H':
            rc = parse_long(v, 1, &o->H);
            break;
        case O_ENV_SEED:
            rc = parse_long(v, 0, &o->env_seed);
            break;
        case O_EPISODES:
            rc = parse_long(v, 1, &o->K);
            break;
        case O_CLINICS:
            rc = parse_long(v, 1, &o->clinics);
            break;
        case O_SEED:
            rc = parse_long(v, 0, &o->seed);
            break;
        case O_EVERY:
            rc = parse_long(v, 1, &o->every);
            break;
        case O_JOBS:
            rc = parse_long(v, 1, &o->jobs);
            break;
        case O_ALPHA:
            rc = parse_list(v, &o->alpha, 1, &n);
            break;
        case O_EPSILON:
            rc = parse_list(v, o->eps, MAX_LIST, &o->neps);
            break;
        case O_BETA:
            rc = parse_list(v, o->betas, 1, &o->nbetas);
            break;
        case O_BETA_SWEEP:
            rc = parse_list(v, o->betas, MAX_LIST, &o->nbetas);
            break;
        case O_CHECKPOINTS:
            rc = parse_list(v, tmp, MAX_LIST, &o->ncheck);
            for (int k = 0; rc == BB_OK && k < o->ncheck; k++)
                o->checkpoints[k] = (long)tmp[k];
            break;
        case O_ENV_SEEDS:
            rc = parse_seeds(v, o->env_seeds, BB_SWEEP_MAX_SEEDS, &o->nenv_seeds);
            break;
        case O_SEEDS:
            rc = parse_seeds(v, o->seeds, BB_SWEEP_MAX_SEEDS, &o->nseeds);
            break;
        case O_SWEEP:
            if (o->naxes >= BB_SWEEP_MAX_AXES) {
                rc = BB_EINVAL;
                break;
            }
            o->axes[o->naxes++] = v;
            break;
        case O_ALGO: {
            char buf[256];
            snprintf(buf, sizeof(buf), "%s", v);
            memset(o->algo_on, 0, sizeof(o->algo_on));
            for (char *save = NULL, *t = strtok_r(buf, ",", &save); t && rc == BB_OK;
                 t = strtok_r(NULL, ",", &save)) {
                enum bb_sim_algo al;
                rc = bb_sim_algo_parse(t, &al);
                if (rc == BB_OK)
                    o->algo_on[al] = 1;
            }
            break;
        }
        default: {
            char flag[64];
            snprintf(flag, sizeof(flag), "--%s", bb_config_flag((size_t)(c - O_CONFIG)));
            rc = bb_config_option(&o->base, flag, v, why, sizeof(why));
            if (rc != BB_OK) {
                fprintf(stderr, "billboard-sim: %s\n", why);
                return rc;
            }
        }
        }
        if (rc != BB_OK) {
            fprintf(stderr, "billboard-sim: bad value '%s' for %s\n", v ? v : "", word);
            return rc;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "billboard-sim: unexpected argument %s (see --help)\n", argv[optind]);
        return BB_EINVAL;
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

int main(int argc, char **argv)
{
    struct opts o;
    struct bb_sim_env *env = NULL;
    struct bb_sim_run *runs = NULL;
    struct bb_sim_report_item items[MAX_RUNS];
    char labels[MAX_RUNS][64];
    char why[512] = "";
    int nruns = 0, status = 2;
    FILE *csv = NULL, *summary = NULL;

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
    }
    /* The plan: per beta, each algorithm; private and paper once per epsilon;
     * random once (it has no beta). */
    for (int b = 0; b < o.nbetas && !o.server; b++)
        for (int al = 0; al < BB_SIM_NALGO; al++) {
            if (!o.algo_on[al] || (al == BB_SIM_RANDOM && b > 0))
                continue;
            int per = al == BB_SIM_PRIVATE || al == BB_SIM_PAPER ? o.neps : 1;
            for (int e = 0; e < per && nruns < MAX_RUNS; e++) {
                struct bb_sim_run *r = &runs[nruns];
                r->env = env;
                r->algo = (enum bb_sim_algo)al;
                r->base = o.base;
                r->base.beta = al == BB_SIM_SOLO && !o.beta_given ? BB_SIM_SOLO_BETA : o.betas[b];
                r->episodes = o.K;
                r->clinics = (int)o.clinics;
                r->seed = (uint64_t)o.seed;
                if (per > 1 || al == BB_SIM_PRIVATE || al == BB_SIM_PAPER) {
                    r->base.rho = 0;
                    r->base.epsilon = o.eps[e];
                    if (isinf(o.eps[e]))
                        snprintf(labels[nruns], sizeof(labels[0]), "%s eps=inf",
                                 bb_sim_algo_name(r->algo));
                    else
                        snprintf(labels[nruns], sizeof(labels[0]), "%s eps=%g",
                                 bb_sim_algo_name(r->algo), o.eps[e]);
                } else if (al == BB_SIM_SOLO) {
                    snprintf(labels[nruns], sizeof(labels[0]), "solo N=%ld", o.clinics);
                } else {
                    snprintf(labels[nruns], sizeof(labels[0]), "%s", bb_sim_algo_name(r->algo));
                }
                if (o.nbetas > 1 && al != BB_SIM_RANDOM) {
                    size_t l = strlen(labels[nruns]);
                    snprintf(labels[nruns] + l, sizeof(labels[0]) - l, " beta=%g", o.betas[b]);
                }
                if (!o.quiet) {
                    r->progress = progress;
                    r->progress_arg = labels[nruns];
                }
                items[nruns].run = r;
                items[nruns].label = labels[nruns];
                nruns++;
            }
        }
    if (o.csv) {
        csv = open_out(o.csv, NULL);
        if (!csv) {
            fprintf(stderr, "billboard-sim: %s: %s\n", o.csv, strerror(errno));
            goto out;
        }
        bb_sim_report_csv_header(csv);
    }
    for (int i = 0; i < nruns; i++) {
        struct bb_sim_run *r = &runs[i];
        rc = o.server ? BB_OK : bb_sim_run_inprocess(r, why, sizeof(why));
        if (rc != BB_OK) {
            fprintf(stderr, "billboard-sim: %s: %s\n", items[i].label, why);
            goto out;
        }
        double cum = 0.0;
        for (long k = 0; k < r->episodes; k++)
            cum += r->regret[k];
        fprintf(stderr,
                "%s: K=%ld cumulative regret %.3f, switches %ld, updates %ld, "
                "%.0f episodes/s (%.2f s)\n",
                items[i].label, r->episodes, cum, r->switches[r->episodes - 1], r->updates,
                r->seconds > 0 ? (double)r->episodes / r->seconds : 0.0, r->seconds);
        if (o.server)
            fprintf(stderr,
                    "%s: the daemon reports %ld updates (GET /v1/privacy); "
                    "the clinics used %ld new versions\n",
                    items[i].label, r->updates, r->switches[r->episodes - 1]);
        if (r->notpd)
            fprintf(stderr, "%s: %ld updates refused (noisy Gram matrix not PD)\n", items[i].label,
                    r->notpd);
        if (csv)
            bb_sim_report_csv(csv, r, o.every > 0 ? o.every : (o.K / 1000 > 0 ? o.K / 1000 : 1));
    }
    if (close_out(csv) != 0) {
        csv = NULL;
        fprintf(stderr, "billboard-sim: %s: %s\n", o.csv, strerror(errno));
        goto out;
    }
    csv = NULL;
    summary = open_out(o.summary, stderr);
    if (!summary) {
        fprintf(stderr, "billboard-sim: %s: %s\n", o.summary, strerror(errno));
        goto out;
    }
    bb_sim_report_table(summary, items, nruns, o.checkpoints, o.ncheck);
    if (close_out(summary) != 0) {
        fprintf(stderr, "billboard-sim: %s: %s\n", o.summary, strerror(errno));
        goto out;
    }
    if (o.plot) {
        char title[160];
        snprintf(title, sizeof(title), "%s (S=%d A=%d d=%d H=%d)", env->name, env->S, env->A,
                 env->d, env->H);
        if (bb_sim_report_plot(o.plot, title, items, nruns, 1) != BB_OK) {
            fprintf(stderr, "billboard-sim: gnuplot failed for %s\n", o.plot);
            goto out;
        }
    }
    status = 0;
out:
    close_out(csv);
    for (int i = 0; runs && i < nruns; i++)
        bb_sim_run_release(&runs[i]);
    bb_sim_env_free(env);
    free(runs);
    return status;
}
