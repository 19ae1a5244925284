//! `huarong judge`: a contest judge's input on stdin, exactly the judge's output on stdout.

use std::process::ExitCode;
use std::sync::LazyLock;

use anyhow::Context;
use clap::ValueEnum;
use clap::builder::PossibleValue;
use huarong_core::driver::Driver;

use super::emit;
use crate::report::warn;

/// A registered family with a contest judge (the choices come from the registry).
#[derive(Clone, Copy)]
pub struct JudgeArg(&'static dyn Driver);

impl std::fmt::Debug for JudgeArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.name())
    }
}

static JUDGES: LazyLock<Vec<JudgeArg>> = LazyLock::new(|| {
    registry::families()
        .drivers()
        .iter()
        .filter(|d| d.judge().is_some())
        .map(|&d| JudgeArg(d))
        .collect()
});

impl ValueEnum for JudgeArg {
    fn value_variants<'a>() -> &'a [Self] {
        &JUDGES
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.name()).help(self.0.about()))
    }
}

/// The largest judge input read (contest inputs are kilobytes): a larger one is refused
/// instead of filling memory.
const MAX_INPUT: u64 = 64 << 20;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Which judge.
    #[arg(value_enum)]
    puzzle: JudgeArg,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    use std::io::Read;
    let family = args.puzzle.0;
    let judge = family
        .judge()
        .expect("the choices are the families with a judge");
    let mut input = String::new();
    std::io::stdin()
        .take(MAX_INPUT + 1)
        .read_to_string(&mut input)
        .context("reading the judge input from stdin (it must be text)")?;
    anyhow::ensure!(
        input.len() as u64 <= MAX_INPUT,
        "the judge input is over {} MiB: no contest input is that large",
        MAX_INPUT >> 20
    );
    match judge(&input) {
        Ok(text) => {
            emit(&text)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            warn(&format!("error: {} judge input: {e}", family.name()));
            Ok(ExitCode::from(2))
        }
    }
}
