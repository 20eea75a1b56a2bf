#!/bin/sh
# The verbs provider's call graph: for each qpb_verbs*.c, the other files whose functions it calls
# (and which). Usage: sh verbs-callgraph.sh [dir]; the graph it prints is kept in qpb_verbs.h.
# A function is "defined in g" when g has a line starting with its return type and name.
cd "${1:-.}"
files=$(ls qpb_verbs*.c)
for f in $files; do
  line="$f ->"
  for g in $files; do
    [ "$f" = "$g" ] && continue
    defs=$(grep -oE '^[a-z][a-z_0-9 ]*[ *](qpb_verbs_[a-z_0-9]+)\(' "$g" | grep -oE 'qpb_verbs_[a-z_0-9]+\(' | tr -d '(' | sort -u)
    used=""
    for d in $defs; do
      # a call or a reference (the vtable), outside a comment line
      if grep -vE '^\s*(/?\*|//)' "$f" | grep -qE "\b$d\b"; then used="$used $d"; fi
    done
    [ -n "$used" ] && line="$line $g [$(echo $used | tr ' ' ',')]"
  done
  echo "$line"
done
