/*
 * client_admin.c — the administrator's calls: enrol, list and revoke
 * clinics (/v1/clinics, admin token).
 */
#include "client_impl.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bb_client_clinic_add(struct bb_client *c, const char *name, struct bb_clinic *out)
{
    struct transport_resp r = {0};
    char why[256] = "";
    size_t len = 0;
    char *body = bb_clinic_req_to_json(name, &len);
    int rc = BB_ENOMEM;
    memset(out, 0, sizeof(*out));
    if (!body)
        goto out;
    rc = client_request(c, "POST", "/v1/clinics", AUTH_ADMIN, NULL, body, len, 0, &r);
    if (rc == BB_OK)
        rc = client_decoded(c, bb_clinic_enrolled_from_json(r.body, r.len, out, why, sizeof(why)),
                            why);
out:
    free(body);
    if (rc != BB_OK)
        sodium_memzero(out, sizeof(*out));
    if (r.body)
        sodium_memzero(r.body, r.len); /* it held the new clinic's token */
    transport_resp_release(&r);
    return rc;
}

static int list_decoder(const char *buf, size_t len, void *out, char *why, size_t whylen)
{
    return bb_clinic_list_from_json(buf, len, out, why, whylen);
}

int bb_client_clinic_list(struct bb_client *c, struct bb_clinic_list *out)
{
    return client_get_decoded(c, "/v1/clinics", AUTH_ADMIN, list_decoder, out);
}

int bb_client_clinic_revoke(struct bb_client *c, const char *id)
{
    struct transport_resp r;
    char path[160];
    int rc = BB_EINVAL;
    client_forget_answer(c);
    for (const char *p = id; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              *p == '-' || *p == '_'))
            goto out;
    if (!*id || strlen(id) > 100)
        goto out;
    snprintf(path, sizeof(path), "/v1/clinics/%s", id);
    /* DELETE is idempotent: safe to retry. */
    rc = client_request(c, "DELETE", path, AUTH_ADMIN, NULL, NULL, 0, 1, &r);
    transport_resp_release(&r);
out:
    if (rc == BB_EINVAL && c->status == 0)
        client_say(c, "bad clinic id", "letters, digits, '-' and '_' only");
    return rc;
}
