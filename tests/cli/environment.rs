//! An environment failure is never a verdict (docs/reliability.md): a harness command that
//! cannot start on this machine fails the measurement with nothing recorded, never an ERROR
//! row that reads as the kernel's. No GPU: the harness copies fixture CSVs.

use crate::common;
use common::{refusal, run};

#[test]
fn a_harness_whose_program_is_missing_records_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let numbers = common::numbers(tmp.path(), &["baseline.csv", "better.csv"]);
    let dir = common::harness_campaign(tmp.path(), &numbers);
    run(&dir, &["baseline"], 0);
    run(&dir, &["round", "new", "--hypothesis", "tiles"], 0);
    std::fs::write(dir.join("kernel/numbers"), "better.csv").unwrap();
    run(&dir, &["validate", "--full"], 0);
    let manifest = dir.join("manifest.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    let gate = std::fs::read(dir.join("rounds/round-2/artifacts/gate.json")).unwrap();
    std::fs::write(
        &manifest,
        text.replace(
            "quick_command: \"sh harness.sh",
            "quick_command: \"kcamp-no-such-program harness.sh",
        ),
    )
    .unwrap();
    let v = run(&dir, &["validate", "--full"], 3);
    let m = refusal(&v);
    assert!(
        m.contains("127")
            && m.contains("nothing recorded")
            && m.contains("not the kernel's failure")
            && m.contains("next: "),
        "{m}"
    );
    // The round as it was: its earlier validation stands, no journal line was added.
    assert_eq!(
        std::fs::read(dir.join("rounds/round-2/artifacts/gate.json")).unwrap(),
        gate
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("journal.jsonl")).unwrap(),
        journal
    );
    let st = run(&dir, &["status"], 0);
    assert_eq!(st["open_round"]["verdict"], "ACCEPT", "{st}");
}
