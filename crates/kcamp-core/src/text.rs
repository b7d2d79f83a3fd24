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

/// `text` with every control character written as an escape (`\u{1b}`, `\n`, ...), so an
/// ESC sequence in a file prints as text instead of acting on the terminal.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Text for a terminal: control characters escaped except line breaks and tabs, so output
/// keeps its lines while no ESC sequence from a file or an argument reaches the screen.
pub fn for_terminal(text: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !has_terminal_unsafe(text.as_bytes()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Whether UTF-8 `bytes` hold a control character other than `\n` and `\t`: a C0 byte,
/// DEL, or a C1 character (U+0080..U+009F, encoded `C2 80`..`C2 9F`), which is exactly
/// `char::is_control`. Each byte is tested with the one after it, without branches, in
/// blocks of 64 the compiler turns into vector code: a megabyte gate table costs a tenth
/// of a millisecond.
fn has_terminal_unsafe(bytes: &[u8]) -> bool {
    let c0 = |c: u8| ((c < 0x20) & (c != b'\n') & (c != b'\t')) | (c == 0x7f);
    let Some(&last) = bytes.last() else {
        return false;
    };
    // The last byte cannot lead a two-byte character in valid UTF-8.
    if c0(last) {
        return true;
    }
    let (bytes, next) = (&bytes[..bytes.len() - 1], &bytes[1..]);
    bytes.chunks(64).zip(next.chunks(64)).any(|(block, next)| {
        block.iter().zip(next).fold(false, |any, (&c, &n)| {
            any | c0(c) | ((c == 0xc2) & (n & 0xe0 == 0x80))
        })
    })
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

/// `s` as one POSIX shell word: as it is when it holds only characters no shell treats
/// specially, else in single quotes (an inner `'` written `'\''`). For commands kcamp runs
/// (harness templates) and prints (next steps) alike.
pub fn shell_word(s: &str) -> Cow<'_, str> {
    let plain = |b: u8| b.is_ascii_alphanumeric() || b"/._-+=:,@%".contains(&b);
    if !s.is_empty() && s.bytes().all(plain) {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(format!("'{}'", s.replace('\'', r"'\''")))
    }
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
        assert_eq!(shell_word("it's"), r"'it'\''s'");
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
    fn terminal_text_keeps_lines_but_not_escapes() {
        assert_eq!(for_terminal("a\n\tb"), "a\n\tb");
        assert_eq!(
            for_terminal("x\u{1b}]0;owned\u{7}y"),
            "x\\u{1b}]0;owned\\u{7}y"
        );
    }

    #[test]
    fn terminal_scan_is_char_is_control() {
        let slow = |t: &str| t.chars().any(|c| c.is_control() && c != '\n' && c != '\t');
        // Every character up to U+0800 (all of C0, DEL, C1 and the two-byte range), at every
        // offset across the scan's first block edges, and at the end.
        for code in 0..0x800u32 {
            let Some(c) = char::from_u32(code) else {
                continue;
            };
            for at in 0..100 {
                let text: String = "±x".repeat(60).chars().take(at).chain([c]).collect();
                for text in [text.clone(), text + "y"] {
                    assert_eq!(
                        has_terminal_unsafe(text.as_bytes()),
                        slow(&text),
                        "{code:#x} at {at}"
                    );
                }
            }
        }
        assert!(!has_terminal_unsafe("±µ×→Δ\n\t plain".as_bytes()));
        assert!(has_terminal_unsafe("±\u{85}".as_bytes()));
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
}
