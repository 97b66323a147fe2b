/*
 * client.c — libbillboard: the API of include/billboard/client.h over the
 * transport (libcurl), the retry policy and the local state store.
 *
 * Every request goes through request(), which adds the headers, retries
 * transient failures within the client's policy, and records the status and
 * the problem+json title/detail of the answer for bb_client_last_*().
 */
#include "billboard/client.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "retry.h"
#include "statestore.h"
#include "transport.h"

enum auth { AUTH_NONE, AUTH_CLINIC, AUTH_ADMIN };

struct bb_client {
    char *base;  /* owned, no trailing '/' */
    char *token; /* owned, wiped on free */
    char *admin; /* owned, wiped on free */
    struct transport *tp;
    struct statestore *st; /* NULL without a state file */
    struct bb_client_retry retry;
    struct bb_billboard bb; /* cached, factored when have_bb */
    int have_bb;
    int cache_tried; /* the state file's cached billboard was looked at */
    char etag[TRANSPORT_ETAG_MAX];
    int status, attempts;
    char title[256];
    char detail[1024];
};

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

static void free_secret(char *s)
{
    if (!s)
        return;
    sodium_memzero(s, strlen(s));
    free(s);
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
    pthread_once(&sodium_once, sodium_start);
    rc = BB_ENOMEM;
    if (sodium_rc != 0)
        goto out;
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
    free_secret(c->token);
    free_secret(c->admin);
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
    free_secret(c->admin);
    c->admin = t;
    return BB_OK;
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

/* ------------------------------------------------------------------ */

static void say(struct bb_client *c, const char *title, const char *detail)
{
    snprintf(c->title, sizeof(c->title), "%s", title);
    snprintf(c->detail, sizeof(c->detail), "%s", detail);
}

/* Starts a local call: the last answer no longer describes it. */
static void forget_answer(struct bb_client *c)
{
    c->status = 0;
    c->attempts = 0;
    c->title[0] = c->detail[0] = '\0';
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Reads the problem+json of an error answer into c->title/detail and
 * returns its enum bb_err. */
static int answer_err(struct bb_client *c, const struct transport_resp *r)
{
    const char *title = NULL, *detail = NULL, *type = NULL, *pointer = NULL;
    json_t *j = NULL;
    char fallback[64], full[sizeof(c->detail)];

    if (r->body && r->len)
        j = json_loadb(r->body, r->len, 0, NULL);
    if (json_is_object(j)) {
        title = json_string_value(json_object_get(j, "title"));
        detail = json_string_value(json_object_get(j, "detail"));
        type = json_string_value(json_object_get(j, "type"));
        pointer = json_string_value(json_object_get(j, "pointer"));
    }
    snprintf(fallback, sizeof(fallback), "HTTP %ld", r->status);
    /* The JSON pointer of the offending field, when the daemon names one. */
    snprintf(full, sizeof(full), "%s%s%s%s", detail ? detail : "", pointer && detail ? " " : "",
             pointer ? "at " : "", pointer ? pointer : "");
    say(c, title ? title : fallback, full);
    int rc = retry_status_err(r->status, title, type);
    json_decref(j);
    return rc;
}

/* One API call: method on base + path, with the credentials of `auth`, the
 * extra header lines (NULL-terminated, may be NULL) and body. Retries
 * transient failures when `retryable`. BB_OK means a 2xx or 304 answer is in
 * *r (caller releases it); on error *r is released and c->title/detail say
 * why. */
static int request(struct bb_client *c, const char *method, const char *path, enum auth auth,
                   const char *const *extra, const char *body, size_t len, int retryable,
                   struct transport_resp *r)
{
    int rc = BB_ENOMEM;
    char *url = NULL, *authz = NULL;
    const char *hdr[12];
    size_t nh = 0;
    long start = now_ms();

    memset(r, 0, sizeof(*r));
    c->status = 0;
    c->attempts = 0;
    c->title[0] = c->detail[0] = '\0';
    size_t ul = strlen(c->base) + strlen(path) + 1;
    url = malloc(ul);
    if (!url)
        goto out;
    snprintf(url, ul, "%s%s", c->base, path);

    hdr[nh++] = "Accept: application/json, application/problem+json";
    if (body)
        hdr[nh++] = "Content-Type: application/json";
    if (auth != AUTH_NONE) {
        const char *tok = auth == AUTH_CLINIC ? c->token : c->admin;
        if (!tok) {
            say(c, "no token",
                auth == AUTH_CLINIC ? "this call needs a clinic token"
                                    : "this call needs the admin token");
            rc = BB_EAUTH;
            goto out;
        }
        size_t al = strlen(tok) + 32;
        authz = malloc(al);
        if (!authz)
            goto out;
        snprintf(authz, al, "Authorization: Bearer %s", tok);
        hdr[nh++] = authz;
    }
    for (const char *const *e = extra; e && *e && nh < sizeof(hdr) / sizeof(hdr[0]) - 1; e++)
        hdr[nh++] = *e;
    hdr[nh] = NULL;

    for (;;) {
        char neterr[256];
        c->attempts++;
        transport_resp_release(r);
        rc = transport_do(c->tp, method, url, hdr, body, len, c->retry.timeout_ms, r, neterr,
                          sizeof(neterr));
        if (rc == BB_ENET) {
            c->status = 0;
            say(c, "network error", neterr);
        } else if (rc == BB_OK) {
            c->status = (int)r->status;
            rc = retry_status_err(r->status, NULL, NULL);
            if (rc != BB_OK)
                rc = answer_err(c, r);
        }
        if (rc == BB_OK || !retryable || !retry_is_transient(rc))
            break;
        double jitter = (double)randombytes_uniform(1u << 20) / (double)(1u << 20);
        long wait = retry_wait_ms(&c->retry, c->attempts, jitter);
        if (!retry_allowed(&c->retry, c->attempts, now_ms() - start, wait))
            break;
        sleep_ms(wait);
    }
out:
    if (rc != BB_OK)
        transport_resp_release(r);
    free(url);
    free_secret(authz);
    return rc;
}

/* Parses the body of r as a JSON object into *out (caller owns). */
static int body_json(struct bb_client *c, const struct transport_resp *r, json_t **out)
{
    json_error_t e;
    *out = NULL;
    json_t *j = r->body ? json_loadb(r->body, r->len, JSON_REJECT_DUPLICATES, &e) : NULL;
    if (!json_is_object(j) && !json_is_array(j)) {
        say(c, "malformed answer", !r->body ? "empty body" : j ? "not a JSON object" : e.text);
        json_decref(j);
        return BB_EPROTO;
    }
    *out = j;
    return BB_OK;
}

static int get_json(struct bb_client *c, const char *path, enum auth auth, json_t **out)
{
    struct transport_resp r;
    *out = NULL;
    int rc = request(c, "GET", path, auth, NULL, NULL, 0, 1, &r);
    if (rc == BB_OK)
        rc = body_json(c, &r, out);
    transport_resp_release(&r);
    return rc;
}

/* Parses and factors a billboard body into *out (zeroed on error). */
static int parse_billboard(struct bb_client *c, const struct transport_resp *r,
                           struct bb_billboard *out)
{
    char why[256] = "";
    int rc = bb_billboard_from_json(r->body ? r->body : "", r->len, out, why, sizeof(why));
    if (rc != BB_OK) {
        say(c, "malformed billboard", why);
        goto out;
    }
    rc = bb_billboard_factor(out);
    if (rc != BB_OK) {
        say(c, "billboard not usable", "a Gram matrix is not positive definite");
        bb_billboard_release(out);
        rc = BB_EPROTO;
    }
out:
    return rc;
}

/* ------------------------------------------------------------------ */

/* Installs the billboard cached in the state file, once per client, so a
 * new process asks with If-None-Match and still has a billboard when the
 * daemon is away. Best effort: a missing or unreadable cache is ignored. */
static void load_cached(struct bb_client *c)
{
    struct transport_resp r = {0};
    struct bb_billboard nb = {0};
    char etag[TRANSPORT_ETAG_MAX];
    if (c->have_bb || c->cache_tried || !c->st)
        return;
    c->cache_tried = 1;
    if (statestore_cache_get(c->st, c->base, &r.body, &r.len, etag, sizeof(etag)) != BB_OK)
        return;
    if (parse_billboard(c, &r, &nb) == BB_OK) {
        c->bb = nb;
        c->have_bb = 1;
        snprintf(c->etag, sizeof(c->etag), "%s", etag);
    }
    c->title[0] = c->detail[0] = '\0';
    transport_resp_release(&r);
}

int bb_client_fetch_billboard(struct bb_client *c, int *changed)
{
    struct transport_resp r;
    struct bb_billboard nb = {0};
    char inm[TRANSPORT_ETAG_MAX + 32];
    const char *extra[2] = {NULL, NULL};

    if (changed)
        *changed = 0;
    load_cached(c);
    if (c->have_bb && c->etag[0]) {
        snprintf(inm, sizeof(inm), "If-None-Match: %s", c->etag);
        extra[0] = inm;
    }
    int rc = request(c, "GET", "/v1/billboard", AUTH_NONE, extra, NULL, 0, 1, &r);
    if (rc != BB_OK)
        goto out;
    if (r.status == 304) {
        if (!c->have_bb) { /* we sent no If-None-Match: not a valid answer */
            say(c, "unexpected 304", "304 without a conditional request");
            rc = BB_EPROTO;
        }
        goto out; /* a 304 costs no parsing */
    }
    rc = parse_billboard(c, &r, &nb);
    if (rc != BB_OK)
        goto out;
    bb_billboard_release(&c->bb);
    c->bb = nb;
    c->have_bb = 1;
    snprintf(c->etag, sizeof(c->etag), "%s", r.etag);
    if (changed)
        *changed = 1;
    /* Best effort: a cache that cannot be written only costs a full GET. */
    if (c->st && r.etag[0] && statestore_cache_put(c->st, c->base, r.body, r.len, r.etag) != BB_OK)
        c->cache_tried = 1; /* nothing to do: the next process fetches in full */
out:
    transport_resp_release(&r);
    return rc;
}

const struct bb_billboard *bb_client_billboard(const struct bb_client *c)
{
    return c->have_bb ? &c->bb : NULL;
}

const char *bb_client_billboard_etag(const struct bb_client *c)
{
    return c->have_bb ? c->etag : "";
}

int bb_client_get_billboard_version(struct bb_client *c, uint64_t version, struct bb_billboard *out)
{
    struct transport_resp r;
    char path[64];
    memset(out, 0, sizeof(*out));
    snprintf(path, sizeof(path), "/v1/billboard/%llu", (unsigned long long)version);
    int rc = request(c, "GET", path, AUTH_NONE, NULL, NULL, 0, 1, &r);
    if (rc == BB_OK)
        rc = parse_billboard(c, &r, out);
    transport_resp_release(&r);
    return rc;
}

int bb_client_recommend_local(struct bb_client *c, int h, const double *features, double *q,
                              int *action)
{
    double *scratch = NULL;
    int rc = BB_EINVAL;
    forget_answer(c);
    if (!c->have_bb) {
        say(c, "no billboard", "fetch the billboard first");
        goto out;
    }
    if (!q) {
        scratch = malloc(sizeof(double) * (size_t)c->bb.A);
        rc = BB_ENOMEM;
        if (!scratch)
            goto out;
        q = scratch;
    }
    rc = bb_billboard_act(&c->bb, h, features, q, action);
out:
    free(scratch);
    return rc;
}

/* JSON array [[d numbers] x A] of features; new reference or NULL. */
static json_t *features_json(const double *f, int A, int d)
{
    json_t *rows = json_array();
    for (int a = 0; rows && a < A; a++) {
        json_t *row = json_array();
        for (int j = 0; row && j < d; j++)
            if (json_array_append_new(row, json_real(f[(size_t)a * d + j])) != 0) {
                json_decref(row);
                row = NULL;
            }
        if (!row || json_array_append_new(rows, row) != 0) {
            json_decref(rows);
            return NULL;
        }
    }
    return rows;
}

int bb_client_recommend_remote(struct bb_client *c, int h, const double *features, int A, int d,
                               uint64_t version, double *q, int *action, uint64_t *used_version)
{
    struct transport_resp r = {0};
    json_t *req = NULL, *ans = NULL;
    char *body = NULL;
    int rc = BB_ENOMEM;

    req = json_object();
    json_t *f = features_json(features, A, d);
    if (!req || !f || json_object_set_new(req, "h", json_integer(h)) != 0 ||
        json_object_set_new(req, "features", f) != 0) {
        if (!req)
            json_decref(f);
        goto out;
    }
    if (version != UINT64_MAX &&
        json_object_set_new(req, "billboard_version", json_integer((json_int_t)version)) != 0)
        goto out;
    body = json_dumps(req, JSON_COMPACT | JSON_REAL_PRECISION(17));
    if (!body)
        goto out;
    rc = request(c, "POST", "/v1/recommend", AUTH_CLINIC, NULL, body, strlen(body), 1, &r);
    if (rc != BB_OK)
        goto out;
    rc = body_json(c, &r, &ans);
    if (rc != BB_OK)
        goto out;
    json_t *ja = json_object_get(ans, "action"), *jq = json_object_get(ans, "q"),
           *jv = json_object_get(ans, "billboard_version");
    rc = BB_EPROTO;
    if (!json_is_integer(ja) || !json_is_array(jq) || json_array_size(jq) != (size_t)A) {
        say(c, "malformed answer", "recommend answer lacks action or q[A]");
        goto out;
    }
    if (action)
        *action = (int)json_integer_value(ja);
    for (int a = 0; q && a < A; a++)
        q[a] = json_number_value(json_array_get(jq, (size_t)a));
    if (used_version)
        *used_version = json_is_integer(jv) ? (uint64_t)json_integer_value(jv) : UINT64_MAX;
    rc = BB_OK;
out:
    json_decref(req);
    json_decref(ans);
    free(body);
    transport_resp_release(&r);
    return rc;
}

/* ------------------------------------------------------------------ */

void bb_client_new_key(char buf[65])
{
    unsigned char raw[32];
    pthread_once(&sodium_once, sodium_start);
    randombytes_buf(raw, sizeof(raw));
    sodium_bin2hex(buf, 65, raw, sizeof(raw));
    sodium_memzero(raw, sizeof(raw));
}

static int key_ok(const char *key)
{
    size_t n = strlen(key);
    if (n < 1 || n > BB_CLIENT_KEY_MAX)
        return 0;
    for (const char *p = key; *p; p++)
        if (*p < 0x21 || *p > 0x7e)
            return 0;
    return 1;
}

/* Local check of e before it costs a round trip; says why in c. */
static int check_episode(struct bb_client *c, const struct bb_episode_buf *e)
{
    char field[128] = "", why[256] = "";
    struct bb_episode v = bb_episode_buf_view(e);
    int rc = bb_episode_check(&v, e->H, e->A, e->d, field, sizeof(field), why, sizeof(why));
    if (rc != BB_OK) {
        char detail[512];
        snprintf(detail, sizeof(detail), "%s: %s", field, why);
        say(c, "invalid episode", detail);
    }
    return rc;
}

int bb_client_submit(struct bb_client *c, const struct bb_episode_buf *e, const char *key,
                     struct bb_client_receipt *receipt)
{
    struct transport_resp r = {0};
    json_t *ans = NULL;
    char *body = NULL, fresh[65], kh[BB_CLIENT_KEY_MAX + 32];
    const char *extra[2] = {kh, NULL};
    size_t len = 0;
    int rc = BB_EINVAL;

    forget_answer(c);
    if (!key) {
        bb_client_new_key(fresh);
        key = fresh;
    }
    if (!key_ok(key)) {
        say(c, "bad idempotency key", "1 to 128 printable ASCII characters");
        goto out;
    }
    rc = check_episode(c, e);
    if (rc != BB_OK)
        goto out;
    rc = BB_ENOMEM;
    body = bb_episode_to_json(e, &len);
    if (!body)
        goto out;
    snprintf(kh, sizeof(kh), "Idempotency-Key: %s", key);
    rc = request(c, "POST", "/v1/episodes", AUTH_CLINIC, extra, body, len, 1, &r);
    if (rc != BB_OK)
        goto out;
    rc = body_json(c, &r, &ans);
    if (rc != BB_OK)
        goto out;
    json_t *jk = json_object_get(ans, "episode"), *jv = json_object_get(ans, "billboard_version");
    if (!json_is_integer(jk)) {
        say(c, "malformed answer", "episode answer lacks \"episode\"");
        rc = BB_EPROTO;
        goto out;
    }
    if (receipt) {
        receipt->episode = (uint64_t)json_integer_value(jk);
        receipt->billboard_version =
            json_is_integer(jv) ? (uint64_t)json_integer_value(jv) : e->billboard_version;
        receipt->status = (int)r.status;
    }
out:
    json_decref(ans);
    free(body);
    transport_resp_release(&r);
    return rc;
}

/* ------------------------------------------------------------------ */

static int need_store(struct bb_client *c)
{
    forget_answer(c);
    if (c->st)
        return BB_OK;
    say(c, "no state file", "this call needs a local state file");
    return BB_EINVAL;
}

int bb_client_episode_begin(struct bb_client *c, int H, int A, int d, uint64_t billboard_version,
                            int64_t *id)
{
    char key[65];
    int rc = need_store(c);
    if (rc != BB_OK)
        goto out;
    rc = BB_EINVAL;
    if (H < 1 || A < 1 || d < 1)
        goto out;
    bb_client_new_key(key);
    rc = statestore_begin(c->st, H, A, d, billboard_version, key, id);
out:
    return rc;
}

int bb_client_episode_step(struct bb_client *c, int64_t id, const double *features, int action,
                           double reward)
{
    int H, A, d, steps;
    enum statestore_state state;
    char field[128] = "", why[256] = "";
    int rc = need_store(c);
    if (rc != BB_OK)
        goto out;
    rc = statestore_info(c->st, id, &H, &A, &d, &steps, &state);
    if (rc == BB_OK && state != ST_OPEN)
        rc = BB_ENOTFOUND;
    if (rc != BB_OK) {
        say(c, "no such open episode", "");
        goto out;
    }
    if (steps >= H) {
        say(c, "episode complete", "it already has H steps; finish it");
        rc = BB_ERANGE;
        goto out;
    }
    /* The one-step view goes through the same check as a whole episode. */
    struct bb_episode v = {.features = features, .action = &action, .reward = &reward};
    rc = bb_episode_check(&v, 1, A, d, field, sizeof(field), why, sizeof(why));
    if (rc != BB_OK) {
        char detail[512];
        /* field is "/steps/0/...": name the real step. */
        const char *tail = strchr(field + (field[0] == '/'), '/');
        tail = tail ? strchr(tail + 1, '/') : NULL;
        snprintf(detail, sizeof(detail), "/steps/%d%s: %s", steps, tail ? tail : "", why);
        say(c, "invalid step", detail);
        goto out;
    }
    rc = statestore_step(c->st, id, features, action, reward);
out:
    return rc;
}

int bb_client_episode_finish(struct bb_client *c, int64_t id)
{
    int rc = need_store(c);
    if (rc == BB_OK)
        rc = statestore_finish(c->st, id);
    if (rc == BB_ERANGE)
        say(c, "episode incomplete", "it has fewer than H steps");
    return rc;
}

int bb_client_episode_abort(struct bb_client *c, int64_t id)
{
    int rc = need_store(c);
    if (rc == BB_OK)
        rc = statestore_abort(c->st, id);
    return rc;
}

int bb_client_episode_current(struct bb_client *c, int64_t *id, int *steps)
{
    int rc = need_store(c);
    if (rc == BB_OK)
        rc = statestore_current(c->st, id);
    if (rc == BB_OK && steps)
        rc = statestore_info(c->st, *id, NULL, NULL, NULL, steps, NULL);
    return rc;
}

int bb_client_enqueue(struct bb_client *c, const struct bb_episode_buf *e, const char *key,
                      int64_t *id)
{
    char fresh[65];
    int rc = need_store(c);
    if (rc != BB_OK)
        goto out;
    if (!key) {
        bb_client_new_key(fresh);
        key = fresh;
    }
    rc = BB_EINVAL;
    if (!key_ok(key)) {
        say(c, "bad idempotency key", "1 to 128 printable ASCII characters");
        goto out;
    }
    rc = check_episode(c, e);
    if (rc == BB_OK)
        rc = statestore_enqueue(c->st, e, key, id);
    if (rc == BB_ECONFLICT)
        say(c, "key in use",
            "this idempotency key already belongs to an episode in the state file");
out:
    return rc;
}

int bb_client_episode_load(struct bb_client *c, int64_t id, struct bb_episode_buf *out, char *key,
                           int *steps)
{
    memset(out, 0, sizeof(*out));
    int rc = need_store(c);
    if (rc == BB_OK)
        rc = statestore_load(c->st, id, out, key, steps);
    if (rc != BB_OK)
        bb_episode_buf_release(out);
    return rc;
}

int bb_client_pending(struct bb_client *c, long *open, long *unsent)
{
    int rc = need_store(c);
    if (rc == BB_OK && open)
        rc = statestore_count(c->st, ST_OPEN, open);
    if (rc == BB_OK && unsent)
        rc = statestore_count(c->st, ST_UNSENT, unsent);
    return rc;
}

int bb_client_episodes(struct bb_client *c, json_t **out)
{
    *out = NULL;
    int rc = need_store(c);
    if (rc == BB_OK)
        rc = statestore_list(c->st, out);
    return rc;
}

int bb_client_prune(struct bb_client *c, long *pruned)
{
    int rc = need_store(c);
    if (rc == BB_OK)
        rc = statestore_prune(c->st, pruned);
    return rc;
}

/* Errors that concern one episode only: the flush marks it and goes on. */
static int episode_specific(int err)
{
    return err == BB_EINVAL || err == BB_EPROTO || err == BB_ECONFLICT;
}

int bb_client_flush(struct bb_client *c, bb_client_progress_fn progress, void *user, size_t *sent)
{
    int64_t *ids = NULL;
    size_t n = 0, ok = 0;
    int first = BB_OK;
    char key[BB_CLIENT_KEY_MAX + 1];
    int rc = need_store(c);
    if (rc != BB_OK)
        goto out;
    rc = statestore_unsent(c->st, &ids, &n);
    if (rc != BB_OK)
        goto out;
    for (size_t i = 0; i < n; i++) {
        struct bb_episode_buf e;
        struct bb_client_receipt rcpt;
        rc = statestore_load(c->st, ids[i], &e, key, NULL);
        if (rc == BB_OK)
            rc = bb_client_submit(c, &e, key, &rcpt);
        bb_episode_buf_release(&e);
        if (rc == BB_OK) {
            rc = statestore_mark_sent(c->st, ids[i], rcpt.episode, rcpt.billboard_version);
            if (rc != BB_OK)
                goto out;
            ok++;
        } else if ((episode_specific(rc) && c->status >= 400) ||
                   (rc == BB_EINVAL && c->status == 0)) {
            /* Refused by the daemon, or by the local check (a state file
             * edited behind our back): kept, marked, and out of the way of
             * the episodes queued after it. */
            char reason[1400];
            snprintf(reason, sizeof(reason), "HTTP %d %s: %s", c->status, c->title, c->detail);
            int mrc = statestore_mark_rejected(c->st, ids[i], reason);
            if (mrc != BB_OK) {
                rc = mrc;
                goto out;
            }
            if (first == BB_OK)
                first = rc;
        } else {
            goto out;
        }
        if (progress)
            progress(user, i + 1, n);
    }
    rc = first;
out:
    if (sent)
        *sent = ok;
    free(ids);
    return rc;
}

/* ------------------------------------------------------------------ */

int bb_client_privacy(struct bb_client *c, json_t **out)
{
    return get_json(c, "/v1/privacy", AUTH_NONE, out);
}

int bb_client_config(struct bb_client *c, json_t **out)
{
    return get_json(c, "/v1/config", AUTH_NONE, out);
}

int bb_client_sizes(struct bb_client *c, int *H, int *A, int *d)
{
    json_t *cfg = NULL;
    int rc = bb_client_config(c, &cfg);
    if (rc != BB_OK)
        goto out;
    json_t *jh = json_object_get(cfg, "H"), *ja = json_object_get(cfg, "A"),
           *jd = json_object_get(cfg, "d");
    if (!json_is_integer(jh) || !json_is_integer(ja) || !json_is_integer(jd)) {
        say(c, "malformed answer", "config lacks H, A or d");
        rc = BB_EPROTO;
        goto out;
    }
    *H = (int)json_integer_value(jh);
    *A = (int)json_integer_value(ja);
    *d = (int)json_integer_value(jd);
out:
    json_decref(cfg);
    return rc;
}

/* ------------------------------------------------------------------ */

int bb_client_clinic_add(struct bb_client *c, const char *name, json_t **out)
{
    struct transport_resp r = {0};
    json_t *req = json_pack("{s:s}", "name", name);
    char *body = NULL;
    int rc = BB_ENOMEM;
    *out = NULL;
    if (!req || !(body = json_dumps(req, JSON_COMPACT)))
        goto out;
    rc = request(c, "POST", "/v1/clinics", AUTH_ADMIN, NULL, body, strlen(body), 0, &r);
    if (rc == BB_OK)
        rc = body_json(c, &r, out);
out:
    json_decref(req);
    free(body);
    if (r.body)
        sodium_memzero(r.body, r.len); /* it held the new clinic's token */
    transport_resp_release(&r);
    return rc;
}

int bb_client_clinic_list(struct bb_client *c, json_t **out)
{
    return get_json(c, "/v1/clinics", AUTH_ADMIN, out);
}

int bb_client_clinic_revoke(struct bb_client *c, const char *id)
{
    struct transport_resp r;
    char path[160];
    int rc = BB_EINVAL;
    forget_answer(c);
    for (const char *p = id; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              *p == '-' || *p == '_'))
            goto out;
    if (!*id || strlen(id) > 100)
        goto out;
    snprintf(path, sizeof(path), "/v1/clinics/%s", id);
    /* DELETE is idempotent: safe to retry. */
    rc = request(c, "DELETE", path, AUTH_ADMIN, NULL, NULL, 0, 1, &r);
    transport_resp_release(&r);
out:
    if (rc == BB_EINVAL && c->status == 0)
        say(c, "bad clinic id", "letters, digits, '-' and '_' only");
    return rc;
}
