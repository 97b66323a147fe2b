/*
 * test_codec.c — the wire format: canonical billboard bytes that read back
 * to the same doubles, and episode parsing that tells malformed JSON (400)
 * from a wrong shape or value (422, with the field's JSON pointer).
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "billboard/codec.h"

static void test_billboard_round_trip(void **state)
{
    (void)state;
    struct bb_billboard b, back;
    assert_int_equal(bb_billboard_init(&b, 2, 2, 3), BB_OK);
    b.version = 7, b.episode = 1234, b.beta = 0.1;
    const double vals[] = {0.1, -1.0 / 3, 1e-300, 123456789.123456789, -0.0, 5e-324, 2.5, 1e17};
    for (int i = 0; i < 4; i++)
        b.w[i] = vals[i];
    for (int i = 0; i < 8; i++)
        b.gram[i] = vals[7 - i];
    b.privacy = (struct bb_privacy_summary){INFINITY, INFINITY, 1e-5, 0.25, 3, 31, 1234, 10000};
    size_t len, len2;
    char *js = bb_billboard_to_json(&b, &len);
    assert_non_null(js);
    assert_int_equal(strlen(js), len);
    assert_non_null(strstr(js, "\"rho\":null"));
    assert_int_equal(bb_billboard_from_json(js, len, &back, NULL, 0), BB_OK);
    assert_int_equal(back.version, 7);
    assert_int_equal(back.episode, 1234);
    assert_int_equal(back.A, 3);
    for (int i = 0; i < 4; i++)
        assert_true(back.w[i] == b.w[i]); /* bit-exact, -0 reads as 0 */
    for (int i = 0; i < 8; i++)
        assert_true(back.gram[i] == b.gram[i]);
    assert_true(isinf(back.privacy.rho));
    assert_int_equal(back.privacy.max_updates, 31);
    /* Canonical: re-encoding gives the same bytes. */
    char *js2 = bb_billboard_to_json(&back, &len2);
    assert_int_equal(len, len2);
    assert_memory_equal(js, js2, len);
    free(js2);
    bb_billboard_release(&back);
    /* Truncated or altered input is refused. */
    char why[128];
    assert_int_equal(bb_billboard_from_json(js, len - 1, &back, why, sizeof(why)), BB_EPROTO);
    assert_null(back.w);
    free(js);
    /* Every infinite value is written as null and read back as infinite. */
    b.privacy.rho_spent = INFINITY;
    js = bb_billboard_to_json(&b, &len);
    assert_non_null(strstr(js, "\"rho_spent\":null"));
    assert_int_equal(bb_billboard_from_json(js, len, &back, NULL, 0), BB_OK);
    assert_true(isinf(back.privacy.rho_spent));
    bb_billboard_release(&back);
    free(js);
    const char *bad = "{\"version\":1,\"episode\":0,\"H\":1,\"d\":1,\"A\":1,\"beta\":1,"
                      "\"steps\":[{\"h\":2,\"w\":[0],\"gram\":[[1]]}],\"privacy\":{}}";
    assert_int_equal(bb_billboard_from_json(bad, strlen(bad), &back, why, sizeof(why)),
                     BB_EPROTO);
    bb_billboard_release(&b);
}

static const char *ok_episode =
    "{\"billboard_version\":3,\"steps\":["
    "{\"features\":[[0.6,0.8],[1,0],[0,0]],\"action\":1,\"reward\":0.5},"
    "{\"features\":[[0,1],[0.5,0.5],[0.1,0.2]],\"action\":0,\"reward\":1}]}";

static void test_episode_parse_ok(void **state)
{
    (void)state;
    struct bb_episode_buf e;
    assert_int_equal(bb_episode_from_json(ok_episode, strlen(ok_episode), 2, 3, 2, &e, NULL, 0,
                                          NULL, 0),
                     BB_OK);
    assert_int_equal(e.billboard_version, 3);
    assert_int_equal(e.action[0], 1);
    assert_true(e.features[1] == 0.8 && e.features[(1 * 3 + 2) * 2 + 1] == 0.2);
    assert_true(e.reward[1] == 1.0);
    /* Encoding and parsing again gives the same episode. */
    size_t len;
    char *js = bb_episode_to_json(&e, &len);
    struct bb_episode_buf f;
    assert_int_equal(bb_episode_from_json(js, len, 2, 3, 2, &f, NULL, 0, NULL, 0), BB_OK);
    assert_memory_equal(e.features, f.features, sizeof(double) * 12);
    assert_memory_equal(e.action, f.action, sizeof(int) * 2);
    free(js);
    bb_episode_buf_release(&f);
    bb_episode_buf_release(&e);
}

struct bad_case {
    const char *body;
    int rc;
    const char *field;
};

static void test_episode_errors(void **state)
{
    (void)state;
    const struct bad_case cases[] = {
        /* 400: not JSON at all, duplicate keys, NaN, overflow */
        {"{\"billboard_version\":3,", BB_EPROTO, NULL},
        {"{\"billboard_version\":3,\"billboard_version\":4,\"steps\":[]}", BB_EPROTO, NULL},
        {"{\"billboard_version\":3,\"steps\":[{\"features\":[[NaN,0]]}]}", BB_EPROTO, NULL},
        {"{\"billboard_version\":3,\"steps\":[{\"features\":[[1e999,0]]}]}", BB_EPROTO, NULL},
        {"[1,2]", BB_EPROTO, NULL}, /* not an object: not an episode at all */
        /* 422: shape and values, with pointers */
        {"{\"steps\":[]}", BB_EINVAL, "/billboard_version"},
        {"{\"billboard_version\":-1,\"steps\":[]}", BB_EINVAL, "/billboard_version"},
        {"{\"billboard_version\":1,\"steps\":[],\"extra\":1}", BB_EINVAL, "/extra"},
        {"{\"billboard_version\":1,\"steps\":[]}", BB_EINVAL, "/steps"},
        {"{\"billboard_version\":1,\"steps\":[{\"features\":[[0,0],[0,0],[0,0]],\"action\":0,"
         "\"reward\":0},{\"features\":[[0,0],[0,0]],\"action\":0,\"reward\":0}]}",
         BB_EINVAL, "/steps/1/features"},
        {"{\"billboard_version\":1,\"steps\":[{\"features\":[[0,0],[0,0,0],[0,0]],\"action\":0,"
         "\"reward\":0},{\"features\":[[0,0],[0,0],[0,0]],\"action\":0,\"reward\":0}]}",
         BB_EINVAL, "/steps/0/features/1"},
        {"{\"billboard_version\":1,\"steps\":[{\"features\":[[0,0],[0,\"x\"],[0,0]],\"action\":0,"
         "\"reward\":0},{\"features\":[[0,0],[0,0],[0,0]],\"action\":0,\"reward\":0}]}",
         BB_EINVAL, "/steps/0/features/1/1"},
        {"{\"billboard_version\":1,\"steps\":[{\"features\":[[0,0],[0,0],[0.8,0.7]],\"action\":0,"
         "\"reward\":0},{\"features\":[[0,0],[0,0],[0,0]],\"action\":0,\"reward\":0}]}",
         BB_EINVAL, "/steps/0/features/2"},
        {"{\"billboard_version\":1,\"steps\":[{\"features\":[[0,0],[0,0],[0,0]],\"action\":3,"
         "\"reward\":0},{\"features\":[[0,0],[0,0],[0,0]],\"action\":0,\"reward\":0}]}",
         BB_EINVAL, "/steps/0/action"},
        {"{\"billboard_version\":1,\"steps\":[{\"features\":[[0,0],[0,0],[0,0]],\"action\":0.5,"
         "\"reward\":0},{\"features\":[[0,0],[0,0],[0,0]],\"action\":0,\"reward\":0}]}",
         BB_EINVAL, "/steps/0/action"},
        {"{\"billboard_version\":1,\"steps\":[{\"features\":[[0,0],[0,0],[0,0]],\"action\":0,"
         "\"reward\":0},{\"features\":[[0,0],[0,0],[0,0]],\"action\":0,\"reward\":1.5}]}",
         BB_EINVAL, "/steps/1/reward"},
        {"{\"billboard_version\":1,\"steps\":[{\"features\":[[0,0],[0,0],[0,0]],\"action\":0},"
         "{\"features\":[[0,0],[0,0],[0,0]],\"action\":0,\"reward\":1}]}",
         BB_EINVAL, "/steps/0/reward"},
        {"{\"billboard_version\":1,\"steps\":[{\"features\":[[0,0],[0,0],[0,0]],\"action\":0,"
         "\"reward\":0,\"note\":1},{\"features\":[[0,0],[0,0],[0,0]],\"action\":0,\"reward\":1}]}",
         BB_EINVAL, "/steps/0/note"},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        struct bb_episode_buf e;
        char field[64] = "unset", why[200] = "";
        int rc = bb_episode_from_json(cases[c].body, strlen(cases[c].body), 2, 3, 2, &e, field,
                                      sizeof(field), why, sizeof(why));
        if (rc != cases[c].rc)
            fail_msg("case %zu: rc %d, want %d (%s)", c, rc, cases[c].rc, why);
        if (cases[c].field && strcmp(field, cases[c].field) != 0)
            fail_msg("case %zu: field '%s', want '%s'", c, field, cases[c].field);
        assert_true(strlen(why) > 0);
        bb_episode_buf_release(&e);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_billboard_round_trip),
        cmocka_unit_test(test_episode_parse_ok),
        cmocka_unit_test(test_episode_errors),
    };
    return cmocka_run_group_tests_name("codec", tests, NULL, NULL);
}
