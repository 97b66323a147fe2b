/*
 * fuzz_episode.c — POST /v1/episodes' decoder, bb_episode_from_json (the
 * fast reader, then jansson), for the shape the tests serve (H=3, A=2,
 * d=4). Every answer is one of the documented codes; an accepted episode
 * passes bb_episode_check, and its canonical JSON decodes to the same
 * numbers (bit for bit but for the sign of a zero, which the encoder
 * drops).
 */
#include "fuzz.h"

#include "billboard/codec.h"

enum { H = 3, A = 2, D = 4 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct bb_episode_buf e = {0}, back = {0};
    char field[96], why[256];
    int rc = bb_episode_from_json((const char *)data, size, H, A, D, &e, field, sizeof(field), why,
                                  sizeof(why));
    FUZZ_REQUIRE(rc == BB_OK || rc == BB_EPROTO || rc == BB_EINVAL || rc == BB_ERANGE ||
                 rc == BB_ENOMEM);
    if (rc == BB_OK) {
        struct bb_episode v = bb_episode_buf_view(&e);
        FUZZ_REQUIRE(bb_episode_check(&v, H, A, D, NULL, 0, NULL, 0) == BB_OK);
        size_t len = 0;
        char *js = bb_episode_to_json(&e, &len);
        FUZZ_REQUIRE(js);
        FUZZ_REQUIRE(bb_episode_from_json(js, len, H, A, D, &back, NULL, 0, NULL, 0) == BB_OK);
        /* Equal values: the encoder spells -0 as 0 (one spelling per
         * value), so the sign of a zero is the only bit that may change. */
        FUZZ_REQUIRE(back.billboard_version == e.billboard_version);
        for (int i = 0; i < H * A * D; i++)
            FUZZ_REQUIRE(back.features[i] == e.features[i]);
        FUZZ_REQUIRE(memcmp(back.action, e.action, sizeof(int) * H) == 0);
        for (int h = 0; h < H; h++)
            FUZZ_REQUIRE(back.reward[h] == e.reward[h]);
        free(js);
    }
    bb_episode_buf_release(&back);
    bb_episode_buf_release(&e);
    return 0;
}
