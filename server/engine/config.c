/*
 * config.c — configuration flags and their JSON form (config.h).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "noise.h"

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end != '\0' || isnan(v))
        return BB_EINVAL;
    *out = v;
    return BB_OK;
}

static int parse_long(const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0')
        return BB_EINVAL;
    *out = v;
    return BB_OK;
}

static int bad(char *why, size_t whylen, const char *name, const char *value)
{
    if (why && whylen)
        snprintf(why, whylen, "bad value '%s' for %s", value ? value : "", name);
    return BB_EINVAL;
}

int bb_config_option(struct bb_params *p, const char *name, const char *value, char *why,
                     size_t whylen)
{
    long l = 0;
    double x = 0;
    if (!value)
        return bad(why, whylen, name, value);
#define LONG_OPT(flag, field, lo)                                                              \
    if (strcmp(name, flag) == 0) {                                                             \
        if (parse_long(value, &l) != BB_OK || l < (lo) || l > 2147483647L)                     \
            return bad(why, whylen, name, value);                                              \
        field = l;                                                                             \
        return BB_OK;                                                                          \
    }
#define DOUBLE_OPT(flag, field)                                                                \
    if (strcmp(name, flag) == 0) {                                                             \
        if (parse_double(value, &x) != BB_OK)                                                  \
            return bad(why, whylen, name, value);                                              \
        field = x;                                                                             \
        return BB_OK;                                                                          \
    }
    LONG_OPT("--horizon", p->H, 1)
    LONG_OPT("--dim", p->d, 1)
    LONG_OPT("--actions", p->A, 1)
    LONG_OPT("--max-updates", p->max_updates_cap, 1)
    DOUBLE_OPT("--rho", p->rho)
    DOUBLE_OPT("--epsilon", p->epsilon)
    DOUBLE_OPT("--delta", p->delta)
    DOUBLE_OPT("--gram-share", p->gram_share)
    DOUBLE_OPT("--failure-prob", p->failure_prob)
    DOUBLE_OPT("--update-ratio", p->update_ratio)
    DOUBLE_OPT("--beta", p->beta)
#undef LONG_OPT
#undef DOUBLE_OPT
    if (strcmp(name, "--max-episodes") == 0) {
        if (parse_long(value, &l) != BB_OK || l < 1)
            return bad(why, whylen, name, value);
        p->K_max = l;
        return BB_OK;
    }
    if (strcmp(name, "--update-rule") == 0) {
        if (strcmp(value, "rare") == 0)
            p->update_rule = BB_UPDATE_RARE;
        else if (strcmp(value, "every") == 0)
            p->update_rule = BB_UPDATE_EVERY;
        else
            return bad(why, whylen, name, value);
        return BB_OK;
    }
    if (strcmp(name, "--calibration") == 0) {
        if (strcmp(value, "corrected") == 0)
            p->calibration = BB_CAL_CORRECTED;
        else if (strcmp(value, "paper") == 0)
            p->calibration = BB_CAL_PAPER;
        else
            return bad(why, whylen, name, value);
        return BB_OK;
    }
    return BB_ENOTFOUND;
}

const char *bb_config_usage(void)
{
    return "Configuration (fixed when the database is created):\n"
           "  --horizon H          steps per episode (required)\n"
           "  --dim d              feature dimension (required)\n"
           "  --actions A          number of actions (required)\n"
           "  --max-episodes K     K_max, the episode budget (required)\n"
           "  --rho R              zCDP budget; 'inf' for non-private\n"
           "  --epsilon E          or an (epsilon, delta) budget, converted to rho\n"
           "  --delta D            delta for the (epsilon, delta) report (default 1e-5)\n"
           "  --gram-share f       share of rho for the Gram trees (default 0.5)\n"
           "  --failure-prob p     failure probability of the PD shift (default 0.05)\n"
           "  --update-ratio C     update when some det grew by C (default 2)\n"
           "  --max-updates N      hard cap on updates, at most the default bound\n"
           "  --beta B             exploration bonus scale (default 2, see docs/RESULTS.md)\n";
}

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

json_t *bb_config_to_json(const struct bb_params *p)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    int rc = 0;
    rc |= json_object_set_new(o, "H", json_integer(p->H));
    rc |= json_object_set_new(o, "d", json_integer(p->d));
    rc |= json_object_set_new(o, "A", json_integer(p->A));
    rc |= json_object_set_new(o, "K_max", json_integer(p->K_max));
    rc |= json_object_set_new(o, "private", json_boolean(p->is_private));
    rc |= json_object_set_new(o, "calibration",
                              json_string(p->calibration == BB_CAL_PAPER ? "paper" : "corrected"));
    rc |= json_object_set_new(o, "update_rule",
                              json_string(p->update_rule == BB_UPDATE_EVERY ? "every" : "rare"));
    rc |= json_object_set_new(o, "rho", num(p->rho));
    rc |= json_object_set_new(o, "epsilon", num(p->epsilon));
    rc |= json_object_set_new(o, "epsilon_cks",
                              num(p->is_private ? bb_epsilon_from_rho_cks(p->rho, p->delta)
                                                : INFINITY));
    rc |= json_object_set_new(o, "delta", json_real(p->delta));
    rc |= json_object_set_new(o, "gram_share", json_real(p->gram_share));
    rc |= json_object_set_new(o, "rho_gram", num(p->rho_gram));
    rc |= json_object_set_new(o, "rho_y", num(p->rho_y));
    rc |= json_object_set_new(o, "failure_prob", json_real(p->failure_prob));
    rc |= json_object_set_new(o, "update_ratio", json_real(p->update_ratio));
    rc |= json_object_set_new(o, "beta", json_real(p->beta));
    rc |= json_object_set_new(o, "L", json_integer(p->L));
    rc |= json_object_set_new(o, "sigma_gram", json_real(p->sigma_gram));
    rc |= json_object_set_new(o, "shift", json_real(p->shift));
    rc |= json_object_set_new(o, "ridge", json_real(p->ridge));
    rc |= json_object_set_new(o, "max_updates", json_integer(p->max_updates));
    rc |= json_object_set_new(o, "sigma_y", json_real(p->sigma_y));
    rc |= json_object_set_new(o, "grid_gram", json_real(p->grid_gram));
    rc |= json_object_set_new(o, "grid_y", json_real(p->grid_y));
    rc |= json_object_set_new(o, "sigma_gram_drawn", json_real(p->sigma_gram_eff));
    rc |= json_object_set_new(o, "sigma_y_drawn", json_real(p->sigma_y_eff));
    if (rc) {
        json_decref(o);
        return NULL;
    }
    return o;
}
