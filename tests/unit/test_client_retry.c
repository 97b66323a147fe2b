/*
 * test_client_retry.c — the retry policy of libbillboard: which errors are
 * transient, how waits grow and are capped, how HTTP statuses and problem
 * type URIs map to enum bb_err, how Retry-After is read and bounded; and the
 * client's behaviour on the wire against a scripted HTTP responder on
 * 127.0.0.1 (the real billboardd cannot be made to answer 5xx or 429 on
 * demand): 5xx, 429 and network errors are retried with the same key and
 * body, other 4xx never, a Retry-After beyond the time budget ends the
 * retries, the attempt cap and the total-time cap hold, a 304 keeps the
 * cached billboard without parsing, and the billboard kept in the state file
 * serves the next process (If-None-Match, outage fallback).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "billboard/client.h"
#include "billboard/problem.h"
#include "retry.h"

/* ---------------- pure policy ---------------- */

static void test_transient_classification(void **state)
{
    (void)state;
    static const struct {
        int err, transient;
    } t[] = {{BB_ENET, 1},      {BB_ESERVER, 1}, {BB_EAUTH, 0},  {BB_EINVAL, 0},
             {BB_ECONFLICT, 0}, {BB_EFULL, 0},   {BB_EPROTO, 0}, {BB_ENOTFOUND, 0},
             {BB_ENOMEM, 0},    {BB_EIO, 0},     {BB_OK, 0},     {BB_ETLS, 0}};
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        assert_int_equal(retry_is_transient(t[i].err), t[i].transient);
}

static void test_status_mapping(void **state)
{
    (void)state;
    static const struct {
        long status;
        const char *type;
        int err;
    } t[] = {
        {200, NULL, BB_OK},
        {201, NULL, BB_OK},
        {304, NULL, BB_OK},
        {400, BB_PROBLEM_MALFORMED, BB_EPROTO},
        {401, BB_PROBLEM_UNAUTHORIZED, BB_EAUTH},
        {403, BB_PROBLEM_FORBIDDEN, BB_EAUTH},
        {404, NULL, BB_ENOTFOUND},
        {409, BB_PROBLEM_KEY_REUSED, BB_ECONFLICT},
        {409, BB_PROBLEM_CONFLICT, BB_ECONFLICT},
        {409, BB_PROBLEM_EPISODE_BUDGET, BB_EFULL},
        {409, BB_PROBLEM_UPDATE_CAP, BB_ECAP},
        {409, NULL, BB_ECONFLICT},
        /* Only the exact URI counts, not a look-alike. */
        {409, "urn:billboard:problem:episode-budget", BB_ECONFLICT},
        {409, "urn:billboard:problem:update-cap-reached-x", BB_ECONFLICT},
        {413, NULL, BB_EINVAL},
        {415, NULL, BB_EPROTO},
        {422, BB_PROBLEM_VALIDATION, BB_EINVAL},
        {429, NULL, BB_ESERVER},
        {431, BB_PROBLEM_HEADERS_TOO_LARGE, BB_EINVAL},
        {500, NULL, BB_ESERVER},
        {503, BB_PROBLEM_STORAGE, BB_ESERVER},
        {599, NULL, BB_ESERVER},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (retry_status_err(t[i].status, t[i].type) != t[i].err)
            fail_msg("HTTP %ld %s -> %d, want %d", t[i].status, t[i].type ? t[i].type : "-",
                     retry_status_err(t[i].status, t[i].type), t[i].err);
    /* 429 is the one 4xx worth another try. */
    assert_true(retry_is_transient(retry_status_err(429, NULL)));
    assert_false(retry_is_transient(retry_status_err(409, BB_PROBLEM_EPISODE_BUDGET)));
}

static void test_retry_after_parsing(void **state)
{
    (void)state;
    /* Sun, 06 Nov 1994 08:49:37 GMT is 784111777 (RFC 9110's example). */
    const time_t at = 784111777;
    static const struct {
        const char *value;
        long now_offset; /* now = at + now_offset */
        long ms;
    } t[] = {
        {NULL, 0, -1},
        {"", 0, -1},
        {"0", 0, 0},
        {"5", 0, 5000},
        {"120", 0, 120000},
        {"86400", 0, 86400000},
        {"86401", 0, 86400000},                   /* at most a day */
        {"99999999999999999999999", 0, 86400000}, /* no overflow */
        {"-1", 0, -1},
        {"5s", 0, -1},
        {"1.5", 0, -1},
        {"Sun, 06 Nov 1994 08:49:37 GMT", -10, 10000},
        {"Sun, 06 Nov 1994 08:49:37 GMT", 0, 0},
        {"Sun, 06 Nov 1994 08:49:37 GMT", 3600, 0}, /* in the past: now */
        {"Sun, 06 Nov 1994 08:50:37 GMT", 0, 60000},
        {"Thu, 01 Jan 1970 00:00:00 GMT", -(long)784111777, 0},
        {"Mon, 29 Feb 2016 12:00:00 GMT", 1456747200L - 784111777L - 2, 2000},
        {"Sun, 06 Nov 1994 08:49:37 UTC", 0, -1},
        {"Sun, 06 Foo 1994 08:49:37 GMT", 0, -1},
        {"Sunday, 06-Nov-94 08:49:37 GMT", 0, -1}, /* obsolete RFC 850 form */
        {"Sun, 06 Nov 1994 25:49:37 GMT", 0, -1},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        long got = retry_after_ms(t[i].value, at + t[i].now_offset);
        if (got != t[i].ms)
            fail_msg("Retry-After '%s' -> %ld ms, want %ld", t[i].value ? t[i].value : "(null)",
                     got, t[i].ms);
    }
}

static void test_retry_after_decision(void **state)
{
    (void)state;
    struct bb_client_retry p = {
        .max_attempts = 6, .base_ms = 100, .cap_ms = 5000, .total_ms = 30000, .timeout_ms = 1000};
    /* Without Retry-After: the backoff (jitter 0: half the nominal wait). */
    assert_int_equal(retry_next_wait_ms(&p, 1, 0.0, 503, -1), 50);
    assert_int_equal(retry_next_wait_ms(&p, 3, 0.0, 0, -1), 200);
    /* 503 and 429 with Retry-After: at least what the daemon asks... */
    assert_int_equal(retry_next_wait_ms(&p, 1, 0.0, 503, 2000), 2000);
    assert_int_equal(retry_next_wait_ms(&p, 1, 0.0, 429, 3000), 3000);
    /* ...never less than the backoff... */
    assert_int_equal(retry_next_wait_ms(&p, 4, 0.0, 503, 0), 400);
    /* ...and never more than the longest single wait. */
    assert_int_equal(retry_next_wait_ms(&p, 1, 0.0, 503, 3600000), 5000);
    assert_int_equal(retry_next_wait_ms(&p, 1, 0.0, 429, 86400000), 5000);
    /* Other statuses ignore it. */
    assert_int_equal(retry_next_wait_ms(&p, 1, 0.0, 500, 2000), 50);
    assert_int_equal(retry_next_wait_ms(&p, 1, 0.0, 0, 2000), 50);
    /* A wait the total budget cannot hold ends the retries. */
    assert_false(retry_allowed(&p, 1, 26000, retry_next_wait_ms(&p, 1, 0.0, 503, 5000)));
    assert_true(retry_allowed(&p, 1, 25000, retry_next_wait_ms(&p, 1, 0.0, 503, 5000)));
}

static void test_backoff_grows_and_caps(void **state)
{
    (void)state;
    struct bb_client_retry p = {
        .max_attempts = 10, .base_ms = 100, .cap_ms = 1000, .total_ms = 5000, .timeout_ms = 1000};
    /* jitter 0: half the nominal wait; jitter -> 1: the nominal wait. */
    assert_int_equal(retry_wait_ms(&p, 1, 0.0), 50);
    assert_int_equal(retry_wait_ms(&p, 2, 0.0), 100);
    assert_int_equal(retry_wait_ms(&p, 3, 0.0), 200);
    assert_int_equal(retry_wait_ms(&p, 4, 0.0), 400);
    assert_int_equal(retry_wait_ms(&p, 5, 0.0), 500);  /* capped at 1000 */
    assert_int_equal(retry_wait_ms(&p, 50, 0.0), 500); /* no overflow */
    assert_true(retry_wait_ms(&p, 1, 0.999) <= 100 && retry_wait_ms(&p, 1, 0.999) >= 99);
    assert_true(retry_wait_ms(&p, 9, 0.999) <= 1000);
    /* Attempt cap and total-time cap. */
    assert_true(retry_allowed(&p, 9, 0, 10));
    assert_false(retry_allowed(&p, 10, 0, 10));
    assert_true(retry_allowed(&p, 1, 4000, 1000));
    assert_false(retry_allowed(&p, 1, 4001, 1000));
}

/* ---------------- scripted responder ---------------- */

struct answer {
    int status;
    const char *headers; /* extra header lines, each ending \r\n */
    const char *body;
};

struct responder {
    int fd, port;
    const struct answer *script;
    int n, served;
    char keys[16][160]; /* Idempotency-Key of each request */
    char inm[16][160];  /* If-None-Match of each request */
    size_t body_len[16];
    pthread_t thread;
};

static void header(const char *req, const char *name, char *out, size_t outlen)
{
    out[0] = '\0';
    const char *p = strcasestr(req, name);
    if (!p)
        return;
    p += strlen(name);
    while (*p == ' ')
        p++;
    size_t n = strcspn(p, "\r\n");
    if (n >= outlen)
        n = outlen - 1;
    memcpy(out, p, n);
    out[n] = '\0';
}

static void *serve(void *arg)
{
    struct responder *r = arg;
    while (r->served < r->n) {
        int c = accept(r->fd, NULL, NULL);
        if (c < 0)
            break;
        char req[65536];
        size_t len = 0;
        char *end = NULL;
        while (len < sizeof(req) - 1) {
            ssize_t k = read(c, req + len, sizeof(req) - 1 - len);
            if (k <= 0)
                break;
            len += (size_t)k;
            req[len] = '\0';
            if ((end = strstr(req, "\r\n\r\n"))) {
                char cl[32];
                header(req, "Content-Length:", cl, sizeof(cl));
                size_t want = (size_t)(end + 4 - req) + (size_t)strtoul(cl, NULL, 10);
                if (len >= want)
                    break;
            }
        }
        int i = r->served;
        header(req, "Idempotency-Key:", r->keys[i], sizeof(r->keys[i]));
        header(req, "If-None-Match:", r->inm[i], sizeof(r->inm[i]));
        r->body_len[i] = end ? len - (size_t)(end + 4 - req) : 0;
        const struct answer *a = &r->script[i];
        char out[70000];
        size_t bl = a->body ? strlen(a->body) : 0;
        int n = snprintf(out, sizeof(out),
                         "HTTP/1.1 %d X\r\nConnection: close\r\nContent-Length: %zu\r\n%s\r\n%s",
                         a->status, bl, a->headers ? a->headers : "", a->body ? a->body : "");
        ssize_t w = write(c, out, (size_t)n);
        (void)w;
        close(c);
        r->served++;
    }
    return NULL;
}

static void responder_start(struct responder *r, const struct answer *script, int n)
{
    memset(r, 0, sizeof(*r));
    r->script = script;
    r->n = n;
    r->fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(r->fd >= 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = 0};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(r->fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(listen(r->fd, 16), 0);
    socklen_t sl = sizeof(sa);
    assert_int_equal(getsockname(r->fd, (struct sockaddr *)&sa, &sl), 0);
    r->port = ntohs(sa.sin_port);
    assert_int_equal(pthread_create(&r->thread, NULL, serve, r), 0);
}

static void responder_stop(struct responder *r)
{
    shutdown(r->fd, SHUT_RDWR); /* unblocks accept if the script was not used up */
    pthread_join(r->thread, NULL);
    close(r->fd);
}

static struct bb_client *client_for(int port)
{
    char url[64];
    struct bb_client *c = NULL;
    snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
    assert_int_equal(bb_client_new(url, "clinic-token", NULL, &c), BB_OK);
    struct bb_client_retry p = {
        .max_attempts = 4, .base_ms = 1, .cap_ms = 4, .total_ms = 2000, .timeout_ms = 2000};
    assert_int_equal(bb_client_set_retry(c, &p), BB_OK);
    return c;
}

static void small_episode(struct bb_episode_buf *e)
{
    assert_int_equal(bb_episode_buf_init(e, 2, 2, 2), BB_OK);
    for (int i = 0; i < 8; i++)
        e->features[i] = 0.5;
    e->action[0] = 1;
    e->reward[0] = 0.5;
    e->reward[1] = 1.0;
}

static const char problem[] = "Content-Type: application/problem+json\r\n";

static void test_5xx_retried_with_same_key(void **state)
{
    (void)state;
    const struct answer script[] = {
        {503, problem, "{\"title\":\"busy\"}"},
        {500, NULL, ""},
        {201, "Content-Type: application/json\r\n", "{\"episode\": 5, \"billboard_version\": 2}"},
    };
    struct responder r;
    struct bb_episode_buf e;
    struct bb_client_receipt rc = {0};
    responder_start(&r, script, 3);
    struct bb_client *c = client_for(r.port);
    small_episode(&e);
    assert_int_equal(bb_client_submit(c, &e, "key-abc", &rc), BB_OK);
    assert_int_equal(bb_client_last_attempts(c), 3);
    assert_int_equal(rc.episode, 5);
    assert_int_equal(rc.billboard_version, 2);
    assert_int_equal(rc.status, 201);
    responder_stop(&r);
    assert_int_equal(r.served, 3);
    for (int i = 0; i < 3; i++) {
        assert_string_equal(r.keys[i], "key-abc");
        assert_int_equal(r.body_len[i], r.body_len[0]);
    }
    assert_true(r.body_len[0] > 0);
    bb_episode_buf_release(&e);
    bb_client_free(c);
}

static void test_4xx_never_retried(void **state)
{
    (void)state;
    const struct answer script[] = {
        {422, problem, "{\"title\":\"invalid episode\",\"detail\":\"/steps/0/reward: > 1\"}"},
        {409, problem,
         "{\"type\":\"" BB_PROBLEM_EPISODE_BUDGET "\",\"title\":\"no more episodes\"}"},
        {409, problem, "{\"type\":\"" BB_PROBLEM_UPDATE_CAP "\",\"title\":\"sorry\"}"},
        /* The title names K_max, the type says key reuse: the type decides. */
        {409, problem,
         "{\"type\":\"" BB_PROBLEM_KEY_REUSED "\",\"title\":\"K_max episodes exhausted\"}"},
        {401, problem, "{\"title\":\"bad token\"}"},
        {403, problem, "{\"type\":\"" BB_PROBLEM_FORBIDDEN "\",\"title\":\"wrong role\"}"},
        {431, problem, "{\"type\":\"" BB_PROBLEM_HEADERS_TOO_LARGE "\",\"title\":\"big\"}"},
    };
    static const int want[] = {BB_EINVAL, BB_EFULL, BB_ECAP,  BB_ECONFLICT,
                               BB_EAUTH,  BB_EAUTH, BB_EINVAL};
    enum { N = sizeof(want) / sizeof(want[0]) };
    struct responder r;
    struct bb_episode_buf e;
    responder_start(&r, script, N);
    struct bb_client *c = client_for(r.port);
    small_episode(&e);
    for (int i = 0; i < N; i++) {
        assert_int_equal(bb_client_submit(c, &e, NULL, NULL), want[i]);
        assert_int_equal(bb_client_last_attempts(c), 1);
        assert_int_equal(bb_client_last_status(c), script[i].status);
    }
    responder_stop(&r);
    assert_int_equal(r.served, N);
    bb_episode_buf_release(&e);
    bb_client_free(c);
}

/* 429 is retried; a Retry-After longer than the longest single wait is cut
 * to it (cap 4 ms here), so the retry comes and succeeds. */
static void test_429_and_long_retry_after_retried(void **state)
{
    (void)state;
    const struct answer script[] = {
        {429, "Retry-After: 3600\r\nContent-Type: application/problem+json\r\n",
         "{\"title\":\"slow down\"}"},
        {503, "Retry-After: Sun, 06 Nov 1994 08:49:37 GMT\r\n", ""},
        {201, "Content-Type: application/json\r\n", "{\"episode\": 7, \"billboard_version\": 1}"},
    };
    struct responder r;
    struct bb_episode_buf e;
    struct bb_client_receipt rc = {0};
    responder_start(&r, script, 3);
    struct bb_client *c = client_for(r.port);
    small_episode(&e);
    assert_int_equal(bb_client_submit(c, &e, "key-429", &rc), BB_OK);
    assert_int_equal(bb_client_last_attempts(c), 3);
    assert_int_equal(rc.episode, 7);
    responder_stop(&r);
    assert_string_equal(r.keys[0], "key-429");
    assert_string_equal(r.keys[2], "key-429");
    bb_episode_buf_release(&e);
    bb_client_free(c);
}

/* A 503 whose Retry-After asks for more than the call's total waiting
 * budget is not retried early: the budget (500 ms) cannot hold the 2 s the
 * daemon asked for, so there is one attempt. Without Retry-After the same
 * policy retries (its 1 ms backoff fits). Decided without a clock. */
static void test_retry_after_respected(void **state)
{
    (void)state;
    const struct answer script[] = {
        {503, "Retry-After: 2\r\nContent-Type: application/problem+json\r\n",
         "{\"type\":\"" BB_PROBLEM_STORAGE "\",\"title\":\"Storage unavailable\"}"},
        {503, "Content-Type: application/problem+json\r\n", "{\"title\":\"busy\"}"},
        {200, "Content-Type: application/json\r\n", "{\"H\": 2, \"d\": 1, \"A\": 2}"},
    };
    struct responder r;
    struct bb_config_info j = {0};
    responder_start(&r, script, 3);
    struct bb_client *c = client_for(r.port);
    struct bb_client_retry p = {
        .max_attempts = 4, .base_ms = 1, .cap_ms = 5000, .total_ms = 500, .timeout_ms = 2000};
    assert_int_equal(bb_client_set_retry(c, &p), BB_OK);
    assert_int_equal(bb_client_config(c, &j), BB_ESERVER);
    assert_int_equal(bb_client_last_attempts(c), 1);
    assert_int_equal(bb_client_last_status(c), 503);
    assert_int_equal(j.H, 0); /* nothing decoded */
    assert_int_equal(bb_client_config(c, &j), BB_OK);
    assert_int_equal(bb_client_last_attempts(c), 2);
    bb_config_info_release(&j);
    responder_stop(&r);
    assert_int_equal(r.served, 3);
    bb_client_free(c);
}

static void test_problem_detail_kept(void **state)
{
    (void)state;
    const struct answer script[] = {
        {422, problem, "{\"title\":\"invalid episode\",\"detail\":\"/steps/0/reward: > 1\"}"},
    };
    struct responder r;
    struct bb_episode_buf e;
    responder_start(&r, script, 1);
    struct bb_client *c = client_for(r.port);
    small_episode(&e);
    assert_int_equal(bb_client_submit(c, &e, NULL, NULL), BB_EINVAL);
    assert_string_equal(bb_client_last_title(c), "invalid episode");
    assert_string_equal(bb_client_last_detail(c), "/steps/0/reward: > 1");
    responder_stop(&r);
    bb_episode_buf_release(&e);
    bb_client_free(c);
}

static void test_attempt_and_time_caps(void **state)
{
    (void)state;
    const struct answer script[] = {{503, NULL, ""}, {503, NULL, ""}, {503, NULL, ""},
                                    {503, NULL, ""}, {503, NULL, ""}, {503, NULL, ""}};
    struct responder r;
    struct bb_privacy_budget pb = {0};
    struct bb_config_info j = {0};
    responder_start(&r, script, 6);
    struct bb_client *c = client_for(r.port);
    assert_int_equal(bb_client_privacy(c, &pb), BB_ESERVER);
    assert_int_equal(pb.max_episodes, 0); /* nothing decoded */
    assert_int_equal(bb_client_last_attempts(c), 4); /* max_attempts */
    /* A total budget of 0 ms allows no retry at all. */
    struct bb_client_retry p = bb_client_retry_default();
    p.total_ms = 0;
    assert_int_equal(bb_client_set_retry(c, &p), BB_OK);
    assert_int_equal(bb_client_config(c, &j), BB_ESERVER);
    assert_int_equal(bb_client_last_attempts(c), 1);
    p.max_attempts = 0;
    assert_int_equal(bb_client_set_retry(c, &p), BB_EINVAL);
    bb_client_free(c);
    responder_stop(&r);
    assert_int_equal(r.served, 5);
}

static void test_network_error_retried(void **state)
{
    (void)state;
    /* A port that was just free: nothing listens there. */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = 0};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sl = sizeof(sa);
    assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
    close(fd);
    struct bb_client *c = client_for(ntohs(sa.sin_port));
    struct bb_privacy_budget j = {0};
    assert_int_equal(bb_client_privacy(c, &j), BB_ENET);
    assert_int_equal(bb_client_last_attempts(c), 4);
    assert_int_equal(bb_client_last_status(c), 0);
    assert_true(bb_client_last_detail(c)[0] != '\0');
    bb_client_free(c);
}

static void test_etag_304_keeps_billboard(void **state)
{
    (void)state;
    struct bb_billboard b = {0};
    assert_int_equal(bb_billboard_init(&b, 2, 2, 3), BB_OK);
    b.version = 4;
    b.beta = 1.0;
    for (int h = 0; h < 2; h++) {
        b.gram[h * 4 + 0] = b.gram[h * 4 + 3] = 2.0;
        b.w[h * 2] = 0.5;
    }
    size_t len;
    char *json = bb_billboard_to_json(&b, &len);
    assert_non_null(json);
    const struct answer script[] = {
        {200, "Content-Type: application/json\r\nETag: \"bb-4\"\r\n", json},
        {304, "ETag: \"bb-4\"\r\n", NULL},
        {503, NULL, NULL},
    };
    struct responder r;
    int changed = -1;
    responder_start(&r, script, 3);
    struct bb_client *c = client_for(r.port);
    assert_null(bb_client_billboard(c));
    assert_int_equal(bb_client_fetch_billboard(c, &changed), BB_OK);
    assert_int_equal(changed, 1);
    const struct bb_billboard *got = bb_client_billboard(c);
    assert_non_null(got);
    assert_int_equal(got->version, 4);
    assert_true(got->factored);
    assert_string_equal(bb_client_billboard_etag(c), "\"bb-4\"");
    assert_int_equal(bb_client_fetch_billboard(c, &changed), BB_OK);
    assert_int_equal(changed, 0);
    assert_ptr_equal(bb_client_billboard(c), got); /* nothing replaced */
    /* A failed fetch keeps the cached billboard too. */
    struct bb_client_retry p = bb_client_retry_default();
    p.max_attempts = 1;
    assert_int_equal(bb_client_set_retry(c, &p), BB_OK);
    assert_int_equal(bb_client_fetch_billboard(c, &changed), BB_ESERVER);
    assert_ptr_equal(bb_client_billboard(c), got);
    responder_stop(&r);
    assert_string_equal(r.inm[0], "");
    assert_string_equal(r.inm[1], "\"bb-4\"");
    /* Local policy = the shared function on the same billboard. */
    double f[6] = {0.6, 0, 0, 0.6, 0.3, 0.3}, q1[3], q2[3];
    int a1, a2;
    assert_int_equal(bb_billboard_factor(&b), BB_OK);
    assert_int_equal(bb_client_recommend_local(c, 1, f, q1, &a1), BB_OK);
    assert_int_equal(bb_billboard_act(&b, 1, f, q2, &a2), BB_OK);
    assert_int_equal(a1, a2);
    assert_memory_equal(q1, q2, sizeof(q1));
    assert_int_equal(bb_client_recommend_local(c, 3, f, q1, &a1), BB_ERANGE);
    bb_client_free(c);
    free(json);
    bb_billboard_release(&b);
}

/* With a state file, the billboard fetched by one process is what the next
 * asks about with If-None-Match, and what it falls back on in an outage. */
static void test_billboard_cached_in_state_file(void **state)
{
    (void)state;
    struct bb_billboard b = {0};
    assert_int_equal(bb_billboard_init(&b, 1, 2, 2), BB_OK);
    b.version = 9;
    b.gram[0] = b.gram[3] = 1.0;
    size_t len;
    char *json = bb_billboard_to_json(&b, &len);
    const struct answer script[] = {
        {200, "Content-Type: application/json\r\nETag: \"bb-9\"\r\n", json},
        {304, "ETag: \"bb-9\"\r\n", NULL},
        {503, NULL, NULL},
    };
    char dir[] = "/tmp/bbccXXXXXX", path[64], url[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/state.db", dir);
    struct responder r;
    responder_start(&r, script, 3);
    snprintf(url, sizeof(url), "http://127.0.0.1:%d", r.port);
    struct bb_client_retry p = bb_client_retry_default();
    p.max_attempts = 1;
    int changed = -1;
    for (int run = 0; run < 3; run++) { /* three processes, one after another */
        struct bb_client *c = NULL;
        assert_int_equal(bb_client_new(url, NULL, path, &c), BB_OK);
        assert_int_equal(bb_client_set_retry(c, &p), BB_OK);
        int want = run < 2 ? BB_OK : BB_ESERVER;
        assert_int_equal(bb_client_fetch_billboard(c, &changed), want);
        if (run == 1)
            assert_int_equal(changed, 0); /* 304: the cached one stands */
        assert_non_null(bb_client_billboard(c));
        assert_int_equal(bb_client_billboard(c)->version, 9);
        assert_true(bb_client_billboard(c)->factored);
        bb_client_free(c);
    }
    responder_stop(&r);
    assert_string_equal(r.inm[0], "");
    assert_string_equal(r.inm[1], "\"bb-9\"");
    /* Another server's cache does not count. */
    struct bb_client *c = NULL;
    assert_int_equal(bb_client_new("http://127.0.0.1:1", NULL, path, &c), BB_OK);
    assert_int_equal(bb_client_set_retry(c, &p), BB_OK);
    assert_int_equal(bb_client_fetch_billboard(c, NULL), BB_ENET);
    assert_null(bb_client_billboard(c));
    bb_client_free(c);
    char f[96];
    const char *suffix[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        snprintf(f, sizeof(f), "%s%s", path, suffix[i]);
        unlink(f);
    }
    rmdir(dir);
    free(json);
    bb_billboard_release(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transient_classification),
        cmocka_unit_test(test_status_mapping),
        cmocka_unit_test(test_retry_after_parsing),
        cmocka_unit_test(test_retry_after_decision),
        cmocka_unit_test(test_backoff_grows_and_caps),
        cmocka_unit_test(test_5xx_retried_with_same_key),
        cmocka_unit_test(test_4xx_never_retried),
        cmocka_unit_test(test_429_and_long_retry_after_retried),
        cmocka_unit_test(test_retry_after_respected),
        cmocka_unit_test(test_problem_detail_kept),
        cmocka_unit_test(test_attempt_and_time_caps),
        cmocka_unit_test(test_network_error_retried),
        cmocka_unit_test(test_etag_304_keeps_billboard),
        cmocka_unit_test(test_billboard_cached_in_state_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
