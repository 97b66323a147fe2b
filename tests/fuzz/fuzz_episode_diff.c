/*
 * fuzz_episode_diff.c — the fast episode reader (proto/codec_fast.c)
 * against jansson, differentially (H=3, A=2, d=4):
 *   - whatever the fast reader accepts, jansson reads as an episode of the
 *     exact schema, with the same numbers bit for bit;
 *   - bb_episode_from_json (fast reader, else jansson) accepts exactly the
 *     bodies jansson reads as such an episode that bb_episode_check
 *     passes, with the same numbers.
 * The fast reader may decline what jansson accepts (it then falls back);
 * it may never accept anything else, or read it differently.
 */
#include "fuzz.h"

#include <jansson.h>

#include "billboard/codec.h"
#include "billboard/episode.h"
#include "codec_fast.h"
#include "../unit/episode_reference.h"

enum { H = 3, A = 2, D = 4 };

/* jansson's reading of an episode of the exact schema, or 0. */
static int reference(const char *buf, size_t len, struct bb_episode_buf *e)
{
    return episode_reference(buf, len, H, A, D, e);
}

static int same(const struct bb_episode_buf *x, const struct bb_episode_buf *y)
{
    return x->billboard_version == y->billboard_version &&
           memcmp(x->features, y->features, sizeof(double) * H * A * D) == 0 &&
           memcmp(x->action, y->action, sizeof(int) * H) == 0 &&
           memcmp(x->reward, y->reward, sizeof(double) * H) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    struct bb_episode_buf fast = {0}, ref = {0}, api = {0};
    FUZZ_REQUIRE(bb_episode_buf_init(&fast, H, A, D) == BB_OK);
    FUZZ_REQUIRE(bb_episode_buf_init(&ref, H, A, D) == BB_OK);
    int ref_ok = reference(buf, size, &ref);
    if (codec_episode_fast(buf, size, &fast)) {
        FUZZ_REQUIRE(ref_ok);
        FUZZ_REQUIRE(same(&fast, &ref));
    }
    int valid = 0;
    if (ref_ok) {
        struct bb_episode v = bb_episode_buf_view(&ref);
        valid = bb_episode_check(&v, H, A, D, NULL, 0, NULL, 0) == BB_OK;
    }
    int rc = bb_episode_from_json(buf, size, H, A, D, &api, NULL, 0, NULL, 0);
    FUZZ_REQUIRE((rc == BB_OK) == valid);
    if (rc == BB_OK)
        FUZZ_REQUIRE(same(&api, &ref));
    bb_episode_buf_release(&api);
    bb_episode_buf_release(&ref);
    bb_episode_buf_release(&fast);
    return 0;
}
