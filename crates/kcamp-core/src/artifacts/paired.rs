//! The other side of a paired measurement: `paired.csv` (frozen schema) and
//! `paired_samples.csv`, written beside the scored `benchmark.csv` of the same run. During
//! `validate` it holds the incumbent's snapshot re-measured next to the candidate; during
//! `report`, the BASELINE's snapshot next to the incumbent. The scored CSV stays the only
//! file that is a round's record; this one exists so the gate can judge like for like.

use std::path::Path;

use crate::Result;
use crate::files::{PAIRED_CSV, PAIRED_SAMPLES_CSV};
use crate::fsutil::write_atomic;
use crate::schema::{BenchTable, Samples};
use crate::types::RuntimeChecks;

/// The re-measured side of a pair.
#[derive(Debug, Clone, PartialEq)]
pub struct PairedSide {
    pub table: BenchTable,
    pub samples: Option<Samples>,
    /// The runtime-checks mode the paired kernel was compiled with (its own snapshot's
    /// settings; `result.json` records it), when the measurer knows it.
    pub checks: Option<RuntimeChecks>,
}

impl PairedSide {
    /// The paired side in `dir`, its CSV held to `frozen` when given; `Ok(None)` when the run
    /// was not paired.
    pub fn read(dir: &Path, frozen: Option<&str>) -> Result<Option<PairedSide>> {
        let csv = dir.join(PAIRED_CSV);
        if !csv.is_file() {
            return Ok(None);
        }
        let table = BenchTable::read_held_to(&csv, frozen)?;
        let samples_path = dir.join(PAIRED_SAMPLES_CSV);
        let samples = if samples_path.is_file() {
            Some(Samples::read(&samples_path)?)
        } else {
            None
        };
        Ok(Some(PairedSide {
            table,
            samples,
            checks: None,
        }))
    }

    /// Writes both files into `dir`, each atomically.
    pub fn write(&self, dir: &Path) -> Result<()> {
        write_atomic(&dir.join(PAIRED_CSV), self.table.to_csv().as_bytes())?;
        if let Some(s) = &self.samples {
            write_atomic(&dir.join(PAIRED_SAMPLES_CSV), s.to_csv().as_bytes())?;
        }
        Ok(())
    }
}
