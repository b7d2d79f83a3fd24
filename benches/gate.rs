//! The gate in process: two generated GEMM CSVs of 10,000 and of 100,000 shapes parsed and
//! judged, as `kcamp gate` reads and judges them, with and without raw samples; and the
//! judging alone, of tables parsed once.

use std::hint::black_box;
use std::path::Path;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use kcamp_core::gate::{GateConfig, GateInput, judge};
use kcamp_core::schema::{BenchTable, GEMM_HEADER, SAMPLES_HEADER, Samples};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const REPEATS: u32 = 10;

/// A benchmark CSV of `shapes` shapes and its samples; `scale` shifts the candidate's
/// metrics.
fn generate(shapes: usize, seed: u64, scale: f64) -> (String, String) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut csv = format!("{GEMM_HEADER}\n");
    let mut samples = format!("{SAMPLES_HEADER}\n");
    for i in 0..shapes {
        let (m, n, k) = (64 * (1 + i % 32), 64 * (1 + i % 17), 64 * (1 + i % 23));
        // Strictly positive metrics with 0.5-3% noise.
        let fwd: f64 = rng.random_range(0.5..50.0) * scale;
        let bwd: f64 = rng.random_range(0.5..50.0) * scale;
        let rel: f64 = rng.random_range(0.005..0.03);
        let flops = 2.0 * (m * n * k) as f64;
        let fwd_ms = flops / (fwd * 1e12) * 1e3;
        let bwd_ms = 2.0 * flops / (bwd * 1e12) * 1e3;
        csv.push_str(&format!(
            "shape{i},1,{m},{n},{k},PASS,{fwd},{},{bwd},{},{fwd_ms},{bwd_ms},120.5,inf,118.25\n",
            fwd * rel,
            bwd * rel
        ));
        for r in 0..REPEATS {
            let v = fwd * (1.0 + rng.random_range(-rel..rel));
            samples.push_str(&format!("shape{i},Forward TFLOPS,{r},{v}\n"));
        }
    }
    (csv, samples)
}

fn bench_gate(c: &mut Criterion) {
    let config = GateConfig::default();
    let mut group = c.benchmark_group("gate");
    group.sample_size(10);
    for shapes in [10_000, 100_000] {
        let (inc_csv, inc_samples) = generate(shapes, 1, 1.0);
        let (cand_csv, cand_samples) = generate(shapes, 2, 1.05);
        let run = |with_samples: bool| {
            let inc = BenchTable::parse(&inc_csv, Path::new("incumbent.csv")).unwrap();
            let cand = BenchTable::parse(&cand_csv, Path::new("candidate.csv")).unwrap();
            let samples = with_samples.then(|| {
                (
                    Samples::parse(&inc_samples, Path::new("inc/samples.csv")).unwrap(),
                    Samples::parse(&cand_samples, Path::new("cand/samples.csv")).unwrap(),
                )
            });
            judge(&GateInput {
                incumbent: &inc,
                candidate: &cand,
                incumbent_samples: samples.as_ref().map(|s| &s.0),
                candidate_samples: samples.as_ref().map(|s| &s.1),
                metric: "Forward TFLOPS",
                config: &config,
                paired: false,
                repeats_per_block: 1,
            })
            .unwrap()
        };
        group.bench_with_input(
            BenchmarkId::new("parse_and_judge", shapes),
            &false,
            |b, &s| b.iter(|| black_box(run(s))),
        );
        let inc = BenchTable::parse(&inc_csv, Path::new("incumbent.csv")).unwrap();
        let cand = BenchTable::parse(&cand_csv, Path::new("candidate.csv")).unwrap();
        let input = GateInput {
            incumbent: &inc,
            candidate: &cand,
            incumbent_samples: None,
            candidate_samples: None,
            metric: "Forward TFLOPS",
            config: &config,
            paired: false,
            repeats_per_block: 1,
        };
        group.bench_function(BenchmarkId::new("judge", shapes), |b| {
            b.iter(|| black_box(judge(&input).unwrap()))
        });
        group.bench_with_input(
            BenchmarkId::new("parse_and_judge_with_samples", shapes),
            &true,
            |b, &s| b.iter(|| black_box(run(s))),
        );
    }
    group.finish();
}

criterion_group!(benches, bench_gate);
criterion_main!(benches);
