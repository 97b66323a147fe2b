#!/usr/bin/env bash
# Fails when a layer reaches the wrong way (docs/ARCHITECTURE.md):
#
#   include/billboard  public API: includes only itself
#   proto              shared by both sides: public API and itself
#   server/engine      the algorithm: proto and itself; never HTTP, SQLite, curl
#   server             the daemon: proto, engine/ and itself; never curl; the
#                      only layer with GnuTLS (tls.c)
#   client, client/cli the clinic side: proto and itself; never the engine,
#                      the daemon or libmicrohttpd
#   client/sim         the simulator: proto, engine/, libbillboard and itself
#
# A quoted include is resolved the way the build resolves it: a sibling in
# the file's own folder, "billboard/..." (include/), "engine/..." (the
# engine, by path), or a header of proto/. Anything else, and any "..", is a
# layer violation. The per-layer include paths in the Makefile make most of
# these fail to compile too; this names the rule that was broken.
set -u
cd "$(dirname "$0")/.." || exit 2
bad=0
say() { echo "check-layers: $1" >&2; bad=1; }

check() { # FILE ENGINE_OK(0/1) PROTO_OK(0/1) FORBIDDEN-SYSTEM-REGEX
    local f=$1 engine_ok=$2 proto_ok=$3 forbid=$4 dir inc
    dir=$(dirname "$f")
    while IFS= read -r inc; do
        case "$inc" in
        *..*) say "$f includes \"$inc\": no relative paths across folders" ;;
        billboard/*) [ -f "include/$inc" ] || say "$f includes \"$inc\": no such public header" ;;
        engine/*)
            if [ "$engine_ok" != 1 ]; then say "$f includes \"$inc\": this layer may not use the engine"
            elif [ ! -f "server/$inc" ]; then say "$f includes \"$inc\": no such engine header"; fi ;;
        *)
            if [ -f "$dir/$inc" ]; then :
            elif [ "$proto_ok" = 1 ] && [ -f "proto/$inc" ]; then :
            else say "$f includes \"$inc\": not its own folder's, not public, not proto's"; fi ;;
        esac
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
    if [ -n "$forbid" ] &&
        grep -nE "^[[:space:]]*#[[:space:]]*include[[:space:]]*<($forbid)" "$f" >&2; then
        say "$f: this layer may not use that library"
    fi
}

for f in include/billboard/*.h; do check "$f" 0 0 "microhttpd|sqlite3|curl/|gnutls/"; done
for f in proto/*.[ch]; do check "$f" 0 1 "microhttpd|sqlite3|curl/|gnutls/"; done
for f in server/engine/*.[ch]; do check "$f" 0 1 "microhttpd|sqlite3|curl/|gnutls/"; done
for f in server/*.[ch]; do check "$f" 1 1 "curl/"; done
for f in client/*.[ch] client/cli/*.[ch]; do check "$f" 0 1 "microhttpd|gnutls/"; done
for f in client/sim/*.[ch]; do check "$f" 1 1 "microhttpd|gnutls/"; done
for f in bench/*.c; do check "$f" 1 1 ""; done
exit $bad
