//! The puzzle registry: the one list of puzzle families. A family enters the pipeline (its
//! `[section]` in pipeline files), `huarong judge` and `huarong puzzles` through one line here;
//! nothing else names it.
//!
//! Architecture invariant: this crate only lists drivers; it decides nothing.

use huarong_core::driver::Driver;

/// Every registered family, in the order `huarong puzzles` lists them.
static DRIVERS: &[&dyn Driver] = &[
    // Before Huarong Dao, whose solver reads any position: it takes only boards in its notation.
    &rush_hour::driver::RushHourDriver,
    &klotski::driver::HuarongDriver,
    &solitaire::driver::SolitaireDriver,
    &omnigravity::driver::OmniGravityDriver,
    &square_destroyer::driver::SquareDestroyerDriver,
    &sliding::driver::SlidingDriver,
];

/// Every registered family.
pub fn drivers() -> &'static [&'static dyn Driver] {
    DRIVERS
}

/// The family named `name` (its pipeline section name).
pub fn find(name: &str) -> Option<&'static dyn Driver> {
    DRIVERS.iter().copied().find(|d| d.name() == name)
}

/// The names of every family, comma-separated (for messages).
pub fn names() -> String {
    DRIVERS
        .iter()
        .map(|d| d.name())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_example_section_loads() {
        let mut names: Vec<&str> = drivers().iter().map(|d| d.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), drivers().len());
        for d in drivers() {
            let doc = d.example();
            // Files the examples name, from the repository root.
            let read = |path: &str| {
                std::fs::read_to_string(format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR")))
                    .map_err(|e| e.to_string())
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
}
