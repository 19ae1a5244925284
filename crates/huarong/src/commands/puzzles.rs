//! `huarong puzzles`: every registered family.

use std::process::ExitCode;

use super::emit;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Also print each family's complete pipeline section (every key).
    #[arg(long)]
    examples: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut out = String::new();
    for d in registry::families().drivers() {
        out += &format!(
            "{}\n  {}\n  positions: {}\n",
            d.name(),
            d.about(),
            d.notation()
        );
        if d.judge().is_some() {
            out += &format!("  judge: huarong judge {} < input\n", d.name());
        }
        if args.examples {
            out += "\n";
            for line in d.example().lines() {
                out += &format!("    {line}\n");
            }
        }
        out += "\n";
    }
    emit(&out)?;
    Ok(ExitCode::SUCCESS)
}
