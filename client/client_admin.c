/*
 * client_admin.c — the administrator's calls: enrol, list and revoke
 * clinics (/v1/clinics, admin token).
 */
#include "client_impl.h"

#include <sodium.h>
#include <stdio.h>
#include <string.h>

int bb_client_clinic_add(struct bb_client *c, const char *name, json_t **out)
{
    struct transport_resp r = {0};
    json_t *req = json_pack("{s:s}", "name", name);
    char *body = NULL;
    int rc = BB_ENOMEM;
    *out = NULL;
    if (!req || !(body = json_dumps(req, JSON_COMPACT)))
        goto out;
    rc = client_request(c, "POST", "/v1/clinics", AUTH_ADMIN, NULL, body, strlen(body), 0, &r);
    if (rc == BB_OK)
        rc = client_body_json(c, &r, out);
out:
    json_decref(req);
    free(body);
    if (r.body)
        sodium_memzero(r.body, r.len); /* it held the new clinic's token */
    transport_resp_release(&r);
    return rc;
}

int bb_client_clinic_list(struct bb_client *c, json_t **out)
{
    return client_get_json(c, "/v1/clinics", AUTH_ADMIN, out);
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
