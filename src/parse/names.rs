//! The canonical metric names and the map from printed labels to them.
//!
//! Canonical names are vLLM's JSON keys (see `reference/benchmark-formats.md`): snake_case,
//! latencies in milliseconds, durations in seconds, throughputs per second.

/// The metric a page ranks by unless a study says otherwise: total tokens per second.
pub const TOTAL_TOKEN_THROUGHPUT: &str = "total_token_throughput";
/// The metric shown beside it unless a study says otherwise: mean time per output token (ms).
pub const MEAN_TPOT_MS: &str = "mean_tpot_ms";

/// Scalar metrics that keep the same name in every format (JSON keys of vLLM's `--save-result`).
pub const SCALAR_METRICS: &[&str] = &[
    "completed",
    "failed",
    "num_prompts",
    "max_concurrency",
    "request_rate",
    "burstiness",
    "duration",
    "total_input_tokens",
    "total_output_tokens",
    "total_output_tokens_retokenized",
    "request_throughput",
    "request_goodput",
    "input_throughput",
    "output_throughput",
    "max_output_tokens_per_s",
    "max_concurrent_requests",
    "buffered_streams",
    "total_token_throughput",
    "user_throughput",
    "concurrency",
    "accept_length",
];

/// Splits `p99_ttft_ms` into (`p99`, `ttft`); `None` when it is not a latency statistic. With
/// [`SCALAR_METRICS`], this says which names are canonical ([`crate::metric::Metric::lookup`]).
pub fn latency_stat_parts(name: &str) -> Option<(&str, &str)> {
    let body = name.strip_suffix("_ms")?;
    let (stat, metric) = body.split_once('_')?;
    let stat_ok = matches!(stat, "mean" | "median" | "std" | "max" | "min")
        || stat.strip_prefix('p').is_some_and(|p| !p.is_empty() && p.parse::<f64>().is_ok());
    let metric_ok = matches!(metric, "ttft" | "tpot" | "itl" | "e2el");
    (stat_ok && metric_ok).then_some((stat, metric))
}

/// Whether latency lines under the dashed header `section` repeat the standard labels with
/// another meaning (`Queue-inclusive End-to-end Latency`, `Probe Requests`): those stay raw.
pub fn section_renames_latencies(section: &str) -> bool {
    let lower = section.to_ascii_lowercase();
    lower.contains("queue") || lower.contains("probe")
}

/// The canonical name and the factor that turns the printed unit into the canonical one, for a
/// label printed inside a text block. `plain_section` is false under a section for which
/// [`section_renames_latencies`] holds. `None` means the line is kept in `raw` only.
pub fn text_label(label: &str, plain_section: bool) -> Option<(String, f64)> {
    let scalar = match label {
        "Successful requests" => "completed",
        "Failed requests" | "Total failed requests" => "failed",
        "Total requests" => "num_prompts",
        "Maximum request concurrency" | "Max request concurrency" | "Max reqeuest concurrency" => "max_concurrency",
        "Request rate configured (RPS)" | "Traffic request rate" => "request_rate",
        "Burstiness factor" => "burstiness",
        "Benchmark duration (s)" => "duration",
        "Total input tokens" => "total_input_tokens",
        "Total generated tokens" => "total_output_tokens",
        "Total generated tokens (retokenized)" => "total_output_tokens_retokenized",
        "Request throughput (req/s)" => "request_throughput",
        "Request goodput (req/s)" => "request_goodput",
        "Input token throughput (tok/s)" => "input_throughput",
        "Output token throughput (tok/s)" => "output_throughput",
        "Peak output token throughput (tok/s)" => "max_output_tokens_per_s",
        "Peak concurrent requests" => "max_concurrent_requests",
        "Buffered streams" => "buffered_streams",
        "Total Token throughput (tok/s)" | "Total token throughput (tok/s)" | "Total throughput (tok/s)" => {
            "total_token_throughput"
        }
        "User throughput (tok/s)" => "user_throughput",
        "Concurrency" => "concurrency",
        "Accept length" => "accept_length",
        _ if plain_section => return latency_label(label),
        _ => return None,
    };
    Some((scalar.to_string(), 1.0))
}

/// `Mean TTFT (ms)`, `P99.9 ITL (ms)`, `Median E2E Latency (ms)`, `P95 Latency(s)` and the like.
fn latency_label(label: &str) -> Option<(String, f64)> {
    let (stat, rest) = label.split_once(' ')?;
    // The statistic's name, then the percentile's digits.
    let (stat, digits) = match stat {
        "Mean" => ("mean", ""),
        "Median" => ("median", ""),
        "Std" => ("std", ""),
        "Max" => ("max", ""),
        "Min" => ("min", ""),
        p if p.starts_with('P') && p[1..].parse::<f64>().is_ok() => ("p", &p[1..]),
        _ => return None,
    };
    let open = rest.rfind('(')?;
    let unit = rest[open..].strip_prefix('(')?.strip_suffix(')')?;
    let scale = match unit {
        "ms" => 1.0,
        "s" => 1000.0,
        _ => return None,
    };
    let metric = match rest[..open].trim() {
        "TTFT" => "ttft",
        "TPOT" => "tpot",
        "ITL" => "itl",
        "E2EL" | "E2E Latency" | "Latency" => "e2el",
        _ => return None,
    };
    let mut name = String::with_capacity(stat.len() + digits.len() + metric.len() + 4);
    for part in [stat, digits, "_", metric, "_ms"] {
        name.push_str(part);
    }
    Some((name, scale))
}

/// The canonical name of a key of vLLM's or SGLang's result JSON, or `None` to keep it raw only.
pub fn json_key(key: &str) -> Option<String> {
    let key = key.strip_suffix(':').unwrap_or(key);
    let renamed = match key {
        "total_throughput" => "total_token_throughput",
        "request_goodput" => "request_goodput",
        _ => key,
    };
    if SCALAR_METRICS.contains(&renamed) {
        return Some(renamed.to_string());
    }
    // SGLang writes `mean_e2e_latency_ms` where vLLM writes `mean_e2el_ms`.
    let renamed = renamed.replace("_e2e_latency_ms", "_e2el_ms");
    latency_stat_parts(&renamed).is_some().then_some(renamed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_labels_map_to_milliseconds() {
        assert_eq!(text_label("Mean TTFT (ms)", true), Some(("mean_ttft_ms".into(), 1.0)));
        assert_eq!(text_label("P99.9 ITL (ms)", true), Some(("p99.9_itl_ms".into(), 1.0)));
        assert_eq!(text_label("Mean Latency(s)", true), Some(("mean_e2el_ms".into(), 1000.0)));
        assert_eq!(text_label("Median E2E Latency (ms)", true), Some(("median_e2el_ms".into(), 1.0)));
        assert!(section_renames_latencies("Queue-inclusive End-to-end Latency"));
        assert_eq!(text_label("Mean E2EL (ms)", false), None);
        assert_eq!(text_label("Mean Client Queue Time (ms)", true), None);
    }

    #[test]
    fn throughput_spellings_agree() {
        for label in ["Total Token throughput (tok/s)", "Total token throughput (tok/s)", "Total throughput (tok/s)"] {
            assert_eq!(text_label(label, true).unwrap().0, TOTAL_TOKEN_THROUGHPUT);
        }
        assert_eq!(text_label("Max reqeuest concurrency", true).unwrap().0, "max_concurrency");
    }

    #[test]
    fn json_keys() {
        assert_eq!(json_key("request_goodput:").as_deref(), Some("request_goodput"));
        assert_eq!(json_key("p99_e2e_latency_ms").as_deref(), Some("p99_e2el_ms"));
        assert_eq!(json_key("total_throughput").as_deref(), Some("total_token_throughput"));
        assert_eq!(json_key("date"), None);
        assert!(latency_stat_parts("p99.9_ttft_ms").is_some());
        assert!(latency_stat_parts("p_ttft_ms").is_none());
    }
}
