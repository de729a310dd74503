//! Real outputs of real clients (vLLM 0.33 `vllm bench serve`, SGLang 0.5.23
//! `sglang.benchmark.serving`, guidellm 0.8.1 and 0.3.1, each run against perflab-engine): the
//! JSON each saved is read, and every metric perflab maps from it matches what the same client
//! printed for the same run, to the printed precision.

use perflab::{Block, Format, parse_str};

fn sample(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/fixtures/samples/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn one(name: &str) -> Block {
    let mut blocks = parse_str(&sample(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(blocks.len(), 1, "{name}");
    blocks.remove(0)
}

/// Every metric of the printed block is in the saved JSON with the same value, rounded as printed.
fn agree(printed: &Block, saved: &Block) -> usize {
    let mut compared = 0;
    for (name, shown) in &printed.metrics {
        let Some(exact) = saved.metric(name) else { continue };
        assert!((exact - shown).abs() <= 0.005 + 1e-9 * exact.abs(), "{name}: printed {shown}, saved {exact}");
        compared += 1;
    }
    compared
}

#[test]
fn vllm_json_matches_its_printed_block() {
    for run in ["vllm-0.33.0-completions-smoke", "vllm-0.33.0-chat-smoke"] {
        let printed = one(&format!("{run}.log"));
        let saved = one(&format!("{run}.json"));
        assert_eq!((printed.format, saved.format), (Format::Vllm, Format::VllmJson));
        assert!(agree(&printed, &saved) >= 15, "{run}");
        assert_eq!(saved.metric("completed"), Some(20.0));
        // Numbers are kept as the client wrote them.
        let text = sample(&format!("{run}.json"));
        let duration = saved.raw.get("duration").unwrap();
        assert!(text.contains(&format!("\"duration\": {duration}")), "{duration}");
    }
}

#[test]
fn sglang_jsonl_with_an_infinite_rate_is_read_and_matches_its_block() {
    for run in ["sglang-0.5.23-completions-smoke", "sglang-0.5.23-rate50"] {
        let printed = one(&format!("{run}.log"));
        let saved = one(&format!("{run}.jsonl"));
        assert_eq!((printed.format, saved.format), (Format::Sglang, Format::SglangJsonl));
        assert!(agree(&printed, &saved) >= 15, "{run}");
    }
    let saved = one("sglang-0.5.23-completions-smoke.jsonl");
    assert_eq!(saved.raw.get("request_rate"), Some("Infinity"));
    assert_eq!(saved.metric("request_rate"), None, "an infinite rate is no number");
}

/// A figure as a client printed it: metric, value, decimals printed.
type Printed = (&'static str, f64, i32);

/// guidellm's console tables, transcribed from the logs beside the JSON.
#[test]
fn guidellm_numbers_mean_what_vllm_means_by_them() {
    let cases: [(&str, &[Printed]); 2] = [
        (
            "guidellm-0.8.1-completions-smoke.benchmarks.json",
            &[
                ("concurrency", 6.6, 1),
                ("request_throughput", 4.7, 1),
                ("input_throughput", 583.1, 1),
                ("output_throughput", 298.5, 1),
                ("total_token_throughput", 881.6, 1),
                ("mean_ttft_ms", 49.1, 1),
                ("median_ttft_ms", 47.2, 1),
                // guidellm's "ITL" column is each request's (latency − TTFT) ÷ (tokens − 1): TPOT.
                ("mean_tpot_ms", 21.7, 1),
                ("median_tpot_ms", 21.7, 1),
                ("p95_tpot_ms", 21.9, 1),
                ("mean_e2el_ms", 1400.0, -2),
            ],
        ),
        (
            "guidellm-0.3.1-smoke.benchmarks.json",
            &[
                ("request_throughput", 4.49, 2),
                ("concurrency", 6.66, 2),
                ("output_throughput", 287.2, 1),
                ("total_token_throughput", 689.6, 1),
                ("mean_e2el_ms", 1480.0, -1),
                ("median_e2el_ms", 1450.0, -1),
                ("p99_e2el_ms", 1590.0, -1),
                ("mean_ttft_ms", 106.4, 1),
                ("median_ttft_ms", 71.6, 1),
                ("p99_ttft_ms", 210.7, 1),
                ("mean_tpot_ms", 21.8, 1),
                ("median_tpot_ms", 21.8, 1),
                ("p99_tpot_ms", 22.0, 1),
            ],
        ),
    ];
    for (file, printed) in cases {
        let b = one(file);
        assert_eq!(b.format, Format::GuidellmJson);
        for (metric, shown, decimals) in printed {
            let exact = b.metric(metric).unwrap_or_else(|| panic!("{file}: no {metric}"));
            let half = 0.5 * 10f64.powi(-decimals) + 1e-9;
            assert!((exact - shown).abs() <= half, "{file}: {metric} printed {shown}, read {exact}");
        }
        // Numbers with no vLLM equivalent are not given a vLLM name.
        for absent in ["mean_itl_ms", "max_output_tokens_per_s", "max_concurrent_requests"] {
            assert_eq!(b.metric(absent), None, "{file}: {absent}");
        }
        assert!(b.raw.get("time_per_output_token_ms.mean").is_some(), "{file}: kept in raw");
    }
    // guidellm 0.8's "TPOT" is the whole latency over the output tokens, TTFT included.
    let b = one("guidellm-0.8.1-completions-smoke.benchmarks.json");
    let tpot: f64 = b.raw.get("time_per_output_token_ms.mean").unwrap().parse().unwrap();
    let latency_per_token = b.metric("mean_e2el_ms").unwrap() / 64.0;
    assert!((tpot - latency_per_token).abs() < 0.05, "{tpot} vs {latency_per_token}");
}

/// guidellm 0.8's goodput fields: `request_goodput` (conforming requests over the duration, a
/// distribution like `requests_per_second`) is vLLM's `request_goodput`; the share of requests
/// that met the objectives stays raw. The real sample ran without objectives (nulls, read as
/// nothing); the same file with the fields guidellm writes when objectives are set (values put
/// in here, in guidellm's layout) is read with their meaning.
#[test]
fn guidellm_goodput_is_read_with_its_meaning() {
    let name = "guidellm-0.8.1-completions-smoke.benchmarks.json";
    let b = one(name);
    assert_eq!(b.metric("request_goodput"), None);
    assert_eq!(b.raw.get("slo_attainment"), None);

    let mut doc: serde_json::Value = serde_json::from_str(&sample(name)).unwrap();
    let metrics = &mut doc["benchmarks"][0]["metrics"];
    let mut rate = metrics["requests_per_second"].clone();
    rate["successful"]["mean"] = serde_json::json!(3.5);
    metrics["request_goodput"] = rate;
    metrics["slo_attainment"] = serde_json::json!(0.75);
    metrics["slo_determined_requests"] = serde_json::json!(20);
    let b = parse_str(&doc.to_string()).unwrap().remove(0);
    assert_eq!(b.metric("request_goodput"), Some(3.5));
    assert_eq!(b.raw.get("slo_attainment"), Some("0.75"));
    assert_eq!(b.raw.get("slo_determined_requests"), Some("20"));
    assert_eq!(b.metric("request_throughput"), one(name).metric("request_throughput"), "unchanged");
}

/// A real `vllm bench serve --goodput ttft:2000 tpot:5 --save-result --save-detailed` (vLLM
/// 0.32's CPU build, tests/fixtures/bench/goodput-prompts.jsonl: 16 requests of 1 output token,
/// whose TPOT counts as 0, and 16 of 48): perflab's goodput over vLLM's own per-request data is
/// the goodput vLLM saved, exactly, and the one it printed, to the printed precision.
#[test]
fn goodput_over_vllms_detailed_requests_is_the_goodput_vllm_printed() {
    use perflab::parse::requests::{Limits, from_vllm_result, goodput};
    let text = sample("vllm-0.32.0-cpu-goodput.json");
    let saved: serde_json::Value = serde_json::from_str(&text).unwrap();
    let records = from_vllm_result(&text).unwrap();
    let limits = Limits { ttft_ms: Some(2000.0), tpot_ms: Some(5.0), e2el_ms: None };
    let g = goodput(&records, &limits, saved["duration"].as_f64().unwrap());
    assert_eq!((g.good, g.total), (16, 32), "the 1-token requests, and only they");
    assert_eq!(g.request_goodput, saved["request_goodput"].as_f64().unwrap());
    let printed = one("vllm-0.32.0-cpu-goodput.log");
    assert_eq!(printed.metric("request_goodput"), Some((g.request_goodput * 100.0).round() / 100.0));
    assert_eq!(one("vllm-0.32.0-cpu-goodput.json").metric("request_goodput"), Some(g.request_goodput));
    // Another SLO from the same data, without a rerun: a TPOT limit every request meets.
    let loose = Limits { tpot_ms: Some(1000.0), ..limits };
    assert_eq!(goodput(&records, &loose, 1.0).good, 32);
}
