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
# # The Klotski universe: every piece set, every position
#
# `pipelines/klotski-universe.toml` runs every piece set with one 2×2 block and at least two
# empty cells (203 sets with positions, 29,334,498 positions) through the stages in all three
# metrics. This notebook reads its Parquet outputs (the folder below; the tests point it at a
# twelve-set slice): how hard each piece set is, and the hardest positions of all.

# %% tags=["parameters"]
import os
from pathlib import Path

OUT = Path(os.environ.get("UNIVERSE_OUTPUTS", "../outputs/klotski-universe"))

# %%
import re

import matplotlib.pyplot as plt
import numpy as np
import polars as pl
from verified import verified
from matplotlib.patches import Rectangle

pl.Config.set_tbl_rows(20)
verified(OUT)  # every table matches export.manifest (refused otherwise)
summary = pl.read_parquet(OUT / "summary.parquet").with_columns(
    pl.col("piece_set").str.extract(r"h(\d+)", 1).cast(pl.Int32).alias("h"),
    pl.col("piece_set").str.extract(r"v(\d+)", 1).cast(pl.Int32).alias("v"),
    pl.col("piece_set").str.extract(r"s(\d+)", 1).cast(pl.Int32).alias("s"),
)
piece = summary.filter(pl.col("metric") == "piece")
total = piece["states"].sum()
print(f"{piece.height} piece sets, {total:,} positions")
if piece.height >= 203:
    assert total == 29_334_498  # dnomd343/klotski's published count
classic = piece.filter(pl.col("piece_set") == "h1v4s4")
if classic.height:
    assert classic["states"].to_list() == [65_880]

# %% [markdown]
# ## Hardness by piece set
#
# The largest distance to the goal (piece metric) of each piece set, over the number of
# generals (h + v) and soldiers; where several splits of h + v share a cell, the hardest.

# %%
grid = piece.group_by((pl.col("h") + pl.col("v")).alias("generals"), "s").agg(
    pl.col("max_distance").max()
)
g_max, s_max = grid["generals"].max(), grid["s"].max()
heat = np.full((g_max + 1, s_max + 1), np.nan)
for row in grid.iter_rows(named=True):
    heat[row["generals"], row["s"]] = row["max_distance"]
fig, ax = plt.subplots(figsize=(9, 4.5))
im = ax.imshow(heat, origin="lower", cmap="magma_r", aspect="auto")
ax.set_xlabel("soldiers (s)")
ax.set_ylabel("generals (h + v)")
ax.set_title("largest distance to the goal, piece metric")
for (gi, si), val in np.ndenumerate(heat):
    if not np.isnan(val):
        ax.text(si, gi, int(val), ha="center", va="center", fontsize=7,
                color="white" if val > np.nanmax(heat) / 2 else "black")
fig.colorbar(im, ax=ax, label="moves")
plt.show()

# %%
solvable = piece.with_columns(
    (pl.col("solvable_states") / pl.col("states")).alias("solvable_share")
).sort("max_distance", descending=True)
solvable.select("piece_set", "states", "components", "goal_components", "solvable_share",
                "max_distance", "max_distance_states").head(10)

# %% [markdown]
# ## The hardest positions of the universe
#
# `records.parquet` holds, per metric, the positions at the largest distance over all piece
# sets (`hardest`), next to each set's own farthest positions.

# %%
records = pl.read_parquet(OUT / "records.parquet")
hardest = records.filter((pl.col("name") == "hardest") & (pl.col("metric") == "piece"))
assert hardest.height > 0
assert hardest["moves"].unique().to_list() == [piece["max_distance"].max()]
hardest

# %%
COLOURS = {"C": "#d62728", "H": "#ff7f0e", "V": "#1f77b4", "S": "#2ca02c"}
SHAPES = {"C": (2, 2), "H": (2, 1), "V": (1, 2), "S": (1, 1)}


def draw(ax, layout, title):
    rows = layout.split("/")
    taken = set()
    ax.add_patch(Rectangle((0, 0), 4, 5, facecolor="#f4efe6", edgecolor="black", lw=1.5))
    for r in range(5):
        for c in range(4):
            ch = rows[r][c]
            if ch == "." or (r, c) in taken:
                continue
            w, h = SHAPES[ch]
            taken |= {(r + dr, c + dc) for dr in range(h) for dc in range(w)}
            ax.add_patch(Rectangle((c + 0.06, 5 - r - h + 0.06), w - 0.12, h - 0.12,
                                   facecolor=COLOURS[ch], edgecolor="black", lw=0.8))
    ax.plot([1, 3], [0, 0], color="#f4efe6", lw=4)
    ax.set_xlim(-0.1, 4.1)
    ax.set_ylim(-0.1, 5.1)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title, fontsize=8)


show = hardest.head(6)
fig, axes = plt.subplots(1, show.height, figsize=(2.2 * show.height, 2.8), squeeze=False)
for ax, row in zip(axes[0], show.iter_rows(named=True)):
    draw(ax, row["layout"], f"{row['piece_set']}: {row['moves']} moves")
plt.show()

# %% [markdown]
# ## The Klotski database: every puzzle worth playing
#
# `klotski_puzzles.parquet` (written when the run holds every piece set one piece smaller than
# each of its sets, as the universe does): per metric, one row per solvable cluster whose
# farthest position is *minimal* — removing any piece but Cao Cao brings it strictly closer to a
# goal. Below: the twenty hardest in the piece metric, then how many puzzles each move count has,
# for the piece sets with the most puzzles. Each row's link opens it in `huarong serve`.

# %%
database = OUT / "klotski_puzzles.parquet"
if database.exists():
    puzzles = pl.read_parquet(database)
    piece_puzzles = puzzles.filter(pl.col("metric") == "piece")
    assert piece_puzzles["moves"].to_list() == sorted(piece_puzzles["moves"], reverse=True)
    if piece.height >= 203:
        # Super Century's cluster (Storer's 138) heads the database, every piece mattering.
        assert piece_puzzles.row(0, named=True)["piece_set"] == "h2v3s4"
        assert piece_puzzles["moves"][0] == 138
    hardest20 = piece_puzzles.head(20)
    fig, axes = plt.subplots(2, 10, figsize=(16, 4.6))
    for ax, row in zip(axes.flat, hardest20.iter_rows(named=True)):
        draw(ax, row["layout"], f"{row['piece_set']}: {row['moves']}")
    for ax in list(axes.flat)[hardest20.height:]:
        ax.axis("off")
    plt.show()
    print("\n".join(f"http://127.0.0.1:8080/#layout={row['layout']}&metric=piece"
                    for row in hardest20.head(3).iter_rows(named=True)))
else:
    print(f"{database.name} not in {OUT}: this run's piece sets are not closed under removal")

# %%
if database.exists():
    per_move = pl.read_parquet(OUT / "klotski_moves.parquet").filter(pl.col("metric") == "piece")
    assert per_move["minimal_puzzles"].sum() == piece_puzzles.height
    top = (per_move.group_by("piece_set").agg(pl.col("minimal_puzzles").sum())
           .sort("minimal_puzzles", descending=True).head(6)["piece_set"].to_list())
    fig, ax = plt.subplots(figsize=(8, 4))
    for name in top:
        rows = per_move.filter((pl.col("piece_set") == name) & (pl.col("minimal_puzzles") > 0))
        ax.plot(rows["moves"], rows["minimal_puzzles"], marker="o", ms=3, label=name)
    ax.set_xlabel("moves (piece metric)")
    ax.set_ylabel("minimal puzzles")
    ax.legend(title="piece set")
    plt.show()

# %% [markdown]
# ## Component sizes across the universe
#
# `component_sizes.parquet`: per piece set and metric, how many components of each size, and how
# many of them hold a goal.

# %%
sizes = pl.read_parquet(OUT / "component_sizes.parquet").filter(pl.col("metric") == "piece")
agg = sizes.group_by("size").agg(pl.col("components").sum(), pl.col("goal_components").sum())
fig, ax = plt.subplots(figsize=(7, 4))
ax.scatter(agg["size"], agg["components"], s=8, label="all components")
with_goal = agg.filter(pl.col("goal_components") > 0)
ax.scatter(with_goal["size"], with_goal["goal_components"], s=8, label="holding a goal")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("component size (positions)")
ax.set_ylabel("components")
ax.legend()
plt.show()
assert (sizes["size"] * sizes["components"]).sum() == total
