/*
 * fuzz_billboard.c — the billboard decoder a client runs on what a daemon
 * serves (bb_billboard_from_json), then what a client does with it: factor
 * it and ask it for actions. An accepted billboard re-encodes to JSON that
 * decodes and re-encodes to the same bytes; nothing crashes, whatever the
 * numbers.
 */
#include "fuzz.h"

#include "billboard/billboard.h"
#include "billboard/codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct bb_billboard b = {0}, back = {0};
    char why[256];
    int rc = bb_billboard_from_json((const char *)data, size, &b, why, sizeof(why));
    FUZZ_REQUIRE(rc == BB_OK || rc == BB_EPROTO || rc == BB_ENOMEM);
    if (rc != BB_OK)
        return 0;
    size_t len = 0, len2 = 0;
    char *js = bb_billboard_to_json(&b, &len);
    FUZZ_REQUIRE(js);
    FUZZ_REQUIRE(bb_billboard_from_json(js, len, &back, why, sizeof(why)) == BB_OK);
    char *js2 = bb_billboard_to_json(&back, &len2);
    FUZZ_REQUIRE(js2 && len2 == len && memcmp(js, js2, len) == 0);
    free(js);
    free(js2);
    bb_billboard_release(&back);
    /* What a client does next, on rows of norm <= 1. */
    if (b.H <= 64 && b.A <= 64 && b.d <= 64 && bb_billboard_factor(&b) == BB_OK) {
        double *f = calloc((size_t)b.A * b.d + 1, sizeof(double));
        double *q = calloc((size_t)b.A + 1, sizeof(double));
        FUZZ_REQUIRE(f && q);
        for (int i = 0; i < b.A; i++)
            f[(size_t)i * b.d + (size_t)i % b.d] = 0.5;
        int action = -1;
        for (int h = 1; h <= b.H; h++) {
            if (bb_billboard_act(&b, h, f, q, &action) == BB_OK)
                FUZZ_REQUIRE(action >= 0 && action < b.A);
            if (bb_billboard_act_keyed(&b, h, f, "fuzz-key", q, &action) == BB_OK)
                FUZZ_REQUIRE(action >= 0 && action < b.A);
        }
        free(f);
        free(q);
    }
    bb_billboard_release(&b);
    return 0;
}
