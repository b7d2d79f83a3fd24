//! Pretty JSON written the way `serde_json::to_string_pretty` writes it, faster: serde_json's
//! `PrettyFormatter` writes a line break and then the indentation one `"  "` at a time, one
//! write call each, which is most of the calls in a 10,000-shape gate report (each shape's 14
//! fields sit three levels deep). This formatter writes the separator, the line break and
//! the indentation as one slice. Everything else (strings, numbers, escapes) is serde_json's
//! own; the test below holds the two to the same bytes.

use std::io;

use serde_json::ser::Formatter;

/// Two-space indentation, as `PrettyFormatter::new()`.
#[derive(Default)]
pub struct Pretty {
    depth: usize,
    has_value: bool,
}

/// `,` then a line break then indentation for up to 63 levels, sliced as needed.
const BREAK: &[u8; 128] = &{
    let mut bytes = [b' '; 128];
    bytes[0] = b',';
    bytes[1] = b'\n';
    bytes
};

impl Pretty {
    /// A line break (after a comma unless `first`) and the indentation of the current depth.
    fn new_line<W: ?Sized + io::Write>(&self, out: &mut W, first: bool) -> io::Result<()> {
        let end = 2 + 2 * self.depth;
        let start = usize::from(first);
        if end <= BREAK.len() {
            return out.write_all(&BREAK[start..end]);
        }
        out.write_all(&BREAK[start..2])?;
        for _ in 0..self.depth {
            out.write_all(b"  ")?;
        }
        Ok(())
    }
}

impl Formatter for Pretty {
    fn begin_array<W: ?Sized + io::Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        out.write_all(b"[")
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            self.new_line(out, true)?;
        }
        out.write_all(b"]")
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        out: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.new_line(out, first)
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, _out: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        out.write_all(b"{")
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            self.new_line(out, true)?;
        }
        out.write_all(b"}")
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        out: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.new_line(out, first)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, out: &mut W) -> io::Result<()> {
        out.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, _out: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// `value` as pretty JSON into `out`.
pub fn write_pretty<W: io::Write, T: serde::Serialize + ?Sized>(
    out: W,
    value: &T,
) -> serde_json::Result<()> {
    value.serialize(&mut serde_json::Serializer::with_formatter(
        out,
        Pretty::default(),
    ))
}

/// Writes one array item as pretty JSON at the second level of indentation (an item of a
/// top-level field's array), byte for byte what serde_json writes for it there.
pub trait ItemWriter<T>: Sync {
    fn write<W: io::Write>(&self, out: &mut W, item: &T) -> serde_json::Result<()>;
}

/// Items written through their `Serialize`: what the tests hold other writers to.
#[cfg(test)]
pub struct Serialized;

#[cfg(test)]
impl<T: serde::Serialize> ItemWriter<T> for Serialized {
    fn write<W: io::Write>(&self, out: &mut W, item: &T) -> serde_json::Result<()> {
        item.serialize(&mut serde_json::Serializer::with_formatter(
            out,
            Pretty {
                depth: 2,
                has_value: false,
            },
        ))
    }
}

/// `doc` as pretty JSON into `out` with its top-level array field `key`, empty in `doc`,
/// holding `items` (each written by `writer`): the bytes `write_pretty` gives for the
/// document with those items in that field. Large arrays are written in pieces of [`kcamp_core::par::PIECE`]
/// items on two threads, the back's buffered while the front's are written (a 10,000-shape
/// gate report is 4 MB of JSON).
pub fn write_pretty_with_items<W, D, T>(
    out: &mut W,
    doc: &D,
    key: &str,
    items: &[T],
    writer: &impl ItemWriter<T>,
) -> serde_json::Result<()>
where
    W: io::Write,
    D: serde::Serialize + ?Sized,
    T: Sync,
{
    /// Below this many items one thread writes them all.
    const SPLIT_FROM: usize = 2_000;
    let mut head = Vec::new();
    write_pretty(&mut head, doc)?;
    // A top-level field sits on its own line, indented once; a string holding these bytes
    // would have its quotes and line break escaped, so the field is the one match.
    let field = serde_json::to_string(key)?;
    let marker = format!("\n  {field}: []");
    let at = match find(&head, marker.as_bytes()) {
        Some(at) => at + marker.len() - 1,
        None => {
            return Err(serde::ser::Error::custom(format!(
                "no empty top-level array {field} to fill"
            )));
        }
    };
    out.write_all(&head[..at]).map_err(serde_json::Error::io)?;
    if items.len() < SPLIT_FROM {
        write_items(&mut *out, items, true, writer)?;
    } else {
        // In pieces two threads take from either end: the front's straight to `out`, the
        // back's into buffers written after them (fixed halves left the front waiting
        // whenever the back ran slower, its buffers being fresh pages).
        let pieces = &kcamp_core::par::Pieces::new(items.len(), kcamp_core::par::PIECE);
        let (written, back) = kcamp_core::par::join(
            || {
                while let Some(piece) = pieces.front() {
                    let rows = pieces.rows_of(piece);
                    write_items(&mut *out, &items[rows.clone()], rows.start == 0, writer)?;
                }
                Ok(())
            },
            || {
                let mut back: Vec<Vec<u8>> = Vec::new();
                while let Some(piece) = pieces.back() {
                    let rows = pieces.rows_of(piece);
                    // Room for a piece as long as the last and a quarter more: grown from
                    // nothing, each buffer was copied five times on the way to its size.
                    let room = back.last().map_or(0, |last| last.len() + last.len() / 4);
                    let mut buf = Vec::with_capacity(room);
                    write_items(&mut buf, &items[rows.clone()], rows.start == 0, writer)?;
                    back.push(buf);
                }
                serde_json::Result::Ok(back)
            },
        );
        let back = written.and(back)?;
        // Taken from the back: the last piece first.
        for buf in back.iter().rev() {
            out.write_all(buf).map_err(serde_json::Error::io)?;
        }
    }
    if !items.is_empty() {
        out.write_all(b"\n  ").map_err(serde_json::Error::io)?;
    }
    out.write_all(&head[at..]).map_err(serde_json::Error::io)
}

/// Array items at the second level of indentation, each after its separator, as the
/// array's serializer writes them (`first`: the first item of the array is among them).
fn write_items<W: io::Write, T>(
    mut out: W,
    items: &[T],
    first: bool,
    writer: &impl ItemWriter<T>,
) -> serde_json::Result<()> {
    for (i, item) in items.iter().enumerate() {
        let separator: &[u8] = if first && i == 0 {
            b"\n    "
        } else {
            b",\n    "
        };
        out.write_all(separator).map_err(serde_json::Error::io)?;
        writer.write(&mut out, item)?;
    }
    Ok(())
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pretty(value: &serde_json::Value) -> String {
        let mut out = Vec::new();
        write_pretty(&mut out, value).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_filled_array_field_is_written_as_serde_json_writes_it() {
        for n in [0, 1, 2, 1_999, 2_000, 2_001, 4_321] {
            let items: Vec<serde_json::Value> = (0..n)
                .map(|i| serde_json::json!({"label": format!("s{i}"), "dims": [1, i], "x": {}}))
                .collect();
            let whole = serde_json::json!({
                "verdict": "REJECT",
                "reasons": ["\n  \"shapes\": []"],
                "shapes": items,
                "after": [1],
            });
            let mut doc = whole.clone();
            doc["shapes"] = serde_json::json!([]);
            let mut out = Vec::new();
            write_pretty_with_items(&mut out, &doc, "shapes", &items, &Serialized).unwrap();
            assert_eq!(
                String::from_utf8(out).unwrap(),
                serde_json::to_string_pretty(&whole).unwrap(),
                "{n} items"
            );
        }
        let mut out = Vec::new();
        let doc = serde_json::json!({"other": []});
        assert!(write_pretty_with_items(&mut out, &doc, "shapes", &[1], &Serialized).is_err());
    }

    #[test]
    fn writes_what_serde_json_writes() {
        let mut deep = serde_json::json!("leaf");
        for i in 0..70 {
            deep = if i % 2 == 0 {
                serde_json::json!([deep, i, []])
            } else {
                serde_json::json!({"k": deep, "empty": {}, "n": null})
            };
        }
        for value in [
            serde_json::json!(null),
            serde_json::json!([]),
            serde_json::json!({}),
            serde_json::json!([[], {}, [[]], {"a": {}}]),
            serde_json::json!({
                "verdict": "REJECT",
                "aggregate": {"incumbent": 19.8, "delta": -0.5e-7, "band": null},
                "reasons": ["a \"quoted\"\n±µ line", "\u{1b}[2J"],
                "shapes": [{"label": "s0", "dims": [1, 64, 64, 64], "p": null}, {"x": true}],
                "paired": false,
            }),
            deep,
        ] {
            assert_eq!(
                pretty(&value),
                serde_json::to_string_pretty(&value).unwrap(),
                "{value}"
            );
        }
    }
}
