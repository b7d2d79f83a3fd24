//! `kcamp util` from the command line.

use assert_cmd::Command;

fn kcamp() -> Command {
    Command::cargo_bin("kcamp").unwrap()
}

const SGEMM: [&str; 14] = [
    "util",
    "--gpu",
    "h200",
    "--dtype",
    "f32",
    "--flops-expr",
    "2*M*N*K",
    "--bytes-expr",
    "4*(M*K+K*N+M*N)",
    "--time-ms",
    "10",
    "--grid-blocks",
    "4096",
    "--dims=M=4096,N=4096,K=4096",
];

#[test]
fn util_prints_rates_utilization_roofline_and_sources() {
    let out = kcamp().args(SGEMM).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    // Three significant digits through kcamp_core::units; the JSON keeps every digit.
    assert!(
        text.contains("13.7 TFLOP/s = 20.5% of 67.0 TFLOP/s"),
        "{text}"
    );
    assert!(text.contains("20.1 GB/s = 0.419% of 4.80 TB/s"), "{text}");
    assert!(
        text.contains("intensity    683 FLOP/B, ridge point 14.0 FLOP/B: compute-bound"),
        "{text}"
    );
    assert!(text.contains("waves        31.0"), "{text}");
    assert!(text.contains("next: kcamp peak --adapter NAME"), "{text}");
    assert!(
        text.contains("nvidia-h200-datasheet: NVIDIA H200 Tensor Core GPU datasheet"),
        "{text}"
    );
    assert!(text.contains("nvidia-hopper-whitepaper"), "{text}");
}

#[test]
fn util_json_carries_the_numbers_and_source_documents() {
    let out = kcamp().arg("--json").args(SGEMM).assert().success();
    let doc: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let u = &doc["utilization"];
    assert!((u["flops_utilization_pct"].as_f64().unwrap() - 20.513).abs() < 1e-3);
    assert_eq!(u["bound"], "compute");
    assert_eq!(u["peaks"]["flops"]["source"], "nvidia-h200-datasheet");
    assert!(
        doc["sources"]["nvidia-h200-datasheet"]["url"]
            .as_str()
            .unwrap()
            .starts_with("https://")
    );
}

#[test]
fn util_bad_expression_names_the_flag_and_exits_2() {
    let mut args = SGEMM;
    args[8] = "4*(M*K+";
    let out = kcamp().args(args).assert().code(2);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("--bytes-expr '4*(M*K+'"), "{err}");
}

#[test]
fn util_unknown_gpu_or_dtype_lists_what_exists() {
    let mut args = SGEMM;
    args[2] = "b9000";
    let err = String::from_utf8(
        kcamp()
            .args(args)
            .assert()
            .code(2)
            .get_output()
            .stderr
            .clone(),
    )
    .unwrap();
    assert!(
        err.contains("'b9000'") && err.contains("h200, h100"),
        "{err}"
    );
    let mut args = SGEMM;
    args[2] = "m2";
    args[4] = "f16-tensor";
    let err = String::from_utf8(
        kcamp()
            .args(args)
            .assert()
            .code(2)
            .get_output()
            .stderr
            .clone(),
    )
    .unwrap();
    assert!(
        err.contains("no peak for 'f16-tensor'") && err.contains("known: f32"),
        "{err}"
    );
}

#[test]
fn util_repeats_the_caveats_of_the_cited_values() {
    let mut args = SGEMM;
    args[2] = "mi300x";
    let out = kcamp().args(args).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("caution      peak_flops.f32 is not verified"),
        "{text}"
    );
    assert!(
        text.contains("note         peak_flops.f32: the data sheet's FP32 vector figure"),
        "{text}"
    );
}

#[test]
fn util_flags_a_utilization_above_the_spec_sheet_peak() {
    let args = [
        "util",
        "--gpu",
        "h200",
        "--dtype",
        "f32",
        "--flops-expr",
        "2*M*N*K",
        "--bytes-expr",
        "4*(M*K+K*N+M*N)",
        "--time-ms",
        "1",
        "--dims=M=4096,N=4096,K=4096",
    ];
    let out = kcamp().args(args).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    // 137 TFLOP/s of f32 is twice the data sheet's 67.
    assert!(
        text.contains("137 TFLOP/s = 205% (above the spec-sheet peak) of 67.0 TFLOP/s"),
        "{text}"
    );
    assert!(text.contains("201 GB/s = 4.19% of 4.80 TB/s"), "{text}");
}
