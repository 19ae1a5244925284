#!/usr/bin/env bash
# Every check of the project: formatting, lints, all Rust tests in release mode (one build
# serves the main job and the tests), then the Python side: the `huarong` package (python/) built
# into a wheel and tested with pytest in a fresh virtualenv; a virtualenv with the pinned
# requirements reads freshly generated Parquet outputs back with polars, duckdb and pyarrow, and
# executes every notebook against them (failing on any cell error).
# Works on a fresh machine with only the Rust toolchain and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
# Snapshot tests find their files from here, not from where their binary was compiled: a target
# directory shared by several clones (CI's) can hold a test binary another clone built.
export INSTA_WORKSPACE_ROOT="$PWD"

echo "== cargo fmt --check"
cargo fmt --all --check
echo "== rust-version: the declared minimum is the highest any dependency needs"
python3 scripts/check-rust-version.py
# Checks other than test cases that passed (each step stops the script if it fails).
checks=1
echo "== cargo clippy"
cargo clippy --release --workspace --all-targets -- -D warnings
echo "== cargo test (release)"
log=$(mktemp)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch" "$log"' EXIT
cargo test --release --workspace 2>&1 | tee "$log"
passed=$(awk '/^test result: ok/ { n += $4 } END { print n + 0 }' "$log")

echo "== python: Parquet outputs read back by polars, duckdb and pyarrow; notebooks executed"
venv="${HUARONG_VENV:-.venv}"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r notebooks/requirements.txt
# The binary `cargo test` just built (same features, so no second build of polars).
huarong="${CARGO_TARGET_DIR:-target}/release/huarong"

echo "== python package: pip wheel ./python (maturin), pytest in a fresh virtualenv"
# maturin builds crates/huarong-py in the same target directory: the extension and the query
# crates it depends on (atlas and below; no polars, timely or web server), a minute at most.
"$venv/bin/pip" wheel --quiet --disable-pip-version-check --no-deps ./python -w "$scratch/wheel"
wheel=$(ls "$scratch"/wheel/huarong-*.whl)
python3 -m venv "$scratch/package-venv"
"$scratch/package-venv/bin/pip" install --quiet --disable-pip-version-check \
  -r python/tests/requirements.txt "$wheel"
"$huarong" run pipelines/huarong-canonical.toml --quiet \
  --output "$scratch/package-outputs/huarong-canonical" > /dev/null
pytest_log="$scratch/pytest.log"
HUARONG_BIN="$huarong" HUARONG_TEST_OUTPUTS="$scratch/package-outputs" \
  "$scratch/package-venv/bin/python" -m pytest -q -p no:cacheprovider python/tests \
  2>&1 | tee "$pytest_log"
pytest_passed=$(awk '/ passed/ { for (i = 1; i < NF; i++) if ($(i + 1) ~ /^passed/) n = $i } END { print n + 0 }' "$pytest_log")
[ "$pytest_passed" -gt 0 ] || { echo "pytest ran no test"; exit 1; }
# The notebooks use the package too.
"$venv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheel"
# Every bundled pipeline but the heavy ones (the main job, the full universe, the eleven
# puzzles, the fifteen, twenty-four and thirty-five puzzles' pattern databases and the Rush Hour universes:
# the main-job script, the benchmarks and the Rust tests run those or their small versions),
# each into its own folder named after the file.
heavy=" huarong klotski-universe sliding-tiles eleven fifteen-pdb twenty-four-pdb thirty-five-pdb rush-hour rush-hour-5 "
pipelines=()
for file in pipelines/*.toml; do
  p=$(basename "$file" .toml)
  [[ "$heavy" == *" $p "* ]] && continue
  pipelines+=("$p")
  "$huarong" run "$file" --quiet --output "$scratch/$p" > /dev/null
done
# The Rush Hour notebook reads the 5 x 5 universe with up to two walls (5-10 s).
"$huarong" run pipelines/rush-hour-5.toml --quiet --output "$scratch/rush-hour-5" > /dev/null
# The universe notebook gets a twelve-set slice (the full universe is 4.8 GB of artifacts).
"$huarong" run tests/pipelines/klotski-universe-mini.toml --quiet \
  --output "$scratch/klotski-universe" > /dev/null
"$venv/bin/python" tests/python/check_outputs.py "${pipelines[@]/#/$scratch/}" \
  "$scratch/klotski-universe"
checks=$((checks + 1))
# The notebooks' checks of the full outputs too: the main job (37,946,880 labeled positions)
# and the whole Klotski universe (203 sets, 29,334,498 positions), a few seconds each.
"$huarong" run pipelines/huarong.toml --quiet --output "$scratch/full/huarong" > /dev/null
"$huarong" run pipelines/klotski-universe.toml --quiet \
  --output "$scratch/full/klotski-universe" > /dev/null
"$venv/bin/python" tests/python/run_notebooks.py "$scratch" "$huarong" "$scratch/executed" \
  --full "$scratch/full/huarong" "$scratch/full/klotski-universe"
checks=$((checks + 1))

echo "== browser: huarong serve in headless Chromium, driven through WebDriver"
if ! command -v chromium > /dev/null || ! command -v chromedriver > /dev/null; then
  # Debian's Chromium and its driver (and a CJK font for the layouts' names).
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    chromium chromium-driver fonts-wqy-zenhei > /dev/null
fi
"$venv/bin/python" tests/python/browser_test.py "$huarong" "$scratch/huarong-canonical" \
  "$scratch/screenshots" "$scratch/full/klotski-universe"
checks=$((checks + 1))
# Every step above stops the script when it fails (set -e, pipefail): reaching this line
# means nothing failed.
echo "total: $((passed + pytest_passed + checks)) passed ($passed Rust tests, $pytest_passed" \
  "pytest cases, $checks checks: rust-version, outputs, notebooks, browser); nothing failed"
