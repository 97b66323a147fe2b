/*
 * test_pinned.c — the derived parameters a database was created with:
 * the stored form reads back bit for bit for every mechanism and a
 * non-private run; the comparison names every field that differs (one
 * ulp, -0 against 0, a field missing or extra) with both values; a text
 * that is not the stored form is refused; bb_pinned_check on a real file
 * stores them once, then accepts the same and refuses another derivation.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"
#include "pinned.h"

static void derive(struct bb_params *p, enum bb_mechanism m, double rho)
{
    char why[256];
    bb_params_defaults(p);
    p->H = 5;
    p->d = 8;
    p->A = 4;
    p->K_max = 100000;
    p->rho = rho;
    p->mechanism = m;
    p->features = BB_FEATURES_SIMPLEX;
    assert_int_equal(bb_params_derive(p, why, sizeof(why)), BB_OK);
}

/* diff's report as a string (caller frees) and its return value. */
static char *diff(const char *stored, const struct bb_params *p, int *n)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_non_null(f);
    *n = bb_pinned_diff(stored, p, f);
    fclose(f);
    return out;
}

/* text with the first occurrence of from replaced by to (caller frees). */
static char *replace(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    assert_non_null(at);
    size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
    char *s = malloc(n);
    assert_non_null(s);
    snprintf(s, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return s;
}

static void test_round_trip(void **state)
{
    (void)state;
    const enum bb_mechanism mech[] = {BB_MECH_TREE, BB_MECH_TREE_HONAKER, BB_MECH_GRID,
                                      BB_MECH_GRID_SQRT};
    for (size_t i = 0; i < 5; i++) {
        struct bb_params p;
        derive(&p, i < 4 ? mech[i] : BB_MECH_AUTO, i < 4 ? 1.0 : INFINITY);
        char *text = bb_pinned_dump(&p);
        assert_non_null(text);
        int n;
        char *report = diff(text, &p, &n);
        assert_int_equal(n, 0);
        assert_string_equal(report, "");
        if (i == 4) /* non-private: the budget stored as "inf" */
            assert_non_null(strstr(text, "\"rho\": \"inf\""));
        if (mech[i % 4] == BB_MECH_GRID_SQRT && i < 4)
            assert_non_null(strstr(text, "\"sqrt_coefficient[2]\": 0.375,"));
        if (mech[i % 4] == BB_MECH_TREE_HONAKER && i < 4)
            assert_non_null(strstr(text, "\"honaker_weight[0]\": 1,"));
        free(report);
        free(text);
    }
}

static void test_one_field(void **state)
{
    (void)state;
    struct bb_params p;
    derive(&p, BB_MECH_GRID_SQRT, 1.0);
    char *text = bb_pinned_dump(&p);
    char from[80], to[80], want[256], b[32], a[32];
    /* One ulp up: bit for bit, not to a tolerance. */
    snprintf(b, sizeof(b), "%.17g", p.sigma_gram);
    snprintf(a, sizeof(a), "%.17g", nextafter(p.sigma_gram, INFINITY));
    snprintf(from, sizeof(from), "\"sigma_gram\": %s,", b);
    snprintf(to, sizeof(to), "\"sigma_gram\": %s,", a);
    char *edited = replace(text, from, to);
    int n;
    char *report = diff(edited, &p, &n);
    assert_int_equal(n, 1);
    snprintf(want, sizeof(want),
             "derived parameter sigma_gram: stored %s, this binary derives %s\n", a, b);
    assert_string_equal(report, want);
    free(report);
    free(edited);

    /* A step's noise, and 0 against -0. */
    snprintf(b, sizeof(b), "%.17g", bb_params_sigma_y_step(&p, 3));
    snprintf(from, sizeof(from), "\"sigma_y_step[3]\": %s,", b);
    edited = replace(text, from, "\"sigma_y_step[3]\": 2.5,");
    char *edited2 = replace(edited, "\"v_floor\": 0,", "\"v_floor\": -0.0,");
    report = diff(edited2, &p, &n);
    assert_int_equal(n, 2);
    assert_non_null(strstr(report, "derived parameter v_floor: stored -0.0, this binary derives 0\n"));
    snprintf(want, sizeof(want),
             "derived parameter sigma_y_step[3]: stored 2.5, this binary derives %s\n", b);
    assert_non_null(strstr(report, want));
    free(report);
    free(edited);
    free(edited2);

    /* A field missing, one this binary does not derive. */
    snprintf(b, sizeof(b), "%.17g", p.ridge);
    snprintf(from, sizeof(from), "\"ridge\": %s,", b);
    edited = replace(text, from, "\"ridge_v2\": 7,");
    report = diff(edited, &p, &n);
    assert_int_equal(n, 2);
    snprintf(want, sizeof(want), "derived parameter ridge: stored nothing, this binary derives %s\n",
             b);
    assert_non_null(strstr(report, want));
    assert_non_null(
        strstr(report, "derived parameter ridge_v2: stored 7, this binary derives nothing\n"));
    free(report);
    free(edited);
    free(text);
}

static void test_another_derivation(void **state)
{
    (void)state;
    struct bb_params p, q;
    derive(&p, BB_MECH_GRID_SQRT, 1.0);
    derive(&q, BB_MECH_GRID_SQRT, 0.5);
    char *text = bb_pinned_dump(&p);
    int n;
    char *report = diff(text, &q, &n);
    assert_true(n > 10);
    assert_non_null(strstr(report, "derived parameter rho: stored 1, this binary derives 0.5\n"));
    /* The report is capped, and says how many more. */
    size_t lines = 0;
    for (const char *s = report; (s = strchr(s, '\n')); s++)
        lines++;
    assert_true(lines <= BB_PINNED_REPORT_MAX + 1);
    if (n > BB_PINNED_REPORT_MAX)
        assert_non_null(strstr(report, "more derived parameters differ"));
    free(report);
    free(text);
    /* Not the stored form. */
    for (int i = 0; i < 3; i++) {
        const char *bad[] = {"", "[1, 2]", "{\"sigma_gram\": "};
        report = diff(bad[i], &p, &n);
        assert_int_equal(n, BB_EINVAL);
        free(report);
    }
    /* A value that is not a number is a difference, not a crash. */
    text = bb_pinned_dump(&p);
    char from[80], b[32];
    snprintf(b, sizeof(b), "%.17g", p.shift);
    snprintf(from, sizeof(from), "\"shift\": %s,", b);
    char *edited = replace(text, from, "\"shift\": [1],");
    report = diff(edited, &p, &n);
    assert_int_equal(n, 1);
    assert_non_null(strstr(report, "derived parameter shift: stored [1], this binary derives"));
    free(report);
    free(edited);
    free(text);
}

static void test_check(void **state)
{
    (void)state;
    char dir[] = "/tmp/bb_test_pinned_XXXXXX", path[64], why[256], cmd[96];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/t.db", dir);
    struct bb_db *db = NULL;
    assert_int_equal(bb_db_open(path, 0, &db, why, sizeof(why)), BB_OK);
    struct bb_params p, q;
    derive(&p, BB_MECH_GRID, 1.0);
    derive(&q, BB_MECH_GRID, 2.0);
    char *stored = NULL;
    assert_int_equal(bb_db_derived_get(db, &stored), BB_ENOTFOUND);
    assert_int_equal(bb_pinned_check(db, &p, path), BB_OK); /* stored now */
    assert_int_equal(bb_db_derived_get(db, &stored), BB_OK);
    char *text = bb_pinned_dump(&p);
    assert_string_equal(stored, text);
    free(stored);
    free(text);
    assert_int_equal(bb_pinned_check(db, &p, path), BB_OK);
    assert_int_equal(bb_pinned_check(db, &q, path), BB_ERANGE);
    assert_int_equal(bb_db_derived_put(db, "not json"), BB_OK);
    assert_int_equal(bb_pinned_check(db, &p, path), BB_EIO);
    bb_db_close(db);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_one_field),
        cmocka_unit_test(test_another_derivation),
        cmocka_unit_test(test_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
