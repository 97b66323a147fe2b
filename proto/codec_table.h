/*
 * codec_table.h — the one idiom of the typed wire codecs (library-internal).
 *
 * A wire type is a C struct and a table of its fields: JSON key, kind and
 * offset. codec_table_encode() writes the fields in table order (so the
 * table is the wire order), codec_table_decode() reads them back, checking
 * each kind; a decoder states only what the table cannot (ranges, names).
 * Everything is built and read with jansson, dumped compact with 17
 * significant digits: the bytes jansson always wrote for these answers.
 *
 * Kinds and their JSON:
 *   CODEC_INT, CODEC_LONG, CODEC_I64   integer (int, long, int64_t)
 *   CODEC_I64_NULL                     integer, or null for 0 (int64_t)
 *   CODEC_BOOL                         true/false (int, 0 or 1)
 *   CODEC_REAL                         finite number (double)
 *   CODEC_REAL_INF                     number, or null for a non-finite
 *                                      value (read back as INFINITY)
 *   CODEC_TEXT                         string (char[size], NUL-terminated)
 *   CODEC_REALS                        array of finite numbers (double *,
 *                                      owned), as many as the int at
 *                                      count_off
 *   CODEC_OBJECT                       nested object of table sub
 *
 * Flags: CODEC_OPTIONAL (absent on decode: the field keeps what it held);
 * a field with a `present` function is encoded only where it returns 1.
 */
#ifndef BB_CODEC_TABLE_H
#define BB_CODEC_TABLE_H

#include <jansson.h>
#include <stddef.h>

enum codec_kind {
    CODEC_INT,
    CODEC_LONG,
    CODEC_I64,
    CODEC_I64_NULL,
    CODEC_BOOL,
    CODEC_REAL,
    CODEC_REAL_INF,
    CODEC_TEXT,
    CODEC_REALS,
    CODEC_OBJECT,
};

#define CODEC_OPTIONAL 1u

struct codec_field {
    const char *key;
    enum codec_kind kind;
    size_t off;     /* of the field in its struct */
    size_t size;    /* CODEC_TEXT: bytes of the array; CODEC_REALS: offset of the count */
    unsigned flags; /* CODEC_OPTIONAL */
    const struct codec_field *sub; /* CODEC_OBJECT: its table */
    int (*present)(const void *s); /* NULL: always encoded */
};

/* The end of a table. */
#define CODEC_END                                                                                  \
    {                                                                                              \
        NULL, CODEC_INT, 0, 0, 0, NULL, NULL                                                       \
    }

/* Sets the fields of table t in o (borrowed) from the struct at s
 * (borrowed). BB_OK or BB_ENOMEM (also for a non-finite CODEC_REAL). */
int codec_table_encode(json_t *o, const struct codec_field *t, const void *s);

/* Reads the fields of table t from object o into the struct at s. BB_OK;
 * BB_EPROTO with "what: key" in why (may be NULL) if a required field is
 * missing or a field is of the wrong kind; BB_ENOMEM. CODEC_REALS arrays
 * are allocated here (release them with codec_table_release, also on error). */
int codec_table_decode(json_t *o, const struct codec_field *t, void *s, const char *what, char *why,
                       size_t whylen);

/* codec_load_object, then codec_table_decode: a whole answer of table t
 * from buf into the struct at s. */
int codec_table_parse(const char *buf, size_t len, const struct codec_field *t, void *s,
                      const char *what, char *why, size_t whylen);

/* Frees the CODEC_REALS arrays of the struct at s and sets them NULL. */
void codec_table_release(const struct codec_field *t, void *s);

/* An object of table t from s, dumped compact (or with pretty, indented by
 * two), 17 significant digits. Caller frees; NULL on ENOMEM. *len (may be
 * NULL) receives the length. */
char *codec_table_dump(const struct codec_field *t, const void *s, int pretty, size_t *len);

/* Dumps o (taken) compact with 17 significant digits; caller frees; NULL on
 * ENOMEM. */
char *codec_dump(json_t *o, size_t *len);

/* Parses buf as one JSON object (duplicate keys rejected) into *out (caller
 * owns). BB_EPROTO with the reason in why: "invalid JSON at line L column
 * C: ..." or "the body must be a JSON object". */
int codec_load_object(const char *buf, size_t len, json_t **out, char *why, size_t whylen);

/* 1 if v is a finite number, or null where null_is_inf (read as INFINITY:
 * encoders write every infinite value as null); *out receives it. */
int codec_get_num(json_t *v, double *out, int null_is_inf);

/* printf into why (may be NULL); returns 0. */
int codec_say(char *why, size_t whylen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
