//! `huarong serve`: the browser page and its JSON API.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

use super::{emit, table_roots};
use crate::report::warn;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Port to listen on (0: any free port; the address is printed).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Address to bind; only this machine can connect unless you say otherwise.
    #[arg(long, default_value = "127.0.0.1")]
    bind: std::net::IpAddr,
    /// Where to look for distance tables (<DIR>/<space>/); repeatable, first match wins.
    /// Default: every folder under outputs/.
    #[arg(long, value_name = "DIR")]
    tables: Vec<PathBuf>,
    /// The puzzle files the page offers.
    #[arg(long, value_name = "DIR", default_value = "puzzles")]
    puzzles: PathBuf,
    /// Most states explored for a position whose space has no tables.
    #[arg(long, value_name = "N", default_value_t = 5_000_000)]
    max_states: u64,
    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Memory for explorations, in MiB: half for those running (each reserving --max-states
    /// positions' worth, about 40 bytes a position), half for the explored components kept; a
    /// request beyond it gets 503 with Retry-After at once.
    #[arg(long, value_name = "MIB", default_value_t = 2048, value_parser = clap::value_parser!(u64).range(1..))]
    memory_budget: u64,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let roots = table_roots(args.tables)?;
    let puzzles = args.puzzles;
    let families = registry::families();
    let catalog = serve::Catalog::load(families, puzzles.exists().then_some(puzzles.as_path()))
        .context("loading the puzzle files")?
        .with_databases(&roots);
    for (file, why) in &catalog.skipped {
        warn(&format!("skipping {file}: {why}"));
    }
    let shown = if roots.is_empty() {
        "none".to_owned()
    } else {
        let shown: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
        shown.join(", ")
    };
    let app = serve::App {
        atlas: pipeline::play::Atlas::new(families, roots, args.max_states)
            .with_budget(args.memory_budget << 20),
        catalog,
    };
    let (bind, port) = (args.bind, args.port);
    serve::run(
        std::net::SocketAddr::new(bind, port),
        app,
        args.threads,
        |addr| {
            // A closed stdout must not stop the server.
            let _ = emit(&format!(
                "serving on http://{addr}/ (tables under: {shown})\n"
            ));
        },
    )
    .with_context(|| format!("serving on {bind}:{port}"))?;
    Ok(ExitCode::SUCCESS)
}
