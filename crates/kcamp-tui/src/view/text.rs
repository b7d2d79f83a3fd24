//! Text that fits: cut with an ellipsis (never silently), wrapped by words with its styles
//! kept. Every width is in terminal cells, and text is cut and measured by grapheme cluster,
//! never inside one: a combining accent stays on its letter, a joined emoji stays whole.

use std::borrow::Cow;

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

pub const ELLIPSIS: char = '…';

pub fn width(s: &str) -> usize {
    s.graphemes(true).map(cluster_width).sum()
}

/// The widest of `texts`, in cells (0 for none).
pub fn max_width<'a>(texts: impl IntoIterator<Item = &'a String>) -> usize {
    texts.into_iter().map(|t| width(t)).max().unwrap_or(0)
}

/// `text` as the screen can show it. Control characters would be dropped by the renderer
/// (`tab\there` read as `tabhere`) or acted on by the terminal, and bidi controls reorder
/// what is around them: each is written visibly instead, a C0 control or DEL as its control
/// picture (TAB `␉`, LF `␊`, ESC `␛`), the others as an escape (`\u{202e}`). Joiners and
/// combining marks are kept: they belong to the cluster they are in.
pub fn printable(text: &str) -> Cow<'_, str> {
    let shown_as_is = |c: char| !c.is_control() && !is_bidi_control(c);
    if text.chars().all(shown_as_is) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if shown_as_is(c) => out.push(c),
            '\0'..='\u{1f}' => out.extend(char::from_u32(0x2400 + c as u32)),
            '\u{7f}' => out.push('␡'),
            c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    Cow::Owned(out)
}

fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
    )
}

/// `s` cut into pieces of at most `first` cells, then `rest` cells each (every piece at
/// least one cluster, so a character wider than the room still moves on).
pub fn chunks(s: &str, first: usize, rest: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut clusters = s.graphemes(true).peekable();
    let mut room = first.max(1);
    while clusters.peek().is_some() {
        let mut piece = String::new();
        let mut used = 0;
        while let Some(&c) = clusters.peek() {
            let w = cluster_width(c);
            if used + w > room && !piece.is_empty() {
                break;
            }
            piece.push_str(c);
            used += w;
            clusters.next();
        }
        out.push(piece);
        room = rest.max(1);
    }
    out
}

/// The longest run of `clusters` that fits in `max` cells.
fn take_cells<'a>(clusters: impl Iterator<Item = &'a str>, max: usize) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut used = 0;
    for c in clusters {
        let w = cluster_width(c);
        if used + w > max {
            break;
        }
        out.push(c);
        used += w;
    }
    out
}

fn cluster_width(c: &str) -> usize {
    c.width()
}

/// `s` in at most `max` cells, cut at the end with `…`.
pub fn fit_end(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_owned();
    }
    if max == 0 {
        return String::new();
    }
    let mut out: String = take_cells(s.graphemes(true), max - 1).concat();
    out.push(ELLIPSIS);
    out
}

/// `s` in at most `max` cells, cut in the middle with `…`: labels differ at their ends
/// (`b1_m128_n512_k2048` and `…_k204` must not look alike).
pub fn fit_middle(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_owned();
    }
    if max <= 2 {
        return fit_end(s, max);
    }
    let keep = max - 1;
    let tail_cells = keep / 2;
    let mut head: String = take_cells(s.graphemes(true), keep - tail_cells).concat();
    let tail = take_cells(s.graphemes(true).rev(), tail_cells);
    head.push(ELLIPSIS);
    head.extend(tail.into_iter().rev());
    head
}

/// The clusters every one of `texts` starts with and ends with (prefix, suffix), never
/// overlapping in the shortest; (0, 0) for fewer than two texts.
pub fn common_ends<'a>(texts: &[&'a str]) -> (usize, usize) {
    if texts.len() < 2 {
        return (0, 0);
    }
    let clusters: Vec<Vec<&'a str>> = texts.iter().map(|t| t.graphemes(true).collect()).collect();
    let shortest = clusters.iter().map(Vec::len).min().unwrap_or(0);
    let first = &clusters[0];
    let prefix = (0..shortest)
        .take_while(|&i| clusters.iter().all(|c| c[i] == first[i]))
        .count();
    let suffix = (0..shortest - prefix)
        .take_while(|&i| {
            let at = |c: &[&'a str]| c[c.len() - 1 - i];
            clusters.iter().all(|c| at(c) == at(first))
        })
        .count();
    (prefix, suffix)
}

/// `s` in at most `max` cells, keeping what tells it from the texts it shares
/// `ends` with ([`common_ends`]): the shared start and end go first, each marked `…`,
/// and what is left of the start comes back when there is room; the part that differs is
/// cut in the middle only when it does not fit alone.
pub fn fit_differing(s: &str, max: usize, (prefix, suffix): (usize, usize)) -> String {
    if width(s) <= max || prefix + suffix == 0 {
        return fit_middle(s, max);
    }
    let clusters: Vec<&str> = s.graphemes(true).collect();
    if prefix + suffix >= clusters.len() {
        return fit_middle(s, max);
    }
    let middle: String = clusters[prefix..clusters.len() - suffix].concat();
    let marks = usize::from(prefix > 0) + usize::from(suffix > 0);
    let core = width(&middle) + marks;
    if core > max {
        let cut = fit_middle(&middle, max.saturating_sub(marks).max(1));
        let mut out = String::new();
        if prefix > 0 {
            out.push(ELLIPSIS);
        }
        out.push_str(&cut);
        if suffix > 0 {
            out.push(ELLIPSIS);
        }
        return fit_end(&out, max);
    }
    // Room left: the start of the shared prefix back (it names the family), all of it
    // (and no mark) when it fits.
    let spare = max - core;
    let head = &clusters[..prefix];
    let mut out: String = if spare >= width(&head.concat()) {
        head.concat()
    } else {
        let mut head: String = take_cells(head.iter().copied(), spare).concat();
        head.push(ELLIPSIS);
        head
    };
    out.push_str(&middle);
    if suffix > 0 {
        out.push(ELLIPSIS);
    }
    out
}

/// The last cells of `s` that fit in `max`, starting with `…` when cut: the end of a text
/// being typed stays in sight.
pub fn fit_start(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_owned();
    }
    if max == 0 {
        return String::new();
    }
    let tail = take_cells(s.graphemes(true).rev(), max - 1);
    let mut out = String::from(ELLIPSIS);
    out.extend(tail.into_iter().rev());
    out
}

/// A styled line cut to `max` cells with `…` (in the style of the cut span).
pub fn fit_line(line: Line<'static>, max: usize) -> Line<'static> {
    if line.width() <= max {
        return line;
    }
    let mut out = Line::default().style(line.style);
    out.alignment = line.alignment;
    if max == 0 {
        return out;
    }
    // Longer than `max`: some span is cut, so the loop always ends in the cut branch.
    let mut left = max - 1;
    for span in line.spans {
        let w = span.width();
        if w <= left {
            left -= w;
            out.spans.push(span);
            continue;
        }
        let mut part: String = take_cells(span.content.graphemes(true), left).concat();
        part.push(ELLIPSIS);
        out.spans.push(Span::styled(part, span.style));
        break;
    }
    out
}

/// The hanging indent of a line laid out as a column: a first span padded with at least
/// two spaces (`hypothesis  …`, `  Esc           cancel …`) continues under its second.
fn hanging_indent(line: &Line<'static>, max: usize) -> usize {
    match line.spans.as_slice() {
        [first, _, ..] if first.content.ends_with("  ") && first.width() * 2 < max => first.width(),
        _ => 0,
    }
}

/// Wrap a styled line to `max` cells, breaking at spaces where it can and inside a word
/// where it must (between clusters); a line laid out as a column continues under its second
/// column. An empty line stays one empty line.
pub fn wrap(line: &Line<'static>, max: usize) -> Vec<Line<'static>> {
    let max = max.max(1);
    let indent = hanging_indent(line, max);
    let cells: Vec<(&str, Style)> = line
        .spans
        .iter()
        .flat_map(|s| s.content.graphemes(true).map(move |c| (c, s.style)))
        .collect();
    if cells.is_empty() {
        return vec![Line::default().style(line.style)];
    }
    let mut rows: Vec<Vec<(&str, Style)>> = Vec::new();
    let mut start = 0;
    while start < cells.len() {
        let lead = if rows.is_empty() { 0 } else { indent };
        // The longest prefix from `start` that fits.
        let mut end = start;
        let mut used = lead;
        while end < cells.len() && used + cluster_width(cells[end].0) <= max {
            used += cluster_width(cells[end].0);
            end += 1;
        }
        if end < cells.len() {
            // Break after the last space inside the row, if any.
            if let Some(space) = (start + 1..end).rev().find(|&i| cells[i].0 == " ") {
                end = space + 1;
            } else if end == start {
                end = start + 1;
            }
        }
        let mut row: Vec<(&str, Style)> = vec![(" ", Style::default()); lead];
        row.extend_from_slice(&cells[start..end]);
        while row.last().is_some_and(|c| c.0 == " ") && end < cells.len() {
            row.pop();
        }
        rows.push(row);
        start = end;
        // A continuation does not start with the space it broke at.
        while indent > 0 && start < cells.len() && cells[start].0 == " " {
            start += 1;
        }
    }
    rows.into_iter()
        .map(|row| {
            let mut spans: Vec<Span<'static>> = Vec::new();
            for (c, style) in row {
                match spans.last_mut() {
                    Some(s) if s.style == style => s.content.to_mut().push_str(c),
                    _ => spans.push(Span::styled(c.to_owned(), style)),
                }
            }
            Line::from(spans).style(line.style)
        })
        .collect()
}

/// At most `rows` of `lines`; when some are left out, the last one kept ends in `…` (cut to
/// `max` cells to make room), so a wrapped sentence never stops short in silence.
pub fn clip_rows(mut lines: Vec<Line<'static>>, rows: usize, max: usize) -> Vec<Line<'static>> {
    if lines.len() <= rows {
        return lines;
    }
    lines.truncate(rows);
    if let Some(last) = lines.pop() {
        let mut marked = last;
        marked.spans.push(Span::raw(ELLIPSIS.to_string()));
        let marked = if marked.width() > max {
            // Cutting a cell off the text makes room for the mark.
            let mut cut = fit_line(marked, max);
            if !cut.to_string().ends_with(ELLIPSIS) {
                cut.spans.push(Span::raw(ELLIPSIS.to_string()));
            }
            cut
        } else {
            marked
        };
        lines.push(marked);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_labels_keep_what_differs() {
        let labels: Vec<String> = (0..60)
            .map(|i| {
                format!(
                    "batch1_m{:04}_n0024_k0064_variant_{:02}_x___",
                    16 + i % 3,
                    i
                )
            })
            .collect();
        let refs: Vec<&str> = labels.iter().map(String::as_str).collect();
        let ends = common_ends(&refs);
        assert_eq!(ends, ("batch1_m001".len(), "_x___".len()));
        for max in [12, 17, 24, 30] {
            let cut: std::collections::HashSet<String> =
                refs.iter().map(|l| fit_differing(l, max, ends)).collect();
            for c in &cut {
                assert!(width(c) <= max, "{c} over {max}");
            }
            if max >= 30 {
                assert_eq!(cut.len(), 60, "every label tells itself apart at {max}");
            }
        }
        let l = refs[7];
        assert_eq!(fit_differing(l, 30, ends), "batc…7_n0024_k0064_variant_07…");
        assert_eq!(width(&fit_differing(l, 30, ends)), 30);
        // Fits whole: unchanged; no shared ends: cut in the middle as before.
        assert_eq!(fit_differing("short", 10, ends), "short");
        assert_eq!(
            fit_differing("abcdefghij", 5, (0, 0)),
            fit_middle("abcdefghij", 5)
        );
    }
    use ratatui::style::{Color, Stylize};

    #[test]
    fn clusters_are_measured_and_cut_whole() {
        // `e` + U+0301, and a family emoji joined by U+200D.
        let accent = "cafe\u{301} au lait";
        let family = "\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467} team";
        assert_eq!(width(accent), 12);
        assert_eq!(width(family), 7);
        assert_eq!(fit_end(accent, 5), "cafe\u{301}…");
        assert_eq!(
            fit_end(family, 4),
            "\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467} …"
        );
        assert_eq!(fit_start(accent, 4), "…ait");
        let rows: Vec<String> = wrap(&Line::from(accent), 5)
            .iter()
            .map(|l| l.to_string())
            .collect();
        assert_eq!(rows, ["cafe\u{301}", "au", "lait"]);
        assert_eq!(common_ends(&["e\u{301}x", "e\u{300}x"]), (0, 1));
    }

    #[test]
    fn control_characters_are_shown_not_dropped() {
        assert_eq!(printable("tab\there"), "tab␉here");
        assert_eq!(printable("a\nb\u{1b}[2J"), "a␊b␛[2J");
        assert_eq!(printable("s1\u{202e}46s"), "s1\\u{202e}46s");
        assert_eq!(printable("x\u{7f}\u{85}"), "x␡\\u{85}");
        // Joiners and combining marks stay, borrowed as they are.
        let joined = "\u{1f468}\u{200d}\u{1f469} cafe\u{301}";
        assert!(matches!(printable(joined), Cow::Borrowed(t) if t == joined));
    }

    #[test]
    fn cut_text_ends_with_an_ellipsis_and_fits() {
        assert_eq!(fit_end("hello world", 20), "hello world");
        assert_eq!(fit_end("hello world", 6), "hello…");
        assert_eq!(width(&fit_end("hello world", 6)), 6);
        assert_eq!(fit_end("hello", 1), "…");
        assert_eq!(fit_end("hello", 0), "");
    }

    #[test]
    fn labels_keep_both_ends() {
        assert_eq!(fit_middle("b1_m128_n512_k2048", 12), "b1_m12…k2048");
        assert_eq!(width(&fit_middle("b1_m128_n512_k2048", 12)), 12);
        assert_eq!(fit_middle("sq64", 12), "sq64");
        assert_eq!(fit_start("a long reason being typed", 10), "…ing typed");
    }

    #[test]
    fn a_styled_line_is_cut_with_an_ellipsis_in_the_style_of_the_cut() {
        let line = Line::from(vec![
            "REJECT".red(),
            " aggregate -16.2% · s64 regressed".into(),
        ]);
        let cut = fit_line(line, 20);
        assert_eq!(cut.to_string(), "REJECT aggregate -1…");
        assert_eq!(cut.width(), 20);
        assert_eq!(cut.spans[0].style.fg, Some(Color::Red));
        let exact = fit_line(Line::from(vec!["ab".into(), "cd".into()]), 2);
        assert_eq!(exact.to_string(), "a…");
    }

    #[test]
    fn clipped_rows_end_in_an_ellipsis() {
        let rows = wrap(
            &Line::from("round 5 was rolled back before it was measured"),
            12,
        );
        assert!(rows.len() > 2);
        let clipped = clip_rows(rows.clone(), 2, 12);
        assert_eq!(clipped.len(), 2);
        assert!(clipped[1].to_string().ends_with('…'), "{:?}", clipped[1]);
        assert!(clipped[1].width() <= 12);
        assert_eq!(clip_rows(rows.clone(), 9, 12), rows, "all fit: unchanged");
        assert!(clip_rows(rows, 0, 12).is_empty());
        // A full row gives up its last cell for the mark.
        let full = clip_rows(vec![Line::from("abcd"), Line::from("efgh")], 1, 4);
        assert_eq!(full[0].to_string(), "abc…");
    }

    #[test]
    fn wrapping_breaks_at_spaces_and_keeps_styles() {
        let line = Line::from(vec!["shape".green(), " s1 judged against round 55".into()]);
        let rows = wrap(&line, 12);
        let text: Vec<String> = rows.iter().map(|l| l.to_string()).collect();
        assert_eq!(text, ["shape s1", "judged", "against", "round 55"]);
        assert_eq!(rows[0].spans[0].style.fg, Some(Color::Green));
        assert!(rows.iter().all(|r| r.width() <= 12));
        let column = Line::from(vec!["key  ".into(), "one two three four".into()]);
        let text: Vec<String> = wrap(&column, 14).iter().map(|l| l.to_string()).collect();
        assert_eq!(text, ["key  one two", "     three", "     four"]);
        let word = wrap(&Line::from("abcdefghij"), 4);
        assert_eq!(word.len(), 3);
        assert_eq!(wrap(&Line::default(), 5).len(), 1);
    }
}
