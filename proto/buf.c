/*
 * buf.c — the growable byte buffer (buf.h).
 */
#include "buf.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The first allocation: small enough for a header, large enough that a
 * billboard or an episode body grows only a few times. */
#define FIRST_CAP 256

void bb_buf_init(struct bb_buf *b)
{
    memset(b, 0, sizeof(*b));
}

void bb_buf_release(struct bb_buf *b)
{
    free(b->p);
    bb_buf_init(b);
}

int bb_buf_grow(struct bb_buf *b, size_t more)
{
    if (b->oom)
        return BB_ENOMEM;
    if (more >= (size_t)-1 - b->len) {
        b->oom = 1;
        return BB_ENOMEM;
    }
    size_t need = b->len + more + 1;
    if (need <= b->cap)
        return BB_OK;
    size_t cap = b->cap ? b->cap : FIRST_CAP;
    while (cap < need)
        cap = cap > (size_t)-1 / 2 ? need : cap * 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = 1;
        return BB_ENOMEM;
    }
    b->p = p;
    b->cap = cap;
    return BB_OK;
}

void bb_buf_add(struct bb_buf *b, const void *data, size_t n)
{
    if (bb_buf_grow(b, n) != BB_OK)
        return;
    if (n)
        memcpy(b->p + b->len, data, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void bb_buf_puts(struct bb_buf *b, const char *s)
{
    bb_buf_add(b, s, strlen(s));
}

void bb_buf_printf(struct bb_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = 1; /* a format that cannot be written: the text is lost */
        return;
    }
    if (bb_buf_grow(b, (size_t)n) != BB_OK)
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

int bb_buf_read(struct bb_buf *b, FILE *f)
{
    enum { CHUNK = 4096 };
    for (;;) {
        if (bb_buf_grow(b, CHUNK) != BB_OK)
            return BB_ENOMEM;
        size_t got = fread(b->p + b->len, 1, b->cap - b->len - 1, f);
        b->len += got;
        b->p[b->len] = '\0';
        if (got == 0)
            break;
    }
    return ferror(f) ? BB_EIO : BB_OK;
}

char *bb_buf_detach(struct bb_buf *b, size_t *len)
{
    char *p = b->oom ? NULL : b->p;
    if (len)
        *len = p ? b->len : 0;
    if (b->oom)
        free(b->p);
    bb_buf_init(b);
    return p;
}
