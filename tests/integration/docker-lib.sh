# shellcheck shell=bash
# tests/integration/docker-lib.sh — a Docker engine, client and compose for
# 90-docker.sh (sourced; sets -euo pipefail, $TMP and an exit trap).
#
#   dk_cannot_run REASON   the test cannot run on this machine: a skip
#                          (exit 77, tests/run lists it) unless
#                          BILLBOARD_DOCKER_TEST=required (make docker-test,
#                          .ci/run), where it is a failure; REASON is printed
#                          as the last line either way
#   dk_engine              finds a client that talks to an engine at
#                          $DOCKER_HOST or the default socket; else starts
#                          dockerd as root on a private socket under $TMP with
#                          its data in $DK_CACHE (kept between runs: the
#                          debootstrapped base image, docker/base-image), and
#                          stops it by its PID on exit. Sets DOCKER (the
#                          client), DOCKER_HOST and COMPOSE (an array:
#                          docker-compose 1.x, or
#                          `docker compose`; BILLBOARD_COMPOSE picks one)
#   dk_timeout S CMD...    CMD under timeout(1); a timeout fails the test
#   dk_fail MSG            prints MSG and the daemon container's log, exits 1
#   dk_step MSG            "== MSG (Ns)" with the seconds since the start
#
# Cleanup order on exit: the test's own teardown hook (dk_teardown, set by
# the test), then the engine started here, then $TMP.
set -euo pipefail
DK_MODE=${BILLBOARD_DOCKER_TEST:-auto}
DK_CACHE=${BILLBOARD_DOCKER_CACHE:-/var/tmp/billboard-docker-test}
DK_START=$(date +%s)
TMP=$(mktemp -d /tmp/bb-docker-test.XXXXXX)
chmod 755 "$TMP"
DOCKER=
COMPOSE=()
DK_DOCKERD_PID=
DK_LOG_CONTAINER= # the container whose log dk_fail shows

dk_teardown() { :; } # the test replaces it

dk_exit() {
    local rc=$?
    set +e
    dk_teardown
    if [ -n "$DK_DOCKERD_PID" ]; then
        kill -TERM "$DK_DOCKERD_PID" 2>/dev/null
        for _ in $(seq 1 300); do
            kill -0 "$DK_DOCKERD_PID" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$DK_DOCKERD_PID" 2>/dev/null; then
            echo "dockerd (pid $DK_DOCKERD_PID) still running 30 s after SIGTERM: SIGKILL" >&2
            kill -KILL "$DK_DOCKERD_PID" 2>/dev/null
        fi
        wait "$DK_DOCKERD_PID" 2>/dev/null
    fi
    rm -rf "$TMP"
    exit "$rc"
}
trap dk_exit EXIT
trap 'exit 130' INT TERM

dk_step() { echo "== $* ($(( $(date +%s) - DK_START ))s)"; }

dk_fail() {
    echo "FAIL: $*" >&2
    if [ -n "$DK_LOG_CONTAINER" ] && [ -n "$DOCKER" ]; then
        echo "--- log of $DK_LOG_CONTAINER:" >&2
        timeout 20 "$DOCKER" logs --tail 20 "$DK_LOG_CONTAINER" 2>&1 | sed 's/^/    /' >&2 || true
    fi
    exit 1
}

dk_cannot_run() {
    case $DK_MODE in
    required)
        echo "FAIL: the Docker test cannot run: $*"
        exit 1
        ;;
    *)
        echo "The Docker test is skipped (BILLBOARD_DOCKER_TEST=required makes this a failure):"
        echo "SKIP: $*"
        exit 77
        ;;
    esac
}

dk_timeout() {
    local s=$1 rc=0
    shift
    timeout "$s" "$@" || rc=$?
    [ "$rc" -ne 124 ] || dk_fail "timed out after ${s}s: $*"
    return "$rc"
}

# A client that answers with a server version talks to an engine.
dk_client_for_engine() {
    local c
    for c in /usr/bin/docker "$(command -v docker || true)"; do
        if [ -z "$c" ] || [ ! -x "$c" ]; then
            continue
        fi
        if timeout 20 "$c" version --format '{{.Server.Version}}' >/dev/null 2>&1; then
            DOCKER=$c
            return 0
        fi
    done
    return 1
}

dk_start_dockerd() {
    command -v dockerd >/dev/null || dk_cannot_run "no Docker engine answers and there is no dockerd (apt-get install docker.io, or deploy/install-deps)"
    [ "$(id -u)" -eq 0 ] || dk_cannot_run "no Docker engine answers, and starting dockerd needs root"
    mkdir -p "$DK_CACHE" || dk_cannot_run "cannot create $DK_CACHE"
    chmod 700 "$DK_CACHE"
    # One engine per data directory: a second make docker-test waits.
    exec 9>"$DK_CACHE/lock"
    flock -w 900 9 || dk_cannot_run "$DK_CACHE is locked by another Docker test for 15 minutes"
    local old
    old=$(cat "$DK_CACHE/docker.pid" 2>/dev/null || true)
    if [ -n "$old" ] && kill -0 "$old" 2>/dev/null; then
        dk_cannot_run "a dockerd (pid $old, $DK_CACHE/docker.pid) left by an earlier run still uses $DK_CACHE: stop it"
    fi
    export DOCKER_HOST="unix://$TMP/docker.sock"
    # fd 9 (the lock) is not inherited: a dockerd left behind must not
    # hold the lock; its pid file in $DK_CACHE names it.
    dockerd --host "$DOCKER_HOST" --data-root "$DK_CACHE/data" --exec-root "$TMP/exec" \
        --pidfile "$DK_CACHE/docker.pid" >"$TMP/dockerd.log" 2>&1 9>&- &
    DK_DOCKERD_PID=$!
    for _ in $(seq 1 120); do
        if ! kill -0 "$DK_DOCKERD_PID" 2>/dev/null; then
            wait "$DK_DOCKERD_PID" 2>/dev/null || true
            DK_DOCKERD_PID=
            dk_cannot_run "dockerd exited at start; its log ends: $(tail -n 3 "$TMP/dockerd.log" | tr '\n' ' ')"
        fi
        if dk_client_for_engine; then
            dk_client_for_engine # once it answers, the preferred client
            return 0
        fi
        sleep 0.5
    done
    dk_cannot_run "dockerd did not answer on $DOCKER_HOST within 60 s; its log ends: $(tail -n 3 "$TMP/dockerd.log" | tr '\n' ' ')"
}

dk_engine() {
    command -v docker >/dev/null || [ -x /usr/bin/docker ] ||
        dk_cannot_run "no docker client (apt-get install docker.io, or deploy/install-deps)"
    if dk_client_for_engine; then
        echo "using the Docker engine at ${DOCKER_HOST:-the default socket}"
    else
        dk_start_dockerd
        echo "started dockerd (pid $DK_DOCKERD_PID) on $DOCKER_HOST, data in $DK_CACHE/data"
    fi
    echo "client $DOCKER: $("$DOCKER" version --format 'client {{.Client.Version}}, engine {{.Server.Version}}')"
    case ${BILLBOARD_COMPOSE:-} in
    "") ;;
    docker-compose) COMPOSE=(docker-compose) ;;
    "docker compose") COMPOSE=("$DOCKER" compose) ;;
    *) dk_fail "BILLBOARD_COMPOSE must be docker-compose or 'docker compose'" ;;
    esac
    if [ "${#COMPOSE[@]}" -eq 0 ]; then
        if command -v docker-compose >/dev/null; then
            COMPOSE=(docker-compose)
        elif "$DOCKER" compose version >/dev/null 2>&1; then
            COMPOSE=("$DOCKER" compose)
        else
            dk_cannot_run "neither docker-compose nor the docker compose plugin (apt-get install docker-compose, or deploy/install-deps)"
        fi
    fi
    "${COMPOSE[@]}" version >/dev/null 2>&1 || dk_cannot_run "${COMPOSE[*]} does not run"
    echo "compose: ${COMPOSE[*]} ($("${COMPOSE[@]}" version 2>/dev/null | head -n 1))"
}
