"""The workspace's declared `rust-version` is its real minimum: the highest `rust-version` any
locked dependency declares (today sysinfo, through polars; `cargo +1.88 check` refuses it), and
every workspace crate inherits it. Run by scripts/test-all.sh."""

import json
import subprocess
import sys
import tomllib


def version(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split("."))


def main() -> None:
    with open("Cargo.toml", "rb") as f:
        declared = tomllib.load(f)["workspace"]["package"]["rust-version"]
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--locked"],
            check=True, capture_output=True, text=True,
        ).stdout
    )
    members = set(meta["workspace_members"])
    deps = [p for p in meta["packages"] if p["id"] not in members and p.get("rust_version")]
    need = max(deps, key=lambda p: version(p["rust_version"]))
    assert version(declared) == version(need["rust_version"]), (
        f"rust-version {declared} declared, but {need['name']} {need['version']} needs "
        f"{need['rust_version']}"
    )
    for p in meta["packages"]:
        if p["id"] in members:
            assert p.get("rust_version") == declared, f"{p['name']} does not inherit rust-version"
    print(f"rust-version {declared}: the highest any dependency needs "
          f"({need['name']} {need['version']}); all {len(members)} crates inherit it")


if __name__ == "__main__":
    sys.exit(main())
