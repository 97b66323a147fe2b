/*
 * conffile.c — the configuration file's syntax (conffile.h).
 */
#include "conffile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_BYTES (1 << 20)

static int blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* s[0..*n) without blanks at either end: the new start, *n updated. */
static char *trim(char *s, size_t *n)
{
    while (*n && blank(*s)) {
        s++;
        (*n)--;
    }
    while (*n && blank(s[*n - 1]))
        (*n)--;
    s[*n] = '\0';
    return s;
}

static int key_ok(const char *k)
{
    if (!*k || *k == '-')
        return 0;
    for (; *k; k++)
        if (!((*k >= 'a' && *k <= 'z') || (*k >= '0' && *k <= '9') || *k == '-'))
            return 0;
    return 1;
}

/* why = "PATH:LINE: " and the rest; BB_EINVAL. */
__attribute__((format(printf, 5, 6))) static int bad(char *why, size_t whylen, const char *path,
                                                     int line, const char *fmt, ...)
{
    va_list ap;
    if (!why || !whylen)
        return BB_EINVAL;
    int n = snprintf(why, whylen, "%s:%d: ", path, line);
    if (n >= 0 && (size_t)n < whylen) {
        va_start(ap, fmt);
        vsnprintf(why + n, whylen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return BB_EINVAL;
}

int bb_conffile_parse(struct bb_conffile *cf, const char *path, const char *text, size_t len,
                      char *why, size_t whylen)
{
    int rc = BB_ENOMEM, line = 0;
    size_t cap = 0, used = 0;
    memset(cf, 0, sizeof(*cf));
    if (!(cf->path = strdup(path)) || !(cf->text = malloc(len + 1)) ||
        !(cf->flags = malloc(2 * len + 3)))
        goto out;
    memcpy(cf->text, text, len);
    cf->text[len] = '\0';
    rc = BB_EINVAL;
    if (memchr(text, '\0', len)) {
        if (why && whylen)
            snprintf(why, whylen, "%s: not a text file (NUL byte)", path);
        goto out;
    }
    for (char *s = cf->text; s < cf->text + len;) {
        char *nl = memchr(s, '\n', (size_t)(cf->text + len - s));
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        char *next = s + n + (nl ? 1 : 0);
        line++;
        s = trim(s, &n);
        if (n == 0 || *s == '#') {
            s = next;
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq) {
            rc = key_ok(s)
                     ? bad(why, whylen, path, line, "%s has no value: write '%s = VALUE'", s, s)
                     : bad(why, whylen, path, line, "expected 'key = value'");
            goto out;
        }
        size_t kn = (size_t)(eq - s), vn = n - kn - 1;
        char *key = trim(s, &kn), *value = trim(eq + 1, &vn);
        if (!key_ok(key)) {
            rc = bad(why, whylen, path, line, "bad key '%s': a key is a flag's name%s", key,
                     strncmp(key, "--", 2) == 0 ? " without its dashes" : ", like 'port'");
            goto out;
        }
        if (vn == 0) {
            rc = bad(why, whylen, path, line, "%s has no value", key);
            goto out;
        }
        for (size_t i = 0; i < cf->n; i++)
            if (strcmp(cf->e[i].key, key) == 0) {
                rc = bad(why, whylen, path, line, "duplicate key '%s' (first at line %d)", key,
                         cf->e[i].line);
                goto out;
            }
        if (cf->n == cap) {
            size_t ncap = cap ? 2 * cap : 16;
            struct bb_conffile_entry *ne = realloc(cf->e, ncap * sizeof(*ne));
            if (!ne) {
                rc = BB_ENOMEM;
                goto out;
            }
            cf->e = ne;
            cap = ncap;
        }
        /* "--key\0" is 3 bytes longer than its key, which comes from a line
         * of at least 3 bytes ("k=v"): 2 * len + 3 bytes hold them all. */
        char *flag = cf->flags + used;
        used += (size_t)snprintf(flag, kn + 3, "--%s", key) + 1;
        cf->e[cf->n++] = (struct bb_conffile_entry){key, flag, value, line};
        s = next;
    }
    return BB_OK;
out:
    if (rc == BB_ENOMEM && why && whylen)
        snprintf(why, whylen, "%s: out of memory", path);
    bb_conffile_release(cf);
    return rc;
}

int bb_conffile_read(struct bb_conffile *cf, const char *path, char *why, size_t whylen)
{
    memset(cf, 0, sizeof(*cf));
    FILE *f = fopen(path, "r");
    char *buf = NULL;
    size_t n = 0;
    int rc = BB_EIO;
    if (!f) {
        if (why && whylen)
            snprintf(why, whylen, "%s: %s", path, strerror(errno));
        return BB_EIO;
    }
    if (!(buf = malloc(MAX_BYTES + 1))) {
        rc = BB_ENOMEM;
        if (why && whylen)
            snprintf(why, whylen, "%s: out of memory", path);
        goto out;
    }
    n = fread(buf, 1, MAX_BYTES + 1, f);
    if (ferror(f)) {
        if (why && whylen)
            snprintf(why, whylen, "%s: %s", path, strerror(errno));
        goto out;
    }
    if (n > MAX_BYTES) {
        if (why && whylen)
            snprintf(why, whylen, "%s: larger than %d bytes", path, MAX_BYTES);
        goto out;
    }
    rc = bb_conffile_parse(cf, path, buf, n, why, whylen);
out:
    free(buf);
    fclose(f);
    return rc;
}

void bb_conffile_release(struct bb_conffile *cf)
{
    free(cf->path);
    free(cf->e);
    free(cf->text);
    free(cf->flags);
    memset(cf, 0, sizeof(*cf));
}
