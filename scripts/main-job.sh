#!/usr/bin/env bash
# The main job: the classic set, labeled and unlabeled, all three metrics -> outputs/huarong/.
# It builds exactly what the test command builds (whole workspace, all targets, release), so
# one compilation of polars serves both. Extra arguments go to `huarong run` (e.g. --force).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --workspace --all-targets
"${CARGO_TARGET_DIR:-target}/release/huarong" run pipelines/huarong.toml "$@"
