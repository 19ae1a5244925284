# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # The Rush Hour universe: every layout, every cluster, the database of minimal puzzles
#
# Michael Fogleman's analysis ("Solving Rush Hour, the Puzzle", 2018) as a pipeline section:
# `huarong run pipelines/rush-hour-5.toml` counts every 5 × 5 layout with up to two walls,
# splits them into clusters (connected components of the move graph), takes each solvable
# cluster's farthest layout as its puzzle and keeps the minimal ones (removing any piece but the
# red car makes them easier). Definitions and checks: `docs/RUSH-HOUR.md`. Cells assert facts.

# %% tags=["parameters"]
import os
from pathlib import Path

OUT = Path(os.environ.get("RUSH_OUTPUTS", "../outputs/rush-hour-5"))
HUARONG = os.environ.get("HUARONG_BIN", "huarong")

# %%
import subprocess
import tempfile

import huarong
import matplotlib.pyplot as plt
import polars as pl
from matplotlib.patches import Rectangle
from verified import verified

verified(OUT)  # every table matches export.manifest (refused otherwise)
summary = pl.read_parquet(OUT / "summary.parquet")
puzzles = pl.read_parquet(OUT / "rush_puzzles.parquet")
moves = pl.read_parquet(OUT / "rush_moves.parquet")
row = summary.row(0, named=True)
# Layouts of solvable clusters are some of all layouts; every cluster is counted once.
assert moves["layouts"].sum() <= row["layouts"]
assert row["solvable_clusters"] <= row["clusters"] <= row["layouts"]
assert row["minimal_puzzles"] == puzzles.height == moves["minimal_puzzles"].sum()
assert row["solvable_clusters"] == moves["solvable_clusters"].sum()
assert row["max_moves"] == puzzles["moves"].max()
summary

# %% [markdown]
# ## Puzzles per number of moves
#
# Solvable clusters by how many moves their puzzle needs, and the minimal puzzles among them
# (log scale: easy clusters outnumber hard ones by orders of magnitude).

# %%
m = moves.filter(pl.col("moves") > 0)
fig, ax = plt.subplots(figsize=(11, 3.8))
ax.bar(m["moves"] - 0.2, m["solvable_clusters"], width=0.4, label="solvable clusters")
ax.bar(m["moves"] + 0.2, m["minimal_puzzles"], width=0.4, label="minimal puzzles")
ax.set_yscale("log")
ax.set_xlabel("moves to solve the cluster's puzzle")
ax.legend()
plt.show()
moves.filter(pl.col("minimal_puzzles") > 0).tail(8)

# %% [markdown]
# ## The hardest puzzles, drawn
#
# A board is `N·N` characters row-major: `.` empty, `x` a wall, `A` the red car (its exit is
# the right end of row 2), `B`, `C`, … the other cars and trucks.

# %%
def draw(ax, board, title):
    n = int(round(len(board) ** 0.5))
    ax.add_patch(Rectangle((0, 0), n, n, facecolor="#f4efe6", edgecolor="black"))
    ax.plot([n, n], [n - 2, n - 3], color="white", lw=4)  # the exit, right of row 2
    pieces = {}
    for i, ch in enumerate(board):
        if ch == "x":
            pieces[("x", i)] = [i]  # every wall its own cell
        elif ch != ".":
            pieces.setdefault(ch, []).append(i)
    for key, cells in pieces.items():
        ch = key[0] if isinstance(key, tuple) else key
        rows, cols = [j // n for j in cells], [j % n for j in cells]
        x0, y0 = min(cols), n - 1 - max(rows)
        w, h = max(cols) - x0 + 1, max(rows) - min(rows) + 1
        color = {"A": "tab:red", "x": "dimgray"}.get(ch, "tab:blue")
        ax.add_patch(Rectangle((x0 + 0.06, y0 + 0.06), w - 0.12, h - 0.12, color=color))
        if ch != "x":
            ax.text(x0 + w / 2, y0 + h / 2, ch, ha="center", va="center", color="white")
    ax.set_xlim(-0.1, n + 0.1)
    ax.set_ylim(-0.1, n + 0.1)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title, fontsize=9)


hardest = puzzles.head(6)
fig, axes = plt.subplots(1, len(hardest), figsize=(2.6 * len(hardest), 3))
for ax, r in zip(axes, hardest.iter_rows(named=True)):
    draw(ax, r["board"], f"{r['moves']} moves, cluster {r['cluster_size']:,}")
plt.show()
hardest

# %% [markdown]
# ## Cluster sizes of the database's puzzles

# %%
fig, ax = plt.subplots(figsize=(11, 3.5))
ax.hist(puzzles["cluster_size"], bins=60, log=True, color="tab:green")
ax.set_xlabel("layouts in the puzzle's cluster")
ax.set_ylabel("minimal puzzles")
plt.show()
puzzles.select(pl.col("cluster_size").min().alias("smallest"), pl.col("cluster_size").max().alias("largest"))

# %% [markdown]
# ## Any row opens in `solve` (and `serve`)
#
# `huarong.solve` reads a board in Fogleman's notation directly; written as a sliding-block
# puzzle file, the same row solves with `huarong solve --puzzle` (and opens in `huarong serve
# --puzzles DIR`). Both agree with the database's `moves`.

# %%
def puzzle_file(board, name):
    n = int(round(len(board) ** 0.5))
    rows = "".join(board[i : i + n].replace("x", "#") + "\n" for i in range(0, n * n, n))
    goal = ["." * n] * n
    goal[2] = "." * (n - 2) + "AA"
    return (
        f'name = "{name}"\nboard = """\n{rows}"""\ngoal = """\n' + "\n".join(goal)
        + '\n"""\nmoves = "lengthwise"\ndistinct = "A"\n'
    )


top = puzzles.row(0, named=True)
answer = huarong.solve(top["board"])
assert answer["moves"] == top["moves"], answer["moves"]
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "hardest.toml"
    path.write_text(puzzle_file(top["board"], "The hardest 5 x 5 puzzle"))
    out = subprocess.run([HUARONG, "solve", "--puzzle", str(path)], capture_output=True,
                         text=True, check=True).stdout
assert int(out.split()[0]) == top["moves"], out
print(f"{top['board']}: {answer['moves']} moves (package), {out.split()[0]} (puzzle file)")
print(path.name, "written as:\n" + puzzle_file(top["board"], "The hardest 5 x 5 puzzle"))
