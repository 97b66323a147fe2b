/*
 * client_info.c — the deployment's public information: GET /v1/privacy and
 * GET /v1/config, decoded by proto/ (codec_privacy.c, codec_config.c), and
 * the sizes H, A, d read from the latter.
 */
#include "client_impl.h"

#include <stdio.h>

static int privacy_decoder(const char *buf, size_t len, void *out, char *why, size_t whylen)
{
    return bb_privacy_budget_from_json(buf, len, out, why, whylen);
}

static int config_decoder(const char *buf, size_t len, void *out, char *why, size_t whylen)
{
    return bb_config_info_from_json(buf, len, out, why, whylen);
}

int bb_client_privacy(struct bb_client *c, struct bb_privacy_budget *out)
{
    return client_get_decoded(c, "/v1/privacy", AUTH_NONE, privacy_decoder, out);
}

int bb_client_config(struct bb_client *c, struct bb_config_info *out)
{
    int rc = client_get_decoded(c, "/v1/config", AUTH_NONE, config_decoder, out);
    /* Keep the declared feature set: steps are checked against it offline. */
    enum bb_feature_set parsed;
    if (rc == BB_OK && out->features[0] && c->st &&
        bb_feature_set_parse(out->features, &parsed) == 0 &&
        statestore_features_put(c->st, c->base, out->features) != BB_OK) {
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
    struct bb_config_info cfg = {0};
    int rc = bb_client_config(c, &cfg);
    rc = rc == BB_OK && bb_feature_set_parse(cfg.features, out) == 0 ? BB_OK : BB_ENOTFOUND;
    bb_config_info_release(&cfg);
    client_forget_answer(c); /* not knowing the set is no failure of the caller's */
    return rc;
}

int client_rows_in_set(struct bb_client *c, enum bb_feature_set set, const double *features,
                       int A, int d, const char *prefix)
{
    char why[256], detail[512];
    int bad = 0;
    if (bb_feature_state_in_set(set, features, A, d, NULL, &bad, why, sizeof(why)))
        return BB_OK;
    snprintf(detail, sizeof(detail), "%s/features/%d: %s", prefix, bad, why);
    client_say(c, "invalid features", detail);
    return BB_EINVAL;
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
    struct bb_config_info cfg = {0};
    int rc = bb_client_config(c, &cfg);
    if (rc == BB_OK) {
        *H = cfg.H;
        *A = cfg.A;
        *d = cfg.d;
    }
    bb_config_info_release(&cfg);
    return rc;
}
