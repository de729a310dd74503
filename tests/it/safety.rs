//! Nothing outside the study is touched, and every loop of `perflab run` ends: links planted
//! under `runs/` or in the site, a git tree whose names climb out of the folder they are
//! written into, a repeat whose engine keeps failing, an attempt number at its limit, a typo in
//! `--stage`.

use crate::common;

use common::{perflab, root, run, tiny};
use std::path::Path;
use std::process::Command;

/// A file outside the study whose contents must survive.
fn victim(dir: &Path) -> std::path::PathBuf {
    let path = dir.parent().unwrap().join("victim.txt");
    std::fs::write(&path, "precious").unwrap();
    path
}

fn unchanged(path: &Path) {
    assert_eq!(std::fs::read_to_string(path).unwrap(), "precious", "{} was written", path.display());
}

const QUICK: &str = "perflab-engine --port {port} --sim-startup-seconds 0.05 --sim-decode-ms 2";

#[test]
fn a_repeat_whose_engine_keeps_failing_is_not_restarted_in_the_same_run() {
    let (tmp, dir) = tiny("ENGINE", "repeats = 3\nrepeat_across_restarts = true");
    // Each start of the wrapper counts itself in $FLAKY's file; from the second start on it fails.
    let wrapper = tmp.path().join("flaky.sh");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nif [ -n \"$FLAKY\" ]; then\n  n=$(cat \"$FLAKY\" 2>/dev/null || echo 0)\n  echo $((n+1)) > \"$FLAKY\"\n  [ \"$n\" -ge 1 ] && {{ echo 'CUDA error: out of memory' >&2; exit 1; }}\nfi\nexec {} \"$@\"\n",
            env!("CARGO_BIN_EXE_perflab-engine")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let spec = dir.join("study.toml");
    let counter = tmp.path().join("count");
    let text = std::fs::read_to_string(&spec).unwrap().replace(
        "command = \"ENGINE\"",
        &format!("command = \"{} {}\"", wrapper.display(), &QUICK["perflab-engine".len()..]),
    );
    let text = format!(
        "{text}\n[[stage.variant]]\nid = \"flaky\"\nlabel = \"flaky\"\nengine = \"sim\"\nflags = [\"--sim-vocab-size 32001\"]\nenv = {{ FLAKY = \"{}\" }}\n",
        counter.display()
    );
    std::fs::write(&spec, text).unwrap();
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 1, "{err}");
    // Three starts of the base, the flaky variant's good start and one failed restart.
    assert!(err.contains("5 engine starts"), "{err}");
    assert!(err.contains("engine/flaky: its last start in this run added no measurement"), "{err}");
    assert!(err.contains("not started again in this run"), "{err}");
    assert_eq!(std::fs::read_to_string(&counter).unwrap().trim(), "2");
    // The base holds three measurements and the flaky variant one: the page says so, and the
    // stage's decision claims no interval.
    let study = perflab::study::Study::load(&dir).unwrap();
    let analysis = perflab::analysis::analyze(&study);
    let short = perflab::analysis::Warning::ShortSample {
        run: perflab::study::RunKey::parse("engine/flaky/p"),
        have: 1,
        wanted: 3,
    };
    assert!(analysis.warnings.contains(&short), "{:?}", analysis.warnings);
    assert_eq!(
        analysis.warnings.iter().filter(|w| matches!(w, perflab::analysis::Warning::ShortSample { .. })).count(),
        1
    );
    assert_eq!(analysis.stages[0].adoption.interval(), None, "{:?}", analysis.stages[0].adoption);
    for (locale, words) in
        [("en", "one measurement of the 3 the study asks for"), ("tr", "istediği 3 ölçümden yalnızca 1")]
    {
        let (code, page, err) = perflab(&["report", dir.to_str().unwrap(), "--locale", locale]);
        assert_eq!(code, 0, "{err}");
        assert!(page.contains(words), "{locale}: {page}");
    }
}

#[test]
fn a_linked_folder_under_runs_is_refused_before_anything_starts() {
    let (_tmp, dir) = tiny(QUICK, "");
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    let elsewhere = dir.parent().unwrap().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::rename(dir.join("runs/engine/only"), elsewhere.join("only")).unwrap();
    std::os::unix::fs::symlink(elsewhere.join("only"), dir.join("runs/engine/only")).unwrap();
    let before = walk(&elsewhere);
    for args in [&["run"][..], &["plan"], &["check"], &["report"]] {
        let mut args = args.to_vec();
        args.push(dir.to_str().unwrap());
        let (code, out, err) = perflab(&args);
        let said = format!("{out}{err}");
        assert_ne!(code, 0, "{args:?}: {said}");
        assert!(said.contains("runs/engine/only") && said.contains("symbolic link"), "{args:?}: {said}");
    }
    assert_eq!(walk(&elsewhere), before, "nothing was written through the link");
}

#[test]
fn a_linked_run_lock_or_temporary_is_never_written_through() {
    let (_tmp, dir) = tiny(QUICK, "");
    std::fs::create_dir_all(dir.join("runs")).unwrap();
    let victim = victim(&dir);
    std::os::unix::fs::symlink(&victim, dir.join("runs/.perflab-run.lock")).unwrap();
    let (code, _, err) = run(&dir, &[]);
    assert_ne!(code, 0, "{err}");
    assert!(err.contains(".perflab-run.lock") && err.contains("symbolic link"), "{err}");
    unchanged(&victim);

    // `plan` records hand-placed runs in runs/recorded.json through a temporary beside it.
    let study = dir.parent().unwrap().join("hand");
    common::copy_dir(&root().join("results/qwen3-14b-h100"), &study);
    std::fs::remove_file(study.join("runs/recorded.json")).unwrap();
    std::os::unix::fs::symlink(&victim, study.join("runs/recorded.json.tmp")).unwrap();
    let (code, _, err) = perflab(&["plan", study.to_str().unwrap()]);
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("recorded.json.tmp") && err.contains("symbolic link"), "{err}");
    unchanged(&victim);
    assert!(!study.join("runs/recorded.json").exists());
    // Once the link is gone the record is written, as a file of its own.
    std::fs::remove_file(study.join("runs/recorded.json.tmp")).unwrap();
    let (code, _, err) = perflab(&["plan", study.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::symlink_metadata(study.join("runs/recorded.json")).unwrap().is_file());
}

#[test]
fn a_git_tree_whose_names_leave_the_folder_writes_nothing() {
    let (_tmp, dir) = tiny(QUICK, "");
    let repo = dir.parent().unwrap();
    let git = |args: &[&str], input: Option<&str>| -> String {
        use std::io::Write;
        let mut child = Command::new("git")
            .args(["-c", "user.email=a@b", "-c", "user.name=a"])
            .args(args)
            .current_dir(repo)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(input.unwrap_or("").as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "git {args:?}");
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    git(&["init", "-q"], None);
    git(&["add", "-A"], None);
    git(&["commit", "-qm", "base"], None);
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    // A tree tiny/../../x/PWNED, as `git mktree` builds it.
    let blob = git(&["hash-object", "-w", "--stdin"], Some("pwned"));
    let a = git(&["mktree"], Some(&format!("100644 blob {blob}\tPWNED\n")));
    let t = git(&["mktree"], Some(&format!("040000 tree {a}\tx\n")));
    let d = git(&["mktree"], Some(&format!("040000 tree {t}\t..\n")));
    let spec = git(&["rev-parse", "HEAD:tiny/study.toml"], None);
    let s = git(&["mktree"], Some(&format!("040000 tree {d}\t..\n100644 blob {spec}\tstudy.toml\n")));
    let top = git(&["mktree"], Some(&format!("040000 tree {s}\ttiny\n")));
    let evil = git(&["commit-tree", &top, "-p", "HEAD", "-m", "update"], None);
    let (code, _, err) = perflab(&["diff", dir.to_str().unwrap(), "--since", &evil]);
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("outside the study"), "{err}");
    let tmp = std::env::temp_dir();
    for place in [tmp.join("x/PWNED"), repo.join("x/PWNED"), repo.parent().unwrap().join("x/PWNED")] {
        assert!(!place.exists(), "{} was written", place.display());
    }
}

#[test]
fn an_attempt_number_at_its_limit_and_a_misspelled_stage_are_refused() {
    let (_tmp, dir) = tiny(QUICK, "");
    let (code, _, err) = run(&dir, &["--stage", "enigne"]);
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("`--stage enigne`") && err.contains("engine"), "{err}");
    let (code, _, err) = run(&dir, &["--variant", "engine/onyl"]);
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("`--variant engine/onyl`"), "{err}");
    std::fs::create_dir_all(dir.join("runs/engine/only/attempts/4294967295")).unwrap();
    let (code, _, err) = run(&dir, &[]);
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("4294967295"), "{err}");
    assert!(!dir.join("runs/engine/only/attempts/0").exists());
}

/// Every file under `dir` with its contents.
fn walk(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out: Vec<_> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| (e.path().to_path_buf(), std::fs::read(e.path()).unwrap()))
        .collect();
    out.sort();
    out
}

#[test]
fn a_closed_pipe_ends_plan_and_check_quietly_and_a_study_can_be_named_from_inside() {
    let study = root().join("results/qwen3-14b-h100");
    for command in ["plan", "check"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_perflab"))
            .args([command, study.to_str().unwrap()])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // the reader is gone before the first line
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{command}: {err}");
        assert_ne!(out.status.code(), Some(101), "{command}: {err}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_perflab")).args(["check", "."]).current_dir(&study).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn other_contents_in_the_dataset_file_make_its_runs_stale() {
    let (_tmp, dir) = common::example(Some(1));
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    let (code, plan, err) = perflab(&["plan", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(!plan.contains("other contents"), "{plan}");
    let dataset = dir.join("prompts.jsonl");
    let text = std::fs::read_to_string(&dataset).unwrap();
    let fewer: Vec<&str> = text.lines().take(5).collect();
    std::fs::write(&dataset, fewer.join("\n") + "\n").unwrap();
    let (code, plan, err) = perflab(&["plan", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(plan.contains("the dataset 'prompts.jsonl' has other contents than when it was measured"), "{plan}");
}

/// A 2 MiB tmpfs for a full disk, unmounted when dropped.
struct SmallDisk(std::path::PathBuf);

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
        let _ = std::fs::remove_dir(&self.0);
    }
}

#[test]
#[ignore = "needs root to mount a tmpfs: .ci/run runs it"]
fn tmpfs_a_full_disk_records_no_failure_and_the_run_goes_on_once_there_is_room() {
    let (_tmp, dir) = tiny(QUICK, "");
    let mount = std::env::temp_dir().join(format!("perflab-small-{}", std::process::id()));
    std::fs::create_dir_all(&mount).unwrap();
    let ok = Command::new("mount").args(["-t", "tmpfs", "-o", "size=2m", "tmpfs"]).arg(&mount).status().unwrap();
    assert!(ok.success(), "mount a tmpfs at {}", mount.display());
    let disk = SmallDisk(mount.clone());
    let study = disk.0.join("tiny");
    common::copy_dir(&dir, &study);
    // Leave a few KiB: enough to start, not enough for the engine's log and the result.
    let filler = disk.0.join("filler");
    let mut file = std::fs::File::create(&filler).unwrap();
    let chunk = vec![0u8; 4096];
    while std::io::Write::write_all(&mut file, &chunk).is_ok() {}
    drop(file);
    let len = std::fs::metadata(&filler).unwrap().len();
    std::fs::OpenOptions::new().write(true).open(&filler).unwrap().set_len(len.saturating_sub(12 * 1024)).unwrap();
    let (code, _, err) = run(&study, &[]);
    assert_ne!(code, 0, "{err}");
    assert!(common::manifests(&study).iter().all(|m| m.failure.is_none()), "{err}");
    std::fs::remove_file(&filler).unwrap();
    let (code, _, err) = run(&study, &[]);
    assert_eq!(code, 0, "{err}");
    let (code, plan, _) = perflab(&["plan", study.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(plan.contains("1 done"), "{plan}");
}

/// Places under `runs/` where a link or a file can be planted.
const PLACES: &[&str] = &[
    "engine/only/p.txt",
    "engine/only/p.txt.tmp",
    "engine/only/attempts/1/p.txt",
    "engine/only/attempts/1/p.txt.tmp",
    "engine/only/attempts/1/p.manifest.json",
    "engine/only/attempts/1/engine.log",
    "engine/only/attempts",
    "engine/only",
    "engine",
    "recorded.json",
    "recorded.json.tmp",
    ".perflab-run.lock",
    ".engine.json",
];

/// Creates the folders of `rel` under `root`; false when one of them is already something else.
fn real_folders(root: &Path, rel: &Path) -> bool {
    let mut at = std::path::PathBuf::new();
    let parts = std::iter::once(root.as_os_str()).chain(rel.components().map(|c| c.as_os_str()));
    for part in parts {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if !m.is_dir() => return false,
            Ok(_) => {}
            Err(_) => std::fs::create_dir(&at).unwrap(),
        }
    }
    true
}

/// Every entry under `dir`: its path, and its contents or where it links.
fn tree(dir: &Path) -> Vec<(std::path::PathBuf, String)> {
    let mut out: Vec<_> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .map(|e| {
            let what = if e.path_is_symlink() {
                format!("-> {}", std::fs::read_link(e.path()).unwrap().display())
            } else if e.file_type().is_file() {
                String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned()
            } else {
                "dir".to_string()
            };
            (e.path().to_path_buf(), what)
        })
        .collect();
    out.sort();
    out
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 12, ..Default::default() })]

    /// Whatever is planted under `runs/` (links to files or folders outside, files with any
    /// contents), no command writes, removes or changes anything outside the study.
    #[test]
    fn nothing_outside_the_study_changes_whatever_runs_holds(
        plants in proptest::collection::vec((0..PLACES.len(), 0u8..4, "[ -~]{0,40}"), 1..6)
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tmp.path().join("outside");
        std::fs::create_dir_all(outside.join("folder")).unwrap();
        std::fs::write(outside.join("victim.txt"), "precious").unwrap();
        std::fs::write(outside.join("folder/inner.txt"), "precious too").unwrap();
        let results = tmp.path().join("results");
        let (_t, tiny_dir) = tiny("/nonexistent/engine --port {port}", "");
        let dir = results.join("tiny");
        common::copy_dir(&tiny_dir, &dir);
        for (place, kind, text) in &plants {
            let path = dir.join("runs").join(PLACES[*place]);
            // Planted only where every folder above is a real one (the setup itself must not
            // write through an earlier plant).
            let blocked = !real_folders(&dir.join("runs"), std::path::Path::new(PLACES[*place]).parent().unwrap());
            if blocked || std::fs::symlink_metadata(&path).is_ok() {
                continue;
            }
            let _ = match kind {
                0 => std::os::unix::fs::symlink(outside.join("victim.txt"), &path),
                1 => std::os::unix::fs::symlink(outside.join("folder"), &path),
                2 => std::os::unix::fs::symlink("../../../../outside/victim.txt", &path),
                _ => std::fs::write(&path, text),
            };
        }
        let before = tree(&outside);
        let d = dir.to_str().unwrap();
        let site = tmp.path().join("site");
        let r = results.to_str().unwrap();
        let s = site.to_str().unwrap();
        for args in [
            &["check", d][..], &["plan", d], &["report", d], &["analyze", d], &["translations", d],
            &["run", d], &["diff", d, "--since", "HEAD"], &["build", "--results", r, "--out", s],
        ] {
            let (code, _, err) = perflab(args);
            proptest::prop_assert!(code != 101 && !err.contains("panicked"), "{args:?}: {err}");
        }
        proptest::prop_assert_eq!(tree(&outside), before);
    }
}

#[test]
fn a_baseline_that_always_fails_gives_a_page_compared_with_the_best_that_ran() {
    let (_tmp, dir) = common::example(None);
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    let failing = text.replacen(
        "engine = \"sim-a\"\nflags = [\"--tp-size 2\"]",
        "engine = \"sim-a\"\nflags = [\"--tp-size 2\", \"--sim-die-while-loading\"]",
        1,
    );
    assert_ne!(failing, text);
    std::fs::write(&spec, failing).unwrap();
    let variants = failing_variants(&std::fs::read_to_string(&spec).unwrap());
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    let starts: usize = err
        .lines()
        .find_map(|l| l.split(" engine starts").next().filter(|_| l.contains(" engine starts (")))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    assert!(starts <= variants, "{starts} engine starts for {variants} variants: {err}");
    // Every failed configuration was started once: identical copies share its failure.
    let mut failed: Vec<(Vec<String>, Vec<String>)> = common::manifests(&dir)
        .into_iter()
        .filter(|m| m.failure.is_some())
        .map(|m| (m.command, m.benchmark_command))
        .collect();
    let all = failed.len();
    failed.sort();
    failed.dedup();
    assert_eq!(failed.len(), all, "a failed configuration was started again");
    for locale in ["en", "tr"] {
        let (code, page, err) = perflab(&["report", dir.to_str().unwrap(), "--locale", locale]);
        assert_eq!(code, 0, "{locale}: {err}");
        let said = match locale {
            "en" => "could not be measured",
            _ => "ölçülemedi",
        };
        assert!(page.contains(said), "{locale}: {page}");
    }
}

/// The number of `[[stage.variant]]` tables of a study.
fn failing_variants(spec: &str) -> usize {
    spec.matches("[[stage.variant]]").count()
}

#[test]
fn a_failure_shared_by_an_identical_configuration_is_said_in_the_readers_language() {
    // `again/bad` builds on `engine/only` with the flag `engine/bad` adds to it: the same
    // configuration, which fails to load.
    let (_tmp, dir) = tiny(QUICK, "");
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    let bad =
        "\n[[stage.variant]]\nid = \"bad\"\nlabel = \"bad\"\nengine = \"sim\"\nflags = [\"--sim-die-while-loading\"]\n";
    let again = "\n[[stage]]\nid = \"again\"\ntitle = { en = \"Again\", tr = \"Yeniden\" }\n\n[[stage.variant]]\nid = \"bad\"\nlabel = \"bad\"\nflags = [\"--sim-die-while-loading\"]\n";
    let text = text.replace("title = { en = \"Engine\" }", "title = { en = \"Engine\", tr = \"Motor\" }");
    std::fs::write(&spec, format!("{text}{bad}{again}")).unwrap();
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("2 engine starts"), "the copy was not started: {err}");
    let study = perflab::study::Study::load(&dir).unwrap();
    let analysis = perflab::analysis::analyze(&study);
    let copy = &analysis.stage("again").unwrap().variants[0];
    assert_eq!(copy.failure_from.as_deref(), Some("engine/bad"), "{copy:?}");
    let own = analysis.stage("engine").unwrap().variants[1].failure_message.clone();
    assert!(own.is_some());
    assert_eq!(copy.failure_message, own, "the failed run's own message");
    for (locale, shared) in [
        ("en", "Identical to Engine › bad, which failed: it was not started again"),
        ("tr", "Motor › bad ile aynı yapılandırma; orada başarısız olduğu için yeniden başlatılmadı"),
    ] {
        let (code, page, err) = perflab(&["report", dir.to_str().unwrap(), "--locale", locale]);
        assert_eq!(code, 0, "{locale}: {err}");
        assert!(page.contains(shared), "{locale}: {page}");
        assert!(!page.contains("the identical configuration"), "{locale}: {page}");
    }
}
