"""The `huarong` package against the command line, published codes and its own outputs.

Run by scripts/test-all.sh from the repository root, in a fresh virtualenv with the package
installed from its wheel. Environment: HUARONG_BIN (the binary the test command built) and
HUARONG_TEST_OUTPUTS (a folder holding a fresh `huarong-canonical` output).
"""

import json
import os
import re
import subprocess
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import huarong

ROOT = Path(__file__).resolve().parents[2]
BIN = os.environ.get("HUARONG_BIN", str(ROOT / "target/release/huarong"))
OUTPUTS = Path(os.environ.get("HUARONG_TEST_OUTPUTS", ROOT / "outputs"))
HENGDAO = "VCCV/VCCV/VHHV/VSSV/S..S"


def cli(*args):
    out = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=120)
    return out


@pytest.fixture(scope="session")
def canonical():
    folder = OUTPUTS / "huarong-canonical"
    assert (folder / "export.manifest").is_file(), f"run pipelines/huarong-canonical.toml into {folder}"
    return folder


@pytest.fixture(scope="session")
def labeled(tmp_path_factory):
    """tests/pipelines/labeled-small.toml run twice: in one process, and in two processes
    over loopback (components and distances written in parts, one per process)."""
    root = tmp_path_factory.mktemp("labeled")
    pipeline = "tests/pipelines/labeled-small.toml"
    one = root / "one"
    assert cli("run", pipeline, "-q", "-o", str(one)).returncode == 0
    two = root / "two"
    port = 30_000 + os.getpid() % 20_000
    hosts = root / "hosts.txt"
    hosts.write_text(f"127.0.0.1:{port}\n127.0.0.1:{port + 1}\n")
    procs = [
        subprocess.Popen(
            [BIN, "run", pipeline, "-q", "-o", str(two), "--engine", "timely", "-w", "1",
             "-n", "2", "-p", str(i), "-h", str(hosts)],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        for i in range(2)
    ]
    for p in procs:
        try:
            assert p.wait(timeout=120) == 0
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            raise
    return pipeline, one, two


# --- dnomd343/klotski's codes -----------------------------------------------------------------


def test_published_codes():
    # dnomd343/klotski, src/core_test/codec/sample.h: 横刀立马 is CommonCode 1A9BF0C00 and
    # ShortCode 4WVE1 (4,091,296); ShortCode 0 is written 11111.
    assert huarong.common_code(HENGDAO) == "1A9BF0C00"
    assert huarong.common_code(HENGDAO, shorten=True) == "1A9BF0C"
    assert huarong.short_code(HENGDAO) == "4WVE1"
    assert huarong.short_code("1A9BF0C00") == "4WVE1"
    assert huarong.layout("4WVE1") == HENGDAO
    assert huarong.layout("1a9bf0c") == HENGDAO
    assert huarong.short_code(huarong.layout("11111")) == "11111"
    # Labels do not change the codes.
    assert huarong.short_code("1CC2/1CC2/3HH4/3ab4/c..d") == "4WVE1"


def mirror(layout):
    return "/".join(row[::-1] for row in layout.split("/"))


def test_published_mirrors():
    # common_code.cc: 4FEA13400 mirrors left-right to 6BFA47000; 1A9BF0C00 to itself.
    assert mirror(huarong.layout("4FEA13400")) == huarong.layout("6BFA47000")
    assert mirror(HENGDAO) == huarong.layout("1A9BF0C00")


@pytest.mark.parametrize(
    "bad, says",
    [
        ("3A9BF0C00", "row 1, column 4"),  # the block in the last column (invalid head)
        ("1A9BFFC00", "1A9BFFC00"),  # fewer than two spaces
        ("R50EH", "ShortCode"),  # 0 is no ShortCode digit (5 characters: read as ShortCode)
        ("ZZZZZ", "out of range"),
        ("0123456789", "row"),  # ten characters: not a code, so not a layout either
        ("VCCV/VCCV/VHHV/VSSV/S..X", "row 5, column 4"),
    ],
)
def test_bad_codes_and_layouts_are_value_errors(bad, says):
    with pytest.raises(ValueError, match=re.escape(says)):
        huarong.short_code(bad)


def common_code_by_hand(layout):
    """An independent CommonCode encoder (the definition, cell by cell)."""
    rows = layout.split("/")
    cells = [c for row in rows for c in row]
    head = cells.index("C")
    taken = [False] * 20
    for d in (0, 1, 4, 5):
        taken[head + d] = True
    bits, shift = 0, 30
    for i, c in enumerate(cells):
        if taken[i]:
            continue
        symbol = {".": 0, "H": 1, "V": 2, "S": 3}[c]
        taken[i] = True
        if c == "H":
            taken[i + 1] = True
        if c == "V":
            taken[i + 4] = True
        bits |= symbol << shift
        shift -= 2
    return f"{head << 32 | bits:09X}"


SHORT = "123456789ABCDEFGHJKMNPQRSTUVWXYZ"


def test_states_table_codes_round_trip(canonical):
    states = huarong.Outputs(canonical).table("states-h1v4s4-unlabeled")
    layouts = states["layout"].to_list()
    commons = states["common_code"].to_list()
    shorts = states["short_code"].to_list()
    assert len(layouts) == 65_880
    assert commons == [common_code_by_hand(l) for l in layouts]
    assert [huarong.layout(s) for s in shorts] == layouts
    assert [huarong.layout(c) for c in commons] == layouts
    # ShortCodes rank CommonCodes: sorted by one, the other increases.
    rank = lambda s: int("".join(f"{SHORT.index(ch):05b}" for ch in s), 2)
    by_common = sorted(zip(commons, shorts))
    ranks = [rank(s) for _, s in by_common]
    assert all(a < b for a, b in zip(ranks, ranks[1:]))


# --- solving ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "position, metric",
    [(HENGDAO, "piece"), (HENGDAO, "step"), ("1CC2/1CC2/3HH4/3ab4/c..d", "piece"),
     ("4WVE1", "straight")],
)
def test_solve_is_the_command_lines_answer(position, metric):
    got = huarong.solve(position, metric=metric)
    out = cli("solve", position, "--metric", metric, "--json", "--cold")
    assert out.returncode == 0, out.stderr
    want = json.loads(out.stdout)
    assert got["moves"] == want["moves"]
    # Both optimal; ties between equally short paths may be broken differently. Each step is
    # a move, and the last position is a goal (Cao Cao at the exit, rows 4-5, columns 2-3).
    path = got["path"]
    assert len(path) == got["moves"] + 1 and path[0] == want["path"][0]
    assert all(b in huarong.moves(a, metric) for a, b in zip(path, path[1:]))
    assert [row[1:3] for row in path[-1].split("/")[3:]] == ["CC", "CC"]
    assert got["common_code"] == want["common_code"]
    assert got["short_code"] == want["short_code"]


def test_solve_from_tables_and_unsolvable(canonical):
    got = huarong.solve(HENGDAO, tables=[canonical])
    assert got["moves"] == 81 and got["source"] == "tables" and len(got["path"]) == 82
    assert got["path"][0] == HENGDAO
    unsolvable = huarong.solve("CC.S/CCHH/VVVV/VVVV/.SSS")
    assert unsolvable["moves"] is None and unsolvable["path"] == []
    with pytest.raises(ValueError, match="unknown metric"):
        huarong.solve(HENGDAO, metric="teleport")
    with pytest.raises(ValueError, match="goal"):
        huarong.solve(HENGDAO, goal="three,one")
    moved = huarong.solve(HENGDAO, goal="0,1")
    assert moved["moves"] == 0


def test_solve_puzzle_file_and_text():
    want = json.loads(cli("solve", "--puzzle", "puzzles/pennant.toml", "--json").stdout)
    got = huarong.solve_puzzle("puzzles/pennant.toml")
    assert got["moves"] == want["moves"] == 59
    assert got["path"] == want["path"]
    text = (ROOT / "puzzles/pennant.toml").read_text()
    assert huarong.solve_puzzle(text)["moves"] == 59
    with pytest.raises(FileNotFoundError):
        huarong.solve_puzzle("puzzles/no-such-puzzle.toml")
    with pytest.raises(ValueError, match="line"):
        huarong.solve_puzzle("name = 'x'\nboard = [\n")


def test_every_klotski_database_row_solves_as_written(tmp_path):
    """A run whose piece sets are closed under removing a piece writes the Klotski database;
    `huarong.solve` takes each row by its layout, CommonCode or ShortCode, at its moves."""
    pipeline = tmp_path / "slice.toml"
    pipeline.write_text(
        'name = "slice"\noutput = "unused"\n[huarong]\n'
        'piece_sets = ["h0v0s0", "h0v0s1", "h0v0s2", "h0v1s0", "h0v1s1", "h0v1s2"]\n'
        'spaces = ["unlabeled"]\nmetrics = ["step", "piece"]\nstate_tables = false\n'
    )
    out = tmp_path / "out"
    assert cli("run", str(pipeline), "-q", "-o", str(out)).returncode == 0
    rows = pl.read_parquet(out / "klotski_puzzles.parquet")
    assert rows.height >= 6
    for row in rows.iter_rows(named=True):
        for text in (row["layout"], row["common_code"], row["short_code"]):
            got = huarong.solve(text, row["metric"], tables=[str(out)])
            assert got["moves"] == row["moves"], (text, row)
            assert got["path"][0] == row["layout"]
        assert huarong.common_code(row["layout"]) == row["common_code"]


def test_moves_are_one_move_away():
    d = huarong.solve(HENGDAO)["moves"]
    nexts = huarong.moves(HENGDAO)
    assert len(nexts) == len(set(nexts)) > 0 and HENGDAO not in nexts
    dists = [huarong.solve(n)["moves"] for n in nexts]
    assert all(abs(x - d) <= 1 for x in dists) and d - 1 in dists
    with pytest.raises(ValueError, match="row 5, column 4"):
        huarong.moves("VCCV/VCCV/VHHV/VSSV/S..X")


# --- output folders as arrays ----------------------------------------------------------------


def mapped_file(address):
    """The file /proc/self/maps says backs `address`, if any."""
    for line in Path("/proc/self/maps").read_text().splitlines():
        parts = line.split(maxsplit=5)
        lo, hi = (int(x, 16) for x in parts[0].split("-"))
        if lo <= address < hi:
            return parts[5] if len(parts) == 6 else None
    return None


def test_distances_are_zero_copy_views_of_the_artifact(canonical):
    out = huarong.Outputs(canonical)
    assert out.spaces() == ["h1v4s4-unlabeled"]
    assert Path(out.pipeline) == ROOT / "pipelines/huarong-canonical.toml"
    d = out.distances("h1v4s4-unlabeled", "piece")
    assert d.dtype == np.uint16 and d.shape == (65_880,)
    assert type(d.base).__name__ == "Mapping" and d.base.mapped
    assert not d.flags.writeable and not d.flags.owndata
    assert d.ctypes.data == d.base.address
    artifact = canonical / "h1v4s4-unlabeled" / "distances-piece.bin"
    assert mapped_file(d.ctypes.data) == str(artifact.resolve())
    with pytest.raises(ValueError):
        d[0] = 1
    # The same numbers the export wrote: the distance histogram, the states table's column.
    hist = out.table("distance_histogram").filter(
        (pl.col("space") == "h1v4s4-unlabeled") & (pl.col("metric") == "piece")
    )
    reached = d[d != huarong.UNREACHABLE]
    counts = np.bincount(reached)
    assert {int(k): int(v) for k, v in zip(hist["distance"], hist["states"])} == {
        k: int(v) for k, v in enumerate(counts) if v
    }
    column = out.table("states-h1v4s4-unlabeled")["distance_piece"].fill_null(
        huarong.UNREACHABLE
    )
    assert np.array_equal(column.to_numpy(), d)
    comps = out.components("h1v4s4-unlabeled", "piece")
    assert comps.base.mapped and comps.max() + 1 == out.summary().filter(
        pl.col("metric") == "piece"
    )["components"][0]


def test_labeled_codes_and_parts_of_two_processes(labeled):
    pipeline, one, two = labeled
    whole = huarong.Outputs(one, pipeline=pipeline)
    parts = huarong.Outputs(two, pipeline=pipeline)
    assert whole.spaces() == parts.spaces() == ["h1v2s2-labeled", "h4v0s2-labeled"]
    for space in whole.spaces():
        codes = whole.codes(space)
        assert not codes.base.mapped  # a ranked space's codes are computed, not stored
        assert np.all(codes[1:] > codes[:-1])
        for metric in ("step", "straight", "piece"):
            d1, d2 = whole.distances(space, metric), parts.distances(space, metric)
            assert d1.base.mapped and not d2.base.mapped  # two parts, gathered
            assert np.array_equal(d1, d2)
            assert np.array_equal(whole.components(space, metric), parts.components(space, metric))


def test_folder_errors(canonical, tmp_path):
    with pytest.raises(FileNotFoundError):
        huarong.Outputs(tmp_path / "nothing-here")
    with pytest.raises(FileNotFoundError, match="export.manifest"):
        huarong.Outputs(tmp_path)
    out = huarong.Outputs(canonical)
    with pytest.raises(ValueError, match="no space"):
        out.distances("h9v9s9-unlabeled", "piece")
    with pytest.raises(ValueError, match="no metric"):
        out.distances("h1v4s4-unlabeled", "teleport")
    with pytest.raises(ValueError, match="not listed"):
        out.table("no-such-table")
    with pytest.raises(ValueError, match="was not made by"):
        huarong.Outputs(canonical, pipeline=ROOT / "pipelines/huarong.toml")
    with pytest.raises(FileNotFoundError):
        huarong.Outputs(canonical, pipeline=tmp_path / "missing.toml")


def test_a_changed_artifact_is_refused(tmp_path):
    folder = tmp_path / "huarong-canonical"
    assert cli("run", "pipelines/huarong-canonical.toml", "-q", "-o", str(folder)).returncode == 0
    artifact = folder / "h1v4s4-unlabeled" / "distances-step.bin"
    data = bytearray(artifact.read_bytes())
    data[-1] ^= 1
    artifact.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="checksum|not made by"):
        huarong.Outputs(folder).distances("h1v4s4-unlabeled", "step")


def test_errors_never_crash_the_interpreter():
    for bad in ["", "/", "C" * 10_000, "\x00", "V" * 20, "4WVE1/4WVE1"]:
        with pytest.raises(ValueError):
            huarong.solve(bad)
    with pytest.raises(TypeError):
        huarong.solve(42)
    # Random texts over the notations' characters: a ValueError or an answer, never anything
    # else (a Rust panic would surface as pyo3's PanicException, a BaseException).
    import random

    rng = random.Random(343)
    alphabet = "CHVS.1234abcdHIJ/\n0123456789ABCDEFGHJKMNPQRSTUVWXYZ"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.choice([5, 9, 20, 24, 29])))
        for f in (huarong.common_code, huarong.short_code, huarong.layout, huarong.moves):
            try:
                f(text)
            except ValueError:
                pass


def test_a_found_pipeline_reads_its_puzzle_files_from_its_own_root(tmp_path):
    # pipelines/sliding.toml names puzzle files relative to the repository root; opened from a
    # subdirectory (a notebook's), the pipeline is found in a parent and its files with it.
    folder = tmp_path / "sliding"
    assert cli("run", "pipelines/sliding.toml", "-q", "-o", str(folder)).returncode == 0
    script = (
        "import sys, huarong\n"
        "o = huarong.Outputs(sys.argv[1])\n"
        "d = o.distances('pennant', 'piece')\n"
        "print(o.pipeline, len(o.spaces()), int(d[d != huarong.UNREACHABLE].max()))\n"
    )
    out = subprocess.run([os.sys.executable, "-c", script, str(folder)], cwd=ROOT / "notebooks",
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    pipeline, spaces, farthest = out.stdout.split()
    assert Path(pipeline) == ROOT / "pipelines/sliding.toml"
    assert int(spaces) == 17
    assert int(farthest) == 78  # Pennant's farthest position, piece metric (its start: 59)
