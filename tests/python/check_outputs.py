"""Reads pipelines' Parquet outputs back with polars, duckdb and pyarrow and checks them.

Every number in summary.parquet is recomputed from the states tables; the three readers must
agree on what the files hold; each puzzle's known answers are checked.
Usage: python check_outputs.py OUTPUT_DIR [OUTPUT_DIR ...]
"""

import sys
from pathlib import Path

import duckdb
import polars as pl
import pyarrow.parquet as pq


def main(out: Path) -> None:
    summary = pl.read_parquet(out / "summary.parquet")
    expected_columns = [
        "puzzle", "piece_set", "labeled", "metric", "states", "goal_states", "edges",
        "components", "goal_components", "solvable_states", "max_distance",
        "max_distance_states",
    ]
    missing = [c for c in expected_columns if c not in summary.columns]
    assert not missing, f"summary.parquet lacks {missing}"
    assert summary.schema["states"] == pl.UInt64 and summary.schema["max_distance"] == pl.UInt32

    checked = 0
    for row in summary.iter_rows(named=True):
        if not (out / f"states-{row['space']}.parquet").exists():
            check_against_distributions(out, row)
            checked += 1
            continue
        states = pl.read_parquet(out / f"states-{row['space']}.parquet")
        m = row["metric"]
        comp, dist = f"component_{m}", f"distance_{m}"
        assert states.height == row["states"], (row, states.height)
        assert states["goal"].sum() == row["goal_states"], row
        assert states[comp].n_unique() == row["components"], row
        goal_comps = states.filter(pl.col("goal"))[comp].n_unique()
        assert goal_comps == row["goal_components"], row
        solvable = states[dist].drop_nulls()
        assert solvable.len() == row["solvable_states"], row
        assert solvable.max() == row["max_distance"], row
        assert (solvable == row["max_distance"]).sum() == row["max_distance_states"], row
        if row["puzzle"] in FROM_THE_START:
            # Depth from the start: one state at depth 0.
            assert (states[dist] == 0).sum() == 1, row
        else:
            # Distances to the goal: goals are at distance 0 and only they are.
            assert states.filter(pl.col(dist) == 0)["goal"].all(), row
            assert (states[dist] == 0).sum() == row["goal_states"], row
        checked += 1
    assert checked > 0

    records = pl.read_parquet(out / "records.parquet")
    for col in ["name", "layout", "space", "piece_set", "metric", "moves", "component_size"]:
        assert col in records.columns, col
    puzzle = summary["puzzle"][0]
    # A family's own published answers, where this script knows some; every family gets the
    # generic checks above and the readers' agreement below.
    known = {"huarong": check_huarong, "solitaire": check_solitaire,
             "omnigravity": check_omnigravity, "square-destroyer": check_square_destroyer}
    if puzzle in known:
        known[puzzle](out, summary, records)
    readers_agree(out)
    print(f"{out.name}: {checked} summary rows recomputed from the states tables or distributions; "
          f"{len(list(out.glob('*.parquet')))} files agree across polars, duckdb and pyarrow")


# Families whose distances are depths from a start rather than distances to a goal.
FROM_THE_START = {"solitaire", "omnigravity"}


def check_against_distributions(out: Path, row: dict) -> None:
    """A summary row without a states table (the universe) against the histograms and the
    component-size distribution."""
    pick = (pl.col("space") == row["space"]) & (pl.col("metric") == row["metric"])
    hist = pl.read_parquet(out / "distance_histogram.parquet").filter(pick)
    assert hist["states"].sum() == row["solvable_states"], row
    if hist.height:
        assert hist["distance"].max() == row["max_distance"], row
        top = hist.filter(pl.col("distance") == row["max_distance"])["states"].sum()
        assert top == row["max_distance_states"], row
        assert hist.filter(pl.col("distance") == 0)["states"].sum() == row["goal_states"], row
    sizes = pl.read_parquet(out / "component_sizes.parquet").filter(pick)
    assert (sizes["size"] * sizes["components"]).sum() == row["states"], row
    assert sizes["components"].sum() == row["components"], row
    assert sizes["goal_components"].sum() == row["goal_components"], row
    degrees = pl.read_parquet(out / "degree_histogram.parquet").filter(pick)
    assert degrees["states"].sum() == row["states"], row
    assert (degrees["degree"] * degrees["states"]).sum() == 2 * row["edges"], row


def check_solitaire(out: Path, summary: pl.DataFrame, records: pl.DataFrame) -> None:
    assert summary["states"].to_list() == [635_376]
    # The judge's sample answers YES: the goal is at most 8 moves from the start.
    answer = summary["answer"][0]
    assert answer is not None and answer <= 8, answer
    goal = records.filter(pl.col("name") == "goal")
    assert goal["moves"].to_list() == [answer]


def check_omnigravity(out: Path, summary: pl.DataFrame, records: pl.DataFrame) -> None:
    answers = dict(zip(summary["space"], summary["answer"]))
    # The judge's sample output: Case 1: 110, Case 2: 2.
    assert answers.get("sample-1") == 110 and answers.get("sample-2") == 2, answers
    assert summary["edges"].min() > 0


def check_square_destroyer(out: Path, summary: pl.DataFrame, records: pl.DataFrame) -> None:
    answers = pl.read_parquet(out / "answers.parquet")
    # Searched answers agree with the exhaustive tables wherever both exist.
    both = answers.filter(pl.col("table_answer").is_not_null())
    assert both.height > 0 and (both["answer"] == both["table_answer"]).all(), both
    # The full grids: 1, 3, 6 from the tables; n = 5 by search is 14 (OEIS A227116).
    full = dict(zip(summary["space"], summary["answer"]))
    assert [full.get(f"n{n}") for n in (1, 2, 3)] == [1, 3, 6], full
    n5 = answers.filter((pl.col("n") == 5) & (pl.col("case") == "0"))["answer"].unique()
    assert n5.to_list() == [14], n5


def check_huarong(out: Path, summary: pl.DataFrame, records: pl.DataFrame) -> None:
    if summary.height > 3:
        # The universe: the hardest positions of all are at the largest distance of any set.
        for metric in ["step", "straight", "piece"]:
            top = summary.filter(pl.col("metric") == metric)["max_distance"].max()
            hard = records.filter((pl.col("name") == "hardest") & (pl.col("metric") == metric))
            assert hard.height > 0 and hard["moves"].unique().to_list() == [top], metric
    hengdao = records.filter((pl.col("name") == "横刀立马") & (pl.col("metric") == "piece"))
    assert hengdao["moves"].to_list() == [81], hengdao
    con = duckdb.connect()
    moves = con.execute(
        f"select moves from read_parquet('{out / 'records.parquet'}') "
        "where name = '横刀立马' and metric = 'step'"
    ).fetchone()[0]
    assert moves == 116, moves


def readers_agree(out: Path) -> None:
    """duckdb, pyarrow and polars read the same files and agree."""
    con = duckdb.connect()
    for f in sorted(out.glob("*.parquet")):
        n_duck = con.execute(f"select count(*) from read_parquet('{f}')").fetchone()[0]
        n_arrow = pq.read_metadata(f).num_rows
        n_polars = pl.scan_parquet(f).select(pl.len()).collect().item()
        assert n_duck == n_arrow == n_polars, (f.name, n_duck, n_arrow, n_polars)
    summary = pl.read_parquet(out / "summary.parquet")
    table = pq.read_table(out / "summary.parquet")
    assert table.num_rows == summary.height


if __name__ == "__main__":
    assert len(sys.argv) > 1, __doc__
    for arg in sys.argv[1:]:
        main(Path(arg))
