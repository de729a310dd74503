//! `perflab plan` and `perflab run` on the simulated engine: the example study end to end,
//! interruptions (SIGINT, SIGKILL) and resuming, and engines that fail to start, never become
//! ready, or whose benchmark fails.

use crate::common;

use common::{example, manifests, no_temporary_files, perflab, run, running, serial, tiny};
use perflab::analysis::{Adoption, Outcome, analyze};
use perflab::study::{FailureClass, Manifest, RunState, Study};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn example_study_runs_end_to_end() {
    let _serial = serial();
    let (tmp, dir) = example(None);
    let (code, _, err) = run(&dir, &["--dry-run"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("engine: perflab-engine --port {port} --model sim/long-context-moe"), "{err}");
    assert!(err.contains("more runs wait for earlier stages' winners"), "{err}");

    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("11 engine starts (9 served) and 10 benchmark runs (2 failed)"), "{err}");
    assert!(err.contains("where one start a (variant, profile) would take 18"), "{err}");
    // Stages are numbered in order; the optimized configuration's other profiles come last.
    let last_stage = err.find("[stage 7/7]").expect("the last stage ran");
    assert!(!err[last_stage..].contains("[stage 5/7]"), "{err}");
    assert!(err[last_stage..].contains("[optimized configuration] "), "{err}");
    assert!(err.contains("failed (oom)") && err.contains("failed (unsupported)"), "{err}");
    assert!(err.contains("(40 of 48 requests completed)"), "{err}");

    let study = Study::load(&dir).unwrap();
    assert!(perflab::analysis::check(&study).is_empty());
    let a = analyze(&study);
    let adopted = |s: &str| match &a.stage(s).unwrap().adoption {
        Adoption::Adopted { variant, .. } => variant.clone(),
        other => format!("{other:?}"),
    };
    assert_eq!(adopted("engine"), "sim-b");
    assert_eq!(adopted("parallelism"), "tp4");
    assert_eq!(adopted("memory-fraction"), "0.9");
    assert_eq!(adopted("kv-cache-dtype"), "fp8");
    let outcome = |s: &str, v: &str| a.stage(s).unwrap().variants.iter().find(|x| x.id == v).unwrap().outcome.clone();
    assert_eq!(outcome("chunked-prefill", "256k"), Outcome::Failed { class: FailureClass::Oom });
    assert_eq!(outcome("attention-backend", "cutlass-mla"), Outcome::Failed { class: FailureClass::Unsupported });
    assert!(matches!(outcome("context-length", "1k"), Outcome::LostRequests { .. }));
    let short = a.scenarios.iter().find(|s| s.profile == "short").unwrap();
    assert!(short.regression, "the optimized configuration regresses on few short requests");
    assert!(a.scenarios.iter().find(|s| s.profile == "mixed").unwrap().change.unwrap() > 100.0);

    // Every start records when its engine stopped (how soon the next one starts is measured by
    // benches/readiness.rs, not here: a loaded machine would make a timed test fail).
    assert!(manifests(&dir).iter().all(|m| m.engine_stopped_at.is_some()));

    // A second run has nothing to do; the results render.
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("0 engine starts (0 served) and 0 benchmark runs"), "{err}");
    let out = tmp.path().join("site");
    let (code, _, err) = perflab(&["build", "--results", tmp.path().to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read_to_string(out.join("en/sim-study.html")).unwrap().contains("Did not run: out of memory"));

    // A changed engine version makes the runs of that engine stale.
    let spec = dir.join("study.toml");
    std::fs::write(&spec, std::fs::read_to_string(&spec).unwrap().replace("version = \"2.1\"", "version = \"2.2\""))
        .unwrap();
    let (code, out, _) = perflab(&["plan", dir.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(
        out.lines().any(|l| l.starts_with("parallelism/tp4") && l.contains("stale") && l.contains("2.1 → 2.2")),
        "{out}"
    );
}

/// Starts `perflab run`, waits until an engine is up, and returns the runner and the engine's pid.
/// The callers wait for the runner.
#[allow(clippy::zombie_processes)]
fn start_and_wait_for_engine(dir: &Path) -> (std::process::Child, u32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_perflab"))
        .args(["run", dir.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let record = dir.join("runs/.engine.json");
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(text) = std::fs::read_to_string(&record)
            && let Some(pid) = serde_json::from_str::<serde_json::Value>(&text).ok().and_then(|v| v["pid"].as_u64())
        {
            // Let the engine get into its benchmark.
            std::thread::sleep(Duration::from_millis(600));
            return (child, pid as u32);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("no engine started");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn completes(dir: &Path) {
    let (code, _, err) = run(dir, &[]);
    assert_eq!(code, 0, "{err}");
    let study = Study::load(dir).unwrap();
    assert!(perflab::analysis::check(&study).is_empty(), "the study is complete");
    assert!(manifests(dir).iter().all(|m| m.state != RunState::Running));
    no_temporary_files(dir);
}

#[test]
fn ctrl_c_stops_the_engine_and_the_next_run_continues() {
    let (_tmp, dir) = example(Some(2));
    let (child, engine) = start_and_wait_for_engine(&dir);
    Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!running(engine), "the engine was stopped");
    assert!(manifests(&dir).iter().any(|m| m.state == RunState::Interrupted));
    no_temporary_files(&dir);
    completes(&dir);
}

#[test]
fn after_kill_9_the_next_run_stops_the_old_engine_and_continues() {
    let (_tmp, dir) = example(Some(2));
    let (mut child, engine) = start_and_wait_for_engine(&dir);
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(running(engine), "a killed runner cannot stop its engine");
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("a previous run left behind"), "{err}");
    assert!(!running(engine), "the next run stopped it");
    completes(&dir);
}

fn recorded_failure(dir: &Path) -> (FailureClass, String) {
    let m = Manifest::read(&dir.join("runs/engine/only/attempts/1/p.manifest.json")).unwrap();
    assert_eq!(m.state, RunState::Failed);
    let f = m.failure.unwrap();
    (f.class, f.message)
}

#[test]
fn a_port_in_use_is_a_failure_of_its_own() {
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = busy.local_addr().unwrap().port();
    let (_tmp, dir) = tiny(&format!("perflab-engine --port {port} --sim-startup-seconds 0.1"), "");
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 1, "nothing measured: {err}");
    let (class, message) = recorded_failure(&dir);
    assert_eq!(class, FailureClass::PortInUse);
    assert!(message.contains(&format!("port {port} already accepted connections")), "{message}");
    assert!(!dir.join("runs/engine/only/attempts/1/p.txt").exists());
}

#[test]
fn an_engine_that_never_becomes_ready_times_out_and_is_stopped() {
    let (_tmp, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 100", "");
    let started = Instant::now();
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 1, "nothing measured: {err}");
    // Stopped at its timeout, not after the 100 s it would take to load (a wide margin: this
    // says what happened, not how fast).
    assert!(started.elapsed() < Duration::from_secs(60));
    let (class, message) = recorded_failure(&dir);
    assert_eq!(class, FailureClass::StartTimeout);
    assert!(message.contains("not ready after 2 s"), "{message}");
    let pid = Manifest::read(&dir.join("runs/engine/only/attempts/1/p.manifest.json")).unwrap().engine_pid.unwrap();
    assert!(!running(pid), "the engine was stopped");
}

#[test]
fn a_failing_benchmark_is_recorded() {
    let (_tmp, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 0.1", "");
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap().replace(
        "tool = \"perflab bench\"",
        "tool = \"perflab bench\"\ncommand = \"perflab bench --base-url http://{host}:{port} --no-such-flag\"",
    );
    std::fs::write(&spec, text).unwrap();
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 1, "nothing measured: {err}");
    let (class, message) = recorded_failure(&dir);
    assert_eq!(class, FailureClass::BenchmarkFailure);
    assert!(message.contains("unexpected argument '--no-such-flag'"), "{message}");
    let (code, out, _) = perflab(&["plan", dir.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("engine/only  p  failed  benchmark-failure"), "{out}");
}

#[test]
fn dry_run_prints_the_commands_of_a_real_study() {
    let (code, _, err) = perflab(&["run", "deepseek-v3.2-h200", "--dry-run", "--rerun", "--stage", "engine"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("engine/vllm on sharegpt, short, medium, long, very-long, generation-heavy:"), "{err}");
    assert!(err.contains("  engine: vllm serve deepseek-ai/DeepSeek-V3.2 -tp 8 --tokenizer-mode deepseek_v32 --reasoning-parser deepseek_v3"), "{err}");
    assert!(
        err.contains("--dataset-name random --num-prompts 1000 --random-input-len 128 --random-output-len 4 --seed 42"),
        "{err}"
    );
    assert!(err.contains("--base-url http://127.0.0.1:{port}"), "{err}");
    assert!(
        err.contains("--dataset-path results/deepseek-v3.2-h200/ShareGPT_V3_unfiltered_cleaned_split.json"),
        "{err}"
    );
    assert!(err.contains("  engine: trtllm-serve /workspace/DeepSeek-v3.2 --tp_size 8"), "{err}");
    // SGLang's command fixes port 8000: its benchmarks go there; vLLM's port cannot be known.
    assert!(err.contains("--base-url http://127.0.0.1:8000"), "{err}");
    assert!(err.contains("  warning: engine `vllm`: perflab cannot tell which port it listens on"), "{err}");
}

#[test]
fn study_patterns_classify_before_the_built_in_ones() {
    // The engine's error matches the built-in "unsupported" pattern too.
    let patterns = "[[failure_patterns]]\nclass = \"start-failure\"\nregex = \"Selected backend\"\n";
    let (_tmp, dir) =
        tiny("perflab-engine --port {port} --sim-startup-seconds 0.1 --attention-backend cutlass", patterns);
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 1, "nothing measured: {err}");
    let (class, message) = recorded_failure(&dir);
    assert_eq!(class, FailureClass::StartFailure);
    assert!(message.contains("Selected backend AttentionBackendEnum.CUTLASS is not valid"), "{message}");
}

/// `tiny` with a second variant that changes nothing the engine's speed depends on.
fn two_alike(engine: &str, extra: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let (tmp, dir) = tiny(engine, extra);
    let spec = dir.join("study.toml");
    let mut text = std::fs::read_to_string(&spec).unwrap();
    text.push_str("\n[[stage.variant]]\nid = \"other\"\nlabel = \"other\"\nengine = \"sim\"\nflags = [\"--sim-vocab-size 32001\"]\n");
    std::fs::write(&spec, text).unwrap();
    (tmp, dir)
}

const QUICK: &str = "perflab-engine --port {port} --sim-startup-seconds 0.05 --sim-decode-ms 2";

#[test]
fn repeats_are_taken_in_one_start_or_across_restarts_and_all_kept() {
    let _serial = serial();
    let (_tmp, dir) = two_alike(QUICK, "repeats = 3");
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("2 engine starts (2 served) and 6 benchmark runs (0 failed)"), "{err}");
    let attempt = dir.join("runs/engine/only/attempts/1");
    for file in ["p.txt", "p.r2.txt", "p.r3.txt"] {
        assert!(attempt.join(file).is_file(), "{file}");
    }
    let study = Study::load(&dir).unwrap();
    assert_eq!(study.sample(&perflab::study::RunKey::parse("engine/only/p")).len(), 3);
    // Nothing is pending now; asking for more measures only what is missing.
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("0 engine starts"), "{err}");

    let (_tmp, dir) = two_alike(QUICK, "repeats = 2\nrepeat_across_restarts = true");
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("4 engine starts (4 served) and 4 benchmark runs (0 failed)"), "{err}");
    let second = Manifest::read(&dir.join("runs/engine/other/attempts/2/p.manifest.json")).unwrap();
    assert!(second.repeat, "the second start adds to the first");
    let first = Manifest::read(&dir.join("runs/engine/other/attempts/1/p.manifest.json")).unwrap();
    assert!(!first.repeat);
    let study = Study::load(&dir).unwrap();
    assert_eq!(study.sample(&perflab::study::RunKey::parse("engine/other/p")).len(), 2);
}

#[test]
fn an_interrupted_until_confident_run_resumes_with_what_is_left_of_its_budget() {
    let _serial = serial();
    // Two variants alike under ±30% noise drawn anew at every engine start, one measurement a
    // start.
    let draws = tempfile::tempdir().unwrap();
    let counter = draws.path().join("starts");
    let noisy = format!("{QUICK} --sim-noise 0.3 --sim-seed 5 --sim-noise-counter {}", counter.display());
    let (_tmp, dir) = two_alike(&noisy, "repeats = 2\nnoise_threshold = 1\nrepeat_across_restarts = true");
    let args = ["run", dir.to_str().unwrap(), "--until-confident", "--budget", "6"];
    let mut child = Command::new(env!("CARGO_BIN_EXE_perflab"))
        .args(args)
        .current_dir(common::root())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Stopped once the first start the budget pays for has its result.
    // (Read while the runner writes: a folder or manifest not there yet counts nothing.) A start
    // that failed (a loaded machine can time one out) spent the budget as one that ran did.
    let added = |dir: &Path| {
        let done = walkdir::WalkDir::new(dir.join("runs"))
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".manifest.json"))
            .filter(|e| Manifest::read(e.path()).is_ok_and(|m| matches!(m.state, RunState::Done | RunState::Failed)))
            .count();
        done.saturating_sub(4)
    };
    let paid = common::wait_for(Duration::from_secs(60), || added(&dir) >= 1);
    // SAFETY: kill(2) on a child process of this test.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    assert!(paid, "a start the budget pays for ran");
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let first = added(&dir);
    assert!(first < 6, "the first run was stopped before the budget was spent: {first}");
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("runs/.until-confident.json")).unwrap()).unwrap();
    assert!(record["runs"].as_u64().unwrap() >= first as u64, "{record}");
    assert!(record["seconds"].as_f64().unwrap() > 0.0, "{record}");
    // The look it was in is recorded, so that the next run ends it before deciding.
    assert!(record["look"].as_object().is_some_and(|l| l.len() == 2), "{record}");

    let (code, _, err) = run(&dir, &["--until-confident", "--budget", "6"]);
    assert_eq!(code, 0, "{err}");
    // Both runs together add no more than the budget pays for, three looks of one start a side,
    // and the closing line counts both. The second run ended the look the first was stopped
    // in, so the stage was only ever judged with as many measurements on each side: it goes on
    // until the budget is spent, or stops at a look that can tell (which two alike variants
    // allow now and then, as a test of a true null does).
    let total = added(&dir);
    assert!(err.contains(&format!("until confident: {total} runs added;")), "{err}");
    let study = Study::load(&dir).unwrap();
    let count = |config: &str| study.sample(&perflab::study::RunKey::parse(config)).len();
    assert_eq!(count("engine/only/p"), count("engine/other/p"), "{err}");
    match total {
        6 => assert!(err.contains("the budget is spent") || err.contains("every stage can tell"), "{err}"),
        2 | 4 => assert!(err.contains("every stage can tell"), "{err}"),
        _ => panic!("{total} added: {err}"),
    }
    assert!(!dir.join("runs/.until-confident.json").exists(), "a finished run leaves no record");
}

#[test]
fn until_confident_measures_an_unclear_stage_again_within_its_budget() {
    let _serial = serial();
    // Two variants of the same speed under ±30% seeded noise: two runs each cannot tell them
    // apart, so the budget pays for two more each. Four usually cannot either; but the
    // simulated engine's speed on a busy machine adds noise of its own, and a look at a true
    // null may tell now and then (at the rate the calibration benchmark measures), so either
    // ending is right as long as the budget was kept.
    let noisy = format!("{QUICK} --sim-noise 0.3 --sim-seed 11");
    let (_tmp, dir) = two_alike(&noisy, "repeats = 2\nnoise_threshold = 1");
    let (code, _, err) = run(&dir, &["--until-confident", "--budget", "4"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("until confident: 2 runs more for engine/other and engine/only"), "{err}");
    let spent = "until confident: 4 runs added; 8 runs on the target profile in all, where measuring every variant 4 times would take 8 runs; ";
    let unclear = err.contains(&format!("{spent}still cannot tell, the budget is spent: engine"));
    assert!(unclear || err.contains(&format!("{spent}every stage can tell")), "{err}");
    let study = Study::load(&dir).unwrap();
    let a = analyze(&study);
    assert_eq!(a.stage("engine").unwrap().adoption.unclear(), unclear, "{:?}", a.stage("engine").unwrap().adoption);
    for v in ["only", "other"] {
        assert_eq!(study.sample(&perflab::study::RunKey::parse(&format!("engine/{v}/p"))).len(), 4);
    }
    // Without --budget, --until-confident is refused.
    let (code, _, err) = run(&dir, &["--until-confident"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(&dir, &["--until-confident", "--budget", "soon"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is not a budget"), "{err}");
}

#[test]
fn until_confident_puts_its_runs_where_the_variance_is() {
    let _serial = serial();
    // The size of a start the policy picks from the first two starts a side (2 runs each, the
    // study's `repeats`): the starts of the given `--sim-noise-per-run` and costs, and budget.
    let looks = |per_run: &str, costs: &str, seed: u32, budget: &str| {
        // A benchmark's requests are all in flight at once: a pause of 2 ms is the next one.
        // Each start draws anew (the counter numbers them).
        let draws = tempfile::tempdir().unwrap();
        let noisy = format!(
            "{QUICK} --sim-noise 0.3 --sim-noise-per-run {per_run} --sim-benchmark-gap-ms 2 --sim-seed {seed} --sim-noise-counter {}",
            draws.path().join("starts").display()
        );
        let (_tmp, dir) = two_alike(&noisy, &format!("repeats = 2\nnoise_threshold = 1\n{costs}"));
        let (code, _, err) = run(&dir, &["--until-confident", "--budget", budget]);
        assert_eq!(code, 0, "{err}");
        let sizes: Vec<usize> = err
            .lines()
            .filter(|l| l.contains(" more for "))
            .filter_map(|l| l.split("until confident: ").nth(1)?.split(' ').next()?.parse().ok())
            .collect();
        let study = Study::load(&dir).unwrap();
        let decisions = analyze(&study).evidence.decisions;
        (sizes, decisions, err)
    };
    // Every bit of the noise within a start, a start a hundred times a run's cost: after the first
    // look, starts of several runs.
    let (sizes, decisions, err) = looks("1", "start_cost = 100\nrun_cost = 1", 3, "20");
    assert_eq!(sizes.first(), Some(&2), "the first look's start is of the study's repeats: {err}");
    assert!(sizes.get(1).is_none_or(|m| *m >= 3), "all within a start: {sizes:?}: {err}");
    // What the decision cost: the two sides' starts and runs, as measured.
    if let Some(d) = decisions.first() {
        assert_eq!(d.stage, "engine");
        assert!(d.starts >= 4 && d.runs >= 8 && d.seconds > 0.0, "{d:?}");
    }
    // Every bit of it between starts, a run ten times a start: new starts of one run.
    let (sizes, _, err) = looks("0", "start_cost = 1\nrun_cost = 10", 4, "8");
    assert_eq!(sizes.first(), Some(&2), "{err}");
    assert!(sizes.iter().skip(1).all(|m| *m == 1), "all between starts: {sizes:?}: {err}");
}

/// `plan` lines its columns up whatever the lengths of the names (`context-length/32k` beside
/// `engine/sim-a`), and ends no line in spaces.
#[test]
fn plan_lines_up_its_columns() {
    let (_tmp, dir) = common::example(None);
    let (_, out, err) = common::perflab(&["plan", dir.to_str().unwrap()]);
    // The run rows, not the closing count ("0 done, ... 3 pending, 14 waiting").
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| !l.starts_with(|c: char| c.is_ascii_digit()) && (l.contains(" pending") || l.contains(" waiting")))
        .collect();
    assert!(rows.len() > 10, "{out}{err}");
    // Where each of the first three columns begins.
    let starts = |l: &str| -> Vec<usize> {
        let b = l.as_bytes();
        let mut at = vec![0];
        for i in 2..b.len() {
            if at.len() < 3 && b[i] != b' ' && b[i - 1] == b' ' && b[i - 2] == b' ' {
                at.push(i);
            }
        }
        at
    };
    let first = starts(rows[0]);
    assert_eq!(first.len(), 3, "{}", rows[0]);
    for row in &rows {
        assert_eq!(starts(row), first, "{out}");
        assert_eq!(row.trim_end(), *row, "{row:?}");
    }
}
