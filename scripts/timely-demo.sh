#!/usr/bin/env bash
# Runs a pipeline's components and distances on timely-dataflow in two processes over loopback
# (one worker each), each writing the parts of the component and distance tables that hold its
# own states (docs/OUTPUTS.md), then checks the outputs against the local engine's: every other
# file byte-identical, and `huarong verify` reads the parts back as current. (The test
# crates/huarong/tests/timely.rs checks that the parts interleave into the local tables.)
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
# The parts and the export manifest (whose fingerprint names the artifacts) differ by design.
diff -r -x '*-of-*.bin' -x 'components-*.bin' -x 'distances-*.bin' -x export.manifest \
    "$out/local" "$out/timely"
"$bin" verify "$out/timely" --pipeline "$pipeline" > /dev/null
echo "timely (2 processes, tables in parts) and local outputs agree; verify reads the parts"
ls "$out/timely"/*/ | grep -c -- '-of-' | xargs echo "parts written:"
