# bench/lib/controller.sh — sourced by the benchmarks that run a controller of their own (compare, ingest,
# security, storage). Needs die() and ROOT. Secrets never in argv: the agents' token goes through the
# environment, the admin's API token comes back in a 0600 file and goes to curl through a pipe.

BENCH_CJAR=$ROOT/controller/target/qplab-controller.jar
BENCH_AGENT_TOKEN=${BENCH_AGENT_TOKEN:-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')}
CONTROLLER_PID=
API_TOKEN=

# A TCP port nothing listens on.
free_port() {
    local p
    while :; do
        p=$((20000 + RANDOM % 40000))
        ss -Hltn "sport = :$p" | grep -q . || { echo "$p"; return; }
    done
}

# start_controller DIR PORT PGPORT [controller args...]: a controller on PORT with its embedded PostgreSQL in
# DIR/postgres on PGPORT (0: any), its log in DIR/controller.log and its generated secrets in DIR (not in
# ~/.local/share/qplab); returns once it is ready (the database included), with CONTROLLER_PID and API_TOKEN
# (an admin's) set, and PGPASSFILE exported: psql -h 127.0.0.1 -p PGPORT -U qplab -d qplab logs in as the controller
# does (the embedded server lets in no other role; its password is in DIR/postgres-password, 0600).
# BENCH_JAVA_OPTS: JVM options (e.g. -Xmx2g).
start_controller() {
    local dir=$1 port=$2 pgport=$3
    shift 3
    # shellcheck disable=SC2086 # BENCH_JAVA_OPTS holds several words
    QPLAB_AGENT_TOKEN=$BENCH_AGENT_TOKEN java ${BENCH_JAVA_OPTS:-} -jar "$BENCH_CJAR" --server.port="$port" \
        --qplab.database.embedded.data-dir="$dir/postgres" --qplab.database.embedded.port="$pgport" \
        --qplab.security.cli-token-file="$dir/cli-token" --qplab.security.admin-password-file="$dir/admin-password" \
        "$@" >"$dir/controller.log" 2>&1 &
    CONTROLLER_PID=$!
    for _ in $(seq 240); do
        curl -sf -o /dev/null "http://127.0.0.1:$port/actuator/health/readiness" && break
        kill -0 "$CONTROLLER_PID" 2>/dev/null || { tail -30 "$dir/controller.log" >&2; die "the controller exited"; }
        sleep 0.5
    done
    curl -sf -o /dev/null "http://127.0.0.1:$port/actuator/health/readiness" \
        || die "the controller did not get ready in 120 s: $(tail -20 "$dir/controller.log")"
    API_TOKEN=$(tr -d ' \r\n' <"$dir/cli-token")
    (umask 077 && printf '127.0.0.1:*:qplab:qplab:%s\n' "$(tr -d ' \r\n' <"$dir/postgres-password")" >"$dir/pgpass")
    export PGPASSFILE=$dir/pgpass
}

# SIGTERM (it stops its PostgreSQL too), waiting up to 60 s.
stop_controller() {
    [ -n "$CONTROLLER_PID" ] || return 0
    kill "$CONTROLLER_PID" 2>/dev/null || true
    for _ in $(seq 60); do kill -0 "$CONTROLLER_PID" 2>/dev/null || break; sleep 1; done
}

# curl with the admin's API token in a header read from a pipe, never in the process list.
api() { curl -K <(printf 'header = "Authorization: Bearer %s"\n' "$API_TOKEN") "$@"; }
