//! The simulated engine behaves like a GPU engine seen from outside: it takes a while to become
//! ready, refuses configurations the way real engines do, and can crash in the middle of a run.

mod common;

use common::{Engine, free_port, get_ok, perflab};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn start_failure(args: &[&str]) -> (i32, String) {
    let port = free_port().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_perflab-engine"))
        .args(["--port", &port, "--sim-startup-seconds", "0.2"])
        .args(args)
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn out_of_memory_and_unsupported_flags_stop_the_start() {
    let (code, err) = start_failure(&["--gpu-memory-utilization", "0.5"]);
    assert_eq!(code, 1);
    assert!(err.contains("torch.OutOfMemoryError: CUDA out of memory"), "{err}");
    let (code, err) = start_failure(&["--mem-fraction-static", "0.8", "--chunked-prefill-size", "32768"]);
    assert_eq!(code, 1);
    assert!(err.contains("CUDA out of memory"), "{err}");
    let (code, err) = start_failure(&["--attention-backend", "cutlass_mla"]);
    assert_eq!(code, 1);
    assert!(err.contains("ValueError: Selected backend AttentionBackendEnum.CUTLASS_MLA is not valid"), "{err}");
    let (code, err) = start_failure(&["--no-such-flag"]);
    assert_eq!(code, 2);
    assert!(err.contains("unexpected argument '--no-such-flag'"), "{err}");
}

#[test]
fn becomes_ready_only_after_loading() {
    let port = free_port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_perflab-engine"))
        .args(["--port", &port.to_string(), "--sim-startup-seconds", "1.0"])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    std::thread::sleep(Duration::from_millis(300));
    assert!(!get_ok(port, "/health"), "ready too early");
    while !get_ok(port, "/health") {
        assert!(started.elapsed() < Duration::from_secs(10));
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(started.elapsed() >= Duration::from_millis(950));
    assert!(get_ok(port, "/v1/models"));
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn a_crash_in_the_middle_of_a_run_fails_the_rest() {
    let mut engine = Engine::start(&["--sim-crash-after", "4", "--sim-decode-ms", "2", "--max-num-seqs", "2"]);
    let url = engine.url();
    let (code, out, err) =
        perflab(&["bench", "--base-url", &url, "--num-prompts", "20", "--random-output-len", "5", "--quiet"]);
    assert_eq!(code, 0, "{err}");
    let b = &perflab::parse_str(&out).unwrap()[0];
    // The first two completed well before the crash; the two that ended it may not have been delivered.
    assert!(b.metric("completed").unwrap() >= 2.0, "{out}");
    assert!(b.metric("failed").unwrap() >= 1.0, "{out}");
    assert_eq!(b.metric("completed").unwrap() + b.metric("failed").unwrap(), 20.0);
    let status = engine.child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "the engine process died");
}
