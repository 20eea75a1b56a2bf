#!/bin/sh
# Prints the compiler flags of an include path without rdma-core's headers, for building the engine as a
# machine without libibverbs-dev/librdmacm-dev would: -nostdinc, then -isystem DIR/N for each of the
# compiler's default include directories in its order, DIR/N holding symlinks to that directory's entries
# except infiniband/ and rdma/ (so #include_next still works). No privileges needed.
# Usage: hide-rdma-headers.sh DIR [CC]   (DIR: new or empty; delete it afterwards without following links)
set -eu
dir=$1
cc=${2:-cc}
flags=-nostdinc
n=0
for d in $(echo | "$cc" -x c -E -v - 2>&1 | sed -n '/^#include <...> search starts here:/,/^End of search list\./p' | grep '^ /'); do
  mkdir -p "$dir/$n"
  for e in "$d"/* "$d"/.[!.]*; do
    [ -e "$e" ] || [ -L "$e" ] || continue
    case ${e##*/} in infiniband|rdma) continue ;; esac
    ln -s "$e" "$dir/$n/${e##*/}"
  done
  flags="$flags -isystem $dir/$n"
  n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "$cc -v listed no include directories" >&2; exit 1; }
echo "$flags"
