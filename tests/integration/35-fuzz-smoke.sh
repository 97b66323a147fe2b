#!/usr/bin/env bash
# The libFuzzer harnesses (tests/fuzz/, built into build-fuzz/ by make
# test), each for a short smoke period (FUZZ_SMOKE_SECONDS, default 10):
# every seed and every kept crash input (tests/fuzz/corpus/) runs first,
# then new inputs; any crash, sanitizer report or broken invariant fails.
# `make fuzz FUZZ_SECONDS=N` is the long run.
set -euo pipefail
cd "$(dirname "$0")/../.."
FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}
ls "$FUZZ_BUILD"/fuzz/fuzz_* >/dev/null 2>&1 || {
    echo "no harnesses in $FUZZ_BUILD/fuzz (make FUZZ=1 fuzz-bins; make test builds them)" >&2
    exit 1
}
tests/fuzz/run "${FUZZ_SMOKE_SECONDS:-10}" "$FUZZ_BUILD"
