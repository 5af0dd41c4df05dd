#!/usr/bin/env bash
# kill -9 the daemon N times (default 100) at a random moment of its scan or of an edit's
# planning, restarting it each time on the same state dir. After every kill the store must
# reopen as it is (no cache.bad-* directory, no "damaged" warning in the daemon's log), and
# at the end every file's plan through the daemon must equal a cold in-process plan.
# Usage: scripts/crash-daemon.sh [N]   (figures go to BENCHMARKS.md)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-100}
cargo build --release -q -p memreuse-cli -p memreuse-daemon --bins
cargo build --release -q --example gen_tree
bin=$PWD/target/release
dir=$(mktemp -d)
stop_daemon() {
    local pid
    pid=$(sed -n 's/.*"pid": \([0-9]*\).*/\1/p' "$dir/state/daemon.json" 2>/dev/null || true)
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
}
trap 'stop_daemon; rm -rf "$dir"' EXIT
"$bin/examples/gen_tree" --files 200 --functions 10 "$dir/root" >/dev/null
cd "$dir/root"
export MEMREUSED=$bin/memreused
m() { "$bin/memreuse" --state-dir "$dir/state" "$@"; }
mapfile -t files < <(find . -name '*.py' | sort)
started=$(date +%s)
for i in $(seq 1 "$n"); do
    m daemon start >/dev/null
    pid=$(sed -n 's/.*"pid": \([0-9]*\).*/\1/p' "$dir/state/daemon.json")
    # An edit (a new revision to plan) in half the rounds.
    if ((RANDOM % 2)); then
        f=${files[RANDOM % ${#files[@]}]}
        printf '\n# edit %s\n' "$i" >>"$f"
    fi
    sleep "0.$((RANDOM % 300))"
    kill -KILL "$pid"
    while kill -0 "$pid" 2>/dev/null; do sleep 0.01; done
    if compgen -G "$dir/state/cache.bad-*" >/dev/null; then
        echo "round $i: the store was moved aside" >&2
        exit 1
    fi
done
m daemon start >/dev/null
if grep -rqs "damaged\|index was unreadable" "$dir/state/logs"; then
    echo "the daemon reported a damaged store:" >&2
    grep -rh "damaged\|index was unreadable" "$dir/state/logs" >&2
    exit 1
fi
bad=0
for f in "${files[@]}"; do
    served=$(m query "$f" --json | grep '"digest"' || true)
    cold=$(m plan "$f" --emit json --no-cache | grep '"digest"' || true)
    if [ -z "$served" ] || [ "$served" != "$cold" ]; then
        echo "wrong plan for $f" >&2
        bad=$((bad + 1))
    fi
done
m daemon stop >/dev/null
echo "$n kill -9 of the daemon in $(($(date +%s) - started)) s: store never moved aside," \
    "${#files[@]} files checked, $bad wrong"
[ "$bad" -eq 0 ]
