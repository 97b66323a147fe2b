/*
 * test_auth.c — bearer tokens: keyed hashing, the clinic registry,
 * revocation, and the admin token.
 */
#include "testutil.h"

#include <sodium.h>
#include <string.h>

#include "auth.h"

static struct bb_auth *make(unsigned char fill)
{
    unsigned char key[BB_AUTH_KEY];
    memset(key, fill, sizeof(key));
    struct bb_auth *a = NULL;
    assert_int_equal(bb_auth_new(key, &a), BB_OK);
    return a;
}

static void test_tokens_and_hash(void **state)
{
    (void)state;
    assert_true(sodium_init() >= 0);
    char t1[BB_AUTH_TOKEN_MAX], t2[BB_AUTH_TOKEN_MAX];
    bb_auth_new_token(t1);
    bb_auth_new_token(t2);
    assert_int_equal(strncmp(t1, "bbt_", 4), 0);
    assert_int_equal(strlen(t1), 4 + 43); /* 32 bytes, unpadded base64url */
    assert_string_not_equal(t1, t2);
    struct bb_auth *a = make(1), *b = make(2);
    unsigned char h1[BB_AUTH_HASH], h1b[BB_AUTH_HASH], h2[BB_AUTH_HASH];
    bb_auth_hash(a, t1, strlen(t1), h1);
    bb_auth_hash(a, t1, strlen(t1), h1b);
    bb_auth_hash(b, t1, strlen(t1), h2);
    assert_memory_equal(h1, h1b, BB_AUTH_HASH);
    /* Keyed: another server key gives another hash. */
    assert_memory_not_equal(h1, h2, BB_AUTH_HASH);
    bb_auth_free(a);
    bb_auth_free(b);
}

static void test_registry(void **state)
{
    (void)state;
    struct bb_auth *a = make(3);
    char t1[BB_AUTH_TOKEN_MAX], t2[BB_AUTH_TOKEN_MAX], hdr[128];
    unsigned char h[BB_AUTH_HASH];
    bb_auth_new_token(t1);
    bb_auth_new_token(t2);
    bb_auth_hash(a, t1, strlen(t1), h);
    assert_int_equal(bb_auth_add(a, 7, h, 0), BB_OK);
    bb_auth_hash(a, t2, strlen(t2), h);
    assert_int_equal(bb_auth_add(a, 8, h, 0), BB_OK);
    int64_t id = 0;
    snprintf(hdr, sizeof(hdr), "Bearer %s", t2);
    assert_int_equal(bb_auth_clinic(a, hdr, &id), BB_OK);
    assert_int_equal(id, 8);
    snprintf(hdr, sizeof(hdr), "bearer   %s  ", t1); /* scheme is case-insensitive */
    assert_int_equal(bb_auth_clinic(a, hdr, &id), BB_OK);
    assert_int_equal(id, 7);
    assert_int_equal(bb_auth_clinic(a, NULL, &id), BB_EAUTH);
    assert_int_equal(bb_auth_clinic(a, "Bearer ", &id), BB_EAUTH);
    assert_int_equal(bb_auth_clinic(a, t1, &id), BB_EAUTH); /* no scheme */
    assert_int_equal(bb_auth_clinic(a, "Bearer bbt_nope", &id), BB_EAUTH);
    assert_true(bb_auth_active(a, 7));
    bb_auth_revoke(a, 7);
    assert_false(bb_auth_active(a, 7));
    assert_false(bb_auth_active(a, 99));
    assert_int_equal(bb_auth_clinic(a, hdr, &id), BB_EAUTH);
    /* Many clinics: the registry grows. */
    for (int i = 100; i < 200; i++) {
        char t[BB_AUTH_TOKEN_MAX];
        bb_auth_new_token(t);
        bb_auth_hash(a, t, strlen(t), h);
        assert_int_equal(bb_auth_add(a, i, h, 0), BB_OK);
    }
    snprintf(hdr, sizeof(hdr), "Bearer %s", t2);
    assert_int_equal(bb_auth_clinic(a, hdr, &id), BB_OK);
    assert_int_equal(id, 8);
    bb_auth_free(a);
}

static void test_admin(void **state)
{
    (void)state;
    struct bb_auth *a = make(4);
    assert_int_equal(bb_auth_admin(a, "Bearer anything-at-all-long"), BB_EAUTH); /* unset */
    assert_int_equal(bb_auth_set_admin(a, "short", 5), BB_EINVAL);
    const char *tok = "0123456789abcdef-admin";
    assert_int_equal(bb_auth_set_admin(a, tok, strlen(tok)), BB_OK);
    assert_int_equal(bb_auth_admin(a, "Bearer 0123456789abcdef-admin"), BB_OK);
    assert_int_equal(bb_auth_admin(a, "Bearer 0123456789abcdef-admiN"), BB_EAUTH);
    assert_int_equal(bb_auth_admin(a, "Bearer 0123456789abcdef-admin2"), BB_EAUTH);
    assert_int_equal(bb_auth_admin(a, NULL), BB_EAUTH);
    int64_t id;
    assert_int_equal(bb_auth_clinic(a, "Bearer 0123456789abcdef-admin", &id), BB_EAUTH);
    bb_auth_free(a);
    bb_auth_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tokens_and_hash),
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_admin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
