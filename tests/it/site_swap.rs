//! `perflab build` replaces the site in one step: killed at any moment, it leaves the old site or
//! the new one, file for file, never a mix; and it never follows a link of the old site.

use crate::common;

use common::{copy_dir, root, tree};
use std::path::Path;
use std::time::Instant;

fn build(results: &Path, out: &Path) -> std::process::Child {
    common::site_build(results, out).stderr(std::process::Stdio::null()).spawn().unwrap()
}

/// The old results (the bundled studies) and new ones: one study gone, another retitled.
fn two_results(tmp: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let old = tmp.join("old-results");
    copy_dir(&root().join("results"), &old);
    let new = tmp.join("new-results");
    copy_dir(&root().join("results"), &new);
    std::fs::remove_dir_all(new.join("glm-5.2-fp8-h200")).unwrap();
    let toml = new.join("qwen3-14b-h100/study.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    let retitled = text.replacen("en = \"Optimizing", "en = \"Retitled: optimizing", 1);
    assert_ne!(text, retitled);
    std::fs::write(&toml, retitled).unwrap();
    (old, new)
}

/// Kills builds of `results` over copies of `old_site` at seeded moments over `whole` (how
/// long one takes), a little past its end: each leaves the old site or the one a whole build
/// makes, file for file, and the next build finishes it. How many left the old and the new.
fn kill_at_random(
    old_site: &Path,
    results: &Path,
    whole: std::time::Duration,
    tmp: &Path,
    seed: u64,
) -> (usize, usize) {
    let old = tree(old_site);
    let new_site = tmp.join("whole-build");
    let _ = std::fs::remove_dir_all(&new_site);
    copy_dir(old_site, &new_site);
    assert!(build(results, &new_site).wait().unwrap().success());
    let new = tree(&new_site);
    assert_ne!(old, new);
    let site = tmp.join("site");
    let (mut olds, mut news) = (0, 0);
    let mut seed = seed;
    for _ in 0..12 {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let at = whole.mul_f64((seed >> 11) as f64 / (1u64 << 53) as f64 * 1.2);
        let _ = std::fs::remove_dir_all(&site);
        copy_dir(old_site, &site);
        let mut child = build(results, &site);
        std::thread::sleep(at);
        let _ = child.kill();
        let _ = child.wait();
        let found = tree(&site);
        if found == old {
            olds += 1;
        } else if found == new {
            news += 1;
        } else {
            let differ: Vec<&String> = found.keys().filter(|k| old.get(*k) != found.get(*k)).take(5).collect();
            panic!("killed after {at:?}: a mix of the two sites (differs from the old in {differ:?})");
        }
        // The next build finishes what the killed one left.
        assert!(build(results, &site).wait().unwrap().success());
        assert_eq!(tree(&site), new, "a build after a killed one");
    }
    (olds, news)
}

#[test]
fn a_killed_build_leaves_the_old_site_or_the_new_one() {
    let tmp = tempfile::tempdir().unwrap();
    let (old_results, new_results) = two_results(tmp.path());
    let old_site = tmp.path().join("old-site");
    assert!(build(&old_results, &old_site).wait().unwrap().success());
    std::fs::write(old_site.join("notes.txt"), "mine").unwrap();
    let new_site = tmp.path().join("new-site");
    copy_dir(&old_site, &new_site);
    let started = Instant::now();
    assert!(build(&new_results, &new_site).wait().unwrap().success());
    let whole = started.elapsed();
    let (old, new) = (tree(&old_site), tree(&new_site));
    assert_ne!(old, new);
    assert_eq!(new.get("notes.txt").map(Vec::as_slice), Some(&b"mine"[..]), "a file perflab did not write stays");

    let (olds, news) = kill_at_random(&old_site, &new_results, whole, tmp.path(), 27);
    eprintln!("killed builds: {olds} left the old site, {news} the new one");
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    // The build's lock stays beside the site (removing it would race the next build); no
    // half-made folder does.
    let half = |n: &std::ffi::OsString| {
        n.to_string_lossy().contains("perflab-") && !n.to_string_lossy().ends_with(".perflab-lock")
    };
    assert!(!leftovers.iter().any(half), "{leftovers:?}");
}

/// The same where the build takes most studies' files from the old site: one study changed.
#[test]
fn a_killed_build_that_takes_unchanged_studies_leaves_the_old_site_or_the_new_one() {
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("results");
    copy_dir(&root().join("results"), &results);
    let old_site = tmp.path().join("old-site");
    assert!(build(&results, &old_site).wait().unwrap().success());
    let toml = results.join("qwen3-14b-h100/study.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, text.replacen("en = \"Optimizing", "en = \"Retitled: optimizing", 1)).unwrap();
    let timed = tmp.path().join("timed");
    copy_dir(&old_site, &timed);
    let started = Instant::now();
    let (code, err) = common::finish(
        common::site_build(&results, &timed).stderr(std::process::Stdio::piped()).spawn().unwrap(),
        std::time::Duration::from_secs(120),
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("(5 as the previous build made them"), "{err}");
    let (olds, news) = kill_at_random(&old_site, &results, started.elapsed(), tmp.path(), 28);
    eprintln!("killed builds: {olds} left the old site, {news} the new one");
}

#[test]
fn links_of_the_old_site_are_not_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("results");
    copy_dir(&root().join("results"), &results);
    let site = tmp.path().join("site");
    assert!(build(&results, &site).wait().unwrap().success());
    // Outside the site: a folder and a file that links in the old site point to.
    let outside = tmp.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "secret").unwrap();
    std::os::unix::fs::symlink(&outside, site.join("linked-folder")).unwrap();
    let page = site.join("en/index.html");
    std::fs::remove_file(&page).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.txt"), &page).unwrap();
    assert!(build(&results, &site).wait().unwrap().success());
    let found = tree(&site);
    assert_eq!(
        found.get("linked-folder").map(|t| String::from_utf8_lossy(t).into_owned()),
        Some(format!("-> {}", outside.display())),
        "a link perflab did not write stays a link"
    );
    assert!(!found.contains_key("linked-folder/secret.txt"), "nothing was copied through the link");
    assert!(std::fs::symlink_metadata(&page).unwrap().is_file(), "the page is written anew, not through the link");
    assert_eq!(std::fs::read_to_string(outside.join("secret.txt")).unwrap(), "secret");
    assert_eq!(tree(&outside).len(), 1);
}

/// Two builds into one site at once: one waits for nothing and writes, the other stops with a
/// message naming the build that holds the site, and the site left is the one a build into an
/// empty folder makes, file for file. Three rounds, each over the site the round before left.
#[test]
fn two_builds_at_once_leave_one_whole_site() {
    let tmp = tempfile::tempdir().unwrap();
    let results = root().join("results");
    let alone = tmp.path().join("alone");
    assert!(build(&results, &alone).wait().unwrap().success());
    let whole = tree(&alone);
    let out = tmp.path().join("site");
    for round in 0..3 {
        let start = || common::site_build(&results, &out).stderr(std::process::Stdio::piped()).spawn().unwrap();
        let (a, b) = (start(), start());
        let ends = [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()];
        assert!(ends.iter().any(|e| e.status.success()), "round {round}: neither build finished");
        for end in ends.iter().filter(|e| !e.status.success()) {
            let err = String::from_utf8_lossy(&end.stderr);
            assert!(
                err.contains("another perflab build (process") && err.contains("is writing"),
                "round {round}: {err}"
            );
        }
        assert!(tree(&out) == whole, "round {round}: the site differs from a build into an empty folder");
    }
}
