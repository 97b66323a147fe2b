#!/usr/bin/env bash
# make audit: the whole privacy audit on the real engine, then the mutation
# table: the engine rebuilt with each deliberate privacy bug of
# proto/mutation.h, which the audit must catch (some case above its claim).
# Exits 0 only when the real engine and the daemon end to end stay within
# every claim and every mutation is caught. AUDIT_TRIALS trials a side
# (default 100000).
set -u
cd "$(dirname "$0")/../.." || exit 2
O=${O:-build}
MAKE=${MAKE:-make}
n=${AUDIT_TRIALS:-100000}
mutations=$(sed -n 's/^#define BB_MUT_\([A-Z_]*\) [1-9][0-9]* .*/\1/p' proto/mutation.h)
status=0

echo "== the real engine"
"$O/bb-audit" --trials "$n"
rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: the real engine exceeds a claim (exit $rc)"; status=1; }

echo
echo "== end to end: the billboard as billboardd publishes it (AUDIT_E2E_RUNS runs)"
python3 tests/audit/e2e.py "$O/billboardd" --runs "${AUDIT_E2E_RUNS:-40}" --canaries 300
rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: the end-to-end case (exit $rc)"; status=1; }

echo
echo "== the mutation table (each build must exceed some claim)"
table=()
for m in $mutations; do
    if ! $MAKE -s MUTATION="$m" audit-bin >/dev/null; then
        table+=("$(printf '%-16s %s' "$m" "BUILD FAILED")")
        status=1
        continue
    fi
    out=$(build-mut/"$m"/bb-audit --trials "$n" --first-fail)
    rc=$?
    caught=$(printf '%s\n' "$out" | grep 'EXCEEDS CLAIM' | head -n 1)
    if [ "$rc" -eq 1 ] && [ -n "$caught" ]; then
        table+=("$(printf '%-16s caught by %s' "$m" "$(printf '%s' "$caught" | sed 's/ EXCEEDS CLAIM.*//; s/  */ /g')")")
    else
        table+=("$(printf '%-16s NOT CAUGHT (exit %s)' "$m" "$rc")")
        status=1
    fi
done
printf '%-16s %s\n' "mutation" "the first case above its claim: case, claimed epsilon, lower bound, estimate"
printf '%s\n' "${table[@]}"
[ "$status" -eq 0 ] && echo "audit: the real engine within every claim; every mutation caught"
exit "$status"
