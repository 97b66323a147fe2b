#!/usr/bin/env bash
# Every shell script of the repository is clean under `shellcheck -x`
# (settings in /.shellcheckrc). A script is a file named *.sh or one whose
# first line is a sh/bash/dash/ksh shebang, wherever it lives (tests/,
# deploy/, client/sim/, bench/, .ci/, docker/, ...): the files git knows,
# tracked or new but not ignored, or every file when this is not a git
# checkout.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v shellcheck >/dev/null || {
    echo "shellcheck.sh: no shellcheck: run deploy/install-deps" >&2
    exit 1
}

candidates() {
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files -z --cached --others --exclude-standard
    else
        find . -path ./build -prune -o -path './build-*' -prune -o -name .git -prune -o \
            -name node_modules -prune -o -type f -printf '%P\0'
    fi
}

scripts=()
while IFS= read -r -d '' f; do
    [ -f "$f" ] || continue # deleted but still in the index
    case "$f" in
    *.sh) scripts+=("$f") ;;
    *)
        first=$(head -n 1 "$f" 2>/dev/null | tr -d '\0') || true
        if [[ "$first" =~ ^#![[:space:]]*(/usr)?(/bin/|/bin/env[[:space:]]+)(sh|bash|dash|ksh)([[:space:]]|$) ]]; then
            scripts+=("$f")
        fi
        ;;
    esac
done < <(candidates)
[ "${#scripts[@]}" -gt 0 ] || {
    echo "shellcheck.sh: found no shell scripts" >&2
    exit 1
}
echo "shellcheck $(shellcheck --version | sed -n 's/^version: //p') on ${#scripts[@]} scripts"
if ! shellcheck -x "${scripts[@]}"; then
    echo "shellcheck.sh: findings above" >&2
    exit 1
fi
echo "shellcheck: clean"
