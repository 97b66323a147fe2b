/*
 * client.c — libbillboard's struct bb_client: its lifecycle, its retry
 * policy and admin token, and the last answer (bb_client_last_*).
 *
 * The calls of the API live one concept per file (see client_impl.h); every
 * one of them that talks to the daemon goes through client_request().
 */
#include "billboard/client.h"

#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_impl.h"

static pthread_once_t sodium_once = PTHREAD_ONCE_INIT;
static int sodium_rc = -1;

static void sodium_start(void)
{
    sodium_rc = sodium_init() < 0 ? -1 : 0;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

void client_free_secret(char *s)
{
    if (!s)
        return;
    sodium_memzero(s, strlen(s));
    free(s);
}

int client_sodium_init(void)
{
    pthread_once(&sodium_once, sodium_start);
    return sodium_rc == 0 ? BB_OK : BB_ENOMEM;
}

struct bb_client_retry bb_client_retry_default(void)
{
    struct bb_client_retry r = {
        .max_attempts = 6, .base_ms = 100, .cap_ms = 5000, .total_ms = 30000, .timeout_ms = 10000};
    return r;
}

int bb_client_new(const char *base_url, const char *token, const char *state_path,
                  struct bb_client **out)
{
    int rc = BB_EINVAL;
    struct bb_client *c = NULL;

    *out = NULL;
    if (!base_url ||
        (strncmp(base_url, "http://", 7) != 0 && strncmp(base_url, "https://", 8) != 0))
        goto out;
    rc = client_sodium_init();
    if (rc != BB_OK)
        goto out;
    rc = BB_ENOMEM;
    c = calloc(1, sizeof(*c));
    if (!c)
        goto out;
    c->retry = bb_client_retry_default();
    c->base = dup_str(base_url);
    if (!c->base)
        goto out;
    size_t n = strlen(c->base);
    while (n > 0 && c->base[n - 1] == '/')
        c->base[--n] = '\0';
    if (token && !(c->token = dup_str(token)))
        goto out;
    c->tp = transport_new();
    if (!c->tp)
        goto out;
    if (state_path) {
        rc = statestore_open(state_path, &c->st, NULL, 0);
        if (rc != BB_OK)
            goto out;
    }
    *out = c;
    c = NULL;
    rc = BB_OK;
out:
    bb_client_free(c);
    return rc;
}

void bb_client_free(struct bb_client *c)
{
    if (!c)
        return;
    free(c->base);
    client_free_secret(c->token);
    client_free_secret(c->admin);
    transport_free(c->tp);
    statestore_close(c->st);
    bb_billboard_release(&c->bb);
    free(c);
}

int bb_client_set_admin_token(struct bb_client *c, const char *admin_token)
{
    char *t = NULL;
    if (admin_token && !(t = dup_str(admin_token)))
        return BB_ENOMEM;
    client_free_secret(c->admin);
    c->admin = t;
    return BB_OK;
}

int bb_client_set_cacert(struct bb_client *c, const char *path)
{
    if (path) {
        FILE *f = fopen(path, "r");
        if (!f)
            return BB_EIO;
        fclose(f);
    }
    return transport_set_cacert(c->tp, path);
}

int bb_client_set_retry(struct bb_client *c, const struct bb_client_retry *r)
{
    if (r->max_attempts < 1 || r->base_ms < 0 || r->cap_ms < 0 || r->total_ms < 0 ||
        r->timeout_ms < 1)
        return BB_EINVAL;
    c->retry = *r;
    return BB_OK;
}

int bb_client_last_status(const struct bb_client *c)
{
    return c->status;
}

const char *bb_client_last_title(const struct bb_client *c)
{
    return c->title;
}

const char *bb_client_last_detail(const struct bb_client *c)
{
    return c->detail;
}

int bb_client_last_attempts(const struct bb_client *c)
{
    return c->attempts;
}

void client_say(struct bb_client *c, const char *title, const char *detail)
{
    snprintf(c->title, sizeof(c->title), "%s", title);
    snprintf(c->detail, sizeof(c->detail), "%s", detail);
}

void client_forget_answer(struct bb_client *c)
{
    c->status = 0;
    c->attempts = 0;
    c->title[0] = c->detail[0] = '\0';
}
