//! The representative shapes (`representative_shapes` in manifest.yaml), which a quick
//! validation measures: chosen at BASELINE among the shapes that PASS, then written into
//! the manifest with only that field edited.

use std::path::Path;

use super::layout::Campaign;
use crate::Result;
use crate::files::MANIFEST_FILE;
use crate::manifest::Manifest;
use crate::schema::BenchTable;
use crate::types::Check;

/// 3–5 shapes that PASS at baseline, spanning small (launch overhead) to large
/// (compute/memory), preferring high variance in between. The user's choice is kept when
/// all of it passed.
pub(super) fn choose_representatives(
    c: &Campaign,
    table: &BenchTable,
    warnings: &mut Vec<String>,
) -> Vec<String> {
    let passing = |label: &str| {
        table
            .rows
            .iter()
            .any(|r| r.label == label && r.check == Check::Pass)
    };
    if !c.manifest.representative_shapes.is_empty() {
        let (kept, dropped): (Vec<String>, Vec<String>) = c
            .manifest
            .representative_shapes
            .iter()
            .cloned()
            .partition(|l| passing(l));
        for d in &dropped {
            warnings.push(format!(
                "representative shape '{d}' did not PASS at baseline and was dropped"
            ));
        }
        if !kept.is_empty() {
            return kept;
        }
    }
    let metric = &c.manifest.primary_metric;
    let mut rows: Vec<(&str, f64, f64)> = table
        .rows
        .iter()
        .filter(|r| r.check == Check::Pass)
        .map(|r| {
            let work: f64 = r.dims.iter().map(|d| *d as f64).product();
            let cv = match (
                r.metric(&table.schema, metric),
                r.stddev(&table.schema, metric),
            ) {
                (Some(m), Some(s)) if m > 0.0 => s / m,
                _ => 0.0,
            };
            (r.label.as_str(), work, cv)
        })
        .collect();
    rows.sort_by(|a, b| a.1.total_cmp(&b.1).then_with(|| a.0.cmp(b.0)));
    if rows.len() <= 3 {
        return rows.iter().map(|r| r.0.to_owned()).collect();
    }
    // 3–5 shapes: about half of the set, so a quick validation stays quick.
    let want = rows.len().div_ceil(2).clamp(3, 5);
    let mut chosen: Vec<&str> = vec![rows[0].0, rows[rows.len() - 1].0];
    let mut middle: Vec<&(&str, f64, f64)> = rows[1..rows.len() - 1].iter().collect();
    middle.sort_by(|a, b| b.2.total_cmp(&a.2).then_with(|| a.0.cmp(b.0)));
    chosen.extend(middle.iter().take(want - 2).map(|r| r.0));
    // Keep the manifest's order (by size) for readability.
    rows.iter()
        .filter(|r| chosen.contains(&r.0))
        .map(|r| r.0.to_owned())
        .collect()
}

/// manifest.yaml with `representative_shapes` set to `labels`, editing only that field so
/// the user's comments and layout survive. Where the line edit cannot be proven right (the
/// result must load and equal the manifest with only that field changed) the whole
/// manifest is written out again instead, without its comments.
pub(super) fn representative_manifest(dir: &Path, labels: &[String]) -> Result<String> {
    let path = dir.join(MANIFEST_FILE);
    let text = crate::fsutil::read_input_text(&path, crate::manifest::MAX_MANIFEST_BYTES)?;
    let mut expected = Manifest::parse(&text, &path)?;
    expected.representative_shapes = labels.to_vec();
    let edited = edit_representative_line(&text, labels);
    if Manifest::parse(&edited, &path).is_ok_and(|m| m == expected) {
        return Ok(edited);
    }
    let regenerated = format!(
        "# kcamp campaign manifest (rewritten by `kcamp baseline` to record representative_shapes)\n{}",
        expected.to_yaml()?
    );
    // Never write a manifest that does not load.
    Manifest::parse(&regenerated, &path)?;
    Ok(regenerated)
}

fn edit_representative_line(text: &str, labels: &[String]) -> String {
    let value = format!(
        "representative_shapes: [{}]",
        labels
            .iter()
            .map(|l| format!("'{}'", l.replace('\'', "''")))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len() + 1);
    let mut replaced = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        if replaced || !line.starts_with("representative_shapes:") {
            out.push(line.to_owned());
            continue;
        }
        out.push(value.clone());
        replaced = true;
        // Drop the block list that followed the key, with comments and blank lines inside
        // it; those after its last item belong to what follows.
        let mut last_item = None;
        let mut j = i;
        while j < lines.len() {
            let l = lines[j];
            let t = l.trim_start();
            if l.starts_with("- ")
                || l == "-"
                || (l.starts_with([' ', '\t']) && !t.is_empty() && !t.starts_with('#'))
            {
                last_item = Some(j);
            } else if !(t.is_empty() || t.starts_with('#')) {
                break;
            }
            j += 1;
        }
        if let Some(last) = last_item {
            i = last + 1;
        }
    }
    if !replaced {
        out.push(value);
    }
    let mut new_text = out.join("\n");
    new_text.push('\n');
    new_text
}
