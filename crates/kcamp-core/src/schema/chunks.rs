//! Two CSVs read by two threads that share the work: what `kcamp gate` reads its files with.
//!
//! Each thread reads its own file from the front, a chunk of [`CHUNK`] bytes at a time, as
//! the block reader does; a thread done with its file takes chunks from the back of the other
//! one. On a virtual machine one CPU is at times half again as slow as the other (a thread
//! read a 10,000-shape file in 2.4–2.8 ms or in 4.0–4.4 ms, rarely in between:
//! `scripts/gate-perf/README.md`), and with a file each the fast thread then waited a
//! millisecond or more for the slow one.
//!
//! A line belongs to the chunk its first byte lies in. The owner's chunks are read in file
//! order into the table itself, each line numbered as it goes; a taken chunk is read into
//! rows of its own, numbered from 0, and is added after the owner's rows once both threads
//! are done, its numbers moved by the lines before it. A file holding anything the one-pass
//! reader does not take (quotes, carriage returns, invalid UTF-8, a record it would refuse)
//! comes back None, as from [`super::table`]'s block reader, and the caller reads it the exact
//! way.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use super::columns::Schema;
use super::table::{RowBuilder, RowSink, is_plain, split_header};

/// Bytes of body a chunk covers: about 400 rows of a GEMM CSV, a tenth of a millisecond of
/// reading, so that the last chunks taken end close together.
pub(super) const CHUNK: u64 = 1 << 16;

/// Bytes read past a chunk with it, for the end of its last line.
const LINE: u64 = 4096;

/// Both files read, the work shared by this thread and one [`crate::par::join`] starts;
/// None for a file the caller reads the exact way.
pub(super) fn read_pair<S: RowSink + Send + Sync>(
    paths: [&Path; 2],
    sinks: [S; 2],
    chunk: u64,
) -> [Option<(Schema, S)>; 2] {
    let [a, b] = sinks;
    let files = [
        ChunkedFile::new(paths[0], a, chunk),
        ChunkedFile::new(paths[1], b, chunk),
    ];
    let (first, second) = crate::par::join(
        || {
            let own = files[0].read_own();
            files[1].take_all();
            own
        },
        || {
            let own = files[1].read_own();
            files[0].take_all();
            own
        },
    );
    // Each file's rows checked whole (its shapes distinct) side by side too.
    let [a, b] = files;
    let (a, b) = crate::par::join(move || a.finish(first), move || b.finish(second));
    [a, b]
}

/// One file of the pair.
pub(super) struct ChunkedFile<'p, S> {
    path: &'p Path,
    sink: S,
    chunk: u64,
    /// Opened and its header read by whichever thread comes to it first; None for a file the
    /// one-pass reader does not take.
    prepared: OnceLock<Option<Prepared<'p, S>>>,
    /// Set when a chunk held what the one-pass reader does not take.
    failed: AtomicBool,
    /// Chunks read from the back: their index, rows and how many lines start in them.
    taken: Mutex<Vec<(u64, RowBuilder<'p, S>, u64)>>,
}

/// A file opened, its header read.
struct Prepared<'p, S> {
    file: File,
    /// Its size when opened.
    size: u64,
    /// Where the first line after the header starts.
    body: u64,
    /// Chunks of the body; the last one runs to the end of the file, wherever that is then.
    chunks: u64,
    /// Chunks nobody has claimed: `front..back`. The owner claims at the front, the other
    /// thread at the back.
    unclaimed: Mutex<(u64, u64)>,
    /// Rows as the header makes them, with none read yet.
    empty: RowBuilder<'p, S>,
}

/// The owner's rows, and the file line its next chunk starts on.
pub(super) struct Owned<'p, S> {
    rows: RowBuilder<'p, S>,
    next_line: u64,
}

/// What one chunk's turn did.
#[derive(Debug, PartialEq)]
pub(super) enum Step {
    Read,
    /// No chunk was left to claim.
    Done,
    /// The file goes the exact way.
    Failed,
}

impl<'p, S: RowSink> ChunkedFile<'p, S> {
    pub(super) fn new(path: &'p Path, sink: S, chunk: u64) -> Self {
        ChunkedFile {
            path,
            sink,
            chunk: chunk.max(1),
            prepared: OnceLock::new(),
            failed: AtomicBool::new(false),
            taken: Mutex::new(Vec::new()),
        }
    }

    fn prepared(&self) -> Option<&Prepared<'p, S>> {
        self.prepared
            .get_or_init(|| prepare(self.path, self.sink.clone(), self.chunk))
            .as_ref()
    }

    /// The owner's rows before any chunk: None for a file the exact way must read.
    pub(super) fn start_own(&self) -> Option<Owned<'p, S>> {
        let prepared = self.prepared()?;
        let body = prepared.size.saturating_sub(prepared.body);
        let rows = prepared
            .empty
            .clone()
            .expecting(usize::try_from(body).ok()?);
        Some(Owned { rows, next_line: 2 })
    }

    /// Claims the next chunk at the front and reads it into the owner's rows.
    pub(super) fn read_front(&self, own: &mut Owned<'p, S>, buf: &mut Vec<u8>) -> Step {
        let Some(prepared) = self.prepared() else {
            return Step::Failed;
        };
        let Some(index) = prepared.claim(|(front, back)| {
            (front < back).then(|| {
                let index = *front;
                *front += 1;
                index
            })
        }) else {
            return Step::Done;
        };
        match prepared.read_chunk(index, self.chunk, &mut own.rows, own.next_line, buf) {
            Some(lines) => {
                own.next_line += lines;
                Step::Read
            }
            None => self.fail(),
        }
    }

    /// Claims the last unclaimed chunk and reads it into rows of its own, kept for
    /// [`Self::finish`].
    pub(super) fn read_back(&self, buf: &mut Vec<u8>) -> Step {
        if self.failed.load(Ordering::Relaxed) {
            return Step::Failed;
        }
        let Some(prepared) = self.prepared() else {
            return Step::Failed;
        };
        let Some(index) = prepared.claim(|(front, back)| {
            (front < back).then(|| {
                *back -= 1;
                *back
            })
        }) else {
            return Step::Done;
        };
        let chunk = usize::try_from(self.chunk).unwrap_or(usize::MAX);
        let mut rows = prepared.empty.clone().expecting(chunk);
        match prepared.read_chunk(index, self.chunk, &mut rows, 0, buf) {
            Some(lines) => match self.taken.lock() {
                Ok(mut taken) => {
                    taken.push((index, rows, lines));
                    Step::Read
                }
                Err(_) => self.fail(),
            },
            None => self.fail(),
        }
    }

    fn fail(&self) -> Step {
        self.failed.store(true, Ordering::Relaxed);
        Step::Failed
    }

    /// The owner's part: every chunk it can claim, from the front.
    fn read_own(&self) -> Option<Owned<'p, S>> {
        let mut own = self.start_own()?;
        let mut buf = Vec::new();
        loop {
            match self.read_front(&mut own, &mut buf) {
                Step::Read => {}
                Step::Done => return Some(own),
                Step::Failed => return None,
            }
        }
    }

    /// The other thread's part: every chunk it can claim, from the back.
    fn take_all(&self) {
        let mut buf = Vec::new();
        while self.read_back(&mut buf) == Step::Read {}
    }

    /// The file's table once both threads are done: [`Self::merged`], checked as the block
    /// reader checks a whole file. None for a file the exact way must read.
    pub(super) fn finish(self, own: Option<Owned<'p, S>>) -> Option<(Schema, S)> {
        self.merged(own)?.finish().ok()
    }

    /// The owner's rows, then the taken chunks' in file order, each line numbered in the
    /// file.
    fn merged(self, own: Option<Owned<'p, S>>) -> Option<RowBuilder<'p, S>> {
        let Owned {
            mut rows,
            mut next_line,
        } = own?;
        if self.failed.into_inner() {
            return None;
        }
        let mut taken = self.taken.into_inner().ok()?;
        taken.sort_unstable_by_key(|(index, ..)| *index);
        let prepared = self.prepared.into_inner()??;
        let (front, _) = prepared.unclaimed.into_inner().ok()?;
        // The owner read chunks 0..front; the taken ones must be front..chunks, each once.
        let expected = front..prepared.chunks;
        if !taken.iter().map(|(index, ..)| *index).eq(expected) {
            return None;
        }
        for (_, part, lines) in taken {
            rows.append(part, next_line);
            next_line += lines;
        }
        Some(rows)
    }
}

impl<'p, S: RowSink> Prepared<'p, S> {
    /// The chunk `pick` claims from `unclaimed`, if any.
    fn claim(&self, pick: impl FnOnce(&mut (u64, u64)) -> Option<u64>) -> Option<u64> {
        let mut unclaimed = self.unclaimed.lock().ok()?;
        pick(&mut unclaimed)
    }

    /// Reads the lines that start in chunk `index` into `rows`, the first of them numbered
    /// `first_line`; returns how many lines start in it, blank ones too. None for anything
    /// the one-pass reader does not take.
    fn read_chunk(
        &self,
        index: u64,
        chunk: u64,
        rows: &mut RowBuilder<'p, S>,
        first_line: u64,
        buf: &mut Vec<u8>,
    ) -> Option<u64> {
        let start = self.body + index * chunk;
        let last = index + 1 == self.chunks;
        // One byte before the chunk tells whether a line starts at its first byte.
        let from = if index == 0 { start } else { start - 1 };
        let end = if last { u64::MAX } else { start + chunk };
        buf.clear();
        // A little past the chunk in the same read: its last line usually ends there.
        let ended = read_range(
            &self.file,
            from,
            end.saturating_sub(from).saturating_add(LINE),
            buf,
        )?;
        // Lines that start in the chunk and run past it are read to their end, and no
        // further.
        let limit = usize::try_from(end - from).unwrap_or(usize::MAX);
        if limit < buf.len() {
            match memchr::memchr(b'\n', &buf[limit - 1..]) {
                Some(at) => buf.truncate(limit + at),
                None if !ended => read_to_newline(&self.file, from, buf)?,
                None => {}
            }
        }
        let first = if index == 0 {
            0
        } else {
            match memchr::memchr(b'\n', buf) {
                Some(at) => at + 1,
                None => buf.len(),
            }
        };
        // Lines start below `limit` in `buf`.
        if first >= limit.min(buf.len()) {
            return Some(0);
        }
        let text = std::str::from_utf8(&buf[first..]).ok()?;
        if !is_plain(text) {
            return None;
        }
        // `text` ends with the chunk's last line: every line in it is the chunk's.
        rows.push_lines(text, first_line)
    }
}

/// Opens `path`, reads its header and cuts its body into chunks of `chunk` bytes. None for a
/// file the block reader would not take either: not a regular file, over the size limit,
/// a header that is not UTF-8 or has a byte order mark, a header it refuses.
fn prepare<'p, S: RowSink>(path: &'p Path, sink: S, chunk: u64) -> Option<Prepared<'p, S>> {
    let file = File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() > crate::fsutil::MAX_INPUT_BYTES {
        return None;
    }
    let mut head = Vec::new();
    read_to_newline(&file, 0, &mut head)?;
    let header_end = memchr::memchr(b'\n', &head).map_or(head.len(), |at| at + 1);
    let (header, _) = split_header(std::str::from_utf8(&head[..header_end]).ok()?).ok()?;
    let empty = RowBuilder::new(header, path, sink).ok()?;
    let body = header_end as u64;
    let chunks = meta.len().saturating_sub(body).div_ceil(chunk).max(1);
    Some(Prepared {
        file,
        size: meta.len(),
        body,
        chunks,
        unclaimed: Mutex::new((0, chunks)),
        empty,
    })
}

/// Appends up to `len` bytes of `file` from `offset` to `buf`; returns whether the file
/// ended first. None on a read error or past the input size limit.
fn read_range(file: &File, offset: u64, len: u64, buf: &mut Vec<u8>) -> Option<bool> {
    let mut at = offset;
    let end = offset.saturating_add(len);
    while at < end {
        if at > crate::fsutil::MAX_INPUT_BYTES {
            return None;
        }
        let start = buf.len();
        let want = usize::try_from((end - at).min(CHUNK)).ok()?;
        buf.resize(start + want, 0);
        let n = loop {
            match file.read_at(&mut buf[start..], at) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                read => break read.ok()?,
            }
        };
        buf.truncate(start + n);
        if n == 0 {
            return Some(true);
        }
        at += n as u64;
    }
    Some(false)
}

/// Appends bytes of `file` to `buf` (which holds the file from `offset` on) until `buf`
/// ends with a newline or the file ends. None on a read error or past the size limit.
fn read_to_newline(file: &File, offset: u64, buf: &mut Vec<u8>) -> Option<()> {
    loop {
        let searched = buf.len();
        let ended = read_range(file, offset + buf.len() as u64, 4096, buf)?;
        if let Some(at) = memchr::memchr(b'\n', &buf[searched..]) {
            // Only through the newline: the next line is another chunk's.
            buf.truncate(searched + at + 1);
            return Some(());
        }
        if ended {
            return Some(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::table::tests::{csv_of, same_rows};
    use crate::schema::{BenchTable, ColumnTable, Row};
    use proptest::prelude::*;

    /// Which thread is doing what, in a test that takes the two threads' turns by hand.
    #[derive(Clone, Copy, PartialEq)]
    enum Phase {
        Own,
        Take,
        Done,
    }

    /// The file lines of `text`'s rows: every line after the header that is not blank.
    fn row_lines(text: &str) -> Vec<u64> {
        text.split('\n')
            .enumerate()
            .skip(1)
            .filter(|(_, line)| !line.is_empty())
            .map(|(i, _)| i as u64 + 1)
            .collect()
    }

    proptest! {
        /// The two threads' turns in any order, chunks of any size: each file gives the rows
        /// the block reader gives, each numbered with its file line, or nothing where the
        /// block reader gives nothing (the caller then reads it the exact way).
        #[test]
        fn shared_reads_agree_with_block_reads(
            picks in prop::collection::vec(
                prop::collection::vec(any::<u8>(), 0..40), 2..=2),
            trailing_newline: bool,
            chunk in 1u64..300,
            turns in prop::collection::vec(any::<bool>(), 0..400),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let texts = [csv_of(&picks[0], trailing_newline), csv_of(&picks[1], !trailing_newline)];
            let paths = [dir.path().join("a.csv"), dir.path().join("b.csv")];
            for (path, text) in paths.iter().zip(&texts) {
                std::fs::write(path, text).unwrap();
            }
            let files = [
                ChunkedFile::new(&paths[0], Vec::<Row>::new(), chunk),
                ChunkedFile::new(&paths[1], Vec::<Row>::new(), chunk),
            ];
            let mut owned = [files[0].start_own(), files[1].start_own()];
            let mut phases = [Phase::Own, Phase::Own];
            let mut buf = Vec::new();
            let mut turns = turns.into_iter();
            while phases != [Phase::Done, Phase::Done] {
                // Whose turn: as `turns` says, then each in turn to the end.
                let t = match turns.next() {
                    Some(second) => usize::from(second),
                    None => usize::from(phases[0] == Phase::Done),
                };
                phases[t] = match phases[t] {
                    Phase::Own => match owned[t].as_mut() {
                        Some(own) => match files[t].read_front(own, &mut buf) {
                            Step::Read => Phase::Own,
                            Step::Done => Phase::Take,
                            Step::Failed => {
                                owned[t] = None;
                                Phase::Take
                            }
                        },
                        None => Phase::Take,
                    },
                    Phase::Take => match files[1 - t].read_back(&mut buf) {
                        Step::Read => Phase::Take,
                        Step::Done | Step::Failed => Phase::Done,
                    },
                    Phase::Done => Phase::Done,
                };
            }
            let [a, b] = files;
            let [own_a, own_b] = owned;
            for ((file, own), (path, text)) in [(a, own_a), (b, own_b)].into_iter().zip(paths.iter().zip(&texts)) {
                let block = super::super::table::read_in_blocks_of(path, None, 64, Vec::<Row>::new());
                match (file.merged(own).map(|rows| (rows.lines().to_vec(), rows.finish())), block) {
                    (Some((lines, Ok((schema, rows)))), Some((block_schema, block_rows))) => {
                        prop_assert_eq!(lines, row_lines(text));
                        let shared = BenchTable { schema, rows };
                        let block = BenchTable { schema: block_schema, rows: block_rows };
                        prop_assert_eq!(same_rows(&shared, &block), Ok(()));
                    }
                    // Refused when whole (a duplicated shape), as the block reader refuses it.
                    (Some((_, Err(_))) | None, None) => {}
                    (shared, block) => prop_assert!(
                        false,
                        "shared: {:?}, block reader: {:?}",
                        shared.map(|(_, r)| r.is_ok()),
                        block.is_some()
                    ),
                }
            }
        }

        /// `read_metric_pair` gives each file's table, or its error, as `read_metric` does.
        #[test]
        fn pair_reads_agree_with_reading_each_file(
            picks in prop::collection::vec(
                prop::collection::vec(any::<u8>(), 0..40), 2..=2),
            trailing_newline: bool,
        ) {
            let dir = tempfile::tempdir().unwrap();
            let paths = [dir.path().join("a.csv"), dir.path().join("b.csv")];
            for (path, picks) in paths.iter().zip(&picks) {
                std::fs::write(path, csv_of(picks, trailing_newline)).unwrap();
            }
            let (a, b) = ColumnTable::read_metric_pair(&paths[0], &paths[1], None);
            for (pair, path) in [(a, &paths[0]), (b, &paths[1])] {
                match (pair, ColumnTable::read_metric(path, None)) {
                    (Ok(pair), Ok(alone)) => prop_assert_eq!(same_rows(&pair, &alone), Ok(())),
                    (Err(pair), Err(alone)) => prop_assert_eq!(pair.to_string(), alone.to_string()),
                    (pair, alone) => prop_assert!(
                        false,
                        "{:?} against {:?}",
                        pair.map(|_| ()),
                        alone.map(|_| ())
                    ),
                }
            }
        }
    }

    /// One thread held up from the start: the other reads its own file, then every chunk of
    /// the held-up one, and both tables are whole.
    #[test]
    fn a_thread_that_never_starts_leaves_its_file_to_the_other() {
        let dir = tempfile::tempdir().unwrap();
        let text = csv_of(&[9; 30], true);
        let paths = [dir.path().join("a.csv"), dir.path().join("b.csv")];
        for path in &paths {
            std::fs::write(path, &text).unwrap();
        }
        let files = [
            ChunkedFile::new(&paths[0], Vec::<Row>::new(), 100),
            ChunkedFile::new(&paths[1], Vec::<Row>::new(), 100),
        ];
        let own = files[0].read_own();
        files[1].take_all();
        // The held-up thread comes at last and finds nothing left.
        let late = files[1].read_own();
        files[0].take_all();
        let [a, b] = files;
        let (a, b) = (a.finish(own).unwrap(), b.finish(late).unwrap());
        assert_eq!(a.1.len(), 30);
        let whole = BenchTable::parse(&text, &paths[0]).unwrap();
        for (schema, rows) in [a, b] {
            assert_eq!(same_rows(&BenchTable { schema, rows }, &whole), Ok(()));
        }
    }
}
