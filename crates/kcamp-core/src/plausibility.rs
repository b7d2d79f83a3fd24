//! Plausibility of measured rows (docs/harness.md, "Impossible results"): a PASS row whose
//! time is below the roofline floor of the hardware that measured it is impossible (a
//! harness that cached its result, a timer that measured nothing) and becomes `ERROR`,
//! naming the floor, the peak and its source. The built-in runner applies it to its
//! outcomes; the campaign applies it to every CSV it did not measure itself, imported or
//! written by a harness.

use crate::ops::pass_work;
use crate::schema::{BenchTable, Row, Schema};
use crate::specs::FloorPeaks;
use crate::types::{Check, Dtype, OpName};

/// The steps whose time a row states, with their columns: `(time column, rate column)`.
const STEPS: [(&str, &str); 2] = [
    ("Forward Time (ms)", "Forward"),
    ("Backward Time (ms)", "Backward"),
];

/// Why the step times of a shape are impossible against `peaks`; `times` are per step
/// (forward, backward) as `(column, ms)`.
pub fn impossible(
    op: OpName,
    dtype: Dtype,
    dims: &[u64],
    times: [Option<(String, f64)>; 2],
    peaks: &FloorPeaks,
) -> Option<String> {
    let work = pass_work(op, dtype, dims);
    times.into_iter().zip(work).find_map(|(time, work)| {
        let (column, ms) = time?;
        let (flops, bytes) = work?;
        peaks.impossible(&column, ms, flops, bytes)
    })
}

/// A row made `ERROR` and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Impossible {
    pub label: String,
    pub reason: String,
}

/// Turns every PASS row of `table` that is faster than `peaks` allow into `ERROR`. A step's
/// time is its `<Step> Time (ms)` column, or what its rate column implies (`<Step> TFLOPS`
/// or `<Step> GB/s`); the faster of the two is held to the floor.
pub fn check_table(
    table: &mut BenchTable,
    op: OpName,
    dtype: Dtype,
    peaks: &FloorPeaks,
) -> Vec<Impossible> {
    if !peaks.is_known() {
        return Vec::new();
    }
    let schema = table.schema.clone();
    let mut found = Vec::new();
    for row in table.rows.iter_mut().filter(|r| r.check == Check::Pass) {
        let work = pass_work(op, dtype, &row.dims);
        let times = [0, 1].map(|i| fastest_time(&schema, row, i, work[i]));
        if let Some(reason) = impossible(op, dtype, &row.dims, times, peaks) {
            row.check = Check::Error;
            found.push(Impossible {
                label: row.label.clone(),
                reason,
            });
        }
    }
    found
}

/// The shortest time a row claims for step `i`, from its time column or its rate column.
fn fastest_time(
    schema: &Schema,
    row: &Row,
    i: usize,
    work: Option<(f64, f64)>,
) -> Option<(String, f64)> {
    let (time_column, prefix) = STEPS[i];
    let mut claims: Vec<(String, f64)> = Vec::new();
    if let Some(ms) = row.metric(schema, time_column) {
        claims.push((time_column.to_owned(), ms));
    }
    if let Some((flops, bytes)) = work {
        for (unit, amount, scale) in [("TFLOPS", flops, 1e12), ("GB/s", bytes, 1e9)] {
            let column = format!("{prefix} {unit}");
            if let Some(rate) = row.metric(schema, &column).filter(|r| *r > 0.0) {
                claims.push((
                    format!("{column} {rate}, that is a time of"),
                    amount / (rate * scale) * 1e3,
                ));
            }
        }
    }
    claims
        .into_iter()
        .filter(|(_, ms)| ms.is_finite())
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::specs::{PeakValue, Registry};

    fn h200() -> FloorPeaks {
        let mut m = crate::manifest::Manifest::with_defaults(
            "x".into(),
            OpName::Gemm,
            Dtype::F32,
            "Forward TFLOPS".into(),
            Vec::new(),
            crate::ops::op(OpName::Gemm)
                .baseline_kernel(Dtype::F32)
                .kernel,
        );
        m.target_gpu = Some("h200".into());
        FloorPeaks::for_target(
            &Registry::builtin().unwrap(),
            &Default::default(),
            &m.floor_target(),
        )
        .unwrap()
    }

    fn table(csv: &str) -> BenchTable {
        BenchTable::parse(csv, std::path::Path::new("t.csv")).unwrap()
    }

    #[test]
    fn the_floor_of_an_f32_target_includes_its_tensor_rate() {
        let p = h200();
        let flops = p.flops.as_ref().unwrap();
        assert_eq!(flops.value, 494.7e12);
        assert_eq!(flops.key.as_deref(), Some("tf32-tensor"));
        assert_eq!(flops.source, "nvidia-h200-datasheet");
    }

    #[test]
    fn a_row_faster_than_the_hardware_becomes_error_naming_floor_peak_and_source() {
        // sq4096 at 403 TFLOP/s (cuBLAS through TF32): possible. At 600: impossible.
        let header = crate::schema::GEMM_HEADER;
        let ms = |tflops: f64| 2.0 * 4096f64.powi(3) / (tflops * 1e12) * 1e3;
        let mut t = table(&format!(
            "{header}\ntf32,1,4096,4096,4096,PASS,403,1,300,1,{},{},100,100,100\nfast,1,4096,4096,4096,PASS,600,1,300,1,{},{},100,100,100\nfailed,1,4096,4096,4096,FAIL,,,,,,,,,\n",
            ms(403.0),
            2.0 * ms(300.0),
            ms(600.0),
            2.0 * ms(300.0),
        ));
        let found = check_table(&mut t, OpName::Gemm, Dtype::F32, &h200());
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].label, "fast");
        let reason = &found[0].reason;
        assert!(
            reason.contains("roofline floor 278 µs")
                && reason.contains("495 TFLOP/s (tf32-tensor) [nvidia-h200-datasheet]"),
            "{reason}"
        );
        assert_eq!(t.rows[0].check, Check::Pass);
        assert_eq!(t.rows[1].check, Check::Error);
        assert_eq!(t.rows[2].check, Check::Fail);
    }

    #[test]
    fn a_rate_column_alone_is_held_to_the_floor() {
        // A harness that caches its result: 52 TFLOP/s on a CPU whose measured peak is
        // 0.15 TFLOP/s (×3 headroom), with a time column that claims nothing unusual.
        let peaks = FloorPeaks {
            flops: Some(PeakValue {
                value: 0.45e12,
                source: "measured:llvmpipe:2026-12-01".into(),
                key: Some("f32 measured ×3".into()),
            }),
            bandwidth: None,
        };
        let header = crate::schema::GEMM_HEADER;
        let mut t = table(&format!(
            "{header}\ns256,1,256,256,256,PASS,52,0.1,1,0.1,10,20,100,100,100\n"
        ));
        let found = check_table(&mut t, OpName::Gemm, Dtype::F32, &peaks);
        assert_eq!(found.len(), 1);
        assert!(
            found[0].reason.contains("Forward TFLOPS 52"),
            "{:?}",
            found[0]
        );
        assert!(
            found[0].reason.contains("measured:llvmpipe"),
            "{:?}",
            found[0]
        );
    }

    #[test]
    fn without_known_peaks_nothing_is_checked() {
        let header = crate::schema::GEMM_HEADER;
        let mut t = table(&format!(
            "{header}\ns256,1,256,256,256,PASS,5200,0.1,1,0.1,0.0001,20,100,100,100\n"
        ));
        assert!(check_table(&mut t, OpName::Gemm, Dtype::F32, &FloorPeaks::default()).is_empty());
        assert_eq!(t.rows[0].check, Check::Pass);
    }
}
