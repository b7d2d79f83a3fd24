//! DEFINE_TARGET + PREPARE_ENVIRONMENT: `kcamp init` writes the manifest, the op's baseline
//! kernel and the layout, after validating everything.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::layout::Campaign;
use super::starter::{HARNESS_DIR, HarnessStarter};
use crate::files::{KERNEL_DIR, MANIFEST_FILE, MEMORY_DIR, ROUNDS_DIR};
use crate::fsutil::write_atomic;
use crate::manifest::Manifest;
use crate::types::{Dtype, OpName, ShapeSpec};
use crate::{Error, Result};

#[derive(Debug, Clone)]
pub struct InitOptions {
    pub op: OpName,
    pub dtype: Dtype,
    /// YAML list or CSV (`label,B,M,N,K` / `label,N`) of target shapes.
    pub shapes: Option<PathBuf>,
    pub name: Option<String>,
    pub primary_metric: Option<String>,
    /// Start from this shipped kernel (`shaders/`) instead of the op's naive one.
    pub kernel: Option<String>,
    /// Write this harness and measure with it instead of the built-in runner.
    pub harness: Option<HarnessStarter>,
}

/// Create a campaign: manifest.yaml, the op's baseline kernel in `kernel/`, the layout.
/// Everything is validated before anything is written.
pub fn init(dir: &Path, opts: &InitOptions) -> Result<Campaign> {
    if std::fs::symlink_metadata(dir.join(MANIFEST_FILE)).is_ok() {
        return Err(Error::input(format!(
            "{} already holds a campaign (manifest.yaml exists)",
            dir.display()
        )));
    }
    if dir.exists() {
        if !dir.is_dir() {
            return Err(Error::input(format!(
                "{} exists and is not a directory",
                dir.display()
            )));
        }
        super::layout::check_closed_world(dir)?;
        // A starter never overwrites a harness of the user's.
        let harness_dir = dir.join(HARNESS_DIR);
        if opts.harness.is_some() && std::fs::symlink_metadata(&harness_dir).is_ok() {
            return Err(Error::input(format!(
                "{} already exists: --harness writes its files there, so init changes nothing",
                harness_dir.display()
            )));
        }
    }
    if let (Some(h), Some(k)) = (opts.harness, &opts.kernel) {
        return Err(Error::input(format!(
            "--kernel {k} is a WGSL kernel of the built-in runner and --harness {} measures kernel/kernel.py: give one of them",
            h.as_str()
        )));
    }
    let shapes = match &opts.shapes {
        Some(p) => read_shapes_file(p, opts.op)?,
        None => crate::ops::op(opts.op).default_shapes(),
    };
    let (source, mut spec) = match &opts.kernel {
        None => {
            let k = crate::ops::op(opts.op).baseline_kernel(opts.dtype);
            (k.source, k.kernel)
        }
        Some(name) => {
            let k = crate::kernels::ShippedKernel::find(name)?;
            if (k.op, k.dtype) != (opts.op, opts.dtype) {
                return Err(Error::input(format!(
                    "--kernel {name} is a {} {} kernel; this campaign is {} {} (--op, --dtype)",
                    k.op.as_str(),
                    k.dtype.as_str(),
                    opts.op.as_str(),
                    opts.dtype.as_str()
                )));
            }
            (k.source, k.settings()?)
        }
    };
    let starter = opts
        .harness
        .map(|h| h.files(opts.op, opts.dtype, &shapes))
        .transpose()?;
    // The working kernel is the campaign's, not the shipped one: name it after the op.
    spec.file = match (&starter, opts.dtype) {
        (Some(s), _) => s.kernel_file.to_owned(),
        (None, Dtype::F32) => format!("{}.wgsl", opts.op.as_str()),
        (None, Dtype::F16) => format!("{}_f16.wgsl", opts.op.as_str()),
    };
    let source = starter.as_ref().map_or(source, |s| s.kernel_source);
    let name = opts
        .name
        .clone()
        .or_else(|| dir.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| format!("{}-{}", opts.op.as_str(), opts.dtype.as_str()));
    let primary_metric = opts
        .primary_metric
        .clone()
        .unwrap_or_else(|| default_metric(opts.op).to_owned());
    let mut manifest = Manifest::with_defaults(
        name,
        opts.op,
        opts.dtype,
        primary_metric,
        shapes,
        spec.clone(),
    );
    if let Some(s) = &starter {
        manifest.quick_command = Some(s.quick_command.clone());
        manifest.full_command = Some(s.full_command.clone());
        manifest.harness_files = s.harness_files.clone();
    }
    let yaml = format!(
        "# kcamp campaign manifest (see docs/campaign-dir.md in the kcamp repository). representative_shapes is filled\n# by `kcamp baseline` unless you set it.\n{}{}",
        starter.as_ref().map_or("", |s| s.manifest_note),
        manifest.to_yaml()?
    );
    // Round-trip through the validator so `init` can never write a manifest `load` refuses.
    Manifest::parse(&yaml, &dir.join(MANIFEST_FILE))?;
    for sub in [KERNEL_DIR, ROUNDS_DIR, MEMORY_DIR] {
        crate::fsutil::create_dir_all(&dir.join(sub))?;
    }
    write_atomic(&dir.join(KERNEL_DIR).join(&spec.file), source.as_bytes())?;
    for (path, text) in starter.iter().flat_map(|s| &s.files) {
        let path = dir.join(path);
        if let Some(parent) = path.parent() {
            crate::fsutil::create_dir_all(parent)?;
        }
        write_atomic(&path, text.as_bytes())?;
    }
    // Per-process state stays out of the commits that `accept` makes.
    write_atomic(&dir.join(".gitignore"), b".kcamp.lock\nlive/\nruns/\n")?;
    // The manifest is written last: its presence is what makes the directory a campaign.
    write_atomic(&dir.join(MANIFEST_FILE), yaml.as_bytes())?;
    let campaign = Campaign::open(dir)?;
    let mut event = json!({"op": opts.op.as_str(), "dtype": opts.dtype.as_str(), "shapes": campaign.manifest.target_shapes.len()});
    if let Some(h) = opts.harness {
        event["harness"] = json!(h.as_str());
    }
    campaign.journal("init", None, event)?;
    Ok(campaign)
}

/// The primary metric of an op's campaign unless the user picks another.
fn default_metric(op: OpName) -> &'static str {
    crate::ops::op(op).primary_metrics()[0]
}

/// Shapes from a YAML list (`- {label: a, M: 1, N: 2, K: 3}`) or a CSV with a header
/// `label,<dims...>`.
fn read_shapes_file(path: &Path, op: OpName) -> Result<Vec<ShapeSpec>> {
    let text = crate::fsutil::read_input_text(path, crate::manifest::MAX_MANIFEST_BYTES)?;
    let is_csv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    // Where a field of the probe manifest below comes from in this file.
    let locate = |field: &str| -> Option<(u64, Option<String>)> {
        let path = field.strip_prefix("target_shapes")?;
        if is_csv {
            // `[i].K`: row i (after the header), column K.
            let (index, column) = path.strip_prefix('[')?.split_once(']')?;
            let line = index.parse::<u64>().ok()? + 2;
            let column = column.trim_start_matches('.');
            Some((line, (!column.is_empty()).then(|| column.to_owned())))
        } else {
            crate::manifest::yaml_position(&text, path)
                .map(|p| (p.line, Some(format!("column {}", p.column))))
        }
    };
    let shapes: Vec<ShapeSpec> = if is_csv {
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_reader(text.as_bytes());
        let headers = rdr
            .headers()
            .map_err(|e| Error::in_file(path, Some(1), None, format!("bad CSV header: {e}")))?
            .clone();
        if headers.get(0) != Some("label") {
            return Err(Error::in_file(
                path,
                Some(1),
                headers.get(0),
                "the first column must be 'label'",
            ));
        }
        for (i, name) in headers.iter().enumerate() {
            if let Some(first) = headers.iter().take(i).position(|n| n == name) {
                return Err(Error::in_file(
                    path,
                    Some(1),
                    Some(name),
                    format!(
                        "column {} '{}' repeats column {}",
                        i + 1,
                        crate::text::quote(name, crate::text::QUOTE_CHARS),
                        first + 1
                    ),
                ));
            }
        }
        let mut out = Vec::new();
        for (i, rec) in rdr.records().enumerate() {
            let line = i as u64 + 2;
            let rec = rec
                .map_err(|e| Error::in_file(path, Some(line), None, format!("bad CSV row: {e}")))?;
            let mut dims = std::collections::BTreeMap::new();
            for (col, cell) in headers.iter().zip(rec.iter()).skip(1) {
                let v: u64 = cell.trim().parse().map_err(|_| {
                    Error::in_file(
                        path,
                        Some(line),
                        Some(col),
                        format!(
                            "'{}' is not a positive integer",
                            crate::text::quote(cell, crate::text::QUOTE_CHARS)
                        ),
                    )
                })?;
                dims.insert(col.to_owned(), v);
            }
            out.push(ShapeSpec {
                label: rec.get(0).unwrap_or_default().to_owned(),
                dims,
            });
        }
        out
    } else {
        crate::manifest::parse_yaml(
            &text,
            path,
            "expected a list of shapes like `- {label: s1, M: 64, N: 64, K: 64}`",
        )?
    };
    // Validate through a throwaway manifest so shape rules live in one place.
    let probe = Manifest::with_defaults(
        "probe".into(),
        op,
        Dtype::F32,
        default_metric(op).into(),
        shapes.clone(),
        crate::ops::op(op).baseline_kernel(Dtype::F32).kernel,
    );
    probe.check_fields().map_err(|f| {
        let shape = f.field.replacen("target_shapes", "", 1);
        let at = locate(&f.field);
        let next = crate::manifest::fix_step(path, at.as_ref().map(|a| a.0), Some(&shape));
        let message = f.message;
        match at {
            // A CSV cell is named by its column, a YAML value by where it starts.
            Some((line, Some(column))) if is_csv => Error::in_file(
                path,
                Some(line),
                Some(&column),
                format!("shape '{shape}': {message}"),
            ),
            Some((line, Some(at))) => Error::in_file(
                path,
                Some(line),
                None,
                format!("shape '{shape}' at {at}: {message}"),
            ),
            Some((line, None)) => Error::in_file(
                path,
                Some(line),
                None,
                format!("shape '{shape}': {message}"),
            ),
            None => Error::in_file(path, None, None, format!("shape '{shape}': {message}")),
        }
        .with_next(vec![next])
    })?;
    Ok(shapes)
}

/// A fresh AXPY campaign in a temp directory, for unit tests of the steps.
#[cfg(test)]
pub(crate) fn temp_campaign() -> (tempfile::TempDir, super::Campaign) {
    let tmp = tempfile::tempdir().expect("a temp dir");
    let opts = InitOptions {
        op: crate::types::OpName::Axpy,
        dtype: crate::types::Dtype::F32,
        shapes: None,
        name: None,
        primary_metric: None,
        kernel: None,
        harness: None,
    };
    let c = init(&tmp.path().join("c"), &opts).expect("init");
    (tmp, c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn torch_opts(op: OpName) -> InitOptions {
        InitOptions {
            op,
            dtype: Dtype::F16,
            shapes: None,
            name: None,
            primary_metric: None,
            kernel: None,
            harness: Some(HarnessStarter::Torch),
        }
    }

    #[test]
    fn a_torch_campaign_is_measured_by_its_bench_py_on_kernel_py() {
        let tmp = tempfile::tempdir().unwrap();
        let c = init(&tmp.path().join("c"), &torch_opts(OpName::Gemm)).unwrap();
        let m = &c.manifest;
        assert_eq!(m.kernel.file, "kernel.py");
        assert!(c.dir.join("kernel/kernel.py").is_file());
        assert!(!c.dir.join("kernel/gemm_f16.wgsl").exists());
        let cmd = m.quick_command.as_deref().unwrap();
        assert!(cmd.starts_with("python3 harness/bench.py"), "{cmd}");
        assert_eq!(m.full_command.as_deref(), Some(cmd));
        // The harness's identity hashes both of its files, which init wrote.
        let id = crate::artifacts::fingerprint::HarnessIdentity::of_commands(m, &c.dir)
            .unwrap()
            .unwrap();
        let described = id.describe();
        assert!(
            described.contains("harness/bench.py sha256")
                && described.contains("harness/shapes.json sha256"),
            "{described}"
        );
    }

    #[test]
    fn a_torch_init_refuses_a_shipped_wgsl_kernel_and_writes_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("c");
        let mut opts = torch_opts(OpName::Gemm);
        opts.kernel = Some("gemm_sgemm_128x128_bk16".into());
        let e = init(&dir, &opts).unwrap_err();
        assert_eq!(e.exit_code(), crate::error::exit::BAD_INPUT);
        assert!(!dir.exists());
    }
}
