/*
 * fuzz.h — what the libFuzzer harnesses share (tests/fuzz/fuzz.mk).
 *
 * A harness is one file fuzz_<name>.c defining LLVMFuzzerTestOneInput; its
 * seeds are tests/fuzz/corpus/<name>/. A harness checks what must hold for
 * every input (FUZZ_REQUIRE aborts, which libFuzzer reports as a crash
 * with the input); ASan and UBSan check the rest.
 */
#ifndef BB_FUZZ_H
#define BB_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_REQUIRE(cond)                                                                      \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "%s:%d: required: %s\n", __FILE__, __LINE__, #cond);              \
            abort();                                                                           \
        }                                                                                      \
    } while (0)

/* A private file for inputs that are read from a path: its name, made once
 * per process under $TMPDIR (default /tmp). */
static inline const char *fuzz_path(const char *suffix)
{
    static char path[256];
    if (!path[0]) {
        const char *dir = getenv("TMPDIR");
        snprintf(path, sizeof(path), "%s/bbfuzz-%ld%s", dir ? dir : "/tmp", (long)getpid(),
                 suffix);
    }
    return path;
}

/* Writes data to path; 0 on success. */
static inline int fuzz_write(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fwrite(data, 1, size, f) == size;
    ok = fclose(f) == 0 && ok;
    return ok ? 0 : -1;
}

#endif
