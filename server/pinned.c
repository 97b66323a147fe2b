/*
 * pinned.c — the derived parameters a database was created with
 * (pinned.h).
 */
#include "pinned.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One derived number, named as stored. */
struct field {
    char name[48];
    double v;
};

struct fields {
    struct field *f;
    size_t n, cap;
};

static int add(struct fields *fs, const char *name, long idx, double v)
{
    if (fs->n == fs->cap) {
        size_t cap = fs->cap ? 2 * fs->cap : 64;
        struct field *f = realloc(fs->f, cap * sizeof(*f));
        if (!f)
            return BB_ENOMEM;
        fs->f = f;
        fs->cap = cap;
    }
    struct field *f = &fs->f[fs->n++];
    if (idx < 0)
        snprintf(f->name, sizeof(f->name), "%s", name);
    else
        snprintf(f->name, sizeof(f->name), "%s[%ld]", name, idx);
    f->v = v;
    return BB_OK;
}

static int is_tree(const struct bb_params *p)
{
    return p->mechanism == BB_MECH_TREE || p->mechanism == BB_MECH_TREE_HONAKER;
}

/* Every number of p's derivation that the privacy proof (docs/PRIVACY.md)
 * or the noise uses: the scalars bb_params_derive sets, the numbers 'auto'
 * resolved to, each step's sensitivity, noise, grid and prior, and the
 * mechanism's public structure (release points, strategy coefficients,
 * Honaker's weights). The named choices (mechanism, features, bounds) are
 * the stored configuration's (configure.h). */
static int collect(const struct bb_params *p, struct fields *fs)
{
    const struct {
        const char *name;
        double v;
    } scalar[] = {
        {"release_start", p->release_start},
        {"release_base", p->release_base},
        {"shift_scale", p->shift_scale},
        {"is_private", (double)p->is_private},
        {"rho", p->rho},
        {"epsilon", p->epsilon},
        {"delta", p->delta},
        {"rho_gram", p->rho_gram},
        {"rho_y", p->rho_y},
        {"L", (double)p->L},
        {"releases", (double)p->releases},
        {"sens_factor", p->sens_factor},
        {"prefix_sd", p->prefix_sd},
        {"sigma_gram", p->sigma_gram},
        {"grid_gram", p->grid_gram},
        {"sigma_gram_eff", p->sigma_gram_eff},
        {"shift", p->shift},
        {"ridge", p->ridge},
        {"max_updates", (double)p->max_updates},
        {"sigma_y", p->sigma_y},
        {"y_unit", p->y_unit},
        {"grid_y", p->grid_y},
        {"sigma_y_eff", p->sigma_y_eff},
        {"v_floor", p->v_floor},
        {"y_pair", bb_params_y_pair(p)},
        {"y_centre", bb_params_y_centre(p)},
        {"next_bound", (double)bb_params_next_bound(p)},
        {"diagonal_gram", (double)bb_params_diagonal_gram(p)},
        {"plausible_unit", bb_params_plausible_unit(p)},
    };
    int rc = BB_OK;
    for (size_t i = 0; rc == BB_OK && i < sizeof(scalar) / sizeof(scalar[0]); i++)
        rc = add(fs, scalar[i].name, -1, scalar[i].v);
    for (int h = 0; rc == BB_OK && h < p->H; h++) {
        rc = add(fs, "value_cap_step", h, bb_params_value_cap(p, h));
        if (rc == BB_OK)
            rc = add(fs, "y_sensitivity_step", h, bb_params_y_sensitivity(p, h));
        if (rc == BB_OK)
            rc = add(fs, "sigma_y_step", h, bb_params_sigma_y_step(p, h));
        if (rc == BB_OK)
            rc = add(fs, "grid_y_step", h, bb_params_grid_y_step(p, h));
        if (rc == BB_OK)
            rc = add(fs, "sigma_y_drawn_step", h, bb_params_sigma_y_drawn_step(p, h));
        if (rc == BB_OK)
            rc = add(fs, "prior_target_step", h, bb_params_prior_target(p, h));
    }
    /* The reward stream's, where it is in force (a database created before
     * it has none, and derives none). */
    if (rc == BB_OK && bb_params_reward_stream(p))
        rc = add(fs, "rho_rewards", -1, bb_params_rho_reward(p));
    for (int h = 0; rc == BB_OK && bb_params_reward_stream(p) && h < p->H; h++) {
        rc = add(fs, "sigma_reward_step", h, bb_params_sigma_reward(p, h));
        if (rc == BB_OK)
            rc = add(fs, "grid_reward_step", h, bb_params_grid_reward(p, h));
        if (rc == BB_OK)
            rc = add(fs, "sigma_reward_drawn_step", h, bb_params_sigma_reward_drawn(p, h));
    }
    /* The count stream's, where it is in force (tabular rows,
     * docs/PRIVACY.md §2.6). */
    if (rc == BB_OK && bb_params_counts(p))
        rc = add(fs, "rho_counts", -1, bb_params_rho_counts(p));
    if (rc == BB_OK && bb_params_counts(p))
        rc = add(fs, "sigma_counts", -1, bb_params_sigma_counts(p));
    if (rc == BB_OK && bb_params_counts(p))
        rc = add(fs, "grid_counts", -1, bb_params_grid_counts(p));
    if (rc == BB_OK && bb_params_counts(p))
        rc = add(fs, "sigma_counts_drawn", -1, bb_params_sigma_counts_drawn(p));
    /* The warm-up's, where it is in force (docs/PRIVACY.md §2.5). */
    struct bb_params w;
    if (rc == BB_OK && bb_params_warm(p, &w) == BB_OK) {
        const struct {
            const char *name;
            double v;
        } warm[] = {
            {"warm_points", (double)p->warm_points},
            {"rho_warm", p->rho_warm},
            {"warm_rho_gram", w.rho_gram},
            {"warm_sigma_gram_eff", w.sigma_gram_eff},
            {"warm_grid_gram", w.grid_gram},
            {"warm_ridge", w.ridge},
            {"warm_sigma_reward_drawn", bb_params_sigma_reward_drawn(&w, 0)},
            {"warm_grid_reward", bb_params_grid_reward(&w, 0)},
        };
        for (size_t i = 0; rc == BB_OK && i < sizeof(warm) / sizeof(warm[0]); i++)
            rc = add(fs, warm[i].name, -1, warm[i].v);
    }
    if (rc != BB_OK || !p->is_private)
        return rc;
    if (!is_tree(p)) {
        long G = p->releases > 0 ? p->releases : 0;
        long *k = malloc((size_t)(G ? G : 1) * sizeof(*k));
        double *c = malloc((size_t)(G ? G : 1) * sizeof(*c));
        if (!k || !c)
            rc = BB_ENOMEM;
        long n = rc == BB_OK ? bb_release_grid(p->release_start, p->release_base, p->K_max, k, G)
                             : 0;
        for (long j = 0; rc == BB_OK && j < n && j < G; j++)
            rc = add(fs, "release_grid", j, (double)k[j]);
        if (rc == BB_OK && p->mechanism == BB_MECH_GRID_SQRT) {
            bb_sqrt_coefficients(c, G);
            for (long l = 0; rc == BB_OK && l < G; l++)
                rc = add(fs, "sqrt_coefficient", l, c[l]);
        }
        free(k);
        free(c);
    } else if (p->mechanism == BB_MECH_TREE_HONAKER) {
        for (int j = 0; rc == BB_OK && j < p->L; j++)
            rc = add(fs, "honaker_weight", j, bb_honaker_weight(j));
    }
    return rc;
}

/* %.17g reads back as the same double (-0 written as a real: JSON's
 * integer -0 reads back as 0); the strings for the rest. */
static void format(double v, char *out, size_t len)
{
    if (v == 0 && signbit(v))
        snprintf(out, len, "-0.0");
    else if (isnan(v))
        snprintf(out, len, "\"nan\"");
    else if (isinf(v))
        snprintf(out, len, v > 0 ? "\"inf\"" : "\"-inf\"");
    else
        snprintf(out, len, "%.17g", v);
}

char *bb_pinned_dump(const struct bb_params *p)
{
    struct fields fs = {0};
    char *text = NULL;
    size_t len = 0;
    FILE *f = NULL;
    if (collect(p, &fs) != BB_OK || !(f = open_memstream(&text, &len)))
        goto out;
    fputs("{", f);
    for (size_t i = 0; i < fs.n; i++) {
        char v[64];
        format(fs.f[i].v, v, sizeof(v));
        fprintf(f, "%s\n  \"%s\": %s", i ? "," : "", fs.f[i].name, v);
    }
    fputs("\n}\n", f);
    if (fclose(f) != 0) {
        free(text);
        text = NULL;
    }
out:
    free(fs.f);
    return text;
}

/* A stored value as a double: a JSON number, or one of format()'s strings. */
static int stored_value(const json_t *j, double *v)
{
    if (json_is_number(j)) {
        *v = json_number_value(j);
        return 1;
    }
    const char *s = json_string_value(j);
    if (!s)
        return 0;
    if (strcmp(s, "nan") == 0)
        *v = NAN;
    else if (strcmp(s, "inf") == 0)
        *v = INFINITY;
    else if (strcmp(s, "-inf") == 0)
        *v = -INFINITY;
    else
        return 0;
    return 1;
}

/* Bit for bit, so that -0 differs from 0; every NaN is one value. */
static int same(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    uint64_t x, y;
    memcpy(&x, &a, sizeof(x));
    memcpy(&y, &b, sizeof(y));
    return x == y;
}

static void line(FILE *report, int *n, const char *name, const char *stored,
                 const char *derived)
{
    if (report && *n < BB_PINNED_REPORT_MAX)
        fprintf(report, "derived parameter %s: stored %s, this binary derives %s\n", name, stored,
                derived);
    (*n)++;
}

int bb_pinned_diff(const char *stored, const struct bb_params *p, FILE *report)
{
    struct fields fs = {0};
    json_error_t err;
    json_t *o = json_loads(stored, 0, &err);
    int n = 0;
    if (!json_is_object(o)) {
        if (report)
            fprintf(report, "the stored derived parameters are not a JSON object: %s\n",
                    o ? "another JSON value" : err.text);
        n = BB_EINVAL;
        goto out;
    }
    if (collect(p, &fs) != BB_OK) {
        n = BB_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < fs.n; i++) {
        char a[64], b[64];
        double v;
        const json_t *j = json_object_get(o, fs.f[i].name);
        format(fs.f[i].v, b, sizeof(b));
        if (!j) {
            line(report, &n, fs.f[i].name, "nothing", b);
            continue;
        }
        if (!stored_value(j, &v)) {
            char *t = json_dumps(j, JSON_ENCODE_ANY);
            line(report, &n, fs.f[i].name, t ? t : "a value that is not a number", b);
            free(t);
            continue;
        }
        format(v, a, sizeof(a));
        if (!same(v, fs.f[i].v))
            line(report, &n, fs.f[i].name, a, b);
    }
    const char *key;
    json_t *j;
    json_object_foreach(o, key, j) {
        size_t i = 0;
        while (i < fs.n && strcmp(fs.f[i].name, key) != 0)
            i++;
        if (i < fs.n)
            continue;
        char a[64];
        double v;
        if (stored_value(j, &v))
            format(v, a, sizeof(a));
        else
            snprintf(a, sizeof(a), "a value that is not a number");
        line(report, &n, key, a, "nothing");
    }
    if (report && n > BB_PINNED_REPORT_MAX)
        fprintf(report, "... and %d more derived parameters differ\n", n - BB_PINNED_REPORT_MAX);
out:
    json_decref(o);
    free(fs.f);
    return n;
}

int bb_pinned_check(struct bb_db *db, const struct bb_params *p, const char *path)
{
    char *stored = NULL, *now = NULL, *report = NULL;
    size_t len = 0;
    FILE *f = NULL;
    int rc = bb_db_derived_get(db, &stored);
    if (rc == BB_ENOTFOUND) {
        rc = BB_ENOMEM;
        if (!(now = bb_pinned_dump(p)))
            goto out;
        if ((rc = bb_db_derived_put(db, now)) != BB_OK) {
            fprintf(stderr, "billboardd: %s: cannot store the derived parameters\n", path);
            goto out;
        }
        fprintf(stderr,
                "billboardd: %s: stored the derived parameters (created before they were "
                "stored; from now on a binary that derives other ones refuses it)\n",
                path);
        goto out;
    }
    if (rc != BB_OK) {
        fprintf(stderr, "billboardd: %s: cannot read the stored derived parameters\n", path);
        goto out;
    }
    rc = BB_ENOMEM;
    if (!(f = open_memstream(&report, &len)))
        goto out;
    int n = bb_pinned_diff(stored, p, f);
    if (fclose(f) != 0 || n == BB_ENOMEM)
        goto out;
    rc = BB_OK;
    if (n == 0)
        goto out;
    if (n < 0) {
        fprintf(stderr, "billboardd: %s: %s", path, report);
        rc = BB_EIO;
        goto out;
    }
    /* Each line of the report, prefixed, then what to do. */
    for (char *s = report, *e; s && *s; s = e ? e + 1 : NULL) {
        e = strchr(s, '\n');
        fprintf(stderr, "billboardd: %s: %.*s\n", path, e ? (int)(e - s) : (int)strlen(s), s);
    }
    fprintf(stderr,
            "billboardd: %s: this binary would change the noise of an existing deployment: "
            "run the binary that created it, or start a new deployment (docs/DAEMON.md, "
            "\"Upgrades\")\n",
            path);
    rc = BB_ERANGE;
out:
    free(stored);
    free(now);
    free(report);
    return rc;
}
