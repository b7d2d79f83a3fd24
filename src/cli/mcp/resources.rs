//! The resources of `kcamp mcp`: the campaign's files an agent reads between steps, each
//! under a `kcamp://` address. Nothing names a held-out shape before a decision: the
//! manifest's explicit `held_out` list is left out of it, and the staging of a held-out
//! check is never listed.

use std::path::{Component, Path, PathBuf};

use kcamp_core::files::{
    ARTIFACTS_DIR, DECISION_FILE, GATE_JSON, HELD_OUT_JSON, KERNEL_DIR, MANIFEST_FILE, MEMORY_DIR,
    SAMPLES_CSV,
};

/// One resource: its address, the file behind it, what it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub uri: String,
    pub path: PathBuf,
    pub name: String,
    pub description: String,
    pub mime: &'static str,
}

const FINAL_REPORT: &str = "report.md";
const BASELINE_REPORT: &str = "baseline_report.md";

/// Every resource the campaign at `dir` has now.
pub fn list(dir: &Path) -> Vec<Entry> {
    let mut out = Vec::new();
    let manifest = dir.join(MANIFEST_FILE);
    if manifest.is_file() {
        out.push(Entry {
            uri: "kcamp://manifest.yaml".into(),
            path: manifest,
            name: "manifest.yaml".into(),
            description: "the campaign: op, dtype, target shapes, representative shapes, gate settings (an explicit held_out list is left out)".into(),
            mime: "application/yaml",
        });
    }
    kernel_files(
        &dir.join(KERNEL_DIR),
        ("kcamp://kernel", "kernel"),
        "a file of the working kernel: edit it on disk between round_new and validate",
        &mut out,
    );
    // A campaign whose manifest or rounds cannot be read lists no rounds: the tools say why.
    let rounds: Vec<(u32, PathBuf)> = kcamp_core::campaign::Campaign::open_base(dir)
        .and_then(|c| {
            Ok(c.round_numbers()?
                .into_iter()
                .map(|n| (n, c.round_dir(n)))
                .collect())
        })
        .unwrap_or_default();
    for (n, round) in rounds {
        let items = [
            (
                "gate.json",
                round.join(ARTIFACTS_DIR).join(GATE_JSON),
                "the gate report of its latest validation: verdict, reasons, every shape",
            ),
            (
                "decision.json",
                round.join(DECISION_FILE),
                "its decision: accepted, rolled back or BASELINE, with the reason",
            ),
            (
                "record.json",
                dir.join(MEMORY_DIR)
                    .join(format!("v{}.json", n.saturating_sub(1))),
                "its iteration record (memory): what was tried, measured and learned",
            ),
            // Written once the round is decided: no held-out shape is named before.
            (
                HELD_OUT_JSON,
                round.join(HELD_OUT_JSON),
                "the held-out check made when it was decided: each shape with its check",
            ),
            (
                SAMPLES_CSV,
                round.join(ARTIFACTS_DIR).join(SAMPLES_CSV),
                "every timed sample of its latest validation, each side and repeat",
            ),
        ];
        for (what, path, description) in items {
            if n >= 1 && path.is_file() {
                out.push(Entry {
                    uri: format!("kcamp://rounds/{n}/{what}"),
                    path,
                    name: format!("round {n} {what}"),
                    description: format!("round {n}: {description}"),
                    mime: mime_of(what),
                });
            }
        }
        kernel_files(
            &round.join(KERNEL_DIR),
            (
                &format!("kcamp://rounds/{n}/kernel"),
                &format!("round {n} kernel"),
            ),
            &format!(
                "a file of round {n}'s kernel snapshot, as it was measured (the `diff` tool compares two)"
            ),
            &mut out,
        );
    }
    for (name, description) in [
        (
            BASELINE_REPORT,
            "the BASELINE: every shape against the roofline",
        ),
        (
            FINAL_REPORT,
            "the final report: the incumbent against the BASELINE",
        ),
    ] {
        let path = dir.join(name);
        if path.is_file() {
            out.push(Entry {
                uri: format!("kcamp://{name}"),
                path,
                name: name.into(),
                description: description.into(),
                mime: "text/markdown",
            });
        }
    }
    out
}

/// An entry for each file of the kernel folder `root`, addressed `{uri}/FILE` and named
/// `{name}/FILE`.
fn kernel_files(root: &Path, (uri, name): (&str, &str), description: &str, out: &mut Vec<Entry>) {
    let mut files = Vec::new();
    collect(root, root, &mut files);
    files.sort();
    for rel in files {
        let rel_text = rel.to_string_lossy().replace('\\', "/");
        out.push(Entry {
            uri: format!("{uri}/{rel_text}"),
            path: root.join(&rel),
            name: format!("{name}/{rel_text}"),
            description: description.to_owned(),
            mime: mime_of(&rel_text),
        });
    }
}

/// The address templates of [`list`]'s entries (RFC 6570), each with what it names.
pub fn templates() -> [(&'static str, &'static str, &'static str, &'static str); 7] {
    [
        (
            "kcamp://kernel/{path}",
            "working kernel file",
            "a file of the working kernel (kernel/), the one to edit",
            "text/plain",
        ),
        (
            "kcamp://rounds/{n}/kernel/{path}",
            "round snapshot file",
            "a file of round n's kernel snapshot, as it was measured",
            "text/plain",
        ),
        (
            "kcamp://rounds/{n}/gate.json",
            "round gate report",
            "the gate report of round n's latest validation",
            "application/json",
        ),
        (
            "kcamp://rounds/{n}/decision.json",
            "round decision",
            "round n's decision, with its cause and reason",
            "application/json",
        ),
        (
            "kcamp://rounds/{n}/held_out.json",
            "round held-out check",
            "the held-out check made when round n was decided",
            "application/json",
        ),
        (
            "kcamp://rounds/{n}/samples.csv",
            "round samples",
            "every timed sample of round n's latest validation",
            "text/csv",
        ),
        (
            "kcamp://rounds/{n}/record.json",
            "round iteration record",
            "round n's iteration record (memory)",
            "application/json",
        ),
    ]
}

/// The text of the resource at `uri`, or why there is none.
pub fn read(dir: &Path, uri: &str) -> Result<(String, &'static str), String> {
    let entry = resolve(dir, uri)?;
    let text =
        kcamp_core::fsutil::read_input_text(&entry.path, kcamp_core::fsutil::MAX_INPUT_BYTES)
            .map_err(|e| e.to_string())?;
    if entry.uri == "kcamp://manifest.yaml" {
        return Ok((without_held_out(&text), entry.mime));
    }
    Ok((text, entry.mime))
}

/// The entry of `uri`: only an address [`list`] gives out (a kernel file is named by its
/// path inside `kernel/`, which must stay inside it).
fn resolve(dir: &Path, uri: &str) -> Result<Entry, String> {
    let unknown = || {
        format!(
            "no resource {uri}: kcamp://manifest.yaml, kcamp://kernel/FILE, kcamp://rounds/N/kernel/FILE, kcamp://rounds/N/gate.json|decision.json|record.json|held_out.json|samples.csv, kcamp://report.md, kcamp://baseline_report.md (resources/list names those that exist)"
        )
    };
    let rest = uri.strip_prefix("kcamp://").ok_or_else(unknown)?;
    let in_kernel = rest.strip_prefix("kernel/").or_else(|| {
        let (_, file) = rest.strip_prefix("rounds/")?.split_once('/')?;
        file.strip_prefix("kernel/")
    });
    if let Some(rel) = in_kernel {
        let safe = !rel.is_empty()
            && Path::new(rel)
                .components()
                .all(|c| matches!(c, Component::Normal(_)));
        if !safe {
            return Err(unknown());
        }
    }
    list(dir)
        .into_iter()
        .find(|e| e.uri == uri)
        .ok_or_else(unknown)
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(ft) = entry.file_type() else { continue };
        let p = entry.path();
        if ft.is_dir() {
            collect(root, &p, out);
        } else if ft.is_file()
            && let Ok(rel) = p.strip_prefix(root)
        {
            out.push(rel.to_path_buf());
        }
    }
}

fn mime_of(name: &str) -> &'static str {
    match name.rsplit_once('.').map(|(_, e)| e) {
        Some("yaml" | "yml") => "application/yaml",
        Some("py") => "text/x-python",
        Some("json") => "application/json",
        Some("csv") => "text/csv",
        _ => "text/plain",
    }
}

/// The manifest without its `held_out:` block when that block lists shapes: an agent is
/// not shown the shapes it will be checked on. `auto` and `none` name no shape and stay.
pub fn without_held_out(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let Some(start) = lines.iter().position(|l| l.starts_with("held_out:")) else {
        return text.to_owned();
    };
    let value = lines[start]["held_out:".len()..]
        .split('#')
        .next()
        .unwrap_or("")
        .trim();
    if value == "auto" || value == "none" {
        return text.to_owned();
    }
    // The block: the key's line, then every line indented, a list item or a comment, up
    // to the next top-level key.
    let end = lines[start + 1..]
        .iter()
        .position(|l| {
            !(l.trim().is_empty()
                || l.starts_with(' ')
                || l.starts_with('\t')
                || l.starts_with('-')
                || l.starts_with('#'))
        })
        .map_or(lines.len(), |i| start + 1 + i);
    let mut out: Vec<String> = lines[..start].iter().map(|l| (*l).to_owned()).collect();
    out.push(
        "held_out: hidden  # the manifest lists held-out shapes; kcamp mcp does not show them before a decision"
            .to_owned(),
    );
    out.extend(lines[end..].iter().map(|l| (*l).to_owned()));
    let mut joined = out.join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_explicit_held_out_list_is_left_out_of_the_manifest() {
        let m = "name: c\nheld_out:\n- {label: h1, M: 48, N: 40, K: 24}\n  # note\n- {label: h2, M: 8, N: 8, K: 8}\n\ngate:\n  paired: true\n";
        let shown = without_held_out(m);
        assert!(!shown.contains("h1") && !shown.contains("48"), "{shown}");
        assert!(shown.contains("held_out: hidden"), "{shown}");
        assert!(shown.starts_with("name: c\n") && shown.ends_with("gate:\n  paired: true\n"));
        let nested = "held_out:\n  - {label: h1, M: 48, N: 40, K: 24}\nname: c\n";
        assert_eq!(
            without_held_out(nested).lines().nth(1),
            Some("name: c"),
            "{}",
            without_held_out(nested)
        );
        for kept in [
            "held_out: auto\nname: c\n",
            "name: c\nheld_out: none # off\n",
            "name: c\n",
        ] {
            assert_eq!(without_held_out(kept), kept);
        }
    }

    #[test]
    fn only_listed_addresses_resolve() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        std::fs::create_dir_all(dir.join("kernel")).unwrap();
        std::fs::write(dir.join("kernel/k.wgsl"), "fn f() {}\n").unwrap();
        std::fs::write(dir.join("secret"), "x").unwrap();
        std::fs::write(dir.join(MANIFEST_FILE), "name: c\n").unwrap();
        assert_eq!(read(dir, "kcamp://kernel/k.wgsl").unwrap().0, "fn f() {}\n");
        assert_eq!(read(dir, "kcamp://manifest.yaml").unwrap().0, "name: c\n");
        for bad in [
            "kcamp://kernel/../secret",
            "kcamp://kernel/",
            "kcamp://rounds/1/gate.json",
            "file:///etc/passwd",
        ] {
            let e = read(dir, bad).unwrap_err();
            assert!(e.starts_with(&format!("no resource {bad}")), "{e}");
        }
    }
}
