//! From request outcomes to the `Serving Benchmark Result` block (vLLM's current layout) and
//! vLLM-compatible result JSON.

use super::client::Outcome;
use super::tokenizer::TokenCount;
use crate::parse::requests::{self, Limits, RequestRecord};
use std::collections::BTreeMap;

/// Linear-interpolated percentile `p` (0–100) of sorted values, as numpy computes it; 0 when empty.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = p / 100.0 * (sorted.len() - 1) as f64;
    let (lo, hi) = (rank.floor() as usize, rank.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo as f64)
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() { 0.0 } else { v.iter().sum::<f64>() / v.len() as f64 }
}

fn std_dev(v: &[f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let m = mean(v);
    (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / v.len() as f64).sqrt()
}

/// The settings a report shows.
#[derive(Debug, Clone)]
pub struct Settings {
    pub max_concurrency: Option<usize>,
    /// `None` for "inf".
    pub request_rate: Option<f64>,
    pub percentiles: Vec<f64>,
    /// Metrics with a latency section: ttft, tpot, itl, e2el.
    pub metrics: Vec<String>,
    /// The `--goodput` limits, if any.
    pub slo: Option<Limits>,
}

/// A finished (or interrupted) benchmark.
#[derive(Debug, Clone)]
pub struct Report {
    /// Canonical metrics, as in vLLM's result JSON.
    pub values: BTreeMap<String, f64>,
    pub settings: Settings,
    /// The first errors, grouped: (message, count).
    pub errors: Vec<(String, usize)>,
    pub complete: bool,
    /// How input and output tokens were counted: the least exact way any successful request's
    /// count was obtained.
    pub counted: (TokenCount, TokenCount),
}

/// Computes every metric from the outcomes. `duration` is the benchmark's wall time in seconds.
pub fn build(outcomes: &[Outcome], duration: f64, settings: Settings, complete: bool) -> Report {
    let ok: Vec<&Outcome> = outcomes.iter().filter(|o| o.success).collect();
    let failed = outcomes.len() - ok.len();
    let mut values = BTreeMap::new();
    let duration = duration.max(1e-9);
    let input: u64 = ok.iter().map(|o| o.input_tokens).sum();
    let output: u64 = ok.iter().map(|o| o.output_tokens).sum();
    values.insert("completed".to_string(), ok.len() as f64);
    values.insert("failed".to_string(), failed as f64);
    values.insert("duration".to_string(), duration);
    values.insert("total_input_tokens".to_string(), input as f64);
    values.insert("total_output_tokens".to_string(), output as f64);
    values.insert("request_throughput".to_string(), ok.len() as f64 / duration);
    values.insert("output_throughput".to_string(), output as f64 / duration);
    values.insert("total_token_throughput".to_string(), (input + output) as f64 / duration);
    if let Some(c) = settings.max_concurrency {
        values.insert("max_concurrency".to_string(), c as f64);
    }
    if let Some(r) = settings.request_rate {
        values.insert("request_rate".to_string(), r);
    }

    let (tokens, concurrent) = peaks(&ok);
    values.insert("max_output_tokens_per_s".to_string(), tokens);
    values.insert("max_concurrent_requests".to_string(), concurrent);
    let buffered = ok.iter().filter(|o| o.buffered()).count();
    if buffered > 0 {
        values.insert("buffered_streams".to_string(), buffered as f64);
    }

    let records: Vec<RequestRecord> = ok.iter().map(|o| o.record()).collect();
    let mut series: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    series.insert("ttft", records.iter().filter_map(|r| r.ttft_ms).collect());
    series.insert("tpot", records.iter().filter_map(|r| r.tpot_ms).collect());
    series.insert("itl", records.iter().flat_map(|r| r.itl_ms.iter().copied()).collect());
    series.insert("e2el", records.iter().filter_map(|r| r.e2el_ms).collect());
    for (metric, list) in &mut series {
        list.sort_by(f64::total_cmp);
        values.insert(format!("mean_{metric}_ms"), mean(list));
        values.insert(format!("median_{metric}_ms"), percentile(list, 50.0));
        values.insert(format!("std_{metric}_ms"), std_dev(list));
        for p in &settings.percentiles {
            values.insert(format!("p{}_{metric}_ms", p_word(*p)), percentile(list, *p));
        }
    }
    if let Some(limits) = &settings.slo {
        // Failed requests are never good, so the successful ones are all that is counted.
        values.insert("request_goodput".to_string(), requests::goodput(&records, limits, duration).request_goodput);
    }
    let mut grouped: Vec<(String, usize)> = Vec::new();
    for e in outcomes.iter().filter_map(|o| o.error.as_ref()) {
        match grouped.iter_mut().find(|(m, _)| m == e) {
            Some((_, n)) => *n += 1,
            None => grouped.push((e.clone(), 1)),
        }
    }
    let least = |f: fn(&Outcome) -> TokenCount| ok.iter().map(|o| f(o)).max().unwrap_or(TokenCount::Server);
    let counted = (least(|o| o.input_counted), least(|o| o.output_counted));
    Report { values, settings, errors: grouped, complete, counted }
}

/// Peak output throughput and peak concurrency as vLLM's client computes them: time is cut into
/// one-second buckets from the first successful request's start; the first is the most output
/// tokens that arrived within one bucket, the second the most successful requests active during
/// one bucket (a request counts in every bucket from the one it started in to the one it ended in,
/// so at a steady concurrency of N it can read up to 2N).
fn peaks(ok: &[&Outcome]) -> (f64, f64) {
    let Some(first) = ok.iter().map(|o| o.start).min_by(f64::total_cmp) else {
        return (0.0, 0.0);
    };
    let last = ok.iter().map(|o| o.end).fold(first, f64::max);
    let buckets = (last - first).ceil() as usize + 1;
    let bucket = |t: f64| ((t - first).max(0.0) as usize).min(buckets - 1);
    let mut tokens = vec![0.0; buckets];
    let mut active = vec![0u64; buckets];
    for o in ok {
        let weight = o.tokens_per_chunk();
        for t in &o.token_times {
            tokens[bucket(*t)] += weight;
        }
        for a in &mut active[bucket(o.start)..=bucket(o.end)] {
            *a += 1;
        }
    }
    (tokens.iter().copied().fold(0.0, f64::max), active.iter().copied().max().unwrap_or(0) as f64)
}

/// `99` for 99.0, `99.9` for 99.9.
fn p_word(p: f64) -> String {
    if p.fract() == 0.0 { format!("{}", p as i64) } else { format!("{p}") }
}

impl Report {
    fn get(&self, key: &str) -> f64 {
        self.values.get(key).copied().unwrap_or(0.0)
    }

    /// The `Serving Benchmark Result` block. An interrupted run has no closing line, which
    /// `perflab parse` reads as incomplete.
    pub fn block(&self) -> String {
        let mut out = String::new();
        let line = |out: &mut String, label: &str, value: String| out.push_str(&format!("{label:<40} {value:<10}\n"));
        let int = |x: f64| format!("{}", x as u64);
        let two = |x: f64| format!("{x:.2}");
        out.push_str(&format!("{:=^50}\n", " Serving Benchmark Result "));
        line(&mut out, "Successful requests:", int(self.get("completed")));
        line(&mut out, "Failed requests:", int(self.get("failed")));
        if let Some(c) = self.settings.max_concurrency {
            line(&mut out, "Maximum request concurrency:", c.to_string());
        }
        if let Some(r) = self.settings.request_rate {
            line(&mut out, "Request rate configured (RPS):", two(r));
        }
        line(&mut out, "Benchmark duration (s):", two(self.get("duration")));
        line(&mut out, "Total input tokens:", int(self.get("total_input_tokens")));
        line(&mut out, "Total generated tokens:", int(self.get("total_output_tokens")));
        line(&mut out, "Input tokens counted by:", self.counted.0.as_str().to_string());
        line(&mut out, "Output tokens counted by:", self.counted.1.as_str().to_string());
        line(&mut out, "Request throughput (req/s):", two(self.get("request_throughput")));
        if self.settings.slo.is_some() {
            line(&mut out, "Request goodput (req/s):", two(self.get("request_goodput")));
        }
        line(&mut out, "Output token throughput (tok/s):", two(self.get("output_throughput")));
        line(&mut out, "Peak output token throughput (tok/s):", two(self.get("max_output_tokens_per_s")));
        line(&mut out, "Peak concurrent requests:", two(self.get("max_concurrent_requests")));
        if self.get("buffered_streams") > 0.0 {
            line(&mut out, "Buffered streams:", int(self.get("buffered_streams")));
        }
        line(&mut out, "Total token throughput (tok/s):", two(self.get("total_token_throughput")));
        for (metric, title, name) in [
            ("ttft", "Time to First Token", "TTFT"),
            ("tpot", "Time per Output Token (excl. 1st token)", "TPOT"),
            ("itl", "Inter-token Latency", "ITL"),
            ("e2el", "End-to-end Latency", "E2EL"),
        ] {
            if !self.settings.metrics.iter().any(|m| m == metric) {
                continue;
            }
            out.push_str(&format!("{:-^50}\n", title));
            line(&mut out, &format!("Mean {name} (ms):"), two(self.get(&format!("mean_{metric}_ms"))));
            line(&mut out, &format!("Median {name} (ms):"), two(self.get(&format!("median_{metric}_ms"))));
            for p in &self.settings.percentiles {
                let w = p_word(*p);
                line(&mut out, &format!("P{w} {name} (ms):"), two(self.get(&format!("p{w}_{metric}_ms"))));
            }
        }
        if self.complete {
            out.push_str(&format!("{}\n", "=".repeat(50)));
        }
        out
    }

    /// vLLM's `--save-result` JSON.
    pub fn json(&self, model: &str, backend: &str, num_prompts: usize, outcomes: &[Outcome]) -> serde_json::Value {
        let mut v = serde_json::Map::new();
        v.insert("backend".into(), backend.into());
        v.insert("model_id".into(), model.into());
        v.insert("num_prompts".into(), num_prompts.into());
        v.insert(
            "request_rate".into(),
            self.settings.request_rate.map_or(serde_json::json!("inf"), |r| serde_json::json!(r)),
        );
        v.insert("max_concurrency".into(), serde_json::json!(self.settings.max_concurrency));
        for (k, x) in &self.values {
            if k == "request_rate" || k == "max_concurrency" {
                continue;
            }
            let integer = ["completed", "failed", "total_input_tokens", "total_output_tokens"].contains(&k.as_str());
            v.insert(k.clone(), if integer { serde_json::json!(*x as u64) } else { serde_json::json!(x) });
        }
        v.insert("complete".into(), self.complete.into());
        v.insert("input_tokens_counted_by".into(), self.counted.0.as_str().into());
        v.insert("output_tokens_counted_by".into(), self.counted.1.as_str().into());
        v.insert("input_lens".into(), outcomes.iter().map(|o| o.input_tokens).collect::<Vec<_>>().into());
        v.insert("output_lens".into(), outcomes.iter().map(|o| o.output_tokens).collect::<Vec<_>>().into());
        v.insert("ttfts".into(), outcomes.iter().map(|o| o.ttft).collect::<Vec<_>>().into());
        v.insert(
            "errors".into(),
            outcomes.iter().map(|o| o.error.clone().unwrap_or_default()).collect::<Vec<_>>().into(),
        );
        serde_json::Value::Object(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_interpolate_like_numpy() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile(&v, 50.0), 2.5);
        assert!((percentile(&v, 99.0) - 3.97).abs() < 1e-12);
        assert_eq!(percentile(&[], 99.0), 0.0);
        assert_eq!(p_word(99.9), "99.9");
        assert_eq!(p_word(99.0), "99");
    }

    #[test]
    fn block_parses_back_with_the_same_numbers() {
        let outcomes: Vec<Outcome> = (0..4)
            .map(|i| Outcome {
                success: i != 3,
                error: (i == 3).then(|| "HTTP 500: boom".to_string()),
                start: 0.1 * i as f64,
                end: 1.0 + 0.1 * i as f64,
                ttft: 0.1,
                itls: vec![0.3; 3],
                input_tokens: 10,
                output_tokens: 4,
                token_times: vec![0.2, 0.5, 0.8, 1.1],
                ..Outcome::default()
            })
            .collect();
        let settings = Settings {
            max_concurrency: Some(8),
            request_rate: None,
            percentiles: vec![99.0],
            metrics: ["ttft", "tpot", "itl", "e2el"].map(String::from).to_vec(),
            slo: Some(Limits { ttft_ms: Some(50.0), ..Limits::default() }),
        };
        let report = build(&outcomes, 2.0, settings, true);
        let blocks = crate::parse_str(&report.block()).unwrap();
        let b = &blocks[0];
        assert!(b.complete);
        assert_eq!(b.format, crate::Format::Vllm);
        assert_eq!(b.metric("completed"), Some(3.0));
        assert_eq!(b.metric("failed"), Some(1.0));
        assert_eq!(b.metric("total_token_throughput"), Some(21.0));
        assert_eq!(b.metric("mean_tpot_ms"), Some(300.0));
        assert_eq!(b.metric("request_goodput"), Some(0.0));
        assert_eq!(b.metric("max_concurrent_requests"), Some(3.0), "successful requests active in one second");
        assert_eq!(report.errors, vec![("HTTP 500: boom".to_string(), 1)]);
        let cut = build(&outcomes, 2.0, report.settings.clone(), false);
        assert!(!crate::parse_str(&cut.block()).unwrap()[0].complete);
    }
}
