/*
 * options.c — the command line of `billboard`: the options every command
 * accepts and each command's own, read by proto/args.c's rules (names
 * spelt out in full, --name value or --name=value, "--" ends them), and
 * the strict numbers their values go through.
 *
 * Options may appear anywhere among the arguments, positional ones between
 * them.
 */
#include "cli.h"

#include "args.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The global options' ids; a command's own options have OPT_COMMAND + their
 * index. */
enum {
    OPT_HELP = 1,
    OPT_JSON,
    OPT_SERVER,
    OPT_STATE,
    OPT_TOKEN_FILE,
    OPT_ADMIN_FILE,
    OPT_CACERT,
    OPT_TIMEOUT,
    OPT_RETRIES,
    OPT_RETRY_TOTAL,
    OPT_COMMAND = 1000,
};

/* The global options (docs/CLI.md, `billboard --help`): one line each. */
static const struct bb_opt global_opts[] = {
    {"help", 0, OPT_HELP},
    {"json", 0, OPT_JSON},
    {"server", 1, OPT_SERVER},
    {"state", 1, OPT_STATE},
    {"token-file", 1, OPT_TOKEN_FILE},
    {"admin-token-file", 1, OPT_ADMIN_FILE},
    {"cacert", 1, OPT_CACERT},
    {"timeout", 1, OPT_TIMEOUT},
    {"retries", 1, OPT_RETRIES},
    {"retry-total", 1, OPT_RETRY_TOTAL},
};
enum { NGLOBAL = sizeof(global_opts) / sizeof(global_opts[0]), MAX_COMMAND_OPTS = 16 };

int cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("billboard: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (see --help)\n", stderr);
    return EXIT_USAGE;
}

int cli_long(const char *s, long *out)
{
    return bb_parse_long(s, out) == BB_OK ? 0 : -1;
}

int cli_double(const char *s, double *out)
{
    double v;
    if (bb_parse_double(s, &v) != BB_OK || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int cli_takes_value(const char *arg)
{
    const struct bb_opt *o =
        strncmp(arg, "--", 2) == 0 ? bb_opt_find(global_opts, NGLOBAL, arg + 2) : NULL;
    return o && o->takes_value;
}

/* The argument arg as an option name for a message: up to any '='. */
static int unknown(const char *arg)
{
    const char *eq = strchr(arg, '=');
    int n = eq ? (int)(eq - arg) : (int)strlen(arg);
    if (n >= 64) /* as long as any name we know and then some */
        return cli_usage_error("unknown option '%s'", arg);
    return cli_usage_error("unknown option '%.*s'", n, arg);
}

/* Stores the value of global option id (a value option) into cli. */
static int set_global(struct cli *cli, int id, const char *name, const char *v)
{
    long *num = id == OPT_TIMEOUT       ? &cli->timeout_ms
                : id == OPT_RETRIES     ? &cli->retries
                : id == OPT_RETRY_TOTAL ? &cli->retry_total_ms
                                        : NULL;
    if (num) {
        if (cli_long(v, num) != 0 || *num < 0)
            return cli_usage_error("option --%s needs a non-negative integer", name);
        return EXIT_OKAY;
    }
    if (id == OPT_SERVER)
        cli->server = v;
    else if (id == OPT_STATE)
        cli->state = v;
    else if (id == OPT_TOKEN_FILE)
        cli->token_file = v;
    else if (id == OPT_ADMIN_FILE)
        cli->admin_file = v;
    else if (id == OPT_CACERT)
        cli->cacert = v;
    return EXIT_OKAY;
}

/* Acts on one option read: EXIT_OKAY or EXIT_USAGE (said). */
static int take(struct cli *cli, const struct cli_opt *opts, const struct bb_arg *g)
{
    const int id = g->opt->id;
    if (id == OPT_HELP || id == OPT_JSON) {
        *(id == OPT_HELP ? &cli->help : &cli->json) = 1;
        return EXIT_OKAY;
    }
    if (id < OPT_COMMAND)
        return set_global(cli, id, g->opt->name, g->value);
    const struct cli_opt *p = &opts[id - OPT_COMMAND];
    if (p->flag)
        *p->flag = 1;
    else
        *p->val = g->value;
    return EXIT_OKAY;
}

int cli_parse(struct cli *cli, int argc, char **argv, const struct cli_opt *opts, const char **pos,
              int maxpos, int *npos)
{
    struct bb_opt table[NGLOBAL + MAX_COMMAND_OPTS];
    size_t n = NGLOBAL;
    struct bb_args a;
    struct bb_arg g;
    int rc = EXIT_OKAY;

    *npos = 0;
    memcpy(table, global_opts, sizeof(global_opts));
    for (const struct cli_opt *p = opts; p && p->name; p++) {
        assert(n < NGLOBAL + MAX_COMMAND_OPTS && strncmp(p->name, "--", 2) == 0);
        table[n++] = (struct bb_opt){p->name + 2, !p->flag, OPT_COMMAND + (int)(p - opts)};
    }
    bb_args_init(&a, argc, argv, 0);
    while (rc == EXIT_OKAY && bb_args_next(&a, table, n, &g) != BB_ARG_END) {
        switch (g.kind) {
        case BB_ARG_POSITIONAL:
            if (*npos >= maxpos)
                rc = cli_usage_error("unexpected argument '%s'", g.word);
            else
                pos[(*npos)++] = g.word;
            break;
        case BB_ARG_NO_VALUE:
            rc = cli_usage_error("option --%s needs a value", g.opt->name);
            break;
        case BB_ARG_EXTRA_VALUE:
            /* --help=... and --json=... have always meant --help, --json. */
            if (g.opt->id == OPT_HELP || g.opt->id == OPT_JSON)
                rc = take(cli, opts, &g);
            else
                rc = cli_usage_error("option --%s takes no value", g.opt->name);
            break;
        case BB_ARG_OPTION:
            rc = take(cli, opts, &g);
            break;
        default:
            rc = unknown(g.word);
        }
    }
    return rc;
}
