//! Where a record's digits and commas lie, found sixteen bytes at a time.
//!
//! The one-pass reader (`RowBuilder::read_plain`) splits a record at the commas these masks
//! give and reads each number's runs of digits from them, instead of looking for both a byte
//! at a time: reading is most of what `kcamp gate` does, and most of a CSV's bytes are
//! digits. [`scan_cell`] is the scan of a numeric cell ([`Scanned`]); `cells::scan` scans a
//! cell alone through it, and the proptests there hold it to `str::parse::<f64>`.

use super::cells::{SCAN_DECADES, Scanned};

/// One bit per byte of the record last classified: bit `i % 64` of word `i / 64` is set
/// where byte `i` is an ASCII digit (`digit`) or a comma (`comma`). Past the record's end
/// every bit is clear, at least one whole word of them, so a run of digits always ends.
#[derive(Debug, Default, Clone)]
pub(super) struct RowMasks {
    digit: Vec<u64>,
    comma: Vec<u64>,
}

impl RowMasks {
    /// The masks of `bytes`, replacing those of the record before.
    pub(super) fn classify(&mut self, bytes: &[u8]) {
        // Whole words of the record, the word its last bytes start, and one of zeros.
        let words = bytes.len() / 64 + 2;
        for mask in [&mut self.digit, &mut self.comma] {
            mask.clear();
            mask.resize(words, 0);
        }
        let chunks = bytes.chunks_exact(16);
        let rest = chunks.remainder().len();
        for (j, chunk) in chunks.enumerate() {
            if let Some(chunk) = chunk.first_chunk::<16>() {
                self.put(j * 16, classify16(chunk));
            }
        }
        if rest > 0 {
            let (digit, comma) = match bytes.last_chunk::<16>() {
                // The last sixteen bytes, of which the first were classified already.
                Some(last) => {
                    let (digit, comma) = classify16(last);
                    (digit >> (16 - rest), comma >> (16 - rest))
                }
                // A record shorter than sixteen bytes, padded with zeros: neither digits
                // nor commas.
                None => {
                    let mut padded = [0u8; 16];
                    padded[..rest].copy_from_slice(bytes);
                    classify16(&padded)
                }
            };
            self.put(bytes.len() - rest, (digit, comma));
        }
    }

    /// Sixteen bytes' bits at byte `at`, a multiple of 16.
    fn put(&mut self, at: usize, (digit, comma): (u16, u16)) {
        let (word, shift) = (at / 64, at % 64);
        if let (Some(d), Some(c)) = (self.digit.get_mut(word), self.comma.get_mut(word)) {
            *d |= u64::from(digit) << shift;
            *c |= u64::from(comma) << shift;
        }
    }

    /// How many commas the record has.
    pub(super) fn commas(&self) -> usize {
        self.comma.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The record's comma positions, in order.
    pub(super) fn comma_positions(&self) -> Positions<'_> {
        Positions {
            words: &self.comma,
            word: 0,
            bits: self.comma.first().copied().unwrap_or(0),
        }
    }

    /// The end of the run of digits that starts at byte `at` (`at` itself when that byte
    /// is no digit, or past the record).
    pub(super) fn digits_end(&self, mut at: usize) -> usize {
        loop {
            let shift = at % 64;
            let Some(word) = self.digit.get(at / 64) else {
                return at;
            };
            // Shifted in from the top are zeros, so the run stops at the word's end at most.
            let run = (!(word >> shift)).trailing_zeros() as usize;
            if run < 64 - shift {
                return at + run;
            }
            at += 64 - shift;
        }
    }
}

/// Positions of the set bits of a mask, lowest first.
pub(super) struct Positions<'m> {
    words: &'m [u64],
    word: usize,
    bits: u64,
}

impl Iterator for Positions<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        while self.bits == 0 {
            self.word += 1;
            self.bits = *self.words.get(self.word)?;
        }
        let bit = self.bits.trailing_zeros() as usize;
        self.bits &= self.bits - 1;
        Some(self.word * 64 + bit)
    }
}

/// (digits, commas) of sixteen bytes, bit `i` for byte `i`.
#[cfg(target_arch = "x86_64")]
fn classify16(chunk: &[u8; 16]) -> (u16, u16) {
    use std::arch::x86_64::{
        _mm_and_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_cmplt_epi8, _mm_loadu_si128,
        _mm_movemask_epi8, _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of x86-64 itself, so every CPU this code runs on has these
    // instructions; `chunk` is sixteen readable bytes, and the load needs no alignment.
    unsafe {
        let bytes = _mm_loadu_si128(chunk.as_ptr().cast());
        // Signed comparisons: bytes from 0x80 up compare below b'0' and are no digits.
        let digit = _mm_and_si128(
            _mm_cmpgt_epi8(bytes, _mm_set1_epi8(b'0' as i8 - 1)),
            _mm_cmplt_epi8(bytes, _mm_set1_epi8(b'9' as i8 + 1)),
        );
        let comma = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b',' as i8));
        (
            _mm_movemask_epi8(digit) as u16,
            _mm_movemask_epi8(comma) as u16,
        )
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn classify16(chunk: &[u8; 16]) -> (u16, u16) {
    classify16_bytewise(chunk)
}

/// [`classify16`] a byte at a time: other targets' version, and the x86-64 one's reference.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn classify16_bytewise(chunk: &[u8; 16]) -> (u16, u16) {
    chunk
        .iter()
        .enumerate()
        .fold((0, 0), |(digit, comma), (i, b)| {
            (
                digit | u16::from(b.is_ascii_digit()) << i,
                comma | u16::from(*b == b',') << i,
            )
        })
}

/// The scan of the cell `bytes[from..to]`, whose masks `masks` hold (`cells::scan` says
/// what it reads, and what it leaves to the exact parse).
#[inline(always)]
pub(super) fn scan_cell(bytes: &[u8], masks: &RowMasks, from: usize, to: usize) -> Option<Scanned> {
    let cell = bytes.get(from..to)?;
    if cell == b"inf" {
        return Some(Scanned::Infinite);
    }
    let negative = cell.first() == Some(&b'-');
    let int_from = from + usize::from(matches!(cell.first(), Some(b'-' | b'+')));
    let int_to = masks.digits_end(int_from);
    let (mut frac_from, mut frac_to) = (int_to, int_to);
    if bytes.get(int_to) == Some(&b'.') {
        frac_from = int_to + 1;
        frac_to = masks.digits_end(frac_from);
    }
    if int_to == int_from && frac_to == frac_from {
        return None;
    }
    let mut at = frac_to;
    let mut exponent = 0i64;
    if let Some(b'e' | b'E') = bytes.get(at) {
        at += 1;
        let negative = bytes.get(at) == Some(&b'-');
        at += usize::from(matches!(bytes.get(at), Some(b'-' | b'+')));
        let digits_from = at;
        at = masks.digits_end(at);
        // As `scan`: no digit is no number, and past four the exact parse decides.
        if at == digits_from || at - digits_from > 4 {
            return None;
        }
        let e = bytes[digits_from..at]
            .iter()
            .fold(0i64, |n, d| n * 10 + i64::from(d - b'0'));
        exponent = if negative { -e } else { e };
    }
    if at != to {
        return None;
    }
    // The first non-zero digit's place: 10^place <= |value| < 10^(place + 1).
    let nonzero = |from: usize, to: usize| (from..to).find(|&k| bytes[k] != b'0');
    let place = match nonzero(int_from, int_to) {
        Some(k) => (int_to - k) as i64 - 1,
        None => match nonzero(frac_from, frac_to) {
            Some(k) => -((k - frac_from) as i64) - 1,
            None => return Some(Scanned::Zero),
        },
    };
    let decade = place + exponent;
    if decade.abs() > i64::from(SCAN_DECADES) {
        return None;
    }
    Some(Scanned::NonZero {
        negative,
        decade: decade as i32,
    })
}

#[cfg(test)]
mod tests {
    use super::super::cells::scan;
    use super::*;
    use proptest::prelude::*;

    fn bits(mask: &[u64], len: usize) -> Vec<usize> {
        (0..len + 64)
            .filter(|i| mask.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1))
            .collect()
    }

    proptest! {
        /// Sixteen bytes at a time, the masks mark the digits and commas a byte at a time
        /// finds, and nothing past the record.
        #[test]
        fn the_masks_mark_each_digit_and_comma(
            bytes in prop::collection::vec(prop_oneof![4 => b'0'..=b'9', 2 => Just(b','), 1 => any::<u8>()], 0..200),
        ) {
            let mut masks = RowMasks::default();
            masks.classify(&bytes);
            let digits: Vec<usize> = (0..bytes.len()).filter(|&i| bytes[i].is_ascii_digit()).collect();
            let commas: Vec<usize> = (0..bytes.len()).filter(|&i| bytes[i] == b',').collect();
            prop_assert_eq!(bits(&masks.digit, bytes.len()), digits);
            prop_assert_eq!(bits(&masks.comma, bytes.len()), commas.clone());
            prop_assert_eq!(masks.comma_positions().collect::<Vec<_>>(), commas.clone());
            prop_assert_eq!(masks.commas(), commas.len());
            for at in 0..=bytes.len() + 1 {
                let plain = at + bytes.get(at..).unwrap_or_default().iter().take_while(|b| b.is_ascii_digit()).count();
                prop_assert_eq!(masks.digits_end(at), plain);
            }
        }

        /// The x86-64 classification agrees with the byte-at-a-time one on any bytes.
        #[test]
        fn sixteen_bytes_are_classified_as_one_at_a_time(chunk in prop::array::uniform16(any::<u8>())) {
            prop_assert_eq!(classify16(&chunk), classify16_bytewise(&chunk));
        }

        /// A cell scans the same wherever it lies in a record: what comes before its comma
        /// and after its end does not change its scan.
        #[test]
        fn a_cell_scans_the_same_anywhere_in_a_record(
            before in "[0-9.e,]{0,70}",
            cell in prop_oneof![
                "[+-]?[0-9]{0,4}(\\.[0-9]{0,4})?([eE][+-]?[0-9]{0,5})?",
                "[+-]?0{0,3}\\.?0{0,3}[0-9]{0,3}(e-?3[0-9]{2})?",
                "[0-9]{60,80}\\.[0-9]{0,70}",
                "[-+0-9.eE infINFnaNx_]{0,8}",
            ],
            after in "(,[0-9.e]{0,20})?",
        ) {
            let record = format!("{before},{cell}{after}");
            let mut masks = RowMasks::default();
            masks.classify(record.as_bytes());
            let from = before.len() + 1;
            prop_assert_eq!(scan_cell(record.as_bytes(), &masks, from, from + cell.len()), scan(&cell), "{:?}", record);
        }
    }
}
