/*
 * log.c — the daemon's log lines (log.h).
 */
#include "log.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_BYTES 4096

static int as_json;

static const char *const level_names[] = {"error", "warn", "info"};

void bb_log_setup(int json)
{
    as_json = json;
}

/* "YYYY-MM-DDThh:mm:ss.sssZ" (UTC) into buf (at least 32 bytes); the
 * seconds' part is formatted once a second per thread. */
static void timestamp(char *buf, size_t len)
{
    static __thread time_t sec = -1;
    static __thread char head[24];
    static __thread size_t headlen;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (ts.tv_sec != sec) {
        struct tm tm;
        gmtime_r(&ts.tv_sec, &tm);
        headlen = strftime(head, sizeof(head), "%Y-%m-%dT%H:%M:%S", &tm);
        sec = ts.tv_sec;
    }
    long ms = ts.tv_nsec / 1000000;
    if (len < headlen + 6)
        return;
    memcpy(buf, head, headlen);
    char *p = buf + headlen;
    *p++ = '.';
    *p++ = (char)('0' + ms / 100);
    *p++ = (char)('0' + ms / 10 % 10);
    *p++ = (char)('0' + ms % 10);
    *p++ = 'Z';
    *p = '\0';
}

/* Appends s (n bytes) to line[*len], keeping a NUL within cap. */
static void append(char *line, size_t *len, size_t cap, const char *s, size_t n)
{
    if (*len + n >= cap)
        n = *len + 1 < cap ? cap - *len - 1 : 0;
    memcpy(line + *len, s, n);
    *len += n;
    line[*len] = '\0';
}

/* v as "%.10g" prints it; integers below 10^10 (statuses, byte counts,
 * ids), which "%.10g" prints as plain integers, without printf. */
static void append_num(char *line, size_t *len, size_t cap, double v)
{
    char buf[40];
    int n;
    if (fabs(v) < 1e10 && v == floor(v) && !signbit(v)) {
        char digits[16];
        long long i = (long long)v;
        int k = 0;
        do {
            digits[k++] = (char)('0' + i % 10);
            i /= 10;
        } while (i);
        for (n = 0; k;)
            buf[n++] = digits[--k];
    } else {
        n = snprintf(buf, sizeof(buf), "%.10g", v);
    }
    append(line, len, cap, buf, n > 0 ? (size_t)n : 0);
}

/* Writes s and a newline with one write(2). */
static void emit(const char *s)
{
    size_t n = strlen(s);
    char line[LINE_MAX_BYTES + 2];
    if (n > LINE_MAX_BYTES)
        n = LINE_MAX_BYTES;
    memcpy(line, s, n);
    line[n++] = '\n';
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(STDERR_FILENO, line + off, n - off);
        if (w <= 0)
            return;
        off += (size_t)w;
    }
}

/* "<time> <level> billboardd: <msg>" as one line. */
static void text_line(enum bb_log_level level, const char *msg)
{
    char line[LINE_MAX_BYTES + 64];
    size_t len;
    timestamp(line, 40);
    len = strlen(line);
    append(line, &len, sizeof(line), " ", 1);
    append(line, &len, sizeof(line), level_names[level], strlen(level_names[level]));
    append(line, &len, sizeof(line), " billboardd: ", 13);
    append(line, &len, sizeof(line), msg, strnlen(msg, LINE_MAX_BYTES));
    emit(line);
}

/* Drops a trailing newline some callers (libmicrohttpd) leave in msg. */
static void chomp(char *msg)
{
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
        msg[--n] = '\0';
}

static void finish_json(json_t *o)
{
    char *s =
        o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) : NULL;
    if (s)
        emit(s);
    free(s);
    json_decref(o);
}

static json_t *json_head(enum bb_log_level level, const char *msg)
{
    char when[40];
    timestamp(when, sizeof(when));
    json_t *o = json_object();
    if (o) {
        json_object_set_new(o, "time", json_string(when));
        json_object_set_new(o, "level", json_string(level_names[level]));
        json_object_set_new(o, "msg", json_string(msg));
    }
    return o;
}

void bb_logv(enum bb_log_level level, const char *fmt, va_list ap)
{
    char msg[LINE_MAX_BYTES];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    chomp(msg);
    if (as_json) {
        finish_json(json_head(level, msg));
        return;
    }
    text_line(level, msg);
}

void bb_log(enum bb_log_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bb_logv(level, fmt, ap);
    va_end(ap);
}

/* v as JSON: an integer when it is one, "inf" or "NaN" (which JSON lacks)
 * as strings, else a real. */
static json_t *json_number(double v)
{
    if (!isfinite(v))
        return json_string(isnan(v) ? "NaN" : v > 0 ? "inf" : "-inf");
    if (fabs(v) < 9e15 && v == floor(v))
        return json_integer((json_int_t)v);
    return json_real(v);
}

void bb_log_event(enum bb_log_level level, const char *event, const struct bb_log_field *f,
                  size_t n)
{
    if (as_json) {
        json_t *o = json_head(level, event);
        for (size_t i = 0; o && i < n; i++)
            json_object_set_new(o, f[i].key, f[i].s ? json_string(f[i].s) : json_number(f[i].num));
        finish_json(o);
        return;
    }
    char line[LINE_MAX_BYTES];
    size_t len = 0;
    line[0] = '\0';
    append(line, &len, sizeof(line), event, strlen(event));
    for (size_t i = 0; i < n; i++) {
        append(line, &len, sizeof(line), " ", 1);
        append(line, &len, sizeof(line), f[i].key, strlen(f[i].key));
        append(line, &len, sizeof(line), "=", 1);
        if (!f[i].s) {
            append_num(line, &len, sizeof(line), f[i].num);
        } else if (!f[i].s[0] || strpbrk(f[i].s, " \"=\t")) {
            append(line, &len, sizeof(line), "\"", 1);
            append(line, &len, sizeof(line), f[i].s, strlen(f[i].s));
            append(line, &len, sizeof(line), "\"", 1);
        } else {
            append(line, &len, sizeof(line), f[i].s, strlen(f[i].s));
        }
    }
    text_line(level, line);
}
