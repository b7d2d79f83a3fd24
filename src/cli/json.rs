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

#[cfg(test)]
mod tests {
    use super::*;

    fn pretty(value: &serde_json::Value) -> String {
        let mut out = Vec::new();
        write_pretty(&mut out, value).unwrap();
        String::from_utf8(out).unwrap()
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
