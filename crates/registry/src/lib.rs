//! The puzzle registry: the one list of puzzle families. A family enters the pipeline (its
//! `[section]` in pipeline files), `huarong judge` and `huarong puzzles` through one line here;
//! nothing else names it.
//!
//! Architecture invariant: this crate only lists drivers; it decides nothing.

use huarong_core::driver::{Driver, Families};

/// Every registered family, in the order `huarong puzzles` lists them (nothing else depends on
/// the order: a solve request is read by the one family whose notation it is in).
static DRIVERS: &[&dyn Driver] = &[
    &rush_hour::driver::RushHourDriver,
    &klotski::driver::HuarongDriver,
    &solitaire::driver::SolitaireDriver,
    &omnigravity::driver::OmniGravityDriver,
    &square_destroyer::driver::SquareDestroyerDriver,
    &sliding::driver::SlidingDriver,
];

/// Every registered family, for the program to hand to the libraries.
pub fn families() -> Families {
    Families::new(DRIVERS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use huarong_core::driver::{RequestError, SolveRequest};

    #[test]
    fn names_are_unique_and_every_example_section_loads() {
        let mut names: Vec<&str> = DRIVERS.iter().map(|d| d.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), DRIVERS.len());
        for d in DRIVERS {
            let doc = d.example();
            // Files the examples name, from the repository root.
            let read = |path: &str| {
                std::fs::read_to_string(format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR")))
            };
            let input = huarong_core::driver::SectionInput::new(d.name(), doc, &read);
            let section = d
                .load(&input)
                .unwrap_or_else(|e| panic!("{}: {e}", d.name()));
            let plan = section.spaces();
            let work = plan.spaces.len() + plan.patterns.len() + plan.universes.len();
            assert!(work > 0, "{}", d.name());
        }
    }

    /// A request is read by the same family (or refused the same way) whatever the order of
    /// the list: each family's `accepts` is its notation, and exactly one must claim it.
    #[test]
    fn the_family_reading_a_request_does_not_depend_on_the_order() {
        let reversed: &'static [&'static dyn Driver] = Box::leak(
            DRIVERS
                .iter()
                .rev()
                .copied()
                .collect::<Vec<_>>()
                .into_boxed_slice(),
        );
        let pennant = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../puzzles/pennant.toml"
        ))
        .unwrap();
        let requests = [
            // A Huarong Dao layout, its CommonCode and ShortCode, a layout with a wrong cell.
            (Some("VCCV/VCCV/VHHV/VSSV/S..S"), None, Ok("layout")),
            (Some("1A9BF0C00"), None, Ok("layout")),
            (Some("4WVE1"), None, Ok("layout")),
            (Some("VCCV/VCCV/VHHV/VSSV/S..X"), None, Err("huarong")),
            // Fogleman's hardest Rush Hour board.
            (
                Some("IBBx..I..LDDJAAL..J.KEEMFFK..MGGHHHM"),
                None,
                Ok("puzzle"),
            ),
            // A puzzle file, and a position of it.
            (
                None,
                Some(("puzzles/pennant.toml", pennant.as_str())),
                Ok("puzzle"),
            ),
            // Nobody's notation.
            (Some("xyz"), None, Err("")),
        ];
        for (position, puzzle, want) in requests {
            let request = SolveRequest {
                position,
                puzzle,
                goal: None,
            };
            let read = |families: Families| match families.instance(&request) {
                Ok(instance) => Ok(instance.describe()),
                Err(e) => Err(e),
            };
            let (a, b) = (read(families()), read(Families::new(reversed)));
            assert_eq!(a, b, "{request:?}");
            match (a, want) {
                (Ok((kind, _)), Ok(k)) => assert_eq!(kind, k, "{request:?}"),
                (Err(RequestError::Invalid { family, .. }), Err(f)) => {
                    assert_eq!(family, f, "{request:?}")
                }
                (Err(RequestError::Unread { reads }), Err("")) => {
                    // Every family with a solver says what it reads.
                    assert_eq!(reads.len(), 3, "{reads:?}")
                }
                (got, _) => panic!("{request:?}: {got:?}"),
            }
        }
    }
}
