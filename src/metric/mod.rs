//! What a metric is: its canonical key, its unit, which way is better and how it is shown.
//!
//! Every place that ranks, compares or prints a metric (the analysis, the charts, the pages)
//! asks a [`Metric`]; nothing is inferred from the spelling of a key. Canonical keys are the
//! ones [`crate::parse::names`] produces. A metric that is not listed here is still shown (as a
//! plain number) but cannot be an objective, since nobody said which way is better.

pub mod expr;

use crate::parse::names;
use serde::Serialize;

/// The unit a metric's canonical value is in. A derived metric in `study.toml` names it as
/// `tok/s`, `req/s`, `ms`, `s`, `requests`, `tokens` or `number`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Unit {
    /// Tokens a second.
    #[serde(rename(deserialize = "tok/s"))]
    TokensPerSecond,
    /// Requests a second.
    #[serde(rename(deserialize = "req/s"))]
    RequestsPerSecond,
    /// Milliseconds.
    #[serde(rename(deserialize = "ms"))]
    Milliseconds,
    /// Seconds.
    #[serde(rename(deserialize = "s"))]
    Seconds,
    /// A number of requests.
    Requests,
    /// A number of tokens.
    Tokens,
    /// A plain number (a ratio, a factor).
    Number,
}

impl Unit {
    /// The catalog message that shows a value in this unit (`$value` is the formatted number),
    /// or `None` when the number is shown alone.
    pub fn message(self) -> Option<&'static str> {
        match self {
            Unit::TokensPerSecond => Some("unit-tok-s"),
            Unit::RequestsPerSecond => Some("unit-req-s"),
            Unit::Milliseconds => Some("unit-ms"),
            Unit::Seconds => Some("unit-s"),
            Unit::Requests => Some("unit-requests"),
            Unit::Tokens => Some("unit-tokens"),
            Unit::Number => None,
        }
    }

    /// Whether the unit measures time spent (a latency or a duration).
    pub fn is_time(self) -> bool {
        matches!(self, Unit::Milliseconds | Unit::Seconds)
    }
}

/// Which way a metric improves (`better = "higher"` or `"lower"` in `study.toml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    #[serde(rename(deserialize = "higher"))]
    HigherIsBetter,
    #[serde(rename(deserialize = "lower"))]
    LowerIsBetter,
}

/// A canonical metric with everything needed to rank and show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metric {
    /// The canonical key, e.g. `total_token_throughput`, `p99_ttft_ms`.
    pub key: String,
    pub unit: Unit,
    /// `None` for a metric that describes the run rather than its quality (`max_concurrency`).
    pub direction: Option<Direction>,
    /// Decimals shown on pages.
    pub decimals: usize,
    /// The catalog message of its display name; `None` shows the key.
    pub name_message: Option<&'static str>,
    /// The display name a study gave a derived metric (before `name_message`).
    pub label: Option<crate::text::Text>,
}

/// A known metric, as listed in [`SCALARS`].
struct Known {
    key: &'static str,
    unit: Unit,
    direction: Option<Direction>,
    decimals: usize,
    name_message: Option<&'static str>,
}

const fn known(
    key: &'static str,
    unit: Unit,
    direction: Option<Direction>,
    decimals: usize,
    name_message: Option<&'static str>,
) -> Known {
    Known { key, unit, direction, decimals, name_message }
}

/// The scalar metrics: key, unit, direction, decimals shown, catalog message of the name.
const SCALARS: &[Known] = {
    use Direction::*;
    use Unit::*;
    &[
        known("total_token_throughput", TokensPerSecond, Some(HigherIsBetter), 2, Some("metric-total-tps")),
        known("output_throughput", TokensPerSecond, Some(HigherIsBetter), 2, Some("metric-output-tps")),
        known("input_throughput", TokensPerSecond, Some(HigherIsBetter), 2, None),
        known("user_throughput", TokensPerSecond, Some(HigherIsBetter), 2, None),
        known("max_output_tokens_per_s", TokensPerSecond, Some(HigherIsBetter), 2, None),
        known("request_throughput", RequestsPerSecond, Some(HigherIsBetter), 2, Some("metric-request-throughput")),
        known("request_goodput", RequestsPerSecond, Some(HigherIsBetter), 2, None),
        // The largest load of a curve that met its SLO (requests at once, or a second).
        known("slo_load", Number, Some(HigherIsBetter), 0, Some("metric-slo-load")),
        // Where a curve's answer is a band: the smallest load above `slo_load` that missed the
        // SLO every time (loads between went both ways).
        known("slo_load_band_high", Number, None, 0, None),
        // 1 where the search met the SLO up to the top of its range: `slo_load` is a lower bound.
        known("slo_load_at_limit", Number, None, 0, None),
        // The most requests a second a curve's points served within every per-request limit.
        known("slo_goodput", RequestsPerSecond, Some(HigherIsBetter), 2, Some("metric-slo-goodput")),
        known("request_rate", RequestsPerSecond, None, 2, None),
        known("duration", Seconds, Some(LowerIsBetter), 2, None),
        known("completed", Requests, Some(HigherIsBetter), 0, None),
        known("failed", Requests, Some(LowerIsBetter), 0, None),
        known("num_prompts", Requests, None, 0, None),
        known("max_concurrency", Requests, None, 0, None),
        known("max_concurrent_requests", Requests, None, 0, None),
        // Streams whose tokens arrived in bursts (see `bench::client::Outcome::buffered`).
        known("buffered_streams", Requests, Some(LowerIsBetter), 0, None),
        known("concurrency", Number, None, 2, None),
        known("burstiness", Number, None, 2, None),
        known("total_input_tokens", Tokens, None, 0, None),
        known("total_output_tokens", Tokens, None, 0, None),
        known("total_output_tokens_retokenized", Tokens, None, 0, None),
        known("accept_length", Number, Some(HigherIsBetter), 2, None),
    ]
};

impl Metric {
    /// The metric of a canonical key; `None` for a key that is not canonical.
    pub fn lookup(key: &str) -> Option<Metric> {
        if let Some(k) = SCALARS.iter().find(|s| s.key == key) {
            return Some(Metric {
                key: key.to_string(),
                unit: k.unit,
                direction: k.direction,
                decimals: k.decimals,
                name_message: k.name_message,
                label: None,
            });
        }
        names::latency_stat_parts(key)?;
        let name_message = match key {
            "mean_tpot_ms" => Some("metric-mean-tpot"),
            "mean_ttft_ms" => Some("metric-mean-ttft"),
            "mean_itl_ms" => Some("metric-mean-itl"),
            "mean_e2el_ms" => Some("metric-mean-e2el"),
            _ => None,
        };
        // Every latency statistic is better lower, its spread (`std`) too.
        Some(Metric {
            key: key.to_string(),
            unit: Unit::Milliseconds,
            direction: Some(Direction::LowerIsBetter),
            decimals: 2,
            name_message,
            label: None,
        })
    }

    /// A metric shown as a plain number: for keys perflab does not know.
    pub fn plain(key: &str) -> Metric {
        Metric {
            key: key.to_string(),
            unit: Unit::Number,
            direction: None,
            decimals: 2,
            name_message: None,
            label: None,
        }
    }

    /// The metric of `key`, known or plain.
    pub fn of(key: &str) -> Metric {
        Metric::lookup(key).unwrap_or_else(|| Metric::plain(key))
    }

    pub fn lower_is_better(&self) -> bool {
        self.direction == Some(Direction::LowerIsBetter)
    }

    /// True when `a` is strictly better than `b`. A metric without a direction ranks higher first.
    pub fn better(&self, a: f64, b: f64) -> bool {
        if self.lower_is_better() { a < b } else { a > b }
    }

    /// How much better `new` is than `reference`, in percent of `reference` (positive: better);
    /// `None` for a zero reference.
    pub fn improvement(&self, new: f64, reference: f64) -> Option<f64> {
        improvement(new, reference, self.lower_is_better())
    }
}

impl Serialize for Metric {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.key)
    }
}

/// `new` relative to `reference`, in percent of `reference`: +10 means 10% more.
/// `None` when the reference is zero and the new value is not (no meaningful ratio).
pub fn percent_change(new: f64, reference: f64) -> Option<f64> {
    if reference == 0.0 {
        return (new == 0.0).then_some(0.0);
    }
    Some((new - reference) / reference.abs() * 100.0)
}

/// How much better `new` is than `reference`, in percent of `reference`, for a metric where
/// higher is better or (with `lower_is_better`) lower is better. Positive is an improvement.
pub fn improvement(new: f64, reference: f64, lower_is_better: bool) -> Option<f64> {
    percent_change(new, reference).map(|p| if lower_is_better { -p } else { p })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn direction_and_unit_come_from_the_metric_not_its_suffix() {
        assert!(Metric::of("duration").lower_is_better());
        assert!(Metric::of("failed").lower_is_better());
        assert!(!Metric::of("total_token_throughput").lower_is_better());
        assert!(Metric::of("p99.9_ttft_ms").lower_is_better());
        assert_eq!(Metric::of("max_concurrent_requests").unit, Unit::Requests);
        assert_eq!(Metric::of("max_concurrent_requests").direction, None);
        assert_eq!(Metric::of("duration").unit, Unit::Seconds);
        assert!(Metric::lookup("throughput_ms").is_none());
        assert!(Metric::of("failed").better(0.0, 3.0));
    }

    #[test]
    fn every_canonical_scalar_is_described() {
        for key in names::SCALAR_METRICS {
            assert!(Metric::lookup(key).is_some(), "{key}");
        }
    }

    #[test]
    fn lower_is_better_turns_a_reduction_into_a_gain() {
        // Mean TPOT from 594.26 ms to 266.89 ms: 55.09% better.
        let gain = improvement(266.89, 594.26, true).unwrap();
        assert!((gain - 55.09).abs() < 0.005, "{gain}");
        let gain = improvement(13760.98, 5881.79, false).unwrap();
        assert!((gain - 133.96).abs() < 0.005, "{gain}");
        assert!(improvement(110.0, 100.0, true).unwrap() < 0.0);
    }
}
