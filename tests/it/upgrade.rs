//! The engine-upgrade cycle on the simulated engine: a study measured with engine version 1.0,
//! the version and the engine's speed changed in `study.toml`, `plan` showing what is stale,
//! one stage measured again on its own (the page and `check` warn that versions mix), then
//! `run --rerun-stale` measuring exactly what must be measured again; nothing is overwritten,
//! and `diff` and the page show what changed with the right percentages.

use crate::common;

use common::{example, perflab, run, serial};
use perflab::study::{RunKey, Study};
use std::collections::BTreeSet;
use std::path::Path;

/// Every attempt folder with a result: (stage/variant/profile, attempt).
fn results(dir: &Path) -> BTreeSet<(String, u32)> {
    let study = Study::load(dir).unwrap();
    let mut out = BTreeSet::new();
    for (key, list) in &study.attempts {
        for a in list.iter().filter(|a| a.succeeded()) {
            out.insert((key.name(), a.number));
        }
    }
    out
}

fn throughput(dir: &Path, run: &str, attempt: u32) -> f64 {
    let k = RunKey::parse(run);
    let path = dir.join(format!("runs/{}/{}/attempts/{attempt}/{}.txt", k.stage, k.variant, k.profile));
    let text = std::fs::read_to_string(&path).unwrap();
    perflab::parse_str(&text).unwrap()[0].metric("total_token_throughput").unwrap()
}

/// A copy of the example's first two stages, with Sim-A far slower than Sim-B (16 ms a decode
/// step against 6): the simulated engine measures wall-clock time, and a wide gap keeps the
/// winners the same on a busy machine.
fn study() -> (tempfile::TempDir, std::path::PathBuf) {
    let (tmp, dir) = example(Some(2));
    edit(&dir, "--sim-decode-ms 8 ", "--sim-decode-ms 16 ");
    (tmp, dir)
}

fn edit(dir: &Path, from: &str, to: &str) {
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    assert!(text.contains(from), "{from}");
    std::fs::write(&spec, text.replacen(from, to, 1)).unwrap();
}

/// Sim-A 1.0 → 1.1, and it decodes eight times as fast: it beats Sim-B now.
fn upgrade(dir: &Path) {
    edit(dir, "version = \"1.0\"", "version = \"1.1\"");
    edit(dir, "--sim-decode-ms 16 ", "--sim-decode-ms 2 ");
}

#[test]
fn an_engine_upgrade_measures_again_what_it_must_and_shows_what_changed() {
    let _serial = serial();
    let (_tmp, dir) = study();
    let d = dir.to_str().unwrap();
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    let first = results(&dir);
    // Attempts are numbered a variant folder: the optimized configuration's other profile is
    // an engine start of its own.
    let names = |set: &BTreeSet<(String, u32)>| set.iter().map(|(r, n)| format!("{r}#{n}")).collect::<Vec<_>>();
    assert_eq!(
        names(&first),
        [
            "engine/sim-a/mixed#1",
            "engine/sim-a/short#1",
            "engine/sim-b/mixed#1",
            "parallelism/tp4/mixed#1",
            "parallelism/tp4/short#2"
        ]
    );
    let a = perflab::analysis::analyze(&Study::load(&dir).unwrap());
    assert_eq!(a.stages[0].after, "engine/sim-b", "Sim-B wins the engine stage at first");
    assert!(a.changes.is_none() && !a.age.mixed);

    // What was published: the study committed to git, in a subfolder of the repository.
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(["-c", "user.name=perflab", "-c", "user.email=perflab@localhost", "-c", "init.defaultBranch=main"])
            .args(args)
            .current_dir(dir.parent().unwrap())
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    git(&["init", "-q"]);
    git(&["add", "sim-study"]);
    git(&["commit", "-q", "-m", "published"]);

    upgrade(&dir);
    // `plan` names the stale runs and why, and what may follow.
    let (code, out, _) = perflab(&["plan", d]);
    assert_eq!(code, 0);
    let stale: Vec<&str> = out.lines().filter(|l| l.split_whitespace().nth(2) == Some("stale")).collect();
    assert_eq!(stale.len(), 2, "{out}");
    for profile in ["mixed", "short"] {
        assert!(
            stale.iter().any(|l| l.starts_with("engine/sim-a")
                && l.contains(profile)
                && l.contains("engine version 1.0 → 1.1")
                && l.contains("--sim-decode-ms 16 → --sim-decode-ms 2")),
            "{out}"
        );
    }
    assert!(out.contains("stage `engine` has stale runs: if measuring them again changes its winner"), "{out}");
    assert!(out.contains("with the stale runs measured again (`perflab run --rerun-stale`)"), "{out}");

    // The mixed-version case: only the engine stage is measured again.
    let (code, _, err) = run(&dir, &["--rerun-stale", "--stage", "engine"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = perflab(&["check", d]);
    assert_eq!(code, 0, "{out}");
    let warning = out.lines().find(|l| l.contains("the page mixes engine versions")).expect(&out);
    assert!(warning.contains("parallelism/tp4/attempts/1/mixed.txt"), "{warning}");
    assert!(warning.contains("measured with sim-b 2.1") && warning.contains("engine sim-b → sim-a"), "{warning}");
    let (code, page, err) = perflab(&["report", d]);
    assert_eq!(code, 0, "{err}");
    assert!(page.contains("> **⚠** These results mix engine versions."), "{page}");
    assert!(page.contains("- Tensor parallelism › TP 4 › Mixed long prompts"), "{page}");
    assert!(page.contains("Sim-B 2.1, ") && page.contains("it builds on Sim-A now"), "{page}");
    assert!(page.contains("Measured with Sim-A 1.1 ("), "{page}");

    // The rest: exactly the runs the new winner changes are measured again.
    let before_rest = results(&dir);
    let (code, _, err) = run(&dir, &["--rerun-stale"]);
    assert_eq!(code, 0, "{err}");
    let after = results(&dir);
    let new: Vec<String> = names(&after.difference(&first).cloned().collect());
    assert_eq!(
        new,
        ["engine/sim-a/mixed#2", "engine/sim-a/short#2", "parallelism/tp4/mixed#3", "parallelism/tp4/short#4"],
        "the engine stage's Sim-A runs, then TP 4 on the new winner; Sim-B is not measured again"
    );
    assert!(before_rest.is_subset(&after) && first.is_subset(&after), "nothing is overwritten or removed");
    for (run, n) in &first {
        let k = RunKey::parse(run);
        assert!(dir.join(format!("runs/{}/{}/attempts/{n}/{}.txt", k.stage, k.variant, k.profile)).is_file());
    }
    let (code, out, _) = perflab(&["check", d]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("warning: the page"), "{out}");

    // What changed: the engine stage's winner, and the figures before → after.
    let (code, json, err) = perflab(&["diff", d, "--json"]);
    assert_eq!(code, 0, "{err}");
    let diff: serde_json::Value = serde_json::from_str(&json).unwrap();
    let engine = &diff["stages"][0];
    assert_eq!((engine["best_before"].as_str(), engine["best_after"].as_str()), (Some("sim-b"), Some("sim-a")));
    assert_eq!(engine["changed"], true);
    assert_eq!(diff["versions"][0]["before"][0], "1.0");
    assert_eq!(diff["versions"][0]["after"][0], "1.1");
    let mixed = diff["profiles"].as_array().unwrap().iter().find(|p| p["profile"] == "mixed").unwrap();
    let (old, new) = (throughput(&dir, "engine/sim-a/mixed", 1), throughput(&dir, "engine/sim-a/mixed", 2));
    let percent = (new - old) / old * 100.0;
    assert_eq!(mixed["baseline"]["before"].as_f64(), Some(old));
    assert_eq!(mixed["baseline"]["after"].as_f64(), Some(new));
    assert!((mixed["baseline"]["percent"].as_f64().unwrap() - percent).abs() < 1e-9);
    assert_eq!(mixed["baseline"]["beyond_noise"], percent.abs() > 3.0);
    let (old_opt, new_opt) =
        (throughput(&dir, "parallelism/tp4/mixed", 1), throughput(&dir, "parallelism/tp4/mixed", 3));
    assert_eq!(mixed["optimized"]["before"].as_f64(), Some(old_opt));
    assert_eq!(mixed["optimized"]["after"].as_f64(), Some(new_opt));

    // Against the published revision: the same comparison, named by its revision.
    let (code, json, err) = perflab(&["diff", d, "--since", "HEAD", "--json"]);
    assert_eq!(code, 0, "{err}");
    let since: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(since["since"], "HEAD");
    assert_eq!(since["stages"], diff["stages"]);
    assert_eq!(since["profiles"], diff["profiles"]);
    let (code, _, err) = perflab(&["diff", d, "--since", "no-such-revision"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no-such-revision"), "{err}");

    let (code, md, _) = perflab(&["diff", d]);
    assert_eq!(code, 0);
    let figure = format!("{old:.2} tok/s → {new:.2} tok/s (");
    assert!(md.contains(&figure), "{figure}\n{md}");
    assert!(md.contains(&format!("{}{:.2}%", if percent >= 0.0 { "+" } else { "−" }, percent.abs())), "{md}");
    assert!(md.contains("Sim-A 1.0 → 1.1"), "{md}");
    assert!(md.contains("| Engine | Sim-B | Sim-A | Sim-A | **yes** |"), "{md}");
    assert!(md.contains("added `--tp-size 4`") || md.contains("The recommended engine has changed"), "{md}");

    let (code, page, _) = perflab(&["report", d]);
    assert_eq!(code, 0);
    assert!(page.contains("## What changed") && page.contains(&figure), "{page}");
    assert!(!page.contains("These results mix engine versions"), "{page}");
    let (code, tr, _) = perflab(&["report", d, "--locale", "tr"]);
    assert_eq!(code, 0);
    assert!(tr.contains("## Neler değişti"), "{tr}");

    // The exports list the superseded results with their version.
    let out = dir.parent().unwrap().join("site");
    let results_dir = dir.parent().unwrap().to_str().unwrap();
    let (code, _, err) = perflab(&["build", "--results", results_dir, "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let csv = std::fs::read_to_string(out.join("md/data/sim-study.csv")).unwrap();
    assert!(
        csv.lines().any(|l| l.contains(",superseded,engine/sim-a/mixed,1,1.0,")),
        "the Sim-A 1.0 result is listed: {csv}"
    );
    let index = std::fs::read_to_string(out.join("en/index.html")).unwrap();
    // The card names the versions that measured what the page shows, and their date once.
    assert!(index.contains("Engines: Sim-A v1.1, Sim-B v2.1 · measured on "), "{index}");
}

#[test]
fn bumping_a_version_does_not_relabel_runs_placed_by_hand() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("glm-5.2-fp8-h200");
    common::copy_dir(&common::root().join("results/glm-5.2-fp8-h200"), &dir);
    let d = dir.to_str().unwrap();
    let (code, out, _) = perflab(&["plan", d]);
    assert_eq!(code, 0);
    assert!(!out.contains(" stale "), "{out}");
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap().replace("version = \"v0.5.14\"", "version = \"v0.6.0\"");
    std::fs::write(&spec, text).unwrap();
    let (code, out, _) = perflab(&["plan", d]);
    assert_eq!(code, 0);
    assert!(out.lines().any(|l| l.contains(" stale ") && l.contains("engine version v0.5.14 → v0.6.0")), "{out}");
    let (code, page, _) = perflab(&["report", d]);
    assert_eq!(code, 0);
    assert!(page.contains("SGLang v0.5.14 (run dates not recorded); the study now names version v0.6.0"), "{page}");
    assert!(page.contains("The study has changed its engines since these results were measured."), "{page}");
    assert!(!page.contains("These results mix engine versions"), "{page}");
}

#[test]
fn measuring_one_stage_again_warns_that_the_page_mixes_versions() {
    let _serial = serial();
    let (_tmp, dir) = study();
    let d = dir.to_str().unwrap();
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    let first = results(&dir);
    // Sim-B, which wins the engine stage and carries the next one, goes 2.1 → 2.2; only the
    // engine stage is measured again.
    edit(&dir, "version = \"2.1\"", "version = \"2.2\"");
    let (code, _, err) = run(&dir, &["--rerun-stale", "--stage", "engine"]);
    assert_eq!(code, 0, "{err}");
    let new: Vec<String> = results(&dir).difference(&first).map(|(r, n)| format!("{r}#{n}")).collect();
    assert_eq!(new, ["engine/sim-b/mixed#2"]);

    let study = Study::load(&dir).unwrap();
    let a = perflab::analysis::analyze(&study);
    assert!(a.age.mixed);
    let sim_b = a.age.engines.iter().find(|e| e.engine == "sim-b").unwrap();
    let versions: Vec<&str> = sim_b.versions.iter().map(|v| v.version.as_str()).collect();
    assert_eq!(versions, ["2.1", "2.2"]);
    let stale: Vec<String> = a.age.stale().map(|m| m.run.to_string()).collect();
    assert_eq!(stale, ["parallelism/tp4/mixed", "parallelism/tp4/short"]);

    let (code, out, _) = perflab(&["check", d]);
    assert_eq!(code, 0, "{out}");
    let warnings: Vec<&str> = out.lines().filter(|l| l.contains("warning: the page mixes engine versions")).collect();
    assert_eq!(warnings.len(), 2, "{out}");
    assert!(warnings[0].contains("runs/parallelism/tp4/attempts/1/mixed.txt:1:1:"), "{out}");
    assert!(warnings.iter().all(|w| w.contains("measured with sim-b 2.1") && w.contains("engine version 2.1 → 2.2")));

    let (code, page, _) = perflab(&["report", d]);
    assert_eq!(code, 0);
    let conclusion = &page[..page.find("### Before and after").unwrap()];
    assert!(conclusion.contains("> **⚠** These results mix engine versions."), "{page}");
    assert!(
        conclusion.contains("- Tensor parallelism › TP 4 › Mixed long prompts (150–1400 words / 32 out): Sim-B 2.1, "),
        "{page}"
    );
    assert!(conclusion.contains("the study names version 2.2 now"), "{page}");
    assert!(page.contains("Sim-B 2.1 (") && page.contains("Sim-B 2.2 ("), "both versions are named: {page}");
    let (code, tr, _) = perflab(&["report", d, "--locale", "tr"]);
    assert_eq!(code, 0);
    assert!(tr.contains("Bu sonuçlarda farklı motor sürümleri bir arada."), "{tr}");

    // A changed benchmark makes the runs of its profile stale, and only those.
    edit(&dir, "seed = 1\n", "seed = 2\n");
    let (code, out, _) = perflab(&["plan", d]);
    assert_eq!(code, 0);
    let stale: Vec<&str> = out.lines().filter(|l| l.contains("the benchmark command changed")).collect();
    assert_eq!(stale.len(), 2, "{out}");
    assert!(stale.iter().all(|l| l.contains(" short ")), "{out}");
}

/// `diff --since` where the revision cannot give an earlier study: each case is an error that
/// names the study, the revision or the file, with a non-zero exit and no panic.
#[test]
fn diff_since_says_why_a_revision_gives_nothing_to_compare_with() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    common::copy_dir(&common::root().join("results/glm-5.2-fp8-h200"), &dir);
    let d = dir.to_str().unwrap();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(["-c", "user.email=a@b", "-c", "user.name=a"])
            .args(args)
            .current_dir(tmp.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    let refused = |rev: &str, said: &[&str]| {
        let (code, out, err) = perflab(&["diff", d, "--since", rev]);
        assert_eq!(code, 2, "{rev}: {out}{err}");
        assert!(!err.contains("panicked"), "{err}");
        for words in said {
            assert!(err.contains(words), "{rev}: `{words}` not in {err}");
        }
    };
    refused("HEAD", &["is not in a git repository", d]);
    git(&["init", "-q"]);
    git(&["commit", "-q", "--allow-empty", "-m", "empty"]);
    refused("no-such-rev", &["has no revision `no-such-rev`"]);
    refused("HEAD", &["revision HEAD has no study at 's/'", "s/study.toml"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "study"]);
    let spec = dir.join("study.toml");
    let good = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, format!("{good}\nbroken = [\n")).unwrap();
    git(&["commit", "-q", "-am", "broken"]);
    std::fs::write(&spec, &good).unwrap();
    let line = good.lines().count() + 2;
    refused("HEAD", &["as revision HEAD holds it does not load", &format!("HEAD:s/study.toml:{line}:")]);
    let (code, _, err) = perflab(&["diff", d, "--since", "HEAD~1", "--json"]);
    assert_eq!(code, 0, "{err}");
}
