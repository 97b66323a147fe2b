#!/usr/bin/env bash
# proto/openapi.yaml lints clean under Spectral's spectral:oas ruleset
# (tests/lint/spectral.yaml): any warning or error fails.
#
# Spectral comes from npm, pinned by tests/lint/package.json and
# package-lock.json, installed with `npm ci` into build/node (git-ignored;
# LINT_NODE_DIR overrides) when missing or when the lock file changed. It
# needs node >= 18.18 and npm (deploy/install-deps installs Debian's nodejs
# and npm) and, the first time, the npm registry; without them this fails
# and says which.
set -euo pipefail
cd "$(dirname "$0")/../.."
LINT=tests/lint
NODE_DIR=${LINT_NODE_DIR:-build/node}
SPECTRAL=$NODE_DIR/node_modules/.bin/spectral

die() {
    echo "spectral.sh: $*" >&2
    exit 1
}

command -v node >/dev/null || die "no node: run deploy/install-deps (Debian's nodejs and npm)"
command -v npm >/dev/null || die "no npm: run deploy/install-deps (Debian's nodejs and npm)"
node -e 'const [a, b] = process.versions.node.split(".").map(Number);
         process.exit(a > 18 || (a === 18 && b >= 18) ? 0 : 1)' ||
    die "node $(node --version) is too old for Spectral (needs >= 18.18)"

if [ ! -x "$SPECTRAL" ] || ! cmp -s "$LINT/package-lock.json" "$NODE_DIR/package-lock.json"; then
    mkdir -p "$NODE_DIR"
    cp "$LINT/package.json" "$LINT/package-lock.json" "$NODE_DIR/"
    echo "spectral.sh: installing Spectral (npm ci in $NODE_DIR)"
    # No install scripts run: Spectral needs none.
    if ! (cd "$NODE_DIR" && npm ci --no-audit --no-fund --ignore-scripts \
        --fetch-retries=2 --fetch-timeout=60000 >npm-ci.log 2>&1); then
        tail -n 20 "$NODE_DIR/npm-ci.log" >&2
        rm -f "$NODE_DIR/package-lock.json" # try again next time
        die "cannot install Spectral: npm ci failed (above). Is the npm registry" \
            "$(npm config get registry) reachable from here?"
    fi
fi
"$SPECTRAL" --version | sed 's/^/spectral /'
"$SPECTRAL" lint --fail-severity=warn --ruleset "$LINT/spectral.yaml" proto/openapi.yaml ||
    die "proto/openapi.yaml has Spectral findings (above); fix them in the spec"
echo "proto/openapi.yaml: no Spectral findings"
