//! `perflab diff STUDY [--since REV | --releases[=RANGE]] [--json]`

use super::Exit;
use anyhow::{Context, bail};
use perflab::analysis::releases::{self, Releases, Span};
use perflab::analysis::{self, Analysis, Diff};
use perflab::render::Renderer;
use perflab::study::Study;
use serde::Serialize;
use std::io::Write;
use std::path::Path;
use std::process::{Command, ExitCode};

/// What `diff` compares.
pub enum What {
    /// The results that stand against those the newest re-measurements replaced, or against
    /// the study at a git revision.
    Since(Option<String>),
    /// Every engine release of the study's history, or those of a span of versions.
    Releases(Span),
}

pub fn run(
    name: &str,
    what: What,
    json: bool,
    locale: &str,
    results: &Path,
    templates: &Path,
) -> anyhow::Result<ExitCode> {
    let renderer = super::renderer(templates)?;
    let study = super::load_study(name, results)?;
    let analysis = analysis::analyze(&study);
    let since = match what {
        What::Since(since) => since,
        What::Releases(span) => return across_releases(&study, &analysis, &span, json, &renderer, locale),
    };
    let diff: Option<Diff> = match since.as_deref() {
        None => analysis.changes.clone(),
        Some(rev) => {
            // A fresh folder with a random name, readable by this user only, removed when
            // `tmp` is dropped: nobody else can plant files or links in it beforehand.
            let tmp = tempfile::Builder::new()
                .prefix("perflab-diff-")
                .tempdir()
                .context("cannot create a temporary folder for the earlier revision")?;
            let (dir, prefix) = at_revision(&study.dir, rev, &tmp.path().join(&study.id))?;
            // Its problems name its files as the revision holds them (`REV:path`), not the
            // temporary copy.
            let before = Study::load(&dir).map_err(|d| {
                let copy = format!("{}/", dir.display());
                let said = d.to_string().replace(&copy, &format!("{rev}:{prefix}"));
                anyhow::anyhow!(
                    "the study as revision {rev} holds it does not load, so there is nothing to compare with:\n{said}"
                )
            })?;
            Some(analysis::diff::diff(&before, &study, Some(rev)))
        }
    };
    let Some(diff) = diff else {
        eprintln!(
            "{}: no earlier measurement to compare with: no run was measured again with another engine version or command (`--since REV` compares with a git revision)",
            study.dir.display()
        );
        return Ok(ExitCode::from(Exit::Attention));
    };
    if since.is_none()
        && let Some(all) = &analysis.releases
    {
        eprintln!(
            "note: the history holds {} releases ({}); `perflab diff {name} --releases` shows the answer across all of them",
            all.releases.len(),
            all.names().join(", ")
        );
    }
    let mut out = std::io::stdout().lock();
    if json {
        write_json(&mut out, &diff)?;
    } else {
        out.write_all(renderer.diff(&study, &analysis, &diff, locale)?.as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The JSON of `--releases --json`: the study, how many releases its history holds, and those
/// shown.
#[derive(Serialize)]
struct ReleasesJson<'a> {
    study: &'a str,
    history: usize,
    #[serde(flatten)]
    shown: &'a Releases,
}

/// `--releases`: the answer on each release of the study's history that `span` names.
fn across_releases(
    study: &Study,
    analysis: &Analysis,
    span: &Span,
    json: bool,
    renderer: &Renderer,
    locale: &str,
) -> anyhow::Result<ExitCode> {
    let all = releases::history(study, analysis);
    if all.releases.len() < 2 {
        eprintln!(
            "{}: its history holds one engine release ({}): nothing to compare across releases; after an upgrade, `perflab run --rerun-stale` measures the study again and keeps the earlier results as history",
            study.dir.display(),
            all.names().join(", ")
        );
        return Ok(ExitCode::from(Exit::Attention));
    }
    let shown = all.span(span).map_err(|e| anyhow::anyhow!("{}: `--releases`: {e}", study.dir.display()))?;
    let mut out = std::io::stdout().lock();
    if json {
        write_json(&mut out, &ReleasesJson { study: &study.id, history: all.releases.len(), shown: &shown })?;
    } else {
        out.write_all(renderer.releases(study, analysis, &all, &shown, locale)?.as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}

fn write_json(out: &mut impl Write, value: &impl Serialize) -> anyhow::Result<()> {
    let mut bytes = serde_json::to_vec_pretty(value)?;
    bytes.push(b'\n');
    out.write_all(&bytes)?;
    Ok(())
}

/// Writes the study folder `dir` as it was in git revision `rev` into `to`; returns `to` and
/// the study's folder in the repository (`results/x/`).
fn at_revision(dir: &Path, rev: &str, to: &Path) -> anyhow::Result<(std::path::PathBuf, String)> {
    if rev.starts_with('-') {
        bail!("`--since {rev}`: `{rev}` is not a git revision");
    }
    let git = |args: &[&str]| -> anyhow::Result<Vec<u8>> {
        let out = Command::new("git").arg("-C").arg(dir).args(args).output().context("cannot run git")?;
        if !out.status.success() {
            bail!("git {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim());
        }
        Ok(out.stdout)
    };
    let Ok(prefix) = git(&["rev-parse", "--show-prefix"]) else {
        bail!(
            "`--since {rev}`: '{}' is not in a git repository, so it has no earlier revision to compare with",
            dir.display()
        );
    };
    let prefix = String::from_utf8(prefix)?.trim().to_string();
    if git(&["rev-parse", "--verify", "--quiet", "--end-of-options", &format!("{rev}^{{commit}}")]).is_err() {
        bail!("`--since {rev}`: the git repository of '{}' has no revision `{rev}`", dir.display());
    }
    let tree = format!("{rev}:{prefix}");
    if git(&["cat-file", "-e", &format!("{tree}study.toml")]).is_err() {
        bail!(
            "`--since {rev}`: revision {rev} has no study at '{prefix}' (no '{prefix}study.toml' there), so there is nothing to compare with"
        );
    }
    // `--full-tree`: from a subfolder, ls-tree would otherwise list only paths under that
    // subfolder's name inside the tree.
    let entries = git(&["ls-tree", "-r", "-z", "--full-tree", &tree])?;
    if entries.is_empty() {
        bail!("the study has no files at revision {rev}");
    }
    for entry in entries.split(|b| *b == 0).filter(|n| !n.is_empty()) {
        let entry = String::from_utf8(entry.to_vec()).context("a file name that is not UTF-8")?;
        // `<mode> <type> <object>\t<name>`: only plain files are written; links and
        // submodules of the revision are left out, never followed.
        let Some((meta, name)) = entry.split_once('\t') else {
            bail!("git ls-tree printed an entry without a name: {entry:?}");
        };
        if !(meta.starts_with("100644 blob ") || meta.starts_with("100755 blob ")) {
            continue;
        }
        let path = to.join(tree_path(name, rev)?);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("cannot create '{}'", parent.display()))?;
        }
        let bytes = git(&["show", &format!("{rev}:{prefix}{name}")])?;
        std::fs::write(&path, bytes).with_context(|| format!("cannot write '{}'", path.display()))?;
    }
    Ok((to.to_path_buf(), prefix))
}

/// The relative path a name of a git tree stands for, refused when it could leave the folder it
/// is written into (an absolute name, an empty, `.` or `..` component: `git mktree` accepts all
/// of them, and a fetched branch can carry such a tree).
fn tree_path(name: &str, rev: &str) -> anyhow::Result<std::path::PathBuf> {
    let mut path = std::path::PathBuf::new();
    for part in name.split('/') {
        if part.is_empty() || part == "." || part == ".." || part.contains('\\') {
            bail!(
                "revision {rev} holds a file named {name:?}, which would be written outside the study; nothing was written"
            );
        }
        path.push(part);
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::tree_path;

    #[test]
    fn a_tree_name_cannot_leave_the_folder() {
        assert_eq!(tree_path("runs/a/b.txt", "r").unwrap(), std::path::Path::new("runs/a/b.txt"));
        for bad in ["../x", "a/../../x", "/etc/passwd", "a//b", "./a", "a/.", "..", "a\\..\\b"] {
            assert!(tree_path(bad, "r").is_err(), "{bad}");
        }
    }
}
