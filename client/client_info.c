/*
 * client_info.c — the deployment's public information: GET /v1/privacy and
 * GET /v1/config, and the sizes H, A, d read from the latter. The privacy
 * budget is decoded by proto/codec.c; bb_client_privacy hands the object
 * itself to callers that only show it.
 */
#include "client_impl.h"

int bb_client_privacy(struct bb_client *c, json_t **out)
{
    return client_get_json(c, "/v1/privacy", AUTH_NONE, out);
}

int bb_client_privacy_budget(struct bb_client *c, struct bb_privacy_budget *out)
{
    struct transport_resp r;
    char why[256] = "";
    int rc = client_request(c, "GET", "/v1/privacy", AUTH_NONE, NULL, NULL, 0, 1, &r);
    if (rc != BB_OK)
        goto out;
    rc = bb_privacy_budget_from_json(r.body, r.len, out, why, sizeof(why));
    if (rc != BB_OK)
        client_say(c, "malformed answer", why);
out:
    transport_resp_release(&r);
    return rc;
}

int bb_client_config(struct bb_client *c, json_t **out)
{
    return client_get_json(c, "/v1/config", AUTH_NONE, out);
}

int bb_client_sizes(struct bb_client *c, int *H, int *A, int *d)
{
    json_t *cfg = NULL;
    int rc = bb_client_config(c, &cfg);
    if (rc != BB_OK)
        goto out;
    json_t *jh = json_object_get(cfg, "H"), *ja = json_object_get(cfg, "A"),
           *jd = json_object_get(cfg, "d");
    if (!json_is_integer(jh) || !json_is_integer(ja) || !json_is_integer(jd)) {
        client_say(c, "malformed answer", "config lacks H, A or d");
        rc = BB_EPROTO;
        goto out;
    }
    *H = (int)json_integer_value(jh);
    *A = (int)json_integer_value(ja);
    *d = (int)json_integer_value(jd);
out:
    json_decref(cfg);
    return rc;
}
