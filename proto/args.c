/*
 * args.c — reading a command line against an option table, and strict
 * numbers (args.h).
 */
#include "args.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void bb_args_init(struct bb_args *a, int argc, char **argv, int first)
{
    a->argc = argc;
    a->argv = argv;
    a->next = first;
    a->ended = 0;
}

const struct bb_opt *bb_opt_find(const struct bb_opt *table, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(table[i].name, name) == 0)
            return &table[i];
    return NULL;
}

/* The entry named by the len bytes at name, or NULL. */
static const struct bb_opt *find_prefix(const struct bb_opt *table, size_t n, const char *name,
                                        size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(table[i].name) == len && strncmp(table[i].name, name, len) == 0)
            return &table[i];
    return NULL;
}

enum bb_arg_kind bb_args_next(struct bb_args *a, const struct bb_opt *table, size_t n,
                              struct bb_arg *out)
{
    memset(out, 0, sizeof(*out));
    if (a->next >= a->argc)
        return out->kind = BB_ARG_END;
    const char *w = out->word = a->argv[a->next++];
    if (!a->ended && strcmp(w, "--") == 0) {
        a->ended = 1;
        return bb_args_next(a, table, n, out);
    }
    if (a->ended || w[0] != '-' || w[1] == '\0')
        return out->kind = BB_ARG_POSITIONAL;
    const char *name = w + 2, *eq = strchr(w, '=');
    if (w[1] != '-') { /* "-h" (or "-h=...") is --help; no other short option */
        if (w[1] != 'h' || (w[2] != '\0' && w[2] != '='))
            return out->kind = BB_ARG_UNKNOWN;
        name = "help";
        eq = w[2] == '=' ? w + 2 : NULL;
        out->opt = bb_opt_find(table, n, name);
    } else {
        out->opt = find_prefix(table, n, name, eq ? (size_t)(eq - name) : strlen(name));
    }
    if (!out->opt)
        return out->kind = BB_ARG_UNKNOWN;
    if (!out->opt->takes_value)
        return out->kind = eq ? BB_ARG_EXTRA_VALUE : BB_ARG_OPTION;
    if (eq) {
        out->value = eq + 1;
        return out->kind = BB_ARG_OPTION;
    }
    if (a->next >= a->argc)
        return out->kind = BB_ARG_NO_VALUE;
    out->value = a->argv[a->next++];
    return out->kind = BB_ARG_OPTION;
}

int bb_parse_long(const char *s, long *out)
{
    char *end;
    if (!s || !*s || isspace((unsigned char)*s))
        return BB_EINVAL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end)
        return BB_EINVAL;
    *out = v;
    return BB_OK;
}

int bb_parse_double(const char *s, double *out)
{
    char *end;
    if (!s || !*s || isspace((unsigned char)*s))
        return BB_EINVAL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || isnan(v))
        return BB_EINVAL;
    *out = v;
    return BB_OK;
}
