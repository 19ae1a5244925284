#!/usr/bin/env bash
# Every check of the project: formatting, lints, and all tests in release mode (one build serves
# the main job and the tests). Works on a fresh machine with only the Rust toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt --check"
cargo fmt --all --check
echo "== cargo clippy"
cargo clippy --release --workspace --all-targets -- -D warnings
echo "== cargo test (release)"
cargo test --release --workspace
