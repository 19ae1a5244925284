#!/usr/bin/env bash
# Runs one benchmark and records what it printed as docs/bench/NAME.txt, replacing the last
# record: a header with the command, the date, this machine and the commit, then the output
# (cargo's own build lines left out). The documents quote figures from these files, and a test
# (crates/huarong/tests/readme.rs) checks every quoted figure against them.
#
#   bash scripts/bench.sh commands-main cargo bench --workspace --bench commands -- main
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: bash scripts/bench.sh NAME COMMAND..." >&2; exit 2; }
name=$1
shift
memory=$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
commit=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- crates Cargo.toml Cargo.lock || commit="$commit with uncommitted changes"
out="docs/bench/$name.txt"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
{
  echo "# \$ $*"
  echo "# $(date -u '+%Y-%m-%d %H:%M') UTC; $(nproc) cores, $memory, $cpu; commit $commit"
  "$@" 2>&1 | grep -Ev '^ *(Compiling|Finished|Running|Blocking|Downloaded|Downloading) '
} | tee "$tmp"
chmod 644 "$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "recorded in $out"
