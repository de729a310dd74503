//! Differences between two measurements: the arithmetic behind every "+x%" on a page.

use serde::Serialize;

/// Figures are shown with two decimals; differences smaller than half a unit of the last shown
/// digit read as "no change".
pub const SHOWN_DECIMALS: i32 = 2;

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

/// Which way a value moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Trend {
    Lower,
    Higher,
    Same,
}

/// A difference between two values: `value - reference`, and that in percent of `reference`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Delta {
    pub value: f64,
    pub reference: f64,
    /// `value - reference`.
    pub diff: f64,
    /// `diff` in percent of `reference`; `None` for a zero reference.
    pub percent: Option<f64>,
    pub trend: Trend,
}

impl Delta {
    pub fn new(value: f64, reference: f64) -> Delta {
        let diff = value - reference;
        let half_unit = 0.5 * 10f64.powi(-SHOWN_DECIMALS);
        let trend = if diff.abs() < half_unit {
            Trend::Same
        } else if diff < 0.0 {
            Trend::Lower
        } else {
            Trend::Higher
        };
        Delta { value, reference, diff, percent: percent_change(value, reference), trend }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_values_are_no_change() {
        let d = Delta::new(266.89, 266.89);
        assert_eq!((d.diff, d.percent, d.trend), (0.0, Some(0.0), Trend::Same));
        assert_eq!(Delta::new(100.004, 100.0).trend, Trend::Same);
        assert_eq!(Delta::new(100.01, 100.0).trend, Trend::Higher);
    }

    #[test]
    fn zero_reference_has_no_percentage() {
        assert_eq!(percent_change(5.0, 0.0), None);
        assert_eq!(percent_change(0.0, 0.0), Some(0.0));
        let d = Delta::new(3.0, 0.0);
        assert_eq!((d.diff, d.percent, d.trend), (3.0, None, Trend::Higher));
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

    #[test]
    fn negative_reference_keeps_the_sign_of_the_move() {
        assert_eq!(percent_change(-5.0, -10.0), Some(50.0));
    }
}
