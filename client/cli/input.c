/*
 * input.c — the files a `billboard` command reads ("-" is stdin): whole
 * files, and feature matrices [[d numbers] x A].
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

char *cli_slurp(const char *path, size_t *len)
{
    struct bb_buf b = BB_BUF_INIT;
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f)
        return NULL;
    int rc = bb_buf_read(&b, f);
    if (f != stdin)
        fclose(f);
    if (rc != BB_OK) {
        bb_buf_release(&b);
        return NULL;
    }
    return bb_buf_detach(&b, len); /* "" for an empty file: bb_buf_read allocated */
}

int cli_read_features(const char *path, int A, int d, double **out)
{
    json_error_t e;
    size_t len = 0;
    double *f = NULL;
    int rc = EXIT_LOCAL;
    json_t *j = NULL;
    char *buf = cli_slurp(path, &len);
    *out = NULL;
    if (!buf) {
        fprintf(stderr, "billboard: cannot read %s\n", path);
        goto out;
    }
    j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &e);
    if (!j) {
        fprintf(stderr, "billboard: %s:%d: %s\n", path, e.line, e.text);
        goto out;
    }
    /* Accept the bare matrix or an object {"features": matrix}. */
    json_t *m = json_is_object(j) ? json_object_get(j, "features") : j;
    if (!json_is_array(m) || json_array_size(m) != (size_t)A) {
        fprintf(stderr, "billboard: %s: expected %d feature rows (one per action)\n", path, A);
        goto out;
    }
    f = malloc(sizeof(double) * (size_t)A * (size_t)d);
    if (!f)
        goto out;
    for (int a = 0; a < A; a++) {
        json_t *row = json_array_get(m, (size_t)a);
        if (!json_is_array(row) || json_array_size(row) != (size_t)d) {
            fprintf(stderr, "billboard: %s: row %d: expected %d numbers\n", path, a, d);
            goto out;
        }
        for (int k = 0; k < d; k++) {
            json_t *v = json_array_get(row, (size_t)k);
            if (!json_is_number(v)) {
                fprintf(stderr, "billboard: %s: row %d entry %d is not a number\n", path, a, k);
                goto out;
            }
            f[(size_t)a * d + k] = json_number_value(v);
        }
    }
    *out = f;
    f = NULL;
    rc = EXIT_OKAY;
out:
    free(f);
    free(buf);
    json_decref(j);
    return rc;
}
