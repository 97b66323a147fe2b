#!/usr/bin/env bash
# make install with DESTDIR and PREFIX puts libbillboard (static and shared),
# the headers client.h needs and billboard.pc where pkg-config finds them; a
# program built only from the installed tree (pkg-config --define-prefix)
# links, runs, and talks to a real billboardd.
# The host's part: billboardd, the systemd unit with ExecStart and
# Documentation= at PREFIX's paths (for /usr and /usr/local), passing
# systemd-analyze verify without a warning, the example configuration and
# the documentation with every relative link resolving; the installed
# billboardd --help runs, and the installed daemon serves from the installed
# example configuration the way the unit starts it.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DEST="$TMP/inst"
# Run from `make test`, MAKEFLAGS carries the parent's command-line variables
# (SANITIZER=..., OPT=...), so the sub-make sees the same build, which `make
# test` has already brought up to date (TEST_DEPS): install only copies.
make -s -C "$ROOT" O="$(cd "$O" && pwd)" install DESTDIR="$DEST" PREFIX=/usr \
    >"$TMP/make.log" 2>&1 || { cat "$TMP/make.log"; fail "make install"; }
grep -Eq '^  (CC|LD|AR) ' "$TMP/make.log" && fail "make install rebuilt something: $(cat "$TMP/make.log")"
for f in usr/lib/libbillboard.a usr/lib/libbillboard.so.7 usr/lib/libbillboard.so \
    usr/lib/pkgconfig/billboard.pc usr/bin/billboard usr/include/billboard/client.h \
    usr/include/billboard/billboard.h usr/include/billboard/codec.h \
    usr/include/billboard/episode.h usr/include/billboard/err.h; do
    [ -e "$DEST/$f" ] || fail "not installed: $f"
done
[ -e "$DEST/usr/include/billboard/engine.h" ] && fail "a server header was installed"

# The host's part.
DOC=usr/share/doc/billboard
host_files=(usr/bin/billboardd usr/lib/systemd/system/billboardd.service "$DOC/README.md"
    "$DOC/examples/billboardd.conf" "$DOC/proto/openapi.yaml" "$DOC/deploy/billboard-alerts.yml"
    usr/share/man/man8/billboardd.8 usr/share/man/man1/billboard.1)
for f in "$ROOT"/docs/*.md "$ROOT"/docs/img/*.png; do host_files+=("$DOC/docs/${f#"$ROOT/docs/"}"); done
for f in "${host_files[@]}"; do
    [ -f "$DEST/$f" ] || fail "not installed: $f"
    want=644
    [ "$f" = usr/bin/billboardd ] && want=755
    [ "$(stat -c %a "$DEST/$f")" = "$want" ] || fail "$f has mode $(stat -c %a "$DEST/$f"), want $want"
done
cmp -s "$DEST/$DOC/examples/billboardd.conf" "$ROOT/deploy/billboardd.conf" || fail "example config differs"
cmp -s "$DEST/$DOC/docs/DAEMON.md" "$ROOT/docs/DAEMON.md" || fail "DAEMON.md differs"
[ -z "$(find "$DEST/etc" 2>/dev/null)" ] || fail "make install wrote to /etc"
# Every relative link of the installed documents resolves in the installed tree.
python3 - "$DEST/$DOC" <<'PY' || fail "a broken link in the installed documentation"
import os, re, sys
root = sys.argv[1]
bad = []
for d, _, files in os.walk(root):
    for f in files:
        if not f.endswith(".md"):
            continue
        for link in re.findall(r"\]\(([^)#\s]+)", open(os.path.join(d, f)).read()):
            if re.match(r"[a-z]+:", link):
                continue
            if not os.path.exists(os.path.normpath(os.path.join(d, link))):
                bad.append("%s: %s" % (os.path.join(d, f), link))
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
PY

# The unit: every placeholder filled with PREFIX's paths, its
# documentation installed, credentials named as ExecStart uses them.
unit_check() { # DESTDIR PREFIX
    local dest=$1 prefix=$2 unit="$1$2/lib/systemd/system/billboardd.service" doc
    [ -f "$unit" ] || fail "no unit at $unit"
    grep -q @ "$unit" && fail "placeholder left in the unit: $(grep @ "$unit")"
    grep -qx "ExecStart=$prefix/bin/billboardd --config %d/billboardd.conf --admin-token-file %d/admin-token" "$unit" ||
        fail "ExecStart for $prefix: $(grep ExecStart "$unit")"
    grep -qx 'LoadCredential=billboardd.conf:/etc/billboard/billboardd.conf' "$unit" || fail "conf credential"
    grep -qx 'LoadCredential=admin-token:/etc/billboard/admin-token' "$unit" || fail "token credential"
    sed -n 's/^Documentation=//p' "$unit" | tr ' ' '\n' >"$TMP/docs"
    [ -s "$TMP/docs" ] || fail "no Documentation= in the unit"
    while read -r doc; do
        case "$doc" in file://"$prefix"/share/doc/billboard/*) ;; *) fail "Documentation=$doc" ;; esac
        [ -f "$dest${doc#file://}" ] || fail "Documentation= names $doc, not installed"
    done <"$TMP/docs"
    [ -x "$dest$prefix/bin/billboardd" ] || fail "no billboardd under $prefix"
    # systemd's own check, on a copy whose ExecStart is the installed binary.
    sed "s|^ExecStart=$prefix/bin/|ExecStart=$dest$prefix/bin/|" "$unit" >"$TMP/unit/billboardd.service"
    systemd-analyze verify "$TMP/unit/billboardd.service" >"$TMP/verify" 2>&1 ||
        fail "systemd-analyze verify: $(cat "$TMP/verify")"
    [ ! -s "$TMP/verify" ] || fail "systemd-analyze verify warns: $(cat "$TMP/verify")"
}
mkdir -p "$TMP/unit"
unit_check "$DEST" /usr
make -s -C "$ROOT" O="$(cd "$O" && pwd)" install DESTDIR="$TMP/local" PREFIX=/usr/local \
    >"$TMP/make.log" 2>&1 || { cat "$TMP/make.log"; fail "make install PREFIX=/usr/local"; }
unit_check "$TMP/local" /usr/local

# The installed billboardd: --help, and serving from the installed example
# configuration as the unit starts it (--config, --admin-token-file), with
# the database, the address and the port overridden for the test.
"$DEST/usr/bin/billboardd" --help >"$TMP/help" || fail "installed billboardd --help"
# --version on every program, the same build's; the man pages render
# without a warning and name what they document.
v=$("$DEST/usr/bin/billboardd" --version) || fail "installed billboardd --version"
[[ "$v" =~ ^billboardd\ [0-9A-Za-z.+-]+$ ]] || fail "billboardd --version: $v"
[ "$("$DEST/usr/bin/billboard" --version)" = "billboard ${v#billboardd }" ] ||
    fail "billboard --version: $("$DEST/usr/bin/billboard" --version), billboardd's $v"
[ "$("$O/billboard-sim" --version)" = "billboard-sim ${v#billboardd }" ] || fail "billboard-sim --version"
for m in man8/billboardd.8 man1/billboard.1; do
    page="$DEST/usr/share/man/$m"
    MANWIDTH=80 man --warnings -l "$page" >"$TMP/man.txt" 2>"$TMP/man.err" || fail "man -l $m: $(cat "$TMP/man.err")"
    [ ! -s "$TMP/man.err" ] || fail "man -l $m warns: $(cat "$TMP/man.err")"
    name=$(basename "$m"); name=${name%.*}
    grep -q "^NAME" "$TMP/man.txt" || fail "$m renders without NAME"
    grep -q -- "--version" "$TMP/man.txt" || fail "$m does not mention --version"
    grep -q "$name" "$TMP/man.txt" || fail "$m does not name $name"
done
grep -q -- '--config FILE' "$TMP/help" || fail "--help does not mention --config"
"$DEST/usr/bin/billboardd" --config "$DEST/$DOC/examples/billboardd.conf" --print-params \
    >"$TMP/params" || fail "the example configuration does not derive"
[ "$(jget "$TMP/params" 'd["H"], d["d"], d["A"], d["K_max"], round(d["epsilon"], 9)')" = "(10, 16, 8, 100000, 1.0)" ] ||
    fail "example configuration: $(head -c 300 "$TMP/params")"
BB="$DEST/usr/bin/billboardd" start_daemon --config "$DEST/$DOC/examples/billboardd.conf"
req GET /v1/config
expect_status 200
[ "$(jget "$TMP/body" 'd["H"], d["d"], d["A"]')" = "(10, 16, 8)" ] || fail "served config: $(cat "$TMP/body")"
[ "$(jget "$TMP/body" 'd["version"]')" = "${v#billboardd }" ] || fail "served version vs $v"
tok=$(enrol installed)
[ -n "$tok" ] || fail "no token from the installed daemon"
stop_daemon
rm -f "$DB"
grep -q '^prefix=/usr$' "$DEST/usr/lib/pkgconfig/billboard.pc" || fail "prefix in billboard.pc"

PC=(pkg-config --define-prefix --with-path="$DEST/usr/lib/pkgconfig")
cflags=$("${PC[@]}" --cflags billboard) || fail "pkg-config --cflags"
libs=$("${PC[@]}" --libs billboard) || fail "pkg-config --libs"
case "$cflags" in *"$DEST/usr/include"*) ;; *) fail "cflags $cflags" ;; esac
case "$libs" in *"-L$DEST/usr/lib"*"-lbillboard"*) ;; *) fail "libs $libs" ;; esac

cat >"$TMP/consumer.c" <<'C'
#include <billboard/client.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    struct bb_client *c = NULL;
    struct bb_config_info cfg = {0};
    int rc = bb_client_new(argv[1], NULL, NULL, &c);
    if (rc == BB_OK)
        rc = bb_client_fetch_billboard(c, NULL);
    if (rc == BB_OK)
        rc = bb_client_config(c, &cfg);
    if (rc == BB_OK)
        printf("H=%d version=%llu K_max=%lld\n", bb_client_billboard(c)->H,
               (unsigned long long)bb_client_billboard(c)->version, (long long)cfg.K_max);
    else
        fprintf(stderr, "%s\n", bb_strerror(rc));
    bb_config_info_release(&cfg);
    bb_client_free(c);
    return argc > 1 && rc == BB_OK ? 0 : 1;
}
C
san=()
# A sanitizer build (make SANITIZER=...) installs instrumented code.
nm -D "$DEST/usr/lib/libbillboard.so.7" >"$TMP/nm"
if grep -q __asan "$TMP/nm"; then san=("-fsanitize=address,undefined"); fi
# shellcheck disable=SC2086
cc -std=c11 -Wall -Wextra -Werror "${san[@]}" -o "$TMP/consumer" "$TMP/consumer.c" $cflags $libs \
    -Wl,-rpath,"$DEST/usr/lib" || fail "cannot build against the installed library"
ldd "$TMP/consumer" >"$TMP/ldd"
grep -q "$DEST/usr/lib/libbillboard.so.7" "$TMP/ldd" || fail "not linked to the installed .so: $(cat "$TMP/ldd")"

start_daemon --horizon 4 --dim 2 --actions 3 --max-episodes 7 --rho 5
"$TMP/consumer" "$URL" >"$TMP/out" || fail "consumer failed"
[ "$(cat "$TMP/out")" = "H=4 version=0 K_max=7" ] || fail "consumer said: $(cat "$TMP/out")"
stop_daemon
echo ok
