#!/usr/bin/env bash
# billboard show labels the privacy ledger a billboard carries as what it
# was when that version was published, and prints the ledger now (GET
# /v1/privacy) beside it: after episodes, version 0 still says 0 episodes
# and nothing spent — correctly, as a snapshot — while "now" agrees with
# billboard privacy.
. "$(dirname "$0")/cli-lib.sh"

start_daemon "${CONF[@]}"
export BILLBOARD_SERVER="$URL" BILLBOARD_STATE="$TMP/state.db" BILLBOARD_ADMIN_TOKEN="$ADMIN"
run 0 clinics add "Clinic" --json
BILLBOARD_TOKEN=$(out 'd["token"]')
export BILLBOARD_TOKEN
for i in $(seq 1 12); do episode "$i" >"$TMP/e$i.json"; done
run 0 submit "$TMP"/e*.json
wait_published

# section SHOW-OUTPUT HEADING-REGEX: the indented lines under a heading.
section() { awk -v h="$2" '$0 ~ h {on = 1; next} on && /^  / {print; next} on {exit}' "$1"; }
field() { # SECTION-FILE NAME: the value after the name
    sed -n "s/^  $2  *//p" "$1"
}
run 0 privacy --json
cp "$TMP/out" "$TMP/now.json"
now_eps=$(jget "$TMP/now.json" 'd["episodes"]')
[ "$now_eps" = 12 ] || fail "privacy: $(cat "$TMP/now.json")"

check_now() { # the "now" section agrees with GET /v1/privacy
    section "$TMP/out" '^privacy now \(GET /v1/privacy\):$' >"$TMP/now"
    [ -s "$TMP/now" ] || fail "no 'privacy now' section: $(cat "$TMP/out")"
    [ "$(field "$TMP/now" episodes)" = "$now_eps of 64" ] || fail "now episodes: $(cat "$TMP/now")"
    [ "$(field "$TMP/now" updates)" = "$(jget "$TMP/now.json" '"%d of %d" % (d["updates"], d["max_updates"])')" ] ||
        fail "now updates: $(cat "$TMP/now")"
    [ "$(field "$TMP/now" billboard)" = "version $(jget "$TMP/now.json" 'd["billboard_version"]')" ] ||
        fail "now billboard: $(cat "$TMP/now")"
    python3 - "$TMP/now.json" "$(field "$TMP/now" 'rho spent')" <<'PY' || fail "now rho: $(cat "$TMP/now")"
import json, sys
d = json.load(open(sys.argv[1]))
spent, _, rho = sys.argv[2].split()[:3]
assert abs(float(spent) - d["rho_spent"]) <= 1e-5 * d["rho_spent"], (spent, d)
assert abs(float(rho) - d["rho"]) <= 1e-5 * d["rho"], (rho, d)
assert d["rho_spent"] > 0
PY
}

# Version 0, shown after 12 episodes: the snapshot is labelled as version
# 0's and says what was true then; "now" says what is true now.
run 0 show --version 0
section "$TMP/out" '^privacy when version 0 was published' >"$TMP/snap"
[ -s "$TMP/snap" ] || fail "snapshot not labelled with its version: $(cat "$TMP/out")"
[ "$(field "$TMP/snap" episodes)" = "0 of 64" ] || fail "snapshot episodes: $(cat "$TMP/snap")"
[ "$(field "$TMP/snap" updates)" = "0 of $(jget "$TMP/now.json" 'd["max_updates"]')" ] ||
    fail "snapshot updates: $(cat "$TMP/snap")"
field "$TMP/snap" 'rho spent' | grep -q '^0 of ' || fail "snapshot rho spent: $(cat "$TMP/snap")"
check_now
# No unlabelled privacy line is left.
grep -Eq '^(privacy +rho|updates +[0-9]|episodes +[0-9])' "$TMP/out" && fail "unlabelled ledger line: $(cat "$TMP/out")"

# The current billboard: its snapshot is its own publication's.
run 0 show --json
v=$(out 'd["version"]')
snap_eps=$(out 'd["privacy"]["episodes"]')
[ "$v" -ge 1 ] || fail "no update after 12 episodes"
run 0 show
section "$TMP/out" "^privacy when version $v was published" >"$TMP/snap"
[ "$(field "$TMP/snap" episodes)" = "$snap_eps of 64" ] || fail "snapshot of v$v: $(cat "$TMP/snap")"
check_now
# --json stays the billboard's canonical bytes.
run 0 show --json
req GET /v1/billboard
printf '\n' >>"$TMP/body"
cmp -s "$TMP/out" "$TMP/body" || fail "show --json differs from GET /v1/billboard"

# With the daemon gone, show fails as before (exit 3), nothing half-printed
# is taken for the ledger.
stop_daemon
run 3 show --retries 1
echo ok
