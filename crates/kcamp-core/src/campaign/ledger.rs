//! The ledger of what was tried: every decided round keeps a normalised hash of its kernel
//! snapshot (its `kernel_key`: comments and whitespace ignored, so a re-indented or
//! re-commented kernel is the same kernel), and a working kernel that equals the snapshot
//! of a rolled-back round is named with that round's verdict and reason, so that whoever
//! drives the campaign, a person or an agent, does not walk in circles.

use std::path::Path;

use serde::Serialize;

use super::layout::Campaign;
use super::outcome::{RoundOutcome, delta_text};
use super::{CampaignState, Decision, DecisionCause, RoundState};
use crate::Result;
use crate::error::IoContext;
use crate::files::KERNEL_DIR;
use crate::gate::Verdict;
use crate::types::DecisionKind;

/// A rolled-back round: the direction it tried and why it was given up.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tried {
    pub round: u32,
    pub hypothesis: String,
    /// The verdict it was decided on.
    pub verdict: Option<Verdict>,
    /// The gate's aggregate Δ against `parent` (fraction); none where a shape failed.
    pub delta: Option<f64>,
    pub parent: Option<u32>,
    /// Its shapes (timed or only checked) that did not PASS, as the log lists them
    /// (`s64 FAIL`, `s32 FAIL (untimed)`).
    pub failed: Vec<String>,
    /// Why it was rolled back, as data: the gate's verdict, the held-out check, an
    /// overturned confirmation, or its owner.
    pub cause: Option<DecisionCause>,
    /// Why it was rolled back, in its owner's (or the check's) words.
    pub reason: Option<String>,
    /// The normalised hash of its kernel snapshot (none without a snapshot: a round rolled
    /// back before it was validated measured nothing).
    pub kernel_key: Option<String>,
    /// `round 7: REJECT -8.00% vs r1, reason: slower on the large shapes`.
    pub line: String,
}

impl Tried {
    fn new(n: u32, hypothesis: &str, decision: &Decision, outcome: &RoundOutcome) -> Tried {
        let failed = outcome.failures.len();
        let delta = if failed > 0 { None } else { outcome.delta };
        let verdict = decision.verdict.or(outcome.verdict);
        // `REJECT -8.00% vs r1`; `REJECT, FAIL (1 shape)` where a shape failed.
        let mut line = format!(
            "round {n}: {}{}{}",
            verdict.map_or("not validated", Verdict::as_str),
            if failed > 0 { ", " } else { " " },
            delta_text(failed, delta, outcome.parent)
        );
        if let Some(reason) = &decision.reason {
            line.push_str(&format!(", reason: {reason}"));
        }
        Tried {
            round: n,
            hypothesis: hypothesis.to_owned(),
            verdict,
            delta,
            parent: outcome.parent,
            failed: outcome.failed_labels(),
            cause: DecisionCause::of(decision),
            reason: decision.reason.clone(),
            kernel_key: decision.kernel_key.clone(),
            line,
        }
    }
}

/// The rolled-back rounds of a campaign as read by [`CampaignState::load`], oldest first.
pub fn rolled_back(state: &CampaignState) -> Vec<Tried> {
    state
        .rounds
        .iter()
        .filter_map(|r| {
            let mut tried = rolled_back_round(r)?;
            tried.kernel_key = r.decision.as_ref().and_then(|d| key_of(&r.dir, d));
            Some(tried)
        })
        .collect()
}

/// A round as [`rolled_back`] lists it when it was rolled back, with the key its decision
/// keeps: no file is read (a decision written before keys were kept has none; a reader
/// that cannot wait on the disk, the dashboard, fills it from [`snapshot_key`] beforehand).
pub fn rolled_back_round(round: &RoundState) -> Option<Tried> {
    let d = round.decision.as_ref()?;
    (d.decision == DecisionKind::RolledBack)
        .then(|| Tried::new(round.number, &round.hypothesis, d, &round.outcome()))
}

/// The rolled-back rounds of `state` whose snapshot equals its working `kernel/` (none when
/// that cannot be read), for a line a view shows beside the open round.
pub fn working_tried(state: &CampaignState, rolled_back: &[Tried]) -> Vec<Tried> {
    let Ok(key) = kernel_key(&state.dir.join(KERNEL_DIR)) else {
        return Vec::new();
    };
    let incumbent = state
        .incumbent
        .and_then(|n| state.rounds.iter().find(|r| r.number == n))
        .and_then(|r| key_of(&r.dir, r.decision.as_ref()?));
    if incumbent.as_deref() == Some(key.as_str()) {
        return Vec::new();
    }
    rolled_back
        .iter()
        .filter(|t| t.kernel_key.as_deref() == Some(key.as_str()))
        .cloned()
        .collect()
}

/// The rolled-back rounds whose kernel snapshot equals the kernel in `dir` (normalised),
/// oldest first. Only the matching rounds' records are read beyond their decisions.
///
/// A kernel that is the incumbent's own (kernel/ right after a round is opened, or a round
/// that re-measured the incumbent unchanged and was rolled back) names none: it is where
/// every round starts, not a direction tried.
pub fn tried_before(c: &Campaign, dir: &Path) -> Result<Vec<Tried>> {
    let key = kernel_key(dir)?;
    let decisions = c.decisions()?;
    let incumbent = super::layout::incumbent_of(decisions.iter().map(|(n, d)| (*n, d.as_ref())))
        .and_then(|n| {
            let (_, d) = decisions.iter().find(|(m, _)| *m == n)?;
            key_of(&c.round_dir(n), d.as_ref()?)
        });
    if incumbent.as_deref() == Some(key.as_str()) {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for (n, decision) in decisions {
        let Some(d) = decision.filter(|d| d.decision == DecisionKind::RolledBack) else {
            continue;
        };
        if key_of(&c.round_dir(n), &d).as_deref() != Some(key.as_str()) {
            continue;
        }
        // A record that does not read still names the round: the decision says enough.
        let outcome = RoundOutcome::read(c, n).unwrap_or_else(|_| RoundOutcome {
            verdict: d.verdict,
            validation: d.validation,
            delta: d.aggregate_delta,
            parent: d.parent,
            failures: Vec::new(),
        });
        let mut tried = Tried::new(n, &c.hypothesis(n).unwrap_or_default(), &d, &outcome);
        tried.kernel_key = Some(key.clone());
        out.push(tried);
    }
    Ok(out)
}

/// The lines that say a kernel was tried before: `kernel/ equals the snapshot of a
/// rolled-back round: tried in round 7: REJECT …`, one a round.
pub fn tried_lines(what: &str, tried: &[Tried]) -> Vec<String> {
    tried
        .iter()
        .map(|t| {
            format!(
                "{what} equals the snapshot of a rolled-back round (comments and whitespace aside): tried in {}",
                t.line
            )
        })
        .collect()
}

/// A decided round's key: the one its decision keeps, else (a decision written before keys
/// were kept) its snapshot's, when it has one.
fn key_of(round_dir: &Path, d: &Decision) -> Option<String> {
    d.kernel_key
        .clone()
        .or_else(|| snapshot_key(round_dir).ok().flatten())
}

/// The key of a round's kernel snapshot, None when the round has none.
pub fn snapshot_key(round_dir: &Path) -> Result<Option<String>> {
    let snapshot = round_dir.join(KERNEL_DIR);
    if !snapshot.is_dir() {
        return Ok(None);
    }
    kernel_key(&snapshot).map(Some)
}

/// The normalised hash of a kernel directory: every file's relative path and its text with
/// comments removed and whitespace reduced to what separates two words ([`normalize`]);
/// a file that is not UTF-8 counts byte for byte.
pub fn kernel_key(dir: &Path) -> Result<String> {
    use sha2::{Digest, Sha256};
    let mut files = Vec::new();
    collect(dir, dir, &mut files)?;
    files.sort();
    let mut h = Sha256::new();
    for rel in files {
        let path = dir.join(&rel);
        let bytes = std::fs::read(&path).ctx(|| format!("reading {}", path.display()))?;
        let name = rel.to_string_lossy();
        let content = match std::str::from_utf8(&bytes) {
            Ok(text) => normalize(&name, text).into_bytes(),
            Err(_) => bytes,
        };
        h.update(name.as_bytes());
        h.update([0]);
        h.update((content.len() as u64).to_le_bytes());
        h.update(&content);
    }
    Ok(format!("{:x}", h.finalize()))
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<std::path::PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir).ctx(|| format!("listing {}", dir.display()))? {
        let entry = entry.ctx(|| format!("listing {}", dir.display()))?;
        let p = entry.path();
        let ft = entry
            .file_type()
            .ctx(|| format!("reading {}", p.display()))?;
        if ft.is_dir() {
            collect(root, &p, out)?;
        } else if ft.is_file() {
            out.push(p.strip_prefix(root).unwrap_or(&p).to_path_buf());
        }
    }
    Ok(())
}

/// How a file's comments are written, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Comments {
    /// `// …` and `/* … */` (nested, as WGSL allows); `"…"` strings kept whole.
    Slashes,
    /// `# …`; `'…'`, `"…"` and their triple-quoted forms kept whole.
    Hash,
    /// Unknown: only whitespace is normalised.
    None,
}

fn comments_of(name: &str) -> Comments {
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    match ext.to_ascii_lowercase().as_str() {
        "wgsl" | "glsl" | "hlsl" | "metal" | "comp" | "c" | "h" | "cc" | "cpp" | "hpp" | "cu"
        | "cuh" | "rs" | "js" | "ts" | "slang" => Comments::Slashes,
        "py" | "yaml" | "yml" | "toml" | "sh" | "cfg" | "ini" | "txt" => Comments::Hash,
        _ => Comments::None,
    }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `text` without its comments, with every run of whitespace removed except one space
/// between two word characters (`let  x` and `let x` stay apart from `letx`; `a + b` is
/// `a+b`). String literals are kept as written.
pub fn normalize(file_name: &str, text: &str) -> String {
    let style = comments_of(file_name);
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    // Whitespace (or a comment) seen since the last character written.
    let mut gap = false;
    let mut i = 0;
    let push = |out: &mut String, gap: &mut bool, c: char| {
        if *gap && out.chars().last().is_some_and(is_word) && is_word(c) {
            out.push(' ');
        }
        *gap = false;
        out.push(c);
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c.is_whitespace() {
            gap = true;
            i += 1;
            continue;
        }
        match style {
            Comments::Slashes if c == '/' && next == Some('/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                gap = true;
                continue;
            }
            Comments::Slashes if c == '/' && next == Some('*') => {
                let mut depth = 0usize;
                while i < chars.len() {
                    if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                        depth += 1;
                        i += 2;
                    } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                gap = true;
                continue;
            }
            Comments::Hash if c == '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                gap = true;
                continue;
            }
            Comments::Slashes | Comments::Hash
                if c == '"' || (style == Comments::Hash && c == '\'') =>
            {
                let triple =
                    style == Comments::Hash && next == Some(c) && chars.get(i + 2) == Some(&c);
                let quote_len = if triple { 3 } else { 1 };
                for _ in 0..quote_len {
                    push(&mut out, &mut gap, c);
                }
                i += quote_len;
                while i < chars.len() {
                    let ch = chars[i];
                    if ch == '\\' {
                        out.push(ch);
                        if let Some(&escaped) = chars.get(i + 1) {
                            out.push(escaped);
                        }
                        i += 2;
                        continue;
                    }
                    if !triple && ch == '\n' {
                        // An unterminated string ends with its line.
                        break;
                    }
                    let closes = if triple {
                        ch == c && chars.get(i + 1) == Some(&c) && chars.get(i + 2) == Some(&c)
                    } else {
                        ch == c
                    };
                    if closes {
                        for _ in 0..quote_len {
                            out.push(c);
                        }
                        i += quote_len;
                        break;
                    }
                    out.push(ch);
                    i += 1;
                }
                continue;
            }
            _ => {}
        }
        push(&mut out, &mut gap, c);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_whitespace_do_not_change_a_wgsl_kernel() {
        let a = "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) {\n    let i = id.x;\n    c[i] = a[i] + b[i];\n}\n";
        let b = "// the naive kernel\n@compute   @workgroup_size( 64 )\nfn main(@builtin(global_invocation_id) id : vec3<u32>)\n{\n\tlet i = id.x; /* one a thread /* nested */ */\n  c[i] = a[i]+b[i]; // sum\n}";
        assert_eq!(normalize("k.wgsl", a), normalize("k.wgsl", b));
        // Words stay apart: `let i` is not `leti`.
        assert!(
            normalize("k.wgsl", a).contains("let i=id.x;"),
            "{}",
            normalize("k.wgsl", a)
        );
        // A real change is a different kernel.
        let c = a.replace("a[i] + b[i]", "a[i] * b[i]");
        assert_ne!(normalize("k.wgsl", a), normalize("k.wgsl", &c));
        let d = a.replace("workgroup_size(64)", "workgroup_size(128)");
        assert_ne!(normalize("k.wgsl", a), normalize("k.wgsl", &d));
    }

    #[test]
    fn python_and_yaml_lose_hash_comments_but_not_strings() {
        let a = "def k(x):\n    return x * 2  # double\n";
        let b = "# kernel\ndef k( x ):\n        return x*2\n";
        assert_eq!(normalize("kernel.py", a), normalize("kernel.py", b));
        let s1 = "name = 'a # b'\n";
        let s2 = "name = 'a # c'\n";
        assert_ne!(normalize("kernel.py", s1), normalize("kernel.py", s2));
        let doc = "def f():\n    \"\"\"two  spaces # kept\"\"\"\n";
        assert!(normalize("kernel.py", doc).contains("\"\"\"two  spaces # kept\"\"\""));
        let y1 = "file: gemm.wgsl # the kernel\nworkgroups: {x: 'ceil(N/64)'}\n";
        let y2 = "file:   gemm.wgsl\n\nworkgroups: {x: 'ceil(N/64)'}";
        assert_eq!(normalize("kernel.yaml", y1), normalize("kernel.yaml", y2));
        // `//` in a file of unknown kind is not a comment.
        assert_ne!(normalize("notes", "a // b"), normalize("notes", "a // c"));
    }

    #[test]
    fn a_kernel_key_covers_file_names_and_ignores_comments() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        std::fs::write(a.join("k.wgsl"), "fn f() { let x = 1; }\n").unwrap();
        std::fs::write(b.join("k.wgsl"), "// same\nfn f() {\n  let x = 1;\n}\n").unwrap();
        assert_eq!(kernel_key(&a).unwrap(), kernel_key(&b).unwrap());
        std::fs::write(b.join("k.yaml"), "x: 1\n").unwrap();
        assert_ne!(kernel_key(&a).unwrap(), kernel_key(&b).unwrap());
        std::fs::remove_file(b.join("k.yaml")).unwrap();
        std::fs::rename(b.join("k.wgsl"), b.join("j.wgsl")).unwrap();
        assert_ne!(kernel_key(&a).unwrap(), kernel_key(&b).unwrap());
    }
}
