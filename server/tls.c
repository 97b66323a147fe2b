/*
 * tls.c — the certificate and key served over HTTPS, loaded with GnuTLS and
 * handed to libmicrohttpd per handshake (tls.h).
 */
#include "tls.h"

#include <errno.h>
#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metrics.h"

#define PEM_MAX (1 << 20) /* no certificate chain or key file is bigger */

/* One certificate chain with its private key, immutable once loaded. */
struct pair {
    gnutls_pcert_st *chain; /* leaf first */
    unsigned nchain;
    gnutls_privkey_t key;
    char about[512];    /* bb_tls_describe's text */
    time_t until;       /* the leaf's notAfter, or -1 */
    struct pair *older; /* pairs served before this one */
};

struct bb_tls {
    char *cert_path, *key_path, *priorities;
    _Atomic(struct pair *) current;
};

/* The bb_tls the callback serves: GnuTLS's retrieve function has no
 * closure, and libmicrohttpd's session pointer is the connection. */
static _Atomic(struct bb_tls *) served;

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

/* Reads a whole file into d (caller wipes and frees: wipe_datum). */
static int slurp(const char *path, const char *flag, gnutls_datum_t *d, char *why, size_t whylen)
{
    int rc = BB_EIO;
    FILE *f = fopen(path, "rb");
    d->data = NULL;
    d->size = 0;
    if (!f) {
        snprintf(why, whylen, "cannot read %s %s: %s", flag, path, strerror(errno));
        return rc;
    }
    unsigned char *buf = malloc(PEM_MAX + 1);
    if (!buf) {
        rc = BB_ENOMEM;
        goto out;
    }
    size_t n = fread(buf, 1, PEM_MAX + 1, f);
    if (ferror(f)) {
        snprintf(why, whylen, "cannot read %s %s: %s", flag, path, strerror(errno));
        goto out;
    }
    if (n > PEM_MAX || n == 0) {
        snprintf(why, whylen, "%s %s: %s", flag, path,
                 n ? "over 1 MiB, not a PEM file" : "the file is empty");
        rc = BB_EINVAL;
        goto out;
    }
    buf[n] = '\0';
    d->data = buf;
    d->size = (unsigned)n;
    buf = NULL;
    rc = BB_OK;
out:
    if (buf) {
        sodium_memzero(buf, PEM_MAX + 1);
        free(buf);
    }
    fclose(f);
    return rc;
}

static void wipe_datum(gnutls_datum_t *d)
{
    if (d->data) {
        sodium_memzero(d->data, d->size);
        free(d->data);
    }
    d->data = NULL;
    d->size = 0;
}

static void pair_free(struct pair *p)
{
    while (p) {
        struct pair *older = p->older;
        for (unsigned i = 0; i < p->nchain; i++)
            gnutls_pcert_deinit(&p->chain[i]);
        free(p->chain);
        if (p->key)
            gnutls_privkey_deinit(p->key);
        free(p);
        p = older;
    }
}

/* The subject, SHA-256 fingerprint and expiry of crt into p->about. */
static void describe(gnutls_x509_crt_t crt, struct pair *p)
{
    gnutls_datum_t dn = {NULL, 0};
    unsigned char fp[32];
    size_t fplen = sizeof(fp);
    char hex[3 * sizeof(fp)] = "";
    if (gnutls_x509_crt_get_fingerprint(crt, GNUTLS_DIG_SHA256, fp, &fplen) == 0)
        for (size_t i = 0; i < fplen; i++)
            snprintf(hex + 3 * i, sizeof(hex) - 3 * i, "%02X%s", fp[i], i + 1 < fplen ? ":" : "");
    time_t until = gnutls_x509_crt_get_expiration_time(crt);
    p->until = until;
    struct tm tm;
    char when[32] = "?";
    if (until != (time_t)-1 && gmtime_r(&until, &tm))
        strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
    int have_dn = gnutls_x509_crt_get_dn3(crt, &dn, 0) == 0;
    snprintf(p->about, sizeof(p->about), "%s, SHA-256 %s, valid until %s%s",
             have_dn ? (const char *)dn.data : "(no subject)", hex, when,
             until != (time_t)-1 && until < time(NULL) ? " (EXPIRED)" : "");
    if (have_dn)
        gnutls_free(dn.data);
}

/* The certificate chain of the PEM in d into p. */
static int load_chain(struct bb_tls *t, const gnutls_datum_t *d, struct pair *p, char *why,
                      size_t whylen)
{
    gnutls_x509_crt_t *crts = NULL;
    unsigned n = 0;
    int rc = BB_EINVAL;
    int g = gnutls_x509_crt_list_import2(&crts, &n, d, GNUTLS_X509_FMT_PEM, 0);
    if (g < 0 || n == 0) {
        snprintf(why, whylen, "--tls-cert %s: no PEM certificate in it (GnuTLS: %s)", t->cert_path,
                 g < 0 ? gnutls_strerror(g) : "empty list");
        goto out;
    }
    describe(crts[0], p);
    rc = BB_ENOMEM;
    if (!(p->chain = calloc(n, sizeof(*p->chain))))
        goto out;
    unsigned imported = n;
    g = gnutls_pcert_import_x509_list(p->chain, crts, &imported, 0);
    if (g < 0) {
        snprintf(why, whylen, "--tls-cert %s: GnuTLS cannot use it: %s", t->cert_path,
                 gnutls_strerror(g));
        rc = BB_EINVAL;
        goto out;
    }
    p->nchain = imported;
    rc = BB_OK;
out:
    for (unsigned i = 0; i < n; i++)
        gnutls_x509_crt_deinit(crts[i]);
    gnutls_free(crts);
    return rc;
}

/* The SHA-256 key id of a public key; 0 on success. */
static int key_id(gnutls_pubkey_t k, unsigned char id[32])
{
    size_t n = 32;
    return gnutls_pubkey_get_key_id(k, GNUTLS_KEYID_USE_SHA256, id, &n) == 0 && n == 32 ? 0 : -1;
}

/* The private key of the PEM in d into p, checked against the leaf. */
static int load_key(struct bb_tls *t, const gnutls_datum_t *d, struct pair *p, char *why,
                    size_t whylen)
{
    gnutls_pubkey_t pub = NULL;
    unsigned char a[32], b[32];
    if (gnutls_privkey_init(&p->key) < 0)
        return BB_ENOMEM;
    int g = gnutls_privkey_import_x509_raw(p->key, d, GNUTLS_X509_FMT_PEM, NULL, 0);
    if (g < 0) {
        snprintf(why, whylen, "--tls-key %s: not an unencrypted PEM private key (GnuTLS: %s)",
                 t->key_path, gnutls_strerror(g));
        return BB_EINVAL;
    }
    if (gnutls_pubkey_init(&pub) < 0)
        return BB_ENOMEM;
    int same = gnutls_pubkey_import_privkey(pub, p->key, 0, 0) == 0 && key_id(pub, a) == 0 &&
               key_id(p->chain[0].pubkey, b) == 0 && sodium_memcmp(a, b, 32) == 0;
    gnutls_pubkey_deinit(pub);
    if (!same) {
        snprintf(why, whylen, "--tls-key %s is not the key of the certificate in --tls-cert %s",
                 t->key_path, t->cert_path);
        return BB_EINVAL;
    }
    return BB_OK;
}

/* A new pair from t's files into *out (caller owns). */
static int load_pair(struct bb_tls *t, struct pair **out, char *why, size_t whylen)
{
    gnutls_datum_t cert = {NULL, 0}, key = {NULL, 0};
    struct pair *p = calloc(1, sizeof(*p));
    int rc = BB_ENOMEM;
    *out = NULL;
    if (!p)
        goto out;
    if ((rc = slurp(t->cert_path, "--tls-cert", &cert, why, whylen)) != BB_OK)
        goto out;
    if ((rc = slurp(t->key_path, "--tls-key", &key, why, whylen)) != BB_OK)
        goto out;
    if ((rc = load_chain(t, &cert, p, why, whylen)) != BB_OK)
        goto out;
    if ((rc = load_key(t, &key, p, why, whylen)) != BB_OK)
        goto out;
    *out = p;
    p = NULL;
out:
    wipe_datum(&key);
    wipe_datum(&cert);
    pair_free(p);
    return rc;
}

/* GnuTLS asks, per handshake, which certificate to present (server side:
 * no requested CAs, no algorithm list). The pair stays allocated until
 * bb_tls_free, so the session may keep pointing at it. */
static int retrieve(gnutls_session_t session, const gnutls_datum_t *req_ca_dn, int nreqs,
                    const gnutls_pk_algorithm_t *pk_algos, int pk_algos_length,
                    gnutls_pcert_st **pcert, unsigned int *pcert_length, gnutls_privkey_t *key)
{
    (void)session;
    (void)req_ca_dn;
    (void)nreqs;
    (void)pk_algos;
    (void)pk_algos_length;
    struct bb_tls *t = atomic_load(&served);
    struct pair *p = t ? atomic_load(&t->current) : NULL;
    if (!p)
        return -1;
    *pcert = p->chain;
    *pcert_length = p->nchain;
    *key = p->key;
    return 0;
}

int bb_tls_open(const char *cert_path, const char *key_path, const char *priorities,
                struct bb_tls **out, char *why, size_t whylen)
{
    struct bb_tls *t = NULL;
    struct pair *p = NULL;
    int rc = BB_EINVAL;
    *out = NULL;
    if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES ||
        MHD_is_feature_supported(MHD_FEATURE_HTTPS_CERT_CALLBACK) != MHD_YES) {
        snprintf(why, whylen,
                 "this libmicrohttpd was built without TLS (GnuTLS) support or without "
                 "its certificate callback: --tls-cert cannot be served");
        goto out;
    }
    if (!priorities)
        priorities = BB_TLS_PRIORITIES_DEFAULT;
    gnutls_priority_t prio;
    const char *at = NULL;
    int g = gnutls_priority_init(&prio, priorities, &at);
    if (g < 0) {
        snprintf(why, whylen, "--tls-priorities '%s': GnuTLS refuses it%s%.40s%s: %s", priorities,
                 at ? " at '" : "", at ? at : "", at ? "'" : "", gnutls_strerror(g));
        goto out;
    }
    gnutls_priority_deinit(prio);
    rc = BB_ENOMEM;
    if (!(t = calloc(1, sizeof(*t))) || !(t->cert_path = dup_str(cert_path)) ||
        !(t->key_path = dup_str(key_path)) || !(t->priorities = dup_str(priorities)))
        goto out;
    if ((rc = load_pair(t, &p, why, whylen)) != BB_OK)
        goto out;
    atomic_store(&t->current, p);
    bb_metrics_tls_expiry((double)p->until);
    *out = t;
    t = NULL;
out:
    bb_tls_free(t);
    return rc;
}

int bb_tls_reload(struct bb_tls *t, char *why, size_t whylen)
{
    struct pair *p;
    int rc = load_pair(t, &p, why, whylen);
    if (rc != BB_OK)
        return rc;
    p->older = atomic_load(&t->current);
    atomic_store(&t->current, p);
    bb_metrics_tls_expiry((double)p->until);
    return BB_OK;
}

void bb_tls_describe(const struct bb_tls *t, char *buf, size_t len)
{
    struct pair *p = atomic_load(&((struct bb_tls *)t)->current);
    snprintf(buf, len, "%s", p ? p->about : "(none)");
}

void bb_tls_mhd_options(struct bb_tls *t, struct MHD_OptionItem items[3])
{
    gnutls_certificate_retrieve_function2 *fn = retrieve; /* the type libmicrohttpd expects */
    atomic_store(&served, t);
    /* libmicrohttpd takes the callback through the item's pointer field. */
    items[0] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_CERT_CALLBACK, 0, (void *)(uintptr_t)fn};
    items[1] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_PRIORITIES, 0, t->priorities};
    items[2] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
}

void bb_tls_free(struct bb_tls *t)
{
    if (!t)
        return;
    struct bb_tls *self = t;
    atomic_compare_exchange_strong(&served, &self, NULL);
    pair_free(atomic_load(&t->current));
    free(t->cert_path);
    free(t->key_path);
    free(t->priorities);
    free(t);
}
