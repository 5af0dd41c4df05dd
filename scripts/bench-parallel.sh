#!/usr/bin/env bash
# Four `memreuse plan`s at once on one state dir against one alone, with the release binary,
# over a generated tree (FILES files of FUNCTIONS functions, in 10 group directories):
#   warm:   the whole tree, every plan cached;
#   shards: four disjoint quarters of a cold tree, as four CI jobs would plan them;
#   cold:   the whole cold tree four times at once.
# Prints wall seconds per case and the ratios, all measured in this one run.
#
#   scripts/bench-parallel.sh [FILES] [FUNCTIONS] [WORK_DIR]
set -euo pipefail
files=${1:-1000}
functions=${2:-20}
work=${3:-$(mktemp -d)}
cd "$(dirname "$0")/.."
cargo build --release -q -p memreuse --example gen_tree
cargo build --release -q -p memreuse-cli --bin memreuse
bin=$PWD/target/release/memreuse
tree=$work/tree
rm -rf "$tree" "$work"/state-*
target/release/examples/gen_tree --files "$files" --functions "$functions" "$tree"
sleep 1.5 # stamps are trusted only for files older than a second

now() { date +%s.%N; }
# LABEL STATE PATHS...: one plan per PATHS argument (space-separated paths), all started at
# once; prints the wall time until the last one ends, and whether any waited for another or
# ran without the cache.
together() {
  local label=$1 state=$2; shift 2
  local start pids=() i=0
  start=$(now)
  for dir in "$@"; do
    # shellcheck disable=SC2086 # PATHS is a list
    "$bin" plan $dir --state-dir "$state" > "$work/$label.$i.out" 2> "$work/$label.$i.err" &
    pids+=($!)
    i=$((i + 1))
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
  local secs
  secs=$(echo "$(now) - $start" | bc -l)
  echo "$secs" > "$work/$label.secs"
  local waited
  waited=$(cat "$work/$label".*.err | grep -c -e waiting -e without || true)
  printf '%-14s %7.3f s wall  (%d plans; %s messages about waiting or going without)\n' \
    "$label" "$secs" "$#" "$waited"
}

quarters=("" "" "" "")
i=0
for group in "$tree"/g*; do
  quarters[$((i % 4))]+="$group "
  i=$((i + 1))
done

together cold-1 "$work/state-a" "$tree"
together warm-1 "$work/state-a" "$tree"
together warm-4 "$work/state-a" "$tree" "$tree" "$tree" "$tree"
together shard-1 "$work/state-b" "${quarters[0]}"
rm -rf "$work/state-b"
together shards-4 "$work/state-b" "${quarters[@]}"
together cold-4 "$work/state-c" "$tree" "$tree" "$tree" "$tree"

r() { echo "$(cat "$work/$1.secs") / $(cat "$work/$2.secs")" | bc -l | cut -c1-5; }
echo
echo "4 warm plans at once / 1 warm plan:      $(r warm-4 warm-1)x (taking turns would be ~4x)"
echo "4 cold quarters at once / 1 cold quarter: $(r shards-4 shard-1)x (taking turns would be ~4x)"
echo "4 cold plans at once / 1 cold plan:      $(r cold-4 cold-1)x"
echo "nproc $(nproc); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
