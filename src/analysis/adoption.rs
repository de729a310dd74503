//! Whether a stage adopts its best variant, and why: the one rule the search replay follows
//! and the page explains.
//!
//! The rule, in order:
//! 1. a stage whose spec has `adopt` does what it says ([`Adoption::Overridden`]);
//! 2. no variant ranks: nothing is adopted ([`NoResultReason::NoVariantRanks`]);
//! 3. the best variant is the base's own configuration: nothing changes ([`Adoption::BaseIsBest`]);
//! 4. the base has no value, or a value of zero, to compare with: nothing is adopted
//!    ([`NoResultReason::BaseWithoutValue`], [`NoResultReason::ZeroBase`]);
//! 5. the best variant's gain over the base, in percent of the base, is more than the noise
//!    threshold: it is adopted; a positive gain up to the threshold (included) is within the
//!    noise; otherwise it is not better.
//!
//! The best variant is the one with the best objective among the variants that rank; of equal
//! values, the first in the stage's order (see [`best`]).

use crate::metric::Metric;
use serde::Serialize;

/// Why nothing could be compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoResultReason {
    /// No variant of the stage has a complete run without lost requests.
    NoVariantRanks,
    /// The configuration the stage builds on has no usable measurement.
    BaseWithoutValue,
    /// The configuration the stage builds on measures zero: no ratio can be taken.
    ZeroBase,
}

/// What a stage adopted and the numbers behind it. Gains are in percent of the base's value,
/// positive when the objective improves.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Adoption {
    /// The best variant beat the base by more than the noise threshold.
    Adopted { variant: String, value: f64, base_value: f64, gain_percent: f64 },
    /// The best variant beat the base, but by no more than the noise threshold.
    WithinNoise { variant: String, value: f64, base_value: f64, gain_percent: f64 },
    /// The best variant is no better than the base.
    NotBetter { variant: String, value: f64, base_value: f64, gain_percent: f64 },
    /// The best variant is the base's own configuration.
    BaseIsBest { variant: String },
    /// The study decided; `variant` is `None` when it adopted nothing.
    Overridden { variant: Option<String>, gain_percent: Option<f64> },
    /// Nothing could be compared.
    NoResult { reason: NoResultReason },
}

impl Adoption {
    /// The variant the stage adopts, if any.
    pub fn adopted(&self) -> Option<&str> {
        match self {
            Adoption::Adopted { variant, .. } | Adoption::Overridden { variant: Some(variant), .. } => Some(variant),
            _ => None,
        }
    }

    /// The gain of the adopted variant over the base (the step the stage took).
    pub fn step(&self) -> Option<f64> {
        match self {
            Adoption::Adopted { gain_percent, .. } => Some(*gain_percent),
            Adoption::Overridden { variant: Some(_), gain_percent } => *gain_percent,
            _ => None,
        }
    }
}

/// A stage's best variant as the rule sees it.
#[derive(Debug, Clone, Copy)]
pub struct Best<'a> {
    pub variant: &'a str,
    pub value: f64,
    /// Its configuration is the base's own.
    pub is_base: bool,
}

/// The study's own decision for a stage: `Some(None)` adopts nothing.
pub type Override<'a> = Option<Option<&'a str>>;

/// Decides a stage's adoption (see the module's rule). `override_value` is the value of the
/// variant an override adopts, for its gain.
pub fn decide(
    metric: &Metric,
    noise_threshold: f64,
    base_value: Option<f64>,
    best: Option<Best<'_>>,
    decided: Override<'_>,
    override_value: Option<f64>,
) -> Adoption {
    if let Some(variant) = decided {
        return Adoption::Overridden {
            variant: variant.map(str::to_string),
            gain_percent: variant.and(override_value.zip(base_value)).and_then(|(x, y)| metric.improvement(x, y)),
        };
    }
    let Some(best) = best else {
        return Adoption::NoResult { reason: NoResultReason::NoVariantRanks };
    };
    if best.is_base {
        return Adoption::BaseIsBest { variant: best.variant.to_string() };
    }
    let base_value = match base_value {
        None => return Adoption::NoResult { reason: NoResultReason::BaseWithoutValue },
        Some(0.0) => return Adoption::NoResult { reason: NoResultReason::ZeroBase },
        Some(y) => y,
    };
    let Some(gain_percent) = metric.improvement(best.value, base_value) else {
        return Adoption::NoResult { reason: NoResultReason::ZeroBase };
    };
    let (variant, value) = (best.variant.to_string(), best.value);
    if gain_percent > noise_threshold {
        Adoption::Adopted { variant, value, base_value, gain_percent }
    } else if gain_percent > 0.0 {
        Adoption::WithinNoise { variant, value, base_value, gain_percent }
    } else {
        Adoption::NotBetter { variant, value, base_value, gain_percent }
    }
}

/// The index of the best of `values` (`None` entries do not rank): the best value for `metric`,
/// the first of equal ones.
pub fn best(metric: &Metric, values: impl IntoIterator<Item = Option<f64>>) -> Option<usize> {
    extreme(values, |a, b| metric.better(a, b))
}

/// The index of the worst of `values`, the first of equal ones.
pub fn worst(metric: &Metric, values: impl IntoIterator<Item = Option<f64>>) -> Option<usize> {
    extreme(values, |a, b| metric.better(b, a))
}

fn extreme(values: impl IntoIterator<Item = Option<f64>>, wins: impl Fn(f64, f64) -> bool) -> Option<usize> {
    let mut found: Option<(usize, f64)> = None;
    for (i, v) in values.into_iter().enumerate() {
        if let Some(x) = v
            && found.is_none_or(|(_, y)| wins(x, y))
        {
            found = Some((i, x));
        }
    }
    found.map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn best(value: f64) -> Option<Best<'static>> {
        Some(Best { variant: "b", value, is_base: false })
    }

    #[test]
    fn the_rule_on_numbers() {
        let tps = Metric::of("total_token_throughput");
        let kind = |a: Adoption| serde_json::to_value(a).unwrap()["kind"].as_str().unwrap().to_string();
        assert_eq!(kind(decide(&tps, 2.0, Some(100.0), best(110.0), None, None)), "adopted");
        assert_eq!(kind(decide(&tps, 2.0, Some(100.0), best(102.0), None, None)), "within-noise");
        assert_eq!(kind(decide(&tps, 2.0, Some(100.0), best(100.0), None, None)), "not-better");
        assert_eq!(kind(decide(&tps, 2.0, Some(100.0), best(90.0), None, None)), "not-better");
        assert_eq!(
            decide(&tps, 2.0, None, best(90.0), None, None),
            Adoption::NoResult { reason: NoResultReason::BaseWithoutValue }
        );
        assert_eq!(
            decide(&tps, 2.0, Some(0.0), best(90.0), None, None),
            Adoption::NoResult { reason: NoResultReason::ZeroBase }
        );
        let ms = Metric::of("mean_ttft_ms");
        assert_eq!(kind(decide(&ms, 2.0, Some(100.0), best(50.0), None, None)), "adopted");
        assert_eq!(kind(decide(&ms, 2.0, Some(100.0), best(150.0), None, None)), "not-better");
    }

    #[test]
    fn ties_go_to_the_first() {
        let tps = Metric::of("total_token_throughput");
        assert_eq!(super::best(&tps, [Some(1.0), Some(3.0), None, Some(3.0)]), Some(1));
        assert_eq!(super::worst(&tps, [Some(1.0), Some(3.0), Some(1.0)]), Some(0));
        let ms = Metric::of("mean_ttft_ms");
        assert_eq!(super::best(&ms, [Some(5.0), Some(2.0), Some(2.0)]), Some(1));
    }
}
