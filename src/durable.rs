//! Files that survive a power loss whole or not at all: written beside their place, flushed to
//! the disk, renamed into place, and the folder's entry flushed too. Results and run manifests
//! go through [`write()`] or [`persist`]; the site, which is many files regenerated together, is
//! written into a folder beside its place, flushed once ([`sync_filesystem`]) and swapped in
//! ([`swap`]).

use std::io::Write;
use std::path::{Path, PathBuf};

/// `O_NOFOLLOW`, for `OpenOptionsExt::custom_flags`: opening a symbolic link fails.
pub const NOFOLLOW: i32 = rustix::fs::OFlags::NOFOLLOW.bits() as i32;

/// The steps of a durable write, so that their order can be checked without a disk.
pub trait Steps {
    /// Creates `path` (replacing it) with `bytes`.
    fn create(&mut self, path: &Path, bytes: &[u8]) -> std::io::Result<()>;
    /// Flushes the file's data and metadata to the disk (`fsync`).
    fn sync_file(&mut self, path: &Path) -> std::io::Result<()>;
    fn rename(&mut self, from: &Path, to: &Path) -> std::io::Result<()>;
    /// Flushes a folder's entries to the disk, so that a rename in it is kept.
    fn sync_dir(&mut self, dir: &Path) -> std::io::Result<()>;
    fn remove(&mut self, path: &Path);
}

/// The steps on the real file system.
#[derive(Debug, Default)]
pub struct Disk;

impl Steps for Disk {
    fn create(&mut self, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
        // A leftover temporary (or a link planted under its name) is removed, never followed,
        // and the new file is created exclusively: `O_EXCL` refuses to open through a link.
        if std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_dir()) {
            std::fs::remove_file(path)?;
        }
        let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(path)?;
        f.write_all(bytes)
    }

    fn sync_file(&mut self, path: &Path) -> std::io::Result<()> {
        std::fs::OpenOptions::new().read(true).open(path)?.sync_all()
    }

    fn rename(&mut self, from: &Path, to: &Path) -> std::io::Result<()> {
        std::fs::rename(from, to)
    }

    fn sync_dir(&mut self, dir: &Path) -> std::io::Result<()> {
        std::fs::File::open(dir)?.sync_all()
    }

    fn remove(&mut self, path: &Path) {
        let _ = std::fs::remove_file(path);
    }
}

/// The temporary name a file is written under before it is renamed to `path`.
pub fn temporary(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Writes `bytes` to `path` durably: into a temporary file beside it, `fsync`, rename, `fsync`
/// of the folder. A reader sees the old file or the new one, never a part; after a crash the
/// disk holds one of them too.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_with(&mut Disk, path, bytes)
}

/// [`write()`] through the given steps.
pub fn write_with(steps: &mut dyn Steps, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = temporary(path);
    let done = steps.create(&tmp, bytes).and_then(|()| persist_with(steps, &tmp, path));
    if done.is_err() {
        steps.remove(&tmp);
    }
    done
}

/// Moves a finished file (written by someone else, e.g. a benchmark's output) durably into place.
pub fn persist(from: &Path, to: &Path) -> std::io::Result<()> {
    persist_with(&mut Disk, from, to)
}

/// [`persist`] through the given steps.
pub fn persist_with(steps: &mut dyn Steps, from: &Path, to: &Path) -> std::io::Result<()> {
    steps.sync_file(from)?;
    steps.rename(from, to)?;
    steps.sync_dir(parent(to))
}

/// A name beside `path` for a folder that is about to take its place: `.<name>.perflab-<what>`.
/// The text of the file at `path`, which must be a regular file (a link to one is followed) of
/// at most `limit` bytes, in UTF-8: a FIFO, a device or an endless file is refused before it is
/// read, where reading it would hang or fill the memory.
pub fn read_text(path: &Path, limit: u64) -> std::io::Result<String> {
    let bytes = read_bytes(path, limit)?;
    String::from_utf8(bytes).map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "not UTF-8 text"))
}

/// The bytes of the file at `path`, refused as [`read_text`] refuses them, in any encoding.
pub fn read_bytes(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let refuse = |why: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, why);
    if !std::fs::metadata(path)?.is_file() {
        return Err(refuse("not a regular file".to_string()));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)?.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(refuse(format!("larger than {} MiB", limit >> 20)));
    }
    Ok(bytes)
}

/// Who holds a lock another process took ([`lock`]): the process id it wrote into the file.
#[derive(Debug)]
pub struct Held(pub String);

/// Takes an exclusive `flock` on the file at `path` (created when missing, never through a
/// symbolic link) and writes this process's id into it. The system drops the lock when the
/// process ends, however it ends; it is held while the file returned lives. `Ok(Err(held))`
/// when another process holds it.
pub fn lock(path: &Path) -> std::io::Result<Result<std::fs::File, Held>> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .custom_flags(NOFOLLOW)
        .open(path)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Ok(Err(Held(std::fs::read_to_string(path).unwrap_or_default().trim().to_string())));
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(e),
    }
    // The holder's process id, for a message: information only, the lock is the flock.
    file.set_len(0)?;
    file.write_all(std::process::id().to_string().as_bytes())?;
    Ok(Ok(file))
}

pub fn beside(path: &Path, what: &str) -> PathBuf {
    let mut name = std::ffi::OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(format!(".perflab-{what}"));
    path.with_file_name(name)
}

/// Removes a folder and everything in it, links as links (what they point to is left alone);
/// nothing there is no error. What lies two levels down (a site's language folders and their
/// studies' folders) is removed on every core, then the rest.
pub fn remove_tree(path: &Path) -> std::io::Result<()> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
        let mut below = Vec::new();
        for entry in std::fs::read_dir(path)? {
            let entry = entry?;
            if entry.file_type()?.is_dir() {
                for inner in std::fs::read_dir(entry.path())? {
                    below.push(inner?.path());
                }
            }
        }
        let removed = crate::parallel::map(below.len(), |i| remove_entry(&below[i]));
        removed.into_iter().collect::<std::io::Result<()>>()?;
    }
    remove_entry(path)
}

/// Removes a file, a link or a folder with everything in it.
fn remove_entry(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
    }
}

/// Copies what `keep` accepts (by path relative to `from`, `/`-separated) of the folder `from`
/// into `to`. Links are copied as links, never followed: nothing outside `from` is read.
pub fn copy_tree(from: &Path, to: &Path, keep: &dyn Fn(&str) -> bool) -> std::io::Result<()> {
    if !from.is_dir() {
        return Ok(());
    }
    for entry in walkdir::WalkDir::new(from).min_depth(1).follow_links(false).sort_by_file_name() {
        let entry = entry.map_err(std::io::Error::other)?;
        let Ok(rel) = entry.path().strip_prefix(from) else { continue };
        let rel_text = rel.to_string_lossy().replace(std::path::MAIN_SEPARATOR, "/");
        let kind = entry.file_type();
        if kind.is_dir() || !keep(&rel_text) {
            continue;
        }
        let target = to.join(rel);
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir)?;
        }
        if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// Flushes everything written to the file system that holds `path` to the disk: one `syncfs`
/// in place of an `fsync` a file.
pub fn sync_filesystem(path: &Path) -> std::io::Result<()> {
    let dir = std::fs::File::open(path)?;
    Ok(rustix::fs::syncfs(&dir)?)
}

/// Puts the folder `fresh` in the place of `path` in one step (`path` need not exist); the folder
/// that was at `path` is then at `fresh`. The parent folder's entries are flushed after.
pub fn swap(fresh: &Path, path: &Path) -> std::io::Result<()> {
    if std::fs::symlink_metadata(path).is_err() {
        std::fs::rename(fresh, path)?;
    } else if let Err(e) = exchange(fresh, path) {
        // A file system without an exchange: for a moment there is no folder at `path`, but
        // never a part of one.
        use rustix::io::Errno;
        let unsupported = [Errno::INVAL, Errno::NOSYS, Errno::OPNOTSUPP].map(Errno::raw_os_error);
        if !e.raw_os_error().is_some_and(|n| unsupported.contains(&n)) {
            return Err(e);
        }
        let old = beside(path, "old");
        remove_tree(&old)?;
        std::fs::rename(path, &old)?;
        std::fs::rename(fresh, path)?;
        std::fs::rename(&old, fresh)?;
    }
    Disk.sync_dir(parent(path))
}

/// `renameat2(RENAME_EXCHANGE)`: two paths trade places atomically.
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    Ok(renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_is_removed_at_every_depth_and_its_links_not_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tmp.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("keep"), "x").unwrap();
        let tree = tmp.path().join("tree");
        for dir in ["a/b/c", "a/d", "e"] {
            std::fs::create_dir_all(tree.join(dir)).unwrap();
        }
        for file in ["top", "a/one", "a/b/two", "a/b/c/three", "e/four"] {
            std::fs::write(tree.join(file), file).unwrap();
        }
        std::os::unix::fs::symlink(&outside, tree.join("a/link")).unwrap();
        std::os::unix::fs::symlink(&outside, tree.join("a/b/link")).unwrap();
        remove_tree(&tree).unwrap();
        assert!(!tree.exists());
        assert_eq!(std::fs::read_to_string(outside.join("keep")).unwrap(), "x");
        // Nothing there is no error; a file is removed as well.
        remove_tree(&tree).unwrap();
        std::fs::write(&tree, "f").unwrap();
        remove_tree(&tree).unwrap();
        assert!(!tree.exists());
    }

    /// Records each step and does it on the disk.
    #[derive(Default)]
    struct Journal(Vec<String>);

    impl Steps for Journal {
        fn create(&mut self, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
            self.0.push(format!("create {}", path.file_name().unwrap().to_string_lossy()));
            Disk.create(path, bytes)
        }
        fn sync_file(&mut self, path: &Path) -> std::io::Result<()> {
            self.0.push(format!("fsync {}", path.file_name().unwrap().to_string_lossy()));
            Disk.sync_file(path)
        }
        fn rename(&mut self, from: &Path, to: &Path) -> std::io::Result<()> {
            self.0.push(format!(
                "rename {} {}",
                from.file_name().unwrap().to_string_lossy(),
                to.file_name().unwrap().to_string_lossy()
            ));
            Disk.rename(from, to)
        }
        fn sync_dir(&mut self, dir: &Path) -> std::io::Result<()> {
            self.0.push(format!("fsync-dir {}", dir.file_name().unwrap().to_string_lossy()));
            Disk.sync_dir(dir)
        }
        fn remove(&mut self, path: &Path) {
            self.0.push(format!("remove {}", path.file_name().unwrap().to_string_lossy()));
            Disk.remove(path)
        }
    }

    #[test]
    fn the_file_is_flushed_before_the_rename_and_the_folder_after() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("runs");
        std::fs::create_dir(&dir).unwrap();
        let path = dir.join("p.manifest.json");
        std::fs::write(&path, "old").unwrap();
        let mut journal = Journal::default();
        write_with(&mut journal, &path, b"new").unwrap();
        assert_eq!(
            journal.0,
            [
                "create p.manifest.json.tmp",
                "fsync p.manifest.json.tmp",
                "rename p.manifest.json.tmp p.manifest.json",
                "fsync-dir runs"
            ]
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert!(!temporary(&path).exists());

        let out = dir.join("p.txt.tmp");
        std::fs::write(&out, "result").unwrap();
        let mut journal = Journal::default();
        persist_with(&mut journal, &out, &dir.join("p.txt")).unwrap();
        assert_eq!(journal.0, ["fsync p.txt.tmp", "rename p.txt.tmp p.txt", "fsync-dir runs"]);
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("page.html");
        std::fs::write(&path, "old").unwrap();
        // A folder where the temporary file should go makes the write fail.
        std::fs::create_dir(temporary(&path)).unwrap();
        assert!(write(&path, b"new").is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
    }

    #[test]
    fn a_link_under_the_temporary_name_is_replaced_not_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let victim = tmp.path().join("victim.txt");
        std::fs::write(&victim, "precious").unwrap();
        let dir = tmp.path().join("runs");
        std::fs::create_dir(&dir).unwrap();
        let path = dir.join("recorded.json");
        std::os::unix::fs::symlink(&victim, temporary(&path)).unwrap();
        write(&path, b"{}").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}");
        assert!(!std::fs::symlink_metadata(&path).unwrap().file_type().is_symlink());
    }
}
