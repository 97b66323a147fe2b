/*
 * fuzz_envfile.c — billboard-sim's environment file decoder
 * (client/sim/env_load.c): JSON read from a file. Every file either loads
 * into a well-formed environment or is refused with a reason.
 */
#include "fuzz.h"

#include "sim/env.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_path(".json");
    FUZZ_REQUIRE(fuzz_write(path, data, size) == 0);
    struct bb_sim_env *env = NULL;
    char why[512] = "";
    int rc = bb_sim_env_load(path, &env, why, sizeof(why));
    FUZZ_REQUIRE((rc == BB_OK) == (env != NULL));
    if (rc != BB_OK)
        FUZZ_REQUIRE(why[0] != '\0' || rc == BB_ENOMEM);
    bb_sim_env_free(env);
    return 0;
}
