//! Starting engines on a machine that other work shares: the ports perflab picks, the processes
//! an engine leaves when it dies, a runner that is a container's first process, and an engine
//! record that cannot be read. Waits are bounded polls on a condition.

use crate::common;

use common::{example, manifests, run, running, tiny, wait_for};
use perflab::study::RunState;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The kernel's range for the source ports of outgoing connections.
fn ephemeral_range() -> (u16, u16) {
    let text = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range").unwrap();
    let mut words = text.split_whitespace().map(|w| w.parse::<u16>().unwrap());
    (words.next().unwrap(), words.next().unwrap())
}

#[test]
fn picked_ports_are_outside_the_ephemeral_range_and_never_shared_by_engines_in_flight() {
    let (_tmp, dir) = example(Some(1));
    // Both engines of the first stage start at once and bind their port only once loaded: a
    // port is the first engine's from the moment it is picked, not from when it binds.
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, text.replace("--sim-startup-seconds 0.3", "--sim-startup-seconds 0.6 --sim-bind-late"))
        .unwrap();
    let (code, _, err) = run(&dir, &["--jobs", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("; in flight: engine/sim-a, engine/sim-b"), "{err}");
    let (low, high) = ephemeral_range();
    let all = manifests(&dir);
    assert!(all.iter().all(|m| m.state == RunState::Done), "{err}");
    for m in &all {
        let port = m.port.unwrap();
        assert!(port >= 1024 && !(low..=high).contains(&port), "port {port} is in {low}-{high}");
    }
    // Starts whose lives overlapped had other ports. A start is its engine's process (its
    // profiles share it, and its port); two starts may begin in the same millisecond.
    let lives: Vec<(&str, &str, u16, u32)> = all
        .iter()
        .map(|m| {
            (m.started_at.as_str(), m.engine_stopped_at.as_deref().unwrap(), m.port.unwrap(), m.engine_pid.unwrap())
        })
        .collect();
    let mut overlapping = 0;
    for (i, a) in lives.iter().enumerate() {
        for b in lives[i + 1..].iter().filter(|b| b.3 != a.3) {
            // The times are RFC 3339 in one layout: as strings they sort as times.
            if a.0 <= b.1 && b.0 <= a.1 {
                overlapping += 1;
                assert_ne!(a.2, b.2, "two engines in flight on one port: {lives:?}");
            }
        }
    }
    assert!(overlapping > 0, "{lives:?}");
}

/// The process ids of the workers an engine's log says it started (`--sim-worker`).
fn workers(log: &Path) -> Vec<u32> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    text.lines().filter_map(|l| l.strip_prefix("INFO worker ")?.strip_suffix(" started")?.parse().ok()).collect()
}

fn engine_log(dir: &Path) -> std::path::PathBuf {
    dir.join("runs/engine/only/attempts/1/engine.log")
}

#[test]
fn the_workers_of_an_engine_that_died_are_stopped_and_the_log_says_so() {
    let (_tmp, dir) =
        tiny("perflab-engine --port {port} --sim-startup-seconds 0.1 --sim-worker --sim-crash-after 2", "");
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 1, "nothing measured: {err}");
    let worker = workers(&engine_log(&dir));
    assert_eq!(worker.len(), 1, "{err}");
    assert!(
        err.contains("the engine's main process had ended, but 1 process of its group")
            && err.contains("still ran; all of them are gone now, with SIGKILL"),
        "{err}"
    );
    // Gone before the run went on, not some time later.
    assert!(!running(worker[0]), "worker {} outlived the run", worker[0]);
    assert_eq!(manifests(&dir)[0].failure.as_ref().unwrap().class, perflab::study::FailureClass::Crash);
}

#[test]
fn after_kill_9_the_next_run_stops_the_workers_of_an_engine_that_died_too() {
    let (_tmp, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 30 --sim-worker", "");
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, text.replace("start_timeout = 2\n", "start_timeout = 60\n")).unwrap();
    let mut runner = Command::new(env!("CARGO_BIN_EXE_perflab"))
        .args(["run", dir.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let record = dir.join("runs/.engine.json");
    let mut found = (None, Vec::new());
    let started = wait_for(Duration::from_secs(20), || {
        let pid = std::fs::read_to_string(&record)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v["pid"].as_u64());
        found = (pid, workers(&engine_log(&dir)));
        pid.is_some() && !found.1.is_empty()
    });
    let _ = runner.kill();
    let _ = runner.wait();
    assert!(started, "no engine with a worker started: {found:?}");
    let (engine, worker) = (found.0.unwrap() as u32, found.1[0]);
    // The runner is gone; the OOM killer takes the engine's main process, not its worker.
    // SAFETY: kill(2) on a process this test started (through the runner).
    unsafe { libc::kill(engine as i32, libc::SIGKILL) };
    assert!(wait_for(Duration::from_secs(10), || !running(engine)));
    assert!(running(worker), "the worker should outlive the engine");

    std::fs::write(&spec, std::fs::read_to_string(&spec).unwrap().replace("seconds 30", "seconds 0.1")).unwrap();
    let (code, _, err) = run(&dir, &[]);
    let stopped = wait_for(Duration::from_secs(1), || !running(worker));
    if !stopped {
        // SAFETY: the worker this test's engine started.
        unsafe { libc::kill(worker as i32, libc::SIGKILL) };
    }
    assert_eq!(code, 0, "{err}");
    assert!(stopped, "worker {worker} of the dead engine was left running: {err}");
    assert!(
        err.contains(&format!(
            "the engine a previous run left behind (process {engine}) has ended, but process {worker} of its group still runs; stopping them"
        )),
        "{err}"
    );
}

/// `perflab` as PID 1 of a new PID namespace (a container's first process), with `args`.
fn as_pid_1(args: &[&str]) -> (i32, String) {
    let out = Command::new("unshare")
        .args(["--user", "--map-root-user", "--pid", "--fork", "--mount-proc"])
        .arg(env!("CARGO_BIN_EXE_perflab"))
        .args(args)
        .output()
        .expect("unshare (util-linux)");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_runner_that_is_pid_1_starts_engines_locally_and_in_a_cluster_job() {
    let (_tmp, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 0.1", "");
    let (code, err) = as_pid_1(&["run", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(manifests(&dir)[0].state, RunState::Done, "{err}");

    // A cluster job's `perflab job-run` in a container: the launch the runner would leave.
    let (_tmp, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 0.1", "");
    let study = perflab::study::Study::load(&dir).unwrap();
    let job = perflab::exec::plan(&study, &Default::default(), false).unwrap().jobs.remove(0);
    let attempt = dir.join("runs/engine/only/attempts/1");
    std::fs::create_dir_all(&attempt).unwrap();
    let profile = study.profile("p").unwrap();
    let bench = perflab::study::command::bench_argv(&study, &job.config, profile).unwrap();
    let output = attempt.join("p.txt.tmp");
    let launch = perflab::exec::Launch {
        job,
        dir: attempt.clone(),
        port: perflab::study::command::Port::Pick,
        ready_url: "http://127.0.0.1:{port}/health".into(),
        start_timeout: Duration::from_secs(20),
        stop_grace: Duration::from_secs(2),
        benchmarks: vec![("p".into(), bench, output.clone())],
        log: attempt.join("engine.log"),
        record: attempt.join(".engine.json"),
        patterns: Vec::new(),
        devices: None,
        curves: Vec::new(),
        bench_env: Default::default(),
        machine: None,
        version: None,
        evaluation: None,
        host: Default::default(),
    };
    std::fs::write(attempt.join(".launch.json"), serde_json::to_vec(&launch).unwrap()).unwrap();
    let (code, err) = as_pid_1(&["job-run", attempt.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(attempt.join(".report.json")).unwrap()).unwrap();
    assert!(report["start_failure"].is_null(), "{report}");
    assert!(report["benchmarks"][0]["failure"].is_null(), "{report}");
    assert!(perflab::parse_str(&std::fs::read_to_string(&output).unwrap()).is_ok_and(|b| b.len() == 1));
}

#[test]
fn a_damaged_engine_record_names_its_file_and_process_and_says_what_to_do() {
    // A process that runs while the record names it.
    let mut bystander = Command::new("sleep").arg("60").spawn().unwrap();
    let pid = bystander.id();
    for (text, names_pid) in [
        (format!("{{\"pid\": {pid}, \"boot_id\": \"b\", \"start_t"), true),
        (format!("{{\"pid\": {pid}, \"started_at\": \"2026-01-01T00:00:00.000Z\"}}"), true),
        ("\u{0}\u{0}\u{0}".to_string(), false),
    ] {
        let (_tmp, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 0.1", "");
        std::fs::create_dir_all(dir.join("runs")).unwrap();
        let record = dir.join("runs/.engine.json");
        std::fs::write(&record, &text).unwrap();
        let (code, _, err) = run(&dir, &[]);
        assert_ne!(code, 0, "{err}");
        let at = format!("'{}' is damaged", record.display());
        assert!(err.contains(&at), "{err}");
        assert!(err.contains(&format!("then remove '{}' and run again", record.display())), "{err}");
        if names_pid {
            assert!(err.contains(&format!("process {pid}, which it names")), "{err}");
            assert!(err.contains(&format!("`pgrep -a -g {pid}`")), "{err}");
        } else {
            assert!(err.contains("names no process"), "{err}");
        }
        assert!(running(pid), "the process it names was signalled");
        assert!(manifests(&dir).is_empty(), "nothing is started: {err}");
        assert_eq!(std::fs::read_to_string(&record).unwrap(), text, "the record is kept");
    }
    let _ = bystander.kill();
    let _ = bystander.wait();

    // Once the process it names has ended, the record is dropped and the run goes on.
    let (_tmp, dir) = tiny("perflab-engine --port {port} --sim-startup-seconds 0.1", "");
    std::fs::create_dir_all(dir.join("runs")).unwrap();
    std::fs::write(dir.join("runs/.engine.json"), format!("{{\"pid\": {pid}, \"boot")).unwrap();
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains(&format!("process {pid}, which it names, has ended")), "{err}");
}
