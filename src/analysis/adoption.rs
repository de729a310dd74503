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
//!    noise; otherwise it is not better. When both were measured more than once, the gain has
//!    a confidence interval (see [`super::stats`]) and a gain is adopted only when it is more
//!    than the threshold **and** its interval excludes zero; a gain that is not adopted while its
//!    interval reaches beyond the threshold cannot be told apart from the noise
//!    ([`Adoption::CannotTell`]). The same holds when the base measured best: a variant whose
//!    interval reaches beyond the threshold makes the stage one that cannot tell. The interval
//!    is over engine starts, at 95% for a fixed design, or at the nominal level of its look
//!    when `--until-confident` measured the stage sequentially (see [`super::sequential`]).
//!
//! The best variant is the one with the best objective among the variants that rank; of equal
//! values, the first in the stage's order (see [`best`]).

use super::stats::Interval;
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
    /// The best variant beat the base by more than the noise threshold (and, with repeats, its
    /// gain's interval excludes zero).
    Adopted {
        /// The best variant's id within the stage.
        variant: String,
        /// The best variant's objective on the target profile, in the objective's unit.
        value: f64,
        /// The base's objective on the target profile, in the objective's unit.
        base_value: f64,
        /// The best's gain over the base, in percent of `base_value` (12.3 for 12.3%).
        gain_percent: f64,
        /// The gain's confidence interval, in percent like `gain_percent`; `None` unless both
        /// were measured in more than one engine start.
        #[serde(skip_serializing_if = "Option::is_none")]
        interval: Option<Interval>,
    },
    /// The best variant beat the base, but by no more than the noise threshold.
    WithinNoise {
        /// The best variant's id within the stage.
        variant: String,
        /// The best variant's objective on the target profile, in the objective's unit.
        value: f64,
        /// The base's objective on the target profile, in the objective's unit.
        base_value: f64,
        /// The best's gain over the base, in percent of `base_value` (12.3 for 12.3%).
        gain_percent: f64,
        /// The gain's confidence interval, in percent like `gain_percent`; `None` unless both
        /// were measured in more than one engine start.
        #[serde(skip_serializing_if = "Option::is_none")]
        interval: Option<Interval>,
    },
    /// The best variant is no better than the base.
    NotBetter {
        /// The best variant's id within the stage.
        variant: String,
        /// The best variant's objective on the target profile, in the objective's unit.
        value: f64,
        /// The base's objective on the target profile, in the objective's unit.
        base_value: f64,
        /// The best's gain over the base, in percent of `base_value` (12.3 for 12.3%).
        gain_percent: f64,
        /// The gain's confidence interval, in percent like `gain_percent`; `None` unless both
        /// were measured in more than one engine start.
        #[serde(skip_serializing_if = "Option::is_none")]
        interval: Option<Interval>,
    },
    /// The runs cannot tell: the variant's gain over the base has an interval that reaches
    /// beyond the noise threshold, but it is not adopted (its gain is within the threshold, or its
    /// interval holds zero). The base stays.
    CannotTell {
        /// The variant the runs cannot tell from the base (the best, or when the base measured
        /// best, the best of the others).
        variant: String,
        /// Its objective on the target profile, in the objective's unit.
        value: f64,
        /// The base's objective on the target profile, in the objective's unit.
        base_value: f64,
        /// Its gain over the base, in percent of `base_value`.
        gain_percent: f64,
        /// The gain's confidence interval, in percent like `gain_percent`.
        interval: Interval,
    },
    /// The best variant is the base's own configuration.
    BaseIsBest {
        /// The best variant's id, whose configuration is the base's.
        variant: String,
    },
    /// The study decided; `variant` is `None` when it adopted nothing.
    Overridden {
        /// The id of the variant the study's `adopt` names; `None` when it adopts nothing.
        variant: Option<String>,
        /// That variant's gain over the base, in percent of the base's value; `None` when it
        /// adopts nothing or either has no value (or the base's is zero).
        gain_percent: Option<f64>,
    },
    /// Nothing could be compared.
    NoResult {
        /// Why.
        reason: NoResultReason,
    },
}

impl Adoption {
    /// The variant the stage adopts, if any.
    pub fn adopted(&self) -> Option<&str> {
        match self {
            Adoption::Adopted { variant, .. } | Adoption::Overridden { variant: Some(variant), .. } => Some(variant),
            _ => None,
        }
    }

    /// The runs could not tell the best variant from the base: more measurements may decide.
    pub fn unclear(&self) -> bool {
        matches!(self, Adoption::CannotTell { .. })
    }

    /// The interval of the gain behind the decision, when the runs were repeated.
    pub fn interval(&self) -> Option<Interval> {
        match self {
            Adoption::Adopted { interval, .. }
            | Adoption::WithinNoise { interval, .. }
            | Adoption::NotBetter { interval, .. } => *interval,
            Adoption::CannotTell { interval, .. } => Some(*interval),
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
    /// The variant's id within its stage.
    pub variant: &'a str,
    /// Its objective on the target profile, in the objective's unit (0 when it has none).
    pub value: f64,
    /// Its configuration is the base's own.
    pub is_base: bool,
    /// The interval of its gain over the base, in percent, when both were measured repeatedly.
    pub interval: Option<Interval>,
}

/// The study's own decision for a stage: `Some(None)` adopts nothing.
pub type Override<'a> = Option<Option<&'a str>>;

/// Decides a stage's adoption (see the module's rule). `override_value` is the value of the
/// variant an override adopts, for its gain. `challenger` is the best variant whose
/// configuration is not the base's, which decides whether a stage whose base measured best can
/// tell.
pub fn decide(
    metric: &Metric,
    noise_threshold: f64,
    base_value: Option<f64>,
    best: Option<Best<'_>>,
    challenger: Option<Best<'_>>,
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
        if let Some(c) = challenger.filter(|c| !c.is_base && c.interval.is_some())
            && let verdict @ Adoption::CannotTell { .. } =
                decide(metric, noise_threshold, base_value, Some(c), None, None, None)
        {
            return verdict;
        }
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
    let (variant, value, interval) = (best.variant.to_string(), best.value, best.interval);
    let significant = interval.is_none_or(|i| i.low > 0.0);
    if gain_percent > noise_threshold && significant {
        Adoption::Adopted { variant, value, base_value, gain_percent, interval }
    } else if let Some(interval) = interval.filter(|i| i.high > noise_threshold) {
        Adoption::CannotTell { variant, value, base_value, gain_percent, interval }
    } else if gain_percent > 0.0 {
        Adoption::WithinNoise { variant, value, base_value, gain_percent, interval }
    } else {
        Adoption::NotBetter { variant, value, base_value, gain_percent, interval }
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
        Some(Best { variant: "b", value, is_base: false, interval: None })
    }

    #[test]
    fn the_rule_on_numbers() {
        let tps = Metric::of("total_token_throughput");
        let kind = |a: Adoption| serde_json::to_value(a).unwrap()["kind"].as_str().unwrap().to_string();
        assert_eq!(kind(decide(&tps, 2.0, Some(100.0), best(110.0), None, None, None)), "adopted");
        assert_eq!(kind(decide(&tps, 2.0, Some(100.0), best(102.0), None, None, None)), "within-noise");
        assert_eq!(kind(decide(&tps, 2.0, Some(100.0), best(100.0), None, None, None)), "not-better");
        assert_eq!(kind(decide(&tps, 2.0, Some(100.0), best(90.0), None, None, None)), "not-better");
        assert_eq!(
            decide(&tps, 2.0, None, best(90.0), None, None, None),
            Adoption::NoResult { reason: NoResultReason::BaseWithoutValue }
        );
        assert_eq!(
            decide(&tps, 2.0, Some(0.0), best(90.0), None, None, None),
            Adoption::NoResult { reason: NoResultReason::ZeroBase }
        );
        let ms = Metric::of("mean_ttft_ms");
        assert_eq!(kind(decide(&ms, 2.0, Some(100.0), best(50.0), None, None, None)), "adopted");
        assert_eq!(kind(decide(&ms, 2.0, Some(100.0), best(150.0), None, None, None)), "not-better");
    }

    #[test]
    fn with_repeats_a_gain_is_adopted_only_when_its_interval_excludes_zero() {
        use crate::analysis::stats::{Sample, gain};
        let tps = Metric::of("total_token_throughput");
        let kind = |a: &Adoption| serde_json::to_value(a).unwrap()["kind"].as_str().unwrap().to_string();
        let rule = |base: &[f64], new: &[f64]| {
            let (b, n) = (Sample::of(base).unwrap(), Sample::of(new).unwrap());
            let best = Best { variant: "b", value: n.mean, is_base: false, interval: gain(&tps, &n, &b) };
            decide(&tps, 2.0, Some(b.mean), Some(best), None, None, None)
        };
        // Clear: +10%, tight interval.
        let a = rule(&[100.0, 101.0, 99.0], &[110.0, 111.0, 109.0]);
        assert_eq!(kind(&a), "adopted");
        assert!(a.interval().unwrap().low > 2.0);
        // The same +10% mean with runs all over the place: cannot tell, with the numbers.
        let a = rule(&[100.0, 101.0, 99.0], &[80.0, 140.0, 110.0]);
        assert_eq!(kind(&a), "cannot-tell");
        assert!(
            matches!(a, Adoption::CannotTell { gain_percent, interval, .. } if (gain_percent - 10.0).abs() < 1e-9 && interval.contains_zero())
        );
        assert!(a.unclear() && a.adopted().is_none());
        // Equal values: a zero-width interval; the threshold alone decides.
        assert_eq!(kind(&rule(&[100.0, 100.0], &[110.0, 110.0])), "adopted");
        assert_eq!(kind(&rule(&[100.0, 100.0], &[101.0, 101.0])), "within-noise");
        assert_eq!(kind(&rule(&[100.0, 100.0], &[100.0, 100.0])), "not-better");
        // An outlier in the variant's runs widens its interval past zero: not adopted.
        assert_eq!(kind(&rule(&[100.0, 100.5, 99.5, 100.0], &[105.0, 105.5, 104.5, 140.0])), "cannot-tell");
        // A gain within the threshold whose interval stays under it is within the noise.
        assert_eq!(kind(&rule(&[100.0, 100.2, 99.8], &[101.0, 101.2, 100.8])), "within-noise");
        // One repeat on a side: no interval, the single-run rule.
        let (b, n) = (Sample::of(&[100.0]).unwrap(), Sample::of(&[110.0, 130.0]).unwrap());
        assert!(gain(&tps, &n, &b).is_none());
    }

    #[test]
    fn a_base_that_measured_best_cannot_tell_when_a_variant_may_beat_it() {
        let tps = Metric::of("total_token_throughput");
        let base = Best { variant: "a", value: 100.0, is_base: true, interval: None };
        let close = Best {
            variant: "b",
            value: 99.0,
            is_base: false,
            interval: Some(crate::analysis::stats::Interval { low: -6.0, high: 4.0 }),
        };
        let a = decide(&tps, 1.0, Some(100.0), Some(base), Some(close), None, None);
        assert!(a.unclear(), "{a:?}");
        let far = Best { interval: Some(crate::analysis::stats::Interval { low: -6.0, high: -2.0 }), ..close };
        let a = decide(&tps, 1.0, Some(100.0), Some(base), Some(far), None, None);
        assert_eq!(a, Adoption::BaseIsBest { variant: "a".into() });
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
