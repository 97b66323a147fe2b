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

/* "YYYY-MM-DDThh:mm:ss.sssZ" (UTC) into buf (at least 32 bytes). */
static void timestamp(char *buf, size_t len)
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, len - n, ".%03ldZ", ts.tv_nsec / 1000000);
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
    char when[40], line[LINE_MAX_BYTES + 64];
    timestamp(when, sizeof(when));
    snprintf(line, sizeof(line), "%s %s billboardd: %s", when, level_names[level], msg);
    emit(line);
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
    size_t len = (size_t)snprintf(line, sizeof(line), "%s", event);
    for (size_t i = 0; i < n && len < sizeof(line); i++) {
        int w;
        if (!f[i].s)
            w = snprintf(line + len, sizeof(line) - len, " %s=%.10g", f[i].key, f[i].num);
        else if (!f[i].s[0] || strpbrk(f[i].s, " \"=\t"))
            w = snprintf(line + len, sizeof(line) - len, " %s=\"%s\"", f[i].key, f[i].s);
        else
            w = snprintf(line + len, sizeof(line) - len, " %s=%s", f[i].key, f[i].s);
        if (w < 0)
            break;
        len += (size_t)w;
    }
    bb_log(level, "%s", line);
}
