/*
 * client_recommend.c — the recommendation for one state: locally from the
 * cached billboard with the shared policy, or by the daemon (POST
 * /v1/recommend, thin-client mode, its request and answer in proto/codec.c).
 */
#include "client_impl.h"

#include <stdint.h>
#include <stdlib.h>

int bb_client_recommend_local(struct bb_client *c, int h, const double *features, double *q,
                              int *action)
{
    return bb_client_recommend_local_episode(c, NULL, h, features, q, action);
}

int bb_client_recommend_local_episode(struct bb_client *c, const char *episode_key, int h,
                                      const double *features, double *q, int *action)
{
    double *scratch = NULL;
    int rc = BB_EINVAL;
    client_forget_answer(c);
    if (!c->have_bb) {
        client_say(c, "no billboard", "fetch the billboard first");
        goto out;
    }
    rc = BB_ENOMEM;
    if (!q) {
        if (!(scratch = malloc(sizeof(double) * (size_t)c->bb.A)))
            goto out;
        q = scratch;
    }
    rc = bb_billboard_act_keyed(&c->bb, h, features, episode_key, q, action);
out:
    free(scratch);
    return rc;
}

int bb_client_recommend_remote(struct bb_client *c, int h, const double *features, int A, int d,
                               uint64_t version, double *q, int *action, uint64_t *used_version)
{
    return bb_client_recommend_remote_episode(c, NULL, h, features, A, d, version, q, action,
                                              used_version);
}

int bb_client_recommend_remote_episode(struct bb_client *c, const char *episode_key, int h,
                                       const double *features, int A, int d, uint64_t version,
                                       double *q, int *action, uint64_t *used_version)
{
    struct transport_resp r = {0};
    double *scratch = NULL;
    char *body = NULL, why[256] = "";
    size_t len = 0;
    int act, rc = BB_ENOMEM;

    body = bb_recommend_req_to_json_episode(
        h, features, A, d, version == UINT64_MAX ? -1 : (int64_t)version, episode_key, &len);
    if (!body)
        goto out;
    if (!q) {
        scratch = malloc(sizeof(double) * (size_t)A);
        if (!scratch)
            goto out;
        q = scratch;
    }
    rc = client_request(c, "POST", "/v1/recommend", AUTH_CLINIC, NULL, body, len, 1, &r);
    if (rc != BB_OK)
        goto out;
    rc = bb_recommend_resp_from_json(r.body, r.len, A, &act, q, used_version, why, sizeof(why));
    if (rc != BB_OK) {
        client_say(c, "malformed answer", why);
        goto out;
    }
    if (action)
        *action = act;
out:
    free(scratch);
    free(body);
    transport_resp_release(&r);
    return rc;
}
