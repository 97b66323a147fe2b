/*
 * options.c — the command line of `billboard`: the options every command
 * accepts and each command's own, parsed with getopt_long, and the strict
 * number parsing their values go through.
 *
 * Options may appear anywhere among the arguments, as --name value or
 * --name=value; "--" ends them. Names must be spelt out in full: getopt_long
 * would also take an unambiguous prefix (--ser for --server), which a
 * script could come to rely on and a later option would break.
 */
#include "cli.h"

#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* getopt_long's answers for the global options; a command's own options
 * answer OPT_COMMAND + their index. */
enum {
    OPT_HELP = 256, /* above every character getopt_long could answer */
    OPT_JSON,
    OPT_SERVER,
    OPT_STATE,
    OPT_TOKEN_FILE,
    OPT_ADMIN_FILE,
    OPT_CACERT,
    OPT_TIMEOUT,
    OPT_RETRIES,
    OPT_RETRY_TOTAL,
    OPT_COMMAND,
};

/* The global options (docs/CLI.md, `billboard --help`). */
static const struct option global_opts[] = {
    {"help", no_argument, NULL, OPT_HELP},
    {"json", no_argument, NULL, OPT_JSON},
    {"server", required_argument, NULL, OPT_SERVER},
    {"state", required_argument, NULL, OPT_STATE},
    {"token-file", required_argument, NULL, OPT_TOKEN_FILE},
    {"admin-token-file", required_argument, NULL, OPT_ADMIN_FILE},
    {"cacert", required_argument, NULL, OPT_CACERT},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"retries", required_argument, NULL, OPT_RETRIES},
    {"retry-total", required_argument, NULL, OPT_RETRY_TOTAL},
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
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end)
        return -1;
    *out = v;
    return 0;
}

int cli_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int cli_takes_value(const char *arg)
{
    if (strncmp(arg, "--", 2) != 0 || strchr(arg, '='))
        return 0;
    for (size_t i = 0; i < NGLOBAL; i++)
        if (global_opts[i].has_arg == required_argument &&
            strcmp(arg + 2, global_opts[i].name) == 0)
            return 1;
    return 0;
}

/* 1 if the argument arg is option `name` spelt out ("--name" or
 * "--name=..."), not an abbreviation of it. */
static int spelt_out(const char *arg, const char *name)
{
    size_t n = strlen(name);
    return strncmp(arg, "--", 2) == 0 && strncmp(arg + 2, name, n) == 0 &&
           (arg[2 + n] == '\0' || arg[2 + n] == '=');
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

/* The long option whose getopt_long answer is val, or NULL. */
static const struct option *by_val(const struct option *lo, int val)
{
    for (; lo->name; lo++)
        if (lo->val == val)
            return lo;
    return NULL;
}

/* Stores the value of global option val (a value option) into cli. */
static int set_global(struct cli *cli, int val, const char *name, const char *v)
{
    long *num = val == OPT_TIMEOUT       ? &cli->timeout_ms
                : val == OPT_RETRIES     ? &cli->retries
                : val == OPT_RETRY_TOTAL ? &cli->retry_total_ms
                                         : NULL;
    if (num) {
        if (cli_long(v, num) != 0 || *num < 0)
            return cli_usage_error("option --%s needs a non-negative integer", name);
        return EXIT_OKAY;
    }
    if (val == OPT_SERVER)
        cli->server = v;
    else if (val == OPT_STATE)
        cli->state = v;
    else if (val == OPT_TOKEN_FILE)
        cli->token_file = v;
    else if (val == OPT_ADMIN_FILE)
        cli->admin_file = v;
    else if (val == OPT_CACERT)
        cli->cacert = v;
    return EXIT_OKAY;
}

int cli_parse(struct cli *cli, int argc, char **argv, const struct cli_opt *opts, const char **pos,
              int maxpos, int *npos)
{
    struct option lo[NGLOBAL + MAX_COMMAND_OPTS + 1];
    char **av = NULL;
    int n = 0, rc = EXIT_USAGE;

    *npos = 0;
    memcpy(lo, global_opts, sizeof(global_opts));
    n = NGLOBAL;
    for (const struct cli_opt *p = opts; p && p->name; p++) {
        assert(n < NGLOBAL + MAX_COMMAND_OPTS && strncmp(p->name, "--", 2) == 0);
        lo[n++] = (struct option){p->name + 2, p->flag ? no_argument : required_argument, NULL,
                                  OPT_COMMAND + (int)(p - opts)};
    }
    lo[n] = (struct option){NULL, 0, NULL, 0};

    /* getopt_long wants the program name first and may reorder argv: it
     * gets a copy. */
    av = malloc(sizeof(*av) * ((size_t)argc + 2));
    if (!av) {
        rc = cli_fail(NULL, BB_ENOMEM, "options");
        goto out;
    }
    av[0] = (char *)(cli->prog ? cli->prog : "billboard");
    memcpy(av + 1, argv, sizeof(*av) * (size_t)argc);
    av[argc + 1] = NULL;

    /* "-": arguments come back in order, as option 1, so positional ones
     * interleave with options as before and POSIXLY_CORRECT changes
     * nothing; ":": a missing value is reported as ':' (we print); no
     * short options (-h is turned into --help below). */
    opterr = 0;
    optind = 0; /* 0: start afresh, even if something parsed before */
    for (;;) {
        int at = optind ? optind : 1; /* the argument getopt_long reads next */
        /* The one short option is -h, alone (or "-h=...", as ever); getopt
         * would also read "-hx" as -h -x. Any other "-x" is unknown. */
        const char *a = av[at];
        if (a && a[0] == '-' && a[1] != '-' && a[1] != '\0') {
            if (strncmp(a, "-h", 2) != 0 || (a[2] != '\0' && a[2] != '=')) {
                rc = unknown(a);
                goto out;
            }
            av[at] = (char *)"--help"; /* our copy of argv */
        }
        int c = getopt_long(argc + 1, av, "-:", lo, NULL);
        if (c == -1)
            break;
        /* Which long option matched, to refuse an abbreviation of it. */
        const struct option *o = c >= OPT_HELP ? by_val(lo, c) : NULL;
        if (o && !spelt_out(av[at], o->name)) {
            rc = unknown(av[at]);
            goto out;
        }
        switch (c) {
        case 1:
            if (*npos >= maxpos) {
                rc = cli_usage_error("unexpected argument '%s'", optarg);
                goto out;
            }
            pos[(*npos)++] = optarg;
            break;
        case OPT_HELP:
            cli->help = 1;
            break;
        case OPT_JSON:
            cli->json = 1;
            break;
        case ':': /* optopt is the option that lacks its value */
            o = by_val(lo, optopt);
            rc = !o || !spelt_out(av[at], o->name)
                     ? unknown(av[at])
                     : cli_usage_error("option --%s needs a value", o->name);
            goto out;
        case '?': /* unknown, ambiguous, or a value given to a flag */
            o = optopt >= OPT_HELP ? by_val(lo, optopt) : NULL;
            if (!o || !spelt_out(av[at], o->name)) {
                rc = unknown(av[at]);
                goto out;
            }
            /* --help=... and --json=... have always meant --help, --json. */
            if (o->val == OPT_HELP || o->val == OPT_JSON) {
                *(o->val == OPT_HELP ? &cli->help : &cli->json) = 1;
                break;
            }
            rc = cli_usage_error("option --%s takes no value", o->name);
            goto out;
        default:
            if (c >= OPT_COMMAND) {
                const struct cli_opt *p = &opts[c - OPT_COMMAND];
                if (p->flag)
                    *p->flag = 1;
                else
                    *p->val = optarg;
            } else {
                assert(o); /* getopt_long answers only the values in lo */
                if (set_global(cli, c, o->name, optarg) != EXIT_OKAY)
                    goto out;
            }
        }
    }
    /* After "--": positional, whatever they look like. */
    for (; optind < argc + 1; optind++) {
        if (*npos >= maxpos) {
            rc = cli_usage_error("unexpected argument '%s'", av[optind]);
            goto out;
        }
        pos[(*npos)++] = av[optind];
    }
    rc = EXIT_OKAY;
out:
    free(av);
    return rc;
}
