"""Benchmarks of the `huarong` package, as a notebook uses it (not part of the test command).

    python python/benches/bench.py [--runs N]

from the repository root, in a virtualenv with the package installed (`pip install ./python`).
It runs the pipelines it needs into a temporary folder with the release binary
(HUARONG_BIN, default $CARGO_TARGET_DIR/release/huarong or target/release/huarong):

* `huarong.solve` of 横刀立马 in a loop, from the distance tables of huarong-canonical — per call,
  median of N batches of 1,000 calls; next to the command line `huarong solve --json --tables`
  (a process per call, median of N) as the baseline;
* `Outputs(folder).distances("h1v4s4-labeled", "piece")` of the main job's 37,946,880 labeled
  positions — the first call of a process (its artifact verified: 76 MB hashed) and later calls
  (verified once per `Outputs`), medians of N fresh processes.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import huarong

HENGDAO = "VCCV/VCCV/VHHV/VSSV/S..S"


def binary() -> str:
    if "HUARONG_BIN" in os.environ:
        return os.environ["HUARONG_BIN"]
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    return str(Path(target) / "release" / "huarong")


def run(pipeline: str, out: Path) -> None:
    subprocess.run([binary(), "run", pipeline, "-q", "-o", str(out)], check=True,
                   stdout=subprocess.DEVNULL)


FIRST_AND_LATER = """
import sys, time, huarong
t = time.perf_counter(); o = huarong.Outputs(sys.argv[1]); opened = time.perf_counter() - t
t = time.perf_counter(); d = o.distances("h1v4s4-labeled", "piece"); first = time.perf_counter() - t
assert d.shape == (37_946_880,) and d.base.mapped
later = []
for _ in range(5):
    t = time.perf_counter(); o.distances("h1v4s4-labeled", "piece"); later.append(time.perf_counter() - t)
later.sort()
print(opened, first, later[2])
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        canonical = tmp / "huarong-canonical"
        run("pipelines/huarong-canonical.toml", canonical)
        assert huarong.solve(HENGDAO, tables=[canonical])["source"] == "tables"
        per_call = []
        for _ in range(args.runs):
            t = time.perf_counter()
            for _ in range(1000):
                r = huarong.solve(HENGDAO, tables=[canonical])
            per_call.append((time.perf_counter() - t) / 1000)
            assert r["moves"] == 81
        cli = []
        for _ in range(args.runs):
            t = time.perf_counter()
            out = subprocess.run([binary(), "solve", HENGDAO, "--json", "--tables", str(canonical)],
                                 check=True, capture_output=True, text=True)
            cli.append(time.perf_counter() - t)
            assert json.loads(out.stdout)["moves"] == 81
        print(f"huarong.solve(横刀立马) from tables: {statistics.median(per_call) * 1e3:.3f} ms per call "
              f"(median of {args.runs} x 1,000 calls); `huarong solve --json --tables`: "
              f"{statistics.median(cli) * 1e3:.1f} ms per call (median of {args.runs})")

        main_job = tmp / "huarong"
        run("pipelines/huarong.toml", main_job)
        rows = []
        for _ in range(args.runs):
            out = subprocess.run([sys.executable, "-c", FIRST_AND_LATER, str(main_job)],
                                 capture_output=True, text=True)
            if out.returncode != 0:
                sys.exit(out.stderr)
            rows.append([float(x) for x in out.stdout.split()])
        opened, first, later = (statistics.median(r[i] for r in rows) for i in range(3))
        print(f"Outputs(main job): {opened * 1e3:.1f} ms; .distances('h1v4s4-labeled', 'piece') "
              f"(37,946,880 values): first call {first * 1e3:.1f} ms (hashes the 76 MB artifact), "
              f"later calls {later * 1e3:.3f} ms (medians of {args.runs} processes)")


if __name__ == "__main__":
    main()
