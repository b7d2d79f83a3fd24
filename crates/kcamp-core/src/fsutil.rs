//! File-system primitives every writer goes through: atomic writes, whole-line appends,
//! directory swaps, the campaign lock, and the reading of user-supplied input files.
//!
//! Every mutating call passes [`step`] first; a test build can kill the process at the
//! N-th step (`KCAMP_KILL_AT_FS_STEP=N`) to prove that recovery finds the previous or the
//! next state after a kill at any syscall. Every system call that can fail on a full,
//! failing or read-only disk (a write, an fsync, a rename, a directory sync, a creation or a
//! removal) passes [`fault`] first; a test build can make the N-th of them fail with an
//! errno (`KCAMP_FS_FAULT=N:EIO`) to prove that no such failure is reported as success.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::error::IoContext;
use crate::{Error, Result};

/// Test hook: `KCAMP_KILL_AT_FS_STEP=N` SIGKILLs the process just before its N-th
/// file-system mutation (a write, rename, append, removal or directory creation), as an
/// `strace -e inject=...:signal=KILL` would; `KCAMP_FS_TRACE=1` prints every step on
/// stderr. Compiled only with the `test-support` feature.
#[cfg(feature = "test-support")]
pub fn step(what: &str, path: &Path) {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU32, Ordering};
    static COUNT: AtomicU32 = AtomicU32::new(0);
    static TARGET: OnceLock<Option<u32>> = OnceLock::new();
    let n = COUNT.fetch_add(1, Ordering::SeqCst) + 1;
    if std::env::var_os("KCAMP_FS_TRACE").is_some() {
        eprintln!("kcamp: fs step {n}: {what} {}", path.display());
    }
    let target = TARGET.get_or_init(|| {
        std::env::var("KCAMP_KILL_AT_FS_STEP")
            .ok()
            .and_then(|v| v.parse().ok())
    });
    if *target == Some(n) {
        eprintln!("kcamp: killed at fs step {n}: {what} {}", path.display());
        // SIGKILL cannot be caught: exactly like a kill from outside.
        let _ =
            rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::KILL);
    }
}

#[cfg(not(feature = "test-support"))]
#[inline(always)]
pub fn step(_what: &str, _path: &Path) {}

/// Test hook: `KCAMP_FAILPOINT=append:enospc` makes the next append write half its line
/// and then fail with ENOSPC, as a full disk does.
#[cfg(feature = "test-support")]
fn injected_enospc() -> bool {
    std::env::var("KCAMP_FAILPOINT").is_ok_and(|v| v == "append:enospc")
}

#[cfg(not(feature = "test-support"))]
#[inline(always)]
fn injected_enospc() -> bool {
    false
}

/// The errnos a fault point can be made to fail with, by name.
pub const FAULT_ERRNOS: [(&str, rustix::io::Errno); 5] = [
    ("EIO", rustix::io::Errno::IO),
    ("ENOSPC", rustix::io::Errno::NOSPC),
    ("EACCES", rustix::io::Errno::ACCESS),
    ("EROFS", rustix::io::Errno::ROFS),
    ("EDQUOT", rustix::io::Errno::DQUOT),
];

/// Test hook: `KCAMP_FS_FAULT=N:ERRNO` (`ERRNO` one of [`FAULT_ERRNOS`]) makes the N-th
/// fault point of the process fail with that errno, as the system call it stands for
/// would on a failing disk; `KCAMP_FS_TRACE=1` prints every fault point on stderr as
/// `kcamp: fs op N: <op> <path>`. `op` is what the call does (`write`, `fsync`,
/// `rename`, `dirsync`, `append`, `mkdir`, `remove`, `copy`, `lock`) and `path` the file
/// the campaign depends on (the destination of an atomic write, not its temp file).
/// Compiled only with the `test-support` feature.
#[cfg(feature = "test-support")]
pub fn fault(op: &str, path: &Path) -> std::io::Result<()> {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU32, Ordering};
    static COUNT: AtomicU32 = AtomicU32::new(0);
    static TARGET: OnceLock<Option<(u32, rustix::io::Errno)>> = OnceLock::new();
    let n = COUNT.fetch_add(1, Ordering::SeqCst) + 1;
    if std::env::var_os("KCAMP_FS_TRACE").is_some() {
        eprintln!("kcamp: fs op {n}: {op} {}", path.display());
    }
    let target = TARGET.get_or_init(|| {
        let v = std::env::var("KCAMP_FS_FAULT").ok()?;
        let (at, name) = v.split_once(':')?;
        let errno = FAULT_ERRNOS.iter().find(|(n, _)| *n == name)?.1;
        Some((at.parse().ok()?, errno))
    });
    match target {
        Some((at, errno)) if *at == n => {
            // The path stays out of this line: the error kcamp reports must name it.
            eprintln!("kcamp: injected {} at fs op {n} ({op})", errno_name(*errno));
            Err((*errno).into())
        }
        _ => Ok(()),
    }
}

#[cfg(not(feature = "test-support"))]
#[inline(always)]
pub fn fault(_op: &str, _path: &Path) -> std::io::Result<()> {
    Ok(())
}

#[cfg(feature = "test-support")]
fn errno_name(errno: rustix::io::Errno) -> &'static str {
    FAULT_ERRNOS
        .iter()
        .find(|(_, e)| *e == errno)
        .map_or("an error", |(n, _)| n)
}

/// The error for a symbolic link where kcamp writes, deletes or restores.
pub fn symlink_refused(path: &Path) -> Error {
    let target = std::fs::read_link(path)
        .map(|t| format!(" (pointing to {})", t.display()))
        .unwrap_or_default();
    Error::input(format!(
        "{} is a symbolic link{target}: kcamp does not follow links inside a campaign; \
         replace it with a real file or directory",
        path.display()
    ))
}

/// Open flags that refuse a symbolic link in the last path component.
fn nofollow() -> i32 {
    use rustix::fs::OFlags;
    (OFlags::NOFOLLOW | OFlags::CLOEXEC).bits() as i32
}

/// Map the ELOOP of an `O_NOFOLLOW` open to the symlink refusal, anything else to I/O.
fn open_error(path: &Path, what: &str, e: std::io::Error) -> Error {
    if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) {
        symlink_refused(path)
    } else {
        Error::io(format!("{what} {}", path.display()), e)
    }
}

/// Write `bytes` to `path` atomically: a temp file in the same directory, fsync, rename,
/// then fsync the directory so the rename itself survives a crash.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    create_dir_all(dir)?;
    step("write", path);
    let mut tmp = fault("write", path)
        .and_then(|()| tempfile::Builder::new().prefix(TMP_PREFIX).tempfile_in(dir))
        .ctx(|| {
            format!(
                "creating a temp file in {} to write {}",
                dir.display(),
                path.display()
            )
        })?;
    tmp.write_all(bytes)
        .ctx(|| format!("writing {}", path.display()))?;
    // tempfile creates 0600; campaign files are ordinary documents (0644 before umask).
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))
            .ctx(|| format!("setting the mode of {}", path.display()))?;
    }
    fault("fsync", path)
        .and_then(|()| tmp.as_file().sync_all())
        .ctx(|| format!("syncing {}", path.display()))?;
    step("rename", path);
    fault("rename", path).ctx(|| format!("renaming into {}", path.display()))?;
    // rename(2) replaces a symbolic link itself, never the file it points to.
    tmp.persist(path)
        .map_err(|e| Error::io(format!("renaming into {}", path.display()), e.error))?;
    sync_dir(dir)
}

/// Prefix of the temp files of [`write_atomic`]; one left behind by a killed process is
/// removed by the next writing command.
pub const TMP_PREFIX: &str = ".kcamp-tmp-";

/// Serialize `value` as pretty JSON (with a trailing newline) and write it atomically.
pub fn write_json_atomic<T: serde::Serialize>(path: &Path, value: &T) -> Result<()> {
    let mut text = serde_json::to_string_pretty(value)
        .map_err(|e| Error::Internal(format!("serializing {}: {e}", path.display())))?;
    text.push('\n');
    write_atomic(path, text.as_bytes())
}

/// Sync a directory, so that the renames and creations in it survive a crash. A failure is
/// an error naming the directory (the entries it holds may be lost), except where the file
/// system says it cannot sync a directory at all (EINVAL, ENOTSUP: some network and FUSE
/// file systems), which loses nothing a sync would have kept.
pub fn sync_dir(dir: &Path) -> Result<()> {
    let what = || format!("syncing the directory {}", dir.display());
    fault("dirsync", dir).ctx(what)?;
    let d = File::open(dir).ctx(what)?;
    match d.sync_all() {
        Ok(()) => Ok(()),
        Err(e)
            if [rustix::io::Errno::INVAL, rustix::io::Errno::NOTSUP]
                .iter()
                .any(|n| e.raw_os_error() == Some(n.raw_os_error())) =>
        {
            Ok(())
        }
        Err(e) => Err(Error::io(what(), e)),
    }
}

pub fn create_dir_all(dir: &Path) -> Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    step("mkdir", dir);
    fault("mkdir", dir)
        .and_then(|()| std::fs::create_dir_all(dir))
        .ctx(|| format!("creating {}", dir.display()))?;
    // The new entry in its parent must survive a crash like a renamed file.
    match dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(parent) => sync_dir(parent),
        None => Ok(()),
    }
}

/// A torn last line that [`append_line`] moved out of the way before appending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetAside {
    /// Bytes of the fragment.
    pub bytes: u64,
    /// The file that received it (`<file>.torn`).
    pub saved_to: PathBuf,
}

/// The file where [`append_line`] keeps torn fragments of `path`.
pub fn torn_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".torn");
    path.with_file_name(name)
}

/// Append one whole line and fsync, or append nothing: a write that fails part-way (a full
/// disk) is cut back to the previous end. A torn last line that an earlier crash left (no
/// newline) is first moved to `<file>.torn`, so the new line never fuses with a fragment;
/// the returned [`SetAside`] says so, for the caller to report once.
pub fn append_line(path: &Path, line: &str) -> Result<Option<SetAside>> {
    step("append", path);
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .read(true)
        .custom_flags(nofollow())
        .open(path)
        .map_err(|e| open_error(path, "opening", e))?;
    let len = f
        .metadata()
        .ctx(|| format!("reading {}", path.display()))?
        .len();
    let mut end = len;
    let set_aside = match torn_tail(&f, len).ctx(|| format!("reading {}", path.display()))? {
        Some(start) => {
            let mut fragment = vec![0; (len - start) as usize];
            f.read_exact_at(&mut fragment, start)
                .ctx(|| format!("reading {}", path.display()))?;
            let saved_to = torn_path(path);
            fragment.push(b'\n');
            let mut keep = OpenOptions::new()
                .create(true)
                .append(true)
                .custom_flags(nofollow())
                .open(&saved_to)
                .map_err(|e| open_error(&saved_to, "opening", e))?;
            fault("append", &saved_to)
                .and_then(|()| keep.write_all(&fragment))
                .and_then(|()| fault("fsync", &saved_to))
                .and_then(|()| keep.sync_all())
                .ctx(|| format!("writing {}", saved_to.display()))?;
            fault("write", path)
                .and_then(|()| f.set_len(start))
                .ctx(|| format!("cutting the torn last line of {}", path.display()))?;
            end = start;
            Some(SetAside {
                bytes: len - start,
                saved_to,
            })
        }
        None => None,
    };
    let mut buf = line.trim_end_matches('\n').to_owned();
    buf.push('\n');
    let written = if injected_enospc() {
        let half = buf.len() / 2;
        f.write_all(&buf.as_bytes()[..half])
            .and(Err(rustix::io::Errno::NOSPC.into()))
    } else {
        fault("append", path).and_then(|()| f.write_all(buf.as_bytes()))
    };
    let synced = written.and_then(|()| fault("fsync", path).and_then(|()| f.sync_all()));
    if let Err(e) = synced {
        // Whole lines or nothing: cutting a file back needs no free space. A line whose
        // sync failed is not known to be on the disk, so it goes too.
        let _ = f.set_len(end);
        let _ = f.sync_all();
        return Err(Error::io(format!("appending to {}", path.display()), e));
    }
    Ok(set_aside)
}

/// Where the unfinished last line of a file of `len` bytes starts, if it does not end
/// with a newline.
fn torn_tail(f: &File, len: u64) -> std::io::Result<Option<u64>> {
    if len == 0 {
        return Ok(None);
    }
    let mut last = [0u8; 1];
    f.read_exact_at(&mut last, len - 1)?;
    if last[0] == b'\n' {
        return Ok(None);
    }
    let mut end = len;
    let mut chunk = vec![0u8; 4096];
    while end > 0 {
        let start = end.saturating_sub(chunk.len() as u64);
        let buf = &mut chunk[..(end - start) as usize];
        f.read_exact_at(buf, start)?;
        if let Some(i) = memchr::memrchr(b'\n', buf) {
            return Ok(Some(start + i as u64 + 1));
        }
        end = start;
    }
    Ok(Some(0))
}

/// Split text into its complete lines (each ended by a newline) and a torn last line, if
/// any. A line counts only once its newline is written.
pub fn complete_lines(text: &str) -> (impl Iterator<Item = (usize, &str)>, Option<&str>) {
    let (whole, torn) = match text.rfind('\n') {
        Some(i) => (&text[..=i], &text[i + 1..]),
        None => ("", text),
    };
    (
        whole.lines().enumerate().map(|(i, l)| (i + 1, l)),
        (!torn.is_empty()).then_some(torn),
    )
}

/// An exclusive advisory lock on a file, held until dropped. The OS releases it when the
/// process dies, so a crashed writer never leaves a stale lock; the file's text names
/// the holder for readers and for the error message of the next writer.
#[derive(Debug)]
pub struct LockGuard {
    file: File,
}

/// How long a refused writer waits for the holder to finish writing its name.
const HOLDER_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

impl LockGuard {
    /// Try to take the lock; `what` describes this holder (e.g. the command line).
    pub fn acquire(path: &Path, what: &str) -> Result<LockGuard> {
        step("lock", path);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .custom_flags(nofollow())
            .open(path)
            .map_err(|e| open_error(path, "opening lock file", e))?;
        let meta = file
            .metadata()
            .ctx(|| format!("reading lock file {}", path.display()))?;
        if !meta.is_file() {
            return Err(Error::input(format!(
                "{} is not a regular file: the campaign lock must be one",
                path.display()
            )));
        }
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(Error::Locked {
                    path: path.to_owned(),
                    holder: wait_for_holder(path),
                });
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(Error::io(format!("locking {}", path.display()), e));
            }
        }
        // Written in place and then cut to length, so a reader never sees an empty file
        // while the lock is held (only, briefly, the name of a dead previous holder).
        let holder = format!("pid {} ({what})", std::process::id());
        fault("lock", path)
            .and_then(|()| file.write_all_at(holder.as_bytes(), 0))
            .and_then(|()| file.set_len(holder.len() as u64))
            .and_then(|()| file.sync_all())
            .ctx(|| format!("writing {}", path.display()))?;
        Ok(LockGuard { file })
    }

    /// Who holds the lock right now, or None if it is free. Reads the holder's text and
    /// checks that its process lives; never takes the lock, so a reader can never make a
    /// writer fail.
    pub fn holder(path: &Path) -> Option<String> {
        let text = read_holder(path)?;
        holder_pid(&text).filter(|pid| process_alive(*pid))?;
        Some(text)
    }
}

/// The holder named in the lock file, retried briefly: a writer that has just taken the
/// lock may not have written its name yet.
fn wait_for_holder(path: &Path) -> String {
    let deadline = std::time::Instant::now() + HOLDER_WAIT;
    loop {
        if let Some(h) = LockGuard::holder(path) {
            return h;
        }
        if std::time::Instant::now() >= deadline {
            return "another process (it has not written its pid yet)".to_owned();
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

fn read_holder(path: &Path) -> Option<String> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(nofollow())
        .open(path)
        .ok()?;
    let mut text = String::new();
    file.take(4096).read_to_string(&mut text).ok()?;
    let t = text.trim();
    (!t.is_empty()).then(|| t.to_owned())
}

/// Who holds a lock, as data: the holder's pid and command (`pid 7 (kcamp validate)`), and
/// since when (the lock file's last write).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LockHolder {
    pub pid: u32,
    pub command: String,
    pub since: Option<chrono::DateTime<chrono::Utc>>,
}

impl LockHolder {
    /// The holder a lock file's text names (`pid 7 (kcamp validate)`).
    pub fn parse(text: &str) -> Option<LockHolder> {
        let pid = holder_pid(text)?;
        let command = text
            .split_once(" (")
            .and_then(|(_, rest)| rest.strip_suffix(')'))
            .unwrap_or_default()
            .to_owned();
        Some(LockHolder {
            pid,
            command,
            since: None,
        })
    }

    /// The live holder of the lock at `path`, with the time it took the lock.
    pub fn of(path: &Path) -> Option<LockHolder> {
        let mut holder = LockHolder::parse(&LockGuard::holder(path)?)?;
        holder.since = std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .map(chrono::DateTime::<chrono::Utc>::from);
        Some(holder)
    }
}

fn holder_pid(text: &str) -> Option<u32> {
    text.strip_prefix("pid ")?
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// Whether a process with this pid exists (signal 0 checks without sending).
pub fn process_alive(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .filter(|p| *p > 0)
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    // Signal 0 checks without sending; EPERM: it exists, as another user's.
    match rustix::process::test_kill_process(pid) {
        Ok(()) => true,
        Err(e) => e == rustix::io::Errno::PERM,
    }
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        // Clear the holder text first so a reader never names a process that has let go.
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}

/// The running executable, to start more of it (workers, the dashboard's commands): on
/// Linux `/proc/self/exe`, which goes on naming this very binary after its file is replaced
/// or removed (a rebuild while a campaign runs: its path then names another program, or
/// none, and a worker of another build would fail cases that are not the kernel's fault);
/// elsewhere its path.
pub fn this_executable() -> std::io::Result<PathBuf> {
    let own = Path::new("/proc/self/exe");
    if cfg!(target_os = "linux") && own.exists() {
        return Ok(own.to_path_buf());
    }
    std::env::current_exe()
}

/// Rename `from` to `to` (a step of a multi-rename change) and sync the directory.
pub fn rename(from: &Path, to: &Path) -> Result<()> {
    step("rename", to);
    fault("rename", to)
        .and_then(|()| std::fs::rename(from, to))
        .ctx(|| format!("renaming {} to {}", from.display(), to.display()))?;
    match to.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(parent) => sync_dir(parent),
        None => Ok(()),
    }
}

pub fn remove_dir_if_exists(p: &Path) -> Result<()> {
    if std::fs::symlink_metadata(p).is_err() {
        return Ok(());
    }
    step("remove", p);
    fault("remove", p).ctx(|| format!("removing {}", p.display()))?;
    // remove_dir_all removes a symbolic link itself, never what it points to.
    match std::fs::remove_dir_all(p) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            std::fs::remove_file(p).ctx(|| format!("removing {}", p.display()))
        }
        Err(e) => Err(Error::io(format!("removing {}", p.display()), e)),
    }
}

pub fn remove_file_if_exists(p: &Path) -> Result<()> {
    if std::fs::symlink_metadata(p).is_err() {
        return Ok(());
    }
    step("remove", p);
    fault("remove", p).ctx(|| format!("removing {}", p.display()))?;
    match std::fs::remove_file(p) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(format!("removing {}", p.display()), e)),
    }
}

/// Copy one regular file and fsync the copy; a copy that cannot be synced is an error,
/// like one that cannot be written.
pub fn copy_file(from: &Path, to: &Path) -> Result<()> {
    step("copy", to);
    fault("copy", to)
        .and_then(|()| std::fs::copy(from, to))
        .ctx(|| format!("copying {} to {}", from.display(), to.display()))?;
    fault("fsync", to)
        .and_then(|()| File::open(to))
        .and_then(|f| f.sync_all())
        .ctx(|| format!("syncing {}", to.display()))
}

/// Largest input file kcamp reads (a CSV of 10,000 shapes is about 1 MB; samples of
/// 200,000 repeats about 10 MB).
pub const MAX_INPUT_BYTES: u64 = 256 << 20;

/// Read a user-supplied text file (a CSV, a manifest, a shapes list). Every problem with
/// the input itself is bad input (exit 2) naming the path: missing, a directory or a
/// device instead of a regular file, larger than `max_bytes`, not UTF-8 (with the line).
/// Only a failing read of a proper file is an I/O error.
pub fn read_input_text(path: &Path, max_bytes: u64) -> Result<String> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::in_file(path, None, None, "no such file"));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            return Err(Error::in_file(
                path,
                None,
                None,
                "no such file (a parent is not a directory)",
            ));
        }
        Err(e) => return Err(Error::io(format!("reading {}", path.display()), e)),
    };
    if meta.is_dir() {
        return Err(Error::in_file(
            path,
            None,
            None,
            "is a directory, not a file",
        ));
    }
    if !meta.is_file() {
        return Err(Error::in_file(
            path,
            None,
            None,
            "is not a regular file (a device, pipe or socket)",
        ));
    }
    if meta.len() > max_bytes {
        return Err(Error::in_file(
            path,
            None,
            None,
            format!(
                "is {} bytes, more than the {max_bytes} bytes kcamp reads",
                meta.len()
            ),
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    File::open(path)
        .and_then(|f| f.take(max_bytes + 1).read_to_end(&mut bytes))
        .ctx(|| format!("reading {}", path.display()))?;
    if bytes.len() as u64 > max_bytes {
        return Err(Error::in_file(
            path,
            None,
            None,
            format!("grew past the {max_bytes} bytes kcamp reads while being read"),
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..valid]
            .iter()
            .filter(|b| **b == b'\n')
            .count() as u64
            + 1;
        Error::in_file(path, Some(line), None, "not valid UTF-8")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_holder_is_read_as_its_pid_and_command() {
        let h = LockHolder::parse("pid 42 (kcamp validate (test))").unwrap();
        assert_eq!((h.pid, h.command.as_str()), (42, "kcamp validate (test)"));
        assert_eq!(LockHolder::parse("pid 7").unwrap().command, "");
        assert_eq!(LockHolder::parse("someone"), None);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        let _held = LockGuard::acquire(&path, "kcamp rollback").unwrap();
        let live = LockHolder::of(&path).unwrap();
        assert_eq!(live.pid, std::process::id());
        assert_eq!(live.command, "kcamp rollback");
        assert!(live.since.is_some());
    }

    #[test]
    fn atomic_write_replaces_content() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a/b.txt");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
        let leftovers: Vec<_> = std::fs::read_dir(p.parent().unwrap())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with(TMP_PREFIX))
            .collect();
        assert!(leftovers.is_empty());
    }

    #[test]
    fn second_lock_names_holder() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("lock");
        let g = LockGuard::acquire(&p, "kcamp accept").unwrap();
        let err = LockGuard::acquire(&p, "kcamp rollback").unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("pid {}", std::process::id())),
            "{msg}"
        );
        assert!(msg.contains("kcamp accept"), "{msg}");
        assert!(LockGuard::holder(&p).is_some());
        drop(g);
        assert!(LockGuard::holder(&p).is_none());
        LockGuard::acquire(&p, "again").unwrap();
    }

    /// A writer refused right after another took the lock (before it wrote its name) still
    /// names the holder's pid (docs/reliability.md, "Readers and writers").
    #[test]
    fn refused_writer_waits_for_the_holder_name() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("lock");
        let held = File::create(&p).unwrap();
        held.try_lock().unwrap();
        let late = p.clone();
        let writer = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            std::fs::write(&late, format!("pid {} (late writer)", std::process::id())).unwrap();
        });
        let err = LockGuard::acquire(&p, "second").unwrap_err().to_string();
        writer.join().unwrap();
        assert!(
            err.contains(&format!("pid {} (late writer)", std::process::id())),
            "{err}"
        );
    }

    #[test]
    fn holder_of_a_dead_process_is_no_holder() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("lock");
        // A crashed writer leaves its text; the pid no longer runs.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        std::fs::write(&p, format!("pid {dead} (kcamp accept)")).unwrap();
        assert_eq!(LockGuard::holder(&p), None);
        std::fs::write(&p, format!("pid {} (me)", std::process::id())).unwrap();
        assert!(LockGuard::holder(&p).is_some());
    }

    /// A reader asking who holds the lock never makes a writer fail (docs/reliability.md,
    /// "Readers and writers").
    #[test]
    fn readers_never_make_writers_fail() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("lock");
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let readers: Vec<_> = (0..4)
            .map(|_| {
                let (p, stop) = (p.clone(), stop.clone());
                std::thread::spawn(move || {
                    let mut seen = 0u64;
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        seen += u64::from(LockGuard::holder(&p).is_some());
                    }
                    seen
                })
            })
            .collect();
        for i in 0..2000 {
            let g = LockGuard::acquire(&p, "writer")
                .unwrap_or_else(|e| panic!("writer {i} refused while only readers ran: {e}"));
            drop(g);
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for r in readers {
            r.join().unwrap();
        }
    }

    #[test]
    fn lock_and_append_refuse_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.txt");
        std::fs::write(&outside, "precious").unwrap();
        let lock = dir.path().join("lock");
        std::os::unix::fs::symlink(&outside, &lock).unwrap();
        let err = LockGuard::acquire(&lock, "x").unwrap_err();
        assert_eq!(err.exit_code(), crate::error::exit::BAD_INPUT, "{err}");
        assert!(err.to_string().contains("symbolic link"), "{err}");
        let journal = dir.path().join("journal.jsonl");
        std::os::unix::fs::symlink(&outside, &journal).unwrap();
        assert!(append_line(&journal, "{}").is_err());
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious");
    }

    #[test]
    fn append_sets_a_torn_tail_aside_and_writes_whole_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("j.jsonl");
        std::fs::write(&p, "{\"a\":1}\n{\"b\":").unwrap();
        let aside = append_line(&p, "{\"c\":3}").unwrap().unwrap();
        assert_eq!(aside.bytes, 5);
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "{\"a\":1}\n{\"c\":3}\n"
        );
        assert_eq!(
            std::fs::read_to_string(&aside.saved_to).unwrap(),
            "{\"b\":\n"
        );
        assert_eq!(append_line(&p, "{\"d\":4}").unwrap(), None);
        // A file that is one torn line.
        std::fs::write(&p, "{\"x").unwrap();
        append_line(&p, "{}").unwrap().unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "{}\n");
    }

    #[test]
    fn complete_lines_hold_back_the_torn_tail() {
        let (lines, torn) = complete_lines("a\nb\nc");
        assert_eq!(lines.collect::<Vec<_>>(), vec![(1, "a"), (2, "b")]);
        assert_eq!(torn, Some("c"));
        let (lines, torn) = complete_lines("a\n");
        assert_eq!(lines.count(), 1);
        assert_eq!(torn, None);
    }

    #[test]
    fn input_problems_are_bad_input() {
        let dir = tempfile::tempdir().unwrap();
        let bad = |p: &Path| {
            let e = read_input_text(p, 1 << 20).unwrap_err();
            assert_eq!(e.exit_code(), crate::error::exit::BAD_INPUT, "{e}");
            assert!(e.to_string().contains(&p.display().to_string()), "{e}");
            e.to_string()
        };
        assert!(bad(&dir.path().join("missing.csv")).contains("no such file"));
        assert!(bad(dir.path()).contains("is a directory"));
        assert!(bad(Path::new("/dev/zero")).contains("not a regular file"));
        let p = dir.path().join("latin1.yaml");
        std::fs::write(&p, b"name: a\nop: caf\xe9\n").unwrap();
        assert!(bad(&p).contains(":2: not valid UTF-8"));
        let big = dir.path().join("big.csv");
        std::fs::write(&big, vec![b'a'; 2048]).unwrap();
        assert!(
            read_input_text(&big, 1024)
                .unwrap_err()
                .to_string()
                .contains("2048 bytes")
        );
    }
}
