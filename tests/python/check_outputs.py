"""Reads a pipeline's Parquet outputs back with polars, duckdb and pyarrow and checks them.

Every number in summary.parquet is recomputed from the states tables; the three readers must
agree on what the files hold. Usage: python check_outputs.py OUTPUT_DIR
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
        # Goals are at distance 0 and only they are.
        assert states.filter(pl.col(dist) == 0)["goal"].all(), row
        checked += 1
    assert checked > 0

    records = pl.read_parquet(out / "records.parquet")
    for col in ["name", "layout", "piece_set", "metric", "moves", "component_size"]:
        assert col in records.columns, col
    hengdao = records.filter((pl.col("name") == "横刀立马") & (pl.col("metric") == "piece"))
    assert hengdao["moves"].to_list() == [81], hengdao

    # duckdb and pyarrow read the same files and agree.
    con = duckdb.connect()
    for f in sorted(out.glob("*.parquet")):
        n_duck = con.execute(f"select count(*) from read_parquet('{f}')").fetchone()[0]
        n_arrow = pq.read_metadata(f).num_rows
        n_polars = pl.scan_parquet(f).select(pl.len()).collect().item()
        assert n_duck == n_arrow == n_polars, (f.name, n_duck, n_arrow, n_polars)
    moves = con.execute(
        f"select moves from read_parquet('{out / 'records.parquet'}') "
        "where name = '横刀立马' and metric = 'step'"
    ).fetchone()[0]
    assert moves == 116, moves
    table = pq.read_table(out / "summary.parquet")
    assert table.num_rows == summary.height
    print(f"{checked} summary rows recomputed from the states tables; "
          f"{len(list(out.glob('*.parquet')))} files agree across polars, duckdb and pyarrow")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
