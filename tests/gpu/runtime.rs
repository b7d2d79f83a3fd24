//! The wgpu runtime on Mesa's lavapipe ("llvmpipe"): adapters, correctness, failure modes,
//! timing and peaks. Shapes stay tiny: lavapipe runs on the CPU.

use std::collections::BTreeMap;
use std::path::PathBuf;

use kcamp_core::case::{CaseOutcome, CaseSpec, ProgressEvent};
use kcamp_core::manifest::{AdapterSelector, TimingConfig};
use kcamp_core::ops;
use kcamp_core::types::Check;
use kcamp_core::types::TimingMethod;
use kcamp_core::types::{Dtype, OpName, ShapeSpec};
use kcamp_gpu::{self as gpu, GpuContext, execute_case, peak};

fn lavapipe() -> AdapterSelector {
    AdapterSelector {
        name: Some("llvmpipe".into()),
        backend: Some("vulkan".into()),
        ..AdapterSelector::default()
    }
}

fn ctx() -> GpuContext {
    GpuContext::open(&lavapipe()).expect("lavapipe (mesa-vulkan-drivers) must be installed")
}

fn shape(label: &str, dims: &[(&str, u64)]) -> ShapeSpec {
    ShapeSpec {
        label: label.into(),
        dims: dims.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
    }
}

fn timing() -> TimingConfig {
    TimingConfig {
        warmup: 1,
        repeats: 3,
        min_sample_ms: 1.0,
        ..TimingConfig::default()
    }
}

/// A case running the op's baseline kernel (or `fixture` from tests/fixtures/kernels).
fn case(op: OpName, dtype: Dtype, shape: ShapeSpec, fixture: Option<&str>) -> CaseSpec {
    let baseline = ops::op(op).baseline_kernel(dtype);
    let (kernel_path, kernel_source) = match fixture {
        Some(name) => {
            let path = PathBuf::from("tests/fixtures/kernels").join(name);
            let source = std::fs::read_to_string(&path).unwrap();
            (path, source)
        }
        None => (
            PathBuf::from("shaders").join(baseline.file_name),
            baseline.source.to_owned(),
        ),
    };
    CaseSpec {
        op,
        dtype,
        shape,
        kernel_path,
        kernel_source,
        kernel: baseline.kernel,
        adapter: lavapipe(),
        timing: timing(),
        seed: 42,
        paired: None,
        check_only: false,
        driver_statistics: false,
    }
}

fn gemm(label: &str, b: u64, m: u64, n: u64, k: u64) -> ShapeSpec {
    shape(label, &[("B", b), ("M", m), ("N", n), ("K", k)])
}

fn run(ctx: &GpuContext, spec: &CaseSpec) -> (CaseOutcome, Vec<ProgressEvent>) {
    let mut events = Vec::new();
    let outcome = execute_case(ctx, spec, &mut |e| events.push(e));
    (outcome, events)
}

fn assert_pass(o: &CaseOutcome) {
    assert_eq!(o.check, Check::Pass, "reason: {:?}", o.reason);
    assert!(o.reason.is_none());
}

fn reason(o: &CaseOutcome) -> &str {
    o.reason.as_deref().unwrap_or("")
}

#[test]
fn list_adapters_finds_llvmpipe_with_its_features() {
    let all = gpu::list_adapters();
    let lvp = all
        .iter()
        .find(|a| a.name.contains("llvmpipe") && a.backend == "vulkan")
        .expect("llvmpipe on vulkan");
    assert!(lvp.software);
    assert_eq!(lvp.device_type, "cpu");
    assert!(lvp.features.timestamp_query);
    assert!(lvp.features.shader_f16);
    assert!(lvp.features.subgroup);
    assert!(lvp.features.subgroup_min_size >= 4);
    assert!(!lvp.features.cooperative_matrix);
    assert_eq!(lvp.limits.max_storage_buffer_binding_size, 128 << 20);
    assert!(lvp.limits.max_compute_workgroups_per_dimension >= 65535);
    let json = serde_json::to_value(lvp).unwrap();
    assert_eq!(json["features"]["timestamp_query"], true);
    let desc = ctx().description();
    assert!(desc.software && desc.name.contains("llvmpipe"));
}

#[test]
fn open_with_unknown_adapter_lists_the_adapters_found() {
    let err = GpuContext::open(&AdapterSelector {
        name: Some("no-such-gpu".into()),
        backend: None,
        ..AdapterSelector::default()
    })
    .unwrap_err()
    .to_string();
    assert!(err.contains("no-such-gpu"), "{err}");
    assert!(err.contains("llvmpipe"), "{err}");
}

#[test]
fn naive_gemm_f32_passes_odd_shapes_and_batches() {
    let ctx = ctx();
    for shape in [gemm("odd", 1, 17, 33, 9), gemm("batched", 2, 20, 16, 24)] {
        let spec = case(OpName::Gemm, Dtype::F32, shape, None);
        let (o, events) = run(&ctx, &spec);
        assert_pass(&o);
        assert_eq!(o.dims.len(), 4);
        assert!(o.rel_err.unwrap() < 1e-4);
        for col in ["out_snr", "da_snr", "db_snr"] {
            assert!(o.metrics[col] > 100.0, "{col} = {}", o.metrics[col]);
        }
        for col in [
            "Forward TFLOPS",
            "Backward TFLOPS",
            "Forward Time (ms)",
            "Backward Time (ms)",
        ] {
            assert!(o.metrics[col] > 0.0 && o.metrics[col].is_finite(), "{col}");
        }
        assert!(o.metrics["Forward TFLOPS_stddev"] >= 0.0);
        for col in numeric_columns(OpName::Gemm) {
            assert!(o.metrics[&col].is_finite(), "{col}");
        }
        // Every repeat of every metric column is a sample, and a progress event.
        for metric in [
            "Forward TFLOPS",
            "Forward Time (ms)",
            "Backward TFLOPS",
            "Backward Time (ms)",
        ] {
            let n = o.samples.iter().filter(|s| s.metric == metric).count();
            assert_eq!(n, 3, "{metric}");
        }
        let samples = events
            .iter()
            .filter(|e| matches!(e, ProgressEvent::Sample { .. }))
            .count();
        assert_eq!(samples, 6);
        assert_eq!(o.timing_method, Some(TimingMethod::GpuTimestamps));
        let fwd_ms = o.metrics["Forward Time (ms)"];
        assert!((o.latency_us.unwrap() - fwd_ms * 1e3).abs() < 1e-9);
        let flops = ops::op(OpName::Gemm).flops(&o.dims).0;
        let tflops = flops / (fwd_ms * 1e-3) / 1e12;
        assert!((o.metrics["Forward TFLOPS"] - tflops).abs() <= 1e-9 * tflops);
        assert!(!o.trusted);
        let back: CaseOutcome = serde_json::from_str(&serde_json::to_string(&o).unwrap()).unwrap();
        assert_eq!(back, o);
    }
}

#[test]
fn dedicated_backward_entry_points_are_used() {
    // The same kernel under three names: a wrong name would fail, not fall back silently.
    let mut spec = case(OpName::Gemm, Dtype::F32, gemm("bwd", 1, 16, 8, 12), None);
    spec.kernel_source = spec.kernel_source.replace("fn main(", "fn gemm_main(");
    for key in ["forward", "backward_da", "backward_db"] {
        spec.kernel
            .entry_points
            .insert(key.into(), "gemm_main".into());
    }
    let ctx = ctx();
    assert_pass(&run(&ctx, &spec).0);
    spec.kernel
        .entry_points
        .insert("backward_db".into(), "missing_entry".into());
    let (o, _) = run(&ctx, &spec);
    assert_eq!(o.check, Check::Fail);
    assert!(
        reason(&o).contains("kernel.entry_points.backward_db"),
        "{}",
        reason(&o)
    );
}

/// The baseline GEMM with a second entry point, `main4`, reading `a` through a vec4 view
/// of the same binding (a second declaration, used by `main4` alone), its output times
/// `scale`.
fn with_aligned_entry(source: &str, scale: &str) -> String {
    let view = "@group(0) @binding(0) var<storage, read> a: array<f32>;";
    assert!(source.contains(view), "the baseline's binding of a changed");
    let body = &source[source.find("@compute").expect("an entry point")..];
    let aligned = body
        .replace("fn main(", "fn main4(")
        .replace(
            "a[a_base + p * params.m + row]",
            "a4[(a_base + p * params.m + row) / 4u][(a_base + p * params.m + row) % 4u]",
        )
        .replace(
            "a[a_base + row * params.k + p]",
            "a4[(a_base + row * params.k + p) / 4u][(a_base + row * params.k + p) % 4u]",
        )
        .replace("= acc;", &format!("= acc * {scale};"));
    assert!(
        aligned.contains("a4[") && !aligned.contains(" a["),
        "{aligned}"
    );
    format!(
        "{}\n{aligned}",
        source.replace(
            view,
            &format!("{view}\n@group(0) @binding(0) var<storage, read> a4: array<vec4<f32>>;")
        )
    )
}

#[test]
fn aligned_shapes_run_the_aligned_entry_point_and_record_it() {
    let ctx = ctx();
    let mut spec = case(OpName::Gemm, Dtype::F32, gemm("al", 2, 16, 8, 12), None);
    let baseline = spec.kernel_source.clone();
    spec.kernel.aligned = Some(kcamp_core::manifest::AlignedEntries {
        to: 4,
        entry_points: BTreeMap::from([("forward".to_owned(), "main4".to_owned())]),
    });
    // A correct aligned entry point: every pass of an aligned shape runs it (the backward
    // passes have no entry point of their own), and the outcome says so.
    spec.kernel_source = with_aligned_entry(&baseline, "1.0");
    let (o, _) = run(&ctx, &spec);
    assert_pass(&o);
    assert_eq!(o.aligned_entries, vec!["main4".to_owned()]);
    spec.shape = gemm("odd", 1, 16, 9, 12);
    let (o, _) = run(&ctx, &spec);
    assert_pass(&o);
    assert!(o.aligned_entries.is_empty(), "{:?}", o.aligned_entries);
    // A wrong aligned entry point fails the aligned shape only: it is what ran there.
    spec.kernel_source = with_aligned_entry(&baseline, "2.0");
    let (o, _) = run(&ctx, &spec);
    assert_pass(&o);
    spec.shape = gemm("al", 2, 16, 8, 12);
    let (o, _) = run(&ctx, &spec);
    assert_eq!(o.check, Check::Fail, "{o:?}");
    // A missing aligned entry point is named by its field.
    spec.kernel_source = baseline;
    let (o, _) = run(&ctx, &spec);
    assert_eq!(o.check, Check::Fail);
    assert!(
        reason(&o).contains("kernel.aligned.entry_points.forward: no compute entry point 'main4'"),
        "{}",
        reason(&o)
    );
}

#[test]
fn naive_gemm_f16_passes() {
    let ctx = ctx();
    assert!(ctx.has_f16());
    let spec = case(OpName::Gemm, Dtype::F16, gemm("f16", 1, 24, 17, 40), None);
    let (o, _) = run(&ctx, &spec);
    assert_pass(&o);
    assert!(o.rel_err.unwrap() < 1e-2);
}

#[test]
fn axpy_passes_with_l2_flush() {
    let ctx = ctx();
    for dtype in [Dtype::F32, Dtype::F16] {
        let spec = case(OpName::Axpy, dtype, shape("n", &[("N", 100_003)]), None);
        let (o, _) = run(&ctx, &spec);
        assert_pass(&o);
        assert_eq!(o.dims, vec![100_003]);
        assert!(o.metrics["Forward GB/s"] > 0.0);
        assert!(o.metrics["Forward GB/s_stddev"] >= 0.0);
        assert!(o.metrics["out_snr"] > 40.0);
        assert!(o.metrics["l2_flush_bytes"] > 0.0);
        for col in numeric_columns(OpName::Axpy) {
            assert!(o.metrics[&col].is_finite(), "{col}");
        }
        let bytes = ops::op(OpName::Axpy).bytes(dtype, &o.dims).0;
        let gbps = bytes / (o.metrics["Forward Time (ms)"] * 1e-3) / 1e9;
        assert!((o.metrics["Forward GB/s"] - gbps).abs() <= 1e-9 * gbps);
    }
}

#[test]
fn vec4_views_cover_odd_lengths() {
    // Buffers are padded to 16 bytes, so the vec4 holding the last elements is in bounds (with
    // 4-byte padding the fixture leaves element 1,000 of N = 1,001 NaN).
    let ctx = ctx();
    for n in [1_001, 1_002, 1_003, 1_004] {
        let spec = case(
            OpName::Axpy,
            Dtype::F32,
            shape("n", &[("N", n)]),
            Some("axpy_vec4.wgsl"),
        );
        let (o, _) = run(&ctx, &spec);
        assert_pass(&o);
    }
}

#[test]
fn wrong_kernels_fail_without_crashing() {
    let ctx = ctx();
    let small = gemm("bad", 1, 40, 40, 24);
    // 256 workgroups: most start after the first one has stored c[0], even on many cores.
    let many_workgroups = gemm("bad", 1, 256, 256, 8);
    let cases = [
        ("gemm_skip_last_row.wgsl", "NaN", &small),
        ("gemm_zeros.wgsl", "all zeros", &small),
        ("gemm_skip_if_done.wgsl", "NaN", &many_workgroups),
        ("gemm_oob_read.wgsl", "rel_err", &small),
    ];
    for (fixture, why, shape) in cases {
        let spec = case(OpName::Gemm, Dtype::F32, shape.clone(), Some(fixture));
        let (o, _) = run(&ctx, &spec);
        assert_eq!(o.check, Check::Fail, "{fixture}: {:?}", o.reason);
        assert!(reason(&o).contains(why), "{fixture}: {}", reason(&o));
        assert!(!o.metrics.contains_key("Forward TFLOPS"), "{fixture}");
        if why == "NaN" {
            // An output with NaN has no SNR and no rel_err (JSON carries no infinities).
            assert!(o.rel_err.is_none(), "{fixture}");
        } else {
            assert!(o.metrics.contains_key("out_snr"), "{fixture}");
            assert!(o.rel_err.unwrap() > 1e-4, "{fixture}");
        }
        // The outcome crosses the worker boundary as JSON unchanged.
        let back: CaseOutcome = serde_json::from_str(&serde_json::to_string(&o).unwrap()).unwrap();
        assert_eq!(back, o, "{fixture}");
    }
}

#[test]
fn syntax_error_fails_with_file_line_column() {
    let spec = case(
        OpName::Gemm,
        Dtype::F32,
        gemm("syntax", 1, 16, 16, 16),
        Some("gemm_syntax_error.wgsl"),
    );
    let (o, _) = run(&ctx(), &spec);
    assert_eq!(o.check, Check::Fail);
    let r = reason(&o);
    assert!(
        r.starts_with("tests/fixtures/kernels/gemm_syntax_error.wgsl:29:5: "),
        "{r}"
    );
}

#[test]
fn too_large_shape_is_an_error_naming_the_limit() {
    // C alone is 8192 x 8192 f32 = 256 MiB, above lavapipe's 128 MiB binding limit.
    let spec = case(
        OpName::Gemm,
        Dtype::F32,
        gemm("huge", 1, 8192, 8192, 8),
        None,
    );
    let (o, _) = run(&ctx(), &spec);
    assert_eq!(o.check, Check::Error);
    let r = reason(&o);
    assert!(
        r.contains("max_storage_buffer_binding_size of 134217728"),
        "{r}"
    );
    assert!(r.contains("268435456 bytes"), "{r}");
}

/// Whether the case got as far as generating its inputs (allocating them on the host).
fn generated_inputs(events: &[ProgressEvent]) -> bool {
    events.iter().any(|e| {
        matches!(e, ProgressEvent::Phase { phase, .. } if phase.starts_with("generating the inputs"))
    })
}

#[test]
fn an_oversized_shape_is_refused_before_anything_is_allocated() {
    // 16384³: a GiB per buffer, and its f64 inputs and reference gigabytes more on the host.
    let spec = case(
        OpName::Gemm,
        Dtype::F32,
        gemm("cube", 1, 16384, 16384, 16384),
        None,
    );
    let (o, events) = run(&ctx(), &spec);
    assert_eq!(o.check, Check::Error);
    assert!(
        reason(&o).contains("shape 'cube' (B=1, M=16384, N=16384, K=16384)")
            && reason(&o).contains("above the adapter's max_storage_buffer_binding_size"),
        "{}",
        reason(&o)
    );
    assert!(!generated_inputs(&events), "{events:?}");
}

#[test]
fn memory_a_kernel_declares_beyond_the_adapter_fails_before_its_pipeline() {
    let ctx = ctx();
    let base = ops::op(OpName::Axpy).baseline_kernel(Dtype::F32).source;
    let with = |decl: &str, use_it: &str| {
        base.replace(
            "@compute @workgroup_size(256, 1, 1)",
            &format!("{decl}\n@compute @workgroup_size(256, 1, 1)"),
        )
        .replace(
            "out[i] = params.alpha * x[i] + y[i];",
            &format!("out[i] = params.alpha * x[i] + y[i] + {use_it};"),
        )
    };
    // Twice the adapter's workgroup memory.
    let words = ctx.report().limits.max_compute_workgroup_storage_size as usize * 2 / 4;
    let workgroup = with(
        &format!("var<workgroup> tile: array<f32, {words}>;"),
        "tile[gid.x]",
    );
    // 256 MiB of private memory per invocation.
    let private = with(
        "var<private> scratch: array<f32, 67108864>;",
        "scratch[i % 7u]",
    );
    for (source, needle) in [
        (workgroup, "max_compute_workgroup_storage_size"),
        (private, "bytes of private memory per invocation"),
    ] {
        let mut spec = case(OpName::Axpy, Dtype::F32, shape("n", &[("N", 1024)]), None);
        spec.kernel_source = source;
        let (o, events) = run(&ctx, &spec);
        assert_eq!(o.check, Check::Fail, "{}", reason(&o));
        assert!(reason(&o).contains(needle), "{}", reason(&o));
        assert!(!generated_inputs(&events), "{events:?}");
    }
}

#[test]
fn dispatch_above_the_per_dimension_limit_is_refused() {
    let mut spec = case(
        OpName::Axpy,
        Dtype::F32,
        shape("n", &[("N", 1 << 25)]),
        None,
    );
    spec.kernel.workgroups.x = "ceil(N/256)".into();
    spec.kernel.workgroups.y = "1".into();
    let (o, _) = run(&ctx(), &spec);
    assert_eq!(o.check, Check::Error);
    assert!(
        reason(&o).contains("max_compute_workgroups_per_dimension"),
        "{}",
        reason(&o)
    );
}

#[test]
fn bad_workgroup_expression_names_the_field() {
    let mut spec = case(OpName::Gemm, Dtype::F32, gemm("expr", 1, 16, 16, 16), None);
    spec.kernel.workgroups.y = "M/16 +".into();
    let (o, _) = run(&ctx(), &spec);
    assert_eq!(o.check, Check::Error);
    assert!(
        reason(&o).contains("kernel.workgroups.y = 'M/16 +'"),
        "{}",
        reason(&o)
    );
}

#[test]
fn trusted_flag_is_recorded_and_still_correct() {
    let mut spec = case(
        OpName::Gemm,
        Dtype::F32,
        gemm("trusted", 1, 32, 32, 32),
        None,
    );
    spec.kernel.trusted = true;
    let (o, _) = run(&ctx(), &spec);
    assert_pass(&o);
    assert!(o.trusted);
}

#[test]
fn binding_overrides_let_a_foreign_kernel_run_unedited() {
    let mut spec = case(OpName::Gemm, Dtype::F32, gemm("bind", 1, 16, 24, 8), None);
    let remap = BTreeMap::from([("a", 3u32), ("b", 2), ("c", 1), ("params", 0)]);
    for (name, slot) in &remap {
        let default = ["a", "b", "c", "params"]
            .iter()
            .position(|n| n == name)
            .unwrap();
        spec.kernel_source = spec.kernel_source.replace(
            &format!("@binding({default}) var"),
            &format!("@binding(1{slot}) var"),
        );
    }
    spec.kernel_source = spec.kernel_source.replace("@binding(1", "@binding(");
    spec.kernel.bindings = remap.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    assert_pass(&run(&ctx(), &spec).0);
}

#[test]
fn peak_measure_returns_positive_numbers() {
    let opts = peak::PeakOptions {
        min_run_ms: 5.0,
        runs: 2,
        max_copy_bytes: 4 << 20,
        fma_workgroups: Some(16),
        coop_probe: None,
    };
    let report = peak::measure(&ctx(), &opts).unwrap();
    assert_eq!(report.timing_method, TimingMethod::GpuTimestamps);
    assert!(report.fma_f32.gflops > 0.0 && report.fma_f32.best_ms > 0.0);
    assert!(report.fma_f16.as_ref().unwrap().gflops > 0.0);
    assert!(report.copy.gbps > 0.0);
    assert!(report.copy.buffer_bytes <= 4 << 20);
    // No cooperative matrices on lavapipe: the tensor-core ceiling is not attempted, and
    // its absence is not an error.
    assert_eq!((report.coop_f16, report.coop_f16_error), (None, None));
}

#[test]
fn host_clock_timing_is_recorded_when_chosen() {
    let mut ctx = ctx();
    ctx.set_timing_method(TimingMethod::HostClock).unwrap();
    for spec in [
        case(OpName::Gemm, Dtype::F32, gemm("host", 1, 24, 16, 8), None),
        case(
            OpName::Axpy,
            Dtype::F32,
            shape("host", &[("N", 5000)]),
            None,
        ),
    ] {
        let (o, _) = run(&ctx, &spec);
        assert_pass(&o);
        assert_eq!(o.timing_method, Some(TimingMethod::HostClock));
        assert!(o.latency_us.unwrap() > 0.0);
    }
}

#[test]
fn kernels_off_the_abi_fail_with_one_line_reasons() {
    let ctx = ctx();
    let base = case(OpName::Gemm, Dtype::F32, gemm("abi", 1, 16, 16, 16), None);
    let variants = [
        (
            base.kernel_source
                .replace("var<storage, read> a", "var<storage, read_write> a"),
            "(kcamp binds group 0 as: @binding(0) var<storage, read> a,",
        ),
        (
            base.kernel_source
                .replace("@workgroup_size(16, 16, 1)", "@workgroup_size(64, 64, 1)"),
            "max_compute_invocations_per_workgroup",
        ),
    ];
    for (source, expected) in variants {
        let mut spec = base.clone();
        spec.kernel_source = source;
        let (o, _) = run(&ctx, &spec);
        assert_eq!(o.check, Check::Fail);
        let r = reason(&o);
        assert!(
            r.starts_with("shaders/gemm_naive.wgsl: entry point 'main': "),
            "{r}"
        );
        assert!(r.contains(expected), "{r}");
        assert!(!r.contains('\n'), "{r}");
    }
}

/// Every numeric column of the op's CSV (after `Check`): a PASS row fills them all.
fn numeric_columns(op: OpName) -> Vec<String> {
    ops::op(op)
        .schema()
        .columns
        .iter()
        .skip_while(|c| c.name != "Check")
        .skip(1)
        .map(|c| c.name.clone())
        .collect()
}

#[test]
fn asking_for_the_drivers_statistics_where_the_driver_has_none_changes_nothing_else() {
    // lavapipe does not offer VK_KHR_pipeline_executable_properties: the case runs as it
    // would without the question, and the outcome carries no statistics rather than empty
    // ones. (On the H200 the same question reads "Register Count" and four more.)
    let mut spec = case(OpName::Gemm, Dtype::F32, gemm("s", 1, 16, 16, 16), None);
    spec.driver_statistics = true;
    let c = ctx();
    let (outcome, events) = run(&c, &spec);
    assert_pass(&outcome);
    assert_eq!(outcome.driver_statistics, None);
    assert!(
        events.iter().any(|e| matches!(
            e,
            ProgressEvent::Phase { phase, .. } if phase.contains("asking the driver")
        )),
        "{events:?}"
    );
}

#[test]
fn the_device_generates_the_hosts_inputs_bit_for_bit() {
    use kcamp_core::ops::inputs::Seeded;
    // Odd and even lengths (an f16 buffer's last word holds one element), several seeds
    // (high bits included) and buffer numbers; lengths past one grid-stride lap of
    // lavapipe's workgroups are covered by the largest.
    let mut adapters = vec![lavapipe()];
    // The GL backend where this machine has one (Mesa's llvmpipe through EGL).
    if gpu::list_adapters()
        .iter()
        .any(|a| a.backend.eq_ignore_ascii_case("gl"))
    {
        adapters.push(AdapterSelector {
            backend: Some("gl".into()),
            ..AdapterSelector::default()
        });
    }
    for sel in adapters {
        let ctx = GpuContext::open(&sel).unwrap();
        for (seed, buffer, len) in [
            (42u64, 0u32, 1u64),
            (42, 1, 4097),
            (0xdead_beef_0000_0001, 2, 70_000),
            (u64::MAX, 7, 1 << 20),
        ] {
            for dtype in [Dtype::F32, Dtype::F16] {
                let s = Seeded::new(seed, buffer, dtype, len);
                let got = gpu::generated_bytes(&ctx, &s).unwrap();
                let want = s.encoded();
                assert_eq!(got.len(), want.len());
                if let Some(i) = got.iter().zip(&want).position(|(g, w)| g != w) {
                    panic!(
                        "{}: seed {seed} buffer {buffer} {dtype:?} len {len}: byte {i} differs",
                        ctx.report().summary()
                    );
                }
            }
        }
    }
}
