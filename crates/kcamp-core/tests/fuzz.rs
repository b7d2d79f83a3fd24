//! Fuzzing of the three parsers that take arbitrary user input: the CSV readers
//! (`benchmark.csv`, `samples.csv`), the manifest parser and memory `--set`. Each target
//! mutates valid input (proptest strategies: inserted tokens from a dictionary of
//! troublemakers, deletions, duplicated and swapped lines, cuts) for a fixed time
//! (`KCAMP_FUZZ_SECS`, default 8 s per target) and holds every input to the same rules:
//! no panic, no input taking more than 2 s, every refusal is bad input (exit 2), and what
//! is accepted is sound (round-trips, and a record can always be read back).
//!
//! cargo-fuzz needs a nightly toolchain; this runs on stable within CI's time budget.
//! `KCAMP_FUZZ_SEED` replays a run (the seed is printed on failure).

use std::path::Path;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use kcamp_core::error::exit;
use kcamp_core::manifest::Manifest;
use kcamp_core::memory::{MemoryStore, SetOp, Version};
use kcamp_core::schema::{BenchTable, Samples};

/// The longest any single input may take.
const PER_INPUT: Duration = Duration::from_secs(2);

fn budget() -> Duration {
    let secs = std::env::var("KCAMP_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(8.0);
    Duration::from_secs_f64(secs)
}

/// Run `check` on values of `strategy` until the time budget is spent; a panic or a failed
/// check reports the seed and the input.
fn fuzz<S: Strategy>(name: &str, strategy: S, mut check: impl FnMut(&S::Value))
where
    S::Value: std::fmt::Debug,
{
    let seed: u64 = std::env::var("KCAMP_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
        });
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    let start = Instant::now();
    let mut inputs = 0u64;
    while start.elapsed() < budget() {
        let value = strategy.new_tree(&mut runner).unwrap().current();
        let t = Instant::now();
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&value)));
        let shown = || kcamp_core::text::quote(&format!("{value:?}"), 3000);
        if caught.is_err() {
            panic!(
                "{name}: input {inputs} (KCAMP_FUZZ_SEED={seed}) failed: {}",
                shown()
            );
        }
        let took = t.elapsed();
        assert!(
            took < PER_INPUT,
            "{name}: input {inputs} (KCAMP_FUZZ_SEED={seed}) took {took:?}: {}",
            shown()
        );
        inputs += 1;
    }
    eprintln!(
        "{name}: {inputs} inputs in {:?} (seed {seed})",
        start.elapsed()
    );
    assert!(inputs > 10, "{name}: only {inputs} inputs ran");
}

/// Tokens that have broken parsers before: numbers at the edges, nesting, separators,
/// control characters, huge runs.
fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(",".to_owned()),
        Just("\n".to_owned()),
        Just("\r\n".to_owned()),
        Just("\"".to_owned()),
        Just("'".to_owned()),
        Just("[".to_owned()),
        Just("]".to_owned()),
        Just("{".to_owned()),
        Just("}".to_owned()),
        Just(": ".to_owned()),
        Just("- ".to_owned()),
        Just("#".to_owned()),
        Just("&a ".to_owned()),
        Just("*a".to_owned()),
        Just("!!str ".to_owned()),
        Just("inf".to_owned()),
        Just("-inf".to_owned()),
        Just("NaN".to_owned()),
        Just("1e300".to_owned()),
        Just("-0".to_owned()),
        Just("0".to_owned()),
        Just("18446744073709551616".to_owned()),
        Just("PASS".to_owned()),
        Just("FAIL".to_owned()),
        Just("label".to_owned()),
        Just("M".to_owned()),
        Just("_stddev".to_owned()),
        Just("Check".to_owned()),
        Just("\u{1b}[2J".to_owned()),
        Just("\u{feff}".to_owned()),
        Just("é".to_owned()),
        Just("\t".to_owned()),
        Just("/".to_owned()),
        (1usize..5000).prop_map(|n| "[".repeat(n)),
        (1usize..5000).prop_map(|n| "{a: ".repeat(n)),
        (1usize..5000).prop_map(|n| "- ".repeat(n)),
        (1usize..3000).prop_map(|n| "(".repeat(n)),
        (1usize..20000).prop_map(|n| "x".repeat(n)),
        "[ -~]{0,12}",
    ]
}

#[derive(Debug, Clone)]
enum Edit {
    Insert(usize, String),
    Delete(usize, usize),
    Replace(usize, usize, String),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    Cut(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        4 => (any::<usize>(), token()).prop_map(|(at, t)| Edit::Insert(at, t)),
        2 => (any::<usize>(), 1usize..40).prop_map(|(at, n)| Edit::Delete(at, n)),
        3 => (any::<usize>(), 1usize..12, token()).prop_map(|(at, n, t)| Edit::Replace(at, n, t)),
        1 => any::<usize>().prop_map(Edit::DuplicateLine),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::SwapLines(a, b)),
        1 => any::<usize>().prop_map(Edit::Cut),
    ]
}

fn boundary(text: &str, at: usize) -> usize {
    if text.is_empty() {
        return 0;
    }
    let mut at = at % (text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn apply(seed: &str, edits: &[Edit]) -> String {
    let mut text = seed.to_owned();
    for e in edits {
        match e {
            Edit::Insert(at, t) => {
                let at = boundary(&text, *at);
                text.insert_str(at, t);
            }
            Edit::Delete(at, n) | Edit::Replace(at, n, _) => {
                let start = boundary(&text, *at);
                let end = boundary(&text, (start + n).min(text.len()));
                let with = match e {
                    Edit::Replace(_, _, t) => t.as_str(),
                    _ => "",
                };
                text.replace_range(start..end.max(start), with);
            }
            Edit::DuplicateLine(i) | Edit::SwapLines(i, _) => {
                let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
                if lines.is_empty() {
                    continue;
                }
                let n = lines.len();
                let a = i % n;
                match e {
                    Edit::SwapLines(_, j) => lines.swap(a, j % n),
                    _ => {
                        let l = lines[a].clone();
                        lines.insert(a, l);
                    }
                }
                text = lines.join("\n") + "\n";
            }
            Edit::Cut(at) => {
                let at = boundary(&text, *at);
                text.truncate(at);
            }
        }
    }
    text
}

fn mutated(seed: &'static str) -> impl Strategy<Value = String> {
    prop::collection::vec(edit(), 1..8).prop_map(move |edits| apply(seed, &edits))
}

fn fixture(rel: &str) -> &'static str {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(rel);
    Box::leak(std::fs::read_to_string(path).unwrap().into_boxed_str())
}

fn assert_bad_input(e: &kcamp_core::Error, input: &str) {
    assert_eq!(
        e.exit_code(),
        exit::BAD_INPUT,
        "refused as {} instead of bad input: {e}\ninput: {input:?}",
        e.kind()
    );
    assert!(
        e.to_string().len() < 4096,
        "an error of {} bytes: {}",
        e.to_string().len(),
        kcamp_core::text::quote(&e.to_string(), 600)
    );
    assert!(!e.to_string().contains('\u{1b}'), "raw ESC in: {e}");
}

#[test]
fn fuzz_benchmark_and_samples_csv() {
    let bench = fixture("gate/base.csv");
    let samples = fixture("gate/welch/base/samples.csv");
    let origin = Path::new("fuzz/benchmark.csv");
    fuzz(
        "benchmark.csv",
        (mutated(bench), mutated(samples)),
        |(text, samples_text)| match BenchTable::parse(text, origin) {
            Ok(table) => {
                let again = BenchTable::parse(&table.to_csv(), origin)
                    .unwrap_or_else(|e| panic!("its own CSV does not parse: {e}"));
                assert_eq!(again, table);
                match Samples::parse(samples_text, Path::new("fuzz/samples.csv")) {
                    Ok(s) => {
                        if let Err(e) = s.check_against(&table, origin) {
                            assert_bad_input(&e, samples_text);
                        }
                        let again = Samples::parse(&s.to_csv(), origin).unwrap();
                        assert_eq!(again, s);
                    }
                    Err(e) => assert_bad_input(&e, samples_text),
                }
            }
            Err(e) => assert_bad_input(&e, text),
        },
    );
}

#[test]
fn fuzz_manifest() {
    let manifest = fixture("../../campaigns/demo-gemm/manifest.yaml");
    let origin = Path::new("fuzz/manifest.yaml");
    fuzz(
        "manifest.yaml",
        mutated(manifest),
        |text| match Manifest::parse(text, origin) {
            Ok(m) => {
                m.gate
                    .check()
                    .unwrap_or_else(|e| panic!("accepted a gate setting out of range: {e:?}"));
                let yaml = m.to_yaml().unwrap();
                let again = Manifest::parse(&yaml, origin)
                    .unwrap_or_else(|e| panic!("its own YAML does not parse: {e}\n{yaml}"));
                assert_eq!(again, m);
            }
            Err(e) => assert_bad_input(&e, text),
        },
    );
}

/// Paths from the schema's own fields and from nowhere, values from the token dictionary
/// and nested JSON.
fn set_arg() -> impl Strategy<Value = (bool, String)> {
    let segment = prop_oneof![
        Just("performance".to_owned()),
        Just("latency_us_by_shape".to_owned()),
        Just("tflops".to_owned()),
        Just("optimization".to_owned()),
        Just("action_category".to_owned()),
        Just("profile_evidence".to_owned()),
        Just("search_log".to_owned()),
        Just("open_directions".to_owned()),
        Just("references".to_owned()),
        Just("version".to_owned()),
        Just("masked".to_owned()),
        Just("timestamp".to_owned()),
        Just("0".to_owned()),
        Just("".to_owned()),
        "[a-z]{1,6}",
    ];
    let path = prop_oneof![
        prop::collection::vec(segment.clone(), 1..5).prop_map(|s| s.join(".")),
        (1usize..200).prop_map(|n| vec!["a"; n].join(".")),
    ];
    let value = prop_oneof![
        token(),
        (1usize..200).prop_map(|n| format!("{}1{}", "[".repeat(n), "]".repeat(n))),
        (1usize..60).prop_map(|n| format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n))),
        Just("v9".to_owned()),
        Just("v0".to_owned()),
        Just("true".to_owned()),
        Just("null".to_owned()),
        Just("-1".to_owned()),
    ];
    (any::<bool>(), path, value).prop_map(|(append, p, v)| (append, format!("{p}={v}")))
}

#[test]
fn fuzz_memory_set() {
    let dir = tempfile::tempdir().unwrap();
    let store = MemoryStore::new(dir.path()).unwrap();
    store.create(Version(0)).unwrap();
    fuzz(
        "memory --set",
        prop::collection::vec(set_arg(), 1..4),
        |args| {
            let ops: Vec<SetOp> = args
                .iter()
                .filter_map(|(append, arg)| {
                    let op = if *append {
                        SetOp::parse_append(arg)
                    } else {
                        SetOp::parse_set(arg)
                    };
                    op.map_err(|e| assert_bad_input(&e, arg)).ok()
                })
                .collect();
            if let Err(e) = store.update(Version(0), &ops) {
                assert_bad_input(&e, &format!("{args:?}"));
            }
            // Whatever happened, every reader still reads the record.
            let record = store
                .show(Version(0))
                .unwrap_or_else(|e| panic!("the record no longer reads after {args:?}: {e}"));
            assert!(store.list().unwrap().broken.is_empty());
            let text = std::fs::read_to_string(&record.path).unwrap();
            serde_json::from_str::<serde_json::Value>(&text).unwrap();
        },
    );
}
