#!/usr/bin/env bash
# A random source that fails (server/entropy.h). An LD_PRELOAD shim, built
# here, makes getrandom(2) fail, return short or return stuck bytes while
# the file $TMP/rng holds "fail", "short" or "stuck". While it does, the
# daemon takes no episode (503 problem+json with Retry-After), publishes no
# billboard, answers /readyz 503 with the reason, and says why in its log;
# once the file is gone it recovers by itself: ready, episodes taken,
# billboards published again. A start with a failing source refuses to
# start and says why.
. "$(dirname "$0")/lib.sh"
cat >"$TMP/shim.c" <<'C'
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

ssize_t getrandom(void *buf, size_t n, unsigned int flags)
{
    const char *path = getenv("RNG_SHIM_FILE");
    char mode[16] = "";
    FILE *f = path ? fopen(path, "r") : NULL;
    if (f) {
        if (!fgets(mode, sizeof(mode), f))
            mode[0] = '\0';
        fclose(f);
    }
    if (strncmp(mode, "fail", 4) == 0) {
        errno = EIO;
        return -1;
    }
    if (strncmp(mode, "stuck", 5) == 0) {
        memset(buf, 0x5a, n);
        return (ssize_t)n;
    }
    if (strncmp(mode, "short", 5) == 0)
        n /= 2;
    return syscall(SYS_getrandom, buf, n, flags);
}
C
cc -shared -fPIC -O1 -o "$TMP/shim.so" "$TMP/shim.c" || fail "cannot build the shim"
export RNG_SHIM_FILE="$TMP/rng"

LD_PRELOAD="$TMP/shim.so" start_daemon "${CONF[@]}"
tok=$(enrol "clinic")
for i in 1 2 3 4 5 6; do
    episode "$i" >"$TMP/e"
    post_episode "$tok" "k$i" "$TMP/e"
    expect_status 201
done
wait_published
req GET /v1/privacy
before=$(cat "$TMP/body")
v0=$(jget "$TMP/body" 'd["billboard_version"]')
[ "$v0" -ge 1 ] || fail "no billboard published before the failure"
req GET /v1/billboard
cp "$TMP/body" "$TMP/board0"

wait_ready() { # STATUS: waits up to 5 s for /readyz to answer STATUS
    for _ in $(seq 1 100); do
        req GET /readyz
        [ "$STATUS" = "$1" ] && return 0
        sleep 0.05
    done
    fail "/readyz answered $STATUS, want $1"
}

n=7
for mode in fail short stuck; do
    echo "$mode" >"$TMP/rng"
    wait_ready 503
    expect_problem 503
    case $mode in
    fail) want="getrandom failed" ;;
    short) want="returned 32 of 64 bytes" ;;
    stuck) want="64 equal bytes" ;;
    esac
    detail=$(jget "$TMP/body" 'd["detail"]')
    [[ "$detail" == *"random source failed"*"$want"* ]] || fail "$mode: /readyz detail: $detail"
    for _ in 1 2 3; do
        episode "$n" >"$TMP/e"
        post_episode "$tok" "k$n" "$TMP/e"
        expect_problem 503
        [ -n "$(header Retry-After)" ] || fail "$mode: a 503 without Retry-After"
        [[ "$(jget "$TMP/body" 'd["detail"]')" == *"random source failed"* ]] ||
            fail "$mode: episode refused with $(cat "$TMP/body")"
        n=$((n + 1))
    done
    req GET /v1/privacy
    [ "$(cat "$TMP/body")" = "$before" ] || fail "$mode: counts changed: $(cat "$TMP/body")"
    req GET /v1/billboard
    cmp -s "$TMP/body" "$TMP/board0" || fail "$mode: the billboard changed"
    grep -q "random source failed (.*$want" "$TMP/daemon.log" || fail "$mode: the log does not say why"
    # Healthy again between the modes, so each failure is logged anew.
    rm -f "$TMP/rng"
    wait_ready 200
done
grep -q "random source is healthy again" "$TMP/daemon.log" || fail "recovery not logged"

# Recovered: episodes are taken, and the next billboards published.
for _ in $(seq 1 8); do
    episode "$n" >"$TMP/e"
    post_episode "$tok" "k$n" "$TMP/e"
    expect_status 201
    n=$((n + 1))
done
wait_published
req GET /v1/privacy
[ "$(jget "$TMP/body" 'd["billboard_version"]')" -gt "$v0" ] || fail "nothing published after recovery"
stop_daemon

# A start while the source fails: no noise can be keyed, so no start.
echo fail >"$TMP/rng"
rc=0
LD_PRELOAD="$TMP/shim.so" "$BB" --db "$DB" --listen 127.0.0.1 --port 0 \
    --admin-token-file "$TMP/admin" 2>"$TMP/start.log" || rc=$?
[ "$rc" = 1 ] || fail "a start with a failing source exited $rc, want 1"
grep -q "random source failed (getrandom failed" "$TMP/start.log" || fail "start: $(cat "$TMP/start.log")"
echo ok
