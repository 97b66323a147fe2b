/*
 * codec_fast.c — schema-specific episode reader (codec_fast.h).
 */
#include "codec_fast.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct cur {
    const char *p, *end;
};

static void ws(struct cur *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int lit(struct cur *c, char ch)
{
    ws(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

static int is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

/* An RFC 8259 number token at c->p; on success its end in *tend and
 * whether it is an integer (no fraction, no exponent) in *integer. */
static int number_token(const struct cur *c, const char **tend, int *integer)
{
    const char *p = c->p, *e = c->end;
    if (p < e && *p == '-')
        p++;
    if (p >= e)
        return 0;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (p < e && is_digit(*p))
            p++;
    else
        return 0;
    *integer = 1;
    if (p < e && *p == '.') {
        p++;
        if (p >= e || !is_digit(*p))
            return 0;
        while (p < e && is_digit(*p))
            p++;
        *integer = 0;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            p++;
        if (p >= e || !is_digit(*p))
            return 0;
        while (p < e && is_digit(*p))
            p++;
        *integer = 0;
    }
    *tend = p;
    return 1;
}

/* Converts [p, tend) with strtod, which must stop exactly at tend. */
static int to_double(const char *p, const char *tend, double *out)
{
    char tmp[64];
    size_t n = (size_t)(tend - p);
    if (n >= sizeof(tmp))
        return 0; /* unusually long: let jansson judge it */
    memcpy(tmp, p, n);
    tmp[n] = '\0';
    char *end;
    double v = strtod(tmp, &end);
    if (end != tmp + n || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

/* Any number; integers of more than 18 digits are left to jansson, which
 * reads them as 64-bit integers and refuses overflow. */
static int number(struct cur *c, double *out)
{
    ws(c);
    const char *tend;
    int integer;
    if (!number_token(c, &tend, &integer))
        return 0;
    if (integer && tend - c->p > 18)
        return 0;
    if (!to_double(c->p, tend, out))
        return 0;
    /* jansson reads an integer token as a 64-bit integer, and an integer
     * has no negative zero: "-0" is 0.0, as there. */
    if (integer && *out == 0)
        *out = 0.0;
    c->p = tend;
    return 1;
}

/* A non-negative integer token of at most 18 digits. */
static int uint_token(struct cur *c, long long *out)
{
    ws(c);
    const char *tend;
    int integer;
    if (!number_token(c, &tend, &integer) || !integer || *c->p == '-' || tend - c->p > 18)
        return 0;
    long long v = 0;
    for (const char *p = c->p; p < tend; p++)
        v = v * 10 + (*p - '0');
    *out = v;
    c->p = tend;
    return 1;
}

/* An integer token of at most 18 digits, possibly negative. */
static int int_token(struct cur *c, long long *out)
{
    ws(c);
    int neg = c->p < c->end && *c->p == '-';
    if (neg) {
        struct cur d = {c->p + 1, c->end};
        if (d.p < d.end && (*d.p == ' ' || *d.p == '-'))
            return 0;
        if (!uint_token(&d, out))
            return 0;
        *out = -*out;
        c->p = d.p;
        return 1;
    }
    return uint_token(c, out);
}

/* A key without escapes or control characters, then ':'. */
static int key(struct cur *c, const char **k, size_t *klen)
{
    if (!lit(c, '"'))
        return 0;
    const char *s = c->p;
    while (c->p < c->end && *c->p != '"') {
        if (*c->p == '\\' || (unsigned char)*c->p < 0x20)
            return 0;
        c->p++;
    }
    if (c->p >= c->end)
        return 0;
    *k = s;
    *klen = (size_t)(c->p - s);
    c->p++;
    return lit(c, ':');
}

static int is_key(const char *k, size_t klen, const char *name)
{
    return strlen(name) == klen && memcmp(k, name, klen) == 0;
}

static int row(struct cur *c, double *out, int d)
{
    if (!lit(c, '['))
        return 0;
    for (int j = 0; j < d; j++) {
        if (j && !lit(c, ','))
            return 0;
        if (!number(c, &out[j]))
            return 0;
    }
    return lit(c, ']');
}

static int step(struct cur *c, struct bb_episode_buf *e, int h)
{
    int seen_f = 0, seen_a = 0, seen_r = 0;
    if (!lit(c, '{'))
        return 0;
    for (int n = 0; n < 3; n++) {
        const char *k;
        size_t klen;
        if (n && !lit(c, ','))
            return 0;
        if (!key(c, &k, &klen))
            return 0;
        if (is_key(k, klen, "features") && !seen_f) {
            seen_f = 1;
            if (!lit(c, '['))
                return 0;
            for (int a = 0; a < e->A; a++) {
                if (a && !lit(c, ','))
                    return 0;
                if (!row(c, e->features + ((size_t)h * e->A + a) * e->d, e->d))
                    return 0;
            }
            if (!lit(c, ']'))
                return 0;
        } else if (is_key(k, klen, "action") && !seen_a) {
            seen_a = 1;
            long long v;
            if (!int_token(c, &v) || v < 0 || v >= e->A)
                return 0;
            e->action[h] = (int)v;
        } else if (is_key(k, klen, "reward") && !seen_r) {
            seen_r = 1;
            if (!number(c, &e->reward[h]))
                return 0;
        } else {
            return 0; /* unknown or repeated: the full parser says which */
        }
    }
    return lit(c, '}');
}

int codec_episode_fast(const char *buf, size_t len, struct bb_episode_buf *e)
{
    struct cur c = {buf, buf + len};
    int seen_v = 0, seen_s = 0;
    if (!lit(&c, '{'))
        return 0;
    for (int n = 0; n < 2; n++) {
        const char *k;
        size_t klen;
        if (n && !lit(&c, ','))
            return 0;
        if (!key(&c, &k, &klen))
            return 0;
        if (is_key(k, klen, "billboard_version") && !seen_v) {
            seen_v = 1;
            long long v;
            if (!uint_token(&c, &v))
                return 0;
            e->billboard_version = (uint64_t)v;
        } else if (is_key(k, klen, "steps") && !seen_s) {
            seen_s = 1;
            if (!lit(&c, '['))
                return 0;
            for (int h = 0; h < e->H; h++) {
                if (h && !lit(&c, ','))
                    return 0;
                if (!step(&c, e, h))
                    return 0;
            }
            if (!lit(&c, ']'))
                return 0;
        } else {
            return 0;
        }
    }
    if (!lit(&c, '}'))
        return 0;
    ws(&c);
    return c.p == c.end;
}
