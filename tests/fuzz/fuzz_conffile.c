/*
 * fuzz_conffile.c — billboardd's configuration file: its syntax
 * (server/conffile.c) and, through `billboardd --config FILE`'s parser
 * (server/options.c), every key's value. A file either parses or is
 * refused with a message; nothing in between crashes.
 */
#include "fuzz.h"

#include "conffile.h"
#include "options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct bb_conffile cf = {0};
    char why[512];
    int rc = bb_conffile_parse(&cf, "fuzz.conf", (const char *)data, size, why, sizeof(why));
    FUZZ_REQUIRE(rc == BB_OK || rc == BB_EINVAL || rc == BB_ENOMEM);
    if (rc == BB_OK)
        for (size_t i = 0; i < cf.n; i++)
            FUZZ_REQUIRE(cf.e[i].key && cf.e[i].value && cf.e[i].flag && cf.e[i].line >= 1);
    bb_conffile_release(&cf);

    const char *path = fuzz_path(".conf");
    FUZZ_REQUIRE(fuzz_write(path, data, size) == 0);
    char *argv[] = {"billboardd", "--config", (char *)path, "--db", "/nonexistent/fuzz.db", NULL};
    struct bb_options o = {0};
    if (bb_options_parse(&o, 5, argv) == 0)
        (void)bb_options_check(&o);
    bb_options_release(&o);
    return 0;
}
