//! A *universe*: a family's census over many independent classes of states, each searched in
//! memory and never stored (Rush Hour: every layout of a board, class by class). A
//! [`crate::driver::Plan`] lists universes beside its spaces; the pipeline runs each one's
//! classes (split over the processes of a timely run by class index), keeps the encoded result
//! as one artifact, and the export writes its summary row and tables from it.

use crate::{Fingerprint, Table};

/// A census over independent classes; see the module documentation.
pub trait Universe: Send + Sync + std::fmt::Debug {
    /// Names the universe (e.g. `rush-hour-6x6-w2`): the folder of its artifact.
    fn id(&self) -> String;

    /// Everything that decides the result (board size, walls, the algorithm's version): the
    /// artifact's fingerprint.
    fn parameters(&self, key: &mut Fingerprint);

    /// Units of work (classes); a run of `parts` parts gives part `p` the units `k ≡ p`.
    fn units(&self) -> usize;

    /// The encoded result of part `part` of `parts`; `progress` is called once per finished
    /// unit. A unit of more than `max_states` states is refused before it is searched.
    fn run(
        &self,
        part: usize,
        parts: usize,
        max_states: u64,
        progress: &(dyn Fn() + Sync),
    ) -> Result<Vec<u8>, String>;

    /// The result of disjoint parts together, the same bytes however the units were split.
    fn merge(&self, parts: Vec<Vec<u8>>) -> Result<Vec<u8>, String>;

    /// The summary row of a result: `(column, value)`.
    fn summary(&self, result: &[u8]) -> Result<Vec<(&'static str, u64)>, String>;

    /// The Parquet tables of a result: `(file name, table)`.
    fn tables(&self, result: &[u8]) -> Result<Vec<(String, Table)>, String>;
}
