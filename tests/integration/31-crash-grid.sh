#!/usr/bin/env bash
# 30-crash.sh for the mechanisms besides the tree: kill -9 under concurrent
# clients, then every acknowledged episode, every stored billboard and every
# noise record survive, unchanged, for grid, grid-sqrt and tree-honaker
# (fewer cycles each; --release-base matters to the grids only).
set -euo pipefail
here=$(dirname "$0")
for mech in grid grid-sqrt tree-honaker; do
    CYCLES=${CYCLES:-8} MECH_FLAGS="--mechanism $mech --release-base 1.5" "$here/30-crash.sh"
done
