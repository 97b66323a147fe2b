/*
 * routes.c — the route table and every handler (routes.h).
 *
 * Handlers never change state themselves: writes go to the writer as jobs
 * (writer.h), reads come from the published board, the stats snapshot or
 * a pooled read-only connection. Every error is answered through
 * bb_reply_problem(), after which nothing has changed.
 */
#include "routes.h"

#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "billboard/clinic.h"
#include "billboard/codec.h"
#include "config_info.h"
#include "metrics.h"
#include "openapi.h"
#include "problem.h"
#include "status.h"
#include "version.h"
#include "writer.h"

static enum MHD_Result billboard_get(struct bbd *d, struct bb_req *r);
static enum MHD_Result billboard_version_get(struct bbd *d, struct bb_req *r);
static enum MHD_Result episodes_post(struct bbd *d, struct bb_req *r);
static enum MHD_Result recommend_post(struct bbd *d, struct bb_req *r);
static enum MHD_Result privacy_get(struct bbd *d, struct bb_req *r);
static enum MHD_Result config_get(struct bbd *d, struct bb_req *r);
static enum MHD_Result openapi_get(struct bbd *d, struct bb_req *r);
static enum MHD_Result clinics_post(struct bbd *d, struct bb_req *r);
static enum MHD_Result clinics_get(struct bbd *d, struct bb_req *r);
static enum MHD_Result clinics_delete(struct bbd *d, struct bb_req *r);
static enum MHD_Result livez_get(struct bbd *d, struct bb_req *r);
static enum MHD_Result readyz_get(struct bbd *d, struct bb_req *r);
static enum MHD_Result metrics_get(struct bbd *d, struct bb_req *r);

const struct bb_route bb_routes[] = {
    {"GET", "/v1/billboard", BB_ANYONE, 0, billboard_get},
    {"GET", "/v1/billboard/{version}", BB_ANYONE, 0, billboard_version_get},
    {"POST", "/v1/episodes", BB_CLINIC, 1, episodes_post},
    {"POST", "/v1/recommend", BB_CLINIC, 1, recommend_post},
    {"GET", "/v1/privacy", BB_ANYONE, 0, privacy_get},
    {"GET", "/v1/config", BB_ANYONE, 0, config_get},
    {"GET", "/v1/openapi.json", BB_ANYONE, 0, openapi_get},
    {"POST", "/v1/clinics", BB_ADMIN, 1, clinics_post},
    {"GET", "/v1/clinics", BB_ADMIN, 0, clinics_get},
    {"DELETE", "/v1/clinics/{id}", BB_ADMIN, 0, clinics_delete},
    {"GET", "/livez", BB_ANYONE, 0, livez_get},
    {"GET", "/readyz", BB_ANYONE, 0, readyz_get},
    {"GET", "/metrics", BB_ADMIN, 0, metrics_get},
    {"GET", "/", BB_ANYONE, 0, bb_status_page_get},
    {"GET", "/v1/history", BB_ANYONE, 0, bb_status_history_get},
};
const int bb_nroutes = (int)(sizeof(bb_routes) / sizeof(bb_routes[0]));

/* Matches path against pattern; a "{…}" segment matches one non-empty
 * segment, copied to param. */
static int match(const char *pattern, const char *path, char *param, size_t paramlen)
{
    const char *p = pattern, *s = path;
    while (*p && *s) {
        if (*p == '{') {
            const char *pe = strchr(p, '}');
            size_t n = strcspn(s, "/");
            if (!pe || n == 0 || n >= paramlen)
                return 0;
            memcpy(param, s, n);
            param[n] = '\0';
            p = pe + 1;
            s += n;
            continue;
        }
        if (*p != *s)
            return 0;
        p++;
        s++;
    }
    return *p == '\0' && *s == '\0';
}

int bb_route_match(const char *method, const char *path, char *param, size_t paramlen)
{
    int path_known = 0;
    for (int i = 0; i < bb_nroutes; i++) {
        if (!match(bb_routes[i].pattern, path, param, paramlen))
            continue;
        path_known = 1;
        /* HEAD is GET without the body, which libmicrohttpd drops itself. */
        if (strcmp(bb_routes[i].method, method) == 0 ||
            (strcmp(method, "HEAD") == 0 && strcmp(bb_routes[i].method, "GET") == 0))
            return i;
    }
    return path_known ? -2 : -1;
}

int bb_route_of_path(const char *path)
{
    char param[64];
    for (int i = 0; i < bb_nroutes; i++)
        if (match(bb_routes[i].pattern, path, param, sizeof(param)))
            return i;
    return -1;
}

void bb_route_allow(const char *path, char *out, size_t outlen)
{
    char param[64];
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < bb_nroutes; i++) {
        if (!match(bb_routes[i].pattern, path, param, sizeof(param)))
            continue;
        int w = snprintf(out + n, outlen - n, "%s%s", n ? ", " : "", bb_routes[i].method);
        if (w < 0 || (size_t)w >= outlen - n)
            break;
        n += (size_t)w;
    }
}

void bb_routes_print(FILE *f)
{
    for (int i = 0; i < bb_nroutes; i++)
        fprintf(f, "%s %s\n", bb_routes[i].method, bb_routes[i].pattern);
}

void bb_routes_labels(const char **names, const char **methods)
{
    for (int i = 0; i < bb_nroutes; i++) {
        names[i] = bb_routes[i].pattern;
        methods[i] = bb_routes[i].method;
    }
}

/* ---- helpers ---- */

/* Answers status with body (taken; freed here, wiped first when secret),
 * or a 500 when the encoder ran out of memory (body NULL). */
static enum MHD_Result reply_json(struct bb_req *r, unsigned status, char *body, size_t len,
                                  int secret)
{
    if (!body)
        return bb_reply_problem(r, BB_ENOMEM, NULL, NULL);
    enum MHD_Result ret = bb_reply_send(r, status, "application/json", body, len);
    if (secret)
        sodium_memzero(body, len);
    free(body);
    return ret;
}

/* Parses a non-negative decimal integer segment; -1 if it is not one. */
static int64_t parse_id(const char *s)
{
    if (!*s || strlen(s) > 18)
        return -1;
    int64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (*s - '0');
    }
    return v;
}

/* Does an If-None-Match header match etag? Weak comparison, as RFC 9110
 * §13.1.2 asks for If-None-Match. */
static int etag_matches(const char *inm, const char *etag)
{
    if (!inm)
        return 0;
    size_t elen = strlen(etag);
    const char *s = inm;
    while (*s) {
        while (*s == ' ' || *s == ',' || *s == '\t')
            s++;
        if (*s == '*')
            return 1;
        if (strncmp(s, "W/", 2) == 0)
            s += 2;
        size_t n = strcspn(s, ",");
        while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
            n--;
        if (n == elen && memcmp(s, etag, n) == 0)
            return 1;
        s += strcspn(s, ",");
    }
    return 0;
}

/* A 304 with the ETag and, if not NULL, the Cache-Control the 200 would
 * have carried (RFC 9110 §15.4.5). */
static enum MHD_Result not_modified(struct bb_req *r, const char *etag, const char *cache)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, "ETag", etag);
    if (cache)
        MHD_add_response_header(resp, "Cache-Control", cache);
    r->bytes = 0;
    enum MHD_Result ret = bb_reply_resp(r, 304, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* The stored bytes and ETag of billboard version v, through the read pool.
 * Caller frees both. BB_ENOTFOUND if no such version. */
static int stored_billboard(struct bbd *d, int64_t v, char **body, size_t *len, char **etag)
{
    struct bb_db *db = bb_db_pool_get(d->pool);
    int rc = bb_db_billboard_get(db, v, body, len, etag);
    bb_db_pool_put(d->pool, db);
    return rc;
}

/* A board for version v: the current one or one loaded from the database.
 * Caller puts it. BB_ENOTFOUND if no such version. */
static int board_for(struct bbd *d, int64_t v, struct bb_board **out)
{
    struct bb_board *cur = bb_board_get(&d->board);
    *out = NULL;
    if (v < 0 || (uint64_t)v == cur->version) {
        *out = cur;
        return BB_OK;
    }
    bb_board_put(cur);
    char *body = NULL, *etag = NULL;
    size_t len = 0;
    int rc = stored_billboard(d, v, &body, &len, &etag);
    if (rc == BB_OK)
        rc = bb_board_new(body, len, NULL, out);
    free(body);
    free(etag);
    return rc;
}

/* ---- billboard ---- */

static enum MHD_Result billboard_get(struct bbd *d, struct bb_req *r)
{
    struct bb_board *b = bb_board_get(&d->board);
    const char *inm =
        MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH);
    r->bytes = b->len;
    enum MHD_Result ret = etag_matches(inm, b->etag) ? not_modified(r, b->etag, NULL)
                                                     : bb_reply_resp(r, 200, b->resp);
    bb_board_put(b);
    return ret;
}

static enum MHD_Result billboard_version_get(struct bbd *d, struct bb_req *r)
{
    int64_t v = parse_id(r->param);
    if (v < 0)
        return bb_reply_problem(r, BB_ENOTFOUND, "billboard versions are integers", NULL);
    struct bb_board *cur = bb_board_get(&d->board);
    const char *inm =
        MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH);
    enum MHD_Result ret;
    if ((uint64_t)v == cur->version) {
        r->bytes = cur->len;
        ret = etag_matches(inm, cur->etag) ? not_modified(r, cur->etag, NULL)
                                           : bb_reply_resp(r, 200, cur->resp);
        bb_board_put(cur);
        return ret;
    }
    bb_board_put(cur);
    char *body = NULL, *etag = NULL;
    size_t len = 0;
    int rc = stored_billboard(d, v, &body, &len, &etag);
    if (rc != BB_OK) {
        ret = bb_reply_problem(r, rc, rc == BB_ENOTFOUND ? "no billboard of that version" : NULL,
                               NULL);
        goto out;
    }
    if (etag_matches(inm, etag)) {
        ret = not_modified(r, etag, NULL);
        goto out;
    }
    struct MHD_Response *resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        ret = MHD_NO;
        goto out;
    }
    body = NULL;
    MHD_add_response_header(resp, "Content-Type", "application/json");
    MHD_add_response_header(resp, "ETag", etag);
    MHD_add_response_header(resp, "Cache-Control", "public, max-age=31536000, immutable");
    r->bytes = len;
    ret = bb_reply_resp(r, 200, resp);
    MHD_destroy_response(resp);
out:
    free(body);
    free(etag);
    return ret;
}

/* ---- writer jobs ---- */

static void resume(struct bb_job *j)
{
    struct bb_req *r = j->ctx;
    MHD_resume_connection(r->conn);
}

static void submit(struct bbd *d, struct bb_req *r, enum bb_job_kind kind)
{
    r->job.kind = kind;
    r->job.done = resume;
    r->job.ctx = r;
    r->submitted = 1;
    /* Suspend first: done() may resume before this handler returns. */
    MHD_suspend_connection(r->conn);
    bb_writer_submit(d->writer, &r->job);
}

/* The answer of a finished job that has a JSON body. */
static enum MHD_Result job_answer(struct bb_req *r)
{
    if (r->job.err != BB_OK)
        return bb_reply_problem(r, r->job.err, r->job.detail, r->job.field);
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(r->job.resp_len, r->job.resp, MHD_RESPMEM_MUST_COPY);
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, "Content-Type", "application/json");
    if (r->job.replayed)
        MHD_add_response_header(resp, "Idempotent-Replayed", "true");
    r->bytes = r->job.resp_len;
    enum MHD_Result ret = bb_reply_resp(r, r->job.status, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* ---- episodes ---- */

static int key_ok(const char *k)
{
    size_t n = k ? strlen(k) : 0;
    if (n < 1 || n > BB_IDEM_KEY_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (k[i] < 0x21 || k[i] > 0x7e)
            return 0;
    return 1;
}

static enum MHD_Result episodes_post(struct bbd *d, struct bb_req *r)
{
    if (r->submitted)
        return job_answer(r);
    const char *key = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Idempotency-Key");
    if (!key_ok(key))
        return bb_reply_problem(r, BBD_EHEADER,
                                "Idempotency-Key must be 1 to 128 visible ASCII characters", NULL);
    char field[96] = "", why[160] = "";
    int rc = bb_episode_from_json(r->body.p ? r->body.p : "", r->body.len, d->p.H, d->p.A, d->p.d,
                                  &r->job.ep, field, sizeof(field), why, sizeof(why));
    if (rc != BB_OK)
        return bb_reply_problem(r, rc == BB_EINVAL || rc == BB_ERANGE ? rc : BB_EPROTO, why,
                                rc == BB_EPROTO ? NULL : field);
    snprintf(r->job.key, sizeof(r->job.key), "%s", key);
    crypto_generichash(r->job.body_hash, sizeof(r->job.body_hash),
                       (const unsigned char *)(r->body.p ? r->body.p : ""), r->body.len, NULL, 0);
    r->job.clinic = r->clinic;
    submit(d, r, BB_JOB_EPISODE);
    return MHD_YES;
}

/* ---- recommend ---- */

static enum MHD_Result recommend_post(struct bbd *d, struct bb_req *r)
{
    char why[200] = "", ptr[64] = "";
    struct bb_recommend_req q = {0};
    double *qv = NULL;
    char *out = NULL;
    size_t len = 0;
    struct bb_board *b = NULL;
    enum MHD_Result ret;
    int err = bb_recommend_req_from_json(r->body.p, r->body.len, d->p.H, d->p.A, d->p.d, &q, ptr,
                                         sizeof(ptr), why, sizeof(why));
    if (err != BB_OK)
        goto fail;
    if ((err = board_for(d, q.version, &b)) != BB_OK) {
        if (err == BB_ENOTFOUND) {
            err = BB_EINVAL;
            snprintf(ptr, sizeof(ptr), "/billboard_version");
            snprintf(why, sizeof(why), "no billboard of that version");
        }
        goto fail;
    }
    err = BB_ENOMEM;
    if (!(qv = malloc(sizeof(double) * (size_t)q.A)))
        goto fail;
    int action = 0;
    if ((err = bb_billboard_act_keyed(&b->bb, q.h, q.features, q.episode_key, qv, &action)) !=
        BB_OK)
        goto fail;
    err = BB_ENOMEM;
    if (!(out = bb_recommend_resp_to_json(action, qv, q.A, b->version, &len)))
        goto fail;
    ret = bb_reply_send(r, 200, "application/json", out, len);
    goto out;
fail:
    ret = bb_reply_problem(r, err, why, ptr);
out:
    bb_recommend_req_release(&q);
    free(qv);
    free(out);
    bb_board_put(b);
    return ret;
}

/* ---- privacy, config ---- */

static enum MHD_Result privacy_get(struct bbd *d, struct bb_req *r)
{
    struct bb_counts s = bb_stats_get(&d->stats);
    const struct bb_params *p = &d->p;
    double sg, sy, sw;
    const double spent = bb_ledger_spent(&d->ledger, p, s.episodes, s.updates, &sg, &sy, &sw);
    struct bb_privacy_budget pb = {
        .is_private = p->is_private,
        .rho = p->rho,
        .epsilon = p->epsilon,
        .delta = p->delta,
        .rho_spent = spent,
        .rho_remaining = p->rho - spent,
        .gram = {p->rho_gram, sg, p->rho_gram - sg},
        .y = {p->rho_y, sy, p->rho_y - sy},
        .updates = s.updates,
        .max_updates = p->max_updates,
        .episodes = s.episodes,
        .max_episodes = p->K_max,
        .billboard_version = s.version,
        .restores = {d->ledger.restores, d->ledger.rho_gram_restored, d->ledger.rho_y_restored,
                     d->ledger.rho_warm_restored},
    };
    struct bb_params w;
    if (bb_params_warm(p, &w) == BB_OK) { /* docs/PRIVACY.md §2.5 */
        pb.warm_up.rho = p->rho_warm;
        pb.warm_up.spent = sw;
        pb.warm_up.remaining = p->rho_warm - sw;
        snprintf(pb.warm_up.mechanism, sizeof(pb.warm_up.mechanism), "%s",
                 bb_mechanism_name(w.mechanism));
        pb.warm_up.sigma = w.sigma_gram_eff;
        pb.warm_up.releases = w.releases;
        snprintf(pb.warm_up.detail, sizeof(pb.warm_up.detail), "g=2 k0=%g, rewards by stream",
                 w.release_start);
    }
    /* Name each mechanism and its parameters (docs/PRIVACY.md). */
    snprintf(pb.gram.mechanism, sizeof(pb.gram.mechanism), "%s",
             bb_mechanism_name(p->mechanism));
    pb.gram.sigma = p->sigma_gram_eff;
    pb.gram.releases = p->releases;
    snprintf(pb.y.mechanism, sizeof(pb.y.mechanism), "gaussian");
    /* with the counts y's noise is the count stream's, at the grid points
     * (§2.6); else the updates' own */
    pb.y.sigma = bb_params_counts(p) ? bb_params_sigma_counts_drawn(p) : p->sigma_y_eff;
    pb.y.releases = bb_params_counts(p) ? p->releases : p->max_updates;
    bb_params_describe(p, pb.gram.detail, sizeof(pb.gram.detail), pb.y.detail,
                       sizeof(pb.y.detail));
    size_t len = 0;
    char *out = bb_privacy_budget_to_json(&pb, &len);
    return reply_json(r, 200, out, len, 0);
}

static enum MHD_Result config_get(struct bbd *d, struct bb_req *r)
{
    struct bb_config_info c = {0};
    char *out = NULL;
    size_t len = 0;
    if (bb_config_info_of(&d->p, &c) == BB_OK) {
        snprintf(c.version, sizeof(c.version), "%s", bb_version()); /* the daemon's build */
        out = bb_config_info_to_json(&c, 0, &len);
    }
    bb_config_info_release(&c);
    return reply_json(r, 200, out, len, 0);
}

/* ---- the API's description ---- */

/* The spec changes only with the binary: a client may reuse it for five
 * minutes, then revalidates with If-None-Match (a 304 without the body). */
#define OPENAPI_CACHE "public, max-age=300"

static enum MHD_Result openapi_get(struct bbd *d, struct bb_req *r)
{
    (void)d;
    const char *inm =
        MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH);
    if (etag_matches(inm, bb_openapi_etag))
        return not_modified(r, bb_openapi_etag, OPENAPI_CACHE);
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        bb_openapi_json_len, (void *)bb_openapi_json, MHD_RESPMEM_PERSISTENT);
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, "Content-Type", "application/json");
    MHD_add_response_header(resp, "ETag", bb_openapi_etag);
    MHD_add_response_header(resp, "Cache-Control", OPENAPI_CACHE);
    r->bytes = bb_openapi_json_len;
    enum MHD_Result ret = bb_reply_resp(r, 200, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* ---- clinics ---- */

static enum MHD_Result clinics_post(struct bbd *d, struct bb_req *r)
{
    char why[200] = "", ptr[16] = "";
    if (r->submitted) {
        if (r->job.err != BB_OK)
            return bb_reply_problem(r, r->job.err, r->job.detail, r->job.field);
        struct bb_clinic c = {.id = r->job.id, .created = r->job.created};
        snprintf(c.name, sizeof(c.name), "%s", r->job.name);
        snprintf(c.token, sizeof(c.token), "%s", r->token);
        size_t len = 0;
        char *out = bb_clinic_enrolled_to_json(&c, &len);
        sodium_memzero(c.token, sizeof(c.token));
        return reply_json(r, 201, out, len, 1);
    }
    int err = bb_clinic_req_from_json(r->body.p, r->body.len, r->job.name, ptr, sizeof(ptr), why,
                                      sizeof(why));
    if (err != BB_OK)
        return bb_reply_problem(r, err, why, err == BB_EPROTO ? NULL : ptr);
    bb_auth_new_token(r->token);
    bb_auth_hash(d->auth, r->token, strlen(r->token), r->job.token_hash);
    submit(d, r, BB_JOB_CLINIC_ADD);
    return MHD_YES;
}

static int clinic_row(void *ctx, int64_t id, const char *name, const unsigned char *hash,
                      int64_t created, int64_t revoked)
{
    struct bb_clinic c = {.id = id, .created = created, .revoked = revoked};
    (void)hash;
    snprintf(c.name, sizeof(c.name), "%s", name);
    return bb_clinic_list_append(ctx, &c);
}

static enum MHD_Result clinics_get(struct bbd *d, struct bb_req *r)
{
    struct bb_clinic_list l = {0};
    struct bb_db *db = bb_db_pool_get(d->pool);
    int rc = bb_db_clinics_each(db, clinic_row, &l);
    bb_db_pool_put(d->pool, db);
    if (rc != BB_OK) {
        bb_clinic_list_release(&l);
        return bb_reply_problem(r, rc, NULL, NULL);
    }
    size_t len = 0;
    char *out = bb_clinic_list_to_json(&l, &len);
    bb_clinic_list_release(&l);
    return reply_json(r, 200, out, len, 0);
}

static enum MHD_Result clinics_delete(struct bbd *d, struct bb_req *r)
{
    if (r->submitted) {
        if (r->job.err != BB_OK)
            return bb_reply_problem(r, r->job.err, r->job.detail, r->job.field);
        return bb_reply_send(r, 204, NULL, "", 0);
    }
    int64_t id = parse_id(r->param);
    if (id <= 0)
        return bb_reply_problem(r, BB_ENOTFOUND, "no clinic with this id", NULL);
    r->job.clinic = id;
    submit(d, r, BB_JOB_CLINIC_REVOKE);
    return MHD_YES;
}

/* ---- operator ---- */

static enum MHD_Result livez_get(struct bbd *d, struct bb_req *r)
{
    (void)d;
    static const char ok[] = "{\"status\":\"ok\"}";
    return bb_reply_send(r, 200, "application/json", ok, sizeof(ok) - 1);
}

static int ready(struct bbd *d)
{
    if (atomic_load(&d->fatal) || bb_entropy_failed(&d->entropy, NULL, 0))
        return 0;
    struct bb_db *db = bb_db_pool_get(d->pool);
    int rc = bb_db_ping(db);
    bb_db_pool_put(d->pool, db);
    return rc == BB_OK;
}

static enum MHD_Result readyz_get(struct bbd *d, struct bb_req *r)
{
    char why[256], detail[320];
    if (bb_entropy_failed(&d->entropy, why, sizeof(why))) {
        snprintf(detail, sizeof(detail), "the random source failed: %s", why);
        return bb_reply_problem(r, BBD_EUNAVAIL, detail, NULL);
    }
    if (!ready(d))
        return bb_reply_problem(r, BBD_EUNAVAIL, "the database is not answering", NULL);
    static const char ok[] = "{\"status\":\"ready\"}";
    return bb_reply_send(r, 200, "application/json", ok, sizeof(ok) - 1);
}

static enum MHD_Result metrics_get(struct bbd *d, struct bb_req *r)
{
    const char *names[BB_METRICS_ROUTES], *methods[BB_METRICS_ROUTES];
    struct bb_counts s = bb_stats_get(&d->stats);
    bb_routes_labels(names, methods);
    double sg, sy, sw;
    bb_ledger_spent(&d->ledger, &d->p, s.episodes, s.updates, &sg, &sy, &sw);
    struct bb_metrics_gauges g = {
        .episodes = s.episodes,
        .max_episodes = d->p.K_max,
        .updates = s.updates,
        .max_updates = d->p.max_updates,
        .version = s.version,
        .rho = d->p.rho,
        .rho_gram_spent = sg,
        .rho_y_spent = sy,
        .rho_warm_spent = sw,
        .ready = ready(d),
    };
    size_t len = 0;
    char *text = bb_metrics_render(names, methods, bb_nroutes, &g, &len);
    if (!text)
        return bb_reply_problem(r, BB_ENOMEM, NULL, NULL);
    enum MHD_Result ret = bb_reply_send(r, 200, "text/plain; version=0.0.4", text, len);
    free(text);
    return ret;
}
