#!/usr/bin/env bash
# 19-recovery-gram.sh for the mechanisms besides the tree: the Gram matrices
# of a billboard after a clean restart and a kill -9 are, to the last bit,
# the stored episodes plus the stored noise, for grid and grid-sqrt
# (increments) and tree-honaker (node estimates).
set -euo pipefail
here=$(dirname "$0")
for mech in grid grid-sqrt tree-honaker; do
    MECH_FLAGS="--mechanism $mech" "$here/19-recovery-gram.sh"
done
