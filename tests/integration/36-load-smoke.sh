#!/usr/bin/env bash
# `make load`'s tool, briefly: tests/load/run.sh with one-second runs, a
# two-second soak and four slow clients must run to its summary with every
# request answered 2xx, and every run answering something (a run that
# answers nothing is the keep-alive stall of docs/RELIABILITY.md). It
# asserts no figure: make load prints them.
set -euo pipefail
cd "$(dirname "$0")/../.."
O=${O:-build}
[ -x "$O/loadgen" ] || { echo "no $O/loadgen (make)" >&2; exit 1; }
out=$(LOAD_SECONDS=1 LOAD_SOAK_SECONDS=2 LOAD_SLOW=4 O=$O tests/load/run.sh 2>&1) || {
    printf '%s\n' "$out"
    exit 1
}
printf '%s\n' "$out"
for want in "ingest, 64 connections" "billboard GET, 128 connections" "post at 90%" "get  at 50%" \
    "slow clients: 4 trickling" "open connections: GET capacity with 800" "soak 2s"; do
    grep -qF "$want" <<<"$out" || { echo "FAIL: no '$want' in the summary" >&2; exit 1; }
done
if grep '^run:' <<<"$out" | grep -v ' non2xx=0 errors=0 '; then
    echo "FAIL: a run had answers other than 2xx, or errors" >&2
    exit 1
fi
if grep '^run:' <<<"$out" | grep -E ' done=0 '; then
    echo "FAIL: a run was answered nothing" >&2
    exit 1
fi
echo ok
