/*
 * client_info.c — the deployment's public information: GET /v1/privacy and
 * GET /v1/config, decoded by proto/ (codec_privacy.c, codec_config.c), and
 * the sizes H, A, d read from the latter.
 */
#include "client_impl.h"

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
    return client_get_decoded(c, "/v1/config", AUTH_NONE, config_decoder, out);
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
