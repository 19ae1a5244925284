"""The tables of a huarong output folder, checked before anything reads them.

Every Parquet file a finished export wrote is listed in the folder's `export.manifest` with its
size and xxh3-64 checksum (docs/OUTPUTS.md). A notebook calls `verified(folder)` first: a table
that is missing, truncated, changed since the export, or not written by one is refused with the
file's name, instead of being read (a Parquet reader may misread corrupt bytes silently).
"""

from pathlib import Path

import xxhash

HEADER = "huarong export manifest 2"


def verified(folder) -> Path:
    """Returns `folder` as a Path once every table in it matches its manifest; raises otherwise."""
    folder = Path(folder)
    manifest = folder / "export.manifest"
    if not manifest.is_file():
        raise FileNotFoundError(f"{manifest}: missing — run the pipeline first (huarong run)")
    lines = manifest.read_text().splitlines()
    if not lines or lines[0] != HEADER:
        raise ValueError(f"{manifest}: not a version 2 export manifest")
    listed = set()
    for line in lines[2:]:
        name, size, digest = line.split(" ")
        listed.add(name)
        path = folder / name
        if not path.is_file():
            raise FileNotFoundError(f"{path}: listed in {manifest.name} but missing")
        if path.stat().st_size != int(size):
            raise ValueError(f"{path}: size {path.stat().st_size} but {manifest.name} says {size}")
        h = xxhash.xxh3_64()
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                h.update(chunk)
        if h.hexdigest() != digest:
            raise ValueError(f"{path}: xxh3 {h.hexdigest()} but {manifest.name} says {digest}")
    for path in sorted(folder.glob("*.parquet")):
        if path.name not in listed:
            raise ValueError(f"{path}: not listed in {manifest.name}: not written by an export")
    return folder
