//! A decision taken at several looks: the group-sequential design behind `perflab run
//! --until-confident`, so that the chance of adopting a variant that is no better stays at 5%
//! however many times the runner looks at the data before it stops.
//!
//! The design is Lan and DeMets' alpha spending with the O'Brien–Fleming-type spending function
//! `α(t) = 2 − 2 Φ(z₀.₉₇₅ / √t)` (Lan & DeMets, "Discrete sequential boundaries for clinical
//! trials", Biometrika 70, 1983). `t` is the information fraction: the engine starts of each
//! side so far over the most the design plans (the study's own starts, plus those the budget
//! pays for; see `exec::runner`). A look is taken at every start from the second on. At each look the boundary is the one whose chance
//! of being crossed there, and not at an earlier look, is `α(tₖ) − α(tₖ₋₁)` when the two sides do
//! not differ; that chance is computed exactly for the standardized difference, a Brownian
//! motion observed at the looks (Armitage, McPherson & Rowe's recursive integration; Jennison &
//! Turnbull, "Group Sequential Methods with Applications to Clinical Trials", 2000, ch. 19). The
//! boundary becomes the nominal level of that look's interval. Early looks spend almost nothing
//! (an interval there is very wide), the last one nearly the whole 5%. With one look the design
//! is the fixed one: the nominal level is 5%.

use super::stats::{CONFIDENCE_PERCENT, normal_cdf, normal_upper_quantile};

/// Points of the grid on which the density of the statistic is carried from look to look.
const GRID: usize = 161;

/// The overall error rate, two-sided.
fn alpha() -> f64 {
    1.0 - f64::from(CONFIDENCE_PERCENT) / 100.0
}

/// The alpha the design has spent by information fraction `t`.
pub fn spent(t: f64) -> f64 {
    if t <= 0.0 {
        return 0.0;
    }
    let z = normal_upper_quantile(alpha() / 2.0);
    2.0 - 2.0 * normal_cdf(z / t.min(1.0).sqrt())
}

/// The two-sided nominal level of the interval at the last of `looks`, the information
/// fractions of every look so far (increasing, the last at most 1). One look at `t = 1` is
/// the fixed design: 5%.
pub fn nominal_level(looks: &[f64]) -> f64 {
    nominal_levels(looks).last().copied().unwrap_or_else(alpha)
}

/// The nominal level of each of `looks` (see [`nominal_level`]), in one pass: the level of a
/// look depends only on the looks up to it.
pub fn nominal_levels(looks: &[f64]) -> Vec<f64> {
    let looks: Vec<f64> = looks.iter().map(|t| t.clamp(1e-6, 1.0)).collect();
    let Some(first) = looks.first() else { return Vec::new() };
    let mut levels = vec![spent(*first).max(1e-12)];
    let phi = |x: f64| (-x * x / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt();
    // The statistic on the score scale, S = Z·√t: its density on the continuation region.
    let c = normal_upper_quantile(spent(*first) / 2.0);
    let mut grid = span(c * first.sqrt());
    let mut density: Vec<f64> = grid.iter().map(|s| phi(s / first.sqrt()) / first.sqrt()).collect();
    for k in 1..looks.len() {
        let (t, before) = (looks[k], looks[k - 1]);
        let step = (t - before).max(1e-9).sqrt();
        let weights = simpson(&grid);
        let target = (spent(t) - spent(before)).max(1e-12);
        // The chance of crossing ±b at this look from the continuation region of the last.
        let exits = |b: f64| -> f64 {
            grid.iter()
                .zip(&density)
                .zip(&weights)
                .map(|((u, f), w)| w * f * (normal_cdf((-b - u) / step) + 1.0 - normal_cdf((b - u) / step)))
                .sum()
        };
        let (mut low, mut high) = (0.0, 40.0 * t.sqrt());
        for _ in 0..60 {
            let mid = (low + high) / 2.0;
            if exits(mid) > target { low = mid } else { high = mid }
        }
        let b = (low + high) / 2.0;
        levels.push((2.0 * (1.0 - normal_cdf(b / t.sqrt()))).max(1e-12));
        let next = span(b);
        density = next
            .iter()
            .map(|s| {
                grid.iter().zip(&density).zip(&weights).map(|((u, f), w)| w * f * phi((s - u) / step) / step).sum()
            })
            .collect();
        grid = next;
    }
    levels
}

/// `GRID` points evenly from `−b` to `b`.
fn span(b: f64) -> Vec<f64> {
    (0..GRID).map(|i| -b + 2.0 * b * i as f64 / (GRID - 1) as f64).collect()
}

/// Simpson's weights on an even grid of an odd number of points.
fn simpson(grid: &[f64]) -> Vec<f64> {
    let h = grid[1] - grid[0];
    (0..grid.len())
        .map(|i| {
            h / 3.0
                * if i == 0 || i == grid.len() - 1 {
                    1.0
                } else if i % 2 == 1 {
                    4.0
                } else {
                    2.0
                }
        })
        .collect()
}

/// The looks of a design: engine starts of the smaller side at each look (`first` when the
/// runner began looking, then one more a look, up to `now`) over `most`.
pub fn looks(first: usize, now: usize, most: usize) -> Vec<f64> {
    let most = most.max(now).max(1) as f64;
    (first.min(now)..=now).map(|n| n as f64 / most).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_look_is_the_fixed_design() {
        assert!((nominal_level(&[1.0]) - 0.05).abs() < 1e-9);
        assert!((spent(1.0) - 0.05).abs() < 1e-9);
    }

    #[test]
    fn boundaries_match_an_independent_computation() {
        // Five equally spaced looks: the nominal levels an independent integration on a finer
        // grid gives (its boundaries z = 4.383, 3.100, 2.553, 2.254, 2.064).
        let all = [0.2, 0.4, 0.6, 0.8, 1.0];
        let expected = [1.173e-5, 0.001937, 0.010669, 0.024206, 0.039065];
        for k in 1..=5 {
            let level = nominal_level(&all[..k]);
            assert!((level / expected[k - 1] - 1.0).abs() < 0.02, "look {k}: {level}");
        }
        assert_eq!(nominal_levels(&all).last(), Some(&nominal_level(&all)));
        assert!((nominal_levels(&all)[2] - nominal_level(&all[..3])).abs() < 1e-15);
    }

    #[test]
    fn the_boundaries_spend_five_percent_in_all() {
        // A seeded Brownian motion observed at ten looks crosses some look's boundary about
        // 5% of the time: 20,000 paths tell 5% from 6% (the standard error is 0.15%).
        let all: Vec<f64> = (1..=10).map(|k| k as f64 / 10.0).collect();
        let bounds: Vec<f64> = (1..=10).map(|k| normal_upper_quantile(nominal_level(&all[..k]) / 2.0)).collect();
        let mut crossed = 0;
        let mut state = 7u64;
        let mut gaussian = move || {
            // Box–Muller on SplitMix64 draws.
            let mut next = || {
                state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = state;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
            };
            let (u, v) = (next().max(1e-300), next());
            (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
        };
        let paths = 20_000;
        for _ in 0..paths {
            let mut s = 0.0;
            for (k, b) in bounds.iter().enumerate() {
                s += gaussian() * 0.1f64.sqrt();
                if (s / all[k].sqrt()).abs() >= *b {
                    crossed += 1;
                    break;
                }
            }
        }
        let rate = f64::from(crossed) / f64::from(paths);
        assert!((0.045..0.055).contains(&rate), "{rate}");
    }

    #[test]
    fn looks_count_starts() {
        assert_eq!(looks(2, 2, 32), [2.0 / 32.0]);
        assert_eq!(looks(2, 4, 4), [0.5, 0.75, 1.0]);
    }
}
