#!/bin/bash
# Times clicks in `memreuse view` on the function of FILE with the most tiles, all three plan
# variants each (what the page asks for), three times: the first plans the other variants,
# the later ones find them in the store.
#
#     scripts/bench-viewer-click.sh FILE [BACKEND] [BIN_DIR]
#
# BIN_DIR holds `memreuse` and `memreused` (default: target/release). The file is copied into
# a fresh project with its own state dir; the daemon is stopped at the end.
set -euo pipefail
FILE=$1
BACKEND=${2:-910b}
BIN=$(cd "${3:-target/release}" && pwd)
W=$(mktemp -d /tmp/memreuse-click-XXXX)
trap '(cd "$W" && "$BIN/memreuse" daemon stop --state-dir "$W/state" >/dev/null 2>&1); rm -rf "$W"' EXIT
cp "$FILE" "$W/kernel.py"
printf 'backend = "%s"\n' "$BACKEND" > "$W/memreuse.toml"
mkdir "$W/.git"
cd "$W"
export PATH="$BIN:$PATH"
URL=$("$BIN/memreuse" view --no-open --state-dir "$W/state" 2>/dev/null | tail -1)
BASE=$(echo "$URL" | grep -o "http://[^/]*")
TOKEN=$(echo "$URL" | grep -o "token=[^&#]*")
# The list answers once the daemon's scan is done.
for _ in $(seq 1 300); do
  FILES=$(curl -s "$BASE/api/files?$TOKEN")
  echo "$FILES" | grep -q '"functions"' && break
  sleep 1
done
NAME=$(echo "$FILES" | python3 -c '
import json, sys
functions = [f for file in json.load(sys.stdin)["files"] for f in file["functions"]]
tiles = lambda f: sum(s.get("tiles") or 0 for s in f.get("spaces", []))
print(max(functions, key=tiles)["name"])')
echo "function $NAME"
for i in 1 2 3; do
  curl -s -o /dev/null -w "click $i: %{time_total} s, %{size_download} bytes\n" \
    "$BASE/api/function?path=kernel.py&name=$NAME&variants=pypto,exact,dsa&$TOKEN"
done
