/*
 * test_codec.c — the wire format: canonical billboard bytes that read back
 * to the same doubles, and episode parsing that tells malformed JSON (400)
 * from a wrong shape or value (422, with the field's JSON pointer).
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "billboard/clinic.h"
#include "billboard/codec.h"
#include "billboard/config_info.h"

/* b's encoding holds want, decodes into *back (the caller releases it) with
 * b's sigma_y, and encodes back to the same bytes. */
static void round_trip(const struct bb_billboard *b, const char *want, struct bb_billboard *back)
{
    size_t len, len2;
    char *js = bb_billboard_to_json(b, &len);
    assert_non_null(strstr(js, want));
    assert_int_equal(bb_billboard_from_json(js, len, back, NULL, 0), BB_OK);
    for (int h = 0; h < b->H; h++)
        assert_true(back->sigma_y[h] == b->sigma_y[h]);
    char *js2 = bb_billboard_to_json(back, &len2);
    assert_int_equal(len, len2);
    assert_memory_equal(js, js2, len);
    free(js2);
    free(js);
}

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
    b.privacy = (struct bb_privacy_summary){INFINITY, INFINITY, 1e-5, 0.25, 3, 31, 1234, 10000, 0, 0};
    size_t len, len2;
    char *js = bb_billboard_to_json(&b, &len), *js2;
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
    assert_int_equal(back.uniform, 0);
    assert_non_null(strstr(js, "\"uniform\":false"));
    /* Canonical: re-encoding gives the same bytes. */
    js2 = bb_billboard_to_json(&back, &len2);
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
    /* The uniform flag travels; a billboard without it (before the flag
     * existed) reads as greedy; anything but a boolean is refused. */
    b.uniform = 1;
    js = bb_billboard_to_json(&b, &len);
    assert_non_null(strstr(js, "\"uniform\":true"));
    assert_int_equal(bb_billboard_from_json(js, len, &back, NULL, 0), BB_OK);
    assert_int_equal(back.uniform, 1);
    bb_billboard_release(&back);
    char *at = strstr(js, ",\"uniform\":true");
    memmove(at, at + strlen(",\"uniform\":true"), strlen(at + strlen(",\"uniform\":true")) + 1);
    assert_int_equal(bb_billboard_from_json(js, strlen(js), &back, NULL, 0), BB_OK);
    assert_int_equal(back.uniform, 0);
    bb_billboard_release(&back);
    free(js);
    b.uniform = 0;
    const char *notbool = "{\"version\":0,\"episode\":0,\"H\":1,\"d\":1,\"A\":1,\"beta\":1,"
                          "\"uniform\":1,\"steps\":[{\"h\":1,\"w\":[0],\"gram\":[[1]]}],"
                          "\"privacy\":{\"rho\":1,\"epsilon\":1,\"delta\":1e-5,\"rho_spent\":0,"
                          "\"updates\":0,\"max_updates\":1,\"episodes\":0,\"max_episodes\":1}}";
    assert_int_equal(bb_billboard_from_json(notbool, strlen(notbool), &back, why, sizeof(why)),
                     BB_EPROTO);
    assert_non_null(strstr(why, "uniform"));
    /* The plausible set's z and each step's sigma_y travel only when z > 0
     * (above: neither key, so every billboard without the set encodes as
     * before it existed), bit-exact and canonical; absent, both read as 0;
     * negative or non-numeric values are refused. */
    js = bb_billboard_to_json(&b, &len);
    assert_null(strstr(js, "plausible_z"));
    assert_null(strstr(js, "sigma_y"));
    free(js);
    b.plausible_z = 1.5;
    b.plausible_floor = 0.25;
    b.sigma_y[0] = 152.11790855773964;
    b.sigma_y[1] = 1.0 / 3;
    round_trip(&b, "\"plausible_z\":1.5,\"plausible_floor\":0.25,\"steps\":[{\"h\":1,\"sigma_y\":152.11790855773964,\"w\":", &back);
    assert_true(back.plausible_z == 1.5 && back.plausible_floor == 0.25 && back.sample == 0);
    bb_billboard_release(&back);
    b.plausible_z = 0;
    b.plausible_floor = 0;
    /* The sample: "explore":"sample", and sigma_y with it; absent, 0. */
    b.sample = 1;
    round_trip(&b, "\"explore\":\"sample\",\"steps\":[{\"h\":1,\"sigma_y\":152.11790855773964,\"w\":", &back);
    assert_true(back.sample == 1 && back.plausible_z == 0);
    bb_billboard_release(&back);
    b.sample = 0;
    js = bb_billboard_to_json(&b, &len);
    assert_null(strstr(js, "explore"));
    assert_int_equal(bb_billboard_from_json(js, len, &back, NULL, 0), BB_OK);
    assert_int_equal(back.sample, 0);
    bb_billboard_release(&back);
    free(js);
    for (int i = 0; i < 3; i++) {
        static const char *const value[] = {"\"sampled\"", "1", "true"};
        char other[512];
        snprintf(other, sizeof(other),
                 "{\"version\":0,\"episode\":0,\"H\":1,\"d\":1,\"A\":1,\"beta\":1,"
                 "\"explore\":%s,\"steps\":[{\"h\":1,\"w\":[0],\"gram\":[[1]]}],"
                 "\"privacy\":{\"rho\":1,\"epsilon\":1,\"delta\":1e-5,\"rho_spent\":0,"
                 "\"updates\":0,\"max_updates\":1,\"episodes\":0,\"max_episodes\":1}}",
                 value[i]);
        assert_int_equal(bb_billboard_from_json(other, strlen(other), &back, why, sizeof(why)),
                         BB_EPROTO);
        assert_non_null(strstr(why, "explore"));
    }
    const char *negz = "{\"version\":0,\"episode\":0,\"H\":1,\"d\":1,\"A\":1,\"beta\":1,"
                       "\"plausible_z\":-1,\"steps\":[{\"h\":1,\"w\":[0],\"gram\":[[1]]}],"
                       "\"privacy\":{\"rho\":1,\"epsilon\":1,\"delta\":1e-5,\"rho_spent\":0,"
                       "\"updates\":0,\"max_updates\":1,\"episodes\":0,\"max_episodes\":1}}";
    assert_int_equal(bb_billboard_from_json(negz, strlen(negz), &back, why, sizeof(why)),
                     BB_EPROTO);
    assert_non_null(strstr(why, "plausible_z"));
    const char *strsig = "{\"version\":0,\"episode\":0,\"H\":1,\"d\":1,\"A\":1,\"beta\":1,"
                         "\"plausible_z\":1,\"steps\":[{\"h\":1,\"sigma_y\":\"2\",\"w\":[0],"
                         "\"gram\":[[1]]}],\"privacy\":{\"rho\":1,\"epsilon\":1,\"delta\":1e-5,"
                         "\"rho_spent\":0,\"updates\":0,\"max_updates\":1,\"episodes\":0,"
                         "\"max_episodes\":1}}";
    assert_int_equal(bb_billboard_from_json(strsig, strlen(strsig), &back, why, sizeof(why)),
                     BB_EPROTO);
    assert_non_null(strstr(why, "sigma_y"));
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

static void test_receipt(void **state)
{
    (void)state;
    struct bb_receipt r = {12, 3}, back = {0};
    size_t len = 0;
    char *s = bb_receipt_to_json(&r, &len);
    assert_non_null(s);
    assert_string_equal(s, "{\"episode\":12,\"billboard_version\":3}");
    assert_int_equal(len, strlen(s));
    assert_int_equal(bb_receipt_from_json(s, len, &back, NULL, 0), BB_OK);
    assert_true(back.episode == 12 && back.billboard_version == 3);
    free(s);
    const char *old = "{\"episode\":7}";
    assert_int_equal(bb_receipt_from_json(old, strlen(old), &back, NULL, 0), BB_OK);
    assert_true(back.episode == 7 && back.billboard_version == UINT64_MAX);
    const char *bad[] = {"{\"billboard_version\":1}", "{\"episode\":-1}", "[1]", "{", NULL};
    for (int i = 0; bad[i]; i++)
        assert_int_equal(bb_receipt_from_json(bad[i], strlen(bad[i]), &back, NULL, 0), BB_EPROTO);
}

static void test_recommend_request(void **state)
{
    (void)state;
    const double f[] = {0.6, 0.0, 0.0, -0.5};
    size_t len = 0;
    char *s = bb_recommend_req_to_json(2, f, 2, 2, 4, &len);
    assert_non_null(s);
    struct bb_recommend_req q = {0};
    char field[64], why[200];
    assert_int_equal(
        bb_recommend_req_from_json(s, len, 3, 2, 2, &q, field, sizeof(field), why, sizeof(why)),
        BB_OK);
    assert_int_equal(q.h, 2);
    assert_int_equal(q.version, 4);
    assert_memory_equal(q.features, f, sizeof(f));
    bb_recommend_req_release(&q);
    free(s);
    s = bb_recommend_req_to_json(1, f, 2, 2, -1, &len);
    assert_null(strstr(s, "billboard_version"));
    assert_int_equal(bb_recommend_req_from_json(s, len, 3, 2, 2, &q, NULL, 0, NULL, 0), BB_OK);
    assert_int_equal(q.version, -1);
    assert_null(q.episode_key);
    bb_recommend_req_release(&q);
    free(s);
    /* The episode key round-trips; absent and null read as NULL. */
    s = bb_recommend_req_to_json_episode(1, f, 2, 2, -1, "ab-17", &len);
    assert_int_equal(bb_recommend_req_from_json(s, len, 3, 2, 2, &q, NULL, 0, NULL, 0), BB_OK);
    assert_string_equal(q.episode_key, "ab-17");
    bb_recommend_req_release(&q);
    assert_null(q.episode_key);
    free(s);
    const char *null_key = "{\"h\":1,\"episode_key\":null,\"features\":[[0,0],[0,0]]}";
    assert_int_equal(
        bb_recommend_req_from_json(null_key, strlen(null_key), 3, 2, 2, &q, NULL, 0, NULL, 0),
        BB_OK);
    assert_null(q.episode_key);
    bb_recommend_req_release(&q);

    /* Each error names its field, as the daemon answers it. */
    static const struct {
        const char *body;
        int rc;
        const char *field, *why;
    } cases[] = {
        {"nope", BB_EPROTO, "", "invalid JSON"},
        {"[]", BB_EPROTO, "", "the body must be a JSON object"},
        {"{\"h\":4,\"features\":[[0,0],[0,0]]}", BB_EINVAL, "/h",
         "h must be an integer step in [1, 3]"},
        {"{\"h\":1,\"billboard_version\":-1,\"features\":[[0,0],[0,0]]}", BB_EINVAL,
         "/billboard_version", "billboard_version must be a non-negative integer"},
        {"{\"h\":1,\"billboard_version\":null,\"features\":[[0,0]]}", BB_EINVAL, "/features",
         "features must be an array of 2 rows"},
        {"{\"h\":1,\"features\":[[0,0],[0]]}", BB_EINVAL, "/features/1",
         "each feature row must have 2 numbers"},
        {"{\"h\":1,\"features\":[[0,0],[0,\"x\"]]}", BB_EINVAL, "/features/1/1",
         "feature values must be finite numbers"},
        {"{\"h\":1,\"features\":[[0.8,0.8],[0,0]]}", BB_EINVAL, "/features/0",
         "feature row has L2 norm above 1"},
        {"{\"h\":1,\"episode_key\":\"\",\"features\":[[0,0],[0,0]]}", BB_EINVAL,
         "/episode_key", "episode_key must be 1 to 128 visible ASCII characters"},
        {"{\"h\":1,\"episode_key\":\"a b\",\"features\":[[0,0],[0,0]]}", BB_EINVAL,
         "/episode_key", "episode_key must be 1 to 128 visible ASCII characters"},
        {"{\"h\":1,\"episode_key\":17,\"features\":[[0,0],[0,0]]}", BB_EINVAL,
         "/episode_key", "episode_key must be 1 to 128 visible ASCII characters"},
        {"{\"h\":1,\"episode_key\":\"k\\u00e9y\",\"features\":[[0,0],[0,0]]}", BB_EINVAL,
         "/episode_key", "episode_key must be 1 to 128 visible ASCII characters"},
        {"{\"h\":1,\"episode_key\":\"a\\u0000b\",\"features\":[[0,0],[0,0]]}", BB_EPROTO,
         "", "invalid JSON"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct bb_recommend_req e = {0};
        field[0] = why[0] = '\0';
        assert_int_equal(bb_recommend_req_from_json(cases[i].body, strlen(cases[i].body), 3, 2, 2,
                                                    &e, field, sizeof(field), why, sizeof(why)),
                         cases[i].rc);
        assert_string_equal(field, cases[i].field);
        assert_non_null(strstr(why, cases[i].why));
        bb_recommend_req_release(&e);
    }
}

static void test_recommend_response(void **state)
{
    (void)state;
    const double q[] = {0.25, 1.0 / 3.0, 2.0};
    size_t len = 0;
    char *s = bb_recommend_resp_to_json(2, q, 3, 5, &len);
    assert_non_null(s);
    assert_string_equal(s, "{\"action\":2,\"q\":[0.25,0.33333333333333331,2.0],"
                           "\"billboard_version\":5}");
    double back[3];
    int action = -1;
    uint64_t v = 0;
    assert_int_equal(bb_recommend_resp_from_json(s, len, 3, &action, back, &v, NULL, 0), BB_OK);
    assert_int_equal(action, 2);
    assert_memory_equal(back, q, sizeof(q));
    assert_true(v == 5);
    assert_int_equal(bb_recommend_resp_from_json(s, len, 2, &action, back, &v, NULL, 0),
                     BB_EPROTO); /* action out of range for A = 2 */
    free(s);
}

static void test_privacy_budget(void **state)
{
    (void)state;
    struct bb_privacy_budget p =
                                 {
                                     .is_private = 0,
                                     .rho = INFINITY,
                                     .epsilon = INFINITY,
                                     .delta = 1e-5,
                                     .rho_spent = 0.5,
                                     .rho_remaining = INFINITY,
                                     .gram = {INFINITY, 0.25, INFINITY},
                                     .y = {INFINITY, 0.25, INFINITY},
                                     .updates = 2,
                                     .max_updates = 10,
                                     .episodes = 40,
                                     .max_episodes = 64,
                                     .billboard_version = 2,
                                 },
                             back = {0};
    size_t len = 0;
    char *s = bb_privacy_budget_to_json(&p, &len);
    assert_non_null(s);
    assert_string_equal(
        s, "{\"private\":false,\"rho\":null,\"epsilon\":null,\"delta\":1.0000000000000001e-5,"
           "\"rho_spent\":0.5,\"rho_remaining\":null,\"gram\":{\"rho\":null,\"spent\":0.25,"
           "\"remaining\":null},\"y\":{\"rho\":null,\"spent\":0.25,\"remaining\":null},"
           "\"updates\":2,\"max_updates\":10,\"episodes\":40,\"max_episodes\":64,"
           "\"billboard_version\":2}");
    assert_int_equal(bb_privacy_budget_from_json(s, len, &back, NULL, 0), BB_OK);
    assert_int_equal(back.is_private, 0);
    assert_true(isinf(back.rho) && isinf(back.epsilon) && isinf(back.rho_remaining));
    assert_true(back.delta == 1e-5 && back.rho_spent == 0.5);
    assert_true(isinf(back.gram.rho) && back.gram.spent == 0.25 && isinf(back.y.remaining));
    assert_true(back.updates == 2 && back.max_updates == 10 && back.episodes == 40 &&
                back.max_episodes == 64 && back.billboard_version == 2);
    free(s);
    const char *bad = "{\"private\":true}";
    assert_int_equal(bb_privacy_budget_from_json(bad, strlen(bad), &back, NULL, 0), BB_EPROTO);

    /* A share that names its mechanism round-trips it. */
    snprintf(p.gram.mechanism, sizeof(p.gram.mechanism), "grid-sqrt");
    p.gram.sigma = 4.5, p.gram.releases = 29;
    snprintf(p.gram.detail, sizeof(p.gram.detail), "g=1.5 k0=1");
    s = bb_privacy_budget_to_json(&p, &len);
    assert_non_null(s);
    assert_non_null(strstr(s, "\"gram\":{\"rho\":null,\"spent\":0.25,\"remaining\":null,"
                              "\"mechanism\":\"grid-sqrt\",\"sigma\":4.5,\"releases\":29,"
                              "\"parameters\":\"g=1.5 k0=1\"}"));
    assert_int_equal(bb_privacy_budget_from_json(s, len, &back, NULL, 0), BB_OK);
    assert_string_equal(back.gram.mechanism, "grid-sqrt");
    assert_true(back.gram.sigma == 4.5 && back.gram.releases == 29);
    assert_string_equal(back.gram.detail, "g=1.5 k0=1");
    assert_string_equal(back.y.mechanism, "");
    free(s);
}

/* The configuration reads back to the same bytes: every field survives,
 * infinities are null, reals keep jansson's spelling ("2.0"). */
static void test_config_info(void **state)
{
    (void)state;
    double sy[2] = {0.5, 0.25}, prior[2] = {1, 2};
    struct bb_config_info c = {.H = 2, .d = 3, .A = 4, .K_max = 100, .rho = INFINITY,
                               .epsilon = INFINITY, .epsilon_cks = INFINITY,
                               .epsilon_bun_steinke = INFINITY, .rho_gram = INFINITY,
                               .rho_y = INFINITY, .delta = 1e-5, .release_start = 2,
                               .sigma_y_drawn_step = sy, .prior_target_step = prior},
                          back = {0};
    snprintf(c.mechanism, sizeof(c.mechanism), "grid-sqrt");
    size_t len = 0, len2 = 0;
    char *s = bb_config_info_to_json(&c, 0, &len);
    assert_non_null(s);
    assert_non_null(strstr(s, "{\"H\":2,\"d\":3,\"A\":4,\"K_max\":100,\"private\":false,"));
    assert_non_null(strstr(s, "\"release_start\":2.0,"));
    assert_non_null(strstr(s, "\"rho\":null,\"epsilon\":null,"));
    assert_non_null(strstr(s, "\"sigma_y_drawn_step\":[0.5,0.25],"));
    assert_int_equal(bb_config_info_from_json(s, len, &back, NULL, 0), BB_OK);
    assert_true(isinf(back.rho) && back.H == 2 && back.prior_target_step[1] == 2);
    assert_string_equal(back.mechanism, "grid-sqrt");
    char *again = bb_config_info_to_json(&back, 0, &len2);
    assert_non_null(again);
    assert_string_equal(again, s);
    assert_null(strstr(s, "sigma_reward_drawn_step")); /* an older daemon's: none */
    bb_config_info_release(&back);
    free(again);
    free(s);
    /* The reward stream's sds, where they are, read back too. */
    double rs[2] = {0.125, 3};
    c.sigma_reward_drawn_step = rs;
    s = bb_config_info_to_json(&c, 0, &len);
    assert_non_null(s);
    assert_non_null(strstr(s, "\"sigma_reward_drawn_step\":[0.125,3.0]"));
    assert_int_equal(bb_config_info_from_json(s, len, &back, NULL, 0), BB_OK);
    assert_true(back.sigma_reward_drawn_step && back.sigma_reward_drawn_step[1] == 3);
    bb_config_info_release(&back);
    free(s);
    /* H, d and A are needed; a field of the wrong type is refused. */
    char why[128];
    static const char *const bad[] = {"{\"d\":1,\"A\":1}", "{\"H\":1,\"d\":1,\"A\":1,\"rho\":\"x\"}",
                                      "{\"H\":1,\"d\":1,\"A\":1,\"sigma_y_drawn_step\":[1,2]}",
                                      "[1]", NULL};
    for (int i = 0; bad[i]; i++) {
        assert_int_equal(bb_config_info_from_json(bad[i], strlen(bad[i]), &back, why, sizeof(why)),
                         BB_EPROTO);
        bb_config_info_release(&back);
    }
}

static void test_clinics(void **state)
{
    (void)state;
    struct bb_clinic a = {.id = 1, .created = 1700000000, .revoked = 1700000100},
                     b = {.id = 2, .created = 1700000200}, e;
    snprintf(a.name, sizeof(a.name), "North");
    snprintf(b.name, sizeof(b.name), "South");
    snprintf(b.token, sizeof(b.token), "bbt_secret");
    struct bb_clinic_list l = {0}, back = {0};
    assert_int_equal(bb_clinic_list_append(&l, &a), BB_OK);
    assert_int_equal(bb_clinic_list_append(&l, &b), BB_OK);
    size_t len = 0;
    char *s = bb_clinic_list_to_json(&l, &len);
    assert_string_equal(s, "{\"clinics\":[{\"id\":1,\"name\":\"North\",\"created\":1700000000,"
                           "\"revoked\":1700000100},{\"id\":2,\"name\":\"South\","
                           "\"created\":1700000200,\"revoked\":null}]}");
    assert_int_equal(bb_clinic_list_from_json(s, len, &back, NULL, 0), BB_OK);
    assert_int_equal(back.n, 2);
    assert_true(back.clinics[0].revoked == 1700000100 && back.clinics[1].revoked == 0);
    assert_string_equal(back.clinics[1].token, ""); /* a list never carries tokens */
    free(s);
    s = bb_clinic_enrolled_to_json(&b, &len);
    assert_string_equal(s, "{\"id\":2,\"name\":\"South\",\"token\":\"bbt_secret\","
                           "\"created\":1700000200}");
    assert_int_equal(bb_clinic_enrolled_from_json(s, len, &e, NULL, 0), BB_OK);
    assert_string_equal(e.token, "bbt_secret");
    free(s);
    /* The request: a name of 1 to 128 bytes without control characters. */
    char name[BB_CLINIC_NAME_MAX + 1], field[16], why[128];
    s = bb_clinic_req_to_json("East", &len);
    assert_int_equal(bb_clinic_req_from_json(s, len, name, field, sizeof(field), why, sizeof(why)),
                     BB_OK);
    assert_string_equal(name, "East");
    free(s);
    static const char *const bad[] = {"{\"name\":\"\"}", "{\"name\":3}", "{\"name\":\"a\\u0001\"}",
                                      "{}", NULL};
    for (int i = 0; bad[i]; i++) {
        assert_int_equal(bb_clinic_req_from_json(bad[i], strlen(bad[i]), name, field,
                                                 sizeof(field), why, sizeof(why)),
                         BB_EINVAL);
        assert_string_equal(field, "/name");
    }
    assert_int_equal(bb_clinic_req_from_json("[]", 2, name, field, sizeof(field), why, sizeof(why)),
                     BB_EPROTO);
    bb_clinic_list_release(&l);
    bb_clinic_list_release(&back);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_billboard_round_trip),
        cmocka_unit_test(test_episode_parse_ok),
        cmocka_unit_test(test_episode_errors),
        cmocka_unit_test(test_receipt),
        cmocka_unit_test(test_recommend_request),
        cmocka_unit_test(test_recommend_response),
        cmocka_unit_test(test_privacy_budget),
        cmocka_unit_test(test_config_info),
        cmocka_unit_test(test_clinics),
    };
    return cmocka_run_group_tests_name("codec", tests, NULL, NULL);
}
