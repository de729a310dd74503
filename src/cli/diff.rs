//! `perflab diff STUDY [--since REV] [--json]`

use crate::analysis::{self, Diff};
use crate::study::Study;
use anyhow::{Context, bail};
use std::io::Write;
use std::path::Path;
use std::process::{Command, ExitCode};

pub fn run(
    name: &str,
    since: Option<&str>,
    json: bool,
    locale: &str,
    results: &Path,
    templates: &Path,
) -> anyhow::Result<ExitCode> {
    let renderer = super::renderer(templates)?;
    let study = super::load_study(name, results)?;
    let analysis = analysis::analyze(&study);
    let diff: Option<Diff> = match since {
        None => analysis.changes.clone(),
        Some(rev) => {
            let tmp = std::env::temp_dir().join(format!("perflab-diff-{}", std::process::id()));
            let result = at_revision(&study.dir, rev, &tmp.join(&study.id)).and_then(|dir| {
                let before = Study::load(&dir).map_err(|d| anyhow::anyhow!("the study at revision {rev}: {d}"))?;
                Ok(analysis::diff::diff(&before, &study, Some(rev)))
            });
            let _ = std::fs::remove_dir_all(&tmp);
            Some(result?)
        }
    };
    let Some(diff) = diff else {
        eprintln!(
            "{}: no earlier measurement to compare with: no run was measured again with another engine version or command (`--since REV` compares with a git revision)",
            study.dir.display()
        );
        return Ok(ExitCode::from(1));
    };
    let mut out = std::io::stdout().lock();
    if json {
        let mut bytes = serde_json::to_vec_pretty(&diff)?;
        bytes.push(b'\n');
        out.write_all(&bytes)?;
    } else {
        out.write_all(renderer.diff(&study, &analysis, &diff, locale)?.as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes the study folder `dir` as it was in git revision `rev` into `to`; returns `to`.
fn at_revision(dir: &Path, rev: &str, to: &Path) -> anyhow::Result<std::path::PathBuf> {
    if rev.starts_with('-') {
        bail!("`{rev}` is not a git revision");
    }
    let git = |args: &[&str]| -> anyhow::Result<Vec<u8>> {
        let out = Command::new("git").arg("-C").arg(dir).args(args).output().context("cannot run git")?;
        if !out.status.success() {
            bail!("git {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim());
        }
        Ok(out.stdout)
    };
    let prefix = String::from_utf8(git(&["rev-parse", "--show-prefix"])?)?.trim().to_string();
    let tree = format!("{rev}:{prefix}");
    // `--full-tree`: from a subfolder, ls-tree would otherwise list only paths under that
    // subfolder's name inside the tree.
    let names = git(&["ls-tree", "-r", "-z", "--full-tree", "--name-only", &tree])?;
    if names.is_empty() {
        bail!("the study has no files at revision {rev}");
    }
    for name in names.split(|b| *b == 0).filter(|n| !n.is_empty()) {
        let name = String::from_utf8(name.to_vec()).context("a file name that is not UTF-8")?;
        let path = to.join(&name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("cannot create '{}'", parent.display()))?;
        }
        let bytes = git(&["show", &format!("{rev}:{prefix}{name}")])?;
        std::fs::write(&path, bytes).with_context(|| format!("cannot write '{}'", path.display()))?;
    }
    Ok(to.to_path_buf())
}
