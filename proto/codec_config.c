/*
 * codec_config.c — GET /v1/config (billboard/config_info.h): one field
 * table, in wire order.
 */
#include "billboard/config_info.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "codec_table.h"

#define F(key, kind, member, flags)                                                                \
    {                                                                                              \
        key, kind, offsetof(struct bb_config_info, member), 0, flags, NULL, NULL                   \
    }
#define T(key, member)                                                                             \
    {                                                                                              \
        key, CODEC_TEXT, offsetof(struct bb_config_info, member),                                  \
            sizeof(((struct bb_config_info *)0)->member), CODEC_OPTIONAL, NULL, NULL               \
    }
#define STEPS(key, member)                                                                         \
    {                                                                                              \
        key, CODEC_REALS, offsetof(struct bb_config_info, member),                                 \
            offsetof(struct bb_config_info, H), CODEC_OPTIONAL, NULL, NULL                         \
    }
#define O CODEC_OPTIONAL

/* Older daemons send no stream sds: then none is written back. */
static int has_reward_steps(const void *s)
{
    return ((const struct bb_config_info *)s)->sigma_reward_drawn_step != NULL;
}

static const struct codec_field fields[] = {
    F("H", CODEC_INT, H, 0),
    F("d", CODEC_INT, d, 0),
    F("A", CODEC_INT, A, 0),
    F("K_max", CODEC_LONG, K_max, O),
    F("private", CODEC_BOOL, is_private, O),
    T("calibration", calibration),
    T("mechanism", mechanism),
    F("release_base", CODEC_REAL, release_base, O),
    F("release_start", CODEC_REAL, release_start, O),
    F("releases", CODEC_LONG, releases, O),
    T("shift_bound", shift_bound),
    F("shift_scale", CODEC_REAL, shift_scale, O),
    T("indefinite", indefinite),
    T("value_clip", value_clip),
    T("prior_policy", prior_policy),
    F("sens_factor", CODEC_REAL, sens_factor, O),
    F("prefix_sd", CODEC_REAL, prefix_sd, O),
    T("update_rule", update_rule),
    F("rho", CODEC_REAL_INF, rho, O),
    F("epsilon", CODEC_REAL_INF, epsilon, O),
    T("conversion", conversion),
    F("epsilon_cks", CODEC_REAL_INF, epsilon_cks, O),
    F("epsilon_bun_steinke", CODEC_REAL_INF, epsilon_bun_steinke, O),
    F("delta", CODEC_REAL, delta, O),
    F("gram_share", CODEC_REAL, gram_share, O),
    F("rho_gram", CODEC_REAL_INF, rho_gram, O),
    F("rho_y", CODEC_REAL_INF, rho_y, O),
    F("failure_prob", CODEC_REAL, failure_prob, O),
    F("update_ratio", CODEC_REAL, update_ratio, O),
    F("beta", CODEC_REAL, beta, O),
    F("L", CODEC_LONG, L, O),
    F("sigma_gram", CODEC_REAL, sigma_gram, O),
    F("shift", CODEC_REAL, shift, O),
    F("ridge", CODEC_REAL, ridge, O),
    F("max_updates", CODEC_LONG, max_updates, O),
    F("sigma_y", CODEC_REAL, sigma_y, O),
    F("grid_gram", CODEC_REAL, grid_gram, O),
    F("grid_y", CODEC_REAL, grid_y, O),
    F("sigma_gram_drawn", CODEC_REAL, sigma_gram_drawn, O),
    F("sigma_y_drawn", CODEC_REAL, sigma_y_drawn, O),
    F("y_exponent", CODEC_REAL, y_exponent, O),
    STEPS("sigma_y_drawn_step", sigma_y_drawn_step),
    F("prior_value", CODEC_REAL, prior_value, O),
    STEPS("prior_target_step", prior_target_step),
    T("final_prior", final_prior),
    T("features", features),
    T("row_weight", row_weight),
    F("next_value_bound", CODEC_BOOL, next_value_bound, O),
    T("y_sensitivity", y_sensitivity),
    F("y_centre", CODEC_REAL, y_centre, O),
    T("arithmetic", arithmetic),
    T("explore", explore),
    F("plausible", CODEC_REAL, plausible, O),
    F("plausible_floor", CODEC_REAL, plausible_floor, O),
    F("next_discount", CODEC_REAL, next_discount, O),
    F("first_share", CODEC_REAL, first_share, O),
    T("rewards", rewards),
    F("rho_rewards", CODEC_REAL, rho_rewards, O),
    {"sigma_reward_drawn_step", CODEC_REALS, offsetof(struct bb_config_info, sigma_reward_drawn_step),
     offsetof(struct bb_config_info, H), CODEC_OPTIONAL, NULL, has_reward_steps},
    F("warm_up", CODEC_REAL, warm_up, O),
    F("rho_warm_up", CODEC_REAL, rho_warm_up, O),
    F("warm_up_points", CODEC_LONG, warm_up_points, O),
    F("sigma_warm_up_gram_drawn", CODEC_REAL, sigma_warm_up_gram_drawn, O),
    F("sigma_warm_up_reward_drawn", CODEC_REAL, sigma_warm_up_reward_drawn, O),
    F("rho_counts", CODEC_REAL, rho_counts, O),
    F("sigma_counts_drawn", CODEC_REAL, sigma_counts_drawn, O),
    T("version", version),
    CODEC_END,
};

void bb_config_info_release(struct bb_config_info *c)
{
    if (!c)
        return;
    codec_table_release(fields, c);
    memset(c, 0, sizeof(*c));
}

char *bb_config_info_to_json(const struct bb_config_info *c, int pretty, size_t *len)
{
    return codec_table_dump(fields, c, pretty, len);
}

int bb_config_info_from_json(const char *buf, size_t len, struct bb_config_info *out, char *why,
                             size_t whylen)
{
    for (const struct codec_field *f = fields; f->key; f++)
        if (f->kind == CODEC_REAL_INF) /* absent: as a non-private daemon sends it */
            *(double *)(void *)((char *)out + f->off) = INFINITY;
    int rc = codec_table_parse(buf, len, fields, out, "the configuration", why, whylen);
    if (rc == BB_OK && (out->H < 1 || out->d < 1 || out->A < 1)) {
        codec_say(why, whylen, "the configuration's H, d and A must be positive");
        rc = BB_EPROTO;
    }
    return rc;
}
