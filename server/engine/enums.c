/*
 * enums.c — one name table per configuration enum (enums.h).
 */
#include "enums.h"

#include <stddef.h>

const char *const bb_calibration_names[] = {
    [BB_CAL_CORRECTED] = "corrected", [BB_CAL_PAPER] = "paper", NULL};
const char *const bb_update_rule_names[] = {
    [BB_UPDATE_RARE] = "rare", [BB_UPDATE_EVERY] = "every", [BB_UPDATE_RELEASE] = "release", NULL};
const char *const bb_bound_names[] = {[BB_BOUND_PAPER] = "paper", [BB_BOUND_TIGHT] = "tight", NULL};
const char *const bb_value_clip_names[] = {
    [BB_VCLIP_HORIZON] = "horizon", [BB_VCLIP_REMAINING] = "remaining", NULL};
const char *const bb_prior_policy_names[] = {
    [BB_PRIOR_UNIFORM] = "uniform", [BB_PRIOR_GREEDY] = "greedy", NULL};
const char *const bb_features_names[] = {[BB_FEATURES_BALL] = "ball",
                                         [BB_FEATURES_SIMPLEX] = "simplex",
                                         [BB_FEATURES_ONEHOT] = "onehot",
                                         [BB_FEATURES_TABULAR] = "tabular",
                                         [BB_FEATURES_AUTO] = "auto",
                                         NULL};
const char *const bb_conversion_names[] = {
    [BB_CONV_BUN_STEINKE] = "bun-steinke", [BB_CONV_CKS] = "cks", NULL};
const char *const bb_arithmetic_names[] = {[BB_ARITH_FLOAT] = "float",
                                           [BB_ARITH_EXACT] = "exact", NULL};
const char *const bb_rewards_names[] = {[BB_REWARDS_UPDATE] = "update",
                                        [BB_REWARDS_STREAM] = "stream", NULL};
const char *const bb_explore_names[] = {[BB_EXPLORE_SET] = "set",
                                        [BB_EXPLORE_SAMPLE] = "sample", NULL};
const char *const bb_final_prior_names[] = {[BB_FINAL_PRIOR_KEPT] = "kept",
                                            [BB_FINAL_PRIOR_NONE] = "none",
                                            [BB_FINAL_PRIOR_TAPER] = "taper", NULL};
const char *const bb_row_weight_names[] = {[BB_ROW_WEIGHT_ONE] = "one",
                                           [BB_ROW_WEIGHT_NORM] = "norm", NULL};
const char *const bb_y_sensitivity_names[] = {[BB_YSENS_TRIANGLE] = "triangle",
                                              [BB_YSENS_NONNEGATIVE] = "nonnegative",
                                              [BB_YSENS_CENTRED] = "centred",
                                              NULL};
const char *const bb_indefinite_names[] = {
    [BB_INDEF_REFUSE] = "refuse", [BB_INDEF_DOUBLE] = "double", NULL};

const char *bb_enum_name(const char *const *names, int v)
{
    if (v < 0)
        return NULL;
    for (int i = 0; names[i]; i++)
        if (i == v)
            return names[i];
    return NULL;
}

/* The name functions of enums.h, one per table. */
#define NAME_OF(fn, type, table)                                                                   \
    const char *fn(type v)                                                                         \
    {                                                                                              \
        return bb_enum_name(table, (int)v);                                                        \
    }
NAME_OF(bb_calibration_name, enum bb_calibration, bb_calibration_names)
NAME_OF(bb_update_rule_name, enum bb_update_rule, bb_update_rule_names)
NAME_OF(bb_bound_name, enum bb_bound, bb_bound_names)
NAME_OF(bb_value_clip_name, enum bb_value_clip, bb_value_clip_names)
NAME_OF(bb_prior_policy_name, enum bb_prior_policy, bb_prior_policy_names)
NAME_OF(bb_features_name, enum bb_features, bb_features_names)
NAME_OF(bb_conversion_name, enum bb_conversion, bb_conversion_names)
NAME_OF(bb_y_sensitivity_name, enum bb_y_sensitivity, bb_y_sensitivity_names)
NAME_OF(bb_indefinite_name, enum bb_indefinite, bb_indefinite_names)
NAME_OF(bb_arithmetic_name, enum bb_arithmetic, bb_arithmetic_names)
NAME_OF(bb_rewards_name, enum bb_rewards, bb_rewards_names)
NAME_OF(bb_explore_name, enum bb_explore, bb_explore_names)
NAME_OF(bb_final_prior_name, enum bb_final_prior, bb_final_prior_names)
NAME_OF(bb_row_weight_name, enum bb_row_weight, bb_row_weight_names)
