/*
 * env_load.c — a tabular linear MDP from a JSON file (env.h, docs/ENV.md).
 *
 *   {"S": 2, "A": 2, "d": 2, "H": 2,
 *    "initial_state": 0,                 (or "initial_distribution": [S])
 *    "phi":   [S][A][d],
 *    "mu":    [H][d][S],                 mu_h(j, s')
 *    "theta": [H][d],
 *    "comment": "optional, ignored"}
 *
 * Every problem is reported with the JSON pointer of the offending value.
 */
#include "env.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* A positive integer field. */
static int get_size(const json_t *root, const char *key, int *out, char *why, size_t whylen)
{
    const json_t *v = json_object_get(root, key);
    if (!v)
        return bb_sim_env_fail(why, whylen, "/%s: missing (a positive integer)", key);
    if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 100000)
        return bb_sim_env_fail(why, whylen, "/%s: must be an integer in [1, 100000]", key);
    *out = (int)json_integer_value(v);
    return BB_OK;
}

/* Reads a nested array of numbers with the given shape (up to 3 levels)
 * into out, row-major. path is the pointer of v for messages. */
static int read_array(const json_t *v, const int *shape, int ndim, double *out, char *path,
                      size_t pathlen, char *why, size_t whylen)
{
    size_t len = strlen(path);
    if (!json_is_array(v))
        return bb_sim_env_fail(why, whylen, "%s: must be an array of %d entries", path, shape[0]);
    if (json_array_size(v) != (size_t)shape[0])
        return bb_sim_env_fail(why, whylen, "%s: has %zu entries, expected %d", path, json_array_size(v),
                    shape[0]);
    size_t stride = 1;
    for (int i = 1; i < ndim; i++)
        stride *= (size_t)shape[i];
    for (int i = 0; i < shape[0]; i++) {
        const json_t *x = json_array_get(v, (size_t)i);
        snprintf(path + len, pathlen - len, "/%d", i);
        if (ndim > 1) {
            int rc = read_array(x, shape + 1, ndim - 1, out + (size_t)i * stride, path, pathlen,
                                why, whylen);
            if (rc != BB_OK)
                return rc;
        } else {
            if (!json_is_number(x))
                return bb_sim_env_fail(why, whylen, "%s: must be a number", path);
            out[i] = json_number_value(x);
        }
    }
    path[len] = '\0';
    return BB_OK;
}

static int read_field(const json_t *root, const char *key, const int *shape, int ndim, double *out,
                      char *why, size_t whylen)
{
    char path[128];
    const json_t *v = json_object_get(root, key);
    if (!v)
        return bb_sim_env_fail(why, whylen, "/%s: missing", key);
    snprintf(path, sizeof(path), "/%s", key);
    return read_array(v, shape, ndim, out, path, sizeof(path), why, whylen);
}

int bb_sim_env_load(const char *path, struct bb_sim_env **out, char *why, size_t whylen)
{
    static const char *const known[] = {
        "S",  "A",     "d",       "H", "initial_state", "initial_distribution", "phi",
        "mu", "theta", "comment", NULL};
    struct bb_sim_env *e = NULL;
    json_error_t jerr;
    int rc = BB_EINVAL;
    char msg[400] = "";
    *out = NULL;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        if (jerr.line < 0 && jerr.position == 0) {
            if (why && whylen)
                snprintf(why, whylen, "%s: cannot read: %s", path, jerr.text);
            return BB_EIO;
        }
        if (why && whylen)
            snprintf(why, whylen, "%s:%d:%d: not valid JSON: %s", path, jerr.line, jerr.column,
                     jerr.text);
        return BB_EPROTO;
    }
    if (!json_is_object(root)) {
        rc = bb_sim_env_fail(msg, sizeof(msg), "/: the top level must be an object");
        goto out;
    }
    const char *key;
    json_t *val;
    json_object_foreach(root, key, val)
    {
        int ok = 0;
        for (int i = 0; known[i]; i++)
            ok |= strcmp(key, known[i]) == 0;
        if (!ok) {
            rc = bb_sim_env_fail(msg, sizeof(msg), "/%s: unknown field", key);
            goto out;
        }
    }
    int S, A, d, H;
    if ((rc = get_size(root, "S", &S, msg, sizeof(msg))) != BB_OK ||
        (rc = get_size(root, "A", &A, msg, sizeof(msg))) != BB_OK ||
        (rc = get_size(root, "d", &d, msg, sizeof(msg))) != BB_OK ||
        (rc = get_size(root, "H", &H, msg, sizeof(msg))) != BB_OK)
        goto out;
    if ((rc = bb_sim_env_alloc(S, A, d, H, &e)) != BB_OK) {
        if (rc == BB_EINVAL)
            bb_sim_env_fail(msg, sizeof(msg), "/: sizes S=%d A=%d d=%d H=%d are too large", S, A, d, H);
        goto out;
    }
    const char *base = strrchr(path, '/');
    snprintf(e->name, sizeof(e->name), "%s", base ? base + 1 : path);
    const json_t *is = json_object_get(root, "initial_state");
    const json_t *idist = json_object_get(root, "initial_distribution");
    if (!!is == !!idist) {
        rc = bb_sim_env_fail(msg, sizeof(msg),
                  "/: exactly one of initial_state and initial_distribution is required");
        goto out;
    }
    if (is) {
        if (!json_is_integer(is) || json_integer_value(is) < 0 || json_integer_value(is) >= S) {
            rc = bb_sim_env_fail(msg, sizeof(msg), "/initial_state: must be an integer in [0, %d)", S);
            goto out;
        }
        e->init[json_integer_value(is)] = 1.0;
    } else {
        const int sh[1] = {S};
        if ((rc = read_field(root, "initial_distribution", sh, 1, e->init, msg, sizeof(msg))) !=
            BB_OK)
            goto out;
    }
    const int sphi[3] = {S, A, d}, smu[3] = {H, d, S}, sth[2] = {H, d};
    if ((rc = read_field(root, "phi", sphi, 3, e->phi, msg, sizeof(msg))) != BB_OK ||
        (rc = read_field(root, "mu", smu, 3, e->mu, msg, sizeof(msg))) != BB_OK ||
        (rc = read_field(root, "theta", sth, 2, e->theta, msg, sizeof(msg))) != BB_OK)
        goto out;
    if ((rc = bb_sim_env_finish(e, msg, sizeof(msg))) != BB_OK)
        goto out;
    *out = e;
    e = NULL;
    rc = BB_OK;
out:
    if (rc != BB_OK && why && whylen)
        snprintf(why, whylen, "%s: %s", path, msg);
    bb_sim_env_free(e);
    json_decref(root);
    return rc;
}
