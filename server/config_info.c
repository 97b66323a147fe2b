/*
 * config_info.c — the public configuration from the engine's parameters
 * (config_info.h); the wire form is proto/codec_config.c's.
 */
#include "config_info.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/config.h"

#define NAME(dst, src) snprintf((dst), sizeof(dst), "%s", (src))

int bb_config_info_of(const struct bb_params *p, struct bb_config_info *out)
{
    const size_t H = p->H > 0 ? (size_t)p->H : 1;
    out->sigma_y_drawn_step = malloc(sizeof(double) * H);
    out->prior_target_step = malloc(sizeof(double) * H);
    out->sigma_reward_drawn_step = malloc(sizeof(double) * H);
    if (!out->sigma_y_drawn_step || !out->prior_target_step || !out->sigma_reward_drawn_step)
        return BB_ENOMEM;
    out->H = p->H;
    out->d = p->d;
    out->A = p->A;
    out->K_max = p->K_max;
    out->is_private = p->is_private;
    NAME(out->calibration, p->calibration == BB_CAL_PAPER ? "paper" : "corrected");
    NAME(out->mechanism, bb_mechanism_name(p->mechanism));
    out->release_base = p->release_base;
    out->release_start = p->release_start;
    out->releases = p->releases;
    NAME(out->shift_bound, bb_bound_name(p->shift_bound));
    out->shift_scale = p->shift_scale;
    NAME(out->indefinite, bb_indefinite_name(p->indefinite));
    NAME(out->value_clip, bb_value_clip_name(p->value_clip));
    NAME(out->prior_policy, bb_prior_policy_name(p->prior_policy));
    out->sens_factor = p->sens_factor;
    out->prefix_sd = p->prefix_sd;
    NAME(out->update_rule, bb_update_rule_name(p->update_rule));
    out->rho = p->rho;
    out->epsilon = p->epsilon;
    NAME(out->conversion, bb_conversion_name(p->conversion));
    out->epsilon_cks = p->is_private ? bb_epsilon_from_rho_cks(p->rho, p->delta) : INFINITY;
    out->epsilon_bun_steinke = p->is_private ? bb_epsilon_from_rho(p->rho, p->delta) : INFINITY;
    out->delta = p->delta;
    out->gram_share = p->gram_share;
    out->rho_gram = p->rho_gram;
    out->rho_y = p->rho_y;
    out->failure_prob = p->failure_prob;
    out->update_ratio = p->update_ratio;
    out->beta = p->beta;
    out->L = p->L;
    out->sigma_gram = p->sigma_gram;
    out->shift = p->shift;
    out->ridge = p->ridge;
    out->max_updates = p->max_updates;
    out->sigma_y = p->sigma_y;
    out->grid_gram = p->grid_gram;
    out->grid_y = p->grid_y;
    out->sigma_gram_drawn = p->sigma_gram_eff;
    out->sigma_y_drawn = p->sigma_y_eff;
    out->y_exponent = p->y_exponent;
    for (int h = 0; h < p->H; h++) {
        out->sigma_y_drawn_step[h] = bb_params_sigma_y_drawn_step(p, h);
        out->prior_target_step[h] = bb_params_prior_target(p, h);
    }
    out->prior_value = p->prior_value;
    if (bb_params_prior_target(p, 0) != 0) /* no prior, nothing to keep or drop */
        NAME(out->final_prior, bb_final_prior_name(p->final_prior));
    NAME(out->features, bb_features_name(p->features));
    NAME(out->row_weight, bb_row_weight_name(p->row_weight));
    out->next_value_bound = bb_params_next_bound(p);
    const double pair = bb_params_y_pair(p); /* the bound in force */
    NAME(out->y_sensitivity, pair == 1.0 ? "centred" : pair < 2.0 ? "nonnegative" : "triangle");
    out->y_centre = bb_params_y_centre(p);
    if (p->is_private && p->calibration == BB_CAL_CORRECTED) /* docs/PRIVACY.md §5 */
        NAME(out->arithmetic, bb_arithmetic_name(p->arithmetic));
    if (p->is_private) /* no noise, nothing to explore by (docs/PRIVACY.md §3.6) */
        NAME(out->explore, bb_explore_name(p->explore));
    out->plausible = p->plausible_z;
    out->plausible_floor = p->plausible_floor;
    out->next_discount = p->is_private ? p->next_discount : 0.0; /* no noise, nothing to discount */
    out->first_share = bb_params_first_share(p);
    if (p->is_private && p->calibration == BB_CAL_CORRECTED)
        NAME(out->rewards, bb_params_reward_stream(p) ? "stream" : "update");
    out->rho_rewards = bb_params_rho_reward(p);
    out->rho_counts = bb_params_rho_counts(p);
    out->sigma_counts_drawn = bb_params_sigma_counts_drawn(p);
    for (int h = 0; h < p->H; h++)
        out->sigma_reward_drawn_step[h] = bb_params_sigma_reward_drawn(p, h);
    struct bb_params w;
    if (bb_params_warm(p, &w) == BB_OK) { /* docs/PRIVACY.md §2.5 */
        out->warm_up = p->warm_share;
        out->rho_warm_up = p->rho_warm;
        out->warm_up_points = p->warm_points;
        out->sigma_warm_up_gram_drawn = w.sigma_gram_eff;
        out->sigma_warm_up_reward_drawn = bb_params_sigma_reward_drawn(&w, 0);
    }
    return BB_OK;
}

char *bb_config_info_json(const struct bb_params *p, int pretty, size_t *len)
{
    struct bb_config_info c = {0};
    char *s = NULL;
    if (bb_config_info_of(p, &c) == BB_OK)
        s = bb_config_info_to_json(&c, pretty, len);
    bb_config_info_release(&c);
    return s;
}
