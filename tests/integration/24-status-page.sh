#!/usr/bin/env bash
# The status page at GET /: served to anyone as HTML with everything inline
# (a Content-Security-Policy that allows no other origin) and rendered by
# headless Chromium (Debian's chromium, deploy/install-deps) after episodes
# and updates: the DOM it builds holds the numbers /v1/privacy and
# /v1/history give, the budget chart and the versions chart are drawn, and a
# screenshot is taken (kept in the test's temp dir; KEEP_SHOT=FILE copies it).
. "$(dirname "$0")/lib.sh"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || fail "no chromium (deploy/install-deps installs it)"
start_daemon "${CONF[@]}"
tok=$(enrol "clinic")
post_episodes "$tok" 30
wait_published

req GET /
expect_status 200
[ "$(header Content-Type)" = "text/html; charset=utf-8" ] || fail "Content-Type $(header Content-Type)"
header Content-Security-Policy | grep -q "default-src 'none'" || fail "no CSP"
grep -Eiq '(src|href)="(https?:)?//' "$TMP/body" && fail "the page loads an external asset"
req GET /v1/history
expect_status 200
cp "$TMP/body" "$TMP/history.json"
req GET /v1/privacy
cp "$TMP/body" "$TMP/privacy.json"
python3 - "$TMP/history.json" "$TMP/privacy.json" <<'PY' || fail "history: $(cat "$TMP/history.json")"
import json, sys
h = json.load(open(sys.argv[1]))["versions"]; p = json.load(open(sys.argv[2]))
assert [v["version"] for v in h] == list(range(p["billboard_version"] + 1)), h
assert h[0]["episode"] == 0, h[0]
assert all(a["episode"] <= b["episode"] for a, b in zip(h, h[1:])), h
assert all(isinstance(v["published"], int) for v in h), h
assert all(a["published"] <= b["published"] for a, b in zip(h, h[1:])), h
PY

# The publication times are stored with the billboards: a restart keeps
# them. A database from before they were stored gains the column, with no
# time for the versions it held.
stop_daemon
start_daemon "${CONF[@]}"
req GET /v1/history
cmp -s "$TMP/body" "$TMP/history.json" || fail "history after a restart: $(cat "$TMP/body")"
stop_daemon
sqlite3 "$DB" "ALTER TABLE billboards DROP COLUMN published"
start_daemon "${CONF[@]}"
req GET /v1/history
python3 - "$TMP/body" "$TMP/history.json" <<'PY' || fail "history of an old database: $(cat "$TMP/body")"
import json, sys
h = json.load(open(sys.argv[1]))["versions"]; before = json.load(open(sys.argv[2]))["versions"]
assert [v["version"] for v in h] == [v["version"] for v in before], h
assert all(v["published"] is None for v in h), h
PY
sqlite3 "$DB" "SELECT count(*) FROM pragma_table_info('billboards') WHERE name = 'published'" |
    grep -qx 1 || fail "the column was not added back"
stop_daemon
start_daemon "${CONF[@]}"

# Chromium, headless: no network beyond loopback, a fresh profile.
chrome() {
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --disable-dev-shm-usage --user-data-dir="$(mktemp -d -p "$TMP")" \
        --virtual-time-budget=10000 --window-size=1000,800 "$@" 2>>"$TMP/chromium.log"
}
chrome --dump-dom "$URL/" >"$TMP/dom.html" || fail "chromium --dump-dom: $(tail -5 "$TMP/chromium.log")"
python3 - "$TMP/dom.html" "$TMP/privacy.json" "$TMP/history.json" <<'PY' || fail "the page did not render the data"
import html.parser, json, sys
dom = open(sys.argv[1]).read(); p = json.load(open(sys.argv[2])); h = json.load(open(sys.argv[3]))["versions"]
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.text = {}; self.cur = None; self.tags = []; self.attrs = []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs); self.tags.append(tag); self.attrs.append((tag, a))
        if "id" in a: self.cur = a["id"]; self.text[self.cur] = ""
    def handle_data(self, data):
        if self.cur: self.text[self.cur] += data
    def handle_endtag(self, tag):
        self.cur = None
d = P(); d.feed(dom)
assert any(t == "body" and a.get("data-rendered") == "1" for t, a in d.attrs), "not rendered"
t = d.text
assert t["health"] == "ready", t["health"]
assert t["version"] == str(p["billboard_version"]), (t["version"], p)
assert t["episodes"] == "30" and t["max-episodes"] == str(p["max_episodes"]), t
assert t["updates"] == str(p["updates"]) and t["max-updates"] == str(p["max_updates"]), t
assert t["build"].startswith("billboardd "), t["build"]
rects = [a for tag, a in d.attrs if tag == "rect" and "data-part" in a]
assert [r["data-part"] for r in rects] == ["warm-up", "gram", "y", "left"], rects
assert sum(float(r["width"]) for r in rects) > 590, rects  # the whole budget drawn
circles = [a for tag, a in d.attrs if tag == "circle"]
assert len(circles) == len(h), (len(circles), len(h))
rows = dom.count("<tr>") - 1
assert rows == len(h), (rows, len(h))
print("rendered: version %s, %d versions, %s episodes" % (t["version"], len(h), t["episodes"]))
PY
chrome --screenshot="$TMP/status.png" "$URL/" >/dev/null || fail "chromium --screenshot: $(tail -5 "$TMP/chromium.log")"
[ -s "$TMP/status.png" ] || fail "no screenshot"
[ "$(head -c 8 "$TMP/status.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "the screenshot is not a PNG"
[ -n "${KEEP_SHOT:-}" ] && cp "$TMP/status.png" "$KEEP_SHOT"
stop_daemon
echo ok
