//! Limits on user-supplied text and its safe display: free text that reaches a terminal
//! (hypotheses, reasons, labels, cells quoted in errors) is length-limited and its control
//! characters are escaped, so no input can rewrite the screen or flood it.

use std::borrow::Cow;

use crate::{Error, Result};

/// Longest shape label (characters); labels name files, table rows and chart ticks.
pub const MAX_LABEL_CHARS: usize = 128;
/// Longest hypothesis (characters): one hypothesis, one sentence or a short paragraph.
pub const MAX_HYPOTHESIS_CHARS: usize = 2000;
/// Longest `--reason` of an accept or rollback (characters).
pub const MAX_REASON_CHARS: usize = 2000;
/// How much of an offending value an error message quotes (characters).
pub const QUOTE_CHARS: usize = 60;

/// A character that reorders or hides text without being a control character: the bidi
/// controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and the invisible ones
/// (U+00AD, U+180E, U+200B–U+200D, U+2060–U+2064, U+FEFF). Printed raw, `s1\u{202e}46s`
/// shows as `s1s64`: a label that reads as another.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{61c}'
            | '\u{ad}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{feff}'
    )
}

/// A label that starts or ends with white space, or starts with a combining mark, reads as
/// another label (`s32 ` as `s32`; a lone accent joins whatever is printed before it).
pub fn check_label_reads_as_itself(label: &str) -> std::result::Result<(), String> {
    let shown = || quote(label, QUOTE_CHARS);
    if label.starts_with(char::is_whitespace) || label.ends_with(char::is_whitespace) {
        return Err(format!(
            "label '{}' starts or ends with white space: it reads as '{}'",
            shown(),
            quote(label.trim(), QUOTE_CHARS)
        ));
    }
    if label
        .chars()
        .next()
        .is_some_and(unicode_normalization::char::is_combining_mark)
    {
        return Err(format!(
            "label '{}' starts with a combining mark, which joins the text printed before it",
            shown()
        ));
    }
    Ok(())
}

/// What a label reads as, for telling labels apart: its NFKC form (`ﬁ` → `fi`, full-width →
/// ASCII, NFD `é` → NFC `é`) with every non-ASCII character replaced by the skeleton of
/// Unicode's confusables (Cyrillic `ѕ` → `s`). ASCII is kept as it is, so `s1` and `sl`, or
/// `rn` and `m`, stay distinct labels: a campaign's own labels are ASCII far more often than
/// not, and refusing those would be wrong more often than right.
pub fn label_reading(label: &str) -> Cow<'_, str> {
    use unicode_normalization::UnicodeNormalization;
    use unicode_security::confusable_detection::skeleton;
    if label.is_ascii() {
        return Cow::Borrowed(label);
    }
    let mut out = String::with_capacity(label.len());
    for c in label.nfkc() {
        if c.is_ascii() {
            out.push(c);
        } else {
            out.extend(skeleton(c.encode_utf8(&mut [0; 4])));
        }
    }
    Cow::Owned(out.nfc().collect())
}

/// The refusal for `label`, which reads as `earlier` (a different label already listed).
pub fn reads_as_another(label: &str, earlier: &str) -> String {
    format!(
        "label '{}' reads as '{}', listed earlier: two shapes must not have labels that read alike",
        quote(label, QUOTE_CHARS),
        quote(earlier, QUOTE_CHARS)
    )
}

/// `text` with every control character, and every character that reorders or hides text
/// ([`is_invisible`]), written as an escape (`\u{1b}`, `\n`, `\u{202e}`, ...), so an ESC
/// sequence or a bidi override in a file prints as text instead of acting on the terminal.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    escaped(text, |c| c.is_control() || is_invisible(c))
}

/// Text for a terminal: control characters escaped except line breaks and tabs, and every
/// character that reorders or hides text, so output keeps its lines while no ESC sequence
/// or bidi override from a file or an argument reaches the screen.
pub fn for_terminal(text: &str) -> Cow<'_, str> {
    escaped(text, |c| {
        (c.is_control() && c != '\n' && c != '\t') || is_invisible(c)
    })
}

fn escaped(text: &str, unsafe_char: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(&unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) && c.is_control() {
            out.extend(c.escape_debug());
        } else if unsafe_char(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// [`for_terminal`] text cut to at most `max_chars` characters (a cut says how long the
/// text was): for whole messages, which keep their line breaks.
pub fn bounded(text: &str, max_chars: usize) -> Cow<'_, str> {
    let safe = for_terminal(text);
    let count = safe.chars().count();
    if count <= max_chars {
        return safe;
    }
    let head: String = safe.chars().take(max_chars).collect();
    Cow::Owned(format!("{head}… ({count} characters)"))
}

/// At most `max_chars` characters of `text`, control characters escaped; a cut value ends
/// with `…` and says how long it was, so a 1 MB cell gives a one-line message.
pub fn quote(text: &str, max_chars: usize) -> String {
    let count = text.chars().count();
    if count <= max_chars {
        return escape_controls(text).into_owned();
    }
    let head: String = text.chars().take(max_chars).collect();
    format!("{}… ({count} characters)", escape_controls(&head))
}

/// `s` as one POSIX shell word, as `shlex` quotes it: as it is when no shell treats any
/// of its characters specially, else quoted. For commands kcamp runs (harness templates)
/// and prints (next steps) alike.
pub fn shell_word(s: &str) -> Cow<'_, str> {
    // With NUL allowed quoting cannot fail. No NUL comes from an argument, a path or
    // checked text anyway; a shell would end the word there however it was quoted.
    shlex::Quoter::new()
        .allow_nul(true)
        .quote(s)
        .unwrap_or(Cow::Borrowed(s))
}

/// Free text given on the command line that is stored and shown later (a hypothesis, a
/// reason): at most `max_chars` characters and no control characters (one line, nothing
/// a terminal would interpret). The error names the flag.
pub fn check_one_line(flag: &str, text: &str, max_chars: usize) -> Result<()> {
    let count = text.chars().count();
    if count > max_chars {
        return Err(Error::input(format!(
            "{flag} is {count} characters long; at most {max_chars} are kept: {}",
            quote(text, QUOTE_CHARS)
        )));
    }
    if let Some(c) = text.chars().find(|c| c.is_control()) {
        return Err(Error::input(format!(
            "{flag} contains the control character {:?}; give one line of plain text: {}",
            c,
            quote(text, QUOTE_CHARS)
        )));
    }
    Ok(())
}

/// `1 shape`, `3 shapes`: a count and its noun (plural by `s`) in agreement.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `2 of the 3 shapes`, or `the 3 shapes` when the part is the whole (`the only shape`,
/// not `1 of the 1 shapes`). The verb that follows agrees with `part`.
pub fn count_of(part: usize, whole: usize, noun: &str) -> String {
    if part == 1 && whole == 1 {
        format!("the only {noun}")
    } else if part == whole {
        format!("the {}", count(whole, noun))
    } else {
        format!("{part} of the {}", count(whole, noun))
    }
}

/// `does` for one, `do` for any other number.
pub fn does(n: usize) -> &'static str {
    if n == 1 { "does" } else { "do" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_agree_with_their_nouns_and_verbs() {
        assert_eq!(count(1, "shape"), "1 shape");
        assert_eq!(count(0, "shape"), "0 shapes");
        assert_eq!(count_of(1, 4, "shape"), "1 of the 4 shapes");
        assert_eq!(count_of(1, 1, "shape"), "the only shape");
        assert_eq!(count_of(3, 3, "untimed shape"), "the 3 untimed shapes");
        assert_eq!((does(1), does(2)), ("does", "do"));
    }

    #[test]
    fn shell_words_are_quoted_only_when_a_shell_would_read_them_otherwise() {
        assert_eq!(shell_word("camp/rounds/round-2"), "camp/rounds/round-2");
        assert_eq!(shell_word("my camp"), "'my camp'");
        assert_eq!(shell_word("it's"), r#""it's""#);
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("$HOME;rm"), "'$HOME;rm'");
    }

    #[test]
    fn escapes_and_quotes() {
        assert_eq!(escape_controls("plain"), "plain");
        assert_eq!(escape_controls("a\u{1b}[2Jb\n"), "a\\u{1b}[2Jb\\n");
        let long = "x".repeat(1_000_000);
        let q = quote(&long, 10);
        assert!(
            q.starts_with("xxxxxxxxxx…") && q.contains("1000000 characters"),
            "{q}"
        );
        assert!(q.len() < 40);
    }

    #[test]
    fn bidi_and_zero_width_characters_are_escaped() {
        assert_eq!(escape_controls("s1\u{202e}46s"), "s1\\u{202e}46s");
        assert_eq!(for_terminal("a\u{200b}b\nc"), "a\\u{200b}b\nc");
        assert_eq!(quote("x\u{2066}y", 10), "x\\u{2066}y");
        // Letters and marks of other scripts are text, not tricks.
        assert_eq!(for_terminal("µ×→Δ שלום"), "µ×→Δ שלום");
    }

    #[test]
    fn terminal_text_keeps_lines_but_not_escapes() {
        assert_eq!(for_terminal("a\n\tb"), "a\n\tb");
        assert_eq!(
            for_terminal("x\u{1b}]0;owned\u{7}y"),
            "x\\u{1b}]0;owned\\u{7}y"
        );
        // DEL and the C1 controls are controls too; other two-byte characters are not.
        assert_eq!(for_terminal("±\u{7f}\u{85}µ"), "±\\u{7f}\\u{85}µ");
        assert_eq!(for_terminal("±µ×→Δ plain"), "±µ×→Δ plain");
    }

    #[test]
    fn one_line_rules() {
        check_one_line("--hypothesis", "tile 64x64", 100).unwrap();
        let e = check_one_line("--hypothesis", "a\u{1b}[31mred", 100).unwrap_err();
        assert!(e.to_string().contains("--hypothesis") && e.to_string().contains("\\u{1b}"));
        assert!(!e.to_string().contains('\u{1b}'));
        let e = check_one_line("--reason", &"y".repeat(101), 100).unwrap_err();
        assert!(e.to_string().contains("101 characters"), "{e}");
        assert_eq!(e.exit_code(), crate::error::exit::BAD_INPUT);
    }

    #[test]
    fn labels_that_read_alike_have_one_reading() {
        let alike = [
            ("\u{fb01}x", "fix"),                // the ligature ﬁ
            ("\u{455}32", "s32"),                // Cyrillic ѕ
            ("b\u{430}tch", "batch"),            // Cyrillic а
            ("caf\u{e9}", "cafe\u{301}"),        // NFC and NFD é
            ("\u{ff53}\u{ff13}\u{ff12}", "s32"), // full width
        ];
        for (a, b) in alike {
            assert_eq!(label_reading(a), label_reading(b), "{a:?} vs {b:?}");
        }
        // ASCII stays itself: two ASCII labels are never folded together.
        for (a, b) in [("s1", "sl"), ("rn", "m"), ("O0", "00"), ("s32", "S32")] {
            assert_ne!(label_reading(a), label_reading(b), "{a:?} vs {b:?}");
        }
        assert!(matches!(label_reading("s32"), Cow::Borrowed(_)));
    }

    #[test]
    fn labels_that_hide_their_edges_are_refused() {
        for bad in [" s32", "s32 ", "s32\u{a0}", "\u{301}", "\u{301}s32"] {
            let e = check_label_reads_as_itself(bad).unwrap_err();
            assert!(
                e.contains("white space") || e.contains("combining mark"),
                "{bad:?}: {e}"
            );
        }
        check_label_reads_as_itself("cafe\u{301}").unwrap();
        check_label_reads_as_itself("a b").unwrap();
        let msg = reads_as_another("\u{455}32", "s32");
        assert!(msg.contains("'\u{455}32' reads as 's32'"), "{msg}");
    }
}
