/*
 * test_codec_fast.c — the episode fast path against jansson, differentially:
 * it must take every ordinary body (canonical or reformatted) and read the
 * same doubles bit for bit; and over random mutations of valid bodies it
 * may decline anything, but must never accept a body that jansson rejects
 * or reads differently (then the full parser would have answered).
 */
#include "testutil.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "billboard/codec.h"
#include "codec_fast.h"
#include "episode_reference.h"
#include "engine/rng.h"

enum { H = 3, A = 2, D = 3 };

/* jansson's reading of an episode of the exact schema, or 0. */
static int reference(const char *buf, size_t len, struct bb_episode_buf *e)
{
    return episode_reference(buf, len, H, A, D, e);
}

static void assert_same(const struct bb_episode_buf *x, const struct bb_episode_buf *y)
{
    assert_int_equal(x->billboard_version, y->billboard_version);
    assert_memory_equal(x->features, y->features, sizeof(double) * H * A * D);
    assert_memory_equal(x->action, y->action, sizeof(int) * H);
    assert_memory_equal(x->reward, y->reward, sizeof(double) * H);
}

static void random_episode(struct bb_rng *r, struct bb_episode_buf *e)
{
    e->billboard_version = bb_rng_below(r, 1000);
    for (int i = 0; i < H * A * D; i++)
        e->features[i] = (bb_rng_uniform(r) - 0.5) * 0.9;
    for (int h = 0; h < H; h++) {
        e->action[h] = (int)bb_rng_below(r, A);
        e->reward[h] = bb_rng_uniform(r);
    }
    e->features[0] = 0;  /* integers and signed zero forms too */
    e->features[1] = -0.0;
}

static void test_takes_ordinary_bodies(void **state)
{
    (void)state;
    struct bb_rng r;
    bb_rng_init_seeded(&r, 1);
    for (int n = 0; n < 500; n++) {
        struct bb_episode_buf e, f, g;
        assert_int_equal(bb_episode_buf_init(&e, H, A, D), BB_OK);
        assert_int_equal(bb_episode_buf_init(&f, H, A, D), BB_OK);
        assert_int_equal(bb_episode_buf_init(&g, H, A, D), BB_OK);
        random_episode(&r, &e);
        size_t len;
        char *js = bb_episode_to_json(&e, &len);
        assert_int_equal(codec_episode_fast(js, len, &f), 1);
        assert_int_equal(reference(js, len, &g), 1);
        assert_same(&f, &g);
        for (int i = 0; i < H * A * D; i++) /* %.17g reads back exactly (-0 as 0) */
            assert_true(f.features[i] == e.features[i]);
        /* Reformatted by jansson (indentation, reordered keys). */
        json_t *root = json_loadb(js, len, 0, NULL);
        char *pretty = json_dumps(root, JSON_INDENT(n % 4) | JSON_SORT_KEYS |
                                            JSON_REAL_PRECISION(n % 2 ? 17 : 6));
        assert_int_equal(codec_episode_fast(pretty, strlen(pretty), &f), 1);
        assert_int_equal(reference(pretty, strlen(pretty), &g), 1);
        assert_same(&f, &g);
        free(pretty);
        json_decref(root);
        free(js);
        bb_episode_buf_release(&e);
        bb_episode_buf_release(&f);
        bb_episode_buf_release(&g);
    }
}

static void test_never_accepts_what_jansson_would_not(void **state)
{
    (void)state;
    static const char alphabet[] = " \t\n{}[],:\"\\-+.eE0123456789aceinrstuvxy";
    struct bb_rng r;
    bb_rng_init_seeded(&r, 2);
    long accepted = 0, declined = 0;
    for (int n = 0; n < 20000; n++) {
        struct bb_episode_buf e, f, g;
        assert_int_equal(bb_episode_buf_init(&e, H, A, D), BB_OK);
        assert_int_equal(bb_episode_buf_init(&f, H, A, D), BB_OK);
        assert_int_equal(bb_episode_buf_init(&g, H, A, D), BB_OK);
        random_episode(&r, &e);
        size_t len;
        char *js = bb_episode_to_json(&e, &len);
        char *m = malloc(len + 8);
        memcpy(m, js, len);
        /* One to three edits: replace, insert or delete a byte. */
        int edits = 1 + (int)bb_rng_below(&r, 3);
        for (int k = 0; k < edits && len > 2; k++) {
            size_t at = (size_t)bb_rng_below(&r, len);
            char ch = alphabet[bb_rng_below(&r, sizeof(alphabet) - 1)];
            switch (bb_rng_below(&r, 3)) {
            case 0: m[at] = ch; break;
            case 1: memmove(m + at + 1, m + at, len - at); m[at] = ch; len++; break;
            default: memmove(m + at, m + at + 1, len - at - 1); len--; break;
            }
        }
        if (codec_episode_fast(m, len, &f)) {
            accepted++;
            if (!reference(m, len, &g))
                fail_msg("fast path accepted what jansson rejects: %.*s", (int)len, m);
            assert_same(&f, &g);
        } else {
            declined++;
        }
        free(m);
        free(js);
        bb_episode_buf_release(&e);
        bb_episode_buf_release(&f);
        bb_episode_buf_release(&g);
    }
    /* Both branches were exercised (else the test shows nothing). */
    assert_true(accepted > 100 && declined > 1000);
}

static void test_declines_what_it_must(void **state)
{
    (void)state;
    const char *bodies[] = {
        /* a duplicate key, an escaped key, an unknown key, leading zeros,
         * a big integer, a NaN, trailing garbage, an exponent without
         * digits, a missing field, a real action */
        "{\"billboard_version\":1,\"billboard_version\":1,\"steps\":[]}",
        "{\"billboard_versio\\u006e\":1,\"steps\":[]}",
        "{\"billboard_version\":1,\"steps\":[],\"x\":1}",
        "{\"billboard_version\":01,\"steps\":[]}",
        "{\"billboard_version\":1234567890123456789012,\"steps\":[]}",
        "{\"billboard_version\":NaN,\"steps\":[]}",
        "{\"billboard_version\":1,\"steps\":[]} x",
        "{\"billboard_version\":1e,\"steps\":[]}",
        "{\"steps\":[]}",
        "[1]",
    };
    for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
        struct bb_episode_buf f;
        assert_int_equal(bb_episode_buf_init(&f, H, A, D), BB_OK);
        assert_int_equal(codec_episode_fast(bodies[i], strlen(bodies[i]), &f), 0);
        bb_episode_buf_release(&f);
    }
}

/* Found by tests/fuzz/fuzz_episode_diff.c: "-0" is an integer to jansson,
 * so 0.0; "-0.0" is a real, so -0.0. The fast reader must give the same
 * bits (corpus file tests/fuzz/corpus/episode_diff/crash-negative-zero). */
static void test_negative_zero_as_jansson(void **state)
{
    (void)state;
    const char *body =
        "{\"billboard_version\":0,\"steps\":["
        "{\"features\":[[-0,0.1,0.2],[-0.0,0.1,0.2]],\"action\":0,\"reward\":-0},"
        "{\"features\":[[0,0.1,0.2],[0,0.1,0.2]],\"action\":1,\"reward\":0.5},"
        "{\"features\":[[0,0.1,0.2],[0,0.1,0.2]],\"action\":1,\"reward\":-0.0}]}";
    struct bb_episode_buf f, r;
    assert_int_equal(bb_episode_buf_init(&f, H, A, D), BB_OK);
    assert_int_equal(bb_episode_buf_init(&r, H, A, D), BB_OK);
    assert_int_equal(codec_episode_fast(body, strlen(body), &f), 1);
    assert_int_equal(reference(body, strlen(body), &r), 1);
    assert_memory_equal(f.features, r.features, sizeof(double) * H * A * D);
    assert_memory_equal(f.reward, r.reward, sizeof(double) * H);
    assert_false(signbit(f.features[0]));
    assert_true(signbit(f.features[D]));
    assert_false(signbit(f.reward[0]));
    assert_true(signbit(f.reward[2]));
    bb_episode_buf_release(&f);
    bb_episode_buf_release(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_takes_ordinary_bodies),
        cmocka_unit_test(test_never_accepts_what_jansson_would_not),
        cmocka_unit_test(test_declines_what_it_must),
        cmocka_unit_test(test_negative_zero_as_jansson),
    };
    return cmocka_run_group_tests_name("codec_fast", tests, NULL, NULL);
}
