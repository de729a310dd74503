//! JSON results: vLLM `--save-result` (one object) and `--append-result` (JSON lines), SGLang
//! `--output-file` (JSON lines) and guidellm `benchmarks.json`.

use super::{Block, Format, Metrics, ParseError, Raw, names};
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// Python's `json` module writes `Infinity`, `-Infinity` and `NaN` (SGLang's `"request_rate":
/// Infinity` at rate `inf`), which JSON does not have. Outside strings they become strings, so
/// that the rest of the document reads; their metric is then left out, their text kept in `raw`.
fn quote_non_finite(text: &str) -> Cow<'_, str> {
    if !text.contains("Infinity") && !text.contains("NaN") {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 16);
    let (mut in_string, mut escaped, mut from, mut i) = (false, false, 0, 0);
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            i += 1;
            continue;
        }
        let word = ["-Infinity", "Infinity", "NaN"].into_iter().find(|w| text[i..].starts_with(w));
        let starts_word = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        match word {
            Some(w) if starts_word => {
                out.push_str(&text[from..i]);
                out.push('"');
                out.push_str(w);
                out.push('"');
                i += w.len();
                from = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(&text[from..]);
    Cow::Owned(out)
}

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
    let text = &*quote_non_finite(text);
    match serde_json::from_str::<Value>(text) {
        Ok(doc) => {
            if doc.get("benchmarks").is_some() {
                return guidellm(text);
            }
            vec![result_object(text, &doc, 1)]
        }
        // More than one value: JSON lines, one result a line.
        Err(e) if e.is_syntax() && first_line_is_json(text) => text
            .lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty())
            .map(|(i, line)| {
                let doc: Value = serde_json::from_str(line).map_err(|e| json_error(&e, i))?;
                result_object(line, &doc, i + 1)
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

/// One vLLM or SGLang result object. `source` is its text: `raw` keeps each number as written.
fn result_object(source: &str, doc: &Value, line: usize) -> Result<Block, ParseError> {
    let Some(obj) = doc.as_object() else {
        return Err(ParseError::new(line, 1, "expected a JSON object holding a benchmark result"));
    };
    let written: BTreeMap<String, &RawValue> = serde_json::from_str(source).unwrap_or_default();
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
        let text = match (value, written.get(key)) {
            (Value::Number(_), Some(raw)) => raw.get().trim().to_string(),
            _ => raw_text(value),
        };
        block.raw.push(key, &text);
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

/// What is read of a guidellm benchmark: every number under its guidellm name, and the metrics.
#[derive(Default)]
struct Read {
    raw: Raw,
    metrics: Metrics,
}

impl Read {
    /// Records `value` under its guidellm `label`, and as metric `name` (times `scale`) if any.
    fn put(&mut self, name: Option<String>, label: String, value: Option<&Value>, scale: f64) {
        let Some(v) = value.filter(|v| v.is_number()) else { return };
        self.raw.push(&label, &v.to_string());
        if let (Some(name), Some(x)) = (name, v.as_f64().map(|x| x * scale).filter(|x| x.is_finite())) {
            self.metrics.insert(name, x);
        }
    }
}

/// guidellm distribution `metrics.<name>.successful`.
fn dist<'a>(metrics: &'a Value, name: &str) -> Option<&'a Value> {
    metrics.get(name)?.get("successful")
}

/// One guidellm benchmark. Each number is mapped to the metric that measures the same thing
/// (guidellm's names differ from vLLM's), and what has no equivalent stays in `raw` only:
/// - `inter_token_latency_ms` is each request's (latency − TTFT) ÷ (output tokens − 1): what
///   vLLM calls TPOT, so it is read as `*_tpot_ms`;
/// - `time_per_output_token_ms` divides the whole latency, TTFT included, by the output tokens
///   (0.3 leaves TTFT out but divides by all tokens): no vLLM metric; not mapped;
/// - there is no distribution of individual token gaps, so no `*_itl_ms`;
/// - `output_tokens_per_second.max` is the fastest single token, and `request_concurrency.max`
///   an instantaneous peak, unlike vLLM's one-second buckets: not mapped;
/// - the throughputs' means are totals over the benchmark's duration, as vLLM's are.
///
/// `raw` holds every number read, under its guidellm name, with its value as guidellm wrote it.
fn guidellm_benchmark(bench: &Value, line: usize) -> Result<Block, ParseError> {
    let Some(metrics) = bench.get("metrics") else {
        return Err(ParseError::new(line, 1, "guidellm benchmark has no `metrics`"));
    };
    let mut out = Read::default();
    let totals = bench.get("request_totals").or_else(|| metrics.get("request_totals"));
    if let Some(t) = totals {
        for (name, key) in [("completed", "successful"), ("failed", "errored"), ("num_prompts", "total")] {
            out.put(Some(name.into()), format!("request_totals.{key}"), t.get(key), 1.0);
        }
        out.put(None, "request_totals.incomplete".into(), t.get("incomplete"), 1.0);
    }
    let duration = bench.get("duration").filter(|d| d.is_number()).cloned().or_else(|| {
        let d = bench.get("end_time")?.as_f64()? - bench.get("start_time")?.as_f64()?;
        serde_json::Number::from_f64(d).map(Value::Number)
    });
    out.put(Some("duration".into()), "duration".into(), duration.as_ref(), 1.0);
    let stat = |out: &mut Read, name: Option<&str>, source: &str, key: &str, scale: f64| {
        let value = dist(metrics, source).and_then(|d| d.get(key));
        out.put(name.map(str::to_string), format!("{source}.{key}"), value, scale);
    };
    stat(&mut out, Some("request_throughput"), "requests_per_second", "mean", 1.0);
    stat(&mut out, Some("input_throughput"), "prompt_tokens_per_second", "mean", 1.0);
    stat(&mut out, Some("output_throughput"), "output_tokens_per_second", "mean", 1.0);
    stat(&mut out, None, "output_tokens_per_second", "max", 1.0);
    stat(&mut out, Some("total_token_throughput"), "tokens_per_second", "mean", 1.0);
    stat(&mut out, Some("concurrency"), "request_concurrency", "mean", 1.0);
    stat(&mut out, None, "request_concurrency", "max", 1.0);
    // Goodput (guidellm 0.8 with `slo` objectives): conforming requests over the benchmark's
    // duration, as vLLM's `request_goodput`. The share of requests that met the objectives has
    // no vLLM name; it and the count it is a share of stay in `raw`.
    stat(&mut out, Some("request_goodput"), "request_goodput", "mean", 1.0);
    stat(&mut out, None, "output_token_goodput", "mean", 1.0);
    if metrics.get("slo_attainment").is_some_and(Value::is_number) {
        out.put(None, "slo_attainment".into(), metrics.get("slo_attainment"), 1.0);
        out.put(None, "slo_determined_requests".into(), metrics.get("slo_determined_requests"), 1.0);
    }
    stat(&mut out, Some("total_input_tokens"), "prompt_token_count", "total_sum", 1.0);
    stat(&mut out, Some("total_output_tokens"), "output_token_count", "total_sum", 1.0);
    for (source, metric, scale) in [
        ("request_latency", Some("e2el"), 1000.0),
        ("time_to_first_token_ms", Some("ttft"), 1.0),
        ("inter_token_latency_ms", Some("tpot"), 1.0),
        ("time_per_output_token_ms", None, 1.0),
    ] {
        let Some(d) = dist(metrics, source) else {
            continue;
        };
        let name = |short: &str| metric.map(|m| format!("{short}_{m}_ms"));
        for key in ["mean", "median", "std_dev", "max", "min"] {
            let short = if key == "std_dev" { "std" } else { key };
            stat(&mut out, name(short).as_deref(), source, key, scale);
        }
        if let Some(Value::Object(ps)) = d.get("percentiles") {
            for (p, v) in ps {
                out.put(name(&percentile_name(p)), format!("{source}.percentiles.{p}"), Some(v), scale);
            }
        }
    }
    let mut block = Block::new(line, Format::GuidellmJson);
    block.raw = out.raw;
    block.metrics = out.metrics;
    // guidellm writes the file when a benchmark ends; a run that was stopped early says so.
    let errored_out = bench
        .get("run_stats")
        .and_then(|r| r.get("status"))
        .and_then(Value::as_str)
        .is_some_and(|s| s != "success" && s != "completed");
    block.complete = !errored_out && block.metrics.contains_key(names::TOTAL_TOKEN_THROUGHPUT);
    Ok(block)
}

/// A guidellm percentile key as perflab names it: `p50` → `p50`, `p05` → `p5`; guidellm names
/// p99.9 `p999` and p0.1 `p001`.
fn percentile_name(key: &str) -> String {
    match key.trim_start_matches('p') {
        "999" => "p99.9".to_string(),
        "001" => "p0.1".to_string(),
        d => format!("p{}", d.trim_start_matches('0').parse::<f64>().map_or(d.to_string(), |x| x.to_string())),
    }
}
