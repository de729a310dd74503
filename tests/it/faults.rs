//! Fault injection: `perflab run` against the simulated engine failing the way engines on GPU
//! machines fail (dying mid-benchmark, failing every request, a foreign server on the port, a
//! fixed port, a reused process id, a failed re-measurement, a dropped SSH session, a hung
//! shutdown). Each test asserts what the user relies on: the recorded class, the manifest's
//! state, the files on disk, that no process is left, the exit code, and that the rest of the
//! study still ran. Waits are bounded polls on a condition; nothing depends on how long a step takes.

use crate::common;

use common::{
    copy_dir, example, finish, free_port, manifests, no_temporary_files, perflab, root, run, running, tiny, wait_for,
};
use perflab::study::{FailureClass, Manifest, RunState, Study};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// Adds `extra` to the command of engine `id` of a study.
fn engine_flags(dir: &Path, id: &str, extra: &str) {
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    let at = text.find(&format!("id = \"{id}\"")).unwrap();
    let line_start = at + text[at..].find("command = \"").unwrap() + "command = \"".len();
    let line_end = line_start + text[line_start..].find('"').unwrap();
    let edited = format!("{}{} {extra}{}", &text[..line_start], &text[line_start..line_end], &text[line_end..]);
    std::fs::write(&spec, edited).unwrap();
}

fn manifest(dir: &Path, run: &str) -> Manifest {
    Manifest::read(&dir.join("runs").join(run)).unwrap_or_else(|e| panic!("{run}: {e}"))
}

fn failure(m: &Manifest) -> (FailureClass, String) {
    assert_eq!(m.state, RunState::Failed, "{m:?}");
    let f = m.failure.clone().unwrap();
    (f.class, f.message)
}

/// No engine of any manifest is still running.
fn no_engine_left(dir: &Path) {
    for m in manifests(dir) {
        if let Some(pid) = m.engine_pid {
            assert!(wait_for(Duration::from_secs(10), || !running(pid)), "engine {pid} left running");
        }
    }
    assert!(!dir.join("runs/.engine.json").exists(), "the engine record is removed");
}

/// Spawns `perflab run` with its standard error piped.
fn spawn_run(dir: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_perflab"))
        .args(["run", dir.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The engine process `perflab run` recorded in `runs/.engine.json`, once it is there.
fn recorded_engine(dir: &Path) -> u32 {
    let record = dir.join("runs/.engine.json");
    let mut pid = None;
    let found = wait_for(Duration::from_secs(30), || {
        pid = std::fs::read_to_string(&record)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v["pid"].as_u64());
        pid.is_some()
    });
    assert!(found, "no engine started");
    pid.unwrap() as u32
}

/// The first stage of the example: `sim-a` (the baseline, on both profiles) against `sim-b`.
fn engine_stage() -> (tempfile::TempDir, PathBuf) {
    example(Some(1))
}

// 1. An engine that dies during a benchmark.

#[test]
fn an_engine_that_crashes_mid_benchmark_fails_its_runs_and_the_search_goes_on() {
    let (_tmp, dir) = engine_stage();
    engine_flags(&dir, "sim-a", "--sim-crash-after 5");
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("engine/sim-a on mixed: failed (crash): the engine exited"), "{err}");
    assert!(!err.lines().any(|l| l.starts_with("error:")), "{err}");

    let crashed = manifest(&dir, "engine/sim-a/attempts/1/mixed.manifest.json");
    let (class, message) = failure(&crashed);
    assert_eq!(class, FailureClass::Crash);
    // The root cause, not the shutdown line printed after it.
    assert!(message.contains("RuntimeError: CUDA error: an illegal memory access"), "{message}");
    assert!(crashed.log_tail.iter().any(|l| l.contains("illegal memory access")), "{:?}", crashed.log_tail);
    assert_eq!(crashed.engine_exit_status, Some(1));
    let (class, message) = failure(&manifest(&dir, "engine/sim-a/attempts/1/short.manifest.json"));
    assert_eq!(class, FailureClass::Crash);
    assert_eq!(message, "not run: the engine died during the benchmark on `mixed`");
    assert!(!dir.join("runs/engine/sim-a/attempts/1/mixed.txt").exists());

    // The next configuration was measured; nothing is left running or half-written.
    assert_eq!(manifest(&dir, "engine/sim-b/attempts/1/mixed.manifest.json").state, RunState::Done);
    assert!(dir.join("runs/engine/sim-b/attempts/1/mixed.txt").is_file());
    assert!(manifests(&dir).iter().all(|m| m.state != RunState::Running));
    no_engine_left(&dir);
    no_temporary_files(&dir);
    let study = Study::load(&dir).unwrap();
    assert!(study.runs.keys().any(|k| k.variant == "sim-b"));
    let (code, out, _) = perflab(&["plan", dir.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.lines().any(|l| l.starts_with("engine/sim-a") && l.contains("failed  crash")), "{out}");
}

#[test]
fn a_kill_9_of_the_engine_mid_benchmark_is_a_crash() {
    let (_tmp, dir) = engine_stage();
    // Slow enough that the benchmark is still running when the engine is killed.
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, text.replacen("--sim-decode-ms 8 ", "--sim-decode-ms 400 ", 1)).unwrap();
    let child = spawn_run(&dir);
    let engine = recorded_engine(&dir);
    let output = dir.join("runs/engine/sim-a/attempts/1/mixed.txt.tmp");
    assert!(wait_for(Duration::from_secs(30), || output.exists()), "the benchmark did not start");
    Command::new("kill").args(["-KILL", &engine.to_string()]).status().unwrap();
    let (code, err) = finish(child, Duration::from_secs(120));
    assert_eq!(code, 0, "{err}");
    let (class, message) = failure(&manifest(&dir, "engine/sim-a/attempts/1/mixed.manifest.json"));
    assert_eq!(class, FailureClass::Crash);
    assert!(message.contains("signal: 9"), "{message}");
    assert_eq!(failure(&manifest(&dir, "engine/sim-a/attempts/1/short.manifest.json")).0, FailureClass::Crash);
    assert_eq!(manifest(&dir, "engine/sim-b/attempts/1/mixed.manifest.json").state, RunState::Done);
    no_engine_left(&dir);
    no_temporary_files(&dir);
}

// 2. A run in which no request succeeded.

#[test]
fn a_run_below_min_completed_fails_at_run_time_and_keeps_its_output() {
    let (_tmp, dir) = engine_stage();
    engine_flags(&dir, "sim-a", "--sim-fail-every 1");
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(
            "engine/sim-a on mixed: failed (requests-failed): only 0 of 48 requests completed; `min_completed` asks for 24"
        ),
        "{err}"
    );
    let (class, _) = failure(&manifest(&dir, "engine/sim-a/attempts/1/mixed.manifest.json"));
    assert_eq!(class, FailureClass::RequestsFailed);
    // The benchmark's output is kept as evidence, but no page reads it as a result.
    assert!(dir.join("runs/engine/sim-a/attempts/1/mixed.txt").is_file());
    let study = Study::load(&dir).unwrap();
    assert!(!study.runs.keys().any(|k| k.variant == "sim-a"));
    assert!(study.runs.keys().any(|k| k.variant == "sim-b"));
    let analysis = perflab::analysis::analyze(&study);
    let outcome = &analysis.stage("engine").unwrap().variants.iter().find(|v| v.id == "sim-a").unwrap().outcome;
    assert_eq!(*outcome, perflab::analysis::Outcome::Failed { class: FailureClass::RequestsFailed });
    no_engine_left(&dir);
}

#[test]
fn min_completed_is_a_study_key() {
    // One request in three fails: 2/3 of them complete, below a min_completed of 0.9.
    let (_tmp, dir) =
        tiny("perflab-engine --port {port} --sim-startup-seconds 0.1 --sim-fail-every 3", "min_completed = 0.9\n");
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 1, "nothing measured: {err}");
    let (class, _) = failure(&manifest(&dir, "engine/only/attempts/1/p.manifest.json"));
    assert_eq!(class, FailureClass::RequestsFailed);

    let (_tmp2, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 0.1", "min_completed = 1.5\n");
    let (code, out, _) = perflab(&["check", dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.contains("study.toml:6:17: `min_completed`: 1.5 is not a share of requests from 0 to 1"), "{out}");

    // The costs `--until-confident` weighs: seconds above zero, a bad one named where it is.
    let (_tmp3, dir) = tiny("perflab-engine --port {port}", "start_cost = 30\nrun_cost = -2\n");
    let (code, out, _) = perflab(&["check", dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.contains("study.toml:7:12: `run_cost`: -2 is not a number of seconds above 0"), "{out}");
    assert!(!out.contains("start_cost"), "{out}");
}

// 3. Readiness tied to the engine perflab started.

#[test]
fn a_foreign_server_on_a_fixed_port_is_port_in_use_and_never_benchmarked() {
    let foreign = common::Engine::start(&[]);
    let (_tmp, dir) = engine_stage();
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, text.replacen("--port {port}", &format!("--port {}", foreign.port), 1)).unwrap();
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    for profile in ["mixed", "short"] {
        let m = manifest(&dir, &format!("engine/sim-a/attempts/1/{profile}.manifest.json"));
        let (class, message) = failure(&m);
        assert_eq!(class, FailureClass::PortInUse);
        assert!(message.contains(&format!("port {} already accepted connections", foreign.port)), "{message}");
        assert_eq!(m.engine_pid, None, "the engine was not started");
    }
    assert!(!dir.join("runs/engine/sim-a/attempts/1/mixed.txt").exists());
    assert_eq!(manifest(&dir, "engine/sim-b/attempts/1/mixed.manifest.json").state, RunState::Done);
    no_engine_left(&dir);
}

#[test]
fn a_server_that_takes_the_port_while_the_engine_loads_is_not_taken_for_it() {
    let port = free_port();
    // The engine binds its port only after loading, as vLLM does.
    let (_tmp, dir) = tiny(&format!("perflab-engine --port {port} --sim-startup-seconds 5 --sim-bind-late"), "");
    let spec = dir.join("study.toml");
    std::fs::write(&spec, std::fs::read_to_string(&spec).unwrap().replace("start_timeout = 2", "start_timeout = 600"))
        .unwrap();
    let child = spawn_run(&dir);
    let engine = recorded_engine(&dir);
    // Another server takes the port while the engine loads; it answers /health at once.
    let mut foreign = Command::new(env!("CARGO_BIN_EXE_perflab-engine"))
        .args(["--port", &port.to_string(), "--sim-startup-seconds", "0"])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    assert!(wait_for(Duration::from_secs(20), || common::get_ok(port, "/health")));
    let (code, err) = finish(child, Duration::from_secs(120));
    let _ = foreign.kill();
    let _ = foreign.wait();
    assert_eq!(code, 1, "nothing measured: {err}");
    let m = manifest(&dir, "engine/only/attempts/1/p.manifest.json");
    let (class, message) = failure(&m);
    assert_eq!(class, FailureClass::PortInUse, "{message}");
    assert!(message.contains(&format!("another process took port {port} while the engine loaded")), "{message}");
    assert!(message.contains("Address already in use"), "{message}");
    assert_eq!(m.engine_ready_at, None, "never ready");
    assert!(!dir.join("runs/engine/only/attempts/1/p.txt").exists(), "the foreign server was not benchmarked");
    assert!(!running(engine));
}

#[test]
fn an_engine_that_exits_while_loading_is_never_ready() {
    let (_tmp, dir) =
        tiny("perflab-engine --port {port} --sim-startup-seconds 0.4 --sim-die-while-loading --sim-bind-late", "");
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 1, "nothing measured: {err}");
    let m = manifest(&dir, "engine/only/attempts/1/p.manifest.json");
    let (class, message) = failure(&m);
    assert_eq!(class, FailureClass::StartFailure);
    assert!(message.contains("NCCL error"), "{message}");
    assert_eq!(m.engine_exit_status, Some(1));
    assert_eq!(m.engine_ready_at, None);
    no_engine_left(&dir);
}

#[test]
fn an_engine_that_binds_its_port_late_is_waited_for() {
    let (_tmp, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 0.4 --sim-bind-late", "");
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(manifest(&dir, "engine/only/attempts/1/p.manifest.json").state, RunState::Done);
    no_engine_left(&dir);
}

// 4. Engines with a fixed port.

#[test]
fn a_fixed_port_engine_is_probed_and_benchmarked_on_its_own_port() {
    let port = free_port();
    let (_tmp, dir) = tiny(&format!("perflab-engine --port {port} --sim-startup-seconds 0.1"), "");
    let (_, out, _) = perflab(&["check", dir.to_str().unwrap()]);
    assert!(!out.contains("warning: engine"), "{out}");
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    let m = manifest(&dir, "engine/only/attempts/1/p.manifest.json");
    assert_eq!(m.state, RunState::Done);
    assert_eq!(m.port, Some(port));
    assert!(m.benchmark_command.contains(&"http://127.0.0.1:{port}".to_string()), "{:?}", m.benchmark_command);
    let study = Study::load(&dir).unwrap();
    let run = study.runs.values().next().unwrap();
    assert_eq!(run.block.metric("completed"), Some(4.0), "every request reached the engine");
    // The page shows the study's port, never perflab's.
    let (code, page, _) = perflab(&["report", dir.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(page.contains(&format!("perflab-engine --port {port} --sim-startup-seconds 0.1")), "{page}");
}

#[test]
fn an_engine_whose_port_cannot_be_known_is_a_warning_in_check_and_refused_by_run() {
    let (_tmp, dir) = tiny("perflab-engine --sim-startup-seconds 0.1", "");
    let spec = dir.join("study.toml");
    let (code, out, _) = perflab(&["check", dir.to_str().unwrap()]);
    assert_eq!(code, 1, "the run file is missing, not the port: {out}");
    assert!(
        out.contains(&format!(
            "{}:14:11: warning: engine `sim`: perflab cannot tell which port it listens on",
            spec.display()
        )),
        "{out}"
    );
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("study.toml:14:11: engine `sim`: perflab cannot tell which port"), "{err}");
    assert!(!dir.join("runs/engine").exists(), "nothing was started");
}

#[test]
fn the_published_command_leaves_out_the_port_perflab_picks() {
    let (_tmp, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 0.1", "");
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    let (code, page, _) = perflab(&["report", dir.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(page.contains("perflab-engine --sim-startup-seconds 0.1"), "{page}");
    assert!(!page.contains("{port}"), "{page}");
    let m = manifest(&dir, "engine/only/attempts/1/p.manifest.json");
    assert!(m.port.is_some_and(|p| p > 0));
}

// 5. Recovery and the run lock.

/// A process group of its own that is not an engine: `setsid sleep`.
struct Bystander(Child);

impl Bystander {
    fn start() -> Bystander {
        let child = Command::new("setsid").args(["sleep", "600"]).spawn().unwrap();
        Bystander(child)
    }
}

impl Drop for Bystander {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn recovery_leaves_a_process_that_only_shares_the_recorded_id_alone() {
    let bystander = Bystander::start();
    let pid = bystander.0.id();
    assert!(wait_for(Duration::from_secs(10), || running(pid)));
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap().trim().to_string();
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let ticks: u64 = stat.rsplit_once(')').unwrap().1.split_whitespace().nth(19).unwrap().parse().unwrap();
    for record in [
        // A process id that was reused: another start time.
        format!(
            "{{\"pid\": {pid}, \"boot_id\": \"{boot}\", \"start_ticks\": 1, \"command\": \"perflab-engine --port 1\", \"started_at\": \"2026-01-01T00:00:00.000Z\"}}"
        ),
        // The same process id and start time in another boot.
        format!(
            "{{\"pid\": {pid}, \"boot_id\": \"00000000-0000-0000-0000-000000000000\", \"start_ticks\": {ticks}, \"command\": \"perflab-engine --port 1\", \"started_at\": \"2026-01-01T00:00:00.000Z\"}}"
        ),
    ] {
        let (_tmp, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 0.1", "");
        std::fs::create_dir_all(dir.join("runs")).unwrap();
        std::fs::write(dir.join("runs/.engine.json"), record).unwrap();
        let (code, _, err) = run(&dir, &[]);
        assert_eq!(code, 0, "{err}");
        assert!(!err.contains("stopping the engine (process group"), "{err}");
        assert!(running(pid), "the bystander was signalled: {err}");
        assert!(!dir.join("runs/.engine.json").exists());
    }
}

#[test]
fn the_run_lock_is_held_by_the_system_not_by_a_process_id_in_a_file() {
    let (_tmp, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 0.1", "");
    std::fs::create_dir_all(dir.join("runs")).unwrap();
    let lock_path = dir.join("runs/.perflab-run.lock");
    // A lock file naming a live process (this one) that holds no lock does not block.
    std::fs::write(&lock_path, std::process::id().to_string()).unwrap();
    let (code, _, err) = run(&dir, &["--stage", "engine"]);
    assert_eq!(code, 0, "{err}");
    // A held lock blocks, whatever the file says.
    let (_tmp2, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 0.1", "");
    std::fs::create_dir_all(dir.join("runs")).unwrap();
    let lock = std::fs::File::create(dir.join("runs/.perflab-run.lock")).unwrap();
    lock.try_lock().unwrap();
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("another perflab run"), "{err}");
    assert!(!dir.join("runs/engine").exists());
    drop(lock);
    let ignored = Command::new("git")
        .args(["check-ignore", "-v", "results/x/runs/.engine.json", "results/x/runs/.perflab-run.lock"])
        .current_dir(root())
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&ignored.stdout);
    assert!(
        ignored.status.success(),
        "the runner's own files are ignored by git: {out}{}",
        String::from_utf8_lossy(&ignored.stderr)
    );
}

// 6. A failed re-measurement.

#[test]
fn a_failed_rerun_keeps_the_result_and_the_study_loads() {
    let port = free_port();
    let (tmp, dir) = tiny(&format!("perflab-engine --port {port} --sim-startup-seconds 0.1"), "");
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    let first = std::fs::read_to_string(dir.join("runs/engine/only/attempts/1/p.txt")).unwrap();

    // The same configuration measured again fails (its port is taken this time).
    let busy = std::net::TcpListener::bind(("127.0.0.1", port)).unwrap();
    let (code, _, err) = run(&dir, &["--rerun"]);
    assert_eq!(code, 1, "nothing measured: {err}");
    drop(busy);
    assert_eq!(failure(&manifest(&dir, "engine/only/attempts/2/p.manifest.json")).0, FailureClass::PortInUse);
    assert_eq!(std::fs::read_to_string(dir.join("runs/engine/only/attempts/1/p.txt")).unwrap(), first);
    let study = Study::load(&dir).unwrap();
    assert!(perflab::analysis::check(&study).is_empty());
    assert_eq!(study.runs.values().next().unwrap().text, first, "the good result stands");
    assert_eq!(study.attempts.values().next().unwrap().len(), 2, "both attempts are on disk and read");
    for args in [vec!["report", dir.to_str().unwrap()], vec!["analyze", dir.to_str().unwrap()]] {
        let (code, _, err) = perflab(&args);
        assert_eq!(code, 0, "{args:?}: {err}");
    }
    let (code, out, _) = perflab(&["plan", dir.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("engine/only  p  done"), "{out}");
    let site = tmp.path().join("site");
    let (code, _, err) =
        perflab(&["build", "--results", tmp.path().to_str().unwrap(), "--out", site.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");

    // After an engine upgrade the new version's failure stands; the old result stays on disk.
    let spec = dir.join("study.toml");
    std::fs::write(&spec, std::fs::read_to_string(&spec).unwrap().replace("version = \"1\"", "version = \"2\""))
        .unwrap();
    let busy = std::net::TcpListener::bind(("127.0.0.1", port)).unwrap();
    let (code, _, err) = run(&dir, &["--rerun-stale"]);
    assert_eq!(code, 1, "nothing measured: {err}");
    drop(busy);
    let study = Study::load(&dir).unwrap();
    assert!(study.runs.is_empty(), "version 2 has no result");
    let key = study.manifests.keys().next().unwrap().clone();
    assert_eq!(study.manifests[&key].engine_version, "2");
    assert!(dir.join("runs/engine/only/attempts/1/p.txt").is_file());
}

#[test]
fn build_builds_every_study_it_can_and_keeps_the_pages_of_the_others() {
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("results");
    for id in ["glm-5.2-fp8-h200", "deepseek-v3.2-h200"] {
        copy_dir(&root().join("results").join(id), &results.join(id));
    }
    let site = tmp.path().join("site");
    let build = || perflab(&["build", "--results", results.to_str().unwrap(), "--out", site.to_str().unwrap()]);
    let (code, _, err) = build();
    assert_eq!(code, 0, "{err}");
    let page = site.join("en/glm-5.2-fp8-h200.html");
    let published = std::fs::read(&page).unwrap();

    // One study breaks; the other is still built, the broken one's pages stay as published.
    let spec = results.join("glm-5.2-fp8-h200/study.toml");
    std::fs::write(&spec, std::fs::read_to_string(&spec).unwrap().replacen("noise_threshold", "noise_treshold", 1))
        .unwrap();
    let spec2 = results.join("deepseek-v3.2-h200/study.toml");
    std::fs::write(
        &spec2,
        std::fs::read_to_string(&spec2).unwrap().replacen(
            "Optimizing DeepSeek-V3.2 throughput",
            "Optimizing DeepSeek-V3.2 (rebuilt) throughput",
            1,
        ),
    )
    .unwrap();
    let (code, _, err) = build();
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("unknown field `noise_treshold`"), "{err}");
    assert!(err.contains("could not build `glm-5.2-fp8-h200`: its previously published pages"), "{err}");
    assert!(err.contains("1 of 2 studies not built: glm-5.2-fp8-h200"), "{err}");
    assert_eq!(std::fs::read(&page).unwrap(), published);
    assert!(site.join("md/data/glm-5.2-fp8-h200.json").is_file());
    let list = std::fs::read_to_string(site.join(".perflab-files")).unwrap();
    assert!(list.lines().any(|l| l == "en/glm-5.2-fp8-h200.html"), "still listed as the site's");
    let other = std::fs::read_to_string(site.join("en/deepseek-v3.2-h200.html")).unwrap();
    assert!(other.contains("(rebuilt)"), "the other study was built");
}

// 7. SIGHUP and a second Ctrl-C.

#[test]
fn sighup_stops_the_engine_like_sigterm() {
    let (_tmp, dir) = example(Some(1));
    let child = spawn_run(&dir);
    let engine = recorded_engine(&dir);
    Command::new("kill").args(["-HUP", &child.id().to_string()]).status().unwrap();
    let (code, err) = finish(child, Duration::from_secs(60));
    assert_eq!(code, 130, "{err}");
    assert!(wait_for(Duration::from_secs(10), || !running(engine)), "the engine was stopped");
    assert!(manifests(&dir).iter().any(|m| m.state == RunState::Interrupted));
    assert!(manifests(&dir).iter().all(|m| m.state != RunState::Running));
    no_temporary_files(&dir);
    // The next run continues.
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    no_engine_left(&dir);
}

#[test]
fn a_second_ctrl_c_stops_an_engine_that_hangs_in_its_shutdown_at_once() {
    let (_tmp, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 100 --sim-ignore-sigterm", "");
    // A grace period far longer than any test waits.
    let spec = dir.join("study.toml");
    std::fs::write(&spec, std::fs::read_to_string(&spec).unwrap().replace("stop_grace = 2", "stop_grace = 100000"))
        .unwrap();
    std::fs::write(
        &spec,
        std::fs::read_to_string(&spec).unwrap().replace("start_timeout = 2", "start_timeout = 100000"),
    )
    .unwrap();
    let child = spawn_run(&dir);
    let engine = recorded_engine(&dir);
    let log = dir.join("runs/engine/only/attempts/1/engine.log");
    let read = || std::fs::read_to_string(&log).unwrap_or_default();
    assert!(wait_for(Duration::from_secs(30), || read().contains("listening on")));
    Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(wait_for(Duration::from_secs(30), || read().contains("SIGTERM received")), "{}", read());
    assert!(running(engine), "the engine ignores SIGTERM");
    Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    let (code, err) = finish(child, Duration::from_secs(60));
    assert_eq!(code, 130, "{err}");
    assert!(wait_for(Duration::from_secs(10), || !running(engine)), "the engine was killed");
    assert_eq!(manifest(&dir, "engine/only/attempts/1/p.manifest.json").state, RunState::Interrupted);
}

#[test]
fn an_engine_that_hangs_in_its_shutdown_is_killed_after_its_grace_and_the_study_goes_on() {
    let (_tmp, dir) = engine_stage();
    engine_flags(&dir, "sim-a", "--sim-ignore-sigterm");
    let spec = dir.join("study.toml");
    std::fs::write(&spec, std::fs::read_to_string(&spec).unwrap().replacen("stop_grace = 5", "stop_grace = 1", 1))
        .unwrap();
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(manifest(&dir, "engine/sim-a/attempts/1/mixed.manifest.json").state, RunState::Done);
    assert_eq!(manifest(&dir, "engine/sim-b/attempts/1/mixed.manifest.json").state, RunState::Done);
    no_engine_left(&dir);
}

// 9. Start-up progress; 11. the runner's messages.

#[test]
fn waiting_for_the_engine_shows_the_time_and_its_last_log_line() {
    let (_tmp, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 1.6", "");
    let spec = dir.join("study.toml");
    std::fs::write(&spec, std::fs::read_to_string(&spec).unwrap().replace("start_timeout = 2", "start_timeout = 30"))
        .unwrap();
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("engine/only: starting the engine\n  waiting for the engine to serve: 0:0"), "{err}");
    assert!(err.contains(" of 0:30; its log: INFO "), "{err}");
    assert!(err.contains("[stage 1/1] engine/only on p (1 run to go,"), "{err}");
    let parent = dir.parent().unwrap();
    assert!(
        err.contains(&format!(
            "`perflab report {}` prints its page; `perflab build --results {} --out {}`",
            dir.display(),
            parent.display(),
            parent.join("site").display()
        )),
        "{err}"
    );
}

#[test]
fn building_another_results_folder_into_the_bundled_site_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    copy_dir(&root().join("site"), &site);
    let before = std::fs::read(site.join("en/glm-5.2-fp8-h200.html")).unwrap();
    let (code, _, err) = perflab(&["build", "--results", "examples", "--out", site.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "holds the site of other studies (`deepseek-v3.2-h200`, `glm-4.5-air-h100`, `glm-5.2-fp8-h200`, `qwen3-14b-h100`, `qwen3-30b-a3b-910b`, `qwen3-8b-h100-latency`)"
        ),
        "{err}"
    );
    assert!(err.contains("`perflab build --results examples --out examples/site`"), "{err}");
    assert_eq!(std::fs::read(site.join("en/glm-5.2-fp8-h200.html")).unwrap(), before);
}

// What real engines do that the cases above do not show.

#[test]
fn an_error_far_above_the_end_of_the_log_is_found_and_classified() {
    let engine =
        "perflab-engine --port {port} --sim-startup-seconds 0.1 --gpu-memory-utilization 0.5 --sim-log-after-error 95";
    let (_tmp, dir) = tiny(engine, "");
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 1, "nothing measured: {err}");
    let (class, message) = failure(&manifest(&dir, "engine/only/attempts/1/p.manifest.json"));
    assert_eq!(class, FailureClass::Oom, "{message}");
    assert!(message.contains("CUDA out of memory"), "{message}");
    // A study's own pattern for that line is found just as far up.
    let patterns = "[[failure_patterns]]\nclass = \"unsupported\"\nregex = \"Tried to allocate\"\n";
    let (_tmp, dir) = tiny(engine, patterns);
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 1, "nothing measured: {err}");
    let (class, message) = failure(&manifest(&dir, "engine/only/attempts/1/p.manifest.json"));
    assert_eq!(class, FailureClass::Unsupported, "{message}");
}

#[test]
fn an_engine_that_ignores_sigterm_while_loading_is_killed_without_the_full_grace() {
    let (_tmp, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 3600 --sim-ignore-sigterm", "");
    // A grace of an hour: the run can only end in time if the loading engine gets a short one.
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap().replace("stop_grace = 2", "stop_grace = 3600");
    std::fs::write(&spec, text).unwrap();
    let child = spawn_run(&dir);
    let (code, err) = finish(child, Duration::from_secs(120));
    assert_eq!(code, 1, "nothing measured: {err}");
    let m = manifest(&dir, "engine/only/attempts/1/p.manifest.json");
    assert_eq!(failure(&m).0, FailureClass::StartTimeout);
    no_engine_left(&dir);
}

#[test]
fn a_flag_of_the_engine_command_is_replaced_by_the_variant_value() {
    let (_tmp, dir) =
        tiny("perflab-engine --port {port} --host {host} --sim-startup-seconds 0.1 --sim-decode-ms 8", "");
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap() + "flags = [\"--sim-decode-ms 2\"]\n";
    std::fs::write(&spec, text).unwrap();
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    let m = manifest(&dir, "engine/only/attempts/1/p.manifest.json");
    assert_eq!(m.state, RunState::Done);
    let words: Vec<&str> = m.command.iter().map(String::as_str).collect();
    assert_eq!(words.iter().filter(|w| **w == "--sim-decode-ms").count(), 1, "{words:?}");
    let at = words.iter().position(|w| *w == "--sim-decode-ms").unwrap();
    assert_eq!(words[at + 1], "2", "{words:?}");
    // The published command holds it once too, and no address placeholder.
    let (code, page, err) = perflab(&["report", dir.to_str().unwrap(), "--locale", "en"]);
    assert_eq!(code, 0, "{err}");
    assert!(page.contains("--sim-decode-ms 2"), "{page}");
    assert!(!page.contains("--sim-decode-ms 8"), "{page}");
    assert!(!page.contains("{host}") && !page.contains("{port}"), "{page}");
}

#[test]
fn an_engine_whose_core_dies_while_its_server_lives_on_is_a_crash() {
    // vLLM's API server outlives its engine core for a while: requests fail at once, the
    // benchmark ends, and only the failing health check tells the engine died.
    let (_tmp, dir) = engine_stage();
    engine_flags(&dir, "sim-a", "--sim-core-dies-after 5");
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    let crashed = manifest(&dir, "engine/sim-a/attempts/1/mixed.manifest.json");
    let (class, message) = failure(&crashed);
    assert_eq!(class, FailureClass::Crash, "{message}");
    assert!(message.contains("stopped answering"), "{message}");
    assert!(message.contains("illegal memory access"), "{message}");
    assert_eq!(manifest(&dir, "engine/sim-b/attempts/1/mixed.manifest.json").state, RunState::Done);
    no_engine_left(&dir);
}

#[test]
fn an_engine_that_misses_one_health_check_after_a_benchmark_still_served_it() {
    // Busy finishing the benchmark's last requests, an engine may answer one check late: the
    // result stands, and only an engine that stays silent for the checks that follow died.
    let (_tmp, dir) = engine_stage();
    engine_flags(&dir, "sim-a", "--sim-health-blips 2");
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(manifest(&dir, "engine/sim-a/attempts/1/mixed.manifest.json").state, RunState::Done, "{err}");
    no_engine_left(&dir);
}

/// An engine program that is not there is the machine's fault, not the configuration's: the run
/// stops with exit 2 and says what was missing, where perflab looked and how to get it, records
/// nothing, and the next run, once the program is there, measures everything.
#[test]
fn a_missing_engine_program_stops_the_run_records_nothing_and_is_tried_again() {
    let (_tmp, dir) = tiny("no-such-engine-program --port {port}", "");
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot start `no-such-engine-program`"), "{err}");
    assert!(err.contains("looked for it on PATH") && err.contains("install it"), "{err}");
    assert!(err.contains("nothing was recorded"), "{err}");
    assert!(common::manifests(&dir).is_empty(), "nothing recorded");
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, text.replace("no-such-engine-program", "perflab-engine --sim-startup-seconds 0.05")).unwrap();
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("1 engine starts (1 served) and 1 benchmark runs (0 failed)"), "{err}");
}

/// `perflab-engine` not built beside `perflab` (the README's first command builds only
/// `perflab`): the message names the folder it looked in and the command that builds it.
#[test]
fn the_simulated_engine_not_built_names_where_it_was_looked_for_and_how_to_build_it() {
    let (tmp, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 0.05", "");
    let bin = tmp.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_perflab"), bin.join("perflab")).unwrap();
    // `perflab run` from that folder, with a PATH that holds no perflab-engine.
    let run = || {
        let out = Command::new(bin.join("perflab"))
            .args(["run", dir.to_str().unwrap()])
            .env("PATH", "/usr/bin:/bin")
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, err) = run();
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(&format!("beside perflab in '{}'", bin.display())), "{err}");
    assert!(err.contains("`cargo build --release` builds it beside perflab"), "{err}");
    assert!(common::manifests(&dir).is_empty(), "nothing recorded");
    // Built (here: the engine put beside that perflab), the next run measures what it could not.
    std::fs::copy(env!("CARGO_BIN_EXE_perflab-engine"), bin.join("perflab-engine")).unwrap();
    let (code, err) = run();
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("1 engine starts (1 served) and 1 benchmark runs (0 failed)"), "{err}");
}

/// A benchmark program that is not there is the machine's fault too: the engine is stopped, the
/// run stops with exit 2 naming the program and the key that names it, records nothing, and
/// measures the run once the command is mended.
#[test]
fn a_missing_benchmark_program_stops_the_run_and_records_nothing() {
    let (_tmp, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 0.05", "");
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    let broken = "tool = \"perflab bench\"\ncommand = \"no-such-benchmark --port {port}\"";
    std::fs::write(&spec, text.replace("tool = \"perflab bench\"", broken)).unwrap();
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot start `no-such-benchmark`") && err.contains("`benchmark.command`"), "{err}");
    assert!(common::manifests(&dir).is_empty(), "nothing recorded");
    std::fs::write(&spec, text).unwrap();
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("1 engine starts (1 served) and 1 benchmark runs (0 failed)"), "{err}");
}

#[test]
fn a_run_that_measured_nothing_needs_a_look_and_its_page_recommends_nothing() {
    // Every engine start of the example's first stage runs out of memory while loading.
    let (_tmp, dir) = example(Some(1));
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, text.replace("--sim-weights-gb 100 ", "--sim-weights-gb 1000 ")).unwrap();
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("2 engine starts (0 served) and 0 benchmark runs (3 failed)"), "{err}");
    assert!(err.contains("nothing was measured"), "{err}");
    // The message says how short the memory is, not a negative amount free.
    let m = manifest(&dir, "engine/sim-a/attempts/1/mixed.manifest.json");
    let failure = m.failure.expect("a recorded failure");
    assert_eq!(failure.class, FailureClass::Oom);
    assert!(failure.message.contains("more than the 128.00 GiB a replica may use"), "{}", failure.message);
    assert!(!failure.message.contains("-"), "{}", failure.message);

    // The page says first that it has no answer, and shows no command; `report` needs a look.
    let (code, page, err) = perflab(&["report", dir.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("the page has no answer yet"), "{err}");
    let conclusion = &page[page.find("## Conclusion").unwrap()..page.find("### Before and after").unwrap()];
    assert!(conclusion.contains("> **⚠** The baseline has no result on Mixed long prompts"), "{conclusion}");
    assert!(conclusion.contains("recommends no command"), "{conclusion}");
    assert!(!conclusion.contains("```bash"), "{conclusion}");
    assert!(!page.contains("summary.png"), "{page}");
}

/// A recorded failure stands: `plan` counts it and says what `--rerun` does, and so does the end
/// of `run`. Once the study names another engine version, the failure (and an identical
/// configuration's that reused it) is stale: `plan` says so, a plain `run` leaves it, and
/// `run --rerun-stale` tries it again.
#[test]
fn a_standing_failure_is_said_and_a_stale_one_is_tried_again_with_rerun_stale() {
    let (_tmp, dir) = example(Some(1));
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap().replace("--sim-weights-gb 100 ", "--sim-weights-gb 1000 ");
    std::fs::write(&spec, &text).unwrap();
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 1, "{err}");
    // A copy of sim-b, added after the run: its configuration is sim-b's, so sim-b's recorded
    // failure stands for it and it is not started.
    let copy = "\n[[stage.variant]]\nid = \"sim-b-copy\"\nlabel = \"Sim-B again\"\nengine = \"sim-b\"\nflags = [\"--tp-size 2\"]\n";
    std::fs::write(&spec, format!("{}\n{copy}", text.trim_end())).unwrap();
    let (code, out, _) = perflab(&["plan", dir.to_str().unwrap()]);
    assert_eq!(code, 0);
    let failed = out.lines().filter(|l| l.contains(" failed ") || l.ends_with("oom")).count();
    assert!(failed >= 4, "{out}");
    assert!(out.contains("4 runs stand as failed: `perflab run` reuses their recorded failure"), "{out}");
    assert!(out.contains("`perflab run --rerun --variant STAGE/VARIANT` tries one again"), "{out}");
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("0 engine starts (0 served)"), "{err}");
    assert_eq!(err.matches("stand as failed").count(), 1, "said once: {err}");
    assert!(!dir.join("runs/engine/sim-b-copy").exists(), "the copy reused sim-b's failure");

    // sim-b's version changes: its failure, and the copy's reused one, are stale.
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, text.replacen("version = \"2.1\"", "version = \"2.2\"", 1)).unwrap();
    let (_, out, _) = perflab(&["plan", dir.to_str().unwrap()]);
    for variant in ["engine/sim-b ", "engine/sim-b-copy "] {
        let line = out.lines().find(|l| l.starts_with(variant)).unwrap_or_else(|| panic!("{out}"));
        assert!(line.contains("stale") && line.contains("failed (oom)") && line.contains("2.1"), "{line}");
    }
    assert!(out.contains("2 runs stand as failed"), "{out}");
    assert!(out.contains("2 runs failed under another engine version or command"), "{out}");
    assert!(out.contains("`perflab run --rerun-stale` tries them again"), "{out}");
    let (_, _, err) = run(&dir, &[]);
    assert!(err.contains("0 engine starts (0 served)") && err.contains("`perflab run --rerun-stale`"), "{err}");
    assert!(!dir.join("runs/engine/sim-b/attempts/2").exists());
    let (_, _, err) = run(&dir, &["--rerun-stale"]);
    assert!(!err.contains("\n0 engine starts"), "{err}");
    assert!(dir.join("runs/engine/sim-b/attempts/2").exists(), "{err}");
    let (_, out, _) = perflab(&["plan", dir.to_str().unwrap()]);
    assert!(!out.contains("under another engine version"), "{out}");
}

/// An engine whose program cannot run on this machine (the loader misses a shared library, a
/// script's interpreter is missing, the shell finds no program: exit status 127) is the
/// machine's fault, as a missing program is: exit 2, one message naming what is missing,
/// nothing recorded, and the run is measured once the machine is mended. An engine that runs
/// and fails on its own is the configuration's failure, recorded.
#[test]
fn an_engine_that_cannot_run_here_is_the_machines_fault_and_records_nothing() {
    let cases = [
        (
            "echo './engine: error while loading shared libraries: libcudart.so.12: cannot open shared object file: No such file or directory' >&2; exit 127",
            "the shared library `libcudart.so.12` is missing",
        ),
        (
            "echo 'bash: ./serve.py: /opt/py/bin/python3.12: bad interpreter: No such file or directory' >&2; exit 126",
            "the interpreter `/opt/py/bin/python3.12` is missing",
        ),
        (
            "echo 'engine.sh: line 2: vllm: command not found' >&2; exit 127",
            "the program `vllm` is missing (exit status 127)",
        ),
        (
            "echo 'RuntimeError: No CUDA GPUs are available' >&2; exit 1",
            "it finds no accelerator or driver it can use; its log says: RuntimeError: No CUDA GPUs are available",
        ),
    ];
    for (body, missing) in cases {
        let (tmp, dir) = tiny("ENGINE --port {port}", "");
        let script = tmp.path().join("engine.sh");
        std::fs::write(&script, format!("#!/bin/sh\n{body}\n")).unwrap();
        let spec = dir.join("study.toml");
        let text = std::fs::read_to_string(&spec).unwrap();
        std::fs::write(&spec, text.replace("ENGINE", &format!("sh {}", script.display()))).unwrap();
        let (code, _, err) = run(&dir, &[]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("the engine cannot run on this machine") && err.contains(missing), "{err}");
        assert!(err.contains("nothing was recorded"), "{err}");
        assert!(common::manifests(&dir).is_empty(), "nothing recorded: {err}");
        let (_, plan, _) = perflab(&["plan", dir.to_str().unwrap()]);
        assert!(plan.contains("pending") && !plan.contains("failed  "), "{plan}");
        if body.contains("vllm") {
            // Mended, the same run is measured.
            let text = std::fs::read_to_string(&spec).unwrap();
            let engine = format!("sh {}", script.display());
            std::fs::write(&spec, text.replace(&engine, "perflab-engine --sim-startup-seconds 0.05")).unwrap();
            let (code, _, err) = run(&dir, &[]);
            assert_eq!(code, 0, "{err}");
            assert!(err.contains("1 engine starts (1 served)"), "{err}");
        }
    }
    // An engine that runs and exits with an error of its own is the configuration's failure.
    let (tmp, dir) = tiny("ENGINE --port {port}", "");
    let script = tmp.path().join("engine.sh");
    std::fs::write(&script, "#!/bin/sh\necho 'ValueError: --tp-size 3 does not divide 8 heads' >&2\nexit 1\n").unwrap();
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, text.replace("ENGINE", &format!("sh {}", script.display()))).unwrap();
    let (_, _, err) = run(&dir, &[]);
    assert!(!err.contains("cannot run on this machine"), "{err}");
    assert_eq!(common::manifests(&dir).len(), 1, "{err}");
}
