/*
 * billboard/config_info.h — GET /v1/config: the deployment's configuration
 * and every constant derived from it, as one typed struct and its codec.
 *
 * The daemon fills a struct bb_config_info from its parameters and encodes
 * it; libbillboard decodes it for bb_client_config(). The JSON object has
 * the fields below, in this order; numbers that are infinite (a non-private
 * run's rho, epsilon, ...) are null and read back as INFINITY. A decoder
 * needs H, d and A; every other field may be absent (a daemon older than
 * the field) and then reads as zero, "" or INFINITY for the nullable ones.
 */
#ifndef BILLBOARD_CONFIG_INFO_H
#define BILLBOARD_CONFIG_INFO_H

#include <stddef.h>

#include "billboard/err.h"

#define BB_CONFIG_NAME_MAX 32 /* bytes of a name field, NUL included */

struct bb_config_info {
    int H, d, A;
    long K_max;
    int is_private;                       /* "private" */
    char calibration[BB_CONFIG_NAME_MAX]; /* "paper" or "corrected" */
    char mechanism[BB_CONFIG_NAME_MAX];   /* the Gram matrices' continual release */
    double release_base, release_start;
    long releases; /* R */
    char shift_bound[BB_CONFIG_NAME_MAX];
    double shift_scale;
    char indefinite[BB_CONFIG_NAME_MAX];
    char value_clip[BB_CONFIG_NAME_MAX];
    char prior_policy[BB_CONFIG_NAME_MAX];
    double sens_factor, prefix_sd;
    char update_rule[BB_CONFIG_NAME_MAX];
    double rho, epsilon; /* INFINITY when not private */
    char conversion[BB_CONFIG_NAME_MAX];
    double epsilon_cks, epsilon_bun_steinke; /* INFINITY when not private */
    double delta, gram_share;
    double rho_gram, rho_y; /* INFINITY when not private */
    double failure_prob, update_ratio, beta;
    long L; /* tree levels */
    double sigma_gram, shift, ridge;
    long max_updates; /* N_max */
    double sigma_y, grid_gram, grid_y;
    double sigma_gram_drawn, sigma_y_drawn, y_exponent;
    double *sigma_y_drawn_step; /* owned, H entries */
    double prior_value;
    double *prior_target_step; /* owned, H entries */
    char final_prior[BB_CONFIG_NAME_MAX]; /* how the prior ends: "taper", weighed
                                           * by the run left, none at the final
                                           * update; "none", whole but at the final
                                           * update; "kept", whole at every update
                                           * (docs/PRIVACY.md §3.2; "" without a
                                           * prior and from older daemons) */
    char features[BB_CONFIG_NAME_MAX];
    char row_weight[BB_CONFIG_NAME_MAX]; /* how each row weighs in the sums: "norm",
                                          * as much as the set's sensitivity
                                          * bounds allow, or "one" (docs/PRIVACY.md
                                          * §1.7; "" from older daemons, which had
                                          * "one") */
    int next_value_bound;
    char y_sensitivity[BB_CONFIG_NAME_MAX]; /* "centred", "nonnegative", "triangle" */
    double y_centre;
    char arithmetic[BB_CONFIG_NAME_MAX]; /* "exact", "float": whether every rounding
                                          * before the noise is charged ("" when
                                          * non-private or from older daemons) */
    char explore[BB_CONFIG_NAME_MAX]; /* how clinics explore after an update: "sample"
                                       * (a sample of the y noise, docs/PRIVACY.md §3.6)
                                       * or "set" (the plausible set; "" from older
                                       * daemons and when non-private) */
    double plausible, plausible_floor; /* the set's z and f, read with explore "set" */
    double next_discount; /* nu of the next values' noise discount (0 from older daemons) */
    double first_share;   /* the first update's share of rho_y in force, in units of the
                             average rho_y / N_max (0 from older daemons, which had 1) */
    char rewards[BB_CONFIG_NAME_MAX]; /* "stream" where the reward stream is in force
                                       * (docs/PRIVACY.md §2.4), else "update" ("" from
                                       * older daemons and when non-private) */
    double rho_rewards;                /* its part of rho_y (0 without it) */
    double *sigma_reward_drawn_step;   /* owned, H entries: its noise (0 without it) */
    double warm_up;                    /* phi, the warm-up's share of rho in force
                                          (docs/PRIVACY.md §2.5; 0: none, and from
                                          older daemons) */
    double rho_warm_up;                /* phi rho, or 0 */
    long warm_up_points;               /* M: its release points 250 2^j < k0 */
    double sigma_warm_up_gram_drawn;   /* its Gram noise per entry, as drawn */
    double sigma_warm_up_reward_drawn; /* its reward stream's, every step */
    double rho_counts;                 /* the transition counts' part of rho_y, with
                                          tabular rows (docs/PRIVACY.md §2.6; 0:
                                          none, and from older daemons) */
    double sigma_counts_drawn;         /* their noise per entry, as drawn, or 0 */
    char version[BB_CONFIG_NAME_MAX]; /* the daemon's build ("" from older daemons) */
};

/* Frees c's arrays and zeroes it. NULL is a no-op. */
void bb_config_info_release(struct bb_config_info *c);

/* JSON of c (borrowed): compact, or with pretty indented by two spaces (the
 * daemon's --print-params). Caller frees; NULL on ENOMEM or if a field that
 * must be finite is not. *len (may be NULL) receives the length. */
char *bb_config_info_to_json(const struct bb_config_info *c, int pretty, size_t *len);

/* Parses a configuration into out (zeroed or released by the caller; the
 * caller releases it afterwards, also on error). BB_EPROTO with the reason
 * in why (may be NULL) if it is not a JSON object, lacks H, d or A, or a
 * field is of the wrong type; BB_ENOMEM. */
int bb_config_info_from_json(const char *buf, size_t len, struct bb_config_info *out, char *why,
                             size_t whylen) BB_WARN_UNUSED;

#endif
