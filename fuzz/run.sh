#!/usr/bin/env bash
# Seeds a scratch corpus from the example kernels and test fixtures (PyPTO's real dumps in
# tests/data/real among them), then fuzzes the `parse` target on stable Rust. Extra arguments
# go to libFuzzer, e.g. `fuzz/run.sh -max_total_time=1800`.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p corpus/parse
find ../examples/kernels ../tests/data -name '*.py' -print0 |
    while IFS= read -r -d '' file; do
        cp "$file" "corpus/parse/seed-$(echo "$file" | tr '/.' '__')"
    done
exec cargo fuzz run --sanitizer none parse corpus/parse -- "$@"
