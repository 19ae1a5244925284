#!/usr/bin/env bash
# Runs every fuzz target for RUNS executions (default 1,200,000) from the seed corpus and
# prints libFuzzer's closing line per target. Needs the nightly toolchain and cargo-fuzz
# (`cargo install cargo-fuzz`); see docs/RELIABILITY.md.
set -euo pipefail
cd "$(dirname "$0")"
runs="${RUNS:-1200000}"
for t in layout pipeline_config puzzle_file judge_square_destroyer judge_omnigravity judge_solitaire; do
  mkdir -p "corpus/$t"
  start=$(date +%s)
  cargo +nightly fuzz run -O "$t" "corpus/$t" -- -runs="$runs" -max_len=4096 \
    -print_final_stats=1 2>&1 | grep -E "^Done|stat::number_of_executed_units|stat::peak_rss_mb|cov:|SUMMARY|panicked" | tail -6
  echo "$t: $(( $(date +%s) - start )) s"
done
