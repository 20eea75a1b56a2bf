#!/usr/bin/env bash
# Captures the perftest fixtures of the import tests in the Soft-RoCE lab (lab/lab: server in VM 1,
# client in VM 2, rxe0, RoCE v2 GID 1). The client's output is kept: it prints the results. Each run
# also writes perftest's --out_json file in the client VM; NAME.json is that file, from the same run
# as NAME.txt.
#   controller/src/test/resources/perftest/capture.sh   (boots and stops its own lab)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../../../.." && pwd)
export QPLAB_LAB_DIR=${QPLAB_LAB_DIR:-$ROOT/lab/target/perftest-capture-lab}
LAB="$ROOT/lab/lab"
"$LAB" up 2 >/dev/null
trap '"$LAB" down >/dev/null 2>&1 || true' EXIT
SERVER=$("$LAB" addr 1)
port=23000
capture() { # name (NAME.txt, NAME.json), perftest command line (without the server address)
  port=$((port + 1))
  "$LAB" ssh 1 "timeout 300 $2 -p $port" >/dev/null 2>&1 &
  sleep 2
  "$LAB" ssh 2 "rm -f /tmp/out.json; timeout 300 $2 -p $port --out_json --out_json_file=/tmp/out.json $SERVER" >"$HERE/$1.txt"
  wait
  "$LAB" ssh 2 cat /tmp/out.json >"$HERE/$1.json"
  echo "captured $1: $(grep -c '^ *[0-9]' "$HERE/$1.txt") result lines, $(wc -l <"$HERE/$1.json") lines of JSON"
}
capture ib_send_bw-a "ib_send_bw -d rxe0 -x 1 -a -n 20"
capture ib_write_bw "ib_write_bw -d rxe0 -x 1 -s 4096 -n 200 -q 2"
capture ib_write_bw-gbits "ib_write_bw -d rxe0 -x 1 -s 65536 -n 200 --report_gbits"
capture ib_read_lat "ib_read_lat -d rxe0 -x 1 -s 64 -n 200"
capture ib_send_lat "ib_send_lat -d rxe0 -x 1 -s 64 -n 200"
