//! Solitaire in the pipeline: the `[solitaire]` section, its one space, its answer and judge.

use huarong_core::driver::SectionError;
use huarong_core::driver::{Driver, Judge, Plan, Section, SectionInput, SpaceSpec, SpaceView};
use serde::Deserialize;

use crate::Solitaire;

/// The registry entry.
#[derive(Debug)]
pub struct SolitaireDriver;

/// `[solitaire]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    start: String,
    goal: String,
}

/// A validated `[solitaire]` section.
#[derive(Debug)]
struct SolitaireSection {
    start: u64,
    goal: u64,
}

impl Driver for SolitaireDriver {
    fn name(&self) -> &'static str {
        "solitaire"
    }

    fn about(&self) -> &'static str {
        "Solitaire (HDU 1401): four pieces on an 8x8 board step or jump; all C(64,4) positions"
    }

    fn notation(&self) -> &'static str {
        "r1 c1 r2 c2 r3 c3 r4 c4: the four pieces' rows and columns, 1-based, in cell order"
    }

    fn example(&self) -> &'static str {
        "[solitaire]\n\
         start = \"4 4 4 5 5 4 6 5\"  # r1 c1 … r4 c4, 1-based: distances are measured from here\n\
         goal = \"2 4 3 3 3 6 4 6\"   # the summary's goal state (and its `answer`)\n"
    }

    fn load(&self, section: &SectionInput<'_>) -> Result<Box<dyn Section>, SectionError> {
        let c: Config = section.deserialize()?;
        let start = crate::parse(&c.start).map_err(|e| format!("[solitaire] start: {e}"))?;
        let goal = crate::parse(&c.goal).map_err(|e| format!("[solitaire] goal: {e}"))?;
        Ok(Box::new(SolitaireSection { start, goal }))
    }

    fn judge(&self) -> Option<Judge> {
        Some(|input| crate::judge::run(input).map_err(|e| e.to_string().into()))
    }
}

impl Section for SolitaireSection {
    fn spaces(&self) -> Plan {
        let mut space = SpaceSpec::new(Box::new(Solitaire::new(self.start, self.goal)), vec![0]);
        space.named = vec![("start".into(), self.start), ("goal".into(), self.goal)];
        Plan {
            spaces: vec![space],
            notes: Vec::new(),
            patterns: Vec::new(),
            universes: Vec::new(),
        }
    }

    /// Moves from the start to the goal.
    fn answer(&self, space: &SpaceView<'_>, metric: usize) -> Option<u64> {
        let goal = space.index_of(self.goal)?;
        space.metrics[metric].distance(goal).map(u64::from)
    }
}
