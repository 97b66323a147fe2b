#!/usr/bin/env bash
# billboard-sim's outputs, in-process: '-' names standard output for --csv
# and --summary alike (in a run and in a sweep), and never a file called
# '-'; a named file gets the table; by default a run's table goes to
# standard error and a sweep's to standard output.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
SIM=$(realpath "$O/billboard-sim")
[ -x "$SIM" ] || fail "no $SIM"
cd "$TMP"
RUN=(--env riverswim --states 3 --episodes 200 --seed 1 --quiet)

# --help lists the stored keys the simulator takes for its ablations, from
# the configuration's own table (a stored key the daemon refuses as a flag).
"$SIM" --help >help.out
for key in calibration prior-value next-discount arithmetic; do
    grep -A4 'for ablations' help.out | grep -q -- "--$key\b" || fail "--help does not list --$key"
done
# The options reach the run: --algo private with the paper's calibration,
# or with an update after every episode, is refused, not run as the
# defaults.
"$SIM" "${RUN[@]}" --algo private --calibration paper >/dev/null 2>err && fail "--calibration paper ran private"
grep -q "that is --algo paper" err || fail "unclear message: $(cat err)"
"$SIM" "${RUN[@]}" --algo private --update-rule every >/dev/null 2>err && fail "--update-rule every ran private"
grep -q "cannot update after every episode" err || fail "unclear message: $(cat err)"
# The budget is the --epsilon list's: a --rho, or a budget as a sweep axis,
# would be replaced by it, so both are refused.
"$SIM" "${RUN[@]}" --algo private --rho 1 >/dev/null 2>err && fail "--rho ran"
grep -q "give the budgets as --epsilon" err || fail "unclear message: $(cat err)"
"$SIM" --env riverswim --states 3 --episodes 50 --quiet --sweep rho=1,2 >/dev/null 2>err &&
    fail "--sweep rho ran"
grep -q "give the budgets as --epsilon" err || fail "unclear message: $(cat err)"
"$SIM" --help | grep -A3 'every configuration flag' | grep -q -- '--rho' && fail "--help offers --rho"
HEAD='| run | ε | β |'
SWEEP_HEAD='| ε | configuration'

"$SIM" "${RUN[@]}" --algo private,random --summary - >run.out 2>run.err ||
    fail "run: $(cat run.err)"
grep -qF "$HEAD" run.out || fail "--summary - put no table on stdout: $(cat run.out)"
! grep -qF "$HEAD" run.err || fail "--summary - also wrote the table to stderr"

"$SIM" "${RUN[@]}" --algo private,random >run.out 2>run.err || fail "run: $(cat run.err)"
grep -qF "$HEAD" run.err || fail "a run's table is not on stderr by default: $(cat run.err)"

"$SIM" "${RUN[@]}" --algo private,random --summary table.md --csv - >run.out 2>run.err ||
    fail "run: $(cat run.err)"
grep -qF "$HEAD" table.md || fail "--summary FILE: $(cat table.md)"
head -n 1 run.out | grep -q '^env,' || fail "--csv - put no CSV header on stdout: $(head -n 3 run.out)"

"$SIM" --env riverswim --states 3 --episodes 200 --seeds 1-2 --jobs 1 --quiet \
    --sweep release-start=50,auto --summary - >sweep.out 2>sweep.err || fail "sweep: $(cat sweep.err)"
grep -qF "$SWEEP_HEAD" sweep.out || fail "sweep --summary - put no table on stdout: $(cat sweep.out)"
[ "$(grep -c '^| [0-9]' sweep.out)" = 2 ] || fail "sweep: want 2 rows: $(cat sweep.out)"

# Acting alone beside the federation: a solo row and the per-patient
# columns, which the table without solo does not have.
"$SIM" "${RUN[@]}" --algo private,random,solo --clinics 4 --summary - >solo.out 2>solo.err ||
    fail "solo run: $(cat solo.err)"
grep -q '^| solo N=4 | inf | 2 |' solo.out || fail "no solo row (beta 2): $(cat solo.out)"
grep -qF '| per patient | / solo |' solo.out || fail "no per-patient columns: $(cat solo.out)"
grep -q '^| solo N=4 .*| 1.00 |$' solo.out || fail "solo's ratio to itself is not 1: $(cat solo.out)"
! grep -qF 'per patient' run.out table.md || fail "per-patient columns without solo"
"$SIM" --env riverswim --states 3 --episodes 200 --seeds 1-2 --jobs 1 --quiet --algo solo \
    --clinics 4 --epsilon inf --summary - >solo-sweep.out 2>solo-sweep.err ||
    fail "solo sweep: $(cat solo-sweep.err)"
[ "$(grep -c '^| inf | (defaults)' solo-sweep.out)" = 1 ] || fail "solo sweep: $(cat solo-sweep.out)"

[ ! -e ./- ] || fail "a file named '-' was written"
