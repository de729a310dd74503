//! `perflab bench` against the simulated engine: totals add up, measured latency follows the
//! simulated one, slower settings measure slower, server failures become failed requests with
//! reasons, Ctrl-C reports what was measured as incomplete, and the output parses.

use crate::common;

use common::{Engine, perflab};
use perflab::parse_str;
use std::process::Command;

fn bench(engine: &Engine, extra: &[&str]) -> (i32, perflab::Block, String) {
    let url = engine.url();
    let mut args = vec!["bench", "--base-url", url.as_str(), "--quiet"];
    args.extend_from_slice(extra);
    let (code, out, err) = perflab(&args);
    let blocks = parse_str(&out).unwrap_or_else(|e| panic!("{e}\n{out}\n{err}"));
    assert_eq!(blocks.len(), 1);
    (code, blocks.into_iter().next().unwrap(), err)
}

#[test]
fn totals_add_up_and_tpot_follows_the_simulated_step() {
    let engine = Engine::start(&["--sim-decode-ms", "20", "--sim-batch-penalty", "0"]);
    let (code, b, err) = bench(
        &engine,
        &["--num-prompts", "12", "--random-input-len", "32", "--random-output-len", "10", "--max-concurrency", "4"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(b.complete);
    assert_eq!(b.metric("completed"), Some(12.0));
    assert_eq!(b.metric("failed"), Some(0.0));
    assert_eq!(b.metric("total_output_tokens"), Some(120.0), "requests × output tokens");
    assert_eq!(b.metric("total_input_tokens"), Some(12.0 * 32.0));
    assert_eq!(b.metric("max_concurrency"), Some(4.0));
    let tpot = b.metric("mean_tpot_ms").unwrap();
    assert!((19.0..40.0).contains(&tpot), "TPOT {tpot} ms against a 20 ms step");
    let tps = b.metric("total_token_throughput").unwrap();
    let expected = (12.0 * 42.0) / b.metric("duration").unwrap();
    assert!((tps - expected).abs() < 0.01 * expected + 0.01, "{tps} vs {expected}");
}

#[test]
fn a_slower_configuration_measures_slower() {
    let run = |decode: &str| {
        let engine = Engine::start(&["--sim-decode-ms", decode]);
        let (_, b, _) =
            bench(&engine, &["--num-prompts", "16", "--random-input-len", "16", "--random-output-len", "8"]);
        b.metric("output_throughput").unwrap()
    };
    let (fast, slow) = (run("5"), run("25"));
    assert!(fast > 2.0 * slow, "5 ms steps: {fast} tok/s, 25 ms steps: {slow} tok/s");
}

#[test]
fn server_failures_become_failed_requests_with_reasons() {
    for (flag, reason) in [
        ("--sim-fail-every", "HTTP 500: simulated internal error"),
        ("--sim-malformed-every", "malformed chunk"),
        ("--sim-drop-every", "stream interrupted"),
    ] {
        let engine = Engine::start(&[flag, "3", "--sim-decode-ms", "2"]);
        let (code, b, err) =
            bench(&engine, &["--num-prompts", "9", "--random-input-len", "8", "--random-output-len", "5"]);
        assert_eq!(code, 0, "{flag}: {err}");
        assert_eq!(b.metric("failed"), Some(3.0), "{flag}: {err}");
        assert_eq!(b.metric("completed"), Some(6.0), "{flag}");
        assert!(err.contains(reason), "{flag}: {err}");
    }
}

#[test]
fn unreachable_server_fails_every_request_without_panicking() {
    let port = common::free_port();
    let url = format!("http://127.0.0.1:{port}");
    let (code, out, err) = perflab(&["bench", "--base-url", &url, "--model", "m", "--num-prompts", "3", "--quiet"]);
    assert_eq!(code, 1, "a benchmark in which no request succeeded fails: {err}");
    assert!(err.contains("no request succeeded"), "{err}");
    let b = &parse_str(&out).unwrap()[0];
    assert_eq!(b.metric("failed"), Some(3.0));
    assert!(err.contains("connection failed"), "{err}");
    let (code, _, err) = perflab(&["bench", "--base-url", &url, "--num-prompts", "1"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot reach"), "{err}");
}

#[test]
fn chat_endpoint_poisson_arrivals_and_result_json() {
    let engine = Engine::start(&["--sim-decode-ms", "2"]);
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("result.json");
    let (code, b, err) = bench(
        &engine,
        &[
            "--endpoint",
            "/v1/chat/completions",
            "--num-prompts",
            "10",
            "--request-rate",
            "50",
            "--random-input-len",
            "20",
            "--random-output-len",
            "4",
            "--goodput",
            "ttft:10000",
            "--save-result",
            json.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(b.metric("request_rate"), Some(50.0));
    assert!(b.metric("request_goodput").unwrap() > 0.0);
    let saved = &parse_str(&std::fs::read_to_string(&json).unwrap()).unwrap()[0];
    assert_eq!(saved.format, perflab::Format::VllmJson);
    assert_eq!(saved.metric("completed"), Some(10.0));
    assert_eq!(saved.metric("total_output_tokens"), Some(40.0));
    assert_eq!(saved.raw.get("model_id"), Some("sim-model"));
}

#[test]
fn ctrl_c_prints_an_incomplete_result() {
    let engine = Engine::start(&["--sim-decode-ms", "50", "--max-num-seqs", "4"]);
    let url = engine.url();
    let child = Command::new(env!("CARGO_BIN_EXE_perflab"))
        .args(["bench", "--base-url", &url, "--num-prompts", "200", "--random-output-len", "20", "--quiet"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(2500));
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let text = String::from_utf8_lossy(&out.stdout);
    let b = &parse_str(&text).unwrap()[0];
    assert!(!b.complete, "an interrupted run is marked incomplete");
    let done = b.metric("completed").unwrap();
    assert!(done > 0.0 && done < 200.0, "{done}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("interrupted"));
}

fn tokenizer_path() -> String {
    format!("{}/tests/fixtures/tokenizer/tokenizer.json", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn random_prompts_from_a_tokenizer_have_an_exact_length_in_its_vocabulary() {
    use perflab::bench::{dataset, tokenizer::Tokenizer};
    let tok = Tokenizer::load(std::path::Path::new(&tokenizer_path())).unwrap();
    let vocab = tok.ordinary_ids().len();
    assert!((7000..=8000).contains(&vocab), "{vocab}");
    let max_id = *tok.ordinary_ids().last().unwrap();
    for chat in [false, true] {
        for item in dataset::random(20, 64, 8, 3, chat, Some(&tok)) {
            assert_eq!(item.input_tokens, 64);
            match &item.prompt {
                dataset::Prompt::Tokens(ids) => {
                    assert_eq!(ids.len(), 64);
                    assert!(ids.iter().all(|i| *i <= max_id));
                }
                dataset::Prompt::Text(text) => assert_eq!(tok.count(text), 64, "{text}"),
            }
        }
    }
    // Without a tokenizer the ids stay low enough for a small vocabulary.
    for item in dataset::random(20, 64, 8, 3, false, None) {
        let dataset::Prompt::Tokens(ids) = &item.prompt else { panic!("completions prompts are ids") };
        assert!(ids.iter().all(|i| (*i as usize) < vocab));
    }
}

#[test]
fn dataset_prompts_are_counted_in_tokens_and_the_server_count_wins() {
    let engine = Engine::start(&["--sim-decode-ms", "1"]);
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("prompts.jsonl");
    // Eight words that the tokenizer splits into more tokens than words.
    std::fs::write(
        &data,
        "{\"prompt\": \"Throughput9 of 77 replicas! Prefill0, decode1; kernel42 queue33.\", \"output_tokens\": 3}\n",
    )
    .unwrap();
    let tok = perflab::bench::tokenizer::Tokenizer::load(std::path::Path::new(&tokenizer_path())).unwrap();
    let items = perflab::bench::dataset::jsonl(&data, 1, 8, Some(&tok)).unwrap();
    assert_eq!(items[0].counted, perflab::bench::tokenizer::TokenCount::Tokenizer);
    assert!(items[0].input_tokens > 8, "tokens, not the 8 words: {}", items[0].input_tokens);
    let words = perflab::bench::dataset::jsonl(&data, 1, 8, None).unwrap();
    assert_eq!((words[0].input_tokens, words[0].counted), (8, perflab::bench::tokenizer::TokenCount::Words));
    let json = tmp.path().join("r.json");
    let tokenizer = tokenizer_path();
    let common = ["--dataset-name", "jsonl", "--dataset-path", data.to_str().unwrap(), "--num-prompts", "4"];
    let with = |extra: &[&str]| {
        let mut args: Vec<&str> = common.to_vec();
        args.extend_from_slice(extra);
        bench(&engine, &args)
    };
    // The simulated engine reports usage: its count is what the block shows.
    let (code, b, err) = with(&["--tokenizer", &tokenizer, "--save-result", json.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(b.raw.get("Input tokens counted by"), Some("server usage"));
    assert_eq!(b.raw.get("Output tokens counted by"), Some("server usage"));
    let saved: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(saved["input_tokens_counted_by"], "server usage");
    assert_eq!(saved["total_output_tokens"], 12);
}

/// A server that lists model `m` and answers every completion with `answer` followed by
/// `filler`, sent for as long as the client reads.
fn hostile_server(answer: &'static str, filler: &'static [u8]) -> u16 {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).is_ok_and(|n| n == 1) {
                    head.push(byte[0]);
                }
                if head.starts_with(b"GET") {
                    let body = r#"{"data":[{"id":"m"}]}"#;
                    let _ = write!(stream, "HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n{body}", body.len());
                    return;
                }
                let _ = stream.write_all(answer.as_bytes());
                let chunk = [format!("{:x}\r\n", filler.len()).as_bytes(), filler, b"\r\n"].concat();
                while stream.write_all(&chunk).is_ok() {}
            });
        }
    });
    port
}

#[test]
fn an_endless_error_body_or_event_is_cut_off_not_collected() {
    let error = "HTTP/1.1 500 Internal Server Error\r\ntransfer-encoding: chunked\r\n\r\n";
    let stream = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
    for (answer, filler, reason) in [
        (error, &b"overflowing error text "[..], "HTTP 500: overflowing error text"),
        (stream, &b"data: no blank line ever comes "[..], "an event longer than 1024 KiB"),
    ] {
        let url = format!("http://127.0.0.1:{}", hostile_server(answer, filler));
        let (code, _, err) = perflab(&[
            "bench",
            "--base-url",
            &url,
            "--model",
            "m",
            "--num-prompts",
            "1",
            "--timeout",
            "300",
            "--quiet",
        ]);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains(reason), "{err}");
    }
}

#[test]
fn goodput_limits_must_be_positive_numbers_given_once() {
    for bad in ["ttft:-1", "ttft:nan", "ttft:inf", "ttft:0"] {
        let (code, _, err) = perflab(&["bench", "--base-url", "http://127.0.0.1:1", "--goodput", bad]);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(err.contains("above 0"), "{bad}: {err}");
    }
    let (code, _, err) =
        perflab(&["bench", "--base-url", "http://127.0.0.1:1", "--goodput", "ttft:5", "--goodput", "ttft:6"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("limited twice"), "{err}");
}

/// `--requests-file` keeps every measured request in the order sent; the goodput printed is the
/// one `perflab::parse::requests::goodput` computes from that file, failed requests are never
/// good, and a request of one output token has a TPOT of 0 for a limit, as in vLLM.
#[test]
fn the_requests_file_holds_every_request_and_gives_the_printed_goodput() {
    use perflab::parse::requests::{Limits, goodput, read_requests};
    let engine = Engine::start(&["--sim-decode-ms", "2", "--sim-fail-every", "3"]);
    let tmp = tempfile::tempdir().unwrap();
    let (json, file) = (tmp.path().join("result.json"), tmp.path().join("requests.jsonl"));
    let run = |extra: &[&str]| {
        let mut args = vec!["--num-prompts", "12", "--random-input-len", "8", "--goodput", "ttft:60000", "tpot:0.001"];
        args.extend_from_slice(&["--save-result", json.to_str().unwrap(), "--requests-file", file.to_str().unwrap()]);
        args.extend_from_slice(extra);
        let (code, b, err) = bench(&engine, &args);
        assert_eq!(code, 0, "{err}");
        let saved: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        (b, saved, read_requests(&file).unwrap())
    };
    let limits = Limits { ttft_ms: Some(60000.0), tpot_ms: Some(0.001), e2el_ms: None };

    // One output token a request: every success meets the TPOT limit.
    let (b, saved, records) = run(&["--random-output-len", "1", "--request-rate", "200"]);
    assert_eq!(records.iter().map(|r| r.index).collect::<Vec<_>>(), (0..12).collect::<Vec<_>>());
    assert_eq!(records.iter().filter(|r| !r.ok).count(), 4, "every third request fails");
    assert!(records.iter().filter(|r| !r.ok).all(|r| r.error.as_deref() == Some("HTTP 500: simulated internal error")));
    assert!(records.iter().all(|r| r.ok == r.e2el_ms.is_some() && r.tpot_ms.is_none()));
    // Poisson arrivals: due in order, sent at or after the moment due.
    assert!(records.windows(2).all(|w| w[0].scheduled_s <= w[1].scheduled_s));
    assert!(records.iter().all(|r| r.sent_s >= r.scheduled_s - 1e-9), "{records:?}");
    let g = goodput(&records, &limits, saved["duration"].as_f64().unwrap());
    assert_eq!((g.good, g.total), (8, 12));
    assert_eq!(g.request_goodput, saved["request_goodput"].as_f64().unwrap(), "one computation");
    assert_eq!(b.metric("request_goodput"), Some((g.request_goodput * 100.0).round() / 100.0));
    let mean_ttft = records.iter().filter_map(|r| r.ttft_ms).sum::<f64>() / 8.0;
    assert!((mean_ttft - saved["mean_ttft_ms"].as_f64().unwrap()).abs() < 1e-9);

    // Four output tokens: a TPOT of 2 ms fails the limit of 0.001 ms; with a slot of 2 the
    // requests are due when a slot frees, each after the one before.
    let (b, saved, records) = run(&["--random-output-len", "4", "--max-concurrency", "2"]);
    assert_eq!(records.len(), 12);
    assert!(records.iter().filter(|r| r.ok).all(|r| r.tpot_ms.unwrap() > 0.001 && r.itl_ms.len() == 3));
    assert_eq!(goodput(&records, &limits, 1.0).good, 0);
    assert_eq!(saved["request_goodput"].as_f64(), Some(0.0));
    assert_eq!(b.metric("request_goodput"), Some(0.0));
    assert!(records.windows(2).all(|w| w[0].scheduled_s <= w[1].scheduled_s));
    let loose = Limits { tpot_ms: Some(10_000.0), ..limits };
    assert_eq!(goodput(&records, &loose, 1.0).good, 8, "the same records under other limits, without a rerun");
}

/// A server that lists model `m` and answers every completion with a stream of `body` (whole,
/// then the connection closes, with a `connection: close` header if `say_close`).
fn scripted_server(body: String, say_close: bool) -> u16 {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let body = body.clone();
            std::thread::spawn(move || {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).is_ok_and(|n| n == 1) {
                    head.push(byte[0]);
                }
                // The request's body, as its length says.
                let text = String::from_utf8_lossy(&head).to_ascii_lowercase();
                let length = text
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|n| n.trim().parse::<usize>().ok())
                    .unwrap_or(0);
                let _ = stream.read_exact(&mut vec![0u8; length]);
                let (kind, body) = if head.starts_with(b"GET") {
                    ("application/json", r#"{"data":[{"id":"m"}]}"#.to_string())
                } else {
                    ("text/event-stream", body)
                };
                let close = if say_close { "connection: close\r\n" } else { "" };
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\ncontent-length: {}\r\n{close}\r\n{body}",
                    body.len()
                );
            });
        }
    });
    port
}

/// A stream of four tokens, then `usage`, then `[DONE]`, its lines ended with `ending`.
fn four_tokens(ending: &str, usage: &str) -> String {
    let mut body = String::new();
    for word in ["a", "b", "c", "d"] {
        body += &format!("data: {{\"choices\":[{{\"text\":\"{word}\"}}]}}{ending}{ending}");
    }
    body += &format!("data: {{\"choices\":[],\"usage\":{usage}}}{ending}{ending}data: [DONE]{ending}{ending}");
    body
}

/// `perflab bench` of three requests of four output tokens against a scripted server.
fn bench_scripted(body: String) -> (i32, Option<perflab::Block>, String) {
    let url = format!("http://127.0.0.1:{}", scripted_server(body, true));
    let args = ["--random-input-len", "8", "--random-output-len", "4", "--num-prompts", "3", "--quiet"];
    let mut all = vec!["bench", "--base-url", url.as_str(), "--model", "m"];
    all.extend_from_slice(&args);
    let (code, out, err) = perflab(&all);
    (code, parse_str(&out).ok().and_then(|b| b.into_iter().next()), err)
}

/// A server that keeps no connection yet does not say so: each request after the first finds its
/// kept connection closed, and is sent again on a new one (the server never read it).
#[test]
fn a_kept_connection_that_the_server_closed_is_replaced() {
    let body = four_tokens("\n", r#"{"prompt_tokens":8,"completion_tokens":4}"#);
    let url = format!("http://127.0.0.1:{}", scripted_server(body, false));
    let (code, out, err) = perflab(&[
        "bench",
        "--base-url",
        &url,
        "--random-output-len",
        "4",
        "--num-prompts",
        "6",
        "--max-concurrency",
        "1",
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    let b = &parse_str(&out).unwrap()[0];
    assert_eq!(b.metric("completed"), Some(6.0), "{err}");
}

#[test]
fn a_stream_whose_lines_end_with_cr_alone_is_read_like_any_other() {
    let usage = r#"{"prompt_tokens":8,"completion_tokens":4}"#;
    for ending in ["\r", "\n", "\r\n"] {
        let (code, b, err) = bench_scripted(four_tokens(ending, usage));
        assert_eq!(code, 0, "{ending:?}: {err}");
        let b = b.unwrap();
        assert_eq!(b.metric("completed"), Some(3.0), "{ending:?}: {err}");
        assert_eq!(b.raw.get("Total generated tokens"), Some("12"), "{ending:?}");
        assert_eq!(b.raw.get("Output tokens counted by"), Some("server usage"), "{ending:?}");
    }
}

#[test]
fn usage_that_cannot_be_the_requests_is_not_believed_and_said_once() {
    for (usage, why) in [
        (
            r#"{"prompt_tokens":8,"completion_tokens":1000000000}"#,
            "completion_tokens is 1000000000 where max_tokens is 4",
        ),
        (r#"{"prompt_tokens":0,"completion_tokens":4}"#, "prompt_tokens is 0 for a prompt that is not empty"),
        (r#"{"prompt_tokens":8,"completion_tokens":"many"}"#, "completion_tokens is \"many\", not a count"),
        (r#"{"prompt_tokens":-3,"completion_tokens":4}"#, "prompt_tokens is -3, not a count"),
        (r#"{"prompt_tokens":8,"completion_tokens":0}"#, "completion_tokens is 0 for 4 streamed tokens"),
    ] {
        let (code, b, err) = bench_scripted(four_tokens("\n", usage));
        assert_eq!(code, 0, "{usage}: {err}");
        let b = b.unwrap();
        assert_eq!(b.metric("completed"), Some(3.0), "{usage}: {err}");
        // Four streamed tokens a request, as the stream counts them; the prompt as sent.
        assert_eq!(b.raw.get("Total generated tokens"), Some("12"), "{usage}");
        assert_eq!(b.raw.get("Total input tokens"), Some("24"), "{usage}");
        assert_eq!(b.raw.get("Output tokens counted by"), Some("token ids"), "{usage}");
        let warning = format!(
            "warning: the server's usage was not believed for 3 of 3 requests (first: {why}); their tokens were counted from the stream"
        );
        assert_eq!(err.matches("warning: the server's usage").count(), 1, "{err}");
        assert!(err.contains(&warning), "{usage}: {err}");
    }
}

#[test]
fn a_standard_error_that_cannot_be_written_does_not_make_the_benchmark_panic() {
    let engine = Engine::start(&["--sim-decode-ms", "1", "--sim-fail-every", "2"]);
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_perflab"))
        .args(["bench", "--base-url", &engine.url(), "--quiet", "--num-prompts", "4"])
        .args(["--random-input-len", "8", "--random-output-len", "4"])
        .stderr(full)
        .output()
        .unwrap();
    // Half the requests failed (their errors go to the full standard error); the block is printed.
    assert_eq!(out.status.code(), Some(0), "{:?}", out.status);
    let blocks = parse_str(&String::from_utf8_lossy(&out.stdout)).unwrap();
    assert_eq!(blocks[0].metric("completed"), Some(2.0));
}

#[test]
fn perflab_run_says_when_its_benchmark_did_not_believe_the_servers_usage() {
    let _serial = common::serial();
    let (_tmp, dir) =
        common::tiny("perflab-engine --port {port} --sim-startup-seconds 0.1 --sim-usage-factor 1000", "");
    let (code, _, err) = common::run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("engine/only on p: warning: the server's usage was not believed for 4 of 4 requests (first: completion_tokens is 4000 where max_tokens is 4)"),
        "{err}"
    );
    let result = std::fs::read_to_string(dir.join("runs/engine/only/attempts/1/p.txt")).unwrap();
    let block = parse_str(&result).unwrap().remove(0);
    assert_eq!(block.raw.get("Total generated tokens"), Some("16"), "{result}");
}

/// A server that holds its chunks back (here the simulated engine with Nagle's algorithm left
/// on, so each chunk waits for the client's delayed acknowledgement) delivers a stream's tokens
/// in bursts: `perflab bench` says how many streams, why that usually happens, marks each such
/// request in its records and counts them in its block; a server that streams is not flagged.
#[test]
fn streams_that_arrive_in_bursts_are_named() {
    let _serial = common::serial();
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("requests.jsonl");
    let args =
        ["--num-prompts", "16", "--max-concurrency", "1", "--random-input-len", "64", "--random-output-len", "16"];
    let with_records = |engine: &Engine| {
        let mut a = args.to_vec();
        a.extend(["--requests-file", records.to_str().unwrap()]);
        let (code, block, err) = bench(engine, &a);
        assert_eq!(code, 0, "{err}");
        (block, err, std::fs::read_to_string(&records).unwrap())
    };
    let nagle = Engine::start(&["--sim-decode-ms", "2", "--sim-nagle"]);
    let (block, err, lines) = with_records(&nagle);
    let buffered = block.metric("buffered_streams").unwrap_or(0.0);
    assert!(buffered >= 12.0, "{buffered}\n{err}");
    assert!(err.contains(&format!("warning: {buffered} of 16 streams arrived in bursts")), "{err}");
    assert!(err.contains("Nagle's algorithm without TCP_NODELAY"), "{err}");
    assert_eq!(lines.matches("\"buffered\":true").count(), buffered as usize, "{lines}");
    let streaming = Engine::start(&["--sim-decode-ms", "2"]);
    let (block, err, lines) = with_records(&streaming);
    assert_eq!(block.metric("buffered_streams"), None, "{err}");
    assert!(!err.contains("bursts") && !lines.contains("buffered"), "{err}");
}

/// A study run against a server that buffers: the run's manifest keeps the warning, and
/// `check` and the page name the run whose streams arrived in bursts.
#[test]
fn a_run_whose_streams_arrived_in_bursts_is_flagged_by_check_and_the_page() {
    let _serial = common::serial();
    let engine =
        "perflab-engine --port {port} --model {model} --sim-startup-seconds 0.05 --sim-decode-ms 2 --sim-nagle";
    let (_tmp, dir) = common::tiny(engine, "");
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec)
        .unwrap()
        .replace("output_tokens = 4", "output_tokens = 16")
        .replace("total_requests = 4", "total_requests = 8\nmax_concurrency = 1");
    std::fs::write(&spec, text).unwrap();
    let (code, _, err) = common::run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("streams arrived in bursts"), "{err}");
    let manifest = common::manifests(&dir).remove(0);
    assert!(manifest.warnings.iter().any(|w| w.contains("streams arrived in bursts")), "{:?}", manifest.warnings);
    let (_, out, err) = common::perflab(&["check", dir.to_str().unwrap()]);
    assert!(format!("{out}{err}").contains("streams arrived in bursts"), "{out}{err}");
    let (code, page, err) = common::perflab(&["report", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(page.contains("streams delivered their tokens in bursts rather than one by one"), "{page}");
}
