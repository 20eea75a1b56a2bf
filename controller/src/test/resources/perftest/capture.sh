#!/usr/bin/env bash
# Captures the perftest fixtures of the import tests in the Soft-RoCE lab (lab/lab: server in VM 1,
# client in VM 2, rxe0, RoCE v2 GID 1). The client's output is kept: it prints the results.
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
capture() { # file, perftest command line (without the server address)
  port=$((port + 1))
  "$LAB" ssh 1 "timeout 300 $2 -p $port" >/dev/null 2>&1 &
  sleep 2
  "$LAB" ssh 2 "timeout 300 $2 -p $port $SERVER" >"$HERE/$1"
  wait
  echo "captured $1: $(grep -c '^ *[0-9]' "$HERE/$1") result lines"
}
capture ib_send_bw-a.txt "ib_send_bw -d rxe0 -x 1 -a -n 20"
capture ib_write_bw.txt "ib_write_bw -d rxe0 -x 1 -s 4096 -n 200 -q 2"
capture ib_read_lat.txt "ib_read_lat -d rxe0 -x 1 -s 64 -n 200"
