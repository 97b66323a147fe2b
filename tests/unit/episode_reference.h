/*
 * episode_reference.h — jansson's reading of an episode body, the reference
 * the fast reader (proto/codec_fast.c) is held to, shared by the unit test
 * (test_codec_fast.c) and the differential fuzzer (tests/fuzz/
 * fuzz_episode_diff.c).
 */
#ifndef BB_TEST_EPISODE_REFERENCE_H
#define BB_TEST_EPISODE_REFERENCE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "billboard/codec.h"

/* 1 and e filled (its arrays sized for H, A, d) if buf is, to jansson, an
 * episode of the exact schema at those sizes: {"billboard_version": n >= 0,
 * "steps": H objects of exactly "features" (A rows of d numbers), "action"
 * (an integer in [0, A)) and "reward" (a number)}, no duplicate keys;
 * else 0. */
static inline int episode_reference(const char *buf, size_t len, int H, int A, int d,
                                    struct bb_episode_buf *e)
{
    json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, NULL);
    int ok = 0;
    if (!json_is_object(root) || json_object_size(root) != 2)
        goto out;
    json_t *v = json_object_get(root, "billboard_version");
    json_t *steps = json_object_get(root, "steps");
    if (!json_is_integer(v) || json_integer_value(v) < 0 || !json_is_array(steps) ||
        json_array_size(steps) != (size_t)H)
        goto out;
    e->billboard_version = (uint64_t)json_integer_value(v);
    for (int h = 0; h < H; h++) {
        json_t *st = json_array_get(steps, (size_t)h);
        json_t *f = json_object_get(st, "features"), *a = json_object_get(st, "action"),
               *r = json_object_get(st, "reward");
        if (!json_is_object(st) || json_object_size(st) != 3 || !json_is_array(f) ||
            json_array_size(f) != (size_t)A || !json_is_integer(a) || json_integer_value(a) < 0 ||
            json_integer_value(a) >= A || !json_is_number(r))
            goto out;
        e->action[h] = (int)json_integer_value(a);
        e->reward[h] = json_number_value(r);
        for (int i = 0; i < A; i++) {
            json_t *row = json_array_get(f, (size_t)i);
            if (!json_is_array(row) || json_array_size(row) != (size_t)d)
                goto out;
            for (int j = 0; j < d; j++) {
                json_t *x = json_array_get(row, (size_t)j);
                if (!json_is_number(x))
                    goto out;
                e->features[((size_t)h * A + i) * d + j] = json_number_value(x);
            }
        }
    }
    ok = 1;
out:
    json_decref(root);
    return ok;
}

#endif
