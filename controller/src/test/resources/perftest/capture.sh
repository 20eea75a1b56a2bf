#!/usr/bin/env bash
# Captures the perftest fixtures of the import tests in the Soft-RoCE lab (lab/lab: server in VM 1,
# client in VM 2, rxe0, RoCE v2 GID 1) and writes fixtures.tsv, the manifest the tests iterate over:
# each fixture's name, outcome, perftest's exit status, whose output it is, its --out_json file, the
# line the import must quote, and the exact command that made it.
#
# NAME.txt is what perftest printed as a terminal shows it: stdout and stderr in one file, stdout line
# buffered (stdbuf -oL, as on a terminal: a pipe would buffer it whole, print it after stderr, and lose
# it when a timeout kills the process). Every run also names an --out_json file; NAME.json is what
# that same run wrote there, when it wrote anything.
#   controller/src/test/resources/perftest/capture.sh           all of them (boots and stops its own lab;
#                                                               half an hour under TCG on a busy machine)
#   controller/src/test/resources/perftest/capture.sh NAME...   only these; the manifest keeps the other rows
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../../../.." && pwd)
export QPLAB_LAB_DIR=${QPLAB_LAB_DIR:-$ROOT/lab/target/perftest-capture-lab}
LAB="$ROOT/lab/lab"
MANIFEST="$HERE/fixtures.tsv"
ONLY=" $* "
TIMEOUT=900 # seconds a run may take: the 8 MiB messages of an -a run crawl under TCG
"$LAB" up 2 >/dev/null
trap '"$LAB" down >/dev/null 2>&1 || true' EXIT
SERVER=$("$LAB" addr 1)
OUT_JSON="--out_json --out_json_file=/tmp/out.json"
port=23000

kept=$([ $# -gt 0 ] && [ -f "$MANIFEST" ] && grep -v '^#' "$MANIFEST" || true)
{
  echo "# perftest $("$LAB" ssh 2 "dpkg-query -W -f '\${Version}' perftest")" \
    "(ib_send_bw --version: $("$LAB" ssh 2 ib_send_bw --version | sed 's/^Version: //' | tr -d '\n'))," \
    "rdma-core $("$LAB" ssh 2 "dpkg-query -W -f '\${Version}' rdma-core"), kernel $("$LAB" kernel);" \
    "written by capture.sh"
  printf '# name\toutcome\texit\tside\tjson\tquote\tcommand\n'
  [ -z "$kept" ] || echo "$kept"
} >"$MANIFEST.new"
mv "$MANIFEST.new" "$MANIFEST"

# Whether to capture NAME: every fixture, or those named on the command line.
wanted() { # NAME
  [ "$ONLY" = "  " ] || [[ "$ONLY" == *" $1 "* ]]
}

# Runs CMD in VM I, its output into NAME.txt; prints the exit status (ssh passes perftest's on).
run() { # I NAME CMD
  "$LAB" ssh "$1" "cd /tmp; rm -f /tmp/out.json; $3 2>&1" >"$HERE/$2.txt" && echo 0 || echo $?
}

# Starts CMD as the server in VM 1 and waits until it listens on the port.
serve() { # CMD
  "$LAB" ssh 1 "timeout $TIMEOUT $1 -p $port" >/dev/null 2>&1 &
  for _ in $(seq 60); do
    "$LAB" ssh 1 "ss -Hltn 'sport = :$port'" | grep -q LISTEN && return
    sleep 1
  done
  echo "the server did not listen on port $port: $1" >&2
  exit 1
}

# Copies VM I's --out_json file to NAME.json; prints what there was: NAME.json, empty or none.
json() { # I NAME
  if ! "$LAB" ssh "$1" test -e /tmp/out.json; then
    rm -f "$HERE/$2.json"; echo none
  elif ! "$LAB" ssh "$1" test -s /tmp/out.json; then
    rm -f "$HERE/$2.json"; echo empty
  else
    "$LAB" ssh "$1" cat /tmp/out.json >"$HERE/$2.json"; echo "$2.json"
  fi
}

# NAME's manifest row, after checking the run ended as expected and printed the line to quote.
record() { # NAME OUTCOME EXIT SIDE JSON QUOTE COMMAND
  local as_expected=yes
  if [ "$2" = results ]; then [ "$3" = 0 ] || as_expected=no; else [ "$3" != 0 ] || as_expected=no; fi
  if [ $as_expected = no ]; then
    echo "$1: expected $2, perftest exited with $3:" >&2; cat "$HERE/$1.txt" >&2; exit 1
  fi
  if [ "$6" != - ] && ! grep -qxE -- " *$(printf '%s' "$6" | sed 's/[][\.*^$()+?{}|/]/\\&/g') *" "$HERE/$1.txt"; then
    echo "$1: perftest no longer prints the line '$6':" >&2; cat "$HERE/$1.txt" >&2; exit 1
  fi
  { grep -v "^$1	" "$MANIFEST"; printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@"; } >"$MANIFEST.new"
  mv "$MANIFEST.new" "$MANIFEST"
  echo "captured $1: exit $3, $(grep -cE '^ *[0-9]+ +[0-9]+ ' "$HERE/$1.txt" || true) result lines, json: $5" >&2
}

# A run that reports results: server in VM 1, client in VM 2; the client's output is kept.
ok() { # NAME CMD
  wanted "$1" || return 0
  port=$((port + 1))
  local client="timeout $TIMEOUT stdbuf -oL $2 -p $port $OUT_JSON $SERVER"
  serve "$2"
  local status; status=$(run 2 "$1" "$client")
  wait
  record "$1" results "$status" client "$(json 2 "$1")" - "$client"
}

# A run that fails on both sides (the server is started too); the client's output is kept.
fails() { # NAME QUOTE CMD
  wanted "$1" || return 0
  port=$((port + 1))
  local client="timeout $TIMEOUT stdbuf -oL $3 -p $port $OUT_JSON $SERVER"
  serve "$3"
  local status; status=$(run 2 "$1" "$client")
  wait || true
  record "$1" failed "$status" client "$(json 2 "$1")" "$2" "$client"
}

# A client that fails without a server (none is started).
fails_alone() { # NAME QUOTE CMD
  wanted "$1" || return 0
  port=$((port + 1))
  local client="timeout $TIMEOUT stdbuf -oL $3 -p $port $OUT_JSON $SERVER"
  local status; status=$(run 2 "$1" "$client")
  record "$1" failed "$status" client "$(json 2 "$1")" "$2" "$client"
}

# A server that no client connects to, ended by timeout after SECONDS; the server's output is kept.
waits() { # NAME QUOTE SECONDS CMD
  wanted "$1" || return 0
  port=$((port + 1))
  local server="timeout $3 stdbuf -oL $4 -p $port $OUT_JSON"
  local status; status=$(run 1 "$1" "$server")
  record "$1" no-result "$status" server "$(json 1 "$1")" "$2" "$server"
}

D="-d rxe0 -x 1"
# runs that fail: the quoted line is the first one the import must quote
fails_alone ib_write_bw-ud-refused "UD connection only possible in SEND verb" "ib_write_bw $D -c UD -s 4096 -n 200"
fails ib_send_bw-xrc-unsupported "Error opening XRC domain" "ib_send_bw $D -c XRC -s 4096 -n 200"
fails ib_send_bw-dc-unsupported "Unable to create QP." "ib_send_bw $D -c DC -s 4096 -n 200"
fails_alone ib_send_bw-no-server "Couldn't connect to $SERVER:$((port + 1))" "ib_send_bw $D -s 4096 -n 200"
waits ib_send_bw-no-client "* Waiting for client to connect... *" 20 "ib_send_bw $D -s 4096 -n 200"
# runs that report results: each test type, one size and -a (-n 10 for the ping-pong of -a latency runs)
ok ib_send_bw "ib_send_bw $D -s 4096 -n 200"
ok ib_send_bw-a "ib_send_bw $D -a -n 20"
ok ib_write_bw "ib_write_bw $D -s 4096 -n 200 -q 2"
ok ib_write_bw-a "ib_write_bw $D -a -n 20"
ok ib_write_bw-gbits "ib_write_bw $D -s 65536 -n 200 --report_gbits"
ok ib_read_bw "ib_read_bw $D -s 4096 -n 200"
ok ib_read_bw-a "ib_read_bw $D -a -n 20"
ok ib_send_lat "ib_send_lat $D -s 64 -n 200"
ok ib_send_lat-a "ib_send_lat $D -a -n 10"
ok ib_write_lat "ib_write_lat $D -s 64 -n 200"
ok ib_write_lat-a "ib_write_lat $D -a -n 10"
ok ib_read_lat "ib_read_lat $D -s 64 -n 200"
ok ib_read_lat-a "ib_read_lat $D -a -n 10"
# UD (send only) and a shared receive queue
ok ib_send_bw-ud "ib_send_bw $D -c UD -s 1024 -n 200"
ok ib_send_bw-ud-a "ib_send_bw $D -c UD -a -n 20"
ok ib_send_lat-ud "ib_send_lat $D -c UD -s 64 -n 200"
ok ib_send_lat-ud-a "ib_send_lat $D -c UD -a -n 20"
ok ib_send_bw-srq "ib_send_bw $D --use-srq -s 4096 -n 200"
ok ib_send_lat-srq "ib_send_lat $D --use-srq -s 64 -n 200"
