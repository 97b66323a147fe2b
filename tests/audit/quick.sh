#!/usr/bin/env bash
# The privacy audit's part of make test: two cases (a Gram release and a y
# release) on the real engine must stay within their claim, and the same
# cases on the engine built with every noise sigma halved
# (make MUTATION=SIGMA_HALF) must exceed it: an audit that cannot tell a
# broken build from a correct one has no power. AUDIT_QUICK_TRIALS trials a
# side (default 50000).
set -u
cd "$(dirname "$0")/../.." || exit 2
O=${O:-build}
n=${AUDIT_QUICK_TRIALS:-50000}
[ -x "$O/bb-audit" ] || { echo "no $O/bb-audit: run make first"; exit 2; }
"$O/bb-audit" --self-test || { echo "FAIL: the audit's statistics"; exit 1; }
"$O/bb-audit" --quick --trials "$n"
rc=$?
if [ "$rc" -ne 0 ]; then
    echo "FAIL: the real engine exceeds its claim (exit $rc)"
    exit 1
fi
make -s MUTATION=SIGMA_HALF audit-bin >/dev/null || { echo "FAIL: cannot build the mutant"; exit 1; }
build-mut/SIGMA_HALF/bb-audit --quick --trials "$n"
rc=$?
if [ "$rc" -ne 1 ]; then
    echo "FAIL: the audit did not catch the build with sigma halved (exit $rc)"
    exit 1
fi
echo "the audit passes the real engine and catches sigma halved"
