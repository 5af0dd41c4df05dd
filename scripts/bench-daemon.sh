#!/usr/bin/env bash
# The daemon's figures for BENCHMARKS.md: builds the release binaries, then runs the
# measurement on a generated tree (default 1,000 files x 20 functions) in a temp dir.
# Arguments go to the measurement: --files N --functions N --edits N --queries N.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p memreuse-cli -p memreuse-daemon --bins
cargo run --release -q -p memreuse-daemon --example bench_daemon -- "$@"
