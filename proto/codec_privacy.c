/*
 * codec_privacy.c — GET /v1/privacy (billboard/privacy.h): the budget and
 * its shares as field tables, in wire order.
 */
#include "billboard/privacy.h"

#include <string.h>

#include "codec_table.h"

static int described(const void *s)
{
    return ((const struct bb_privacy_share *)s)->mechanism[0] != '\0';
}

#define S(key, kind, member, size, flags, present)                                                 \
    {                                                                                              \
        key, kind, offsetof(struct bb_privacy_share, member), size, flags, NULL, present           \
    }

static const struct codec_field share[] = {
    S("rho", CODEC_REAL_INF, rho, 0, 0, NULL),
    S("spent", CODEC_REAL_INF, spent, 0, 0, NULL),
    S("remaining", CODEC_REAL_INF, remaining, 0, 0, NULL),
    S("mechanism", CODEC_TEXT, mechanism, sizeof(((struct bb_privacy_share *)0)->mechanism),
      CODEC_OPTIONAL, described),
    S("sigma", CODEC_REAL, sigma, 0, CODEC_OPTIONAL, described),
    S("releases", CODEC_LONG, releases, 0, CODEC_OPTIONAL, described),
    S("parameters", CODEC_TEXT, detail, sizeof(((struct bb_privacy_share *)0)->detail),
      CODEC_OPTIONAL, described),
    CODEC_END,
};

static int restored(const void *s)
{
    return ((const struct bb_privacy_budget *)s)->restores.count > 0;
}

static int warm_restored(const void *s)
{
    return ((const struct bb_privacy_restores *)s)->rho_warm > 0;
}

static int warm_up(const void *s)
{
    return ((const struct bb_privacy_budget *)s)->warm_up.rho > 0;
}

static const struct codec_field restores[] = {
    {"count", CODEC_LONG, offsetof(struct bb_privacy_restores, count), 0, 0, NULL, NULL},
    {"rho_gram", CODEC_REAL_INF, offsetof(struct bb_privacy_restores, rho_gram), 0, 0, NULL, NULL},
    {"rho_y", CODEC_REAL_INF, offsetof(struct bb_privacy_restores, rho_y), 0, 0, NULL, NULL},
    {"rho_warm_up", CODEC_REAL, offsetof(struct bb_privacy_restores, rho_warm), 0, CODEC_OPTIONAL,
     NULL, warm_restored},
    CODEC_END,
};

#define B(key, kind, member)                                                                       \
    {                                                                                              \
        key, kind, offsetof(struct bb_privacy_budget, member), 0, 0, NULL, NULL                    \
    }

static const struct codec_field budget[] = {
    B("private", CODEC_BOOL, is_private),
    B("rho", CODEC_REAL_INF, rho),
    B("epsilon", CODEC_REAL_INF, epsilon),
    B("delta", CODEC_REAL, delta),
    B("rho_spent", CODEC_REAL_INF, rho_spent),
    B("rho_remaining", CODEC_REAL_INF, rho_remaining),
    {"gram", CODEC_OBJECT, offsetof(struct bb_privacy_budget, gram), 0, 0, share, NULL},
    {"y", CODEC_OBJECT, offsetof(struct bb_privacy_budget, y), 0, 0, share, NULL},
    {"warm_up", CODEC_OBJECT, offsetof(struct bb_privacy_budget, warm_up), 0, CODEC_OPTIONAL, share,
     warm_up},
    B("updates", CODEC_LONG, updates),
    B("max_updates", CODEC_LONG, max_updates),
    B("episodes", CODEC_LONG, episodes),
    B("max_episodes", CODEC_LONG, max_episodes),
    B("billboard_version", CODEC_LONG, billboard_version),
    {"restores", CODEC_OBJECT, offsetof(struct bb_privacy_budget, restores), 0, CODEC_OPTIONAL,
     restores, restored},
    CODEC_END,
};

char *bb_privacy_budget_to_json(const struct bb_privacy_budget *p, size_t *len)
{
    return codec_table_dump(budget, p, 0, len);
}

int bb_privacy_budget_from_json(const char *buf, size_t len, struct bb_privacy_budget *out,
                                char *why, size_t whylen)
{
    memset(out, 0, sizeof(*out));
    int rc = codec_table_parse(buf, len, budget, out, "the privacy budget", why, whylen);
    if (rc == BB_OK && (out->updates < 0 || out->max_updates < 0 || out->episodes < 0 ||
                        out->max_episodes < 0 || out->billboard_version < 0 ||
                        out->restores.count < 0)) {
        codec_say(why, whylen, "the privacy budget has a negative count");
        rc = BB_EPROTO;
    }
    return rc;
}
