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
# # Huarong Dao (华容道): every position, its component and its distance to the goal
#
# This notebook reads the Parquet outputs of a `huarong run` (see `docs/OUTPUTS.md`). The
# parameter cell below selects the output folder: the small `outputs/huarong-canonical/`
# (unlabeled classic set, seconds to build) or the full `outputs/huarong/` (labeled too).
# Cells assert key facts, so a wrong pipeline fails the notebook.

# %% tags=["parameters"]
import os
from pathlib import Path

# The pipeline output folder.
OUT = Path(os.environ.get("HUARONG_OUTPUTS", "../outputs/huarong-canonical"))

# %%
import duckdb
import huarong  # pip install ./python
import numpy as np
import matplotlib.pyplot as plt
import polars as pl
from verified import verified
from matplotlib.patches import Rectangle

pl.Config.set_tbl_rows(30)
verified(OUT)  # every table matches export.manifest (refused otherwise)

# %% [markdown]
# ## Summary: one row per state space and metric

# %%
summary = pl.read_parquet(OUT / "summary.parquet")
classic = summary.filter((pl.col("piece_set") == "h1v4s4") & ~pl.col("labeled"))
assert classic["states"].unique().to_list() == [65_880]
labeled = summary.filter(pl.col("labeled"))
if labeled.height:
    assert labeled["states"].unique().to_list() == [37_946_880]
summary.select(
    "space", "metric", "states", "goal_states", "edges", "components", "goal_components",
    "solvable_states", "max_distance", "max_distance_states",
)

# %% [markdown]
# ## How far is every position from the goal?
#
# Distance histograms per metric (log scale): `step` counts unit slides, `straight` straight
# slides of any length, `piece` any movement of one piece (the metric of the 81-move record).

# %%
hist = pl.read_parquet(OUT / "distance_histogram.parquet")
spaces = hist["space"].unique(maintain_order=True).to_list()
fig, axes = plt.subplots(1, len(spaces), figsize=(6.5 * len(spaces), 4), squeeze=False)
for ax, space in zip(axes[0], spaces):
    for metric in ["step", "straight", "piece"]:
        h = hist.filter((pl.col("space") == space) & (pl.col("metric") == metric)).sort("distance")
        ax.step(h["distance"], h["states"], where="mid", label=metric)
    ax.set_yscale("log")
    ax.set_xlabel("moves to the goal")
    ax.set_ylabel("positions")
    ax.set_title(space)
    ax.legend()
plt.show()

# %% [markdown]
# ## Component sizes
#
# Most of the 65,880 classic positions sit in a few big components; hundreds of tiny ones can
# never reach the goal.

# %%
comps = pl.read_parquet(OUT / "components-h1v4s4-unlabeled.parquet")
piece_comps = comps.filter(pl.col("metric") == "piece")
assert piece_comps["size"].sum() == 65_880
sizes = piece_comps.group_by("size", (pl.col("goal_states") > 0).alias("solvable")).len()
fig, ax = plt.subplots(figsize=(7, 4))
for solvable, colour in [(True, "tab:green"), (False, "tab:grey")]:
    s = sizes.filter(pl.col("solvable") == solvable)
    label = "holds a goal" if solvable else "no goal"
    ax.scatter(s["size"], s["len"], color=colour, label=label)
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("component size (positions)")
ax.set_ylabel("number of components")
ax.legend()
plt.show()
piece_comps.sort("size", descending=True).head(5)

# %% [markdown]
# ## Records: the named layouts and the farthest positions

# %%
records = pl.read_parquet(OUT / "records.parquet")
hengdao = records.filter((pl.col("name") == "横刀立马") & (pl.col("metric") == "piece"))
assert hengdao["moves"].to_list() == [81]
peak = records.filter((pl.col("name") == "峰回路转") & (pl.col("metric") == "piece"))
assert peak["moves"].to_list() == [138]
records.filter(pl.col("metric") == "piece").sort("moves", descending=True)

# %% [markdown]
# ## Boards as pictures
#
# Pieces are coloured by kind: Cao Cao red, horizontal generals orange, vertical generals blue,
# soldiers green.

# %%
COLOURS = {"C": "#d62728", "H": "#ff7f0e", "V": "#1f77b4", "S": "#2ca02c"}
SHAPES = {"C": (2, 2), "H": (2, 1), "V": (1, 2), "S": (1, 1)}


def pieces(layout):
    """(kind, row, col, width, height) of every piece of an unlabeled layout."""
    rows = layout.split("/")
    taken = set()
    out = []
    for r in range(5):
        for c in range(4):
            ch = rows[r][c]
            if ch == "." or (r, c) in taken:
                continue
            w, h = SHAPES[ch]
            taken |= {(r + dr, c + dc) for dr in range(h) for dc in range(w)}
            out.append((ch, r, c, w, h))
    return out


def draw(ax, layout, title=None):
    ax.add_patch(Rectangle((0, 0), 4, 5, facecolor="#f4efe6", edgecolor="black", lw=1.5))
    for kind, r, c, w, h in pieces(layout):
        ax.add_patch(
            Rectangle((c + 0.06, 5 - r - h + 0.06), w - 0.12, h - 0.12,
                      facecolor=COLOURS[kind], edgecolor="black", lw=0.8)
        )
    ax.plot([1, 3], [0, 0], color="#f4efe6", lw=4)  # the exit
    ax.set_xlim(-0.1, 4.1)
    ax.set_ylim(-0.1, 5.1)
    ax.set_aspect("equal")
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=8)


farthest = records.filter((pl.col("name") == "farthest") & (pl.col("metric") == "piece"))
assert farthest.height == classic.filter(pl.col("metric") == "piece")["max_distance_states"][0]
fig, axes = plt.subplots(1, farthest.height, figsize=(2 * farthest.height, 2.6), squeeze=False)
for ax, row in zip(axes[0], farthest.iter_rows(named=True)):
    draw(ax, row["layout"], f"{row['moves']} moves")
plt.show()

# %% [markdown]
# ## The 81-move solution of 横刀立马, move by move
#
# Computed by `huarong.solve`, which descends the distance tables of this output folder (the
# same path as `huarong solve --json`). dnomd343/klotski's players know the start as
# CommonCode `1A9BF0C00`, ShortCode `4WVE1`; either names it as well as the layout does.

# %%
solution = huarong.solve("4WVE1", metric="piece", tables=[OUT])
assert solution["moves"] == 81 and len(solution["path"]) == 82
assert solution["source"] == "tables" and solution["common_code"] == "1A9BF0C00"
cols = 12
rows_ = -(-len(solution["path"]) // cols)
fig, axes = plt.subplots(rows_, cols, figsize=(cols * 1.1, rows_ * 1.5))
for i, ax in enumerate(axes.flat):
    if i < len(solution["path"]):
        draw(ax, solution["path"][i], str(i))
    else:
        ax.axis("off")
plt.show()

# %% [markdown]
# ## The tables as numpy arrays
#
# `huarong.Outputs` opens the folder's artifacts (verified, and vouched for by its export) as
# read-only numpy arrays over the memory-mapped files: no Parquet decoding, no copy. Indexed
# by state: the distance of every position, its component, its code.

# %%
outputs = huarong.Outputs(OUT)
space = "h1v4s4-unlabeled"
dist = outputs.distances(space, "piece")
comp = outputs.components(space, "piece")
assert dist.base.mapped and not dist.flags.writeable
solvable = dist != huarong.UNREACHABLE
goal_components = np.unique(comp[dist == 0])
assert np.isin(comp[solvable], goal_components).all()  # solvable = in a goal's component
per_component = np.bincount(comp)
print(f"{solvable.sum():,} solvable positions in {len(goal_components)} goal components; "
      f"largest component {per_component.max():,} positions")
far = np.flatnonzero(dist == dist[solvable].max())
assert len(far) == farthest.height  # the records' farthest positions, found again
states = outputs.table(f"states-{space}")
states.filter(pl.col("index").is_in(far.tolist())).select(
    "layout", "common_code", "short_code", "distance_piece"
)

# %% [markdown]
# ## Labeled vs unlabeled
#
# With generals and soldiers told apart, each unlabeled component splits into labeled ones:
# which swaps of same-shaped pieces can be reached decides how many. Only the full outputs
# (`outputs/huarong/`) hold the labeled table.

# %%
labeled_states = OUT / "states-h1v4s4-labeled.parquet"
unlabeled_states = OUT / "states-h1v4s4-unlabeled.parquet"
if labeled_states.exists():
    split = duckdb.sql(f"""
        select u.component_piece as canonical_component,
               count(distinct l.component_piece) as labeled_components,
               count(*) as labeled_positions
        from read_parquet('{labeled_states}') l
        join read_parquet('{unlabeled_states}') u on l.canonical = u.index
        group by 1
    """).pl()
    total = labeled.filter(pl.col("metric") == "piece")["components"][0]
    assert split["labeled_components"].sum() == total
    assert split["labeled_positions"].sum() == 37_946_880
    counts = split.group_by("labeled_components").len().sort("labeled_components")
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.bar([str(x) for x in counts["labeled_components"]], counts["len"])
    ax.set_yscale("log")
    ax.set_xlabel("labeled components per unlabeled component (piece metric)")
    ax.set_ylabel("unlabeled components")
    plt.show()
    display(counts)  # noqa: F821 (IPython)
else:
    print(f"{labeled_states.name} is not in {OUT}: run pipelines/huarong.toml for this part")
