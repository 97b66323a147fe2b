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

int cmd_recommend(struct cli *cli, int argc, char **argv)
{
    const char *step = NULL, *file = NULL, *version = NULL, *id = NULL, *key = NULL, *pos[1];
    int remote = 0, npos, action = -1, err;
    const struct cli_opt opts[] = {{"--step", &step, NULL},
                                   {"--features", &file, NULL},
                                   {"--version", &version, NULL},
                                   {"--remote", NULL, &remote},
                                   {"--id", &id, NULL},
                                   {"--episode-key", &key, NULL},
                                   {NULL, NULL, NULL}};
    char episode_key[BB_CLIENT_KEY_MAX + 1] = "";
    struct bb_client *c = NULL;
    struct bb_billboard past = {0};
    const struct bb_billboard *b;
    double *f = NULL, *q = NULL;
    unsigned char *set = NULL; /* the plausible set of the answer (policy.c) */
    uint64_t used = 0;
    long h = 0, v = -1;
    int rc = cli_parse(cli, argc, argv, opts, pos, 0, &npos);
    if (rc != EXIT_OKAY)
        goto out;
    if (cli->help) {
        fputs(recommend_help, stdout);
        goto out;
    }
    if (!step || cli_long(step, &h) != 0 || h < 1) {
        rc = cli_usage_error("recommend needs --step H (1-based)");
        goto out;
    }
    if (!file) {
        rc = cli_usage_error("recommend needs --features FILE");
        goto out;
    }
    if (version && (cli_long(version, &v) != 0 || v < 0)) {
        rc = cli_usage_error("--version needs a non-negative integer");
        goto out;
    }
    if (id && key) {
        rc = cli_usage_error("give --id or --episode-key, not both");
        goto out;
    }
    if (remote && id) {
        rc = cli_usage_error("--remote has no state file: name the episode with --episode-key");
        goto out;
    }
    if (key && !key_ok(key)) {
        rc = cli_usage_error("--episode-key needs 1 to %d visible ASCII characters",
                             BB_CLIENT_KEY_MAX);
        goto out;
    }
    /* The state file, if there is one, caches the billboard (ETag, outage). */
    rc = cli_client(cli, !remote, &c);
    if (rc != EXIT_OKAY)
        goto out;
    if (!key && !remote) { /* the episode this step belongs to, if any */
        int64_t eid = 0;
        struct bb_episode_buf open = {0};
        if (id) {
            if ((rc = pick_episode(c, id, &eid)) != EXIT_OKAY)
                goto out;
        } else if (bb_client_episode_current(c, &eid, NULL) != BB_OK) {
            eid = 0;
        }
        if (eid > 0) {
            err = bb_client_episode_load(c, eid, &open, episode_key, NULL);
            bb_episode_buf_release(&open);
            if (err != BB_OK) {
                rc = cli_fail(c, err, "state file");
                goto out;
            }
            key = episode_key;
        }
    }
    /* The sizes come from the billboard the answer is computed from. */
    if (v >= 0) {
        err = bb_client_get_billboard_version(c, (uint64_t)v, &past);
        b = &past;
        if (err != BB_OK) {
            rc = cli_fail(c, err, "billboard version");
            goto out;
        }
    } else {
        rc = cli_billboard(c, &b);
        if (rc != EXIT_OKAY)
            goto out;
    }
    if (h > b->H) {
        rc = cli_usage_error("--step %ld is beyond H = %d", h, b->H);
        goto out;
    }
    rc = cli_read_features(file, b->A, b->d, &f);
    if (rc != EXIT_OKAY)
        goto out;
    /* A row outside the declared set is refused here, as the daemon would
     * refuse the episode at submit. */
    err = bb_client_check_features(c, f, b->A, b->d);
    if (err != BB_OK) {
        rc = cli_fail(c, err, "recommend");
        goto out;
    }
    q = calloc((size_t)b->A, sizeof(double));
    if (!q) {
        rc = cli_fail(NULL, BB_ENOMEM, "recommend");
        goto out;
    }
    if (remote) {
        err = bb_client_recommend_remote_episode(c, key, (int)h, f, b->A, b->d,
                                                 v >= 0 ? (uint64_t)v : UINT64_MAX, q, &action,
                                                 &used);
    } else if (v >= 0) {
        err = bb_billboard_act_keyed(b, (int)h, f, key, q, &action);
    } else {
        err = bb_client_recommend_local_episode(c, key, (int)h, f, q, &action);
    }
    if (!remote)
        used = b->version;
    if (err != BB_OK) {
        rc = cli_fail(remote ? c : NULL, err, "recommend");
        goto out;
    }
    /* The billboard the answer came from says whether the action was drawn
     * uniformly (billboard.h); a remote answer from another version: not known
     * here, and only version 0 can be uniform. */
    int uniform = used == b->version && b->uniform;
    /* How many actions the draw was among (the plausible set, PRIVACY.md
     * §3.4): 1 when the action is the greedy one; 0 when not known here
     * (a remote answer from another version). */
    int among = 0;
    if (used == b->version && !uniform)
        set = malloc((size_t)b->A);
    if (set && (among = bb_billboard_plausible(b, (int)h, f, q, set)) < 0)
        among = 0;
    if (cli->json) {
        printf("{\"h\": %ld, \"billboard_version\": %llu, \"uniform\": %s, ", h,
               (unsigned long long)used, uniform ? "true" : "false");
        json_t *jk = key ? json_string(key) : json_null();
        char *k = jk ? json_dumps(jk, JSON_ENCODE_ANY) : NULL;
        printf("\"episode_key\": %s, ", k ? k : "null");
        free(k);
        json_decref(jk);
        printf("\"action\": %d, \"plausible\": %d, \"q\": [", action, among);
        for (int a = 0; a < b->A; a++)
            printf("%s%.17g", a ? ", " : "", q[a]);
        printf("]}\n");
        goto out;
    }
    printf("billboard version %llu, step %ld%s\n", (unsigned long long)used, h,
           remote ? " (computed by the daemon)" : "");
    printf("  %6s  %12s\n", "action", "Q");
    for (int a = 0; a < b->A; a++)
        printf("%c %6d  %12.6g\n", a == action ? '*' : among > 1 && set[a] ? '+' : ' ', a, q[a]);
    printf("recommended action: %d%s\n", action,
           uniform ? (key ? " (this episode's random policy: the billboard holds no data yet)"
                          : " (drawn uniformly at random: the billboard holds no data yet)")
           : among > 1 ? (key ? " (this episode's pick among the actions marked +, whose Q-values"
                                " the noise cannot tell from the best one's)"
                              : " (drawn among the actions marked +, whose Q-values the noise"
                                " cannot tell from the best one's)")
                       : "");
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

int cmd_episode(struct cli *cli, const char *sub, int argc, char **argv)
{
    const char *file = NULL, *act = NULL, *rew = NULL, *id = NULL, *pos[1];
    int nosend = 0, npos, err;
    const struct cli_opt opts[] = {{"--features", &file, NULL},  {"--action", &act, NULL},
                                   {"--reward", &rew, NULL},     {"--id", &id, NULL},
                                   {"--no-send", NULL, &nosend}, {NULL, NULL, NULL}};
    struct bb_client *c = NULL;
    struct bb_episode_buf e = {0};
    double *f = NULL;
    int64_t eid = 0;
    int rc = cli_parse(cli, argc, argv, opts, pos, 0, &npos);
    if (rc != EXIT_OKAY)
        goto out;
    if (cli->help || !sub) {
        fputs(episode_help, cli->help ? stdout : stderr);
        rc = cli->help ? EXIT_OKAY : EXIT_USAGE;
        goto out;
    }
    if (strcmp(sub, "start") && strcmp(sub, "step") && strcmp(sub, "finish") &&
        strcmp(sub, "status") && strcmp(sub, "abort") && strcmp(sub, "prune") &&
        strcmp(sub, "list")) {
        rc = cli_usage_error("unknown episode command '%s'", sub);
        goto out;
    }
    long action = 0;
    double reward = 0;
    if (strcmp(sub, "step") == 0) {
        if (!file || !act || !rew) {
            rc = cli_usage_error("episode step needs --features, --action and --reward");
            goto out;
        }
        if (cli_long(act, &action) != 0 || action < 0 || action > 1000000) {
            rc = cli_usage_error("--action needs an action index");
            goto out;
        }
        if (cli_double(rew, &reward) != 0) {
            rc = cli_usage_error("--reward needs a number");
            goto out;
        }
    }
    rc = cli_client(cli, 1, &c);
    if (rc != EXIT_OKAY)
        goto out;

    if (strcmp(sub, "start") == 0) {
        const struct bb_billboard *b;
        rc = cli_billboard(c, &b);
        if (rc != EXIT_OKAY)
            goto out;
        err = bb_client_episode_begin(c, b->H, b->A, b->d, b->version, &eid);
        if (err != BB_OK) {
            rc = cli_fail(c, err, "state file");
            goto out;
        }
        /* Keep the declared feature set, so that each step is checked
         * against it even offline; unreachable now: the kept one stays. */
        json_t *cfg = NULL;
        if (bb_client_config(c, &cfg) == BB_OK)
            json_decref(cfg);
        if (cli->json)
            printf("{\"id\": %lld, \"H\": %d, \"A\": %d, \"d\": %d, \"billboard_version\": "
                   "%llu}\n",
                   (long long)eid, b->H, b->A, b->d, (unsigned long long)b->version);
        else
            printf("episode %lld started: H=%d A=%d d=%d, billboard version %llu\n", (long long)eid,
                   b->H, b->A, b->d, (unsigned long long)b->version);
        goto out;
    }
    if (strcmp(sub, "list") == 0) {
        json_t *rows = NULL;
        err = bb_client_episodes(c, &rows);
        if (err != BB_OK) {
            rc = cli_fail(c, err, "state file");
            goto out;
        }
        if (json_array_size(rows) == 0 && !cli->json)
            printf("no episodes in the state file\n");
        else
            cli_print_rows(cli, rows);
        json_decref(rows);
        goto out;
    }
    if (strcmp(sub, "prune") == 0) {
        long pruned = 0;
        err = bb_client_prune(c, &pruned);
        if (err != BB_OK) {
            rc = cli_fail(c, err, "state file");
            goto out;
        }
        if (cli->json)
            printf("{\"pruned\": %ld}\n", pruned);
        else
            printf("%ld sent episode(s) deleted from the state file\n", pruned);
        goto out;
    }
    if (strcmp(sub, "status") == 0) {
        long open = 0, unsent = 0;
        int steps = 0;
        err = bb_client_pending(c, &open, &unsent);
        if (err != BB_OK) {
            rc = cli_fail(c, err, "state file");
            goto out;
        }
        err = bb_client_episode_current(c, &eid, &steps);
        if (err == BB_OK)
            err = bb_client_episode_load(c, eid, &e, NULL, NULL);
        if (err != BB_OK && err != BB_ENOTFOUND) {
            rc = cli_fail(c, err, "state file");
            goto out;
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
        goto out;
    }
    rc = pick_episode(c, id, &eid);
    if (rc != EXIT_OKAY)
        goto out;
    if (strcmp(sub, "abort") == 0) {
        err = bb_client_episode_abort(c, eid);
        if (err != BB_OK) {
            rc = cli_fail(c, err, "abort");
            goto out;
        }
        printf("episode %lld dropped\n", (long long)eid);
        goto out;
    }
    if (strcmp(sub, "step") == 0) {
        int steps = 0;
        err = bb_client_episode_load(c, eid, &e, NULL, &steps);
        if (err != BB_OK) {
            rc = cli_fail(c, err, "episode");
            goto out;
        }
        rc = cli_read_features(file, e.A, e.d, &f);
        if (rc != EXIT_OKAY)
            goto out;
        err = bb_client_episode_step(c, eid, f, (int)action, reward);
        if (err != BB_OK) {
            rc = cli_fail(c, err, "step");
            goto out;
        }
        if (cli->json)
            printf("{\"id\": %lld, \"steps\": %d, \"H\": %d}\n", (long long)eid, steps + 1, e.H);
        else
            printf("episode %lld: step %d of %d recorded\n", (long long)eid, steps + 1, e.H);
        goto out;
    }
    /* finish */
    err = bb_client_episode_finish(c, eid);
    if (err != BB_OK) {
        rc = cli_fail(c, err, "finish");
        goto out;
    }
    if (!cli->json)
        printf("episode %lld finished\n", (long long)eid);
    if (nosend) {
        if (cli->json)
            printf("{\"id\": %lld, \"sent\": 0}\n", (long long)eid);
        goto out;
    }
    rc = send_unsent(cli, c);
out:
    free(f);
    bb_episode_buf_release(&e);
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
