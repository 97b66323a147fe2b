/*
 * client_recommend.c — the recommendation for one state: locally from the
 * cached billboard with the shared policy, or by the daemon (POST
 * /v1/recommend, thin-client mode).
 */
#include "client_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int bb_client_recommend_local(struct bb_client *c, int h, const double *features, double *q,
                              int *action)
{
    double *scratch = NULL;
    int rc = BB_EINVAL;
    client_forget_answer(c);
    if (!c->have_bb) {
        client_say(c, "no billboard", "fetch the billboard first");
        goto out;
    }
    if (!q) {
        scratch = malloc(sizeof(double) * (size_t)c->bb.A);
        rc = BB_ENOMEM;
        if (!scratch)
            goto out;
        q = scratch;
    }
    rc = bb_billboard_act(&c->bb, h, features, q, action);
out:
    free(scratch);
    return rc;
}

/* JSON array [[d numbers] x A] of features; new reference or NULL. */
static json_t *features_json(const double *f, int A, int d)
{
    json_t *rows = json_array();
    for (int a = 0; rows && a < A; a++) {
        json_t *row = json_array();
        for (int j = 0; row && j < d; j++)
            if (json_array_append_new(row, json_real(f[(size_t)a * d + j])) != 0) {
                json_decref(row);
                row = NULL;
            }
        if (!row || json_array_append_new(rows, row) != 0) {
            json_decref(rows);
            return NULL;
        }
    }
    return rows;
}

int bb_client_recommend_remote(struct bb_client *c, int h, const double *features, int A, int d,
                               uint64_t version, double *q, int *action, uint64_t *used_version)
{
    struct transport_resp r = {0};
    json_t *req = NULL, *ans = NULL;
    char *body = NULL;
    int rc = BB_ENOMEM;

    req = json_object();
    json_t *f = features_json(features, A, d);
    if (!req || !f || json_object_set_new(req, "h", json_integer(h)) != 0 ||
        json_object_set_new(req, "features", f) != 0) {
        if (!req)
            json_decref(f);
        goto out;
    }
    if (version != UINT64_MAX &&
        json_object_set_new(req, "billboard_version", json_integer((json_int_t)version)) != 0)
        goto out;
    body = json_dumps(req, JSON_COMPACT | JSON_REAL_PRECISION(17));
    if (!body)
        goto out;
    rc = client_request(c, "POST", "/v1/recommend", AUTH_CLINIC, NULL, body, strlen(body), 1, &r);
    if (rc != BB_OK)
        goto out;
    rc = client_body_json(c, &r, &ans);
    if (rc != BB_OK)
        goto out;
    json_t *ja = json_object_get(ans, "action"), *jq = json_object_get(ans, "q"),
           *jv = json_object_get(ans, "billboard_version");
    rc = BB_EPROTO;
    if (!json_is_integer(ja) || !json_is_array(jq) || json_array_size(jq) != (size_t)A) {
        client_say(c, "malformed answer", "recommend answer lacks action or q[A]");
        goto out;
    }
    if (action)
        *action = (int)json_integer_value(ja);
    for (int a = 0; q && a < A; a++)
        q[a] = json_number_value(json_array_get(jq, (size_t)a));
    if (used_version)
        *used_version = json_is_integer(jv) ? (uint64_t)json_integer_value(jv) : UINT64_MAX;
    rc = BB_OK;
out:
    json_decref(req);
    json_decref(ans);
    free(body);
    transport_resp_release(&r);
    return rc;
}
