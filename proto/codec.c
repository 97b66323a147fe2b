/*
 * codec.c — the JSON wire format of billboards and episodes (billboard/codec.h).
 *
 * The billboard's and the episode's encoding is hand-written so that the
 * bytes are canonical (fixed key order, "%.17g" numbers that read back to
 * the same double, null for infinities) and cheap; an episode is read by
 * codec_fast.c first. Decoding uses jansson with duplicate keys rejected.
 */
#include "billboard/codec.h"

#include "buf.h"
#include "codec_fast.h"
#include "codec_table.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- numbers, canonically ------------------------------------------------ */

static void put_num(struct bb_buf *s, double v)
{
    if (!isfinite(v))
        bb_buf_puts(s, "null");
    else if (v == 0)
        bb_buf_puts(s, "0"); /* also for -0: one spelling per value */
    else
        bb_buf_printf(s, "%.17g", v);
}

static void put_vec(struct bb_buf *s, const double *v, int n)
{
    bb_buf_puts(s, "[");
    for (int i = 0; i < n; i++) {
        if (i)
            bb_buf_puts(s, ",");
        put_num(s, v[i]);
    }
    bb_buf_puts(s, "]");
}

/* --- billboard ----------------------------------------------------------- */

char *bb_billboard_to_json(const struct bb_billboard *b, size_t *len)
{
    struct bb_buf s = BB_BUF_INIT;
    const int d = b->d;
    bb_buf_printf(&s, "{\"version\":%llu,\"episode\":%llu,\"H\":%d,\"d\":%d,\"A\":%d,\"beta\":",
                  (unsigned long long)b->version, (unsigned long long)b->episode, b->H, d, b->A);
    put_num(&s, b->beta);
    bb_buf_puts(&s, b->uniform ? ",\"uniform\":true" : ",\"uniform\":false");
    /* Only with the plausible set or the sample on: other billboards encode
     * as before. */
    if (b->plausible_z > 0) {
        bb_buf_puts(&s, ",\"plausible_z\":");
        put_num(&s, b->plausible_z);
        bb_buf_puts(&s, ",\"plausible_floor\":");
        put_num(&s, b->plausible_floor);
    }
    if (b->sample)
        bb_buf_puts(&s, ",\"explore\":\"sample\"");
    const int plausible = b->plausible_z > 0 || b->sample; /* sigma_y is read */
    bb_buf_puts(&s, ",\"steps\":[");
    for (int h = 0; h < b->H; h++) {
        bb_buf_printf(&s, "%s{\"h\":%d,", h ? "," : "", h + 1);
        if (plausible) {
            bb_buf_puts(&s, "\"sigma_y\":");
            put_num(&s, b->sigma_y[h]);
            bb_buf_puts(&s, ",");
        }
        bb_buf_puts(&s, "\"w\":");
        put_vec(&s, b->w + (size_t)h * d, d);
        bb_buf_puts(&s, ",\"gram\":[");
        for (int i = 0; i < d; i++) {
            if (i)
                bb_buf_puts(&s, ",");
            put_vec(&s, b->gram + ((size_t)h * d + i) * d, d);
        }
        bb_buf_puts(&s, "]}");
    }
    const struct bb_privacy_summary *p = &b->privacy;
    bb_buf_puts(&s, "],\"privacy\":{\"rho\":");
    put_num(&s, p->rho);
    bb_buf_puts(&s, ",\"epsilon\":");
    put_num(&s, p->epsilon);
    bb_buf_puts(&s, ",\"delta\":");
    put_num(&s, p->delta);
    bb_buf_puts(&s, ",\"rho_spent\":");
    put_num(&s, p->rho_spent);
    bb_buf_printf(&s, ",\"updates\":%ld,\"max_updates\":%ld,\"episodes\":%ld,\"max_episodes\":%ld",
                  p->updates, p->max_updates, p->episodes, p->max_episodes);
    if (p->restores > 0) { /* what restores charged (docs/PRIVACY.md §8) */
        bb_buf_printf(&s, ",\"restores\":%ld,\"rho_restored\":", p->restores);
        put_num(&s, p->rho_restored);
    }
    bb_buf_puts(&s, "}}");
    return bb_buf_detach(&s, len);
}

static int get_vec(json_t *a, double *out, int n)
{
    if (!json_is_array(a) || (int)json_array_size(a) != n)
        return 0;
    for (int i = 0; i < n; i++)
        if (!codec_get_num(json_array_get(a, (size_t)i), &out[i], 0))
            return 0;
    return 1;
}

static int get_int(json_t *o, const char *key, long long lo, long long hi, long long *out)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v))
        return 0;
    *out = json_integer_value(v);
    return *out >= lo && *out <= hi;
}

/* The privacy summary a billboard carries: a field table. */
#define SUMMARY(key, kind, member)                                                             \
    {key, kind, offsetof(struct bb_privacy_summary, member), 0, 0, NULL, NULL}
static const struct codec_field summary_fields[] = {
    SUMMARY("rho", CODEC_REAL_INF, rho),
    SUMMARY("epsilon", CODEC_REAL_INF, epsilon),
    SUMMARY("delta", CODEC_REAL, delta),
    SUMMARY("rho_spent", CODEC_REAL_INF, rho_spent),
    SUMMARY("updates", CODEC_LONG, updates),
    SUMMARY("max_updates", CODEC_LONG, max_updates),
    SUMMARY("episodes", CODEC_LONG, episodes),
    SUMMARY("max_episodes", CODEC_LONG, max_episodes),
    {"restores", CODEC_LONG, offsetof(struct bb_privacy_summary, restores), 0, CODEC_OPTIONAL,
     NULL, NULL},
    {"rho_restored", CODEC_REAL, offsetof(struct bb_privacy_summary, rho_restored), 0,
     CODEC_OPTIONAL, NULL, NULL},
    CODEC_END,
};

static int read_summary(json_t *pr, struct bb_privacy_summary *p, char *why, size_t whylen)
{
    if (!json_is_object(pr) ||
        codec_table_decode(pr, summary_fields, p, "the summary", NULL, 0) != BB_OK ||
        p->updates < 0 || p->max_updates < 0 || p->episodes < 0 || p->max_episodes < 0 ||
        p->restores < 0) {
        codec_say(why, whylen, "billboard privacy summary malformed");
        return BB_EPROTO;
    }
    return BB_OK;
}

/* Step h (0-based) of a billboard: w, the Gram matrix, sigma_y. */
static int read_step(json_t *st, int h, struct bb_billboard *out, char *why, size_t whylen)
{
    const int d = out->d;
    long long hh;
    json_t *gram = json_object_get(st, "gram");
    if (!get_int(st, "h", h + 1, h + 1, &hh) ||
        !get_vec(json_object_get(st, "w"), out->w + (size_t)h * d, d) || !json_is_array(gram) ||
        (long long)json_array_size(gram) != d) {
        codec_say(why, whylen, "billboard step %d malformed", h + 1);
        return BB_EPROTO;
    }
    json_t *sy = json_object_get(st, "sigma_y"); /* absent: 0 */
    if (sy && (!codec_get_num(sy, &out->sigma_y[h], 0) || out->sigma_y[h] < 0)) {
        codec_say(why, whylen, "billboard step %d sigma_y must be a number >= 0", h + 1);
        return BB_EPROTO;
    }
    for (int i = 0; i < d; i++)
        if (!get_vec(json_array_get(gram, (size_t)i), out->gram + ((size_t)h * d + i) * d, d)) {
            codec_say(why, whylen, "billboard step %d gram row %d malformed", h + 1, i);
            return BB_EPROTO;
        }
    return BB_OK;
}

/* A number >= 0 under key, absent: 0. */
static int get_nonneg(json_t *o, const char *key, double *out)
{
    json_t *v = json_object_get(o, key);
    return !v || (codec_get_num(v, out, 0) && *out >= 0);
}

int bb_billboard_from_json(const char *buf, size_t len, struct bb_billboard *out, char *why,
                           size_t whylen)
{
    int rc = BB_EPROTO;
    json_error_t jerr;
    memset(out, 0, sizeof(*out));
    json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        codec_say(why, whylen, "billboard is not valid JSON: %s", jerr.text);
        return BB_EPROTO;
    }
    long long version, episode, H, d, A;
    if (!json_is_object(root) || !get_int(root, "version", 0, INT64_MAX, &version) ||
        !get_int(root, "episode", 0, INT64_MAX, &episode) || !get_int(root, "H", 1, 1000, &H) ||
        !get_int(root, "d", 1, 1024, &d) || !get_int(root, "A", 1, 1024, &A)) {
        codec_say(why, whylen, "billboard header (version, episode, H, d, A) missing or out of range");
        goto out;
    }
    if (bb_billboard_init(out, (int)H, (int)d, (int)A) != BB_OK) {
        rc = BB_ENOMEM;
        goto out;
    }
    out->version = (uint64_t)version;
    out->episode = (uint64_t)episode;
    if (!codec_get_num(json_object_get(root, "beta"), &out->beta, 0)) {
        codec_say(why, whylen, "billboard beta missing or not a number");
        goto out;
    }
    json_t *uni = json_object_get(root, "uniform"); /* absent: false */
    if (uni && !json_is_boolean(uni)) {
        codec_say(why, whylen, "billboard uniform must be true or false");
        goto out;
    }
    out->uniform = json_is_true(uni);
    /* Absent: 0, no plausible set. */
    if (!get_nonneg(root, "plausible_z", &out->plausible_z)) {
        codec_say(why, whylen, "billboard plausible_z must be a number >= 0");
        goto out;
    }
    if (!get_nonneg(root, "plausible_floor", &out->plausible_floor)) {
        codec_say(why, whylen, "billboard plausible_floor must be a number >= 0");
        goto out;
    }
    /* Absent: the plausible set (or the greedy action). */
    json_t *explore = json_object_get(root, "explore");
    if (explore && !(json_is_string(explore) && (!strcmp(json_string_value(explore), "set") ||
                                                 !strcmp(json_string_value(explore), "sample")))) {
        codec_say(why, whylen, "billboard explore must be \"set\" or \"sample\"");
        goto out;
    }
    out->sample = explore && !strcmp(json_string_value(explore), "sample");
    json_t *steps = json_object_get(root, "steps");
    if (!json_is_array(steps) || (long long)json_array_size(steps) != H) {
        codec_say(why, whylen, "billboard steps must be an array of H entries");
        goto out;
    }
    for (int h = 0; h < H; h++)
        if (read_step(json_array_get(steps, (size_t)h), h, out, why, whylen) != BB_OK)
            goto out;
    rc = read_summary(json_object_get(root, "privacy"), &out->privacy, why, whylen);
out:
    json_decref(root);
    if (rc != BB_OK)
        bb_billboard_release(out);
    return rc;
}

/* --- episode ------------------------------------------------------------- */

int bb_episode_buf_init(struct bb_episode_buf *e, int H, int A, int d)
{
    memset(e, 0, sizeof(*e));
    if (H < 1 || A < 1 || d < 1)
        return BB_EINVAL;
    e->H = H;
    e->A = A;
    e->d = d;
    e->features = calloc((size_t)H * A * d, sizeof(double));
    e->action = calloc((size_t)H, sizeof(int));
    e->reward = calloc((size_t)H, sizeof(double));
    if (!e->features || !e->action || !e->reward) {
        bb_episode_buf_release(e);
        return BB_ENOMEM;
    }
    return BB_OK;
}

void bb_episode_buf_release(struct bb_episode_buf *e)
{
    free(e->features);
    free(e->action);
    free(e->reward);
    memset(e, 0, sizeof(*e));
}

struct bb_episode bb_episode_buf_view(const struct bb_episode_buf *e)
{
    struct bb_episode v = {e->features, e->action, e->reward};
    return v;
}

char *bb_episode_to_json(const struct bb_episode_buf *e, size_t *len)
{
    struct bb_buf s = BB_BUF_INIT;
    bb_buf_printf(&s, "{\"billboard_version\":%llu,\"steps\":[",
                  (unsigned long long)e->billboard_version);
    for (int h = 0; h < e->H; h++) {
        bb_buf_puts(&s, h ? ",{\"features\":[" : "{\"features\":[");
        for (int a = 0; a < e->A; a++) {
            if (a)
                bb_buf_puts(&s, ",");
            put_vec(&s, e->features + ((size_t)h * e->A + a) * e->d, e->d);
        }
        bb_buf_printf(&s, "],\"action\":%d,\"reward\":", e->action[h]);
        put_num(&s, e->reward[h]);
        bb_buf_puts(&s, "}");
    }
    bb_buf_puts(&s, "]}");
    return bb_buf_detach(&s, len);
}

static int invalid(char *field, size_t fieldlen, char *why, size_t whylen, const char *msg,
                   const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int invalid(char *field, size_t fieldlen, char *why, size_t whylen, const char *msg,
                   const char *fmt, ...)
{
    if (field && fieldlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(field, fieldlen, fmt, ap);
        va_end(ap);
    }
    codec_say(why, whylen, "%s", msg);
    return BB_EINVAL;
}

/* Step h (0-based) of an episode body into out: BB_OK, or BB_EINVAL with
 * the JSON pointer of the culprit in field. */
static int read_episode_step(json_t *st, int h, struct bb_episode_buf *out, char *field,
                             size_t fieldlen, char *why, size_t whylen)
{
    const int A = out->A, d = out->d;
    const char *key;
    json_t *val;
    char msg[96];
    if (!json_is_object(st))
        return invalid(field, fieldlen, why, whylen, "each step must be an object", "/steps/%d",
                       h);
    json_object_foreach(st, key, val) {
        if (strcmp(key, "features") && strcmp(key, "action") && strcmp(key, "reward"))
            return invalid(field, fieldlen, why, whylen, "unknown field", "/steps/%d/%s", h, key);
    }
    json_t *feat = json_object_get(st, "features");
    if (!json_is_array(feat) || (int)json_array_size(feat) != A) {
        snprintf(msg, sizeof(msg), "features must be an array of exactly A = %d rows", A);
        return invalid(field, fieldlen, why, whylen, msg, "/steps/%d/features", h);
    }
    for (int a = 0; a < A; a++) {
        json_t *row = json_array_get(feat, (size_t)a);
        if (!json_is_array(row) || (int)json_array_size(row) != d) {
            snprintf(msg, sizeof(msg), "a feature row must have exactly d = %d numbers", d);
            return invalid(field, fieldlen, why, whylen, msg, "/steps/%d/features/%d", h, a);
        }
        for (int j = 0; j < d; j++)
            if (!codec_get_num(json_array_get(row, (size_t)j),
                               &out->features[((size_t)h * A + a) * d + j], 0))
                return invalid(field, fieldlen, why, whylen, "features must be finite numbers",
                               "/steps/%d/features/%d/%d", h, a, j);
    }
    json_t *act = json_object_get(st, "action");
    if (!json_is_integer(act))
        return invalid(field, fieldlen, why, whylen, "action must be an integer",
                       "/steps/%d/action", h);
    long long ai = json_integer_value(act);
    if (ai < 0 || ai >= A)
        return invalid(field, fieldlen, why, whylen, "action index out of range [0, A)",
                       "/steps/%d/action", h);
    out->action[h] = (int)ai;
    if (!codec_get_num(json_object_get(st, "reward"), &out->reward[h], 0))
        return invalid(field, fieldlen, why, whylen, "reward must be a finite number in [0, 1]",
                       "/steps/%d/reward", h);
    return BB_OK;
}

int bb_episode_from_json(const char *buf, size_t len, int H, int A, int d,
                         struct bb_episode_buf *out, char *field, size_t fieldlen, char *why,
                         size_t whylen)
{
    int rc = bb_episode_buf_init(out, H, A, d);
    if (rc != BB_OK)
        return rc;
    if (field && fieldlen)
        field[0] = '\0';
    if (codec_episode_fast(buf, len, out)) { /* well-formed: ranges still to check */
        struct bb_episode view = bb_episode_buf_view(out);
        return bb_episode_check(&view, H, A, d, field, fieldlen, why, whylen);
    }
    /* Anything the fast reader is not sure of: the full parser, which also
     * names every error. */
    json_error_t jerr;
    json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        codec_say(why, whylen, "malformed JSON at line %d column %d: %s", jerr.line, jerr.column,
            jerr.text);
        return BB_EPROTO;
    }
    if (!json_is_object(root)) { /* not an episode at all: a malformed request */
        codec_say(why, whylen, "the body must be a JSON object");
        rc = BB_EPROTO;
        goto out;
    }
    rc = BB_EINVAL;
    const char *key;
    json_t *val;
    json_object_foreach(root, key, val) {
        if (strcmp(key, "billboard_version") != 0 && strcmp(key, "steps") != 0) {
            invalid(field, fieldlen, why, whylen, "unknown field", "/%s", key);
            goto out;
        }
    }
    long long version;
    if (!get_int(root, "billboard_version", 0, INT64_MAX, &version)) {
        invalid(field, fieldlen, why, whylen,
                "billboard_version must be a non-negative integer", "%s", "/billboard_version");
        goto out;
    }
    out->billboard_version = (uint64_t)version;
    json_t *steps = json_object_get(root, "steps");
    if (!json_is_array(steps) || (int)json_array_size(steps) != H) {
        char msg[96];
        snprintf(msg, sizeof(msg), "steps must be an array of exactly H = %d steps", H);
        invalid(field, fieldlen, why, whylen, msg, "%s", "/steps");
        goto out;
    }
    for (int h = 0; h < H; h++)
        if (read_episode_step(json_array_get(steps, (size_t)h), h, out, field, fieldlen, why,
                              whylen) != BB_OK)
            goto out;
    struct bb_episode view = bb_episode_buf_view(out);
    rc = bb_episode_check(&view, H, A, d, field, fieldlen, why, whylen);
out:
    json_decref(root);
    return rc;
}

/* --- the small messages -----------------------------------------------------
 * The receipt and the recommendation's answer are field tables
 * (codec_table.h), like every typed answer (configuration, privacy,
 * clinics); the recommendation request, with its feature rows checked one
 * by one, is read by hand. All were always written by jansson (compact, 17
 * significant digits) and keep its bytes. */

/* --- receipt ------------------------------------------------------------- */

/* The receipt as it travels: versions are JSON integers (int64). */
struct receipt_wire {
    int64_t episode, billboard_version;
};

static const struct codec_field receipt_fields[] = {
    {"episode", CODEC_I64, offsetof(struct receipt_wire, episode), 0, 0, NULL, NULL},
    {"billboard_version", CODEC_I64, offsetof(struct receipt_wire, billboard_version), 0,
     CODEC_OPTIONAL, NULL, NULL},
    CODEC_END,
};

char *bb_receipt_to_json(const struct bb_receipt *r, size_t *len)
{
    struct receipt_wire w = {(int64_t)r->episode, (int64_t)r->billboard_version};
    return codec_table_dump(receipt_fields, &w, 0, len);
}

int bb_receipt_from_json(const char *buf, size_t len, struct bb_receipt *out, char *why,
                         size_t whylen)
{
    struct receipt_wire w = {-1, INT64_MAX};
    int rc = codec_table_parse(buf, len, receipt_fields, &w, "the receipt", why, whylen);
    if (rc == BB_OK && (w.episode < 0 || w.billboard_version < 0)) {
        codec_say(why, whylen, "the receipt's episode and billboard_version must be >= 0");
        rc = BB_EPROTO;
    }
    if (rc == BB_OK) {
        out->episode = (uint64_t)w.episode;
        out->billboard_version =
            w.billboard_version == INT64_MAX ? UINT64_MAX : (uint64_t)w.billboard_version;
    }
    return rc;
}

/* --- recommendation ------------------------------------------------------ */

char *bb_recommend_req_to_json(int h, const double *features, int A, int d, int64_t version,
                               size_t *len)
{
    return bb_recommend_req_to_json_episode(h, features, A, d, version, NULL, len);
}

char *bb_recommend_req_to_json_episode(int h, const double *features, int A, int d,
                                       int64_t version, const char *episode_key, size_t *len)
{
    json_t *o = json_object(), *rows = json_array();
    int ok = o && rows && json_object_set_new(o, "h", json_integer(h)) == 0;
    for (int a = 0; ok && a < A; a++) {
        json_t *row = json_array();
        for (int j = 0; row && j < d; j++)
            if (json_array_append_new(row, json_real(features[(size_t)a * d + j])) != 0) {
                json_decref(row);
                row = NULL;
            }
        ok = row && json_array_append_new(rows, row) == 0;
    }
    ok = ok && json_object_set_new(o, "features", rows) == 0;
    rows = NULL;
    if (ok && version >= 0)
        ok = json_object_set_new(o, "billboard_version", json_integer((json_int_t)version)) == 0;
    if (ok && episode_key)
        ok = json_object_set_new(o, "episode_key", json_string(episode_key)) == 0;
    json_decref(rows);
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return codec_dump(o, len);
}

/* Feature row a of a request into x (d doubles): BB_OK, or BB_EINVAL with
 * its JSON pointer in field. */
static int read_request_row(json_t *row, int a, double *x, int d, char *field, size_t fieldlen,
                            char *why, size_t whylen)
{
    char msg[96];
    if (!json_is_array(row) || json_array_size(row) != (size_t)d) {
        snprintf(msg, sizeof(msg), "each feature row must have %d numbers", d);
        return invalid(field, fieldlen, why, whylen, msg, "/features/%d", a);
    }
    for (int j = 0; j < d; j++)
        if (!codec_get_num(json_array_get(row, (size_t)j), &x[j], 0))
            return invalid(field, fieldlen, why, whylen, "feature values must be finite numbers",
                           "/features/%d/%d", a, j);
    if (bb_feature_row_check(x, d, msg, sizeof(msg)) != BB_OK)
        return invalid(field, fieldlen, why, whylen, msg, "/features/%d", a);
    return BB_OK;
}

int bb_recommend_req_from_json(const char *buf, size_t len, int H, int A, int d,
                               struct bb_recommend_req *out, char *field, size_t fieldlen,
                               char *why, size_t whylen)
{
    char msg[96];
    json_t *o = NULL;
    if (field && fieldlen)
        field[0] = '\0';
    int rc = codec_load_object(buf, len, &o, why, whylen);
    if (rc != BB_OK)
        return rc;
    rc = BB_EINVAL;
    json_t *jh = json_object_get(o, "h");
    if (!json_is_integer(jh) || json_integer_value(jh) < 1 || json_integer_value(jh) > H) {
        snprintf(msg, sizeof(msg), "h must be an integer step in [1, %d]", H);
        invalid(field, fieldlen, why, whylen, msg, "%s", "/h");
        goto out;
    }
    out->h = (int)json_integer_value(jh);
    out->version = -1;
    json_t *jv = json_object_get(o, "billboard_version");
    if (jv && !json_is_null(jv)) {
        if (!json_is_integer(jv) || json_integer_value(jv) < 0) {
            invalid(field, fieldlen, why, whylen,
                      "billboard_version must be a non-negative integer", "%s",
                      "/billboard_version");
            goto out;
        }
        out->version = json_integer_value(jv);
    }
    json_t *jk = json_object_get(o, "episode_key");
    if (jk && !json_is_null(jk)) {
        const char *k = json_string_value(jk);
        size_t n = k ? strlen(k) : 0;
        int ok = n >= 1 && n <= 128 && n == json_string_length(jk);
        for (size_t i = 0; ok && i < n; i++)
            ok = k[i] >= 0x21 && k[i] <= 0x7e;
        if (!ok) {
            invalid(field, fieldlen, why, whylen,
                    "episode_key must be 1 to 128 visible ASCII characters", "%s",
                    "/episode_key");
            goto out;
        }
        rc = BB_ENOMEM;
        if (!(out->episode_key = strdup(k)))
            goto out;
        rc = BB_EINVAL;
    }
    json_t *jf = json_object_get(o, "features");
    if (!json_is_array(jf) || json_array_size(jf) != (size_t)A) {
        snprintf(msg, sizeof(msg), "features must be an array of %d rows", A);
        invalid(field, fieldlen, why, whylen, msg, "%s", "/features");
        goto out;
    }
    rc = BB_ENOMEM;
    if (!(out->features = malloc(sizeof(double) * (size_t)A * d)))
        goto out;
    out->A = A;
    out->d = d;
    rc = BB_EINVAL;
    for (int a = 0; a < A; a++)
        if (read_request_row(json_array_get(jf, (size_t)a), a, out->features + (size_t)a * d, d,
                             field, fieldlen, why, whylen) != BB_OK)
            goto out;
    rc = BB_OK;
out:
    json_decref(o);
    return rc;
}

void bb_recommend_req_release(struct bb_recommend_req *r)
{
    free(r->features);
    free(r->episode_key);
    memset(r, 0, sizeof(*r));
}

/* The answer as it travels; q borrowed (encode) or owned (decode). */
struct resp_wire {
    int A, action;
    double *q;
    int64_t billboard_version;
};

static const struct codec_field resp_fields[] = {
    {"action", CODEC_INT, offsetof(struct resp_wire, action), 0, 0, NULL, NULL},
    {"q", CODEC_REALS, offsetof(struct resp_wire, q), offsetof(struct resp_wire, A), 0, NULL,
     NULL},
    {"billboard_version", CODEC_I64, offsetof(struct resp_wire, billboard_version), 0,
     CODEC_OPTIONAL, NULL, NULL},
    CODEC_END,
};

char *bb_recommend_resp_to_json(int action, const double *q, int A, uint64_t version,
                                size_t *len)
{
    struct resp_wire w = {A, action, (double *)q, (int64_t)version};
    return codec_table_dump(resp_fields, &w, 0, len);
}

int bb_recommend_resp_from_json(const char *buf, size_t len, int A, int *action, double *q,
                                uint64_t *version, char *why, size_t whylen)
{
    struct resp_wire w = {A, -1, NULL, -1};
    int rc = codec_table_parse(buf, len, resp_fields, &w, "the answer", why, whylen);
    if (rc == BB_EPROTO || (rc == BB_OK && (w.action < 0 || w.action >= A))) {
        codec_say(why, whylen, "the answer lacks an action in [0, %d) or q[%d]", A, A);
        rc = BB_EPROTO;
    }
    if (rc == BB_OK) {
        *action = w.action;
        memcpy(q, w.q, sizeof(double) * (size_t)A);
        if (version)
            *version = w.billboard_version >= 0 ? (uint64_t)w.billboard_version : UINT64_MAX;
    }
    codec_table_release(resp_fields, &w);
    return rc;
}
