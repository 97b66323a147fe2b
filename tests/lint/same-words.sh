#!/usr/bin/env bash
# README.md, docs/DAEMON.md and docs/PRIVACY.md state the neighbouring
# relation and what is public in the same words: the sentence after
# "**Neighbours and what is public.**" in PRIVACY.md's threat model appears
# verbatim, on one line, in the other two (issue 28).
set -euo pipefail
cd "$(dirname "$0")/../.."
sentence=$(sed -n 's/^- \*\*Neighbours and what is public\.\*\* //p' docs/PRIVACY.md)
[ -n "$sentence" ] || { echo "docs/PRIVACY.md: no '**Neighbours and what is public.**' line"; exit 1; }
case $sentence in
*replacing*"/v1/privacy"*"/metrics"*) ;;
*) echo "docs/PRIVACY.md: the sentence lost its relation or its public list: $sentence"; exit 1 ;;
esac
rc=0
for f in README.md docs/DAEMON.md; do
    grep -qF -- "$sentence" "$f" || { echo "$f does not say, in these words: $sentence"; rc=1; }
done
[ "$rc" = 0 ] && echo "the neighbouring relation and what is public: the same words in README, DAEMON and PRIVACY"
exit $rc
