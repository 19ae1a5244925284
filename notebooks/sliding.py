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
# # Sliding-block puzzles from puzzle files
#
# Every bundled puzzle of `puzzles/` (Pennant, Quzzle, Century, Super Century, the sliding tiles,
# Rush Hour, …) run through the same stages as Huarong Dao by `huarong run
# pipelines/sliding.toml`: each space is every position reachable from the puzzle's board, in
# the `step`, `straight` and `piece` metrics, with distances to the puzzle's goal. This notebook
# reads the Parquet outputs (see `docs/OUTPUTS.md`) and shows, per puzzle, its board, its
# distance histogram and its farthest positions. Cells assert the published figures.

# %% tags=["parameters"]
import os
from pathlib import Path

OUT = Path(os.environ.get("SLIDING_OUTPUTS", "../outputs/sliding"))

# %%
import matplotlib.pyplot as plt
import polars as pl
from verified import verified
from matplotlib.patches import Rectangle

pl.Config.set_tbl_rows(60)
pl.Config.set_fmt_str_lengths(60)
verified(OUT)  # every table matches export.manifest (refused otherwise)
summary = pl.read_parquet(OUT / "summary.parquet")
records = pl.read_parquet(OUT / "records.parquet")
hist = pl.read_parquet(OUT / "distance_histogram.parquet")
summary.select(["space", "metric", "states", "goal_states", "edges", "max_distance",
                "max_distance_states", "answer"])

# %% [markdown]
# ## The published figures
#
# `answer` is the board's own distance to the goal. The sources are cited in each puzzle file.

# %%
published = {
    ("pennant", "piece"): 59, ("quzzle", "piece"): 84, ("quzzle", "straight"): 93,
    ("century", "piece"): 99, ("century-and-a-half", "piece"): 149,
    ("super-century", "piece"): 138, ("new-century", "piece"): 230,
    ("supercompo", "piece"): 123, ("hengdao-lima", "piece"): 81,
    ("rush-hour-60", "straight"): 60, ("rush-hour-58", "straight"): 58,
    ("rush-hour-55", "straight"): 55, ("rush-hour-51", "straight"): 51,
    ("rush-hour-10", "straight"): 10,
}
answers = {(r["space"], r["metric"]): r["answer"] for r in summary.iter_rows(named=True)}
rows = []
for (space, metric), moves in published.items():
    assert answers[(space, metric)] == moves, (space, metric, answers[(space, metric)])
    rows.append({"puzzle": space, "metric": metric, "published": moves,
                 "huarong": answers[(space, metric)]})
# The sliding tiles: n!/2 positions, the farthest at the published distance.
states = {r["space"]: r["states"] for r in summary.iter_rows(named=True)}
for space, n, far in [("five", 360, 21), ("seven", 20_160, 36), ("eight", 181_440, 31),
                      ("nine", 1_814_400, 55)]:
    assert states[space] == n
    top = summary.filter((pl.col("space") == space) & (pl.col("metric") == "step"))
    assert top["max_distance"][0] == far
pl.DataFrame(rows)

# %%
def draw(ax, layout, title=""):
    """A position written as rows joined by '/': a colour per letter, walls dark."""
    rows = layout.split("/")
    h, w = len(rows), len(rows[0])
    letters = sorted({c for r in rows for c in r} - {".", "#"})
    cmap = plt.get_cmap("tab20")
    colour = {c: cmap(i % 20) for i, c in enumerate(letters)}
    ax.add_patch(Rectangle((0, 0), w, h, facecolor="#f4efe6", edgecolor="black", lw=2))
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch == ".":
                continue
            face = "#444" if ch == "#" else colour[ch]
            ax.add_patch(Rectangle((c + 0.04, h - r - 0.96), 0.92, 0.92, facecolor=face,
                                   edgecolor="#222", lw=0.6))
            if ch != "#":
                ax.text(c + 0.5, h - r - 0.5, ch, ha="center", va="center", fontsize=7)
    ax.set_xlim(0, w)
    ax.set_ylim(0, h)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(title, fontsize=8)


# %% [markdown]
# ## Each puzzle: its board, its distances, its farthest positions
#
# The histogram counts the positions of the space at each distance to the goal (the puzzle's
# headline metric: `piece` for the block puzzles, `straight` for Rush Hour, `step` for the
# tiles); the boards on the right are positions at the largest distance.

# %%
headline = {space: metric for (space, metric) in published}
for space in summary["space"].unique(maintain_order=True):
    metric = headline.get(space, "step")
    start = records.filter((pl.col("space") == space) & (pl.col("name") == "start")
                           & (pl.col("metric") == metric))
    far = records.filter((pl.col("space") == space) & (pl.col("name") == "farthest")
                         & (pl.col("metric") == metric))
    h = hist.filter((pl.col("space") == space) & (pl.col("metric") == metric)).sort("distance")
    fig = plt.figure(figsize=(12, 2.6))
    grid = fig.add_gridspec(1, 6, width_ratios=[1, 3, 1, 1, 1, 0.2])
    draw(fig.add_subplot(grid[0]), start["layout"][0],
         f"{space}: {start['moves'][0]} {metric} moves")
    ax = fig.add_subplot(grid[1])
    ax.bar(h["distance"], h["states"], color="tab:blue")
    ax.set_xlabel(f"distance to the goal ({metric})")
    ax.set_ylabel("positions")
    for k in range(min(3, far.height)):
        draw(fig.add_subplot(grid[2 + k]), far["layout"][k], f"{far['moves'][k]} moves")
    plt.show()
