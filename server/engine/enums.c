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
                                         [BB_FEATURES_AUTO] = "auto",
                                         NULL};
const char *const bb_conversion_names[] = {
    [BB_CONV_BUN_STEINKE] = "bun-steinke", [BB_CONV_CKS] = "cks", NULL};
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

const char *bb_calibration_name(enum bb_calibration c)
{
    return bb_enum_name(bb_calibration_names, (int)c);
}
const char *bb_update_rule_name(enum bb_update_rule r)
{
    return bb_enum_name(bb_update_rule_names, (int)r);
}
const char *bb_bound_name(enum bb_bound b)
{
    return bb_enum_name(bb_bound_names, (int)b);
}
const char *bb_value_clip_name(enum bb_value_clip c)
{
    return bb_enum_name(bb_value_clip_names, (int)c);
}
const char *bb_prior_policy_name(enum bb_prior_policy p)
{
    return bb_enum_name(bb_prior_policy_names, (int)p);
}
const char *bb_features_name(enum bb_features f)
{
    return bb_enum_name(bb_features_names, (int)f);
}
const char *bb_conversion_name(enum bb_conversion c)
{
    return bb_enum_name(bb_conversion_names, (int)c);
}
const char *bb_y_sensitivity_name(enum bb_y_sensitivity s)
{
    return bb_enum_name(bb_y_sensitivity_names, (int)s);
}
const char *bb_indefinite_name(enum bb_indefinite i)
{
    return bb_enum_name(bb_indefinite_names, (int)i);
}
