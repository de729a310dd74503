//! Repeated measurements of one configuration: their mean, their spread and a 95% confidence
//! interval, and the interval of the difference between two configurations.
//!
//! The method is Student's t: the interval of a mean is `mean ± t(n − 1) · s / √n`, and that of a
//! difference of two means is Welch's (each side keeps its own variance; the degrees of freedom
//! are Welch–Satterthwaite's). With the 2 to 5 repeats a GPU budget allows, a bootstrap would
//! only resample a handful of values (two values have three distinct resampled means) and give
//! intervals far too narrow; the t interval widens as it should when `n` is small. Nothing is
//! drawn at random, so the same results always give the same intervals. A configuration
//! measured once has no interval (`None`): the analysis then decides as it always did, on the
//! noise threshold alone, and the page says its figures are single runs.

use crate::metric::Metric;
use serde::Serialize;

/// The confidence level of every interval, in percent.
pub const CONFIDENCE_PERCENT: u32 = 95;

/// A confidence interval, `low` ≤ `high`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    /// The lower end, in the unit of what it bounds: the metric's for a mean, percent for a gain.
    pub low: f64,
    /// The upper end, in the same unit.
    pub high: f64,
}

impl Interval {
    /// Whether zero is inside the interval (its ends included).
    pub fn contains_zero(&self) -> bool {
        self.low <= 0.0 && self.high >= 0.0
    }

    /// Half the interval's width.
    pub fn half_width(&self) -> f64 {
        (self.high - self.low) / 2.0
    }

    fn scaled(self, factor: f64) -> Interval {
        let (a, b) = (self.low * factor, self.high * factor);
        Interval { low: a.min(b), high: a.max(b) }
    }
}

/// The values of one configuration's runs, summarised.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// How many values (at least 1); for a run, its engine starts (see `Study::start_values`).
    pub n: usize,
    /// Their mean, in the values' unit.
    pub mean: f64,
    /// Sample standard deviation (n − 1); zero for one value.
    pub sd: f64,
}

impl Sample {
    /// `None` for no value or a value that is not a finite number.
    pub fn of(values: &[f64]) -> Option<Sample> {
        if values.is_empty() || values.iter().any(|v| !v.is_finite()) {
            return None;
        }
        let n = values.len();
        let mean = values.iter().sum::<f64>() / n as f64;
        let sd =
            if n < 2 { 0.0 } else { (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt() };
        Some(Sample { n, mean, sd })
    }

    /// The same values multiplied by `factor` (a value per GPU from a total, say).
    pub fn scaled(self, factor: f64) -> Sample {
        Sample { n: self.n, mean: self.mean * factor, sd: self.sd * factor.abs() }
    }

    /// The squared standard error of the mean.
    fn var_mean(&self) -> f64 {
        self.sd * self.sd / self.n as f64
    }

    /// The interval of the mean; `None` for a single run.
    pub fn interval(&self) -> Option<Interval> {
        if self.n < 2 {
            return None;
        }
        let half = t_quantile((self.n - 1) as f64) * self.var_mean().sqrt();
        Some(Interval { low: self.mean - half, high: self.mean + half })
    }
}

/// The interval of `new.mean − reference.mean` (Welch); `None` unless both sides were measured
/// at least twice.
pub fn difference(new: &Sample, reference: &Sample) -> Option<Interval> {
    difference_at(new, reference, FIXED_LEVEL)
}

/// The two-sided level of a fixed design's interval (100% − [`CONFIDENCE_PERCENT`]).
pub const FIXED_LEVEL: f64 = 0.05;

/// [`difference`] at the two-sided nominal `level` (a sequential look's, see
/// [`super::sequential`]).
pub fn difference_at(new: &Sample, reference: &Sample, level: f64) -> Option<Interval> {
    if new.n < 2 || reference.n < 2 {
        return None;
    }
    let d = new.mean - reference.mean;
    let (a, b) = (new.var_mean(), reference.var_mean());
    let se = (a + b).sqrt();
    if se == 0.0 {
        return Some(Interval { low: d, high: d });
    }
    let df = (a + b).powi(2) / (a * a / (new.n - 1) as f64 + b * b / (reference.n - 1) as f64);
    let half = t_quantile_at(level, df) * se;
    Some(Interval { low: d - half, high: d + half })
}

/// The interval of the gain of `new` over `reference`, in percent of the reference's mean and
/// positive when `metric` improves (the interval of the difference, scaled like the gain).
pub fn gain(metric: &Metric, new: &Sample, reference: &Sample) -> Option<Interval> {
    gain_at(metric, new, reference, FIXED_LEVEL)
}

/// [`gain`] at the two-sided nominal `level`.
pub fn gain_at(metric: &Metric, new: &Sample, reference: &Sample, level: f64) -> Option<Interval> {
    if reference.mean == 0.0 {
        return None;
    }
    let sign = if metric.lower_is_better() { -1.0 } else { 1.0 };
    difference_at(new, reference, level).map(|i| i.scaled(sign * 100.0 / reference.mean.abs()))
}

/// Decimals that an interval supports for its central value: down to the first significant
/// digit of its half width, never more than `most`. A zero-width interval supports `most`.
pub fn supported_decimals(interval: &Interval, most: u32) -> u32 {
    let half = interval.half_width();
    if !(half.is_finite() && half > 0.0) {
        return most;
    }
    let first = half.log10().floor() as i64;
    (-first).clamp(0, i64::from(most)) as u32
}

/// The standard normal distribution function (from the complementary error function of
/// Numerical Recipes' `erfcc`, relative error under 1.2·10⁻⁷ everywhere, tails included).
pub fn normal_cdf(x: f64) -> f64 {
    let z = -x / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.5 * z.abs());
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let erfc = t * poly.exp();
    0.5 * if z >= 0.0 { erfc } else { 2.0 - erfc }
}

/// The `z` with `P(Z > z) = p` for a standard normal `Z` (by bisection; `p` in (0, 1)).
pub fn normal_upper_quantile(p: f64) -> f64 {
    let (mut low, mut high) = (-40.0, 40.0);
    for _ in 0..200 {
        let mid = (low + high) / 2.0;
        if 1.0 - normal_cdf(mid) > p { low = mid } else { high = mid }
    }
    (low + high) / 2.0
}

/// The two-sided quantile of Student's t at `level` (0.05 for 95%) with `df` degrees of
/// freedom: the table of [`t_quantile`] at 5%, else Hill's algorithm (Hill, "Algorithm 396:
/// Student's t-quantiles", CACM 13, 1970), which takes a fractional `df` such as Welch's.
pub fn t_quantile_at(level: f64, df: f64) -> f64 {
    if level == FIXED_LEVEL {
        return t_quantile(df);
    }
    let p = level.clamp(1e-15, 1.0);
    if !df.is_finite() || df >= 1e9 {
        return normal_upper_quantile(p / 2.0);
    }
    let n = df.max(1.0);
    if (n - 1.0).abs() < 1e-9 {
        let h = p * std::f64::consts::FRAC_PI_2;
        return h.cos() / h.sin();
    }
    if (n - 2.0).abs() < 1e-9 {
        return (2.0 / (p * (2.0 - p)) - 2.0).sqrt();
    }
    let a = 1.0 / (n - 0.5);
    let b = 48.0 / (a * a);
    let mut c = ((20700.0 * a / b - 98.0) * a - 16.0) * a + 96.36;
    let d = ((94.5 / (b + c) - 3.0) / b + 1.0) * (a * std::f64::consts::FRAC_PI_2).sqrt() * n;
    let x = d * p;
    let mut y = x.powf(2.0 / n);
    if y > 0.05 + a {
        let x = -normal_upper_quantile(p / 2.0);
        y = x * x;
        if n < 5.0 {
            c += 0.3 * (n - 4.5) * (x + 0.6);
        }
        c += (((0.05 * d * x - 5.0) * x - 7.0) * x - 2.0) * x + b;
        y = (((((0.4 * y + 6.3) * y + 36.0) * y + 94.5) / c - y - 3.0) / b + 1.0) * x;
        y = a * y * y;
        y = if y > 0.002 { y.exp() - 1.0 } else { 0.5 * y * y + y };
    } else {
        y = ((1.0 / (((n + 6.0) / (n * y) - 0.089 * d - 0.822) * (n + 2.0) * 3.0) + 0.5 / (n + 4.0)) * y - 1.0)
            * (n + 1.0)
            / (n + 2.0)
            + 1.0 / y;
    }
    (n * y).sqrt()
}

/// The two-sided 95% quantile of Student's t with `df` degrees of freedom (interpolated in
/// 1/df between tabulated values).
pub fn t_quantile(df: f64) -> f64 {
    const TABLE: &[(f64, f64)] = &[
        (1.0, 12.706),
        (2.0, 4.303),
        (3.0, 3.182),
        (4.0, 2.776),
        (5.0, 2.571),
        (6.0, 2.447),
        (7.0, 2.365),
        (8.0, 2.306),
        (9.0, 2.262),
        (10.0, 2.228),
        (12.0, 2.179),
        (15.0, 2.131),
        (20.0, 2.086),
        (25.0, 2.060),
        (30.0, 2.042),
        (40.0, 2.021),
        (60.0, 2.000),
        (120.0, 1.980),
    ];
    if !df.is_finite() || df >= 1e9 {
        return 1.960;
    }
    if df <= 1.0 {
        return TABLE[0].1;
    }
    for pair in TABLE.windows(2) {
        let ((d0, t0), (d1, t1)) = (pair[0], pair[1]);
        if df <= d1 {
            let (x0, x1, x) = (1.0 / d0, 1.0 / d1, 1.0 / df);
            return t0 + (t1 - t0) * (x0 - x) / (x0 - x1);
        }
    }
    let (d, t) = TABLE[TABLE.len() - 1];
    t + (1.960 - t) * (1.0 - d / df)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(values: &[f64]) -> Sample {
        Sample::of(values).unwrap()
    }

    #[test]
    fn the_mean_interval_uses_t() {
        let s = sample(&[100.0, 102.0, 104.0]);
        assert_eq!(s.mean, 102.0);
        assert_eq!(s.sd, 2.0);
        let i = s.interval().unwrap();
        // 4.303 · 2 / √3
        assert!((i.high - 102.0 - 4.303 * 2.0 / 3f64.sqrt()).abs() < 1e-9, "{i:?}");
        assert!(sample(&[5.0]).interval().is_none(), "one run has no interval");
        assert!(Sample::of(&[]).is_none());
        assert!(Sample::of(&[1.0, f64::NAN]).is_none());
    }

    #[test]
    fn equal_values_give_a_zero_width_interval() {
        let a = sample(&[100.0, 100.0, 100.0]);
        assert_eq!(a.interval(), Some(Interval { low: 100.0, high: 100.0 }));
        let b = sample(&[110.0, 110.0]);
        let d = difference(&b, &a).unwrap();
        assert_eq!((d.low, d.high), (10.0, 10.0));
        assert!(!d.contains_zero());
        assert_eq!(difference(&a, &a).unwrap(), Interval { low: 0.0, high: 0.0 });
        assert!(difference(&a, &a).unwrap().contains_zero());
    }

    #[test]
    fn gains_follow_the_metric_direction() {
        let (base, better) = (sample(&[100.0, 101.0, 99.0]), sample(&[110.0, 111.0, 109.0]));
        let tps = Metric::of("total_token_throughput");
        let g = gain(&tps, &better, &base).unwrap();
        assert!(g.low > 5.0 && g.high < 15.0 && g.low < 10.0 && g.high > 10.0, "{g:?}");
        let ms = Metric::of("mean_ttft_ms");
        let g = gain(&ms, &better, &base).unwrap();
        assert!(g.high < -5.0, "a longer latency is a loss: {g:?}");
        assert!(gain(&tps, &better, &sample(&[100.0])).is_none(), "a single run on one side");
    }

    #[test]
    fn an_outlier_widens_the_interval() {
        let steady = sample(&[100.0, 101.0, 100.0, 101.0, 100.0]);
        let outlier = sample(&[100.0, 101.0, 100.0, 101.0, 140.0]);
        let w = |s: &Sample| s.interval().unwrap().half_width();
        assert!(w(&outlier) > 10.0 * w(&steady));
    }

    #[test]
    fn t_quantiles() {
        assert_eq!(t_quantile(1.0), 12.706);
        assert_eq!(t_quantile(4.0), 2.776);
        let mid = t_quantile(4.5);
        assert!(mid < 2.776 && mid > 2.571);
        assert!((t_quantile(1e12) - 1.96).abs() < 1e-9);
        assert!(t_quantile(500.0) > 1.96 && t_quantile(500.0) < 1.98);
        assert_eq!(t_quantile(f64::NAN), 1.96);
    }

    #[test]
    fn t_quantiles_at_other_levels() {
        // Hill's algorithm against the 95% table, and at 0.1% against published values.
        for df in [1.0, 2.0, 3.0, 4.0, 5.0, 10.0, 30.0, 120.0] {
            assert!((t_quantile_at(0.050_000_1, df) - t_quantile(df)).abs() < 2e-3, "{df}");
        }
        assert!((t_quantile_at(0.001, 4.0) - 8.610).abs() < 2e-3);
        assert!((t_quantile_at(0.001, 10.0) - 4.587).abs() < 2e-3);
        assert!((t_quantile_at(0.001, 2.0) - 31.599).abs() < 2e-3);
        assert!((normal_upper_quantile(0.025) - 1.959_964).abs() < 1e-5);
        assert!((normal_cdf(-4.0) / 3.167_124e-5 - 1.0).abs() < 1e-5);
        let wide = t_quantile_at(1e-6, 3.5);
        assert!(wide > t_quantile_at(1e-6, 4.0) && wide < t_quantile_at(1e-6, 3.0));
    }

    #[test]
    fn precision_follows_the_interval() {
        assert_eq!(supported_decimals(&Interval { low: 760.0, high: 801.0 }, 2), 0);
        assert_eq!(supported_decimals(&Interval { low: 2.0, high: 2.6 }, 2), 1);
        assert_eq!(supported_decimals(&Interval { low: 2.0, high: 2.02 }, 2), 2);
        assert_eq!(supported_decimals(&Interval { low: 2.0, high: 2.0 }, 2), 2);
    }
}
