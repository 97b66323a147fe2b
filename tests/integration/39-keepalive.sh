#!/usr/bin/env bash
# Many keep-alive clients in a closed loop, each sending its next request as
# soon as its answer is in, are all answered: 128 connections, 40 requests
# each, with one HTTP thread and with two. An event loop that leaves ready
# connections waiting (libmicrohttpd's epoll loop with 128 ready at once on
# one thread, docs/RELIABILITY.md) stalls them until --timeout; the bound
# (20 s, under --timeout 60) is a liveness bound, not a figure.
. "$(dirname "$0")/lib.sh"
LG="$(dirname "$BB")/loadgen"
[ -x "$LG" ] || fail "no $LG (make)"
python3 "$(dirname "$0")/episode_gen.py" 1 0 $H $A $D >"$TMP/episode.json"

for threads in 1 2; do
    rm -f "$DB" "$DB"-*
    start_daemon --horizon $H --dim $D --actions $A --max-episodes 100000 --rho 100000 \
        --threads "$threads" --timeout 60
    token=$(enrol "clinic-$threads")
    [ -n "$token" ] || fail "no clinic enrolled"
    for round in 1 2 3; do
        for what in "POST:/v1/episodes:$token:$TMP/episode.json" "GET:/v1/billboard"; do
            out=$("$LG" closed "$PORT" 128 20 "$what" 40) || true
            grep -q ' done=5120 non2xx=0 errors=0 ' <<<"$out" ||
                fail "threads $threads round $round ${what%%:/*}: not every request answered: $out"
        done
    done
    stop_daemon
done
echo ok
