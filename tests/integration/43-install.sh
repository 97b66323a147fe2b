#!/usr/bin/env bash
# make install with DESTDIR and PREFIX puts libbillboard (static and shared),
# the headers client.h needs and billboard.pc where pkg-config finds them; a
# program built only from the installed tree (pkg-config --define-prefix)
# links, runs, and talks to a real billboardd.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DEST="$TMP/inst"
# Run from `make test`, MAKEFLAGS carries the parent's command-line variables
# (SANITIZER=..., OPT=...), so the sub-make sees the same build, which `make
# test` has already brought up to date (TEST_DEPS): install only copies.
make -s -C "$ROOT" O="$(cd "$O" && pwd)" install DESTDIR="$DEST" PREFIX=/usr \
    >"$TMP/make.log" 2>&1 || { cat "$TMP/make.log"; fail "make install"; }
grep -Eq '^  (CC|LD|AR) ' "$TMP/make.log" && fail "make install rebuilt something: $(cat "$TMP/make.log")"
for f in usr/lib/libbillboard.a usr/lib/libbillboard.so.1 usr/lib/libbillboard.so \
    usr/lib/pkgconfig/billboard.pc usr/bin/billboard usr/include/billboard/client.h \
    usr/include/billboard/billboard.h usr/include/billboard/codec.h \
    usr/include/billboard/episode.h usr/include/billboard/err.h; do
    [ -e "$DEST/$f" ] || fail "not installed: $f"
done
[ -e "$DEST/usr/include/billboard/engine.h" ] && fail "a server header was installed"
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
    json_t *cfg = NULL;
    int rc = bb_client_new(argv[1], NULL, NULL, &c);
    if (rc == BB_OK)
        rc = bb_client_fetch_billboard(c, NULL);
    if (rc == BB_OK)
        rc = bb_client_config(c, &cfg);
    if (rc == BB_OK)
        printf("H=%d version=%llu K_max=%lld\n", bb_client_billboard(c)->H,
               (unsigned long long)bb_client_billboard(c)->version,
               (long long)json_integer_value(json_object_get(cfg, "K_max")));
    else
        fprintf(stderr, "%s\n", bb_strerror(rc));
    json_decref(cfg);
    bb_client_free(c);
    return argc > 1 && rc == BB_OK ? 0 : 1;
}
C
san=()
# A sanitizer build (make SANITIZER=...) installs instrumented code.
nm -D "$DEST/usr/lib/libbillboard.so.1" >"$TMP/nm"
if grep -q __asan "$TMP/nm"; then san=("-fsanitize=address,undefined"); fi
# shellcheck disable=SC2086
cc -std=c11 -Wall -Wextra -Werror "${san[@]}" -o "$TMP/consumer" "$TMP/consumer.c" $cflags $libs \
    -Wl,-rpath,"$DEST/usr/lib" || fail "cannot build against the installed library"
ldd "$TMP/consumer" >"$TMP/ldd"
grep -q "$DEST/usr/lib/libbillboard.so.1" "$TMP/ldd" || fail "not linked to the installed .so: $(cat "$TMP/ldd")"

start_daemon --horizon 4 --dim 2 --actions 3 --max-episodes 7 --rho 5
"$TMP/consumer" "$URL" >"$TMP/out" || fail "consumer failed"
[ "$(cat "$TMP/out")" = "H=4 version=0 K_max=7" ] || fail "consumer said: $(cat "$TMP/out")"
stop_daemon
echo ok
