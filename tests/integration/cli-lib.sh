# shellcheck shell=bash
# tests/integration/cli-lib.sh — helpers for the tests that drive the
# billboard CLI; sources lib.sh (the daemon helpers) first.
#
#   run CODE ARGS...   runs $CLI ARGS, requires exit status CODE;
#                      stdout in $TMP/out, stderr in $TMP/err
#   out EXPR           python3 expression over the JSON in $TMP/out (as d)
#   episodes           the daemon's episode count, through the CLI
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
CLI="$O/billboard"
[ -x "$CLI" ] || fail "no $CLI"
run() {
    local want=$1 rc=0
    shift
    "$CLI" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
    [ "$rc" -eq "$want" ] || fail "billboard $*: exit $rc, want $want: $(cat "$TMP/err")"
}
out() { jget "$TMP/out" "$1"; }
episodes() { "$CLI" privacy --json >"$TMP/priv" && jget "$TMP/priv" 'd["episodes"]'; }
