//! Differences between two measurements: which way a value moved ([`Trend`]) and by how much
//! ([`Delta`]); the percentages themselves are [`crate::metric::percent_change`] and
//! [`crate::metric::improvement`].

use crate::metric::percent_change;
use serde::Serialize;

/// Figures are shown with two decimals; differences smaller than half a unit of the last shown
/// digit read as "no change".
pub const SHOWN_DECIMALS: i32 = 2;

/// Which way a value moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Trend {
    /// `value` is below `reference` by at least half a unit of the last shown decimal (0.005).
    Lower,
    /// `value` is above `reference` by at least that much.
    Higher,
    /// The two differ by less than 0.005: no change as shown.
    Same,
}

/// A difference between two values: `value - reference`, and that in percent of `reference`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Delta {
    /// The value compared, in its metric's unit.
    pub value: f64,
    /// The value it is compared with, in the same unit.
    pub reference: f64,
    /// `value - reference`.
    pub diff: f64,
    /// `diff` in percent of `reference`; `None` for a zero reference.
    pub percent: Option<f64>,
    /// Which way `value` moved from `reference`, as the figures are shown (two decimals).
    pub trend: Trend,
}

impl Delta {
    /// `value` against `reference`.
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
    fn negative_reference_keeps_the_sign_of_the_move() {
        assert_eq!(percent_change(-5.0, -10.0), Some(50.0));
    }
}
