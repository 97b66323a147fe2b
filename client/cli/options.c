/*
 * options.c — the command line of `billboard`: the options every command
 * accepts and each command's own, and the strict number parsing their
 * values go through.
 */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Global options taking a value, and where they go. */
static const char **global_val(struct cli *cli, const char *name)
{
    if (strcmp(name, "--server") == 0)
        return &cli->server;
    if (strcmp(name, "--state") == 0)
        return &cli->state;
    if (strcmp(name, "--token-file") == 0)
        return &cli->token_file;
    if (strcmp(name, "--admin-token-file") == 0)
        return &cli->admin_file;
    return NULL;
}

static long *global_num(struct cli *cli, const char *name)
{
    if (strcmp(name, "--timeout") == 0)
        return &cli->timeout_ms;
    if (strcmp(name, "--retries") == 0)
        return &cli->retries;
    if (strcmp(name, "--retry-total") == 0)
        return &cli->retry_total_ms;
    return NULL;
}

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

int cli_parse(struct cli *cli, int argc, char **argv, const struct cli_opt *opts, const char **pos,
              int maxpos, int *npos)
{
    *npos = 0;
    int only_pos = 0;
    for (int i = 0; i < argc; i++) {
        char *a = argv[i];
        if (only_pos || a[0] != '-' || strcmp(a, "-") == 0) {
            if (*npos >= maxpos)
                return cli_usage_error("unexpected argument '%s'", a);
            pos[(*npos)++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_pos = 1;
            continue;
        }
        /* --name=value or --name value */
        char name[64];
        const char *val = NULL;
        const char *eq = strchr(a, '=');
        size_t nl = eq ? (size_t)(eq - a) : strlen(a);
        if (nl >= sizeof(name))
            return cli_usage_error("unknown option '%s'", a);
        memcpy(name, a, nl);
        name[nl] = '\0';
        if (eq)
            val = eq + 1;

        if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
            cli->help = 1;
            continue;
        }
        if (strcmp(name, "--json") == 0) {
            cli->json = 1;
            continue;
        }
        const struct cli_opt *o = NULL;
        for (const struct cli_opt *p = opts; p && p->name; p++)
            if (strcmp(p->name, name) == 0)
                o = p;
        const char **gv = global_val(cli, name);
        long *gn = global_num(cli, name);
        if (o && o->flag) {
            if (val)
                return cli_usage_error("option %s takes no value", name);
            *o->flag = 1;
            continue;
        }
        if (!o && !gv && !gn)
            return cli_usage_error("unknown option '%s'", name);
        if (!val) {
            if (i + 1 >= argc)
                return cli_usage_error("option %s needs a value", name);
            val = argv[++i];
        }
        if (o)
            *o->val = val;
        else if (gv)
            *gv = val;
        else if (cli_long(val, gn) != 0 || *gn < 0)
            return cli_usage_error("option %s needs a non-negative integer", name);
    }
    return EXIT_OKAY;
}
