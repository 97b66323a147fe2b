#!/usr/bin/env bash
# The compose stack (docker/), for real: make docker-test, and part of make
# test. On a Docker engine (started here as root on a private socket when
# none answers; docker-lib.sh), with no registry:
#   - builds the base image the Dockerfile is given (docker/base-image:
#     debootstrap + docker import) when the engine lacks it, then the image
#     with compose from a copy of this tree that holds decoys (an admin token
#     file and SQLite files where .dockerignore must keep them out);
#   - brings the stack up under its own project name on a free port, with
#     the admin token file made as docker/compose.yaml says (0600, owner
#     10001), and waits for healthy;
#   - checks the hardening with docker inspect and in the running daemon
#     (no capabilities, no-new-privileges, read-only root, uid 10001, memory
#     and pids limits, healthcheck start period, port on 127.0.0.1 only);
#   - enrols a clinic with the CLI inside the image;
#   - runs the `sim` service (profile sim: enrols through the admin secret,
#     plays past the first release point) and requires billboard version > 0;
#   - `down` then `up` keeps episodes, billboards, clinics and the privacy
#     ledger byte-identical (GET bodies compared; every acknowledged
#     Idempotency-Key replays with its acknowledged body), and the sim
#     service plays again as the same clinics (tokens on its volume);
#   - kills the daemon under concurrent posts, with `docker kill -s KILL`
#     (then `up`) and as a crash from the host (the restart policy brings it
#     back), and replays every acknowledged key;
#   - `docker save`s every image the build made (the build stage's too,
#     where the builder keeps them: the legacy builder of docker.io 20.10)
#     and finds no SQLite database and no token in any layer, and no token
#     in the logs;
#   - tears down with `down -v` and removes every image it built (the base
#     image is kept: building it takes minutes).
# Every wait has a timeout. Without an engine it is skipped with the reason
# (exit 77), or fails under BILLBOARD_DOCKER_TEST=required (make
# docker-test, .ci/run).
# shellcheck source-path=SCRIPTDIR source=docker-lib.sh
. "$(dirname "$0")/docker-lib.sh"
TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$TESTS_DIR/../.." && pwd)
[ "$DK_MODE" != off ] || dk_cannot_run "BILLBOARD_DOCKER_TEST=off"
for tool in python3 curl tar flock timeout; do
    command -v "$tool" >/dev/null || dk_cannot_run "no $tool"
done
PYTHON=$(python3 -c 'import sys; print(sys.executable)')
clinic() { PYTHONPATH="$TESTS_DIR" "$PYTHON" "$TESTS_DIR/docker_clinic.py" "$@"; }

dk_engine
BASE=${BILLBOARD_BASE:-billboard-base:bookworm}
PROJECT=bbdockertest$$
IMAGE=billboard-docker-test:$$
PORT=$("$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
CTX=$TMP/ctx
C=("${COMPOSE[@]}" -p "$PROJECT" -f "$CTX/docker/compose.yaml")
CS=("${C[@]}" --profile sim)
export BILLBOARD_IMAGE=$IMAGE BILLBOARD_BASE=$BASE BILLBOARD_PORT=$PORT
export BILLBOARD_ADMIN_TOKEN_FILE=$TMP/admin-token SIM_CLINICS=3 SIM_EPISODES=1500
URL=http://127.0.0.1:$PORT
DOWN_DONE=0

# The images this run built: labelled by the Dockerfile, absent before.
"$DOCKER" images -aq --no-trunc | sort -u >"$TMP/images-before"
built_images() {
    "$DOCKER" images -aq --no-trunc --filter label=org.opencontainers.image.title | sort -u |
        comm -13 "$TMP/images-before" -
}
remove_images() {
    local _pass id
    timeout 120 "$DOCKER" rmi "$IMAGE" >/dev/null 2>&1 || true
    # Removing a leaf removes its untagged parents; a parent with children
    # left goes in a later pass.
    for _pass in 1 2 3; do
        for id in $(built_images); do
            timeout 60 "$DOCKER" rmi "$id" >/dev/null 2>&1 || true
        done
    done
    return 0
}

dk_teardown() {
    [ "$DOWN_DONE" = 1 ] && return 0
    [ -f "$CTX/docker/compose.yaml" ] || return 0
    timeout 180 "${CS[@]}" down -v --remove-orphans >/dev/null 2>&1
    remove_images
}

# --- the base image and the image ------------------------------------------
if ! "$DOCKER" image inspect "$BASE" >/dev/null 2>&1; then
    dk_step "building the base image $BASE (docker/base-image: debootstrap, a few minutes)"
    if ! DOCKER=$DOCKER dk_timeout 900 "$ROOT/docker/base-image" "$BASE" 2>"$TMP/base.log"; then
        cat "$TMP/base.log"
        dk_cannot_run "docker/base-image could not build $BASE: $(tail -n 1 "$TMP/base.log")"
    fi
fi

# A copy of the tree as the build context, with decoys that .dockerignore
# must keep out of every layer: the admin token file and SQLite databases.
mkdir -p "$CTX"
tar -C "$ROOT" --exclude=./.git --exclude=./build --exclude='./build-*' --exclude=./var \
    --exclude=./results --exclude=./docker/admin-token --exclude=./docker/.env -c . |
    tar -C "$CTX" -x
(umask 077 && head -c 32 /dev/urandom | base64 | tr -d '/+=' >"$TMP/admin-token")
ADMIN=$(cat "$TMP/admin-token")
cp "$TMP/admin-token" "$TMP/secrets"
cp "$TMP/admin-token" "$CTX/docker/admin-token"
mkdir -p "$CTX/var" "$CTX/build" "$CTX/tests/fixtures"
for db in var/billboard.db build/stale.db leftover.db tests/fixtures/local.db; do
    "$PYTHON" -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("CREATE TABLE t (s)"); c.execute("INSERT INTO t VALUES (?)", (sys.argv[2],)); c.commit()' \
        "$CTX/$db" "$ADMIN"
done

dk_step "building the image $IMAGE with ${COMPOSE[*]} (BASE=$BASE)"
dk_timeout 1200 "${C[@]}" build billboardd >"$TMP/build.log" 2>&1 || {
    tail -n 30 "$TMP/build.log"
    dk_fail "the image does not build"
}
"$DOCKER" image inspect -f '{{.Size}}' "$IMAGE" | awk '{ printf "image size %.0f MB\n", $1 / 1e6 }'

# --- up, healthy, hardened ---------------------------------------------------
# The admin token file as docker/compose.yaml documents it: mode 0600,
# owned by the container's uid and gid.
chown 10001:10001 "$TMP/admin-token" ||
    dk_cannot_run "chown of the admin token file to 10001 needs root"
[ "$(stat -c '%a %u %g' "$TMP/admin-token")" = "600 10001 10001" ] || dk_fail "token file mode"

service_id() { # SERVICE: its container's id
    local id
    id=$(dk_timeout 60 "${CS[@]}" ps -q "$1") || dk_fail "compose ps $1"
    [ -n "$id" ] || dk_fail "no container for service $1"
    echo "$id"
}
inspect() { "$DOCKER" inspect -f "$2" "$1"; }

wait_healthy() { # CONTAINER
    local st
    for _ in $(seq 1 240); do
        st=$(inspect "$1" '{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{end}}')
        case $st in
        "running healthy") return 0 ;;
        exited* | dead*) dk_fail "the daemon container $st ($(inspect "$1" '{{.State.ExitCode}}'))" ;;
        esac
        sleep 0.5
    done
    dk_fail "the daemon container not healthy within 120 s: $st"
}

dk_step "starting the stack (project $PROJECT, 127.0.0.1:$PORT)"
dk_timeout 180 "${C[@]}" up -d billboardd >"$TMP/up.log" 2>&1 || {
    cat "$TMP/up.log"
    dk_fail "compose up"
}
CID=$(service_id billboardd)
DK_LOG_CONTAINER=$CID
wait_healthy "$CID"
curl -sf --max-time 10 "$URL/readyz" >/dev/null || dk_fail "/readyz not answered on 127.0.0.1:$PORT"

dk_step "checking the hardening (docker inspect, /proc/1/status)"
hardened() { # CONTAINER SERVICE
    "$DOCKER" inspect "$1" | "$PYTHON" -c '
import json, sys
c = json.load(sys.stdin)[0]
h, cfg, svc = c["HostConfig"], c["Config"], sys.argv[1]
bad = []
def need(ok, what):
    if not ok:
        bad.append(what)
need(h.get("CapDrop") == ["ALL"], "cap_drop ALL (CapDrop %r)" % h.get("CapDrop"))
need(not h.get("CapAdd"), "no added capabilities (CapAdd %r)" % h.get("CapAdd"))
need(not h.get("Privileged"), "not privileged")
need(any(o.startswith("no-new-privileges") and not o.endswith("false")
         for o in h.get("SecurityOpt") or []), "no-new-privileges (%r)" % h.get("SecurityOpt"))
need(h.get("ReadonlyRootfs") is True, "read-only root filesystem")
need(cfg.get("User") == "10001:10001", "user 10001:10001 (%r)" % cfg.get("User"))
need((h.get("Memory") or 0) > 0, "a memory limit")
need((h.get("PidsLimit") or 0) > 0, "a pids limit")
hc = cfg.get("Healthcheck") or {}
if svc == "billboardd":
    need(hc.get("Test", [""])[0] in ("CMD", "CMD-SHELL"), "a healthcheck (%r)" % hc)
    need((hc.get("StartPeriod") or 0) > 0, "a healthcheck start period")
    binds = [b for bs in (h.get("PortBindings") or {}).values() for b in bs or []]
    need(binds and all(b["HostIp"] == "127.0.0.1" for b in binds),
         "ports published on 127.0.0.1 only (%r)" % binds)
if bad:
    sys.exit("%s: missing %s" % (svc, "; ".join(bad)))
' "$2"
}
hardened "$CID" billboardd || dk_fail "hardening"
inspect "$IMAGE" '{{.Config.User}}' | grep -qx '10001:10001' || dk_fail "image USER is not 10001:10001"
dk_timeout 30 "$DOCKER" exec "$CID" cat /proc/1/status >"$TMP/status" || dk_fail "docker exec"
for f in CapInh CapPrm CapEff CapBnd CapAmb; do
    grep -Eq "^$f:[[:space:]]+0+$" "$TMP/status" || dk_fail "billboardd has capabilities: $(grep "^$f" "$TMP/status")"
done
grep -Eq '^NoNewPrivs:[[:space:]]+1$' "$TMP/status" || dk_fail "billboardd may gain privileges"
grep -Eq '^Uid:[[:space:]]+10001[[:space:]]+10001[[:space:]]+10001[[:space:]]+10001$' "$TMP/status" ||
    dk_fail "billboardd does not run as uid 10001: $(grep ^Uid "$TMP/status")"
# Root in the container owns /: only the read-only root filesystem stops
# the write.
if dk_timeout 30 "$DOCKER" exec -u 0 "$CID" touch /probe 2>"$TMP/touch.err"; then
    dk_fail "the root filesystem is writable"
fi
grep -q "Read-only file system" "$TMP/touch.err" || dk_fail "write refused, but why: $(cat "$TMP/touch.err")"
dk_timeout 30 "$DOCKER" exec "$CID" sh -c 'command -v billboardd billboard billboard-sim billboard-sim-clinics' \
    >/dev/null || dk_fail "the image lacks one of billboardd, billboard, billboard-sim"

# --- a clinic enrolled with the CLI in the image -------------------------------
dk_step "enrolling a clinic with the billboard CLI inside the container"
dk_timeout 60 "${C[@]}" exec -T billboardd billboard --admin-token-file /run/secrets/admin_token \
    clinics add "docker-test clinic" --json >"$TMP/enrol.json" 2>"$TMP/enrol.err" ||
    dk_fail "clinics add: $(cat "$TMP/enrol.err")"
TOKEN=$("$PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["token"])' "$TMP/enrol.json")
printf '%s\n' "$TOKEN" >>"$TMP/secrets"
rm -f "$TMP/enrol.json"

# --- simulated clinics move the billboard -------------------------------------
run_sim() { # LOG: one run of the sim service, its log in $TMP/LOG
    local sim st
    dk_timeout 180 "${CS[@]}" up -d sim >"$TMP/sim-up.log" 2>&1 || {
        cat "$TMP/sim-up.log"
        dk_fail "compose --profile sim up -d sim"
    }
    sim=$(service_id sim)
    hardened "$sim" sim || dk_fail "hardening of the sim service"
    for _ in $(seq 1 360); do
        st=$(inspect "$sim" '{{.State.Status}}')
        [ "$st" = exited ] && break
        sleep 0.5
    done
    "$DOCKER" logs "$sim" >"$TMP/$1" 2>&1 || true
    [ "$st" = exited ] || dk_fail "the sim service still running after 180 s: $(tail -n 5 "$TMP/$1")"
    [ "$(inspect "$sim" '{{.State.ExitCode}}')" = 0 ] ||
        dk_fail "sim exited $(inspect "$sim" '{{.State.ExitCode}}'): $(tail -n 10 "$TMP/$1")"
    grep -q "K=$SIM_EPISODES cumulative regret" "$TMP/$1" || dk_fail "sim summary: $(tail -n 5 "$TMP/$1")"
}
# The first release comes at the configuration's release start (auto: about
# 12,000 episodes at the compose sizes, docs/PRIVACY.md §1.2): play past it.
k0=$(clinic get "$PORT" /v1/config 'int(d["release_start"])')
export SIM_EPISODES=$((k0 + 300))
dk_step "the sim service: $SIM_CLINICS clinics, $SIM_EPISODES episodes"
run_sim sim.log
grep -q "enrolled sim-clinic-$SIM_CLINICS" "$TMP/sim.log" || dk_fail "sim did not enrol: $(cat "$TMP/sim.log")"
v=$(clinic get "$PORT" /v1/privacy 'd["billboard_version"]')
[ "$v" -gt 0 ] || dk_fail "the billboard is still at version 0 after $SIM_EPISODES episodes"
echo "billboard version $v after the sim's episodes"

# --- down / up keeps everything ----------------------------------------------
: >"$TMP/acked"
clinic post "$PORT" "$TOKEN" before-down 2 10 "$TMP/acked" || dk_fail "posting episodes"
[ "$(wc -l <"$TMP/acked")" = 20 ] || dk_fail "20 episodes posted, $(wc -l <"$TMP/acked") acknowledged"
clinic snapshot "$PORT" "$ADMIN" "$TMP/before" || dk_fail "snapshot"
dk_step "down and up again"
dk_timeout 180 "${CS[@]}" down >"$TMP/down.log" 2>&1 || { cat "$TMP/down.log"; dk_fail "compose down"; }
"$DOCKER" volume inspect "${PROJECT}_billboard-data" >/dev/null || dk_fail "down removed the data volume"
dk_timeout 180 "${C[@]}" up -d billboardd >"$TMP/up.log" 2>&1 || { cat "$TMP/up.log"; dk_fail "compose up"; }
CID=$(service_id billboardd)
DK_LOG_CONTAINER=$CID
wait_healthy "$CID"
clinic snapshot "$PORT" "$ADMIN" "$TMP/after" || dk_fail "snapshot"
diff -r "$TMP/before" "$TMP/after" >/dev/null ||
    dk_fail "down/up changed $(diff -rq "$TMP/before" "$TMP/after" | head -n 3)"
echo "identical after down/up: $(cd "$TMP/after" && echo *)"
n=$(clinic replay "$PORT" "$TOKEN" "$TMP/acked") || dk_fail "replay after down/up"
clinic snapshot "$PORT" "$ADMIN" "$TMP/replayed" || dk_fail "snapshot"
cmp -s "$TMP/before/privacy" "$TMP/replayed/privacy" || dk_fail "a replay was stored"
echo "$n acknowledged keys replayed with their bodies"
# The sim service again: its clinics' tokens stayed on its volume, so it
# plays as the same clinics and enrols none.
export SIM_EPISODES=200
run_sim sim2.log
! grep -q enrolled "$TMP/sim2.log" || dk_fail "the sim service enrolled again: $(cat "$TMP/sim2.log")"
clinic snapshot "$PORT" "$ADMIN" "$TMP/sim2" || dk_fail "snapshot"
cmp -s "$TMP/before/clinics" "$TMP/sim2/clinics" || dk_fail "the clinics changed: $(cat "$TMP/sim2/clinics")"
echo "the sim service played again as the same $SIM_CLINICS clinics"

# --- kill -9 under concurrent posts --------------------------------------------
kill_cycle() { # NAME HOW
    local before pid restarts
    before=$(wc -l <"$TMP/acked")
    clinic post "$PORT" "$TOKEN" "$1" 4 100000 "$TMP/acked" 2>"$TMP/post.err" &
    local cpid=$!
    for _ in $(seq 1 600); do
        [ "$(wc -l <"$TMP/acked")" -ge $((before + 40)) ] && break
        kill -0 "$cpid" 2>/dev/null || break
        sleep 0.1
    done
    [ "$(wc -l <"$TMP/acked")" -ge $((before + 40)) ] || dk_fail "posts did not get going: $(cat "$TMP/post.err")"
    sleep "0.$((RANDOM % 5 + 1))"
    restarts=$(inspect "$CID" '{{.RestartCount}}')
    case $2 in
    docker-kill)
        dk_timeout 60 "$DOCKER" kill -s KILL "$CID" >/dev/null || dk_fail "docker kill"
        ;;
    crash)
        pid=$(inspect "$CID" '{{.State.Pid}}')
        kill -KILL "$pid" || dk_fail "kill -9 of the daemon's pid $pid from the host"
        ;;
    esac
    for _ in $(seq 1 600); do
        kill -0 "$cpid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$cpid" 2>/dev/null; then
        kill "$cpid"
        dk_fail "the posting clients still running 60 s after the kill"
    fi
    wait "$cpid" || dk_fail "a post got an unexpected answer: $(cat "$TMP/post.err")"
    case $2 in
    docker-kill)
        [ "$(inspect "$CID" '{{.State.ExitCode}}')" = 137 ] || dk_fail "not killed by SIGKILL"
        dk_timeout 180 "${C[@]}" up -d billboardd >"$TMP/up.log" 2>&1 || { cat "$TMP/up.log"; dk_fail "compose up"; }
        CID=$(service_id billboardd)
        DK_LOG_CONTAINER=$CID
        ;;
    crash)
        # restart: on-failure brings it back by itself.
        for _ in $(seq 1 240); do
            [ "$(inspect "$CID" '{{.RestartCount}}')" -gt "$restarts" ] && break
            sleep 0.5
        done
        [ "$(inspect "$CID" '{{.RestartCount}}')" -gt "$restarts" ] ||
            dk_fail "the restart policy did not restart the crashed daemon"
        ;;
    esac
    wait_healthy "$CID"
    local acked episodes
    acked=$(wc -l <"$TMP/acked")
    episodes=$(clinic get "$PORT" /v1/privacy 'd["episodes"]')
    [ "$episodes" -ge "$acked" ] || dk_fail "$acked acknowledged, $episodes stored"
    n=$(clinic replay "$PORT" "$TOKEN" "$TMP/acked") || dk_fail "replay after $2"
    [ "$(clinic get "$PORT" /v1/privacy 'd["episodes"]')" = "$episodes" ] || dk_fail "a replay was stored"
    echo "$2: $((acked - before)) posts acknowledged before the kill; all $n acknowledged keys replay"
}
dk_step "docker kill -s KILL under concurrent posts"
kill_cycle kill1 docker-kill
pid=$(inspect "$CID" '{{.State.Pid}}')
if kill -0 "$pid" 2>/dev/null; then
    dk_step "kill -9 of the daemon process from the host under concurrent posts"
    kill_cycle kill2 crash
else
    echo "the daemon's pid $pid is not visible here (a remote engine): no crash cycle"
fi

# --- nothing secret in the image or the logs -----------------------------------
dk_step "docker save and scan"
mapfile -t built < <(built_images)
stages=$(for id in "${built[@]}"; do inspect "$id" '{{index .Config.Labels "org.opencontainers.image.title"}}'; done | sort -u | tr '\n' ',')
echo "${#built[@]} images built ($stages)"
case $stages in
*"billboard build stage"*) ;;
*) echo "this builder keeps no image of the build stage: the final image only" ;;
esac
dk_timeout 300 "$DOCKER" save -o "$TMP/image.tar" "$IMAGE" "${built[@]}" || dk_fail "docker save"
"$PYTHON" "$TESTS_DIR/image_scan.py" "$TMP/image.tar" "$TMP/secrets" || dk_fail "the image holds what it must not"
rm -f "$TMP/image.tar"
# The scan finds what it looks for: an archive of one layer holding a
# database and a token.
"$PYTHON" - "$TMP/control" "$ADMIN" <<'PY'
import io, os, sqlite3, sys, tarfile
d, secret = sys.argv[1], sys.argv[2].encode()
os.makedirs(d)
sqlite3.connect(os.path.join(d, "x.db")).execute("CREATE TABLE t (x)").connection.commit()
open(os.path.join(d, "token"), "wb").write(b"TOKEN=" + secret + b"\n")
with tarfile.open(os.path.join(d, "layer.tar"), "w") as t:
    t.add(os.path.join(d, "x.db"), "var/x.db")
    t.add(os.path.join(d, "token"), "etc/token")
with tarfile.open(os.path.join(d, "image.tar"), "w") as t:
    t.add(os.path.join(d, "layer.tar"), "abc/layer.tar")
PY
"$PYTHON" "$TESTS_DIR/image_scan.py" "$TMP/control/image.tar" "$TMP/secrets" >"$TMP/control.out" &&
    dk_fail "the scan misses a database and a token"
[ "$(grep -c 'SQLite database\|contains the secret' "$TMP/control.out")" = 2 ] ||
    dk_fail "the scan's control: $(cat "$TMP/control.out")"
"$DOCKER" logs "$CID" >"$TMP/daemon.log" 2>&1 || true
for f in daemon.log sim.log sim2.log; do
    if grep -qF -f "$TMP/secrets" "$TMP/$f" || grep -q 'bbt_' "$TMP/$f"; then
        dk_fail "a token in the $f"
    fi
done

# --- down -v -----------------------------------------------------------------
dk_step "down -v and removing the images"
dk_timeout 180 "${CS[@]}" down -v --remove-orphans >"$TMP/down.log" 2>&1 || {
    cat "$TMP/down.log"
    dk_fail "compose down -v"
}
DOWN_DONE=1
left=$("$DOCKER" ps -aq --filter "label=com.docker.compose.project=$PROJECT")
[ -z "$left" ] || dk_fail "containers left: $left"
left=$("$DOCKER" volume ls -q --filter "label=com.docker.compose.project=$PROJECT")
[ -z "$left" ] || dk_fail "volumes left: $left"
remove_images
left=$(built_images)
[ -z "$left" ] || dk_fail "images left: $left"
! "$DOCKER" image inspect "$IMAGE" >/dev/null 2>&1 || dk_fail "$IMAGE left"
dk_step "done"
echo ok
