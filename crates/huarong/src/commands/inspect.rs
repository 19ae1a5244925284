//! `huarong inspect`: what an output folder holds, as aligned tables.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::emit;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The output folder, e.g. outputs/huarong.
    dir: PathBuf,
    /// Most records, and puzzles of each database, to print.
    #[arg(long, default_value_t = 30)]
    rows: usize,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let seen = pipeline::inspect::inspect(&args.dir, args.rows)?;
    emit(&format_inspection(&args.dir, &seen))?;
    Ok(ExitCode::SUCCESS)
}

fn format_inspection(dir: &Path, seen: &pipeline::inspect::Inspection) -> String {
    let strip_types = |cols: &[String]| -> Vec<String> {
        cols.iter()
            .map(|c| c.split(" (").next().unwrap_or(c).to_owned())
            .collect()
    };
    let mut out = format!("{}\n", dir.display());
    if let Some(summary) = &seen.summary {
        out += "\nsummary\n";
        out += &render::table(&strip_types(&summary.columns), &summary.rows);
    }
    if let Some(records) = &seen.records {
        out += &format!(
            "\nrecords ({} of {} rows)\n",
            records.rows.len(),
            records.total_rows
        );
        out += &render::table(&strip_types(&records.columns), &records.rows);
    }
    if let Some(patterns) = &seen.patterns {
        out += "\npattern databases\n";
        out += &render::table(&strip_types(&patterns.columns), &patterns.rows);
    }
    for (file, head) in &seen.databases {
        out += &format!(
            "\n{file} ({} of {} puzzles)\n",
            head.rows.len(),
            head.total_rows
        );
        out += &render::table(&strip_types(&head.columns), &head.rows);
    }
    out += "\ntables\n";
    let rows: Vec<Vec<String>> = seen
        .tables
        .iter()
        .map(|t| {
            vec![
                t.file.clone(),
                t.rows.to_string(),
                t.columns.to_string(),
                t.bytes.to_string(),
            ]
        })
        .collect();
    let headers = ["file", "rows", "columns", "bytes"].map(String::from);
    out += &render::table(&headers, &rows);
    out
}
