/*
 * config.c — configuration flags and their JSON form (config.h).
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "noise.h"

static int bad(char *why, size_t whylen, const char *name, const char *value)
{
    if (why && whylen)
        snprintf(why, whylen, "bad value '%s' for %s", value ? value : "", name);
    return BB_EINVAL;
}

/* The configuration flags: every field of struct bb_params the caller sets.
 * One table serves parsing, the stored form and its comparison. */
enum kind {
    K_INT,
    K_LONG,
    K_DOUBLE,
    K_ENUM,
    K_DOUBLE_AUTO,  /* 'auto' = 0 */
    K_PRIOR_AUTO    /* 'auto' = BB_PRIOR_VALUE_AUTO, else a number >= 0 */
};

struct opt {
    const char *name; /* without the leading dashes; the stored key */
    enum kind kind;
    size_t off;
    long lo, hi;              /* K_INT, K_LONG; K_ENUM: hi > 0 accepts values < hi only */
    const char *const *names; /* K_ENUM: enums.h's table; NULL = bb_mechanism_name */
    int stored;               /* a stored key only, never a flag (after the flags) */
};

#define OFF(f) offsetof(struct bb_params, f)
static const struct opt opts[] = {
    {"horizon", K_INT, OFF(H), 1, 2147483647L, NULL, 0},
    {"dim", K_INT, OFF(d), 1, 2147483647L, NULL, 0},
    {"actions", K_INT, OFF(A), 1, 2147483647L, NULL, 0},
    {"max-episodes", K_LONG, OFF(K_max), 1, LONG_MAX, NULL, 0},
    {"rho", K_DOUBLE, OFF(rho), 0, 0, NULL, 0},
    {"epsilon", K_DOUBLE, OFF(epsilon), 0, 0, NULL, 0},
    {"delta", K_DOUBLE, OFF(delta), 0, 0, NULL, 0},
    {"conversion", K_ENUM, OFF(conversion), 0, 0, bb_conversion_names, 0},
    {"gram-share", K_DOUBLE, OFF(gram_share), 0, 0, NULL, 0},
    /* 0: the bound. Up to LONG_MAX: a pinned non-private tree stores
     * N_max = K_max, which may exceed 2^31 (bb_config_pin). */
    {"max-updates", K_LONG, OFF(max_updates_cap), 0, LONG_MAX, NULL, 0},
    {"beta", K_DOUBLE, OFF(beta), 0, 0, NULL, 0},
    {"update-rule", K_ENUM, OFF(update_rule), 0, 0, bb_update_rule_names, 0},
    {"mechanism", K_ENUM, OFF(mechanism), 0, 0, NULL, 0},
    {"release-base", K_DOUBLE_AUTO, OFF(release_base), 0, 0, NULL, 0},
    {"release-start", K_DOUBLE_AUTO, OFF(release_start), 0, 0, NULL, 0},
    {"shift-scale", K_DOUBLE_AUTO, OFF(shift_scale), 0, 0, NULL, 0},
    /* 'auto' is the simulator's, resolved before derivation. */
    {"features", K_ENUM, OFF(features), 0, BB_FEATURES_AUTO, bb_features_names, 0},
    /* Stored keys that no flag sets: how this version learns and derives,
     * kept so that a database goes on as it was created. The first group
     * were flags once (a database stores them all); the simulator sets them
     * for its ablations (bb_config_stored_option). */
    {"calibration", K_ENUM, OFF(calibration), 0, 0, bb_calibration_names, 1},
    {"failure-prob", K_DOUBLE, OFF(failure_prob), 0, 0, NULL, 1},
    {"update-ratio", K_DOUBLE, OFF(update_ratio), 0, 0, NULL, 1},
    {"shift-bound", K_ENUM, OFF(shift_bound), 0, 0, bb_bound_names, 1},
    {"indefinite", K_ENUM, OFF(indefinite), 0, 0, bb_indefinite_names, 1},
    {"value-clip", K_ENUM, OFF(value_clip), 0, 0, bb_value_clip_names, 1},
    {"prior-policy", K_ENUM, OFF(prior_policy), 0, 0, bb_prior_policy_names, 1},
    {"y-exponent", K_DOUBLE, OFF(y_exponent), 0, 0, NULL, 1},
    {"prior-value", K_PRIOR_AUTO, OFF(prior_value), 0, 0, NULL, 1},
    {"y-sensitivity", K_ENUM, OFF(y_sensitivity), 0, 0, bb_y_sensitivity_names, 1},
    {"plausible", K_DOUBLE, OFF(plausible_z), 0, 0, NULL, 1},
    {"plausible-floor", K_DOUBLE, OFF(plausible_floor), 0, 0, NULL, 1},
    {"arithmetic", K_ENUM, OFF(arithmetic), 0, 0, bb_arithmetic_names, 1},
    {"next-discount", K_DOUBLE, OFF(next_discount), 0, 0, NULL, 1},
    {"first-share", K_DOUBLE, OFF(first_share), 0, 0, NULL, 1},
    {"rewards", K_ENUM, OFF(rewards), 0, 0, bb_rewards_names, 1},
    {"explore", K_ENUM, OFF(explore), 0, 0, bb_explore_names, 1},
    {"warm-up", K_DOUBLE, OFF(warm_share), 0, 0, NULL, 1},
    {"final-prior", K_ENUM, OFF(final_prior), 0, 0, bb_final_prior_names, 1},
    {"row-weight", K_ENUM, OFF(row_weight), 0, 0, bb_row_weight_names, 1},
};
#undef OFF

static const char *enum_name(const struct opt *o, int v)
{
    if (o->hi > 0 && v >= o->hi)
        return NULL;
    if (!o->names)
        return bb_mechanism_name((enum bb_mechanism)v);
    return bb_enum_name(o->names, v);
}

/* The entry named --name: a flag, or with stored also a stored-only key. */
static const struct opt *find(const char *name, int stored)
{
    if (strncmp(name, "--", 2) != 0)
        return NULL;
    for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
        if (strcmp(name + 2, opts[i].name) == 0)
            return opts[i].stored && !stored ? NULL : &opts[i];
    return NULL;
}

/* Applies value to o's field; BB_ENOTFOUND for no entry (o NULL). */
static int set_option(struct bb_params *p, const struct opt *o, const char *name,
                      const char *value, char *why, size_t whylen);

int bb_config_option(struct bb_params *p, const char *name, const char *value, char *why,
                     size_t whylen)
{
    return set_option(p, find(name, 0), name, value, why, whylen);
}

int bb_config_stored_option(struct bb_params *p, const char *name, const char *value, char *why,
                            size_t whylen)
{
    return set_option(p, find(name, 1), name, value, why, whylen);
}

static int set_option(struct bb_params *p, const struct opt *o, const char *name,
                      const char *value, char *why, size_t whylen)
{
    if (!o)
        return BB_ENOTFOUND;
    if (!value)
        return bad(why, whylen, name, value);
    char *field = (char *)p + o->off;
    long l = 0;
    double x = 0;
    switch (o->kind) {
    case K_INT:
    case K_LONG:
        if (bb_parse_long(value, &l) != BB_OK || l < o->lo || l > o->hi)
            return bad(why, whylen, name, value);
        if (o->kind == K_INT)
            *(int *)field = (int)l;
        else
            *(long *)field = l;
        return BB_OK;
    case K_DOUBLE:
    case K_DOUBLE_AUTO:
    case K_PRIOR_AUTO:
        if (o->kind != K_DOUBLE && strcmp(value, "auto") == 0)
            x = o->kind == K_DOUBLE_AUTO ? 0 : BB_PRIOR_VALUE_AUTO;
        else if (bb_parse_double(value, &x) != BB_OK || (o->kind == K_DOUBLE_AUTO && x == 0) ||
                 (o->kind == K_PRIOR_AUTO && !(x >= 0)))
            return bad(why, whylen, name, value);
        *(double *)field = x;
        return BB_OK;
    case K_ENUM:
        for (int v = 0; enum_name(o, v); v++)
            if (strcmp(value, enum_name(o, v)) == 0) {
                *(int *)field = v; /* every enum of bb_params is int-sized */
                return BB_OK;
            }
        return bad(why, whylen, name, value);
    }
    return BB_ENOTFOUND;
}

const char *bb_config_flag(size_t i)
{
    return i < sizeof(opts) / sizeof(opts[0]) && !opts[i].stored ? opts[i].name : NULL;
}

const char *bb_config_key(size_t i)
{
    return i < sizeof(opts) / sizeof(opts[0]) ? opts[i].name : NULL;
}

char *bb_config_dump(const struct bb_params *p)
{
    json_t *o = json_object();
    char v[48];
    int rc = o ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < sizeof(opts) / sizeof(opts[0]); i++) {
        const char *field = (const char *)p + opts[i].off;
        switch (opts[i].kind) {
        case K_INT:
            snprintf(v, sizeof(v), "%d", *(const int *)field);
            break;
        case K_LONG:
            snprintf(v, sizeof(v), "%ld", *(const long *)field);
            break;
        case K_DOUBLE:
            snprintf(v, sizeof(v), "%.17g", *(const double *)field);
            break;
        case K_DOUBLE_AUTO:
        case K_PRIOR_AUTO:
            if (*(const double *)field == (opts[i].kind == K_DOUBLE_AUTO ? 0 : BB_PRIOR_VALUE_AUTO))
                snprintf(v, sizeof(v), "auto");
            else
                snprintf(v, sizeof(v), "%.17g", *(const double *)field);
            break;
        case K_ENUM: {
            const char *n = enum_name(&opts[i], *(const int *)field);
            snprintf(v, sizeof(v), "%s", n ? n : "?");
            break;
        }
        }
        rc = json_object_set_new(o, opts[i].name, json_string(v));
    }
    char *s = rc == 0 ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(o);
    return s;
}

int bb_config_load(const char *s, struct bb_params *p, char *why, size_t whylen)
{
    json_error_t e;
    json_t *o = json_loads(s, 0, &e), *v;
    const char *key;
    char name[64];
    int rc = BB_EINVAL;
    bb_params_defaults(p);
    /* Keys added after databases already existed take the behaviour those
     * databases were created with when absent. */
    p->prior_policy = BB_PRIOR_GREEDY;
    p->conversion = BB_CONV_BUN_STEINKE;
    p->y_exponent = 0;
    p->prior_value = 0;
    p->features = BB_FEATURES_BALL;
    p->y_sensitivity = BB_YSENS_TRIANGLE;
    p->indefinite = BB_INDEF_REFUSE;
    p->plausible_z = 0;
    p->plausible_floor = 0;
    p->arithmetic = BB_ARITH_FLOAT;
    p->next_discount = 0;
    p->first_share = 1;
    p->rewards = BB_REWARDS_UPDATE;
    p->explore = BB_EXPLORE_SET;
    p->warm_share = 0;
    p->final_prior = BB_FINAL_PRIOR_KEPT;
    p->row_weight = BB_ROW_WEIGHT_ONE;
    if (!json_is_object(o)) {
        snprintf(why, whylen, "not a JSON object");
        goto out;
    }
    json_object_foreach(o, key, v)
    {
        snprintf(name, sizeof(name), "--%s", key);
        if (!json_is_string(v)) {
            snprintf(why, whylen, "%s is not a string", key);
            goto out;
        }
        const struct opt *opt = find(name, 1);
        rc = opt ? set_option(p, opt, name, json_string_value(v), why, whylen) : BB_ENOTFOUND;
        if (rc == BB_ENOTFOUND)
            snprintf(why, whylen, "unknown configuration key '%s'", key);
        if (rc != BB_OK) {
            rc = BB_EINVAL;
            goto out;
        }
    }
    rc = BB_OK;
out:
    json_decref(o);
    return rc;
}

void bb_config_pin(struct bb_params *given, const struct bb_params *derived)
{
    given->mechanism = derived->mechanism;
    given->release_start = derived->release_start;
    given->release_base = derived->release_base;
    given->max_updates_cap = derived->max_updates;
    given->shift_scale = derived->shift_scale;
    given->prior_value = derived->prior_value;
}

void bb_config_keep_pinned(struct bb_params *t, const struct bb_params *stored)
{
    if (t->mechanism == BB_MECH_AUTO)
        t->mechanism = stored->mechanism;
    if (t->release_start == 0)
        t->release_start = stored->release_start;
    if (t->release_base == 0)
        t->release_base = stored->release_base;
    if (t->max_updates_cap == 0)
        t->max_updates_cap = stored->max_updates_cap;
    if (t->shift_scale == 0)
        t->shift_scale = stored->shift_scale;
    if (t->prior_value == BB_PRIOR_VALUE_AUTO)
        t->prior_value = stored->prior_value;
}

/* The help text's parts around the mechanisms, whose names come from
 * mech.c's table (bb_mechanism_name). */
static const char usage_head[] =
    "Configuration (fixed when the database is created; so are the choices\n"
    "'auto' and --max-updates 0 make, and on a restart they mean the stored ones):\n"
    "  --horizon H          steps per episode (required)\n"
    "  --dim d              feature dimension (required)\n"
    "  --actions A          number of actions (required)\n"
    "  --max-episodes K     K_max, the episode budget (required)\n"
    "  --rho R              zCDP budget; 'inf' for non-private\n"
    "  --epsilon E          or an (epsilon, delta) budget, converted to rho\n"
    "  --delta D            delta for the (epsilon, delta) report (default 1e-5)\n"
    "  --conversion C       (epsilon, delta) to rho and back: cks (Canonne-Kamath-\n"
    "                       Steinke 2020, the default; a larger rho for the same\n"
    "                       epsilon) or bun-steinke (docs/PRIVACY.md §4)\n"
    "  --gram-share f       share of rho for the Gram matrices (default 0.2)\n"
    "  --max-updates N      hard cap on updates, at most the default bound\n"
    "                       (default 0: the bound)\n"
    "  --beta B             exploration bonus scale (default 1, see docs/RESULTS.md)\n";
static const char usage_tail[] =
    "  --release-base g     grid mechanisms release at episodes ceil(k0 g^j),\n"
    "                       or auto (the default: 1.25, 1.1 for tabular rows)\n"
    "  --release-start k0   the first release point, or auto (the default: once\n"
    "                       k0/d >= 5 sigma_y, 3 for onehot rows, at most\n"
    "                       K_max/5, tabular rows onehot's at g = 1.25; 1 for\n"
    "                       the tree)\n"
    "  --shift-scale s      lambda~ = s * the bound, or auto (the default: 0.25,\n"
    "                       0.4 of onehot rows' diagonal bound; post-processing)\n"
    "  --update-rule R      rare (Alg. 1 line 6) or release (every grid point)\n"
    "  --features SET       the clinics' feature rows: ball (||phi||_2 <= 1, the\n"
    "                       default), simplex (also phi >= 0, sum <= 1; other\n"
    "                       rows are refused, and a private run's y noise shrinks\n"
    "                       with a bound on the next values, docs/PRIVACY.md §3.3)\n"
    "                       onehot (simplex rows with at most one nonzero entry:\n"
    "                       the Gram noise is diagonal and the ridge smaller,\n"
    "                       docs/PRIVACY.md §1.6) or tabular (onehot rows laid\n"
    "                       out as e_{sA+a} for state s and action a, d = S A:\n"
    "                       the next values come from transition counts released\n"
    "                       once, docs/PRIVACY.md §2.6)\n"
    "How this version learns within the budget (the y noise's shape, the value\n"
    "clip, the next values' prior and discount, the plausible set, ...) has no\n"
    "flag: it is stored with the database, which goes on as it was created;\n"
    "--print-params shows it and docs/DAEMON.md lists the stored keys.\n";
static char usage_text[sizeof(usage_head) + sizeof(usage_tail) + 512];
static pthread_once_t usage_once = PTHREAD_ONCE_INIT;

static void usage_build(void)
{
    char names[256] = "";
    size_t n = 0;
    for (int v = 0; bb_mechanism_name((enum bb_mechanism)v) && n < sizeof(names); v++)
        if (v != BB_MECH_AUTO)
            n += (size_t)snprintf(names + n, sizeof(names) - n, "%s, ",
                                  bb_mechanism_name((enum bb_mechanism)v));
    snprintf(usage_text, sizeof(usage_text),
             "%s"
             "  --mechanism M        continual release of the Gram matrices (default auto:\n"
             "                       grid-sqrt when private, tree when not;\n"
             "                       docs/PRIVACY.md): %sauto\n"
             "%s",
             usage_head, names, usage_tail);
}

const char *bb_config_usage(void)
{
    pthread_once(&usage_once, usage_build);
    return usage_text;
}

