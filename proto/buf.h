/*
 * buf.h — the one growable byte buffer of the project (library-internal,
 * after git's strbuf).
 *
 * A struct bb_buf holds len bytes in p, always followed by a NUL once
 * anything was added, so text can be used as a C string. It grows
 * geometrically. An allocation failure is sticky: `oom` is set, the bytes
 * already held are kept, and every later append does nothing, so a writer
 * can append a whole document and check once at the end (bb_buf_detach).
 *
 * Lifecycle: BB_BUF_INIT or bb_buf_init(), appends, then bb_buf_detach()
 * (the caller takes the bytes) or bb_buf_release() (they are freed). Both
 * leave the buffer empty and ready for reuse.
 */
#ifndef BB_BUF_H
#define BB_BUF_H

#include <stddef.h>
#include <stdio.h>

#include "billboard/err.h"

struct bb_buf {
    char *p;    /* owned; NULL until the first byte is added */
    size_t len; /* bytes held, the trailing NUL not counted */
    size_t cap; /* bytes allocated at p */
    int oom;    /* an allocation failed: appends do nothing from then on */
};

#define BB_BUF_INIT {NULL, 0, 0, 0}

/* Makes b empty. Does not free: b must be fresh or released. */
void bb_buf_init(struct bb_buf *b);

/* Frees b's bytes and makes it empty (oom cleared). */
void bb_buf_release(struct bb_buf *b);

/* Makes room for `more` bytes after len (and the NUL). BB_OK, or BB_ENOMEM
 * (and b->oom set) if that allocation fails or failed before. */
int bb_buf_grow(struct bb_buf *b, size_t more);

/* Appends n bytes of data (borrowed). */
void bb_buf_add(struct bb_buf *b, const void *data, size_t n);

/* Appends the string s (borrowed), without its NUL. */
void bb_buf_puts(struct bb_buf *b, const char *s);

/* Appends printf-style text. */
void bb_buf_printf(struct bb_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends everything f (borrowed) yields until end of file. BB_OK,
 * BB_ENOMEM, or BB_EIO if reading failed (the bytes read stay in b). */
int bb_buf_read(struct bb_buf *b, FILE *f) BB_WARN_UNUSED;

/* Hands the bytes over: returns p (caller owns, free()), *len (may be NULL)
 * receives len. Returns NULL if nothing was added, or if an allocation
 * failed (the bytes are then freed). b is left empty either way. */
char *bb_buf_detach(struct bb_buf *b, size_t *len);

#endif
