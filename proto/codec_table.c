/*
 * codec_table.c — encoding and decoding a struct by its field table
 * (codec_table.h), and the jansson helpers every codec shares.
 */
#include "codec_table.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "billboard/err.h"

#define JSON_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(17))

int codec_say(char *why, size_t whylen, const char *fmt, ...)
{
    if (why && whylen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
    }
    return 0;
}

char *codec_dump(json_t *o, size_t *len)
{
    char *s = o ? json_dumps(o, JSON_FLAGS) : NULL;
    json_decref(o);
    if (s && len)
        *len = strlen(s);
    return s;
}

int codec_load_object(const char *buf, size_t len, json_t **out, char *why, size_t whylen)
{
    json_error_t e;
    json_t *o = json_loadb(buf ? buf : "", len, JSON_REJECT_DUPLICATES, &e);
    *out = NULL;
    if (!o) {
        codec_say(why, whylen, "invalid JSON at line %d column %d: %s", e.line, e.column, e.text);
        return BB_EPROTO;
    }
    if (!json_is_object(o)) {
        json_decref(o);
        codec_say(why, whylen, "the body must be a JSON object");
        return BB_EPROTO;
    }
    *out = o;
    return BB_OK;
}

#define AT(s, f, type)       ((type *)(void *)((char *)(s) + (f)->off))
#define AT_CONST(s, f, type) ((const type *)(const void *)((const char *)(s) + (f)->off))

static json_t *encode_one(const struct codec_field *f, const void *s)
{
    switch (f->kind) {
    case CODEC_INT:
        return json_integer(*AT_CONST(s, f, int));
    case CODEC_LONG:
        return json_integer(*AT_CONST(s, f, long));
    case CODEC_I64:
        return json_integer((json_int_t)*AT_CONST(s, f, int64_t));
    case CODEC_I64_NULL: {
        int64_t v = *AT_CONST(s, f, int64_t);
        return v ? json_integer((json_int_t)v) : json_null();
    }
    case CODEC_BOOL:
        return json_boolean(*AT_CONST(s, f, int));
    case CODEC_REAL:
        return json_real(*AT_CONST(s, f, double)); /* NULL when not finite */
    case CODEC_REAL_INF: {
        double v = *AT_CONST(s, f, double);
        return isfinite(v) ? json_real(v) : json_null();
    }
    case CODEC_TEXT:
        return json_string(AT_CONST(s, f, char));
    case CODEC_REALS: {
        const double *v = *AT_CONST(s, f, double *);
        int n = *(const int *)(const void *)((const char *)s + f->size);
        json_t *a = json_array();
        for (int i = 0; a && i < n; i++)
            if (json_array_append_new(a, json_real(v[i])) != 0) {
                json_decref(a);
                a = NULL;
            }
        return a;
    }
    case CODEC_OBJECT: {
        json_t *o = json_object();
        if (o && codec_table_encode(o, f->sub, AT_CONST(s, f, char)) != BB_OK) {
            json_decref(o);
            o = NULL;
        }
        return o;
    }
    }
    return NULL;
}

int codec_table_encode(json_t *o, const struct codec_field *t, const void *s)
{
    for (const struct codec_field *f = t; f->key; f++) {
        if (f->present && !f->present(s))
            continue;
        json_t *v = encode_one(f, s);
        if (!v || json_object_set_new(o, f->key, v) != 0)
            return BB_ENOMEM;
    }
    return BB_OK;
}

int codec_get_num(json_t *v, double *out, int null_is_inf)
{
    if (null_is_inf && json_is_null(v)) {
        *out = INFINITY;
        return 1;
    }
    if (!json_is_number(v))
        return 0;
    *out = json_number_value(v);
    return isfinite(*out);
}

/* 1 if v is read into the field, 0 if it is of the wrong kind, or a
 * negative enum bb_err (a nested table's BB_EPROTO has said why). */
static int decode_one(const struct codec_field *f, json_t *v, void *s, const char *what, char *why,
                      size_t whylen)
{
    json_int_t i = json_integer_value(v);
    switch (f->kind) {
    case CODEC_INT:
        if (!json_is_integer(v) || i < INT_MIN || i > INT_MAX)
            return 0;
        *AT(s, f, int) = (int)i;
        return 1;
    case CODEC_LONG:
        if (!json_is_integer(v) || i < LONG_MIN || i > LONG_MAX)
            return 0;
        *AT(s, f, long) = (long)i;
        return 1;
    case CODEC_I64:
        if (!json_is_integer(v))
            return 0;
        *AT(s, f, int64_t) = i;
        return 1;
    case CODEC_I64_NULL:
        if (!json_is_integer(v) && !json_is_null(v))
            return 0;
        *AT(s, f, int64_t) = i;
        return 1;
    case CODEC_BOOL:
        if (!json_is_boolean(v))
            return 0;
        *AT(s, f, int) = json_is_true(v);
        return 1;
    case CODEC_REAL:
    case CODEC_REAL_INF:
        return codec_get_num(v, AT(s, f, double), f->kind == CODEC_REAL_INF);
    case CODEC_TEXT:
        if (!json_is_string(v) || json_string_length(v) >= f->size ||
            strlen(json_string_value(v)) != json_string_length(v))
            return 0;
        memcpy(AT(s, f, char), json_string_value(v), json_string_length(v) + 1);
        return 1;
    case CODEC_REALS: {
        int n = *(const int *)(const void *)((const char *)s + f->size);
        if (!json_is_array(v) || n < 0 || json_array_size(v) != (size_t)n)
            return 0;
        double *a = malloc(sizeof(double) * (size_t)(n ? n : 1));
        if (!a)
            return BB_ENOMEM;
        free(*AT(s, f, double *));
        *AT(s, f, double *) = a;
        for (int k = 0; k < n; k++)
            if (!codec_get_num(json_array_get(v, (size_t)k), &a[k], 0))
                return 0;
        return 1;
    }
    case CODEC_OBJECT: {
        if (!json_is_object(v))
            return 0;
        int rc = codec_table_decode(v, f->sub, AT(s, f, char), what, why, whylen);
        return rc == BB_OK ? 1 : rc;
    }
    }
    return 0;
}

int codec_table_decode(json_t *o, const struct codec_field *t, void *s, const char *what, char *why,
                       size_t whylen)
{
    for (const struct codec_field *f = t; f->key; f++) {
        json_t *v = json_object_get(o, f->key);
        if (!v) {
            if (f->flags & CODEC_OPTIONAL)
                continue;
            codec_say(why, whylen, "%s lacks %s", what, f->key);
            return BB_EPROTO;
        }
        int ok = decode_one(f, v, s, what, why, whylen);
        if (ok < 0)
            return ok;
        if (!ok) {
            codec_say(why, whylen, "%s has a malformed %s", what, f->key);
            return BB_EPROTO;
        }
    }
    return BB_OK;
}

int codec_table_parse(const char *buf, size_t len, const struct codec_field *t, void *s,
                      const char *what, char *why, size_t whylen)
{
    json_t *o = NULL;
    int rc = codec_load_object(buf, len, &o, why, whylen);
    if (rc == BB_OK)
        rc = codec_table_decode(o, t, s, what, why, whylen);
    json_decref(o);
    return rc;
}

void codec_table_release(const struct codec_field *t, void *s)
{
    for (const struct codec_field *f = t; f->key; f++) {
        if (f->kind == CODEC_REALS) {
            free(*AT(s, f, double *));
            *AT(s, f, double *) = NULL;
        } else if (f->kind == CODEC_OBJECT) {
            codec_table_release(f->sub, AT(s, f, char));
        }
    }
}

char *codec_table_dump(const struct codec_field *t, const void *s, int pretty, size_t *len)
{
    json_t *o = json_object();
    if (o && codec_table_encode(o, t, s) != BB_OK) {
        json_decref(o);
        o = NULL;
    }
    if (!pretty)
        return codec_dump(o, len);
    char *str = o ? json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(o);
    if (str && len)
        *len = strlen(str);
    return str;
}
