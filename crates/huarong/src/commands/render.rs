//! `huarong render`: one position as an SVG picture.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

use super::solve::What;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    what: What,
    /// The SVG file to write.
    #[arg(long, short, value_name = "FILE")]
    output: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let instance = match args.what.instance()? {
        Ok(i) => i,
        Err(code) => return Ok(code),
    };
    let title = format!(
        "{}{}",
        instance.start(),
        super::other_names(instance.as_ref())
    );
    let doc = render::svg::board_titled(&instance.picture(), Some(&title));
    std::fs::write(&args.output, doc)
        .with_context(|| format!("writing {}", args.output.display()))?;
    Ok(ExitCode::SUCCESS)
}
