//! perflab's own commit, for `perflab --version` and the machine a run records (see
//! `exec::host`): `PERFLAB_COMMIT` is `git rev-parse HEAD` of the checkout perflab is built
//! from, `+changes` when the files it is built from differ from that commit, and empty for a
//! build outside git (a crate's tarball); `PERFLAB_VERSION` is the version `--version` prints.
//!
//! A build script rather than a crate (`vergen`, `built`, `git-version`): it is some sixty
//! lines on `git` itself, where those bring a git library or a dozen crates to compile on every
//! clean build, and it says exactly which files make it run again (below), so that a build
//! that changed nothing is not redone.

use std::path::{Path, PathBuf};
use std::process::Command;

/// What perflab is built from: a change to one of these makes the commit "+changes".
const SOURCES: &[&str] = &["src", "templates", "assets", "build.rs", "Cargo.toml", "Cargo.lock"];

fn main() {
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    println!("cargo:rerun-if-changed=build.rs");
    let commit = commit(&dir).unwrap_or_default();
    println!("cargo:rustc-env=PERFLAB_COMMIT={commit}");
    let long = if commit.is_empty() { version } else { format!("{version} (commit {commit})") };
    println!("cargo:rustc-env=PERFLAB_VERSION={long}");
}

/// The commit of the checkout at `dir`, when `dir` is a checkout's top (not a folder inside
/// some other repository, as an unpacked crate may be).
fn commit(dir: &Path) -> Option<String> {
    let dot = dir.join(".git");
    let git_dir = if dot.is_dir() {
        dot
    } else {
        // A worktree's `.git` is a file: `gitdir: /repo/.git/worktrees/NAME`.
        let text = std::fs::read_to_string(&dot).ok()?;
        dir.join(text.strip_prefix("gitdir:")?.trim())
    };
    // A worktree's branches are in the main repository's folder, named in its `commondir`.
    let common = match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(text) => git_dir.join(text.trim()),
        Err(_) => git_dir.clone(),
    };
    watch(&git_dir.join("HEAD"));
    watch(&git_dir.join("index"));
    watch(&common.join("packed-refs"));
    let head = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    if let Some(branch) = head.trim().strip_prefix("ref:") {
        let file = common.join(branch.trim());
        // A branch packed away has no file of its own until its next commit writes one.
        if file.exists() { watch(&file) } else { file.parent().into_iter().for_each(watch) }
    }
    for source in SOURCES {
        watch(&dir.join(source));
    }
    let git = |args: &[&str]| {
        let out = Command::new("git").arg("-C").arg(dir).args(args).output().ok()?;
        out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let head = git(&["rev-parse", "HEAD"]).filter(|h| h.len() >= 40 && h.chars().all(|c| c.is_ascii_hexdigit()))?;
    // `--no-optional-locks`: the index is read, not refreshed, so that this run does not
    // itself change a file it watches.
    let mut status = vec!["--no-optional-locks", "status", "--porcelain", "--"];
    status.extend(SOURCES);
    let changed = git(&status).is_none_or(|s| !s.is_empty());
    Some(if changed { format!("{head}+changes") } else { head })
}

/// Runs the script again when `path` changes, if it is there (a path that is not makes Cargo
/// run it on every build).
fn watch(path: &Path) {
    if path.exists() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}
