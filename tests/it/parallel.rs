//! `perflab run --jobs N` and GPU slots on one machine: a stage's variants run side by side,
//! each engine with its own port and its own share of the declared GPUs; the search decides as
//! it does one start at a time; Ctrl-C and `kill -9` stop every engine in flight.

use crate::common;

use common::{example, finish, manifests, run, running, serial, wait_for};
use perflab::analysis::{Adoption, analyze};
use perflab::study::{RunState, Study};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

fn seconds(rfc3339: &str) -> f64 {
    chrono::DateTime::parse_from_rfc3339(rfc3339).unwrap().timestamp_millis() as f64 / 1000.0
}

/// The engine records in `runs/`: file name → engine process id.
fn engine_records(dir: &Path) -> BTreeMap<String, u32> {
    let Ok(entries) = std::fs::read_dir(dir.join("runs")) else { return BTreeMap::new() };
    entries
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with(".engine") && name.ends_with(".json")
        })
        .filter_map(|e| {
            let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(e.path()).ok()?).ok()?;
            Some((e.file_name().to_string_lossy().into_owned(), v["pid"].as_u64()? as u32))
        })
        .collect()
}

/// The value of a variable in a process's environment.
fn environment(pid: u32, key: &str) -> Option<String> {
    let bytes = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    bytes.split(|b| *b == 0).find_map(|kv| {
        let kv = String::from_utf8_lossy(kv);
        kv.strip_prefix(&format!("{key}=")).map(str::to_string)
    })
}

/// The first two stages of the example with the engines' load time stretched, on a machine of
/// 4 GPUs where each engine takes 2.
fn two_gpu_engines(startup: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let (tmp, dir) = example(Some(2));
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    let text = text
        .replace("--sim-startup-seconds 0.3", &format!("--sim-startup-seconds {startup}"))
        .replace("start_timeout = 30\n", "start_timeout = 30\ngpus = 2\n")
        .replace("[benchmark]\n", "[local]\ngpus = 4\n\n[benchmark]\n");
    std::fs::write(&spec, text).unwrap();
    (tmp, dir)
}

fn spawn(dir: &Path, extra: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_perflab"))
        .args(["run", dir.to_str().unwrap()])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn gpu_slots_run_a_stages_variants_side_by_side_each_on_its_own_gpus_and_port() {
    let _serial = serial();
    let (_tmp, dir) = two_gpu_engines("1");
    let child = spawn(&dir, &[]);
    // While both engines of the first stage load: each was told its own two GPUs.
    let mut seen: BTreeMap<u32, String> = BTreeMap::new();
    let both = wait_for(Duration::from_secs(30), || {
        for pid in engine_records(&dir).into_values() {
            if let Some(devices) = environment(pid, "CUDA_VISIBLE_DEVICES") {
                seen.insert(pid, devices);
            }
        }
        seen.len() >= 2
    });
    let (code, err) = finish(child, Duration::from_secs(60));
    assert_eq!(code, 0, "{err}");
    assert!(both, "two engines at once: {seen:?} {err}");
    let mut shares: Vec<&String> = seen.values().take(2).collect();
    shares.sort();
    assert_eq!(shares, ["0,1", "2,3"], "{seen:?}");
    assert!(err.contains("on GPU 0,1") && err.contains("on GPU 2,3"), "{err}");
    assert!(err.contains("; in flight: engine/sim-a, engine/sim-b"), "{err}");

    // Engines whose lives overlapped had other GPUs and other ports.
    let starts: Vec<_> = manifests(&dir)
        .into_iter()
        .map(|m| (seconds(&m.started_at), seconds(m.engine_stopped_at.as_deref().unwrap()), m.devices, m.port))
        .collect();
    let mut overlapping = 0;
    for (i, a) in starts.iter().enumerate() {
        for b in &starts[i + 1..] {
            // Two profiles of one start share its start, GPUs and port; two starts may begin in
            // the same millisecond.
            let same_start = (a.0, &a.2, a.3) == (b.0, &b.2, b.3);
            if a.0 < b.1 && b.0 < a.1 && !same_start {
                overlapping += 1;
                assert_ne!(a.2, b.2, "two engines on the same GPUs at once");
                assert_ne!(a.3, b.3, "two engines on one port");
            }
        }
    }
    assert!(overlapping > 0, "{starts:?}");

    // The search decided as it does one start at a time.
    let a = analyze(&Study::load(&dir).unwrap());
    let adopted: Vec<String> = a
        .stages
        .iter()
        .map(|s| match &s.adoption {
            Adoption::Adopted { variant, .. } => variant.clone(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(adopted, ["sim-b", "tp4"]);
    assert!(engine_records(&dir).is_empty(), "the engine records are removed");
}

#[test]
fn jobs_2_without_gpus_runs_two_at_once_and_a_share_larger_than_the_machine_is_refused() {
    let _serial = serial();
    let (_tmp, dir) = example(Some(1));
    let (code, _, err) = run(&dir, &["--jobs", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("; in flight: engine/sim-a, engine/sim-b"), "{err}");
    assert!(manifests(&dir).iter().all(|m| m.state == RunState::Done && m.devices.is_none()));

    let (_tmp, dir) = two_gpu_engines("0.3");
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, text.replace("label = \"TP 4\"\n", "label = \"TP 4\"\ngpus = 8\n")).unwrap();
    let (code, _, err) = run(&dir, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("study.toml:"), "names the variant's line: {err}");
    assert!(err.contains("`parallelism/tp4` takes 8 GPUs"), "{err}");
    assert!(err.contains("`[local]` declares 4"), "{err}");
    // Refused before anything started, not when its stage comes.
    assert!(!dir.join("runs").exists() || manifests(&dir).is_empty());
}

#[test]
fn ctrl_c_stops_every_engine_in_flight_and_kill_9_leaves_none_after_the_next_run() {
    let (_tmp, dir) = two_gpu_engines("5");
    let child = spawn(&dir, &[]);
    let mut pids = Vec::new();
    assert!(wait_for(Duration::from_secs(30), || {
        pids = engine_records(&dir).into_values().collect();
        pids.len() == 2
    }));
    // SAFETY: kill(2) on a child process of this test.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let (code, err) = finish(child, Duration::from_secs(60));
    assert_eq!(code, 130, "{err}");
    for pid in &pids {
        assert!(wait_for(Duration::from_secs(10), || !running(*pid)), "engine {pid} left running");
    }
    assert!(manifests(&dir).iter().all(|m| m.state == RunState::Interrupted));
    assert!(engine_records(&dir).is_empty());

    // kill -9 with two engines loading: the next run stops both before it starts anything.
    let mut child = spawn(&dir, &[]);
    assert!(wait_for(Duration::from_secs(30), || {
        pids = engine_records(&dir).into_values().collect();
        pids.len() == 2
    }));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(pids.iter().all(|p| running(*p)), "the engines outlive their runner");
    let records = engine_records(&dir);
    assert!(records.contains_key(".engine.json") && records.contains_key(".engine-1.json"), "{records:?}");
    let (code, _, err) = run(&dir, &["--stage", "engine"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err.matches("a previous run left behind").count(), 2, "{err}");
    for pid in &pids {
        assert!(!running(*pid), "engine {pid} left running");
    }
}
