//! The simulated engine behaves like a GPU engine seen from outside: it takes a while to become
//! ready, refuses configurations the way real engines do, and can crash in the middle of a run.

use crate::common;

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

/// POSTs JSON to the engine and returns the status and the body.
fn post(engine: &common::Engine, path: &str, body: &str) -> (u16, serde_json::Value) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", engine.port)).unwrap();
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    let status = text[9..12].parse().unwrap();
    // The JSON object of the body, whether it was sent whole or in chunks.
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    let object = body.find('{').zip(body.rfind('}')).map_or("", |(a, b)| &body[a..=b]);
    let json = serde_json::from_str(object).unwrap_or_default();
    (status, json)
}

#[test]
fn prompts_are_counted_like_a_real_server_counts_them() {
    let engine = Engine::start(&["--sim-decode-ms", "1", "--sim-vocab-size", "8000"]);
    // Chat content given as a list of parts counts its text.
    let (status, reply) = post(
        &engine,
        "/v1/chat/completions",
        r#"{"model":"m","max_tokens":2,"messages":[{"role":"user","content":[{"type":"text","text":"one two three"}]}]}"#,
    );
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["usage"]["prompt_tokens"], 3, "{reply}");
    // An id beyond the vocabulary is refused, as a real engine refuses it.
    let (status, reply) = post(&engine, "/v1/completions", r#"{"model":"m","max_tokens":2,"prompt":[5,7999,8000]}"#);
    assert_eq!(status, 400);
    assert!(reply["message"].as_str().unwrap().contains("Token id 8000 is out of vocabulary"), "{reply}");
    // vLLM's client asks `/tokenize` for the length of its prompts.
    let (status, reply) = post(&engine, "/tokenize", r#"{"model":"m","prompt":"a b c d"}"#);
    assert_eq!(status, 200);
    assert_eq!(reply["count"], 4, "{reply}");
}

#[test]
fn the_listen_backlog_is_as_deep_as_the_kernel_allows() {
    let engine = Engine::start(&[]);
    // `ss` shows a listening socket's backlog as its send queue (capped by somaxconn).
    let cap: u32 = std::fs::read_to_string("/proc/sys/net/core/somaxconn").unwrap().trim().parse().unwrap();
    let out = Command::new("ss").args(["-ltnH", &format!("sport = :{}", engine.port)]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let backlog: u32 = text.split_whitespace().nth(2).and_then(|q| q.parse().ok()).unwrap_or_else(|| panic!("{text}"));
    // 65,535 asked for, so that more streams than 2,048 reach a client under test.
    assert_eq!(backlog, 65_535.min(cap), "{text}");
}

#[test]
fn a_start_error_can_be_followed_by_a_long_traceback() {
    let (code, err) = start_failure(&["--gpu-memory-utilization", "0.5", "--sim-log-after-error", "95"]);
    assert_eq!(code, 1);
    let lines: Vec<&str> = err.lines().collect();
    let at = lines.iter().position(|l| l.contains("CUDA out of memory")).unwrap();
    assert!(lines.len() - at > 90, "the error is far above the end: {err}");
}

/// Mean TTFT and ITL of `perflab bench` over kept-alive connections at `concurrency`.
fn latencies(engine: &Engine, concurrency: u32, requests: u32) -> (f64, f64, String) {
    let (c, n) = (concurrency.to_string(), requests.to_string());
    let (code, out, err) = perflab(&[
        "bench",
        "--base-url",
        &engine.url(),
        "--num-prompts",
        &n,
        "--max-concurrency",
        &c,
        "--random-input-len",
        "64",
        "--random-output-len",
        "16",
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    let b = &perflab::parse_str(&out).unwrap()[0];
    (b.metric("mean_ttft_ms").unwrap(), b.metric("mean_itl_ms").unwrap(), out)
}

/// The engine streams each token as its step ends, so a client sees the latencies its flags
/// give. With 20 ms decode steps (30 ms with 16 of 64 sequences running, at a batch penalty of
/// 2) and 80 ms to prefill 1000 prompt tokens, a 64-token prompt's first token comes one step
/// and its prefill after the request, and each later token one step after the one before;
/// sixteen requests sent together prefill their 1024 tokens in one longer step. A server that
/// holds its chunks back (Nagle's algorithm against a client's delayed acknowledgements) adds
/// about 40 ms to every first token and packs the later ones into bursts.
#[test]
fn tokens_stream_as_the_engine_model_times_them() {
    let _serial = common::serial();
    let flags =
        ["--sim-decode-ms", "20", "--sim-prefill-ms-per-1k", "80", "--sim-batch-penalty", "2", "--max-num-seqs", "64"];
    let engine = Engine::start(&flags);
    let step = |running: f64| 20.0 * (1.0 + 2.0 * running / 64.0);
    let prefill = |prompts: f64| prompts * 64.0 * 80.0 / 1000.0;
    let within = |what: &str, measured: f64, model: f64, out: &str| {
        let off = (measured - model).abs() / model;
        assert!(off <= 0.2, "{what}: {measured:.2} ms measured, {model:.2} ms by the model\n{out}");
    };
    let (ttft, itl, out) = latencies(&engine, 1, 16);
    within("TTFT at concurrency 1", ttft, step(1.0) + prefill(1.0), &out);
    within("ITL at concurrency 1", itl, step(1.0), &out);
    let (ttft, itl, out) = latencies(&engine, 16, 32);
    within("TTFT at concurrency 16", ttft, step(16.0) + prefill(16.0), &out);
    within("ITL at concurrency 16", itl, step(16.0), &out);
}
