//! Names of the files and directories of a campaign (SPEC §3), in one place so that every
//! writer and reader agrees on them.

/// The campaign's definition; its presence is what makes a directory a campaign.
pub const MANIFEST_FILE: &str = "manifest.yaml";
/// Optional per-kernel settings that travel with the kernel files: when present, this file
/// replaces the manifest's `kernel:` section. A round that changes the tiling changes its
/// workgroup counts too, and rollback restores both together.
pub const KERNEL_OVERRIDE_FILE: &str = "kernel/kernel.yaml";
pub const ROUNDS_DIR: &str = "rounds";
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
/// Every validation of an open round (for NEEDS_REMEASURE), one JSON object per line.
pub const VALIDATIONS_JSONL: &str = "validations.jsonl";
pub const ARTIFACTS_DIR: &str = "artifacts";
pub const BENCHMARK_CSV: &str = "benchmark.csv";
pub const SAMPLES_CSV: &str = "samples.csv";
pub const RESULT_JSON: &str = "result.json";
/// The gate report of the round's latest validation.
pub const GATE_JSON: &str = "gate.json";
