#!/usr/bin/env bash
# 30-crash.sh for the release-grid mechanisms: kill -9 under concurrent
# clients, then every acknowledged episode, every stored billboard and every
# noise record survive, unchanged, for grid and grid-sqrt (fewer cycles each).
set -euo pipefail
here=$(dirname "$0")
for mech in grid grid-sqrt; do
    CYCLES=${CYCLES:-8} MECH_FLAGS="--mechanism $mech --release-base 1.5" "$here/30-crash.sh"
done
