//! The output folder: files are collected in memory, then written so that a failed build
//! leaves the previous site as it was, and an unchanged file is not touched.

use anyhow::Context;
use std::collections::BTreeMap;
use std::path::Path;

/// Files of a site by path relative to its folder.
#[derive(Debug, Default)]
pub struct Site {
    pub files: BTreeMap<String, Vec<u8>>,
}

impl Site {
    pub fn add(&mut self, path: String, bytes: Vec<u8>) {
        self.files.insert(path, bytes);
    }

    /// Writes every file under `out` (each through a temporary file and a rename); returns how
    /// many were written.
    pub fn write(&self, out: &Path) -> anyhow::Result<usize> {
        for (rel, bytes) in &self.files {
            let path = out.join(rel);
            if std::fs::read(&path).is_ok_and(|old| old == *bytes) {
                continue;
            }
            let dir = path.parent().unwrap_or(out);
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create '{}'", dir.display()))?;
            let tmp = path.with_extension("perflab-tmp");
            std::fs::write(&tmp, bytes)
                .with_context(|| format!("cannot write '{}'", tmp.display()))?;
            std::fs::rename(&tmp, &path)
                .with_context(|| format!("cannot write '{}'", path.display()))?;
        }
        Ok(self.files.len())
    }
}
