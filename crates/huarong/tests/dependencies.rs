//! The dependency rules of ARCHITECTURE.md, read off `cargo tree`: only the export crate
//! depends on polars, and the query side (`atlas`) and the Python extension build no Parquet
//! writer, dataflow engine or web server — so `pip install ./python` compiles none of them;
//! only the programs (the binary, the Python module) depend on the registry; the model and the
//! puzzle crates build no storage.

use std::process::Command;

/// The crates `args` lists (`cargo tree … --prefix none`), names only.
fn tree(args: &[&str]) -> Vec<String> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(root)
        .args(["tree", "--offline", "-e", "normal", "--prefix", "none"])
        .args(args)
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn only_the_export_crate_depends_on_polars() {
    let dependents = tree(&["--workspace", "-i", "polars", "--depth", "1"]);
    assert_eq!(dependents, ["export", "polars"]);
}

#[test]
fn the_query_side_and_the_python_extension_build_no_writer_engine_or_server() {
    for krate in ["atlas", "huarong-py"] {
        let deps = tree(&["-p", krate]);
        assert!(deps.len() > 10, "{krate}: {deps:?}");
        for banned in [
            "polars", "export", "pipeline", "dataflow", "timely", "axum", "tokio", "hyper", "serve",
        ] {
            assert!(
                !deps.iter().any(|d| d == banned),
                "{krate} depends on {banned}: {deps:?}"
            );
        }
    }
}

/// The registry is handed to the libraries by the programs — the binary and the Python module
/// — so no library can reach for the list of families itself.
#[test]
fn only_the_programs_depend_on_the_registry() {
    let dependents = tree(&["--workspace", "-i", "registry", "--depth", "1"]);
    assert_eq!(dependents, ["huarong", "huarong-py", "registry"]);
}

/// The model (`huarong-core`) and the puzzle crates are pure: no storage, no memory maps, no
/// system calls. The artifact store is a crate of its own that only the stages, the queries
/// and the programs depend on.
#[test]
fn the_model_and_the_puzzles_build_no_storage() {
    for krate in [
        "huarong-core",
        "klotski",
        "sliding",
        "rush-hour",
        "omnigravity",
        "solitaire",
        "square-destroyer",
        "registry",
    ] {
        let deps = tree(&["-p", krate]);
        assert!(
            deps.iter().any(|d| d == "huarong-core"),
            "{krate}: {deps:?}"
        );
        for banned in ["huarong-store", "memmap2", "libc"] {
            assert!(
                !deps.iter().any(|d| d == banned),
                "{krate} depends on {banned}: {deps:?}"
            );
        }
    }
    let stores = tree(&["--workspace", "-i", "huarong-store", "--depth", "1"]);
    for user in ["enumerate", "patterns", "atlas", "pipeline", "huarong"] {
        assert!(stores.iter().any(|d| d == user), "{user}: {stores:?}");
    }
}
