/*
 * cmd_episode.c — the clinic's working commands: `billboard recommend`,
 * `billboard episode start|step|finish|status|abort`, `billboard submit`.
 *
 * Episodes are recorded in the local state file step by step, so an
 * operator's episode survives a crash of anything on the clinic's side; a
 * finished episode is sent with the idempotency key it got at `start`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char recommend_help[] =
    "usage: billboard recommend --step H --features FILE [--version V] [--remote]\n"
    "                           [--id N | --episode-key KEY] [--json]\n"
    "\n"
    "Prints the Q-value of every action and the recommended action (the greedy\n"
    "one; a random one while the billboard holds no data yet) at step H\n"
    "(1-based) for the state whose features are in FILE: a JSON matrix\n"
    "[[d numbers] x A], row a = phi(x, a) (\"-\" reads stdin). Computed locally\n"
    "from the current billboard (or version V) with the same policy function\n"
    "the daemon uses; --remote asks the daemon instead (POST /v1/recommend,\n"
    "needs the clinic token). The last billboard fetched is kept in the state\n"
    "file: it is asked for with If-None-Match, and used (with a warning) while\n"
    "the daemon is unreachable.\n"
    "While the billboard holds no data, the random action belongs to an\n"
    "episode: the newest open one in the state file (or --id N), or the one\n"
    "named by --episode-key KEY (with --remote, only this), whose key seeds\n"
    "random policies correlated from step to step; without an episode every\n"
    "ask draws anew.\n"
    "Exit codes: see billboard --help.\n";

static int pick_episode(struct bb_client *c, const char *id, int64_t *out);

/* 1 to BB_CLIENT_KEY_MAX visible ASCII characters, as the daemon wants. */
static int key_ok(const char *k)
{
    size_t n = strlen(k);
    for (size_t i = 0; i < n; i++)
        if (k[i] < 0x21 || k[i] > 0x7e)
            return 0;
    return n >= 1 && n <= BB_CLIENT_KEY_MAX;
}

/* What `recommend` was asked. */
struct recommend_args {
    long h, v;       /* --step, --version (-1: the current billboard) */
    const char *file; /* --features */
    const char *id;  /* --id */
    const char *key; /* --episode-key, or the episode's own key */
    int remote;      /* --remote */
};

/* Checks recommend's options into *ra. EXIT_OKAY or EXIT_USAGE (said). */
static int recommend_check(const char *step, const char *version, struct recommend_args *ra)
{
    if (!step || cli_long(step, &ra->h) != 0 || ra->h < 1)
        return cli_usage_error("recommend needs --step H (1-based)");
    if (!ra->file)
        return cli_usage_error("recommend needs --features FILE");
    if (version && (cli_long(version, &ra->v) != 0 || ra->v < 0))
        return cli_usage_error("--version needs a non-negative integer");
    if (ra->id && ra->key)
        return cli_usage_error("give --id or --episode-key, not both");
    if (ra->remote && ra->id)
        return cli_usage_error("--remote has no state file: name the episode with --episode-key");
    if (ra->key && !key_ok(ra->key))
        return cli_usage_error("--episode-key needs 1 to %d visible ASCII characters",
                               BB_CLIENT_KEY_MAX);
    return EXIT_OKAY;
}

/* The episode this step belongs to, if any, when no key was given: its key
 * into buf (BB_CLIENT_KEY_MAX + 1 bytes) and ra->key. An exit code. */
static int recommend_episode(struct bb_client *c, struct recommend_args *ra, char *buf)
{
    int64_t eid = 0;
    struct bb_episode_buf open = {0};
    if (ra->key || ra->remote)
        return EXIT_OKAY;
    if (ra->id) {
        int rc = pick_episode(c, ra->id, &eid);
        if (rc != EXIT_OKAY)
            return rc;
    } else if (bb_client_episode_current(c, &eid, NULL) != BB_OK) {
        return EXIT_OKAY;
    }
    if (eid <= 0)
        return EXIT_OKAY;
    int err = bb_client_episode_load(c, eid, &open, buf, NULL);
    bb_episode_buf_release(&open);
    if (err != BB_OK)
        return cli_fail(c, err, "state file");
    ra->key = buf;
    return EXIT_OKAY;
}

/* The billboard the answer is computed from: version ra->v into *past, or
 * the current one. *b points at it. An exit code. */
static int recommend_billboard(struct bb_client *c, const struct recommend_args *ra,
                               struct bb_billboard *past, const struct bb_billboard **b)
{
    if (ra->v < 0)
        return cli_billboard(c, b);
    int err = bb_client_get_billboard_version(c, (uint64_t)ra->v, past);
    *b = past;
    return err == BB_OK ? EXIT_OKAY : cli_fail(c, err, "billboard");
}

/* One recommendation, as computed. */
struct recommendation {
    const double *q; /* A Q-values */
    int action;
    uint64_t used;   /* the billboard version it came from */
    int uniform;     /* the action was drawn uniformly (version 0) */
    int among;       /* the plausible set's size; 1: greedy; 0: not known here or sampled */
    int sampled;     /* the action is the best under a sample of the noise (policy.c) */
    const unsigned char *set;
};

static void print_recommendation_json(const struct recommend_args *ra, int A,
                                      const struct recommendation *r)
{
    printf("{\"h\": %ld, \"billboard_version\": %llu, \"uniform\": %s, ", ra->h,
           (unsigned long long)r->used, r->uniform ? "true" : "false");
    json_t *jk = ra->key ? json_string(ra->key) : json_null();
    char *k = jk ? json_dumps(jk, JSON_ENCODE_ANY) : NULL;
    printf("\"episode_key\": %s, ", k ? k : "null");
    free(k);
    json_decref(jk);
    printf("\"action\": %d, \"plausible\": %d, \"sampled\": %s, \"q\": [", r->action, r->among,
           r->sampled ? "true" : "false");
    for (int a = 0; a < A; a++)
        printf("%s%.17g", a ? ", " : "", r->q[a]);
    printf("]}\n");
}

static void print_recommendation(const struct recommend_args *ra, int A,
                                 const struct recommendation *r)
{
    const char *key = ra->key;
    printf("billboard version %llu, step %ld%s\n", (unsigned long long)r->used, ra->h,
           ra->remote ? " (computed by the daemon)" : "");
    printf("  %6s  %12s\n", "action", "Q");
    for (int a = 0; a < A; a++)
        printf("%c %6d  %12.6g\n",
               a == r->action ? '*' : r->among > 1 && r->set[a] ? '+' : ' ', a, r->q[a]);
    printf("recommended action: %d%s\n", r->action,
           r->uniform ? (key ? " (this episode's random policy: the billboard holds no data yet)"
                             : " (drawn uniformly at random: the billboard holds no data yet)")
           : r->sampled
               ? (key ? " (this episode's pick: the best action under its sample of the noise"
                        " the billboard's weights carry)"
                      : " (the best action under a fresh sample of the noise the billboard's"
                        " weights carry)")
           : r->among > 1
               ? (key ? " (this episode's pick among the actions marked +, whose Q-values"
                        " the noise cannot tell from the best one's)"
                      : " (drawn among the actions marked +, whose Q-values the noise"
                        " cannot tell from the best one's)")
               : "");
}

/* Computes the answer for features f on billboard b into r (q: A doubles).
 * An exit code. */
static int recommend_compute(struct bb_client *c, const struct recommend_args *ra,
                             const struct bb_billboard *b, const double *f, double *q,
                             struct recommendation *r)
{
    int err;
    if (ra->remote)
        err = bb_client_recommend_remote_episode(c, ra->key, (int)ra->h, f, b->A, b->d,
                                                 ra->v >= 0 ? (uint64_t)ra->v : UINT64_MAX, q,
                                                 &r->action, &r->used);
    else if (ra->v >= 0)
        err = bb_billboard_act_keyed(b, (int)ra->h, f, ra->key, q, &r->action);
    else
        err = bb_client_recommend_local_episode(c, ra->key, (int)ra->h, f, q, &r->action);
    if (!ra->remote)
        r->used = b->version;
    if (err != BB_OK)
        return cli_fail(ra->remote ? c : NULL, err, "recommend");
    r->q = q;
    /* The billboard the answer came from says whether the action was drawn
     * uniformly (billboard.h); a remote answer from another version: not
     * known here, and only version 0 can be uniform. */
    r->uniform = r->used == b->version && b->uniform;
    return EXIT_OKAY;
}

int cmd_recommend(struct cli *cli, int argc, char **argv)
{
    const char *step = NULL, *version = NULL, *pos[1];
    struct recommend_args ra = {.v = -1};
    const struct cli_opt opts[] = {{"--step", &step, NULL},
                                   {"--features", &ra.file, NULL},
                                   {"--version", &version, NULL},
                                   {"--remote", NULL, &ra.remote},
                                   {"--id", &ra.id, NULL},
                                   {"--episode-key", &ra.key, NULL},
                                   {NULL, NULL, NULL}};
    char episode_key[BB_CLIENT_KEY_MAX + 1] = "";
    struct bb_client *c = NULL;
    struct bb_billboard past = {0};
    const struct bb_billboard *b;
    struct recommendation r = {.action = -1};
    double *f = NULL, *q = NULL;
    unsigned char *set = NULL; /* the plausible set of the answer (policy.c) */
    int npos;
    int rc = cli_parse(cli, argc, argv, opts, pos, 0, &npos);
    if (rc != EXIT_OKAY)
        goto out;
    if (cli->help) {
        fputs(recommend_help, stdout);
        goto out;
    }
    if ((rc = recommend_check(step, version, &ra)) != EXIT_OKAY ||
        /* The state file, if there is one, caches the billboard (ETag, outage). */
        (rc = cli_client(cli, !ra.remote, &c)) != EXIT_OKAY ||
        (rc = recommend_episode(c, &ra, episode_key)) != EXIT_OKAY ||
        (rc = recommend_billboard(c, &ra, &past, &b)) != EXIT_OKAY)
        goto out;
    if (ra.h > b->H) {
        rc = cli_usage_error("--step %ld is beyond H = %d", ra.h, b->H);
        goto out;
    }
    rc = cli_read_features(ra.file, b->A, b->d, &f);
    if (rc != EXIT_OKAY)
        goto out;
    /* A row outside the declared set is refused here, as the daemon would
     * refuse the episode at submit. */
    int ferr = bb_client_check_features(c, f, b->A, b->d);
    if (ferr != BB_OK) {
        rc = cli_fail(c, ferr, "recommend");
        goto out;
    }
    if (!(q = calloc((size_t)b->A, sizeof(double)))) {
        rc = cli_fail(NULL, BB_ENOMEM, "recommend");
        goto out;
    }
    if ((rc = recommend_compute(c, &ra, b, f, q, &r)) != EXIT_OKAY)
        goto out;
    /* How many actions the draw was among (the plausible set, PRIVACY.md
     * §3.4): 1 when the action is the greedy one; 0 when not known here
     * (a remote answer from another version). */
    r.sampled = r.used == b->version && !r.uniform && b->sample && b->sigma_y[ra.h - 1] > 0;
    if (r.used == b->version && !r.uniform && !r.sampled)
        set = malloc((size_t)b->A);
    if (set && (r.among = bb_billboard_plausible(b, (int)ra.h, f, q, set)) < 0)
        r.among = 0;
    r.set = set;
    if (cli->json)
        print_recommendation_json(&ra, b->A, &r);
    else
        print_recommendation(&ra, b->A, &r);
out:
    free(set);
    free(f);
    free(q);
    bb_billboard_release(&past);
    bb_client_free(c);
    return rc;
}

/* --id N, or the newest open episode. */
static int pick_episode(struct bb_client *c, const char *id, int64_t *out)
{
    long v;
    if (id) {
        if (cli_long(id, &v) != 0 || v < 1)
            return cli_usage_error("--id needs a positive integer");
        *out = v;
        return EXIT_OKAY;
    }
    int err = bb_client_episode_current(c, out, NULL);
    if (err == BB_ENOTFOUND) {
        fprintf(stderr, "billboard: no open episode (billboard episode start)\n");
        return EXIT_LOCAL;
    }
    return err == BB_OK ? EXIT_OKAY : cli_fail(c, err, "state file");
}

/* Sends every unsent episode with a progress bar; prints the outcome. */
static int send_unsent(struct cli *cli, struct bb_client *c)
{
    size_t sent = 0;
    long unsent = 0;
    int err = bb_client_flush(c, cli_progress, NULL, &sent);
    int rc = err == BB_OK ? EXIT_OKAY : cli_fail(c, err, "submit");
    if (bb_client_pending(c, NULL, &unsent) != BB_OK)
        unsent = -1;
    if (cli->json)
        printf("{\"sent\": %zu, \"unsent\": %ld}\n", sent, unsent);
    else
        printf("sent %zu episode(s); %ld still unsent\n", sent, unsent);
    return rc;
}

static const char episode_help[] =
    "usage: billboard episode start [--json]\n"
    "       billboard episode step --features FILE --action I --reward R [--id N]\n"
    "       billboard episode finish [--id N] [--no-send]\n"
    "       billboard episode status [--json]\n"
    "       billboard episode abort [--id N]\n"
    "       billboard episode list [--json]\n"
    "       billboard episode prune\n"
    "\n"
    "Records one patient's episode in the local state file (--state), one step\n"
    "at a time, so nothing is lost if the clinic's machine crashes.\n"
    "  start   fetches the billboard (or, with a warning, the one kept in the\n"
    "          state file if the daemon is unreachable), begins an episode with\n"
    "          its sizes and version and an idempotency key; prints its local id\n"
    "  step    appends the next step: the state's features (JSON [[d] x A]), the\n"
    "          action taken and the reward observed in [0, 1]\n"
    "  finish  closes the episode after H steps and sends every unsent episode\n"
    "          (POST /v1/episodes, clinic token; --no-send only queues it)\n"
    "  status  the open episode and the number of unsent ones\n"
    "  abort   drops the open episode\n"
    "  list    every episode in the state file: state (open, unsent, sent,\n"
    "          rejected), steps, the daemon's index k, why it was rejected\n"
    "  prune   deletes the episodes the daemon has acknowledged from the state\n"
    "          file (their features are patients' data the daemon now holds)\n"
    "--id picks an episode; the default is the newest open one.\n"
    "Exit codes: see billboard --help.\n";

/* The state store's episodes as rows: the columns of `episode list`. */
static json_t *episode_rows(const struct bb_client_episode_list *l)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < l->n; i++) {
        const struct bb_client_episode_row *e = &l->rows[i];
        json_t *row = json_pack(
            "{s:I, s:s, s:i, s:i, s:I, s:o, s:s, s:o}", "id", (json_int_t)e->id, "state", e->state,
            "steps", e->steps, "H", e->H, "billboard_version", (json_int_t)e->billboard_version,
            "episode", e->episode < 0 ? json_null() : json_integer(e->episode), "created",
            e->created, "reason", e->reason ? json_string(e->reason) : json_null());
        if (!row || json_array_append_new(a, row) != 0) {
            json_decref(a);
            a = NULL;
        }
    }
    return a;
}

/* What `episode` was given, for its subcommands. */
struct episode_args {
    const char *file; /* step: --features */
    long action;      /* step: --action */
    double reward;    /* step: --reward */
    int nosend;       /* finish: --no-send */
    int64_t id;       /* abort, step, finish: --id N or the newest open episode */
};

/* `episode list`. Each subcommand returns an exit code. */
static int episode_list(struct cli *cli, struct bb_client *c, const struct episode_args *ea)
{
    struct bb_client_episode_list l = {0};
    json_t *rows = NULL;
    (void)ea;
    int err = bb_client_episodes(c, &l);
    if (err == BB_OK && !(rows = episode_rows(&l)))
        err = BB_ENOMEM;
    bb_client_episode_list_release(&l);
    if (err != BB_OK)
        return cli_fail(c, err, "state file");
    if (json_array_size(rows) == 0 && !cli->json)
        printf("no episodes in the state file\n");
    else
        cli_print_rows(cli, rows);
    json_decref(rows);
    return EXIT_OKAY;
}

static int episode_start(struct cli *cli, struct bb_client *c, const struct episode_args *ea)
{
    const struct bb_billboard *b;
    int64_t eid = 0;
    (void)ea;
    int rc = cli_billboard(c, &b);
    if (rc != EXIT_OKAY)
        return rc;
    int err = bb_client_episode_begin(c, b->H, b->A, b->d, b->version, &eid);
    if (err != BB_OK)
        return cli_fail(c, err, "state file");
    /* Keep the declared feature set, so that each step is checked against
     * it even offline; unreachable now: the kept one stays. */
    struct bb_config_info cfg = {0};
    if (bb_client_config(c, &cfg) == BB_OK)
        bb_config_info_release(&cfg);
    if (cli->json)
        printf("{\"id\": %lld, \"H\": %d, \"A\": %d, \"d\": %d, \"billboard_version\": "
               "%llu}\n",
               (long long)eid, b->H, b->A, b->d, (unsigned long long)b->version);
    else
        printf("episode %lld started: H=%d A=%d d=%d, billboard version %llu\n", (long long)eid,
               b->H, b->A, b->d, (unsigned long long)b->version);
    return EXIT_OKAY;
}

static int episode_prune(struct cli *cli, struct bb_client *c, const struct episode_args *ea)
{
    long pruned = 0;
    (void)ea;
    int err = bb_client_prune(c, &pruned);
    if (err != BB_OK)
        return cli_fail(c, err, "state file");
    if (cli->json)
        printf("{\"pruned\": %ld}\n", pruned);
    else
        printf("%ld sent episode(s) deleted from the state file\n", pruned);
    return EXIT_OKAY;
}

static int episode_status(struct cli *cli, struct bb_client *c, const struct episode_args *ea)
{
    struct bb_episode_buf e = {0};
    long open = 0, unsent = 0;
    int64_t eid = 0;
    int steps = 0;
    (void)ea;
    int err = bb_client_pending(c, &open, &unsent);
    if (err != BB_OK)
        return cli_fail(c, err, "state file");
    err = bb_client_episode_current(c, &eid, &steps);
    if (err == BB_OK)
        err = bb_client_episode_load(c, eid, &e, NULL, NULL);
    if (err != BB_OK && err != BB_ENOTFOUND) {
        bb_episode_buf_release(&e);
        return cli_fail(c, err, "state file");
    }
    if (cli->json)
        printf("{\"open\": %ld, \"unsent\": %ld, \"current\": %lld, \"steps\": %d, \"H\": "
               "%d}\n",
               open, unsent, err == BB_OK ? (long long)eid : 0LL, steps, e.H);
    else if (err == BB_OK)
        printf("open episode %lld: %d of %d steps\nunsent episodes: %ld\n", (long long)eid,
               steps, e.H, unsent);
    else
        printf("no open episode\nunsent episodes: %ld\n", unsent);
    bb_episode_buf_release(&e);
    return EXIT_OKAY;
}

static int episode_abort(struct cli *cli, struct bb_client *c, const struct episode_args *ea)
{
    (void)cli;
    int err = bb_client_episode_abort(c, ea->id);
    if (err != BB_OK)
        return cli_fail(c, err, "abort");
    printf("episode %lld dropped\n", (long long)ea->id);
    return EXIT_OKAY;
}

static int episode_step(struct cli *cli, struct bb_client *c, const struct episode_args *ea)
{
    struct bb_episode_buf e = {0};
    double *f = NULL;
    int steps = 0;
    int rc = EXIT_OKAY, err = bb_client_episode_load(c, ea->id, &e, NULL, &steps);
    if (err != BB_OK) {
        rc = cli_fail(c, err, "episode");
        goto out;
    }
    rc = cli_read_features(ea->file, e.A, e.d, &f);
    if (rc != EXIT_OKAY)
        goto out;
    err = bb_client_episode_step(c, ea->id, f, (int)ea->action, ea->reward);
    if (err != BB_OK) {
        rc = cli_fail(c, err, "step");
        goto out;
    }
    if (cli->json)
        printf("{\"id\": %lld, \"steps\": %d, \"H\": %d}\n", (long long)ea->id, steps + 1, e.H);
    else
        printf("episode %lld: step %d of %d recorded\n", (long long)ea->id, steps + 1, e.H);
out:
    free(f);
    bb_episode_buf_release(&e);
    return rc;
}

static int episode_finish(struct cli *cli, struct bb_client *c, const struct episode_args *ea)
{
    int err = bb_client_episode_finish(c, ea->id);
    if (err != BB_OK)
        return cli_fail(c, err, "finish");
    if (!cli->json)
        printf("episode %lld finished\n", (long long)ea->id);
    if (ea->nosend) {
        if (cli->json)
            printf("{\"id\": %lld, \"sent\": 0}\n", (long long)ea->id);
        return EXIT_OKAY;
    }
    return send_unsent(cli, c);
}

/* The subcommands of `episode`: one line each. needs_id: it acts on one
 * episode, --id N or the newest open one. */
static const struct {
    const char *name;
    int (*run)(struct cli *cli, struct bb_client *c, const struct episode_args *ea);
    int needs_id;
} episode_cmds[] = {
    {"start", episode_start, 0}, {"step", episode_step, 1},   {"finish", episode_finish, 1},
    {"status", episode_status, 0}, {"abort", episode_abort, 1}, {"list", episode_list, 0},
    {"prune", episode_prune, 0},
};

/* step's values, checked before anything is opened. */
static int step_args(const char *file, const char *act, const char *rew, struct episode_args *ea)
{
    if (!file || !act || !rew)
        return cli_usage_error("episode step needs --features, --action and --reward");
    if (cli_long(act, &ea->action) != 0 || ea->action < 0 || ea->action > 1000000)
        return cli_usage_error("--action needs an action index");
    if (cli_double(rew, &ea->reward) != 0)
        return cli_usage_error("--reward needs a number");
    ea->file = file;
    return EXIT_OKAY;
}

int cmd_episode(struct cli *cli, const char *sub, int argc, char **argv)
{
    const char *file = NULL, *act = NULL, *rew = NULL, *id = NULL, *pos[1];
    struct episode_args ea = {0};
    const struct cli_opt opts[] = {{"--features", &file, NULL},    {"--action", &act, NULL},
                                   {"--reward", &rew, NULL},       {"--id", &id, NULL},
                                   {"--no-send", NULL, &ea.nosend}, {NULL, NULL, NULL}};
    struct bb_client *c = NULL;
    size_t k = 0;
    int npos;
    int rc = cli_parse(cli, argc, argv, opts, pos, 0, &npos);
    if (rc != EXIT_OKAY)
        return rc;
    if (cli->help || !sub) {
        fputs(episode_help, cli->help ? stdout : stderr);
        return cli->help ? EXIT_OKAY : EXIT_USAGE;
    }
    while (k < sizeof(episode_cmds) / sizeof(episode_cmds[0]) && strcmp(episode_cmds[k].name, sub))
        k++;
    if (k == sizeof(episode_cmds) / sizeof(episode_cmds[0]))
        return cli_usage_error("unknown episode command '%s'", sub);
    if (episode_cmds[k].run == episode_step && (rc = step_args(file, act, rew, &ea)) != EXIT_OKAY)
        return rc;
    rc = cli_client(cli, 1, &c);
    if (rc == EXIT_OKAY && episode_cmds[k].needs_id)
        rc = pick_episode(c, id, &ea.id);
    if (rc == EXIT_OKAY)
        rc = episode_cmds[k].run(cli, c, &ea);
    bb_client_free(c);
    return rc;
}

static const char submit_help[] =
    "usage: billboard submit [FILE...] [--key KEY] [--json]\n"
    "\n"
    "Queues each FILE (an episode in the wire format of POST /v1/episodes:\n"
    "{\"billboard_version\": v, \"steps\": [{\"features\", \"action\", \"reward\"} x H]})\n"
    "in the local state file with a fresh idempotency key (or KEY, one file\n"
    "only), then sends every unsent episode, oldest first, with a progress bar\n"
    "on a terminal. Without FILE it only sends what is queued (e.g. after a\n"
    "crash or a network outage). Network errors, 5xx and 429 are retried with\n"
    "backoff (at least Retry-After) under the same key, so a resend never\n"
    "counts an episode twice. An episode the daemon rejects (any other 4xx) is\n"
    "kept in the state file, marked.\n"
    "Exit codes: see billboard --help.\n";

int cmd_submit(struct cli *cli, int argc, char **argv)
{
    enum { MAXFILES = 4096 };
    const char *key = NULL;
    const char **pos = NULL;
    const struct cli_opt opts[] = {{"--key", &key, NULL}, {NULL, NULL, NULL}};
    struct bb_client *c = NULL;
    char *buf = NULL;
    int npos = 0, H, A, d, err;
    int rc = EXIT_LOCAL;
    pos = malloc(sizeof(*pos) * MAXFILES);
    if (!pos)
        goto out;
    rc = cli_parse(cli, argc, argv, opts, pos, MAXFILES, &npos);
    if (rc != EXIT_OKAY)
        goto out;
    if (cli->help) {
        fputs(submit_help, stdout);
        goto out;
    }
    if (key && npos != 1) {
        rc = cli_usage_error("--key goes with exactly one FILE");
        goto out;
    }
    rc = cli_client(cli, 1, &c);
    if (rc != EXIT_OKAY)
        goto out;
    if (npos > 0) {
        err = bb_client_sizes(c, &H, &A, &d);
        if (err != BB_OK) {
            rc = cli_fail(c, err, "config");
            goto out;
        }
    }
    for (int i = 0; i < npos; i++) {
        struct bb_episode_buf e;
        char field[128] = "", why[256] = "";
        size_t len = 0;
        buf = cli_slurp(pos[i], &len);
        if (!buf) {
            fprintf(stderr, "billboard: cannot read %s\n", pos[i]);
            rc = EXIT_LOCAL;
            goto out;
        }
        err = bb_episode_from_json(buf, len, H, A, d, &e, field, sizeof(field), why, sizeof(why));
        free(buf);
        buf = NULL;
        if (err != BB_OK) {
            /* Checked here like the daemon would: reject, never clip. */
            fprintf(stderr, "billboard: %s: not a valid episode for H=%d A=%d d=%d: %s%s%s\n",
                    pos[i], H, A, d, field, field[0] ? ": " : "", why);
            bb_episode_buf_release(&e);
            rc = EXIT_LOCAL;
            goto out;
        }
        err = bb_client_enqueue(c, &e, key, NULL);
        bb_episode_buf_release(&e);
        if (err != BB_OK) {
            rc = cli_fail(c, err, pos[i]);
            goto out;
        }
    }
    rc = send_unsent(cli, c);
out:
    free(buf);
    free(pos);
    bb_client_free(c);
    return rc;
}
