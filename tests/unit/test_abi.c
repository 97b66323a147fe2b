/*
 * test_abi.c — the public structs' sizes, recorded per soname of
 * libbillboard. A program linked against libbillboard.so.N allocates these
 * structs itself and hands them to the library, so a member added, removed
 * or widened breaks it. When this test fails, the change needs a new
 * soname: bump CLIENT_SO_VERSION in client/client.mk and record the sizes
 * the failure prints under the new number. (Sizes catch additions and
 * removals; a reorder of members of equal size is not caught.)
 */
#include "testutil.h"

#include <stdio.h>

#include "billboard/billboard.h"
#include "billboard/client.h"
#include "billboard/clinic.h"
#include "billboard/codec.h"
#include "billboard/config_info.h"
#include "billboard/episode.h"
#include "billboard/privacy.h"

#ifndef BB_CLIENT_SO_VERSION
#error "BB_CLIENT_SO_VERSION: tests/tests.mk passes client/client.mk's CLIENT_SO_VERSION"
#endif

struct layout {
    const char *name;
    size_t size;  /* on this build */
    size_t known; /* recorded for libbillboard.so.BB_CLIENT_SO_VERSION on x86-64 */
};

#define L(type, known) {#type, sizeof(type), known}

static void test_layouts_match_soname(void **state)
{
    (void)state;
#if BB_CLIENT_SO_VERSION == 7
    static const struct layout known[] = {
        L(struct bb_privacy_summary, 80),     L(struct bb_billboard, 184),
        L(struct bb_client_retry, 40),        L(struct bb_client_receipt, 24),
        L(struct bb_client_episode_row, 80),  L(struct bb_client_episode_list, 16),
        L(struct bb_clinic, 224),             L(struct bb_clinic_list, 16),
        L(struct bb_episode_buf, 48),         L(struct bb_receipt, 16),
        L(struct bb_recommend_req, 40),       L(struct bb_config_info, 912),
        L(struct bb_episode, 24),             L(struct bb_privacy_share, 136),
        L(struct bb_privacy_restores, 32),    L(struct bb_privacy_budget, 528),
    };
#else
#error "no layouts recorded for this CLIENT_SO_VERSION: record them in test_abi.c"
#endif
    if (sizeof(void *) != 8) /* recorded on LP64; elsewhere only the check below */
        skip();
    int changed = 0;
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (known[i].size != known[i].known) {
            fprintf(stderr, "%s: %zu bytes, libbillboard.so.%d has %zu\n", known[i].name,
                    known[i].size, BB_CLIENT_SO_VERSION, known[i].known);
            changed = 1;
        }
    if (changed)
        fail_msg("a public struct changed: bump CLIENT_SO_VERSION (client/client.mk)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layouts_match_soname),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
