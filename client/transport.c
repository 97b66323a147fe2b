/*
 * transport.c — one HTTP exchange over a reusable libcurl easy handle.
 */
#include "transport.h"

#include <ctype.h>
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"

struct transport {
    CURL *curl;
    char *cacert; /* owned; NULL: the system's CA store */
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc = CURLE_FAILED_INIT;

static void curl_init(void)
{
    curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

struct transport *transport_new(void)
{
    pthread_once(&curl_once, curl_init);
    if (curl_init_rc != CURLE_OK)
        return NULL;
    struct transport *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->curl = curl_easy_init();
    if (!t->curl) {
        free(t);
        return NULL;
    }
    return t;
}

void transport_free(struct transport *t)
{
    if (!t)
        return;
    curl_easy_cleanup(t->curl);
    free(t->cacert);
    free(t);
}

int transport_set_cacert(struct transport *t, const char *path)
{
    char *p = NULL;
    if (path) {
        size_t n = strlen(path) + 1;
        if (!(p = malloc(n)))
            return BB_ENOMEM;
        memcpy(p, path, n);
    }
    free(t->cacert);
    t->cacert = p;
    return BB_OK;
}

/* Failures of TLS itself: the certificate chain, the host name, the CA
 * file. A handshake cut short (CURLE_SSL_CONNECT_ERROR) may be the network
 * and stays a network error. */
static int tls_refused(CURLcode cc)
{
    switch (cc) {
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
        return 1;
    default:
        return 0;
    }
}

void transport_resp_release(struct transport_resp *r)
{
    free(r->body);
    memset(r, 0, sizeof(*r));
}

/* Collects the body being received into a struct bb_buf. */
static size_t on_body(char *ptr, size_t size, size_t nmemb, void *user)
{
    struct bb_buf *b = user;
    size_t n = size * nmemb;
    bb_buf_add(b, ptr, n);
    return b->oom ? 0 : n; /* 0 makes curl fail with CURLE_WRITE_ERROR */
}

/* Copies the value of header line "Name: value\r\n" into out if it is name. */
static void header_value(const char *line, size_t n, const char *name, char *out, size_t outlen)
{
    size_t nl = strlen(name);
    if (n <= nl || strncasecmp(line, name, nl) != 0 || line[nl] != ':')
        return;
    const char *v = line + nl + 1, *end = line + n;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && isspace((unsigned char)end[-1]))
        end--;
    size_t vl = (size_t)(end - v);
    if (vl >= outlen)
        vl = 0; /* too long to be ours: treat as absent */
    memcpy(out, v, vl);
    out[vl] = '\0';
}

static size_t on_header(char *ptr, size_t size, size_t nmemb, void *user)
{
    struct transport_resp *r = user;
    size_t n = size * nmemb;
    /* A new status line (e.g. after "100 Continue") starts a new header set. */
    if (n >= 5 && strncmp(ptr, "HTTP/", 5) == 0) {
        r->etag[0] = '\0';
        r->ctype[0] = '\0';
        r->retry_after[0] = '\0';
    }
    header_value(ptr, n, "ETag", r->etag, sizeof(r->etag));
    header_value(ptr, n, "Content-Type", r->ctype, sizeof(r->ctype));
    header_value(ptr, n, "Retry-After", r->retry_after, sizeof(r->retry_after));
    return n;
}

int transport_do(struct transport *t, const char *method, const char *url,
                 const char *const *headers, const char *body, size_t len, long timeout_ms,
                 struct transport_resp *r, char *err, size_t errlen)
{
    int rc = BB_ENOMEM;
    struct curl_slist *hl = NULL;
    struct bb_buf s = BB_BUF_INIT;
    char cerr[CURL_ERROR_SIZE] = "";
    CURL *c = t->curl;

    memset(r, 0, sizeof(*r));
    if (err && errlen)
        err[0] = '\0';
    curl_easy_reset(c);
    for (const char *const *h = headers; h && *h; h++) {
        struct curl_slist *n = curl_slist_append(hl, *h);
        if (!n)
            goto out;
        hl = n;
    }
    /* Never let curl add "Expect: 100-continue": the daemon answers at once. */
    struct curl_slist *n = curl_slist_append(hl, "Expect:");
    if (!n)
        goto out;
    hl = n;

    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_USERAGENT, "libbillboard/1");
    /* libcurl's defaults, said out loud: there is no way to turn them off. */
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
    if (t->cacert) {
        curl_easy_setopt(c, CURLOPT_CAINFO, t->cacert);
        curl_easy_setopt(c, CURLOPT_CAPATH, NULL); /* that file's CAs only */
    }
    if (strcmp(method, "HEAD") == 0)
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    }

    CURLcode cc = curl_easy_perform(c);
    if (s.oom) {
        rc = BB_ENOMEM;
        goto out;
    }
    if (cc != CURLE_OK) {
        if (err && errlen)
            snprintf(err, errlen, "%s", cerr[0] ? cerr : curl_easy_strerror(cc));
        rc = tls_refused(cc) ? BB_ETLS : BB_ENET;
        goto out;
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    r->body = bb_buf_detach(&s, &r->len); /* NULL for an empty body */
    rc = BB_OK;
out:
    /* The handle keeps pointers to our locals: drop them before returning. */
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, NULL);
    curl_slist_free_all(hl);
    bb_buf_release(&s);
    if (rc != BB_OK) {
        free(r->body);
        r->body = NULL;
        r->len = 0;
        r->status = 0;
    }
    return rc;
}
