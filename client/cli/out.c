/*
 * out.c — what every `billboard` command shares: option parsing, the client
 * from options and environment, exit codes, tables, the progress bar, and
 * reading token and feature files.
 */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"

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

/* First line of a file as a new string (caller wipes and frees). */
static char *read_token_file(const char *path)
{
    size_t len = 0;
    char *buf = cli_slurp(path, &len);
    if (!buf)
        return NULL;
    size_t n = strcspn(buf, "\r\n");
    char *t = malloc(n + 1);
    if (t) {
        memcpy(t, buf, n);
        t[n] = '\0';
    }
    sodium_memzero(buf, len);
    free(buf);
    return t;
}

static char *dup_env(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return NULL;
    size_t n = strlen(v) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, v, n);
    return p;
}

/* $BILLBOARD_STATE, else $XDG_STATE_HOME/billboard/state.db, else
 * $HOME/.local/state/billboard/state.db (directories created). */
static const char *default_state(struct cli *cli)
{
    const char *env = getenv("BILLBOARD_STATE");
    if (env && *env)
        return env;
    const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    char dir[PATH_MAX];
    if (xdg && *xdg)
        snprintf(dir, sizeof(dir), "%s", xdg);
    else if (home && *home) {
        snprintf(dir, sizeof(dir), "%s/.local", home);
        mkdir(dir, 0700);
        snprintf(dir, sizeof(dir), "%s/.local/state", home);
    } else
        return NULL;
    mkdir(dir, 0700);
    size_t n = strlen(dir);
    snprintf(dir + n, sizeof(dir) - n, "/billboard");
    mkdir(dir, 0700);
    n = strlen(dir) + sizeof("/state.db");
    cli->state_owned = malloc(n);
    if (!cli->state_owned)
        return NULL;
    snprintf(cli->state_owned, n, "%s/state.db", dir);
    return cli->state_owned;
}

int cli_client(struct cli *cli, int needs_state, struct bb_client **out)
{
    struct bb_client *c = NULL;
    *out = NULL;
    if (!cli->server)
        cli->server = getenv("BILLBOARD_SERVER");
    if (!cli->server || !*cli->server)
        cli->server = CLI_DEFAULT_SERVER;
    if (cli->token_file) {
        if (!(cli->token = read_token_file(cli->token_file))) {
            fprintf(stderr, "billboard: cannot read token file %s\n", cli->token_file);
            return EXIT_LOCAL;
        }
    } else {
        cli->token = dup_env("BILLBOARD_TOKEN");
    }
    if (cli->admin_file) {
        if (!(cli->admin = read_token_file(cli->admin_file))) {
            fprintf(stderr, "billboard: cannot read admin token file %s\n", cli->admin_file);
            return EXIT_LOCAL;
        }
    } else {
        cli->admin = dup_env("BILLBOARD_ADMIN_TOKEN");
    }
    const char *state = NULL;
    if (needs_state) {
        state = cli->state ? cli->state : default_state(cli);
        if (!state) {
            fprintf(stderr, "billboard: no state file: give --state FILE or set HOME\n");
            return EXIT_LOCAL;
        }
    }
    int rc = bb_client_new(cli->server, cli->token, state, &c);
    if (rc == BB_EINVAL)
        return cli_usage_error("bad server URL '%s' (http://HOST:PORT)", cli->server);
    if (rc == BB_EIO) {
        fprintf(stderr, "billboard: %s: cannot open, or not a billboard state file\n", state);
        return EXIT_LOCAL;
    }
    if (rc != BB_OK)
        return cli_fail(NULL, rc, "cannot start the client");
    if (cli->admin && bb_client_set_admin_token(c, cli->admin) != BB_OK) {
        bb_client_free(c);
        return cli_fail(NULL, BB_ENOMEM, "admin token");
    }
    struct bb_client_retry r = bb_client_retry_default();
    if (cli->timeout_ms > 0)
        r.timeout_ms = cli->timeout_ms;
    if (cli->retries > 0)
        r.max_attempts = (int)(cli->retries > 100 ? 100 : cli->retries);
    if (cli->retry_total_ms > 0)
        r.total_ms = cli->retry_total_ms;
    if (bb_client_set_retry(c, &r) != BB_OK) {
        bb_client_free(c);
        return cli_usage_error("bad retry options");
    }
    *out = c;
    return EXIT_OKAY;
}

int cli_billboard(struct bb_client *c, const struct bb_billboard **b)
{
    int err = bb_client_fetch_billboard(c, NULL);
    *b = bb_client_billboard(c);
    if (err == BB_OK)
        return EXIT_OKAY;
    if ((err == BB_ENET || err == BB_ESERVER) && *b) {
        fprintf(stderr,
                "billboard: warning: daemon unavailable (%s); using the billboard version %llu "
                "kept in the state file\n",
                bb_strerror(err), (unsigned long long)(*b)->version);
        return EXIT_OKAY;
    }
    *b = NULL;
    return cli_fail(c, err, "billboard");
}

static void wipe(char *s)
{
    if (s) {
        sodium_memzero(s, strlen(s));
        free(s);
    }
}

void cli_release(struct cli *cli)
{
    wipe(cli->token);
    wipe(cli->admin);
    free(cli->state_owned);
    cli->token = cli->admin = cli->state_owned = NULL;
}

int cli_fail(const struct bb_client *c, int err, const char *what)
{
    int status = c ? bb_client_last_status(c) : 0;
    const char *title = c ? bb_client_last_title(c) : "";
    const char *detail = c ? bb_client_last_detail(c) : "";
    if (strcmp(title, bb_strerror(err)) == 0)
        title = ""; /* "network error: network error" says nothing twice */
    fprintf(stderr, "billboard: %s: %s", what, bb_strerror(err));
    if (status)
        fprintf(stderr, " (HTTP %d", status);
    else if (title[0])
        fputs(" (", stderr);
    if (title[0])
        fprintf(stderr, "%s%s", status ? ": " : "", title);
    if (detail[0])
        fprintf(stderr, ": %s", detail);
    if (status || title[0])
        fputc(')', stderr);
    fputc('\n', stderr);

    if (err == BB_ENET)
        return EXIT_NET;
    if (err == BB_ESERVER || status >= 500)
        return EXIT_SERVER;
    if (status >= 400)
        return EXIT_REFUSED;
    if (err == BB_EPROTO && status >= 200)
        return EXIT_SERVER; /* the daemon said something we cannot read */
    if (err == BB_EAUTH)
        return EXIT_USAGE; /* no token given */
    return EXIT_LOCAL;
}

char *cli_slurp(const char *path, size_t *len)
{
    struct bb_buf b = BB_BUF_INIT;
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f)
        return NULL;
    int rc = bb_buf_read(&b, f);
    if (f != stdin)
        fclose(f);
    if (rc != BB_OK) {
        bb_buf_release(&b);
        return NULL;
    }
    return bb_buf_detach(&b, len); /* "" for an empty file: bb_buf_read allocated */
}

int cli_read_features(const char *path, int A, int d, double **out)
{
    json_error_t e;
    size_t len = 0;
    double *f = NULL;
    int rc = EXIT_LOCAL;
    json_t *j = NULL;
    char *buf = cli_slurp(path, &len);
    *out = NULL;
    if (!buf) {
        fprintf(stderr, "billboard: cannot read %s\n", path);
        goto out;
    }
    j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &e);
    if (!j) {
        fprintf(stderr, "billboard: %s:%d: %s\n", path, e.line, e.text);
        goto out;
    }
    /* Accept the bare matrix or an object {"features": matrix}. */
    json_t *m = json_is_object(j) ? json_object_get(j, "features") : j;
    if (!json_is_array(m) || json_array_size(m) != (size_t)A) {
        fprintf(stderr, "billboard: %s: expected %d feature rows (one per action)\n", path, A);
        goto out;
    }
    f = malloc(sizeof(double) * (size_t)A * (size_t)d);
    if (!f)
        goto out;
    for (int a = 0; a < A; a++) {
        json_t *row = json_array_get(m, (size_t)a);
        if (!json_is_array(row) || json_array_size(row) != (size_t)d) {
            fprintf(stderr, "billboard: %s: row %d: expected %d numbers\n", path, a, d);
            goto out;
        }
        for (int k = 0; k < d; k++) {
            json_t *v = json_array_get(row, (size_t)k);
            if (!json_is_number(v)) {
                fprintf(stderr, "billboard: %s: row %d entry %d is not a number\n", path, a, k);
                goto out;
            }
            f[(size_t)a * d + k] = json_number_value(v);
        }
    }
    *out = f;
    f = NULL;
    rc = EXIT_OKAY;
out:
    free(f);
    free(buf);
    json_decref(j);
    return rc;
}

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
