/*
 * log.h — billboardd's log: one line per event on stderr, each with an RFC
 * 3339 UTC timestamp (milliseconds) and a level.
 *
 *   text: YYYY-MM-DDThh:mm:ss.sssZ info billboardd: serving ...
 *         YYYY-MM-DDThh:mm:ss.sssZ info billboardd: access client=127.0.0.1 method=GET ...
 *   json: {"time":"YYYY-MM-DDThh:mm:ss.sssZ","level":"info","msg":"serving ..."}
 *         {"time":...,"level":"info","msg":"access","client":"127.0.0.1",...}
 *
 * A line is written with one write(2), so lines of several threads never
 * interleave. Nothing logged ever holds a token or a feature value: callers
 * pass what may be read by whoever reads the log (journald, a shipper).
 * Any thread may log; bb_log_setup is called once, before threads start.
 */
#ifndef BB_LOG_H
#define BB_LOG_H

#include <stdarg.h>
#include <stddef.h>

enum bb_log_level { BB_LOG_ERROR, BB_LOG_WARN, BB_LOG_INFO };

/* json: 1 for one JSON object a line, 0 for text (the default). */
void bb_log_setup(int json);

/* A message (printf format, no newline). */
void bb_log(enum bb_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void bb_logv(enum bb_log_level level, const char *fmt, va_list ap);

/* One field of an event: a string (s) or, if s is NULL, the number num. */
struct bb_log_field {
    const char *key;
    const char *s;
    double num;
};

/* An event named event with n fields: "event k=v k=v" in text (a value
 * with a blank or quote is quoted), members of the object in JSON. */
void bb_log_event(enum bb_log_level level, const char *event, const struct bb_log_field *f,
                  size_t n);

#endif
