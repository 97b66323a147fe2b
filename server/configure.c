/*
 * configure.c — which configuration billboardd serves (configure.h).
 */
#include "configure.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "engine/config.h"

int bb_configure_print(const struct bb_params *given, FILE *f)
{
    char why[256];
    struct bb_params p = *given;
    json_t *o = NULL;
    int rc = BB_EINVAL;
    if (p.calibration != BB_CAL_CORRECTED) {
        fprintf(stderr, "billboardd: only the corrected calibration may be served\n");
        goto out;
    }
    if (bb_params_derive(&p, why, sizeof(why)) != BB_OK) {
        fprintf(stderr, "billboardd: %s\n", why);
        goto out;
    }
    rc = BB_ENOMEM;
    if (!(o = bb_config_to_json(&p)))
        goto out;
    rc = BB_EIO;
    if (json_dumpf(o, f, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) != 0)
        goto out;
    fputc('\n', f);
    rc = BB_OK;
out:
    json_decref(o);
    return rc;
}

/* Every flag in effect on this start (the configuration file's and the
 * command line's) must agree with the stored configuration. */
static int check(const struct bb_options *o, const struct bb_params *stored,
                 const char *stored_json)
{
    char why[256];
    for (int i = 0; i < o->ngiven; i++) {
        struct bb_params t = *stored;
        if (bb_config_option(&t, o->gname[i], o->gval[i], why, sizeof(why)) != BB_OK)
            return BB_EINVAL;
        char *a = bb_config_dump(&t);
        int same = a && strcmp(a, stored_json) == 0;
        free(a);
        if (!same) {
            char given[4400];
            if (o->gline[i])
                snprintf(given, sizeof(given), "%s:%d: %s = %s", o->file.path, o->gline[i],
                         o->gname[i] + 2, o->gval[i]);
            else
                snprintf(given, sizeof(given), "%s %s", o->gname[i], o->gval[i]);
            fprintf(stderr,
                    "billboardd: %s contradicts the configuration stored in %s: the "
                    "configuration is fixed when the database is created, because changing "
                    "it mid-run would void the privacy guarantee. Stored: %s\n",
                    given, o->db, stored_json);
            return BB_ECONFLICT;
        }
    }
    return BB_OK;
}

static int servable(const struct bb_params *p)
{
    if (p->is_private && p->calibration != BB_CAL_CORRECTED) {
        fprintf(stderr, "billboardd: the paper's calibration under-noises y; it is only "
                        "accepted for a non-private run (--rho inf)\n");
        return 0;
    }
    if (p->is_private && p->update_rule != BB_UPDATE_RARE) {
        fprintf(stderr, "billboardd: --update-rule every breaks the N_max bound; it is only "
                        "accepted for a non-private run (--rho inf)\n");
        return 0;
    }
    return 1;
}

int bb_configure_resolve(struct bb_db *db, const struct bb_options *o, struct bb_params *p,
                         int *fresh, char **config)
{
    char why[512];
    char *stored = NULL, *dump = NULL;
    *config = NULL;
    int rc = bb_db_config_get(db, &stored);
    *fresh = rc == BB_ENOTFOUND;
    if (rc != BB_OK && !*fresh) {
        fprintf(stderr, "billboardd: %s: cannot read the stored configuration\n", o->db);
        goto out;
    }
    if (*fresh) {
        *p = o->given;
    } else {
        if ((rc = bb_config_load(stored, p, why, sizeof(why))) != BB_OK) {
            fprintf(stderr, "billboardd: %s: stored configuration unreadable: %s\n", o->db, why);
            goto out;
        }
        if ((rc = check(o, p, stored)) != BB_OK)
            goto out;
    }
    rc = BB_ENOMEM;
    if (*fresh && !(dump = bb_config_dump(p)))
        goto out;
    if ((rc = bb_params_derive(p, why, sizeof(why))) != BB_OK) {
        fprintf(stderr, "billboardd: %s\n", why);
        goto out;
    }
    rc = BB_EINVAL;
    if (!servable(p))
        goto out;
    *config = dump;
    dump = NULL;
    rc = BB_OK;
out:
    free(stored);
    free(dump);
    return rc;
}
