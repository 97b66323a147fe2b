/*
 * http.c — libmicrohttpd set-up and the request lifecycle (http.h).
 */
#include "http.h"

#include "args.h"
#include "tls.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "log.h"
#include "metrics.h"
#include "problem.h"
#include "reply.h"
#include "routes.h"

struct bb_http {
    struct MHD_Daemon *mhd;
    struct bbd *d;
    size_t max_head;  /* request line + header fields, bytes (head_size) */
    int access_log;   /* a line per request */
    int metrics_only; /* bb_http_opts.metrics_only */
};

/* libmicrohttpd keeps the request line and every header field in the
 * connection's memory pool and, when they do not fit, answers 431 itself
 * with a fixed HTML page before the access handler runs (its
 * REQUEST_TOO_BIG text, compiled in, with no option to replace it in
 * 0.9.75 or 1.0). So the daemon sets its own, lower limit: half the pool.
 * A head over it but within the pool gets a problem+json 431 from here; only
 * a head over the whole pool still gets libmicrohttpd's page. */
#define HEAD_FIELD_COST 64 /* the pool's bookkeeping per field, roughly */

struct head_size {
    size_t bytes, fields;
};

static enum MHD_Result count_field(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
    struct head_size *n = cls;
    (void)kind;
    /* "Name: value\r\n" on the wire; "key=value&" in the query string. */
    n->bytes += (key ? strlen(key) : 0) + (value ? strlen(value) : 0) + 4;
    n->fields++;
    return MHD_YES;
}

/* The size of the request's head as the daemon counts it. */
static size_t head_size(struct MHD_Connection *conn, const char *method, const char *url)
{
    struct head_size n = {strlen(method) + strlen(url) + sizeof(" HTTP/1.1\r\n"), 0};
    MHD_get_connection_values(conn, MHD_HEADER_KIND, count_field, &n);
    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, count_field, &n);
    return n.bytes + n.fields * HEAD_FIELD_COST;
}

static int is_json(const char *ctype)
{
    if (!ctype)
        return 0;
    while (*ctype == ' ')
        ctype++;
    size_t n = strlen("application/json");
    return strncasecmp(ctype, "application/json", n) == 0 &&
           (ctype[n] == '\0' || ctype[n] == ';' || ctype[n] == ' ');
}

/* Checks done on the first call, from the headers alone. */
static int precheck(struct bbd *d, struct bb_req *r, const char **detail)
{
    const struct bb_route *rt = r->route;
    const char *authz =
        MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    /* A token that is valid but of the other role is refused with 403: the
     * caller is known, the route is not theirs (RFC 9110 §15.5.4). */
    if (rt->who == BB_ADMIN && bb_auth_admin(d->auth, authz) != BB_OK) {
        int64_t clinic;
        if (bb_auth_clinic(d->auth, authz, &clinic) != BB_OK)
            return BB_EAUTH;
        *detail = "a clinic's token may not administer clinics; this route needs the admin token";
        return BBD_EFORBIDDEN;
    }
    if (rt->who == BB_CLINIC && bb_auth_clinic(d->auth, authz, &r->clinic) != BB_OK) {
        if (bb_auth_admin(d->auth, authz) != BB_OK)
            return BB_EAUTH;
        *detail = "the admin token is not a clinic's; this route needs a clinic token "
                  "(POST /v1/clinics enrols one)";
        return BBD_EFORBIDDEN;
    }
    if (!rt->has_body)
        return BB_OK;
    if (!is_json(
            MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE))) {
        *detail = "send the body as application/json";
        return BBD_EMEDIA;
    }
    const char *cl =
        MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    long n;
    if (cl) {
        if (bb_parse_long(cl, &n) != BB_OK || n < 0 || (unsigned long)n > d->max_body) {
            *detail = "Content-Length is over the body size limit";
            return BBD_ETOOBIG;
        }
    }
    return BB_OK;
}

/* The request's method for the log: letters only, else "other" (the
 * client chose it). */
static void copy_method(char *out, size_t outlen, const char *method)
{
    size_t n = strlen(method);
    int ok = n > 0 && n < outlen;
    for (size_t i = 0; ok && i < n; i++)
        ok = method[i] >= 'A' && method[i] <= 'Z';
    snprintf(out, outlen, "%s", ok ? method : "other");
}

/* The client's address as text, "?" if unknown. */
static void client_address(struct MHD_Connection *conn, char *out, size_t outlen)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    snprintf(out, outlen, "?");
    if (!ci || !ci->client_addr)
        return;
    const struct sockaddr *sa = ci->client_addr;
    if (sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, out,
                  (socklen_t)outlen);
    else if (sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, out,
                  (socklen_t)outlen);
}

/* The access log's line for r: never a token, a body or a feature value;
 * the clinic only by its id. */
static void access_line(struct bb_req *r, double secs)
{
    char client[INET6_ADDRSTRLEN + 1];
    client_address(r->conn, client, sizeof(client));
    int matched = r->route_idx >= 0 && r->route_idx < bb_nroutes;
    struct bb_log_field f[] = {
        {"client", client, 0},
        {"method", r->method[0] ? r->method : "other", 0},
        {"route", matched ? bb_routes[r->route_idx].pattern : "unmatched", 0},
        {"status", NULL, r->answered ? r->status : 0},
        {"bytes", NULL, (double)(r->answered ? r->bytes : 0)},
        {"latency_ms", NULL, (double)(long long)(secs * 1e6) / 1e3},
        {"clinic", NULL, (double)r->clinic},
    };
    size_t n = sizeof(f) / sizeof(f[0]);
    if (r->clinic <= 0)
        n--; /* no clinic authenticated */
    bb_log_event(BB_LOG_INFO, "access", f, n);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **req_cls)
{
    struct bb_http *h = cls;
    struct bbd *d = h->d;
    struct bb_req *r = *req_cls;
    (void)version;
    if (!r) {
        if (!(r = calloc(1, sizeof(*r))))
            return MHD_NO;
        *req_cls = r;
        r->conn = conn;
        clock_gettime(CLOCK_MONOTONIC, &r->t0);
        copy_method(r->method, sizeof(r->method), method);
        int idx = bb_route_match(method, url, r->param, sizeof(r->param));
        /* Metrics count a 405 under the path's route, method "other". */
        r->route_idx = idx >= 0 ? idx : idx == -2 ? bb_route_of_path(url) : BB_METRICS_ROUTES - 1;
        r->other_method = idx == -2;
        if (head_size(conn, method, url) > h->max_head) {
            char why[128];
            snprintf(why, sizeof(why),
                     "the request line and header fields are over the limit of %zu bytes",
                     h->max_head);
            return bb_reply_problem(r, BBD_EHEADERS, why, NULL);
        }
        if (idx < 0) {
            int err = idx == -1 ? BBD_ENOROUTE : BBD_EMETHOD;
            if (err == BBD_EMETHOD)
                bb_route_allow(url, r->allow, sizeof(r->allow));
            return bb_reply_problem(r, err, NULL, NULL);
        }
        r->route = &bb_routes[r->route_idx];
        /* The metrics listener: /metrics alone, its address the access rule. */
        if (h->metrics_only)
            return strcmp(r->route->pattern, "/metrics") == 0
                       ? MHD_YES
                       : bb_reply_problem(r, BBD_ENOROUTE, "this address serves /metrics only",
                                          NULL);
        const char *detail = NULL;
        int err = precheck(d, r, &detail);
        if (err != BB_OK)
            return bb_reply_problem(r, err, detail, NULL);
        return MHD_YES;
    }
    if (r->answered) {
        *upload_data_size = 0; /* discard what the client still sends */
        return MHD_YES;
    }
    if (*upload_data_size) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        if (r->too_big || !r->route->has_body || r->body.len + n > d->max_body) {
            /* libmicrohttpd cannot answer in the middle of an upload: drop
             * the rest and answer 413 at the end, but close the connection
             * outright if the client keeps streaming far past the cap. */
            r->too_big = 1;
            r->dropped += n;
            bb_buf_release(&r->body);
            return r->dropped > 4 * d->max_body ? MHD_NO : MHD_YES;
        }
        if (bb_buf_grow(&r->body, n) != BB_OK)
            return bb_reply_problem(r, BB_ENOMEM, NULL, NULL);
        bb_buf_add(&r->body, upload_data, n);
        return MHD_YES;
    }
    if (r->too_big)
        return bb_reply_problem(r, BBD_ETOOBIG,
                                r->route->has_body ? "the body is over the size limit"
                                                   : "this route takes no body",
                                NULL);
    return r->route->handle(d, r);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct bb_req *r = *req_cls;
    (void)conn;
    (void)toe;
    if (!r)
        return;
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - r->t0.tv_sec) + (double)(t1.tv_nsec - r->t0.tv_nsec) / 1e9;
    bb_metrics_request(r->route_idx, r->other_method, r->answered ? r->status : 0, secs);
    if (((struct bb_http *)cls)->access_log)
        access_line(r, secs);
    bb_buf_release(&r->body);
    free(r->job.resp);
    bb_episode_buf_release(&r->job.ep);
    sodium_memzero(r->token, sizeof(r->token));
    sodium_memzero(r->job.token_hash, sizeof(r->job.token_hash));
    free(r);
    *req_cls = NULL;
}

/* libmicrohttpd's own messages (a failed TLS handshake, a refused
 * connection), as lines of the daemon's log. */
static void on_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char msg[1024];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    bb_log(BB_LOG_WARN, "http: %s", msg);
}

int bb_http_start(struct bbd *d, const struct bb_http_opts *o, struct bb_http **out, unsigned *port,
                  char *why, size_t whylen)
{
    int rc = BB_ENOMEM;
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof(ss));
    struct bb_http *h = calloc(1, sizeof(*h));
    *out = NULL;
    if (!h)
        goto out;
    h->d = d;
    h->max_head = o->conn_memory / 2;
    h->access_log = !o->access_log_off;
    h->metrics_only = o->metrics_only;
    /* poll(), not epoll: libmicrohttpd's epoll loop (0.9.75 and later)
     * calls epoll_wait again, with the full connection timeout, after a
     * call that returned its maximum of 128 events, so 128 connections
     * ready at once on one thread wait for an unrelated event or --timeout
     * (tests/integration/39-keepalive.sh fails with epoll). The price, in
     * poll mode: a client that shuts down its sending side before its
     * answer may lose the answer to a write (docs/RELIABILITY.md). */
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_ALLOW_SUSPEND_RESUME |
                     MHD_USE_ITC | MHD_USE_ERROR_LOG;
    /* HTTPS: the certificate comes from a callback (tls.h), so a SIGHUP
     * can renew it while this server runs. */
    struct MHD_OptionItem tls_items[3] = {{MHD_OPTION_END, 0, NULL}};
    if (o->tls) {
        flags |= MHD_USE_TLS;
        bb_tls_mhd_options(o->tls, tls_items);
    }
    struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
    rc = BB_EINVAL;
    if (inet_pton(AF_INET, o->listen, &s4->sin_addr) == 1) {
        s4->sin_family = AF_INET;
        s4->sin_port = htons((uint16_t)o->port);
    } else if (inet_pton(AF_INET6, o->listen, &s6->sin6_addr) == 1) {
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)o->port);
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(why, whylen, "--listen '%s' is not an IPv4 or IPv6 address", o->listen);
        goto out;
    }
    h->mhd = MHD_start_daemon(
        flags, (uint16_t)o->port, NULL, NULL, on_request, h, MHD_OPTION_EXTERNAL_LOGGER, on_log,
        NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss, MHD_OPTION_THREAD_POOL_SIZE, o->threads,
        MHD_OPTION_CONNECTION_LIMIT, o->conn_limit, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        o->per_ip_limit, MHD_OPTION_CONNECTION_TIMEOUT, o->timeout_s,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, o->conn_memory, MHD_OPTION_NOTIFY_COMPLETED,
        on_completed, h, MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024, MHD_OPTION_ARRAY, tls_items,
        MHD_OPTION_END);
    if (!h->mhd) {
        snprintf(why, whylen, "cannot listen on %s port %u: %s", o->listen, o->port,
                 strerror(errno));
        rc = BB_ENET;
        goto out;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_BIND_PORT);
    *port = info ? info->port : o->port;
    *out = h;
    return BB_OK;
out:
    free(h);
    return rc;
}

void bb_http_quiesce(struct bb_http *h)
{
    if (!h)
        return;
    MHD_socket s = MHD_quiesce_daemon(h->mhd);
    if (s != MHD_INVALID_SOCKET)
        close(s);
}

void bb_http_stop(struct bb_http *h, int ms)
{
    if (!h)
        return;
    for (int waited = 0; waited < ms; waited += 20) {
        const union MHD_DaemonInfo *info =
            MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
        if (!info || info->num_connections == 0)
            break;
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    MHD_stop_daemon(h->mhd);
    free(h);
}
