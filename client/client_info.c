/*
 * client_info.c — the deployment's public information: GET /v1/privacy and
 * GET /v1/config, and the sizes H, A, d read from the latter. The privacy
 * budget is decoded by proto/codec.c; bb_client_privacy hands the object
 * itself to callers that only show it.
 */
#include "client_impl.h"

#include <stdio.h>

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
    int rc = client_get_json(c, "/v1/config", AUTH_NONE, out);
    /* Keep the declared feature set: steps are checked against it offline. */
    const char *set = rc == BB_OK ? json_string_value(json_object_get(*out, "features")) : NULL;
    enum bb_feature_set parsed;
    if (set && c->st && bb_feature_set_parse(set, &parsed) == 0 &&
        statestore_features_put(c->st, c->base, set) != BB_OK) {
        /* Not kept: steps are then checked at submit, by the daemon. */
    }
    return rc;
}

int client_feature_set(struct bb_client *c, int may_fetch, enum bb_feature_set *out)
{
    char name[32] = "";
    *out = BB_FEATURE_SET_BALL;
    if (c->st && statestore_features_get(c->st, c->base, name, sizeof(name)) == BB_OK)
        return bb_feature_set_parse(name, out) == 0 ? BB_OK : BB_ENOTFOUND;
    if (!may_fetch)
        return BB_ENOTFOUND;
    json_t *cfg = NULL;
    int rc = bb_client_config(c, &cfg);
    const char *set = rc == BB_OK ? json_string_value(json_object_get(cfg, "features")) : NULL;
    rc = set && bb_feature_set_parse(set, out) == 0 ? BB_OK : BB_ENOTFOUND;
    json_decref(cfg);
    client_forget_answer(c); /* not knowing the set is no failure of the caller's */
    return rc;
}

int client_rows_in_set(struct bb_client *c, enum bb_feature_set set, const double *features,
                       int A, int d, const char *prefix)
{
    for (int a = 0; a < A; a++) {
        char why[256], detail[512];
        if (bb_feature_row_in_set(set, features + (size_t)a * d, d, BB_FEATURE_SET_SLACK, why,
                                  sizeof(why)))
            continue;
        snprintf(detail, sizeof(detail), "%s/features/%d: %s", prefix, a, why);
        client_say(c, "invalid features", detail);
        return BB_EINVAL;
    }
    return BB_OK;
}

int bb_client_check_features(struct bb_client *c, const double *features, int A, int d)
{
    enum bb_feature_set set;
    client_forget_answer(c);
    if (client_feature_set(c, 1, &set) != BB_OK)
        return BB_OK; /* not known here: the daemon checks at submit */
    return client_rows_in_set(c, set, features, A, d, "");
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
