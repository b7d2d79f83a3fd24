//! Names of the files and directories of a campaign (docs/campaign-dir.md, "Layout"), in
//! one place so that every writer and reader agrees on them.

/// The campaign's definition; its presence is what makes a directory a campaign.
pub const MANIFEST_FILE: &str = "manifest.yaml";
/// Optional per-kernel settings that travel with the kernel files: when present, this file
/// replaces the manifest's `kernel:` section. A round that changes the tiling changes its
/// workgroup counts too, and rollback restores both together.
pub const KERNEL_OVERRIDE_FILE: &str = "kernel/kernel.yaml";
pub const ROUNDS_DIR: &str = "rounds";
/// Measurements that record nothing (`kcamp run`, a BASELINE no shape passed).
pub const RUNS_DIR: &str = "runs";
pub const KERNEL_DIR: &str = "kernel";
pub const MEMORY_DIR: &str = "memory";
pub const JOURNAL_FILE: &str = "journal.jsonl";
pub const LOCK_FILE: &str = ".kcamp.lock";
/// Frozen CSV header bytes, written at BASELINE.
pub const FROZEN_HEADER_FILE: &str = "schema.frozen.csv";
/// Live progress of a running validation (JSON, rewritten atomically while it runs;
/// removed at the end). Lets a dashboard follow a run started by another process.
pub const PROGRESS_FILE: &str = "live/progress.json";
pub const HYPOTHESIS_FILE: &str = "hypothesis.md";
pub const DECISION_FILE: &str = "decision.json";
/// The held-out check made before a kernel became the incumbent (or was refused), in the
/// round's directory; the final report's is `report/held_out.json`. Written only once the
/// decision is made.
pub const HELD_OUT_JSON: &str = "held_out.json";
/// Every validation of an open round (for NEEDS_REMEASURE), one JSON object per line.
pub const VALIDATIONS_JSONL: &str = "validations.jsonl";
pub const ARTIFACTS_DIR: &str = "artifacts";
pub const BENCHMARK_CSV: &str = "benchmark.csv";
pub const SAMPLES_CSV: &str = "samples.csv";
pub const RESULT_JSON: &str = "result.json";
/// A measurer other than the built-in runner (which keeps them in `result.json`) writes the
/// untimed shapes it checked here: a JSON array of shape records.
pub const CHECKED_JSON: &str = "checked.json";
/// How a harness command was run for a measurement: every invocation in order (which
/// kernel, which shapes, its limit, how it ended) and the reason of every row kcamp wrote
/// for it (a timeout, a crash, a shape it did not report).
pub const HARNESS_JSON: &str = "harness.json";
/// The gate report of the round's latest validation.
pub const GATE_JSON: &str = "gate.json";
/// How a measurement was made (adapter, backend, driver, checks, timing, harness), written
/// beside every CSV a campaign measures or imports.
pub const FINGERPRINT_JSON: &str = "fingerprint.json";
/// A paired measurement's other side, measured in the same run and interleaved with the
/// scored kernel: the incumbent's snapshot during `validate`, the BASELINE's during
/// `report`. Frozen schema, like `benchmark.csv`; never scored by itself.
pub const PAIRED_CSV: &str = "paired.csv";
/// The per-repeat samples of [`PAIRED_CSV`]; repeat `r` was measured next to repeat `r` of
/// `samples.csv` (ABBA order), which is what makes the ratios paired.
pub const PAIRED_SAMPLES_CSV: &str = "paired_samples.csv";
/// The final acceptance of `kcamp report`: the incumbent's final numbers judged against the
/// BASELINE (a `gate.json`-shaped record).
pub const FINAL_ACCEPTANCE_JSON: &str = "report/acceptance.json";
/// A kernel directory's own settings file (see [`KERNEL_OVERRIDE_FILE`]); every round's
/// snapshot carries the one it was measured with.
pub const KERNEL_SETTINGS_FILE: &str = "kernel.yaml";

/// What a person reads about round 1, written last by `kcamp baseline` (after its charts).
pub const BASELINE_REPORT: &str = "baseline_report.md";

/// Reports and their charts (`report.md`, `report/*.svg|png`), written by kcamp-report.
pub const REPORT_DIR: &str = "report";
