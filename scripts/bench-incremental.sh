#!/usr/bin/env bash
# Cold, warm and one-edit runs of `memreuse plan` over a generated 1,000-file x 20-function
# tree, with the release binary; prints the ratios measured in this one run.
#
#   scripts/bench-incremental.sh [FILES] [FUNCTIONS] [WORK_DIR]
set -euo pipefail
files=${1:-1000}
functions=${2:-20}
work=${3:-$(mktemp -d)}
cd "$(dirname "$0")/.."
# `--example` alone would build only the example: the binary is built on its own.
cargo build --release -q -p memreuse-cli --bin memreuse
cargo build --release -q -p memreuse --example gen_tree
bin=target/release/memreuse
tree=$work/tree
state=$work/state
rm -rf "$tree" "$state"
target/release/examples/gen_tree --files "$files" --functions "$functions" "$tree"
# Stamps are only trusted for files older than a second (the racy-clean rule).
sleep 1.5

timed() { # LABEL ARGS...: runs `memreuse plan`; prints wall and CPU seconds and the figures
  local label=$1; shift
  /usr/bin/time -f '%e %U %S' -o "$work/$label.time" \
    "$bin" plan "$tree" --state-dir "$state" "$@" > "$work/$label.out"
  read -r wall user sys < "$work/$label.time"
  echo "$wall" > "$work/$label.secs"
  echo "$user + $sys" | bc -l > "$work/$label.cpu"
  printf '%-10s %7.3f s wall %7.3f s cpu  ' "$label" "$wall" "$(cat "$work/$label.cpu")"
  if [[ " $* " == *" --no-cache "* ]]; then echo; return; fi
  "$bin" stats --state-dir "$state" --json | python3 -c "import json, sys
r = json.load(sys.stdin)['last_run']
print(r['functions'], 'functions,', r['cached'], 'hits,', r['planned'], 'misses')"
}

timed cold
timed warm
# Edit one function: change one load offset inside kernel_3 of one file.
victim=$(find "$tree" -name '*.py' | sort | sed -n '500p')
python3 - "$victim" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
at = text.index("def kernel_3(")
load = at + text[at:].index("[0, 0]")
open(path, "w").write(text[:load] + "[0, 1]" + text[load + 6:])
PY
timed one-edit
timed warm-again
timed no-cache --no-cache

cold=$(cat "$work/cold.secs")
echo
echo "cold throughput:      $(echo "$files * $functions / $cold" | bc) functions/s (nproc $(nproc))"
echo "no-cache throughput:  $(echo "$files * $functions / $(cat "$work/no-cache.secs")" | bc) functions/s"
ratio() { echo "$(cat "$work/$1.$3") / $(cat "$work/$2.$3")" | bc -l | cut -c1-6; }
echo "cold / warm:          $(ratio cold warm secs)x wall, $(ratio cold warm cpu)x cpu"
echo "cold / one-edit:      $(ratio cold one-edit secs)x wall, $(ratio cold one-edit cpu)x cpu"
echo "cold cpu per function: $(echo "1000000 * $(cat "$work/cold.cpu") / ($files * $functions)" | bc) us"
cmp -s "$work/cold.out" "$work/warm.out" && echo "warm output == cold output"
echo "store: $(du -sh "$state/cache" | cut -f1) on disk; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
