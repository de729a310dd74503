//! The parser on real-shaped output of every tool and dialect, cut-off pastes and garbage.

use perflab::{Format, parse_str};
use std::path::PathBuf;
use std::process::Command;

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/parse").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-9 * b.abs().max(1.0))
}

#[test]
fn vllm_sweep_log_yields_each_block_with_its_context() {
    let blocks = parse_str(&fixture("vllm-sweep.log")).unwrap();
    assert_eq!(blocks.len(), 2);
    let (a, b) = (&blocks[0], &blocks[1]);
    assert_eq!((a.line, a.format, a.complete), (9, Format::Vllm, true));
    assert!(close(a.metric("total_token_throughput"), 9331.20));
    assert!(close(a.metric("p99.9_ttft_ms"), 250.10));
    assert!(close(a.metric("mean_e2el_ms"), 1670.0));
    assert!(close(a.metric("request_goodput"), 7.90));
    assert!(close(a.metric("burstiness"), 1.0));
    assert_eq!(a.metric("request_rate"), Some(8.0), "the in-block line wins over the context line");
    assert_eq!(a.raw.get("Traffic request rate"), Some("inf"));
    // The second block: its own context, `inf` and `None` kept raw, left out of metrics.
    assert_eq!(b.line, 48);
    assert_eq!(b.metric("request_rate"), Some(16.0));
    assert_eq!(b.metric("max_concurrency"), None);
    assert_eq!(b.raw.get("Maximum request concurrency"), Some("None"));
    assert_eq!(b.metric("mean_ttft_ms"), None);
    assert_eq!(b.raw.get("Mean TTFT (ms)"), Some("inf"));
    assert_eq!(b.metric("failed"), Some(2.0));
}

#[test]
fn old_vllm_spelling_of_total_throughput() {
    let b = &parse_str(&fixture("vllm-old.txt")).unwrap()[0];
    assert_eq!(b.format, Format::Vllm);
    assert!(close(b.metric("total_token_throughput"), 5742.84));
    assert!(close(b.metric("mean_tpot_ms"), 30.0));
}

#[test]
fn sglang_dialects() {
    let old = &parse_str(&fixture("sglang-old.txt")).unwrap()[0];
    assert_eq!((old.format, old.line, old.complete), (Format::Sglang, 4, true));
    assert!(close(old.metric("total_token_throughput"), 2121.89));
    assert!(close(old.metric("mean_e2el_ms"), 2098.07));
    assert!(close(old.metric("max_itl_ms"), 0.0));
    assert_eq!(old.metric("max_concurrency"), None);
    assert_eq!(old.raw.get("Max reqeuest concurrency"), Some("not set"));
    assert_eq!(old.metric("median_tpot_ms"), Some(-0.0));
    let new = &parse_str(&fixture("sglang-new.txt")).unwrap()[0];
    assert_eq!(new.format, Format::Sglang);
    assert_eq!(new.metric("max_concurrency"), Some(128.0));
    assert_eq!(new.metric("request_rate"), None);
    assert_eq!(new.raw.get("Traffic request rate"), Some("trace"));
    assert!(close(new.metric("p90_e2el_ms"), 20000.0));
    assert!(close(new.metric("accept_length"), 2.85));
    assert!(close(new.metric("total_output_tokens_retokenized"), 49990.0));
}

#[test]
fn trtllm_failed_request_banner_does_not_end_the_block() {
    let b = &parse_str(&fixture("trtllm.txt")).unwrap()[0];
    assert_eq!((b.format, b.complete), (Format::Trtllm, true));
    assert_eq!(b.metric("num_prompts"), Some(1000.0));
    assert_eq!(b.metric("failed"), Some(16.0));
    assert!(close(b.metric("p99_itl_ms"), 4910.46), "lines after the banner are read");
    assert_eq!(b.raw.get("Acceptance rate (%)"), Some("71.20"));
    assert_eq!(b.raw.get("Per-position acceptance (%) / Position 1"), Some("57.40"));
    assert!(b.raw.get("FAILED REQUESTS").is_some());
}

#[test]
fn gpustack_latency_seconds_become_milliseconds() {
    let b = &parse_str(&fixture("gpustack.txt")).unwrap()[0];
    assert_eq!((b.format, b.complete), (Format::Gpustack, true));
    assert!(close(b.metric("mean_e2el_ms"), 651_510.0));
    assert!(close(b.metric("p95_e2el_ms"), 857_920.0));
    assert!(close(b.metric("total_token_throughput"), 5481.90));
    assert!(close(b.metric("max_output_tokens_per_s"), 21900.04));
    assert_eq!(b.raw.get("Mean Latency(s)"), Some("651.51"));
}

#[test]
fn cut_off_paste_is_incomplete_not_guessed() {
    let b = &parse_str(&fixture("cut-off.txt")).unwrap()[0];
    assert!(!b.complete);
    assert!(close(b.metric("mean_ttft_ms"), 13054.63));
    assert_eq!(b.metric("median_ttft_ms"), None);
}

#[test]
fn block_without_header_is_found() {
    let text = fixture("vllm-old.txt").lines().skip(1).collect::<Vec<_>>().join("\n");
    let b = &parse_str(&text).unwrap()[0];
    assert!(b.complete);
    assert_eq!(b.line, 1);
    assert_eq!(b.remarks, vec!["header line missing".to_string()]);
}

#[test]
fn vllm_2023_summary() {
    let b = &parse_str(&fixture("vllm-legacy.txt")).unwrap()[0];
    assert_eq!((b.format, b.line, b.complete), (Format::VllmLegacy, 2, true));
    assert!(close(b.metric("request_throughput"), 8.10));
    assert!(close(b.metric("mean_e2el_ms"), 12340.0));
}

#[test]
fn json_results() {
    let v = &parse_str(&fixture("vllm.json")).unwrap()[0];
    assert_eq!(v.format, Format::VllmJson);
    assert!(close(v.metric("total_token_throughput"), 9331.2));
    assert_eq!(v.metric("request_rate"), None);
    assert_eq!(v.raw.get("request_rate"), Some("inf"));
    assert_eq!(v.raw.get("ttfts"), Some("[10 values]"));
    let lines = parse_str(&fixture("vllm-append.jsonl")).unwrap();
    assert_eq!(lines.len(), 2);
    assert_eq!((lines[1].line, lines[1].metric("request_goodput")), (2, Some(7.1)));
    let s = &parse_str(&fixture("sglang.jsonl")).unwrap()[0];
    assert_eq!(s.format, Format::SglangJsonl);
    assert!(close(s.metric("total_token_throughput"), 13125.0));
    assert!(close(s.metric("p90_e2el_ms"), 20000.0));
    let g = parse_str(&fixture("guidellm.json")).unwrap();
    assert_eq!(g.len(), 2);
    assert_eq!((g[0].format, g[0].line, g[1].line), (Format::GuidellmJson, 5, 23));
    assert!(close(g[0].metric("total_token_throughput"), 13760.98));
    assert!(close(g[0].metric("mean_e2el_ms"), 273_290.0));
    assert!(close(g[0].metric("p99.9_ttft_ms"), 299_000.0));
    assert!(close(g[0].metric("duration"), 688.6));
    assert_eq!(g[1].metric("failed"), Some(5.0));
}

#[test]
fn garbage_is_an_error_with_a_line() {
    let e = parse_str("hello\nworld\n").unwrap_err();
    assert!(e.message.contains("no benchmark result"), "{e}");
    let text = fixture("vllm-old.txt").replace("5742.84", "57x2.84");
    let e = parse_str(&text).unwrap_err();
    assert_eq!((e.line, e.col), (8, 42));
    assert!(e.message.contains("Total Token throughput"), "{e}");
    let e = parse_str("{\"completed\": 1,\n  oops}").unwrap_err();
    assert_eq!(e.line, 2);
    let e = parse_str("{\"hello\": 1}").unwrap_err();
    assert!(e.message.contains("not a benchmark result"), "{e}");
}

fn perflab(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_perflab")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap()
}

#[test]
fn cli_prints_json_and_exit_codes_tell_the_outcome() {
    let out = perflab(&["parse", "tests/fixtures/parse/vllm-sweep.log", "tests/fixtures/parse/sglang.jsonl"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let list = v.as_array().unwrap();
    assert_eq!(list.len(), 3);
    assert_eq!(list[0]["file"], "tests/fixtures/parse/vllm-sweep.log");
    assert_eq!(list[0]["line"], 9);
    assert_eq!(list[0]["format"], "vllm");
    assert_eq!(list[0]["complete"], true);
    assert_eq!(list[0]["metrics"]["total_token_throughput"], 9331.2);
    assert_eq!(list[0]["raw"]["Total token throughput (tok/s)"], "9331.20");
    assert_eq!(list[2]["format"], "sglang-jsonl");

    assert_eq!(perflab(&["parse", "tests/fixtures/parse/cut-off.txt"]).status.code(), Some(1));
    let missing = perflab(&["parse", "tests/fixtures/parse/nope.txt"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("nope.txt: cannot read"));
    let garbage = perflab(&["parse", "Cargo.toml"]);
    assert_eq!(garbage.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&garbage.stderr).starts_with("Cargo.toml:"));
}

#[test]
fn cli_reads_standard_input() {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_perflab"))
        .args(["parse", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(fixture("trtllm.txt").as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["file"], "-");
    assert_eq!(v[0]["format"], "trtllm");
}

/// The sweep fixture with a third block whose `Mean TPOT (ms)` is printed with a thousands
/// separator, between the two good ones.
fn sweep_with_a_bad_value() -> (String, usize) {
    let sweep = fixture("vllm-sweep.log");
    let bad =
        fixture("vllm-old.txt").replace("Mean TPOT (ms):                          30.00", "Mean TPOT (ms):  1,234.5");
    assert!(bad.contains("1,234.5"), "the fixture has the line the test breaks");
    let first_block_end = sweep.find("\n\n").unwrap_or(0);
    let text = format!("{}\n\n{bad}\n{}", &sweep[..first_block_end], &sweep[first_block_end..]);
    let line = text[..text.find("1,234.5").unwrap()].matches('\n').count() + 1;
    (text, line)
}

#[test]
fn a_bad_value_spoils_only_its_own_block() {
    let (text, line) = sweep_with_a_bad_value();
    let parsed = perflab::parse_text(&text);
    assert_eq!(parsed.errors.len(), 1);
    assert_eq!((parsed.errors[0].line, parsed.errors[0].col), (line, 18));
    assert!(parsed.errors[0].message.contains("`Mean TPOT (ms)` should be a number, found `1,234.5`"));
    assert_eq!(parsed.blocks.len(), 2, "the good blocks are kept");
    assert!(close(parsed.blocks[0].metric("total_token_throughput"), 9331.20));
    // A stored run file is read strictly: the bad value is an error there.
    assert_eq!(parse_str(&text).unwrap_err().line, line);

    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("sweep.log");
    std::fs::write(&path, &text).unwrap();
    let out = perflab(&["parse", path.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("sweep.log:{line}:18: `Mean TPOT (ms)` should be a number")), "{err}");
    assert_eq!(out.status.code(), Some(1), "a spoiled block is reported in the exit code");
}

#[test]
fn undecodable_bytes_are_replaced_and_located() {
    // A progress bar with a cut multi-byte character and stray bytes, then a block with a stray
    // byte after a value (the value's first word is the number).
    let mut bytes = b"progress \xe2\x96 50%|\xff\xfe| 1/2\n".to_vec();
    let block = fixture("vllm-old.txt").replace("40.12\n", "40.12 \u{1}\n");
    bytes.extend(block.as_bytes());
    let at = bytes.iter().position(|&b| b == 1).unwrap();
    bytes[at] = 0xc3;
    let (text, replaced) = perflab::parse::decode(&bytes);
    assert!(text.starts_with("progress \u{fffd} 50%|\u{fffd}\u{fffd}| 1/2\n"), "{text}");
    assert_eq!(replaced, vec![1, 4], "the progress bar's line and the block's duration line");

    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("bench.log");
    std::fs::write(&path, &bytes).unwrap();
    let out = perflab(&["parse", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(close(v[0]["metrics"]["total_token_throughput"].as_f64(), 5742.84));
    assert!(close(v[0]["metrics"]["duration"].as_f64(), 40.12));
    assert_eq!(v[0]["remarks"][0], "bytes that are not UTF-8 replaced by U+FFFD on line 4");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bench.log:1:1: warning: bytes that are not UTF-8 replaced by U+FFFD on line 1, 4"), "{err}");
}

#[test]
fn a_cut_off_last_line_of_appended_results_keeps_the_good_lines() {
    let mut text = fixture("vllm-append.jsonl");
    let last = text.lines().last().unwrap().to_string();
    text.push_str(&last[..last.len() / 2]);
    let parsed = perflab::parse_text(&text);
    assert_eq!(parsed.blocks.len(), 2, "{:?}", parsed.errors);
    assert_eq!(parsed.errors.len(), 1);
    assert_eq!(parsed.errors[0].line, 3);
    assert!(parsed.errors[0].message.starts_with("invalid JSON"), "{}", parsed.errors[0]);
}

#[test]
fn negative_counts_and_latencies_are_remarked() {
    let text =
        fixture("vllm-old.txt").replace("Mean TPOT (ms):                          30.00", "Mean TPOT (ms): -3.00");
    let b = &parse_str(&text).unwrap()[0];
    assert_eq!(b.metric("mean_tpot_ms"), Some(-3.0));
    assert!(b.remarks.iter().any(|r| r.ends_with("`Mean TPOT (ms)` is negative (-3.00)")), "{:?}", b.remarks);
    let json = fixture("vllm.json").replacen("\"completed\": ", "\"completed\": -", 1);
    let b = &parse_str(&json).unwrap()[0];
    assert!(b.remarks.iter().any(|r| r.starts_with("`completed` is negative")), "{:?}", b.remarks);
}

#[test]
fn a_reader_that_stops_early_is_no_error() {
    use std::io::Read;
    // Enough results to fill the pipe several times over.
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("many.log");
    std::fs::write(&path, fixture("vllm-sweep.log").repeat(300)).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_perflab"))
        .args(["parse", path.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 64];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    let status = child.wait().unwrap();
    assert!(!err.contains("Broken pipe") && !err.contains("panicked"), "{err}");
    assert_eq!(status.code(), Some(0), "{err}");
}
