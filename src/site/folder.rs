//! Where a build writes: a new folder beside the old site, which replaces it whole when the
//! build is finished, or memory; and which files of the old site a build keeps or links.

use super::{FILE_LIST, MAX_LIST_BYTES, RECORD, Reuse, SiteUrl, belongs_to, reuse, study_of};
use crate::render::{Flavor, Renderer};
use crate::study::Study;
use anyhow::Context;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::Path;

/// The files the previous build in `out` wrote for the studies `ids` that this build does not
/// write (`written`) and that are still there: the pages a study that did not load keeps.
pub(super) fn kept_files(out: &Path, ids: &[String], written: &dyn Fn(&str) -> bool) -> BTreeSet<String> {
    if ids.is_empty() {
        return BTreeSet::new();
    }
    let previous = crate::durable::read_text(&out.join(FILE_LIST), MAX_LIST_BYTES).unwrap_or_default();
    previous
        .lines()
        .filter(|rel| ids.iter().any(|id| belongs_to(rel, id)) && !written(rel) && out.join(rel).is_file())
        .map(str::to_string)
        .collect()
}

/// A new site being written beside the old one in `out`, which it replaces whole when it is
/// finished ([`Folder::finish`]).
pub(super) struct Folder {
    pub(super) out: std::path::PathBuf,
    pub(super) fresh: std::path::PathBuf,
    /// The files the previous build listed.
    pub(super) listed: BTreeSet<String>,
    /// Folders made so far in `fresh`, and whether each (relative) is a real folder of `out`.
    pub(super) dirs: std::sync::Mutex<std::collections::HashMap<String, bool>>,
    /// The files written so far, each of a study's with the hash of its bytes ([`reuse`]).
    pub(super) written: std::sync::Mutex<BTreeMap<String, Option<blake3::Hash>>>,
    /// What each study's files are made from, for the record of this build.
    pub(super) keys: BTreeMap<String, reuse::Key>,
    /// The studies whose files are those of the old site ([`Folder::record_keys`]).
    pub(super) reused: BTreeSet<String>,
    /// The build's lock on the site, held while the folder lives.
    _lock: std::fs::File,
}

impl Folder {
    pub(super) fn open(out: &Path) -> anyhow::Result<Folder> {
        let out = match std::fs::symlink_metadata(out) {
            // A site folder that is a link: the folder it points to is replaced, not the link.
            Ok(m) if m.file_type().is_symlink() => {
                out.canonicalize().with_context(|| format!("cannot follow '{}'", out.display()))?
            }
            Ok(m) if !m.is_dir() => anyhow::bail!("'{}' is not a folder", out.display()),
            _ => out.to_path_buf(),
        };
        // One build at a time into a site: a second one would share the new folder's name and
        // remove or swap what the first is writing.
        let lock_path = crate::durable::beside(&out, "lock");
        if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).with_context(|| format!("cannot create '{}'", parent.display()))?;
        }
        let lock = match crate::durable::lock(&lock_path)
            .with_context(|| format!("cannot lock '{}'", lock_path.display()))?
        {
            Ok(file) => file,
            Err(crate::durable::Held(holder)) => anyhow::bail!(
                "another perflab build (process {holder}) is writing '{}'; run this one when it has finished (its lock is '{}')",
                out.display(),
                lock_path.display()
            ),
        };
        let fresh = crate::durable::beside(&out, "new");
        crate::durable::remove_tree(&fresh).with_context(|| format!("cannot remove '{}'", fresh.display()))?;
        std::fs::create_dir_all(&fresh).with_context(|| format!("cannot create '{}'", fresh.display()))?;
        let previous = crate::durable::read_text(&out.join(FILE_LIST), MAX_LIST_BYTES).unwrap_or_default();
        let listed = previous.lines().map(str::to_string).collect();
        Ok(Folder {
            _lock: lock,
            out,
            fresh,
            listed,
            dirs: Default::default(),
            written: Default::default(),
            keys: BTreeMap::new(),
            reused: BTreeSet::new(),
        })
    }

    /// Writes `bytes` as the file `rel` of the new site; a file the previous site holds as it
    /// is gets a second name rather than a new copy ([`link_same`]).
    pub(super) fn write(&self, rel: String, bytes: &[u8]) -> anyhow::Result<()> {
        let path = self.fresh.join(&rel);
        let parent = rel.rsplit_once('/').map(|(dir, _)| dir);
        let real = match parent {
            Some(dir) => self.folder(dir)?,
            None => true,
        };
        if !(real && link_same(&self.out.join(&rel), &path, bytes)) {
            std::fs::write(&path, bytes).with_context(|| format!("cannot write '{}'", path.display()))?;
        }
        self.wrote(rel, bytes);
        Ok(())
    }

    /// Notes that the new site has the file `rel` with `bytes`.
    pub(super) fn wrote(&self, rel: String, bytes: &[u8]) {
        let hash = study_of(&rel).map(|_| blake3::hash(bytes));
        self.written.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(rel, hash);
    }

    /// Makes the folder `dir` (relative) in the new site, once; returns whether it is a real
    /// folder of the old one all the way down ([`real_folder`]).
    pub(super) fn folder(&self, dir: &str) -> anyhow::Result<bool> {
        if let Some(&real) = self.dirs.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(dir) {
            return Ok(real);
        }
        let path = self.fresh.join(dir);
        std::fs::create_dir_all(&path).with_context(|| format!("cannot create '{}'", path.display()))?;
        let real = real_folder(&self.out, Path::new(dir));
        self.dirs.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(dir.to_string(), real);
        Ok(real)
    }

    /// Finishes the new site after `made` (what writing its files came to): carries over what
    /// the old one holds that this build neither writes nor removes, with `kept`, writes the
    /// list of files, flushes the file system once and puts the new folder in the old one's
    /// place. After a failure, or after the swap (when it holds the old site), the folder
    /// beside is removed. Returns how many files the site has.
    pub(super) fn finish(self, made: anyhow::Result<()>, kept: &BTreeSet<String>) -> anyhow::Result<usize> {
        let written = self.written.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        let swapped = made.and_then(|()| {
            let carried = |rel: &str| {
                rel != FILE_LIST
                    && rel != RECORD
                    && !written.contains_key(rel)
                    && (kept.contains(rel) || !self.listed.contains(rel))
            };
            crate::durable::copy_tree(&self.out, &self.fresh, &carried)?;
            let list: BTreeSet<&String> = written.keys().chain(kept).collect();
            let list: String = list.into_iter().map(|f| format!("{f}\n")).collect();
            let path = self.fresh.join(FILE_LIST);
            std::fs::write(&path, list).with_context(|| format!("cannot write '{}'", path.display()))?;
            if !self.keys.is_empty() {
                let path = self.fresh.join(RECORD);
                std::fs::write(&path, reuse::record(&self.keys, &written))
                    .with_context(|| format!("cannot write '{}'", path.display()))?;
            }
            crate::durable::sync_filesystem(&self.fresh)
                .with_context(|| format!("cannot flush '{}'", self.fresh.display()))?;
            crate::durable::swap(&self.fresh, &self.out)
                .with_context(|| format!("cannot replace '{}'", self.out.display()))
        });
        let _ = crate::durable::remove_tree(&self.fresh);
        swapped.map(|()| written.len() + 1 + usize::from(!self.keys.is_empty()))
    }
}

/// Where a build puts each file it makes (by path relative to the site folder): into memory
/// ([`Site::build`]) or straight into the new folder ([`build_into`]). Called from every core.
pub(super) trait Sink: Sync {
    /// The file `rel` holds `bytes`.
    fn put(&self, rel: String, bytes: Vec<u8>) -> anyhow::Result<()>;
    /// The file `rel` holds `bytes`, as the file `of` this build put before it does.
    fn copy(&self, rel: String, of: &str, bytes: &[u8]) -> anyhow::Result<()>;
    /// Whether the study `id` has its files already, as the previous build made them
    /// ([`Folder::record_keys`]): then it is not rendered.
    fn reused(&self, _id: &str) -> bool {
        false
    }
}

/// The files of a site kept in memory.
#[derive(Default)]
pub(super) struct InMemory(pub(super) std::sync::Mutex<BTreeMap<String, Vec<u8>>>);

impl Sink for InMemory {
    fn put(&self, rel: String, bytes: Vec<u8>) -> anyhow::Result<()> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(rel, bytes);
        Ok(())
    }

    fn copy(&self, rel: String, _: &str, bytes: &[u8]) -> anyhow::Result<()> {
        self.put(rel, bytes.to_vec())
    }
}

/// Files written straight into a folder, each durably, beside whatever else it holds: one
/// page and its files (`perflab report --out`), not a site that replaces the folder.
pub(super) struct Plain(pub(super) std::path::PathBuf);

impl Sink for Plain {
    fn put(&self, rel: String, bytes: Vec<u8>) -> anyhow::Result<()> {
        let path = self.0.join(&rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("cannot create '{}'", dir.display()))?;
        }
        crate::durable::write(&path, &bytes).with_context(|| format!("cannot write '{}'", path.display()))
    }

    fn copy(&self, rel: String, _: &str, bytes: &[u8]) -> anyhow::Result<()> {
        self.put(rel, bytes.to_vec())
    }
}

impl Sink for Folder {
    fn put(&self, rel: String, bytes: Vec<u8>) -> anyhow::Result<()> {
        self.write(rel, &bytes)
    }

    fn reused(&self, id: &str) -> bool {
        self.reused.contains(id)
    }

    /// A second name for the new site's file `of`: the copies of a study's exports are one file.
    fn copy(&self, rel: String, of: &str, bytes: &[u8]) -> anyhow::Result<()> {
        let path = self.fresh.join(&rel);
        if let Some((dir, _)) = rel.rsplit_once('/') {
            self.folder(dir)?;
        }
        if std::fs::hard_link(self.fresh.join(of), &path).is_err() {
            return self.write(rel, bytes);
        }
        self.wrote(rel, bytes);
        Ok(())
    }
}

/// Whether `dir` (relative) is a folder of the site in `out` all the way down, not a link to
/// elsewhere at any step.
pub(super) fn real_folder(out: &Path, dir: &Path) -> bool {
    dir.ancestors().all(|a| std::fs::symlink_metadata(out.join(a)).is_ok_and(|m| m.is_dir()))
}

/// Gives `path` the previous site's file `old` as a second name, where that is a plain file that
/// holds exactly `bytes`: the file system then allocates no new file and nothing is written (on
/// a disk whose previous build's files were just freed, allocating one is what costs most).
/// False where it is not, or cannot be read or linked; the caller then writes the file.
pub(super) fn link_same(old: &Path, path: &Path, bytes: &[u8]) -> bool {
    use std::io::Read;
    let Some(mut file) = open_plain(old) else { return false };
    if !file.metadata().is_ok_and(|m| m.len() == bytes.len() as u64) {
        return false;
    }
    let mut chunk = vec![0u8; (64 << 10).min(bytes.len() + 1)];
    let mut at = 0;
    loop {
        match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) if bytes.get(at..at + n) == Some(&chunk[..n]) => at += n,
            _ => return false,
        }
    }
    at == bytes.len() && link_file(&file, path)
}

/// The file `path` opened for reading, where it is a plain file (not a link, nor a folder).
pub(super) fn open_plain(path: &Path) -> Option<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new().read(true).custom_flags(crate::durable::NOFOLLOW).open(path).ok()?;
    file.metadata().is_ok_and(|m| m.is_file()).then_some(file)
}

/// Gives the open `file` the second name `path`; false where it cannot. The file just read, by
/// its descriptor, not whatever its old name names by now.
pub(super) fn link_file(file: &std::fs::File, path: &Path) -> bool {
    use rustix::fs::{AtFlags, CWD, linkat};
    let from = format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(file));
    linkat(CWD, from.as_str(), CWD, path, AtFlags::SYMLINK_FOLLOW).is_ok()
}

impl Folder {
    /// Works out every study's key for this build's record; with [`Reuse::Unchanged`], gives the
    /// new site the files of each study whose key and files are those the previous build
    /// recorded, and those studies are then not rendered ([`Folder::reused`]).
    pub(super) fn record_keys(
        &mut self,
        studies: &[Study],
        renderer: &Renderer,
        flavor: Flavor,
        url: Option<&SiteUrl>,
        reuse: Reuse,
    ) {
        let Some(shared) = reuse::shared(renderer, flavor, url) else { return };
        let keys = crate::parallel::map(studies.len(), |i| reuse::key(&shared, &studies[i]));
        let record = match reuse {
            Reuse::Unchanged => reuse::Record::read(&self.out),
            Reuse::RenderAll => reuse::Record::default(),
        };
        let taken = crate::parallel::map(studies.len(), |i| {
            record.files(&studies[i].id, keys[i]).is_some_and(|files| self.take(files))
        });
        for ((study, key), taken) in studies.iter().zip(keys).zip(taken) {
            if taken {
                self.reused.insert(study.id.clone());
            }
            self.keys.insert(study.id.clone(), key);
        }
    }

    /// Gives the new site the old site's `files`, where each is a plain file that holds the
    /// bytes of its hash: all of them, or (false) none.
    fn take(&self, files: &[(String, blake3::Hash)]) -> bool {
        // Each file is read and checked before any is linked.
        let mut checked = Vec::with_capacity(files.len());
        for (rel, hash) in files {
            let real = match rel.rsplit_once('/') {
                Some((dir, _)) => self.folder(dir).unwrap_or(false),
                None => true,
            };
            let Some(mut file) = real.then(|| open_plain(&self.out.join(rel))).flatten() else {
                return false;
            };
            let mut read = blake3::Hasher::new();
            let mut chunk = [0u8; 64 << 10];
            loop {
                match file.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => {
                        read.update(&chunk[..n]);
                    }
                    Err(_) => return false,
                }
            }
            if read.finalize() != *hash {
                return false;
            }
            checked.push((file, rel, hash));
        }
        for (k, (file, rel, _)) in checked.iter().enumerate() {
            if !link_file(file, &self.fresh.join(rel)) {
                for (_, rel, _) in &checked[..k] {
                    let _ = std::fs::remove_file(self.fresh.join(rel));
                }
                return false;
            }
        }
        let mut written = self.written.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        for (_, rel, hash) in checked {
            written.insert(rel.clone(), Some(*hash));
        }
        true
    }
}
