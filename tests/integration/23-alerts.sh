#!/usr/bin/env bash
# The README's alerts work on what the daemon exports. The expressions of
# deploy/billboard-alerts.yml are the README's table's, word for word; with
# promtool (Debian's prometheus package) the rules are evaluated over two
# real scrapes of /metrics: one of a healthy daemon (nothing fires) and one
# taken on the same connection right after a forced storage failure
# answered 503 (as in 20-storage-failure.sh): BillboardServerErrors and
# BillboardNotReady fire.
. "$(dirname "$0")/lib.sh"
ROOT="$TESTS_DIR/../.."
RULES="$ROOT/deploy/billboard-alerts.yml"
command -v promtool >/dev/null || fail "no promtool (deploy/install-deps installs prometheus)"
promtool check rules "$RULES" >/dev/null || fail "promtool rejects $RULES"
# PyYAML comes with deploy/install-deps (python3-yaml); use whichever python3 has it.
YPY=
for py in "$PYTHON" /usr/bin/python3; do
    if "$py" -c 'import yaml' 2>/dev/null; then YPY=$py; break; fi
done
[ -n "$YPY" ] || fail "no python3 with PyYAML (deploy/install-deps installs python3-yaml)"

# The README's expressions are the rules'.
"$YPY" - "$RULES" "$ROOT/README.md" <<'PY' || fail "README's alert table and $RULES disagree"
import re, sys, yaml
rules = [r for g in yaml.safe_load(open(sys.argv[1]))["groups"] for r in g["rules"]]
readme = open(sys.argv[2]).read()
table = readme[readme.index("### Metrics worth alerting on"):readme.index("## Layout")]
shown = re.findall(r"^\|[^|]*\| `([^`]*)` \|$", table, re.M)
assert sorted(shown) == sorted(r["expr"].strip() for r in rules), (shown, [r["expr"] for r in rules])
PY

start_daemon --horizon 3 --dim 4 --actions 2 --max-episodes 1000 --rho 100000
tok=$(enrol "clinic")
for i in 1 2 3; do
    episode "$i" >"$TMP/e"
    post_episode "$tok" "k$i" "$TMP/e"
    expect_status 201
done
wait_published
req GET /metrics -H "Authorization: Bearer $ADMIN"
expect_status 200
cp "$TMP/body" "$TMP/scrape0"
grep -q '^billboard_ready 1$' "$TMP/scrape0" || fail "not ready before the failure"

# The storage failure: the write lock held past the busy timeout.
(printf '.timeout 5000\nBEGIN EXCLUSIVE;\nINSERT INTO meta(key, value) VALUES ("lock", 1);\n'
 printf '.shell touch %s\n' "$TMP/locked"
 sleep 13
 printf 'ROLLBACK;\n') | sqlite3 "$DB" &
locker=$!
for _ in $(seq 1 100); do
    [ -e "$TMP/locked" ] && break
    sleep 0.1
done
[ -e "$TMP/locked" ] || fail "the locker never took the write lock"
episode 4 >"$TMP/e"
# One connection: the episode (503), then the scrape while the daemon stops.
curl -s --max-time 30 -o "$TMP/post" -w '%{http_code}\n' -X POST "$URL/v1/episodes" \
    -H "Authorization: Bearer $tok" -H "Idempotency-Key: k4" -H 'Content-Type: application/json' \
    --data-binary "@$TMP/e" \
    --next -s -o "$TMP/scrape1" -w '%{http_code}\n' -H @<(printf 'Authorization: Bearer %s\n' "$ADMIN") \
    "$URL/metrics" >"$TMP/codes" || true
[ "$(sed -n 1p "$TMP/codes")" = 503 ] || fail "the forced failure answered $(cat "$TMP/codes")"
[ "$(sed -n 2p "$TMP/codes")" = 200 ] || fail "the scrape after it answered $(sed -n 2p "$TMP/codes")"
grep -q '^billboard_http_requests_total{route="/v1/episodes",method="POST",code="503"} 1$' \
    "$TMP/scrape1" || fail "the 503 is not counted: $(grep requests_total "$TMP/scrape1")"
kill_daemon
kill "$locker" 2>/dev/null || true
wait "$locker" 2>/dev/null || true

# Both scrapes as promtool series, one minute apart: healthy at 0m, the
# failure's scrape from 1m on.
"$YPY" - "$TMP/scrape0" "$TMP/scrape1" "$RULES" >"$TMP/test.yml" <<'PY'
import json, math, sys, yaml
summary = {r["alert"]: r["annotations"]["summary"]
           for g in yaml.safe_load(open(sys.argv[3]))["groups"] for r in g["rules"]}
def samples(path):
    out = {}
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        name, value = line.rsplit(" ", 1)
        v = float(value)
        if math.isfinite(v):
            out[name] = v
    return out
a, b = samples(sys.argv[1]), samples(sys.argv[2])
series = []
for name in sorted(set(a) | set(b)):
    first = "%.17g" % a[name] if name in a else "_"
    later = "%.17g" % b[name] if name in b else "_"
    series.append({"series": name, "values": " ".join([first] + [later] * 10)})
alerts = ["BillboardNotReady", "BillboardServerErrors", "BillboardEpisodesNearEnd",
          "BillboardUpdatesExhausted", "BillboardOverspent", "BillboardSlowUpdates",
          "BillboardSlowRequests", "BillboardCertExpiresSoon"]
tests = [{"interval": "1m", "input_series": series, "alert_rule_test":
          [{"eval_time": "0m", "alertname": n, "exp_alerts": []} for n in alerts] +
          [{"eval_time": "5m", "alertname": "BillboardServerErrors", "exp_alerts": [
              {"exp_labels": {"severity": "page", "route": "/v1/episodes"},
               "exp_annotations": {"summary": "/v1/episodes answered 5xx in the last 10 minutes"}}]},
           {"eval_time": "5m", "alertname": "BillboardNotReady", "exp_alerts": [
              {"exp_labels": {"severity": "page"}, "exp_annotations": {"summary": summary["BillboardNotReady"]}}]}]}]
print(json.dumps({"rule_files": [sys.argv[3]], "evaluation_interval": "1m", "tests": tests}))
PY
promtool test rules "$TMP/test.yml" >"$TMP/promtool.out" 2>&1 ||
    fail "the alerts do not fire as they should: $(cat "$TMP/promtool.out")"
echo ok
