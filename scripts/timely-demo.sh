#!/usr/bin/env bash
# Runs a pipeline's components and distances on timely-dataflow in two processes over loopback
# (one worker each), then checks the outputs are byte-identical to the local engine's.
#   bash scripts/timely-demo.sh [PIPELINE.toml] [OUTPUT_DIR]
# Default: pipelines/huarong-canonical.toml into outputs/timely-demo. For the labeled classic
# space use pipelines/huarong.toml (needs ~1.4 GB per process and 3.3 GB of disk).
set -euo pipefail
cd "$(dirname "$0")/.."
pipeline="${1:-pipelines/huarong-canonical.toml}"
out="${2:-outputs/timely-demo}"
bin="${CARGO_TARGET_DIR:-target}/release/huarong"
[ -x "$bin" ] || cargo build --release --workspace --all-targets
mkdir -p "$out"
hosts="$out/hosts.txt"
printf '127.0.0.1:2101\n127.0.0.1:2102\n' > "$hosts"
rm -rf "$out/timely" "$out/local"
# The two processes: each runs the same pipeline; process 0 writes the outputs.
"$bin" run "$pipeline" -o "$out/timely" --engine timely -w 1 -n 2 -p 1 -h "$hosts" -q &
follower=$!
"$bin" run "$pipeline" -o "$out/timely" --engine timely -w 1 -n 2 -p 0 -h "$hosts"
wait "$follower"
"$bin" run "$pipeline" -o "$out/local" -q > /dev/null
diff -r "$out/local" "$out/timely" && echo "timely (2 processes) and local outputs are byte-identical"
