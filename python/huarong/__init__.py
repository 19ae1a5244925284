"""huarong in Python: solve positions, dnomd343/klotski's codes, and output folders.

>>> import huarong
>>> huarong.solve("VCCV/VCCV/VHHV/VSSV/S..S")["moves"]
81
>>> huarong.short_code("VCCV/VCCV/VHHV/VSSV/S..S")
'4WVE1'

Positions are solved by the same path as ``huarong solve``: the distance tables under
``tables`` (default: every folder under ``outputs/`` of the working directory) when they hold
the position's space, else its component explored once and kept for the process.

``Outputs(folder)`` reads a finished pipeline output folder: ``summary()`` and ``table(name)``
as polars DataFrames, ``distances``, ``components`` and ``codes`` as read-only numpy arrays
over the memory-mapped artifacts (no copy). Bad input raises ``ValueError`` (or
``FileNotFoundError``), with the message naming the row, cell, line or file.
"""

from __future__ import annotations

import os
from typing import Optional, Sequence

import numpy as np

from . import _native

__all__ = [
    "solve",
    "solve_puzzle",
    "moves",
    "common_code",
    "short_code",
    "layout",
    "Outputs",
    "UNREACHABLE",
]

#: The distance of a state from which no goal is reachable (``u16::MAX``).
UNREACHABLE: int = _native.UNREACHABLE

MAX_STATES = 50_000_000


def _roots(tables) -> Optional[list]:
    if tables is None:
        return None
    if isinstance(tables, (str, os.PathLike)):
        tables = [tables]
    return [os.fspath(t) for t in tables]


def solve(
    layout: str,
    metric: str = "piece",
    goal: Optional[str] = None,
    *,
    tables=None,
    max_states: int = MAX_STATES,
) -> dict:
    """An optimal solution of a Huarong Dao layout (or its CommonCode or ShortCode).

    Returns ``{"moves": N, "path": [layout, ...], "metric", "source", "common_code",
    "short_code"}``; ``moves`` is ``None`` (and ``path`` empty) when no goal is reachable.
    ``goal="ROW,COL"`` moves Cao Cao's top-left cell there instead of the exit at 3,1.
    """
    return _native.solve(
        layout, metric, goal, None, _roots(tables), max_states
    )


def solve_puzzle(
    path_or_text: str,
    position: Optional[str] = None,
    metric: Optional[str] = None,
    *,
    tables=None,
    max_states: int = MAX_STATES,
) -> dict:
    """An optimal solution of a puzzle file (a path, or the file's text), from its board or
    from ``position`` (rows joined by ``/``). The metric defaults to ``piece`` where the
    puzzle has it, else its first."""
    return _native.solve(
        position, metric, None, os.fspath(path_or_text), _roots(tables), max_states
    )


def moves(layout: str, metric: str = "piece") -> list:
    """The positions one move away from a layout, in move order."""
    return _native.moves(layout, metric, None)


def common_code(layout: str, shorten: bool = False) -> str:
    """dnomd343/klotski's CommonCode of a layout: 9 hex digits (``shorten``: trailing zeros
    dropped). 横刀立马 is ``1A9BF0C00``."""
    return _native.common_code(layout, shorten)


def short_code(layout: str) -> str:
    """dnomd343/klotski's ShortCode of a layout: 5 characters, the position's rank among all
    29,334,498 positions sorted by CommonCode. 横刀立马 is ``4WVE1``."""
    return _native.short_code(layout)


def layout(code: str) -> str:
    """The unlabeled layout a CommonCode or ShortCode names."""
    return _native.layout(code)


def _array(mapping) -> np.ndarray:
    # Through the array interface: the array's base is `mapping`, whose memory map lives as
    # long as the array does.
    return np.asarray(mapping)


class Outputs:
    """A finished pipeline output folder, e.g. ``Outputs("outputs/huarong")``.

    ``pipeline`` is the pipeline file that made it; by default ``pipelines/<folder name>.toml``
    in the working directory or a parent. Its export fingerprint must be the folder's (the
    outputs are current for it), and every table is verified before it is read.
    """

    def __init__(self, folder, pipeline=None):
        self.folder = os.fspath(folder)
        self._native = _native.Folder(
            self.folder, None if pipeline is None else os.fspath(pipeline)
        )

    @property
    def pipeline(self) -> str:
        return os.fspath(self._native.pipeline)

    def __repr__(self) -> str:
        return f"Outputs({self.folder!r}, pipeline={self.pipeline!r})"

    def table(self, name: str):
        """A Parquet table (``summary``, ``records``, ``states-<space>``, ...) as a polars
        DataFrame, after checking the export manifest vouches for its bytes."""
        import polars as pl

        return pl.read_parquet(self._native.table(name))

    def summary(self):
        return self.table("summary")

    def spaces(self) -> list:
        """The spaces of the summary, e.g. ``["h1v4s4-unlabeled", "h1v4s4-labeled"]``."""
        return self._native.spaces()

    def metrics(self, space: str) -> list:
        return self._native.metrics(space)

    def distances(self, space: str, metric: str) -> np.ndarray:
        """Moves to the nearest goal of every state (``uint16``; ``UNREACHABLE`` where none),
        by state index: a read-only view of the memory-mapped artifact."""
        return _array(self._native.distances(space, metric))

    def components(self, space: str, metric: str) -> np.ndarray:
        """The component id of every state (``uint32``, numbered by smallest member)."""
        return _array(self._native.components(space, metric))

    def codes(self, space: str) -> np.ndarray:
        """The code of every state (``uint64``, increasing): an explored space's stored table,
        or a ranked space's codes computed (its artifact stores none)."""
        return _array(self._native.codes(space))
