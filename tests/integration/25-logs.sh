#!/usr/bin/env bash
# The daemon's log under make-run-sized traffic: billboard-sim over HTTP
# (three clinics, 600 episodes, several updates). Every line has an RFC 3339
# UTC timestamp and a level; there is an access line per request (each
# accepted episode's POST among them, with the clinic's id and never a
# token), an "update" line per update charged and a "publish" line per
# billboard served. Then the same with --log-format json (every line one
# JSON object) and --access-log off (no access lines).
. "$(dirname "$0")/lib.sh"
SIM="$O/billboard-sim"
[ -x "$SIM" ] || fail "no $SIM"
flags=(--horizon 5 --dim 8 --actions 5 --max-episodes 1000 --rho 100000 --beta 2
       --mechanism tree --shift-scale 3.3) # 50-sim-http.sh's: updates one at a time
start_daemon "${flags[@]}"
: >"$TMP/tokens"
for n in North South East; do enrol "$n clinic" >>"$TMP/tokens"; done
"$SIM" --server "$URL" --token-file "$TMP/tokens" --clinics 3 --episodes 600 --quiet \
    2>"$TMP/sim.log" || fail "billboard-sim: $(cat "$TMP/sim.log")"
wait_published
req GET /v1/privacy
updates=$(jget "$TMP/body" 'd["updates"]')
version=$(jget "$TMP/body" 'd["billboard_version"]')
[ "$version" -ge 3 ] || fail "only $version billboard versions in 600 episodes"
stop_daemon
LOG="$TMP/daemon.log"

python3 - "$LOG" "$updates" "$version" "$TMP/tokens" "$ADMIN" <<'PY' || fail "the log (above)"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
updates, version = int(sys.argv[2]), int(sys.argv[3])
secrets = [t for t in open(sys.argv[4]).read().split() if t] + [sys.argv[5]]
stamp = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (info|warn|error) billboardd: (.*)$")
events = []
for l in lines:
    m = stamp.match(l)
    assert m, "a line without a timestamp and level: %r" % l
    events.append(m.group(2))
    for s in secrets:
        assert s not in l, "a token in the log: %r" % l
access = [e for e in events if e.startswith("access ")]
posts = [e for e in access if " method=POST route=/v1/episodes status=201 " in e]
assert len(posts) == 600, "%d access lines for 600 accepted episodes" % len(posts)
for e in posts:
    assert re.search(r" bytes=\d+ latency_ms=[0-9.e-]+ clinic=[123]$", e), e
# Every request the test and the simulator made has its line: the clinics'
# enrolment, the privacy read, and at least one billboard read.
assert sum(" route=/v1/clinics status=201 " in e for e in access) == 3
assert any(" route=/v1/billboard" in e for e in access)
assert any(" route=/v1/privacy status=200 " in e for e in access)
upd = [e for e in events if e.startswith("update ")]
pub = [e for e in events if e.startswith("publish ")]
assert len(upd) == updates, "%d update lines, %d updates" % (len(upd), updates)
assert len(pub) == version, "%d publish lines, version %d" % (len(pub), version)
for i, e in enumerate(pub, 1):
    m = re.match(r"publish version=(\d+) episodes=(\d+) duration_s=\S+ updates=\d+ rho_spent=(\S+) rho=100000$", e)
    assert m and int(m.group(1)) == i, e
    assert 0 < float(m.group(3)) <= 100000, e
for e in upd:
    assert re.match(r"update update=\d+ max_updates=\d+ episodes=\d+ rho_spent=\S+ rho=100000$", e), e
print("log: %d lines, %d access, %d update, %d publish" % (len(lines), len(access), len(upd), len(pub)))
PY

# JSON lines, with access lines; then no access lines when switched off.
: >"$LOG"
start_daemon --log-format json
req GET /v1/billboard
expect_status 200
stop_daemon
python3 - "$LOG" <<'PY' || fail "json log: $(cat "$LOG")"
import json, re, sys
objs = [json.loads(l) for l in open(sys.argv[1]).read().splitlines()]
assert objs and all(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$", o["time"]) and
                    o["level"] in ("info", "warn", "error") for o in objs), objs
a = [o for o in objs if o["msg"] == "access"]
assert len(a) == 1 and a[0]["route"] == "/v1/billboard" and a[0]["status"] == 200, a
assert isinstance(a[0]["bytes"], int) and a[0]["bytes"] > 0, a
PY
: >"$LOG"
start_daemon --access-log off
req GET /v1/billboard
expect_status 200
stop_daemon
grep -q "access" "$LOG" && fail "--access-log off still logs requests: $(cat "$LOG")"
grep -q "serving" "$LOG" || fail "no start line"
echo "ok"
