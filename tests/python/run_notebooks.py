"""Executes every notebook (jupytext percent scripts in notebooks/) and fails on any cell error.

Usage: python run_notebooks.py OUTPUTS_ROOT HUARONG_BIN [EXECUTED_DIR] [--full MAIN UNIVERSE]
OUTPUTS_ROOT holds the pipelines' output folders: huarong_dao.py reads OUTPUTS_ROOT/huarong-canonical
(through HUARONG_OUTPUTS), siblings.py reads OUTPUTS_ROOT/{solitaire,omnigravity,square-destroyer}
(through SIBLING_OUTPUTS), universe.py reads OUTPUTS_ROOT/klotski-universe (through
UNIVERSE_OUTPUTS), sliding.py reads OUTPUTS_ROOT/sliding (through SLIDING_OUTPUTS), rush_hour.py reads
OUTPUTS_ROOT/rush-hour-5 (through RUSH_OUTPUTS); huarong_dao.py and rush_hour.py solve
with the `huarong` package (installed into the same virtualenv); HUARONG_BIN is there for any
notebook that calls the binary. Executed copies go to EXECUTED_DIR
(default: a temporary folder), never into the repository.

With --full, huarong_dao.py runs again over MAIN (the main job's outputs: its labeled part and
the 37,946,880 positions are asserted) and universe.py over UNIVERSE (all 203 piece sets: the
29,334,498 positions are asserted).
"""

import os
import sys
import tempfile
from pathlib import Path

import jupytext
from nbclient import NotebookClient


def execute(src: Path, notebooks: Path, target: Path) -> None:
    nb = jupytext.read(src)
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(notebooks)}}
    ).execute()
    jupytext.write(nb, target)
    print(f"executed {src.name}: {len(nb.cells)} cells -> {target}")


def main() -> None:
    args = sys.argv[1:]
    full = None
    if "--full" in args:
        k = args.index("--full")
        full = (Path(args[k + 1]).resolve(), Path(args[k + 2]).resolve())
        args = args[:k] + args[k + 3:]
    root, binary = Path(args[0]).resolve(), Path(args[1]).resolve()
    executed = Path(args[2]) if len(args) > 2 else Path(tempfile.mkdtemp())
    executed.mkdir(parents=True, exist_ok=True)
    os.environ["HUARONG_OUTPUTS"] = str(root / "huarong-canonical")
    os.environ["SIBLING_OUTPUTS"] = str(root)
    os.environ["UNIVERSE_OUTPUTS"] = str(root / "klotski-universe")
    os.environ["SLIDING_OUTPUTS"] = str(root / "sliding")
    os.environ["RUSH_OUTPUTS"] = str(root / "rush-hour-5")
    os.environ["HUARONG_BIN"] = str(binary)
    os.environ.pop("MPLBACKEND", None)  # the kernel draws inline
    notebooks = Path(__file__).resolve().parents[2] / "notebooks"
    # Notebooks are jupytext percent scripts; other modules there (verified.py) are helpers.
    sources = [p for p in sorted(notebooks.glob("*.py")) if "\n# %%" in p.read_text()]
    assert sources, f"no notebooks in {notebooks}"
    for src in sources:
        execute(src, notebooks, executed / f"{src.stem}.ipynb")
    if full is not None:
        main_dir, universe_dir = full
        os.environ["HUARONG_OUTPUTS"] = str(main_dir)
        os.environ["UNIVERSE_OUTPUTS"] = str(universe_dir)
        for name in ["huarong_dao", "universe"]:
            execute(notebooks / f"{name}.py", notebooks, executed / f"{name}-full.ipynb")


if __name__ == "__main__":
    main()
