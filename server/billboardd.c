/*
 * billboardd.c — the curator daemon's entry point.
 *
 * For now: --print-params with the configuration flags prints the derived
 * privacy parameters as JSON and exits 0. The HTTP service builds on this.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "params.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: billboardd --print-params [configuration]\n\n%s", bb_config_usage());
}

int main(int argc, char **argv)
{
    struct bb_params p;
    int print = 0;
    char why[256];
    bb_params_defaults(&p);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--print-params") == 0) {
            print = 1;
            continue;
        }
        int rc = bb_config_option(&p, argv[i], i + 1 < argc ? argv[i + 1] : NULL, why,
                                  sizeof(why));
        if (rc == BB_ENOTFOUND) {
            fprintf(stderr, "billboardd: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
        if (rc != BB_OK) {
            fprintf(stderr, "billboardd: %s\n", why);
            return 2;
        }
        i++;
    }
    if (p.calibration != BB_CAL_CORRECTED) {
        fprintf(stderr, "billboardd: only the corrected calibration may be served\n");
        return 2;
    }
    if (bb_params_derive(&p, why, sizeof(why)) != BB_OK) {
        fprintf(stderr, "billboardd: %s\n", why);
        return 2;
    }
    if (!print) {
        usage(stderr);
        return 2;
    }
    json_t *o = bb_config_to_json(&p);
    if (!o || json_dumpf(o, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) != 0) {
        json_decref(o);
        return 1;
    }
    fputc('\n', stdout);
    json_decref(o);
    return 0;
}
