//! Atomic file writes and the campaign lock.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::IoContext;
use crate::{Error, Result};

/// Write `bytes` to `path` atomically: a temp file in the same directory, fsync, rename,
/// then fsync the directory so the rename itself survives a crash.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).ctx(|| format!("creating {}", dir.display()))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".kcamp-tmp-")
        .tempfile_in(dir)
        .ctx(|| format!("creating a temp file in {}", dir.display()))?;
    tmp.write_all(bytes)
        .ctx(|| format!("writing {}", path.display()))?;
    // tempfile creates 0600; campaign files are ordinary documents (0644 before umask).
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = tmp
            .as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644));
    }
    tmp.as_file()
        .sync_all()
        .ctx(|| format!("syncing {}", path.display()))?;
    tmp.persist(path)
        .map_err(|e| Error::io(format!("renaming into {}", path.display()), e.error))?;
    sync_dir(dir);
    Ok(())
}

/// Serialize `value` as pretty JSON (with a trailing newline) and write it atomically.
pub fn write_json_atomic<T: serde::Serialize>(path: &Path, value: &T) -> Result<()> {
    let mut text = serde_json::to_string_pretty(value)
        .map_err(|e| Error::Internal(format!("serializing {}: {e}", path.display())))?;
    text.push('\n');
    write_atomic(path, text.as_bytes())
}

/// Best effort: some filesystems refuse to open or sync a directory.
pub fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Append one line and fsync (the journal is append-only).
pub fn append_line(path: &Path, line: &str) -> Result<()> {
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .ctx(|| format!("opening {}", path.display()))?;
    let mut buf = line.trim_end_matches('\n').to_owned();
    buf.push('\n');
    f.write_all(buf.as_bytes())
        .ctx(|| format!("appending to {}", path.display()))?;
    f.sync_all().ctx(|| format!("syncing {}", path.display()))
}

/// An exclusive advisory lock on a file, held until dropped. The OS releases it when the
/// process dies, so a crashed writer never leaves a stale lock; the file's text names
/// the holder for the error message of the next writer.
#[derive(Debug)]
pub struct LockGuard {
    file: File,
    path: PathBuf,
}

impl LockGuard {
    /// Try to take the lock; `what` describes this holder (e.g. the command line).
    pub fn acquire(path: &Path, what: &str) -> Result<LockGuard> {
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(path)
            .ctx(|| format!("opening lock file {}", path.display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(Error::Locked {
                    path: path.to_owned(),
                    holder: read_holder(path).unwrap_or_else(|| "another process".to_owned()),
                });
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(Error::io(format!("locking {}", path.display()), e));
            }
        }
        file.set_len(0)
            .ctx(|| format!("truncating {}", path.display()))?;
        let holder = format!("pid {} ({what})", std::process::id());
        file.write_all(holder.as_bytes())
            .ctx(|| format!("writing {}", path.display()))?;
        file.sync_all()
            .ctx(|| format!("syncing {}", path.display()))?;
        Ok(LockGuard {
            file,
            path: path.to_owned(),
        })
    }

    /// Who holds the lock right now, or None if it is free. Never blocks.
    pub fn holder(path: &Path) -> Option<String> {
        let file = OpenOptions::new().read(true).write(true).open(path).ok()?;
        match file.try_lock() {
            Ok(()) => {
                let _ = file.unlock();
                None
            }
            Err(_) => Some(read_holder(path).unwrap_or_else(|| "another process".to_owned())),
        }
    }
}

fn read_holder(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let t = text.trim();
    (!t.is_empty()).then(|| t.to_owned())
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        // Clear the holder text first so a reader never names a process that has let go.
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
        let _ = &self.path;
    }
}

/// Replace `dst` by `src` (both directories) with renames.
pub fn replace_dir(src: &Path, dst: &Path) -> Result<()> {
    let old = dst.with_file_name(format!(
        ".{}.old",
        dst.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    ));
    remove_dir_if_exists(&old)?;
    if dst.exists() {
        std::fs::rename(dst, &old).ctx(|| format!("moving {} aside", dst.display()))?;
    }
    std::fs::rename(src, dst).ctx(|| format!("renaming {} to {}", src.display(), dst.display()))?;
    if let Some(parent) = dst.parent() {
        sync_dir(parent);
    }
    remove_dir_if_exists(&old)
}

pub fn remove_dir_if_exists(p: &Path) -> Result<()> {
    match std::fs::remove_dir_all(p) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(format!("removing {}", p.display()), e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            .filter(|e| e.file_name().to_string_lossy().starts_with(".kcamp-tmp-"))
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
}
