//! Tests of the schema module: parsing, refusals, writing and round trips.

use std::path::Path;

use proptest::prelude::*;

use super::*;
use crate::types::Check;

/// The schema a header alone implies, or the fault's message.
fn from_header(header: &str) -> std::result::Result<Schema, String> {
    super::columns::infer_schema(header).map_err(|f| format!("header: {}", f.message))
}

const ROW_A: &str = "a,1,64,64,64,PASS,2.0,0.02,1.0,0.01,0.262144,1.048576,120.5,inf,98.25";
const ROW_B: &str = "b,2,128,64,32,FAIL,,,nan,,,,,,";

fn gemm_csv(rows: &[&str]) -> String {
    let mut text = format!("{GEMM_HEADER}\n");
    for r in rows {
        text.push_str(r);
        text.push('\n');
    }
    text
}

fn parse_err(text: &str) -> String {
    BenchTable::parse(text, Path::new("bench.csv"))
        .unwrap_err()
        .to_string()
}

#[test]
fn known_schemas_match_their_headers() {
    assert_eq!(Schema::gemm().header(), GEMM_HEADER);
    assert_eq!(Schema::bandwidth().header(), BANDWIDTH_HEADER);
    assert_eq!(from_header(GEMM_HEADER).unwrap(), Schema::gemm());
    assert_eq!(from_header(BANDWIDTH_HEADER).unwrap(), Schema::bandwidth());
    let gemm = Schema::gemm();
    assert_eq!(gemm.dim_names(), ["B", "M", "N", "K"]);
    assert_eq!(gemm.metric_names(), ["Forward TFLOPS", "Backward TFLOPS"]);
    assert_eq!(
        gemm.gateable_metrics(),
        ["Forward TFLOPS", "Backward TFLOPS", COMBINED_STEP_TFLOPS]
    );
    assert_eq!(Schema::bandwidth().gateable_metrics(), ["Forward GB/s"]);
}

#[test]
fn custom_header_roles() {
    let s = from_header("label,N,C,Check,GB/s,GB/s_stddev,note").unwrap();
    assert_eq!(s.kind, SchemaKind::Custom);
    assert_eq!(s.dim_names(), ["N", "C"]);
    assert_eq!(s.metric_names(), ["GB/s"]);
    assert_eq!(
        s.columns[5].role,
        ColumnRole::Stddev {
            of: "GB/s".to_owned()
        }
    );
    assert_eq!(s.columns[6].role, ColumnRole::Value);
}

#[test]
fn bad_headers_name_the_column() {
    let err = |h: &str| from_header(h).unwrap_err().to_string();
    assert!(err("name,N,Check").contains("must be 'label'"));
    assert!(err("label,N,X").contains("no 'Check' column"));
    assert!(err("label,N,Check,GB/s,GB/s").contains("column 5 'GB/s' duplicates column 4"));
    let orphan = err("label,N,Check,GB/s_stddev");
    assert!(orphan.contains("'GB/s_stddev'") && orphan.contains("no metric column 'GB/s'"));
    assert!(err("label,,Check").contains("column 2 has an empty name"));
}

#[test]
fn parses_rows_and_keeps_nan_for_failed_cells() {
    let t = BenchTable::parse(&gemm_csv(&[ROW_A, ROW_B]), Path::new("x.csv")).unwrap();
    assert_eq!(t.schema.kind, SchemaKind::Gemm);
    assert_eq!(t.rows.len(), 2);
    assert_eq!(t.rows[0].dims, [1, 64, 64, 64]);
    assert_eq!(t.rows[0].metric(&t.schema, "Forward TFLOPS"), Some(2.0));
    assert_eq!(t.rows[0].stddev(&t.schema, "Forward TFLOPS"), Some(0.02));
    assert_eq!(t.rows[0].metric(&t.schema, "da_snr"), Some(f64::INFINITY));
    assert_eq!(t.rows[1].check, Check::Fail);
    assert!(
        t.rows[1]
            .metric(&t.schema, "Backward TFLOPS")
            .unwrap()
            .is_nan()
    );
    assert_eq!(t.rows[0].metric(&t.schema, "label"), None);
    assert!(t.find(&t.rows[1].shape_key()).is_some());
}

#[test]
fn combined_step_tflops() {
    let t = BenchTable::parse(&gemm_csv(&[ROW_A]), Path::new("x.csv")).unwrap();
    let row = &t.rows[0];
    // 6 * 64^3 flops in (0.262144 + 1.048576) ms.
    let expected = 6.0 * 64f64.powi(3) / (1.31072e-3) / 1e12;
    let got = row.metric(&t.schema, COMBINED_STEP_TFLOPS).unwrap();
    assert!((got - expected).abs() < 1e-15 * expected.max(1.0), "{got}");
    // Both relative stddevs are 1%: the stddev is 1% of the value.
    let sd = row.stddev(&t.schema, COMBINED_STEP_TFLOPS).unwrap();
    assert!((sd - 0.01 * expected).abs() < 1e-12);
    assert_eq!(
        Schema::bandwidth().resolve_metric(COMBINED_STEP_TFLOPS),
        None
    );
}

#[test]
fn combined_step_takes_the_larger_relative_stddev() {
    let row = "a,2,64,64,64,PASS,2.0,0.02,1.0,0.05,1,1,1,1,1";
    let t = BenchTable::parse(&gemm_csv(&[row]), Path::new("x.csv")).unwrap();
    let value = t.rows[0].metric(&t.schema, COMBINED_STEP_TFLOPS).unwrap();
    assert!((value - 12.0 * 64f64.powi(3) / 2e-3 / 1e12).abs() < 1e-12);
    let sd = t.rows[0].stddev(&t.schema, COMBINED_STEP_TFLOPS).unwrap();
    assert!((sd / value - 0.05).abs() < 1e-12);
}

#[test]
fn refuses_bad_rows_with_line_and_column() {
    let cases: &[(&str, &[&str])] = &[
        (
            "a,1,64,64,64,PASS,2.0,0.02",
            &["bench.csv:2", "expected 15 fields", "found 8"],
        ),
        (
            "a,1,64,64,64,OK,2.0,0.02,1.0,0.01,1,1,1,1,1",
            &["bench.csv:2", "column 'Check'", "found 'OK'"],
        ),
        (
            "a,1,64,64,64,PASS,,0.02,1.0,0.01,1,1,1,1,1",
            &["column 'Forward TFLOPS'", "empty cell on a PASS row"],
        ),
        (
            "a,1,64,64,64,PASS,NaN,0.02,1.0,0.01,1,1,1,1,1",
            &["column 'Forward TFLOPS'", "NaN on a PASS row"],
        ),
        (
            "a,1,64,64,64,PASS,inf,0.02,1.0,0.01,1,1,1,1,1",
            &["column 'Forward TFLOPS'", "infinite"],
        ),
        (
            "a,1,64,64,64,PASS,2.0,-0.02,1.0,0.01,1,1,1,1,1",
            &["column 'Forward TFLOPS_stddev'", "negative"],
        ),
        (
            "a,1,64,64,64,PASS,2.0,0.02,1.0,0.01,-1,1,1,1,1",
            &["column 'Forward Time (ms)'", "negative"],
        ),
        (
            "a,1,64,64,64,PASS,2.0,0.02,1.0,0.01,1,1,nan,1,1",
            &["column 'out_snr'", "NaN on a PASS row"],
        ),
        (
            "a,1,-64,64,64,PASS,2.0,0.02,1.0,0.01,1,1,1,1,1",
            &["column 'M'", "not an unsigned integer"],
        ),
        (
            "a,1,6.4,64,64,PASS,2.0,0.02,1.0,0.01,1,1,1,1,1",
            &["column 'M'", "'6.4'"],
        ),
        (
            "x/y,1,64,64,64,PASS,2.0,0.02,1.0,0.01,1,1,1,1,1",
            &["column 'label'", "path separator"],
        ),
        (
            "a,1,64,64,64,PASS,fast,0.02,1.0,0.01,1,1,1,1,1",
            &["'fast' is not a number"],
        ),
        (
            "a,1,64,64,64,PASS,0,0.02,1.0,0.01,1,1,1,1,1",
            &["positive metric"],
        ),
    ];
    for (row, needles) in cases {
        let msg = parse_err(&gemm_csv(&[row]));
        for needle in *needles {
            assert!(msg.contains(needle), "{row}: {msg} lacks {needle}");
        }
    }
}

#[test]
fn refuses_duplicated_shapes_and_labels() {
    let msg = parse_err(&gemm_csv(&[ROW_A, ROW_B, ROW_A]));
    assert!(msg.contains("duplicated shape 'a'"), "{msg}");
    assert!(msg.contains("lines 2 and 4"), "{msg}");
    let other = ROW_A.replacen("64", "32", 1);
    let msg = parse_err(&gemm_csv(&[ROW_A, &other]));
    assert!(msg.contains("label 'a' names two shapes"), "{msg}");
}

#[test]
fn refuses_labels_that_read_as_another() {
    // ROW_B's label is `b`; a Cyrillic `а` (U+0430) reads as ROW_A's `a`.
    let look_alike = ROW_B.replacen('b', "\u{430}", 1);
    let msg = parse_err(&gemm_csv(&[ROW_A, &look_alike]));
    assert!(msg.contains("reads as 'a'"), "{msg}");
    assert!(msg.contains("line 2") && msg.contains(":3"), "{msg}");
}

#[test]
fn refuses_bom_empty_and_header_only() {
    assert!(parse_err(&format!("\u{feff}{}", gemm_csv(&[ROW_A]))).contains("byte order mark"));
    assert!(parse_err("").contains("empty file"));
    assert!(parse_err(&gemm_csv(&[])).contains("no data rows"));
    assert!(parse_err(GEMM_HEADER).contains("no data rows"));
}

#[test]
fn accepts_crlf_line_endings() {
    let text = format!("{GEMM_HEADER}\r\n{ROW_A}\r\n");
    let t = BenchTable::parse(&text, Path::new("x.csv")).unwrap();
    assert_eq!(t.schema, Schema::gemm());
    assert_eq!(t.rows.len(), 1);
}

#[test]
fn frozen_header_drift_names_the_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.csv");
    let drifted = GEMM_HEADER.replace("Forward TFLOPS,", "Forward TFLOP/s,");
    std::fs::write(&path, format!("{drifted}\n{ROW_A}\n")).unwrap();
    let msg = BenchTable::read_frozen(&path, GEMM_HEADER)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("bench.csv:1"), "{msg}");
    assert!(
        msg.contains("column 7: frozen 'Forward TFLOPS' but found 'Forward TFLOP/s'"),
        "{msg}"
    );

    let short = GEMM_HEADER.rsplitn(3, ',').nth(2).unwrap();
    std::fs::write(&path, format!("{short}\nx\n")).unwrap();
    let msg = BenchTable::read_frozen(&path, GEMM_HEADER)
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("column 14: frozen 'da_snr' is missing"),
        "{msg}"
    );
    assert!(msg.contains("missing: da_snr, db_snr"), "{msg}");

    // A column left out in the middle: the next frozen column moved into its place is no
    // misspelling of it.
    let without = GEMM_HEADER.replace("Forward TFLOPS_stddev,", "");
    assert_ne!(without, GEMM_HEADER);
    std::fs::write(&path, format!("{without}\nx\n")).unwrap();
    let msg = BenchTable::read_frozen(&path, GEMM_HEADER)
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("column 8: frozen 'Forward TFLOPS_stddev' is missing (found has 'Backward TFLOPS', frozen column 9, in its place;"),
        "{msg}"
    );
    assert!(msg.contains("missing: Forward TFLOPS_stddev)"), "{msg}");
    // And one put in: an extra column, not a misspelling of the frozen one after it.
    let with = GEMM_HEADER.replace("Forward TFLOPS,", "Forward TFLOPS,note,");
    std::fs::write(&path, format!("{with}\nx\n")).unwrap();
    let msg = BenchTable::read_frozen(&path, GEMM_HEADER)
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains(
            "column 8: found has an extra column 'note' before frozen 'Forward TFLOPS_stddev'"
        ),
        "{msg}"
    );

    std::fs::write(&path, format!("{GEMM_HEADER},extra\n")).unwrap();
    let msg = BenchTable::read_frozen(&path, GEMM_HEADER)
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("column 16: found has an extra column 'extra'"),
        "{msg}"
    );

    std::fs::write(&path, gemm_csv(&[ROW_A])).unwrap();
    assert_eq!(
        BenchTable::read_frozen(&path, GEMM_HEADER)
            .unwrap()
            .rows
            .len(),
        1
    );
}

#[test]
fn invalid_utf8_names_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.csv");
    let mut bytes = gemm_csv(&[ROW_A]).into_bytes();
    bytes.extend_from_slice(b"\xff\n");
    std::fs::write(&path, bytes).unwrap();
    let msg = BenchTable::read(&path).unwrap_err().to_string();
    assert!(
        msg.contains("bench.csv:3") && msg.contains("UTF-8"),
        "{msg}"
    );
}

#[test]
fn samples_round_trip_and_refusals() {
    let text = "label,metric,repeat,value\na,Forward TFLOPS,1,2.5\na,Forward TFLOPS,0,2\nb,Forward TFLOPS,0,3\n";
    let s = Samples::parse(text, Path::new("samples.csv")).unwrap();
    assert_eq!(s.values("a", "Forward TFLOPS"), [2.0, 2.5]);
    assert_eq!(s.values_by_label("Forward TFLOPS")["a"], [2.0, 2.5]);
    assert!(s.values("a", "Backward TFLOPS").is_empty());
    assert_eq!(Samples::parse(&s.to_csv(), Path::new("s")).unwrap(), s);

    let err = |t: &str| {
        Samples::parse(t, Path::new("samples.csv"))
            .unwrap_err()
            .to_string()
    };
    assert!(
        err("label,metric,rep,value\n").contains("column 3: expected 'repeat' but found 'rep'")
    );
    assert!(err("label,metric,repeat,value\na,m,0,nan\n").contains("samples.csv:2"));
    assert!(err("label,metric,repeat,value\na,m,0,-1\n").contains("non-negative"));
    assert!(err("label,metric,repeat,value\na,m,0,1\na,m,0,2\n").contains("lines 2 and 3"));
    assert!(err("label,metric,repeat,value\na,m,x,1\n").contains("column 'repeat'"));
    assert!(
        Samples::parse("label,metric,repeat,value\n", Path::new("s"))
            .unwrap()
            .rows
            .is_empty()
    );
}

fn finite_nonneg() -> impl Strategy<Value = f64> {
    prop_oneof![0.0..1e6f64, (1u32..1000).prop_map(|x| f64::from(x) / 7.0)]
}

fn arb_row(index: usize) -> impl Strategy<Value = Row> {
    (
        proptest::collection::vec(1u64..100_000, 4),
        prop_oneof![
            4 => Just(Check::Pass),
            1 => Just(Check::Fail),
            1 => Just(Check::Error),
            1 => Just(Check::TimeoutFail),
        ],
        proptest::collection::vec(finite_nonneg(), 9),
        any::<bool>(),
    )
        .prop_map(move |(dims, check, nums, blank)| {
            let mut values = vec![f64::NAN; 15];
            for (slot, v) in values[6..].iter_mut().zip(nums) {
                *slot = v;
            }
            // Metrics must be positive and below any device's rate on PASS rows, their
            // stddevs within 100 times the metric.
            values[6] = values[6] % 1e4 + 1.0;
            values[8] = values[8] % 1e4 + 1.0;
            values[7] = values[7].min(100.0 * values[6]);
            values[9] = values[9].min(100.0 * values[8]);
            values[13] = f64::INFINITY;
            if check != Check::Pass && blank {
                values[6] = f64::NAN;
                values[9] = f64::NAN;
            }
            Row {
                label: format!("shape {index}-x"),
                dims,
                check,
                values,
            }
        })
}

fn arb_table() -> impl Strategy<Value = BenchTable> {
    (1usize..12)
        .prop_flat_map(|n| (0..n).map(arb_row).collect::<Vec<_>>())
        .prop_map(|rows| BenchTable {
            schema: Schema::gemm(),
            rows,
        })
}

proptest! {
    #[test]
    fn to_csv_round_trips(table in arb_table()) {
        let text = table.to_csv();
        let header = format!("{}\n", GEMM_HEADER);
        prop_assert!(text.starts_with(&header));
        let back = BenchTable::parse(&text, Path::new("t.csv")).unwrap();
        prop_assert_eq!(back, table);
    }
}
