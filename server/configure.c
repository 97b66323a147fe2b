/*
 * configure.c — which configuration billboardd serves (configure.h).
 */
#include "configure.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "config_info.h"
#include "engine/config.h"
#include "log.h"

/* Flags a new configuration must give; with a second name, one of the two. */
static const struct {
    const char *name, *or_name;
} required[] = {
    {"--horizon", NULL},      {"--dim", NULL},        {"--actions", NULL},
    {"--max-episodes", NULL}, {"--rho", "--epsilon"},
};

static int given(const struct bb_options *o, const char *name)
{
    for (int i = 0; name && i < o->ngiven; i++)
        if (strcmp(o->gname[i], name) == 0)
            return 1;
    return 0;
}

int bb_configure_missing(const struct bb_options *o, char *out, size_t outlen)
{
    size_t off = 0;
    int n = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
        if (given(o, required[i].name) || given(o, required[i].or_name))
            continue;
        int w = required[i].or_name
                    ? snprintf(out + off, outlen - off, "%sa privacy budget (%s or %s)",
                               n ? ", " : "", required[i].name, required[i].or_name)
                    : snprintf(out + off, outlen - off, "%s%s", n ? ", " : "", required[i].name);
        n++;
        if (w < 0 || (size_t)w >= outlen - off)
            break;
        off += (size_t)w;
    }
    return n;
}

/* A configuration that derives, to try one given key on. */
static const char *const baseline[][2] = {
    {"--horizon", "2"}, {"--dim", "2"}, {"--actions", "2"}, {"--max-episodes", "100"}, {"--rho", "1"},
};

/* Says why the given configuration does not derive, at the key that makes
 * it fail: the first given key that fails the same way on its own (on the
 * baseline) is named with its FILE:LINE, or as the flag it was. */
static void derive_error(const struct bb_options *o, const char *why)
{
    char other[256], buf[256];
    for (int i = 0; i < o->ngiven; i++) {
        struct bb_params q;
        bb_params_defaults(&q);
        int ok = 1;
        for (size_t b = 0; ok && b < sizeof(baseline) / sizeof(baseline[0]); b++)
            ok = bb_config_option(&q, baseline[b][0], baseline[b][1], buf, sizeof(buf)) == BB_OK;
        if (!ok || bb_config_option(&q, o->gname[i], o->gval[i], buf, sizeof(buf)) != BB_OK)
            continue;
        if (bb_params_derive(&q, other, sizeof(other)) == BB_OK || strcmp(other, why) != 0)
            continue;
        if (o->gline[i])
            bb_log(BB_LOG_ERROR, "%s:%d: %s = %s: %s", o->file.path, o->gline[i], o->gname[i] + 2,
                   o->gval[i] ? o->gval[i] : "", why);
        else
            bb_log(BB_LOG_ERROR, "%s %s: %s", o->gname[i], o->gval[i] ? o->gval[i] : "", why);
        return;
    }
    bb_log(BB_LOG_ERROR, "%s", why);
}

int bb_configure_print(const struct bb_options *opts, FILE *f)
{
    char why[256];
    struct bb_params p = opts->given;
    char *o = NULL;
    int rc = BB_EINVAL;
    if (bb_configure_missing(opts, why, sizeof(why)) > 0) {
        bb_log(BB_LOG_ERROR,
                "--print-params needs a configuration: missing %s (see billboardd "
                "--help)",
                why);
        goto out;
    }
    if (bb_params_derive(&p, why, sizeof(why)) != BB_OK) {
        derive_error(opts, why);
        goto out;
    }
    rc = BB_ENOMEM;
    size_t len = 0;
    if (!(o = bb_config_info_json(&p, 1, &len)))
        goto out;
    rc = BB_EIO;
    if (fwrite(o, 1, len, f) != len || fputc('\n', f) == EOF)
        goto out;
    rc = BB_OK;
out:
    free(o);
    return rc;
}

/* Every flag in effect on this start (the configuration file's and the
 * command line's) must agree with the stored configuration. Compared in
 * this binary's stored form, so that a key the database predates (stored
 * absent, read as its old behaviour) is no contradiction. */
static int check(const struct bb_options *o, const struct bb_params *stored,
                 const char *stored_json)
{
    char why[256];
    char *base = bb_config_dump(stored);
    if (!base)
        return BB_ENOMEM;
    int rc = BB_OK;
    for (int i = 0; rc == BB_OK && i < o->ngiven; i++) {
        struct bb_params t = *stored;
        if (bb_config_option(&t, o->gname[i], o->gval[i], why, sizeof(why)) != BB_OK) {
            rc = BB_EINVAL;
            break;
        }
        bb_config_keep_pinned(&t, stored);
        char *a = bb_config_dump(&t);
        int same = a && strcmp(a, base) == 0;
        free(a);
        if (!same) {
            char given[4400];
            if (o->gline[i])
                snprintf(given, sizeof(given), "%s:%d: %s = %s", o->file.path, o->gline[i],
                         o->gname[i] + 2, o->gval[i]);
            else
                snprintf(given, sizeof(given), "%s %s", o->gname[i], o->gval[i]);
            bb_log(BB_LOG_ERROR,
                    "%s contradicts the configuration stored in %s: the "
                    "configuration is fixed when the database is created, because changing "
                    "it mid-run would void the privacy guarantee. Stored: %s",
                    given, o->db, stored_json);
            rc = BB_ECONFLICT;
        }
    }
    free(base);
    return rc;
}

static int servable(const struct bb_params *p)
{
    if (p->is_private && p->calibration != BB_CAL_CORRECTED) {
        bb_log(BB_LOG_ERROR, "the paper's calibration under-noises y; it is only "
                        "accepted for a non-private run (--rho inf)");
        return 0;
    }
    /* A private --update-rule every is refused by the engine's derivation
     * (no N_max); 'release' (one update per grid point) is servable. */
    return 1;
}

int bb_configure_resolve(struct bb_db *db, const struct bb_options *o, struct bb_params *p,
                         int *fresh, char **config)
{
    char why[512];
    char *stored = NULL, *dump = NULL;
    struct bb_params pinned;
    *config = NULL;
    int rc = bb_db_config_get(db, &stored);
    *fresh = rc == BB_ENOTFOUND;
    if (rc != BB_OK && !*fresh) {
        bb_log(BB_LOG_ERROR, "%s: cannot read the stored configuration", o->db);
        goto out;
    }
    if (*fresh) {
        if (bb_configure_missing(o, why, sizeof(why)) > 0) {
            bb_log(BB_LOG_ERROR,
                    "%s is a new database and its configuration is fixed when it "
                    "is created, so it must be given in full: missing %s (see billboardd --help)",
                    o->db, why);
            rc = BB_EINVAL;
            goto out;
        }
        *p = o->given;
    } else {
        if ((rc = bb_config_load(stored, p, why, sizeof(why))) != BB_OK) {
            bb_log(BB_LOG_ERROR, "%s: stored configuration unreadable: %s", o->db, why);
            goto out;
        }
        if ((rc = check(o, p, stored)) != BB_OK)
            goto out;
    }
    pinned = *p;
    if ((rc = bb_params_derive(p, why, sizeof(why))) != BB_OK) {
        if (stored)
            bb_log(BB_LOG_ERROR, "%s: the stored configuration does not derive: %s", o->db, why);
        else
            derive_error(o, why);
        goto out;
    }
    rc = BB_EINVAL;
    if (!servable(p))
        goto out;
    /* What the database stores: the configuration with its 'auto' choices
     * made (bb_config_pin). A database created before they were stored
     * this way gets them now, made by this version's rules as it has
     * already been running under them. */
    bb_config_pin(&pinned, p);
    rc = BB_ENOMEM;
    if (!(dump = bb_config_dump(&pinned)))
        goto out;
    if (!*fresh && strcmp(dump, stored) != 0) {
        if ((rc = bb_db_config_put(db, dump)) != BB_OK) {
            bb_log(BB_LOG_ERROR, "%s: cannot store the configuration", o->db);
            goto out;
        }
        bb_log(BB_LOG_INFO, "%s: stored the choices 'auto' made: mechanism %s, release "
                        "start %g, max updates %ld, shift scale %g",
                o->db, bb_mechanism_name(p->mechanism), p->release_start, p->max_updates,
                p->shift_scale);
    }
    if (*fresh) {
        *config = dump;
        dump = NULL;
    }
    rc = BB_OK;
out:
    free(stored);
    free(dump);
    return rc;
}
