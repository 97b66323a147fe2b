/*
 * print.c — what a `billboard` command prints: JSON objects as aligned
 * two-column tables (nested objects flattened as "a.b"), arrays of objects
 * as tables, either as indented JSON with --json; times in RFC 3339; and
 * the progress bar on stderr.
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Scalar JSON as text into buf. */
static void scalar(json_t *v, char *buf, size_t n)
{
    if (json_is_string(v))
        snprintf(buf, n, "%s", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(buf, n, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, n, "%.6g", json_real_value(v));
    else if (json_is_true(v))
        snprintf(buf, n, "yes");
    else if (json_is_false(v))
        snprintf(buf, n, "no");
    else if (json_is_null(v))
        snprintf(buf, n, "-");
    else {
        char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        snprintf(buf, n, "%s", s ? s : "?");
        free(s);
    }
}

static size_t key_width(json_t *o, const char *prefix)
{
    const char *k;
    json_t *v;
    size_t w = 0, pl = prefix ? strlen(prefix) + 1 : 0;
    json_object_foreach(o, k, v)
    {
        size_t kw = json_is_object(v) ? key_width(v, k) + pl : strlen(k) + pl;
        if (kw > w)
            w = kw;
    }
    return w;
}

static void print_flat(json_t *o, const char *prefix, int width)
{
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v)
    {
        char name[256], val[512];
        if (prefix)
            snprintf(name, sizeof(name), "%s.%s", prefix, k);
        else
            snprintf(name, sizeof(name), "%s", k);
        if (json_is_object(v)) {
            print_flat(v, name, width);
            continue;
        }
        scalar(v, val, sizeof(val));
        printf("%-*s  %s\n", width, name, val);
    }
}

void cli_print_object(const struct cli *cli, json_t *j)
{
    if (cli->json || !json_is_object(j)) {
        json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17) | JSON_ENCODE_ANY);
        putchar('\n');
        return;
    }
    print_flat(j, NULL, (int)key_width(j, NULL));
}

json_t *cli_json_of(char *text)
{
    json_t *j = text ? json_loads(text, 0, NULL) : NULL;
    free(text);
    return j;
}

void cli_print_rows(const struct cli *cli, json_t *rows)
{
    if (cli->json || !json_is_array(rows)) {
        json_dumpf(rows, stdout, JSON_INDENT(2) | JSON_ENCODE_ANY);
        putchar('\n');
        return;
    }
    json_t *first = json_array_get(rows, 0);
    if (!json_is_object(first)) {
        printf("(none)\n");
        return;
    }
    enum { MAXCOL = 12 };
    const char *cols[MAXCOL];
    int w[MAXCOL], nc = 0;
    const char *k;
    json_t *v;
    json_object_foreach(first, k, v)
    {
        if (nc == MAXCOL)
            break;
        cols[nc] = k;
        w[nc] = (int)strlen(k);
        nc++;
    }
    size_t i;
    json_t *row;
    char val[256];
    json_array_foreach(rows, i, row)
    {
        for (int c = 0; c < nc; c++) {
            scalar(json_object_get(row, cols[c]), val, sizeof(val));
            if ((int)strlen(val) > w[c])
                w[c] = (int)strlen(val);
        }
    }
    for (int c = 0; c < nc; c++)
        if (c + 1 < nc)
            printf("%-*s  ", w[c], cols[c]);
        else
            printf("%s\n", cols[c]);
    json_array_foreach(rows, i, row)
    {
        for (int c = 0; c < nc; c++) {
            scalar(json_object_get(row, cols[c]), val, sizeof(val));
            if (c + 1 < nc)
                printf("%-*s  ", w[c], val);
            else
                printf("%s\n", val);
        }
    }
}

void cli_times_rfc3339(json_t *o, const char *const *keys)
{
    for (; json_is_object(o) && *keys; keys++) {
        json_t *v = json_object_get(o, *keys);
        if (!json_is_integer(v))
            continue;
        time_t t = (time_t)json_integer_value(v);
        struct tm tm;
        char s[32];
        if (!gmtime_r(&t, &tm) || strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
            continue;
        json_object_set_new(o, *keys, json_string(s));
    }
}

void cli_progress(void *user, size_t done, size_t total)
{
    (void)user;
    if (total < 2 || !isatty(STDERR_FILENO))
        return;
    enum { WIDTH = 30 };
    int fill = (int)((double)done / (double)total * WIDTH);
    char bar[WIDTH + 1];
    for (int i = 0; i < WIDTH; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[WIDTH] = '\0';
    fprintf(stderr, "\r[%s] %zu/%zu", bar, done, total);
    if (done == total)
        fputc('\n', stderr);
    fflush(stderr);
}
