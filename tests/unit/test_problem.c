/*
 * test_problem.c — the one mapping from error to HTTP status, and the
 * RFC 9457 body it renders.
 */
#include "testutil.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "billboard/problem.h"
#include "problem.h"

static void test_status_table(void **state)
{
    (void)state;
    static const struct {
        int err;
        unsigned status;
    } want[] = {
        {BB_OK, 200},          {BB_EPROTO, 400},    {BBD_EHEADER, 400},   {BB_EAUTH, 401},
        {BBD_EFORBIDDEN, 403}, {BBD_EHEADERS, 431}, {BB_ENOTFOUND, 404},  {BBD_ENOROUTE, 404},
        {BBD_EMETHOD, 405},    {BB_EFULL, 409},     {BBD_EKEYREUSE, 409}, {BB_ECONFLICT, 409},
        {BB_ECAP, 409},        {BBD_ETOOBIG, 413},  {BBD_EMEDIA, 415},    {BB_EINVAL, 422},
        {BB_ERANGE, 422},      {BB_EIO, 503},       {BB_ENOMEM, 503},     {BBD_EUNAVAIL, 503},
        {BB_ELINALG, 500},     {BB_ENOTPD, 500},    {-9999, 500},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        if (bb_problem_status(want[i].err) != want[i].status)
            fail_msg("error %d -> %u, want %u", want[i].err, bb_problem_status(want[i].err),
                     want[i].status);
    }
}

static void test_body(void **state)
{
    (void)state;
    size_t len = 0;
    char *s =
        bb_problem_json(BB_EINVAL, "feature row has L2 norm above 1", "/steps/0/features/1", &len);
    assert_non_null(s);
    assert_int_equal(strlen(s), len);
    json_error_t e;
    json_t *o = json_loads(s, JSON_REJECT_DUPLICATES, &e);
    assert_non_null(o);
    assert_int_equal(json_integer_value(json_object_get(o, "status")), 422);
    assert_string_equal(json_string_value(json_object_get(o, "pointer")), "/steps/0/features/1");
    assert_string_equal(json_string_value(json_object_get(o, "detail")),
                        "feature row has L2 norm above 1");
    assert_non_null(json_string_value(json_object_get(o, "type")));
    assert_non_null(json_string_value(json_object_get(o, "title")));
    json_decref(o);
    free(s);
    /* Without detail and pointer, neither member appears. */
    s = bb_problem_json(BBD_ETOOBIG, NULL, NULL, &len);
    o = json_loads(s, 0, &e);
    assert_null(json_object_get(o, "detail"));
    assert_null(json_object_get(o, "pointer"));
    assert_int_equal(json_integer_value(json_object_get(o, "status")), 413);
    json_decref(o);
    free(s);
}

/* The type URI of each error is the shared constant the client decides on
 * (billboard/problem.h); only 503s say when to come back. */
static void test_types_and_retry_after(void **state)
{
    (void)state;
    static const struct {
        int err;
        const char *type;
        unsigned after;
    } want[] = {
        {BB_EPROTO, BB_PROBLEM_MALFORMED, 0},
        {BBD_EHEADER, BB_PROBLEM_BAD_HEADER, 0},
        {BB_EAUTH, BB_PROBLEM_UNAUTHORIZED, 0},
        {BBD_EFORBIDDEN, BB_PROBLEM_FORBIDDEN, 0},
        {BB_ENOTFOUND, BB_PROBLEM_NOT_FOUND, 0},
        {BBD_EMETHOD, BB_PROBLEM_METHOD_NOT_ALLOWED, 0},
        {BB_EFULL, BB_PROBLEM_EPISODE_BUDGET, 0},
        {BB_ECAP, BB_PROBLEM_UPDATE_CAP, 0},
        {BB_ECONFLICT, BB_PROBLEM_CONFLICT, 0},
        {BBD_EKEYREUSE, BB_PROBLEM_KEY_REUSED, 0},
        {BBD_ETOOBIG, BB_PROBLEM_BODY_TOO_LARGE, 0},
        {BBD_EMEDIA, BB_PROBLEM_MEDIA_TYPE, 0},
        {BB_EINVAL, BB_PROBLEM_VALIDATION, 0},
        {BBD_EHEADERS, BB_PROBLEM_HEADERS_TOO_LARGE, 0},
        {BB_ENOTPD, BB_PROBLEM_INTERNAL, 0},
        {BB_ENOMEM, BB_PROBLEM_OVERLOADED, 1},
        {BB_EIO, BB_PROBLEM_STORAGE, 5},
        {BBD_EUNAVAIL, BB_PROBLEM_UNAVAILABLE, 5},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        size_t len = 0;
        char *s = bb_problem_json(want[i].err, NULL, NULL, &len);
        assert_non_null(s);
        json_t *o = json_loads(s, 0, NULL);
        assert_non_null(o);
        assert_string_equal(json_string_value(json_object_get(o, "type")), want[i].type);
        json_decref(o);
        free(s);
        assert_int_equal(bb_problem_retry_after(want[i].err), want[i].after);
        assert_true(bb_problem_status(want[i].err) == 503 || want[i].after == 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_table),
        cmocka_unit_test(test_body),
        cmocka_unit_test(test_types_and_retry_after),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
