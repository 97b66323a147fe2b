/*
 * conffile.h — the syntax of billboardd's configuration file (--config).
 *
 *   # a comment: a line whose first non-blank character is '#'
 *   listen  = 127.0.0.1
 *   horizon = 10
 *   insecure-http = true
 *
 * One "key = value" per line. Blanks around the key and the value are
 * dropped; the value is the rest of the line, verbatim (no quoting, and a
 * '#' after the '=' is part of the value). Blank lines are skipped. A key
 * is a flag's name without its leading dashes ([a-z0-9-]+). A line without
 * '=', a key without a value, a malformed key and a key given twice are
 * errors reported as "FILE:LINE: ...". This module knows the syntax only:
 * which keys exist and what their values mean is options.c's business, from
 * the same tables as the command line.
 */
#ifndef BB_CONFFILE_H
#define BB_CONFFILE_H

#include <stddef.h>

#include "billboard/err.h"

struct bb_conffile_entry {
    const char *key;  /* "horizon"; owned by the struct bb_conffile */
    const char *flag; /* the same key spelled as a flag, "--horizon"; owned */
    const char *value;
    int line; /* 1-based */
};

struct bb_conffile {
    char *path; /* owned copy, for messages */
    struct bb_conffile_entry *e;
    size_t n;
    char *text;  /* owned; keys and values point into it */
    char *flags; /* owned; every entry's flag points into it */
};

/* Parses len bytes of text read from path (both copied) into cf, which
 * must be zeroed or released. On error cf holds nothing and why says
 * "PATH:LINE: what" (BB_EINVAL) or is about memory (BB_ENOMEM). */
int bb_conffile_parse(struct bb_conffile *cf, const char *path, const char *text, size_t len,
                      char *why, size_t whylen) BB_WARN_UNUSED;

/* Reads and parses the file at path (at most 1 MiB). BB_EIO with
 * "PATH: reason" in why if it cannot be read; else as bb_conffile_parse. */
int bb_conffile_read(struct bb_conffile *cf, const char *path, char *why,
                     size_t whylen) BB_WARN_UNUSED;

/* Frees what cf holds and zeroes it; a zeroed cf is a no-op. */
void bb_conffile_release(struct bb_conffile *cf);

#endif
