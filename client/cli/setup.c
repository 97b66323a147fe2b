/*
 * setup.c — what a `billboard` command starts from: the client, built from
 * the options and the environment (server, CA file, tokens from files or
 * variables, the state file's default path, the retry policy), and the current
 * billboard with the state file's copy as a fallback during an outage.
 */
#include "cli.h"

#include <limits.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
        return cli_usage_error("bad server URL '%s' (http://HOST:PORT or https://HOST:PORT)",
                               cli->server);
    if (rc == BB_EIO) {
        fprintf(stderr, "billboard: %s: cannot open, or not a billboard state file\n", state);
        return EXIT_LOCAL;
    }
    if (rc != BB_OK)
        return cli_fail(NULL, rc, "cannot start the client");
    if (!cli->cacert)
        cli->cacert = getenv("BILLBOARD_CACERT");
    if (cli->cacert && *cli->cacert && (rc = bb_client_set_cacert(c, cli->cacert)) != BB_OK) {
        bb_client_free(c);
        if (rc == BB_EIO) {
            fprintf(stderr, "billboard: cannot read CA file %s\n", cli->cacert);
            return EXIT_LOCAL;
        }
        return cli_fail(NULL, rc, "CA file");
    }
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
    return cli_fail(c, err, "fetching the billboard");
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
