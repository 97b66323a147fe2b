/*
 * billboard/privacy.h — GET /v1/privacy: the privacy budget, as one typed
 * struct and its codec.
 *
 *   {"private", "rho", "epsilon", "delta", "rho_spent", "rho_remaining",
 *    "gram": {"rho", "spent", "remaining"[, "mechanism", "sigma",
 *             "releases", "parameters"]},
 *    "y": {the same},
 *    ["warm_up": {the same},]
 *    "updates", "max_updates", "episodes", "max_episodes", "billboard_version"
 *    [, "restores": {"count", "rho_gram", "rho_y"[, "rho_warm_up"]}]}
 *
 * in this order, with infinite values (non-private runs) as null. A share
 * names its mechanism only when the daemon sets one (older daemons do not).
 * "warm_up" is there when a warm-up is in force (docs/PRIVACY.md §2.5),
 * "rho_warm_up" when a restore charged it.
 */
#ifndef BILLBOARD_PRIVACY_H
#define BILLBOARD_PRIVACY_H

#include <stddef.h>

#include "billboard/err.h"

/* One share of the budget (the Gram matrices' or y's). */
struct bb_privacy_share {
    double rho, spent, remaining;
    char mechanism[32]; /* "tree", "tree-honaker", "grid", "grid-sqrt"; "gaussian" for y ("" = not
                           sent) */
    double sigma;       /* its noise scale per noised value (0 = not private) */
    long releases;      /* Gram: release points R; y: N_max */
    char detail[64];    /* mechanism parameters in words, e.g. "g=1.5 k0=1" ("parameters") */
};

/* What restores from a backup charged (docs/PRIVACY.md §8): "restores" on
 * the wire once count > 0. */
struct bb_privacy_restores {
    long count;
    double rho_gram, rho_y; /* included in gram.spent, y.spent and rho_spent */
    double rho_warm;        /* in warm_up.spent and rho_spent; 0 = not sent */
};

/* What GET /v1/privacy reports; infinite values are INFINITY. */
struct bb_privacy_budget {
    int is_private;
    double rho, epsilon, delta, rho_spent, rho_remaining;
    struct bb_privacy_share gram, y;
    struct bb_privacy_share warm_up; /* rho 0: no warm-up, not sent */
    long updates, max_updates;       /* charged so far, N_max */
    long episodes, max_episodes;     /* stored so far, K_max */
    long billboard_version;          /* of the billboard served */
    struct bb_privacy_restores restores;
};

/* JSON of p (borrowed); caller frees; NULL on ENOMEM. */
char *bb_privacy_budget_to_json(const struct bb_privacy_budget *p, size_t *len);

/* Parses a budget into out (overwritten; null reads as INFINITY). BB_EPROTO
 * (reason in why, may be NULL) if a field is missing, of the wrong type, or
 * a count is negative. */
int bb_privacy_budget_from_json(const char *buf, size_t len, struct bb_privacy_budget *out,
                                char *why, size_t whylen) BB_WARN_UNUSED;

#endif
