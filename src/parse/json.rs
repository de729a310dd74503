//! JSON results: vLLM `--save-result` (one object) and `--append-result` (JSON lines), SGLang
//! `--output-file` (JSON lines) and guidellm `benchmarks.json`.

use super::{Block, Format, ParseError, Raw, names};
use serde_json::Value;
use serde_json::value::RawValue;

fn json_error(e: &serde_json::Error, line_offset: usize) -> ParseError {
    ParseError::new(e.line() + line_offset, e.column(), format!("invalid JSON: {e}"))
}

/// 1-based line of byte `offset` in `text`.
fn line_at(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

/// Every result of `text`. In JSON lines, a line that does not parse (one cut off by a stopped
/// run) is an error of its own and the other lines are kept.
pub(super) fn parse(text: &str) -> Vec<Result<Block, ParseError>> {
    match serde_json::from_str::<Value>(text) {
        Ok(doc) => {
            if doc.get("benchmarks").is_some() {
                return guidellm(text);
            }
            vec![result_object(&doc, 1)]
        }
        // More than one value: JSON lines, one result a line.
        Err(e) if e.is_syntax() && first_line_is_json(text) => text
            .lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty())
            .map(|(i, line)| {
                let doc: Value = serde_json::from_str(line).map_err(|e| json_error(&e, i))?;
                result_object(&doc, i + 1)
            })
            .collect(),
        Err(e) => vec![Err(json_error(&e, 0))],
    }
}

/// JSON lines: the first non-empty line is a whole JSON value on its own.
fn first_line_is_json(text: &str) -> bool {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    first.len() < text.trim_end().len() && serde_json::from_str::<Value>(first).is_ok()
}

/// Text of a JSON value for `raw`: strings as they are, long arrays summarised.
fn raw_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) if a.len() > 8 => format!("[{} values]", a.len()),
        other => other.to_string(),
    }
}

/// One vLLM or SGLang result object.
fn result_object(doc: &Value, line: usize) -> Result<Block, ParseError> {
    let Some(obj) = doc.as_object() else {
        return Err(ParseError::new(line, 1, "expected a JSON object holding a benchmark result"));
    };
    let sglang = ["total_throughput", "dataset_name", "random_input_len", "mean_e2e_latency_ms"]
        .iter()
        .any(|k| obj.contains_key(*k));
    let format = if sglang { Format::SglangJsonl } else { Format::VllmJson };
    let mut block = Block::new(line, format);
    block.complete = true;
    for (key, value) in obj {
        if let (Some(name), Some(x)) = (names::json_key(key), value.as_f64())
            && x.is_finite()
        {
            block.metrics.insert(name, x);
        }
        block.raw.push(key.clone(), raw_text(value));
    }
    if !block.metrics.contains_key("completed") && !block.metrics.contains_key(names::TOTAL_TOKEN_THROUGHPUT) {
        return Err(ParseError::new(
            line,
            1,
            "JSON object is not a benchmark result (no `completed` and no throughput key)",
        ));
    }
    Ok(block)
}

#[derive(serde::Deserialize)]
struct GuidellmDoc<'a> {
    #[serde(borrow)]
    benchmarks: Vec<&'a RawValue>,
}

fn guidellm(text: &str) -> Vec<Result<Block, ParseError>> {
    let doc: GuidellmDoc = match serde_json::from_str(text) {
        Ok(doc) => doc,
        Err(e) => return vec![Err(json_error(&e, 0))],
    };
    doc.benchmarks
        .into_iter()
        .map(|raw| {
            let offset = raw.get().as_ptr() as usize - text.as_ptr() as usize;
            let line = line_at(text, offset);
            let bench: Value = serde_json::from_str(raw.get()).map_err(|e| json_error(&e, line - 1))?;
            guidellm_benchmark(&bench, line)
        })
        .collect()
}

/// guidellm distribution `metrics.<name>.successful`.
fn dist<'a>(metrics: &'a Value, name: &str) -> Option<&'a Value> {
    metrics.get(name)?.get("successful")
}

fn guidellm_benchmark(bench: &Value, line: usize) -> Result<Block, ParseError> {
    let Some(metrics) = bench.get("metrics") else {
        return Err(ParseError::new(line, 1, "guidellm benchmark has no `metrics`"));
    };
    let mut block = Block::new(line, Format::GuidellmJson);
    let mut put = |name: String, value: Option<f64>, raw: &mut Raw| {
        if let Some(x) = value.filter(|x| x.is_finite()) {
            raw.push(name.clone(), x.to_string());
            block.metrics.insert(name, x);
        }
    };
    let mut raw = Raw::default();
    let totals = bench.get("request_totals").or_else(|| metrics.get("request_totals"));
    if let Some(t) = totals {
        put("completed".into(), t.get("successful").and_then(Value::as_f64), &mut raw);
        put("failed".into(), t.get("errored").and_then(Value::as_f64), &mut raw);
        put("num_prompts".into(), t.get("total").and_then(Value::as_f64), &mut raw);
        if let Some(n) = t.get("incomplete") {
            raw.push("incomplete".into(), raw_text(n));
        }
    }
    let duration = bench
        .get("duration")
        .and_then(Value::as_f64)
        .or_else(|| Some(bench.get("end_time")?.as_f64()? - bench.get("start_time")?.as_f64()?));
    put("duration".into(), duration, &mut raw);
    let field = |name: &str, stat: &str| dist(metrics, name).and_then(|d| d.get(stat)).and_then(Value::as_f64);
    put("request_throughput".into(), field("requests_per_second", "mean"), &mut raw);
    put("output_throughput".into(), field("output_tokens_per_second", "mean"), &mut raw);
    put("max_output_tokens_per_s".into(), field("output_tokens_per_second", "max"), &mut raw);
    put("total_token_throughput".into(), field("tokens_per_second", "mean"), &mut raw);
    put("concurrency".into(), field("request_concurrency", "mean"), &mut raw);
    put("max_concurrent_requests".into(), field("request_concurrency", "max"), &mut raw);
    put("total_input_tokens".into(), field("prompt_token_count", "total_sum"), &mut raw);
    put("total_output_tokens".into(), field("output_token_count", "total_sum"), &mut raw);
    for (source, metric, scale) in [
        ("request_latency", "e2el", 1000.0),
        ("time_to_first_token_ms", "ttft", 1.0),
        ("time_per_output_token_ms", "tpot", 1.0),
        ("inter_token_latency_ms", "itl", 1.0),
    ] {
        let Some(d) = dist(metrics, source) else {
            continue;
        };
        for stat in ["mean", "median", "std_dev", "max", "min"] {
            let short = if stat == "std_dev" { "std" } else { stat };
            put(format!("{short}_{metric}_ms"), d.get(stat).and_then(Value::as_f64).map(|x| x * scale), &mut raw);
        }
        if let Some(Value::Object(ps)) = d.get("percentiles") {
            for (p, v) in ps {
                // guidellm names p99.9 `p999` and p0.1 `p001`.
                let digits = p.trim_start_matches('p');
                let p = match digits {
                    "999" => "p99.9".to_string(),
                    "001" => "p0.1".to_string(),
                    d => format!(
                        "p{}",
                        d.trim_start_matches('0').parse::<f64>().map_or(d.to_string(), |x| x.to_string())
                    ),
                };
                put(format!("{p}_{metric}_ms"), v.as_f64().map(|x| x * scale), &mut raw);
            }
        }
    }
    block.raw = raw;
    // guidellm writes the file when a benchmark ends; a run that was stopped early says so.
    let errored_out = bench
        .get("run_stats")
        .and_then(|r| r.get("status"))
        .and_then(Value::as_str)
        .is_some_and(|s| s != "success" && s != "completed");
    block.complete = !errored_out && block.metrics.contains_key(names::TOTAL_TOKEN_THROUGHPUT);
    Ok(block)
}
