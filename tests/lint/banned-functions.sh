#!/usr/bin/env bash
# House style (STYLE.md, after git's banned.h): no strcpy, strcat, sprintf,
# vsprintf, strtok, atoi/atol/atoll/atof or gets anywhere in our C sources.
# They overflow, lose errors, or keep hidden state; use snprintf, strtol,
# strtod, strtok_r instead.
set -euo pipefail
cd "$(dirname "$0")/../.."
hits=$(grep -rnE '\b(strcpy|strcat|sprintf|vsprintf|strtok|atoi|atol|atoll|atof|gets)[[:space:]]*\(' \
    --include='*.c' --include='*.h' server client proto include bench tests || true)
if [ -n "$hits" ]; then
    echo "banned functions used:"
    echo "$hits"
    exit 1
fi
echo "no banned functions"
