//! Starting engines on a machine that other work shares: the ports perflab picks, and a runner
//! that is a container's first process.

use crate::common;

use common::{example, manifests, run, serial, tiny};
use perflab::study::RunState;
use std::process::Command;
use std::time::Duration;

/// The kernel's range for the source ports of outgoing connections.
fn ephemeral_range() -> (u16, u16) {
    let text = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range").unwrap();
    let mut words = text.split_whitespace().map(|w| w.parse::<u16>().unwrap());
    (words.next().unwrap(), words.next().unwrap())
}

#[test]
fn picked_ports_are_outside_the_ephemeral_range_and_never_shared_by_engines_in_flight() {
    let _serial = serial();
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
    // Starts whose lives overlapped had other ports (a start's profiles share its port).
    let lives: Vec<(&str, &str, u16)> =
        all.iter().map(|m| (m.started_at.as_str(), m.engine_stopped_at.as_deref().unwrap(), m.port.unwrap())).collect();
    let mut overlapping = 0;
    for (i, a) in lives.iter().enumerate() {
        for b in lives[i + 1..].iter().filter(|b| b.0 != a.0) {
            // The times are RFC 3339 in one layout: as strings they sort as times.
            if a.0 < b.1 && b.0 < a.1 {
                overlapping += 1;
                assert_ne!(a.2, b.2, "two engines in flight on one port: {lives:?}");
            }
        }
    }
    assert!(overlapping > 0, "{lives:?}");
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
    let _serial = serial();
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
    let launch = perflab::exec::local::Launch {
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
