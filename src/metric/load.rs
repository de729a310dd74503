//! Load curves under service-level objectives: whether a measured point meets an SLO, which
//! load a search measures next, where a curve's boundary is and why the search stopped, and the
//! Pareto frontier of throughput per GPU against tokens a second a user.
//!
//! Everything here is a pure function of what was measured, so the runner (choosing the next
//! probe while the engine serves) and the analysis (the page's boundary) decide the same way,
//! and a search interrupted half-way continues from the points it kept.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a load point varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Axis {
    /// Requests in flight at most (`--max-concurrency`).
    Concurrency,
    /// Requests a second (`--request-rate`).
    Rate,
}

impl Axis {
    /// The profile key (and benchmark placeholder) a point's load fills.
    pub fn key(self) -> &'static str {
        match self {
            Axis::Concurrency => "max_concurrency",
            Axis::Rate => "request_rate",
        }
    }
}

/// The statistic a latency limit holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stat {
    Mean,
    Median,
    P90,
    P95,
    P99,
}

/// The latency a limit holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Latency {
    Ttft,
    Tpot,
    Itl,
    E2el,
}

/// The statistics and latencies an SLO may limit, as their keys are spelled.
pub const STATS: &[(&str, Stat)] =
    &[("mean", Stat::Mean), ("median", Stat::Median), ("p90", Stat::P90), ("p95", Stat::P95), ("p99", Stat::P99)];
pub const LATENCIES: &[(&str, Latency)] =
    &[("ttft", Latency::Ttft), ("tpot", Latency::Tpot), ("itl", Latency::Itl), ("e2el", Latency::E2el)];

/// One limit: `stat` of `latency` at most `max_ms` milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Limit {
    pub stat: Stat,
    pub latency: Latency,
    pub max_ms: f64,
}

impl Limit {
    /// The limit a key such as `p99_ttft_ms` names, or `None` when it names none.
    pub fn parse(key: &str, max_ms: f64) -> Option<Limit> {
        let rest = key.strip_suffix("_ms")?;
        let (stat, latency) = rest.split_once('_')?;
        let stat = STATS.iter().find(|(k, _)| *k == stat)?.1;
        let latency = LATENCIES.iter().find(|(k, _)| *k == latency)?.1;
        Some(Limit { stat, latency, max_ms })
    }

    /// The canonical metric it reads (`p99_ttft_ms`).
    pub fn key(&self) -> String {
        format!("{}_{}_ms", self.stat_name(), self.latency_name())
    }

    pub fn stat_name(&self) -> &'static str {
        STATS.iter().find(|(_, s)| *s == self.stat).map_or("", |(k, _)| k)
    }

    pub fn latency_name(&self) -> &'static str {
        LATENCIES.iter().find(|(_, l)| *l == self.latency).map_or("", |(k, _)| k)
    }

    /// The percentile a benchmark must be asked to print for this limit (`--metric-percentiles`).
    pub fn percentile(&self) -> Option<u32> {
        match self.stat {
            Stat::P90 => Some(90),
            Stat::P95 => Some(95),
            Stat::P99 => Some(99),
            Stat::Mean | Stat::Median => None,
        }
    }
}

/// A service-level objective: latency limits and a minimum share of requests that succeed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Slo {
    pub limits: Vec<Limit>,
    /// The least share of requests (0 to 1) that must succeed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_success_rate: Option<f64>,
}

/// Whether a point met the SLO, and which limits it broke or could not be judged on.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Verdict {
    pub met: bool,
    /// Keys of the limits the point broke (`p99_ttft_ms`, `success_rate`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub broken: Vec<String>,
    /// Keys of limits whose metric the run did not report: such a point does not meet the SLO.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unmeasured: Vec<String>,
}

impl Slo {
    /// The per-request limits goodput counts with: each latency's tightest limit in the SLO. A
    /// request is good when its own TTFT, TPOT and E2E latency are within them (as vLLM's
    /// `--goodput` counts); a limit on ITL has no per-request form and is left out.
    pub fn goodput_limits(&self) -> crate::parse::requests::Limits {
        let tightest =
            |latency: Latency| self.limits.iter().filter(|l| l.latency == latency).map(|l| l.max_ms).reduce(f64::min);
        crate::parse::requests::Limits {
            ttft_ms: tightest(Latency::Ttft),
            tpot_ms: tightest(Latency::Tpot),
            e2el_ms: tightest(Latency::E2el),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.limits.is_empty() && self.min_success_rate.is_none()
    }

    /// Judges one point: `metric` reads its canonical metrics; `success_rate` is the share of
    /// its requests that succeeded.
    pub fn verdict(&self, metric: impl Fn(&str) -> Option<f64>, success_rate: Option<f64>) -> Verdict {
        let mut v = Verdict::default();
        for limit in &self.limits {
            let key = limit.key();
            match metric(&key) {
                Some(x) if x <= limit.max_ms => {}
                Some(_) => v.broken.push(key),
                None => v.unmeasured.push(key),
            }
        }
        if let Some(min) = self.min_success_rate {
            match success_rate {
                Some(r) if r + 1e-12 >= min => {}
                Some(_) => v.broken.push("success_rate".into()),
                None => v.unmeasured.push("success_rate".into()),
            }
        }
        v.met = v.broken.is_empty() && v.unmeasured.is_empty();
        v
    }
}

/// How a profile chooses its loads: a list, or a search for the largest load that meets the SLO.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Loads {
    List(Vec<u64>),
    /// `plateau`: stop once throughput stops growing while the SLO holds (for a search after
    /// the most throughput rather than the most load).
    Search {
        min: u64,
        max: u64,
        points: u32,
        step: u64,
        plateau: bool,
    },
}

impl Loads {
    /// The most points a configuration's curve measures.
    pub fn most_points(&self) -> usize {
        match self {
            Loads::List(v) => v.len(),
            Loads::Search { points, .. } => *points as usize,
        }
    }

    /// Whether `load` is a load this profile may measure.
    pub fn allows(&self, load: u64) -> bool {
        match self {
            Loads::List(v) => v.contains(&load),
            Loads::Search { min, max, .. } => (*min..=*max).contains(&load),
        }
    }
}

/// One measured point as the search sees it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Probe {
    pub load: u64,
    pub met: bool,
    /// The point's throughput (the figure whose growth tells a plateau).
    pub throughput: Option<f64>,
}

/// Why a curve's measurement ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stop {
    /// Every load of the list was measured.
    ListDone,
    /// A passing and a failing load one step apart: the boundary is exact to one step.
    Resolution,
    /// The largest allowed load met the SLO: the boundary is at least the upper bound.
    UpperBound,
    /// The smallest allowed load already broke the SLO: no load meets it.
    BelowLowerBound,
    /// The point budget ran out before the boundary was found to one step.
    Budget,
    /// Throughput grew less than [`PLATEAU`] over the last step while the SLO still held:
    /// more load would not serve more (only when the search is told to stop there).
    Plateau,
}

/// A step that raises throughput by less than this share (5%) counts as a plateau.
pub const PLATEAU: f64 = 0.05;

/// What the search does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    Measure(u64),
    Done(Stop),
}

/// The points by load; a load measured more than once meets the SLO only when every
/// measurement did, and its throughput is the median of theirs.
pub fn by_load(points: &[Probe]) -> BTreeMap<u64, Probe> {
    let mut grouped: BTreeMap<u64, Vec<&Probe>> = BTreeMap::new();
    for p in points {
        grouped.entry(p.load).or_default().push(p);
    }
    grouped
        .into_iter()
        .map(|(load, list)| {
            let mut t: Vec<f64> = list.iter().filter_map(|p| p.throughput).collect();
            t.sort_by(f64::total_cmp);
            let throughput = (!t.is_empty()).then(|| {
                let n = t.len();
                if n % 2 == 1 { t[n / 2] } else { (t[n / 2 - 1] + t[n / 2]) / 2.0 }
            });
            (load, Probe { load, met: list.iter().all(|p| p.met), throughput })
        })
        .collect()
}

/// The next load to measure, given the points measured so far (in any order, duplicates
/// allowed). Searches double from the lower bound until a load fails (never past the upper
/// bound), then bisect between the largest passing and the smallest failing load above it.
pub fn next(loads: &Loads, points: &[Probe]) -> Next {
    let seen = by_load(points);
    match loads {
        Loads::List(list) => match list.iter().find(|l| !seen.contains_key(l)) {
            Some(l) => Next::Measure(*l),
            None => Next::Done(Stop::ListDone),
        },
        Loads::Search { min, max, points: budget, step, plateau: stop_on_plateau } => {
            let step = (*step).max(1);
            let measured = seen.keys().filter(|l| (*min..=*max).contains(*l)).count();
            let Some(first) = seen.get(min) else {
                return if measured >= *budget as usize { Next::Done(Stop::Budget) } else { Next::Measure(*min) };
            };
            if !first.met {
                return Next::Done(Stop::BelowLowerBound);
            }
            let (lo, hi) = bracket(&seen, *min, *max);
            // A plateau is judged while doubling: during bisection the steps are small by design.
            if hi.is_none()
                && *stop_on_plateau
                && let Some(stop) = plateau(&seen, lo)
            {
                return Next::Done(stop);
            }
            let probe = match hi {
                None if lo >= *max => return Next::Done(Stop::UpperBound),
                None => lo.saturating_mul(2).min(*max),
                Some(hi) if hi - lo <= step => return Next::Done(Stop::Resolution),
                Some(hi) => lo + (hi - lo) / 2,
            };
            if measured >= *budget as usize { Next::Done(Stop::Budget) } else { Next::Measure(probe) }
        }
    }
}

/// The largest passing load reached from `min` through passing points (`lo`), and the
/// smallest failing load above it (`hi`), within the bounds.
fn bracket(seen: &BTreeMap<u64, Probe>, min: u64, max: u64) -> (u64, Option<u64>) {
    let hi = seen.values().filter(|p| !p.met && p.load > min && p.load <= max).map(|p| p.load).next();
    let lo = seen
        .values()
        .filter(|p| p.met && p.load >= min && p.load <= max && hi.is_none_or(|h| p.load < h))
        .map(|p| p.load)
        .max()
        .unwrap_or(min);
    (lo, hi)
}

/// A plateau: the passing load `lo` serves less than [`PLATEAU`] more than the passing load
/// measured just below it.
fn plateau(seen: &BTreeMap<u64, Probe>, lo: u64) -> Option<Stop> {
    let top = seen.get(&lo)?.throughput?;
    let below = seen.range(..lo).rev().find(|(_, p)| p.met)?.1.throughput?;
    (below > 0.0 && top < below * (1.0 + PLATEAU)).then_some(Stop::Plateau)
}

/// A measured curve's answer: the boundary, why it ended, and the loads that contradict a
/// monotone curve.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Answer {
    /// The largest load that met the SLO with no failing load below it; `None` when none did.
    pub boundary: Option<u64>,
    /// Why the measurement ended; `None` while the search would still measure.
    pub stop: Option<Stop>,
    /// Loads that met the SLO above a load that broke it (the curve is not monotone there).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub violations: Vec<u64>,
}

/// The answer of a curve measured so far.
pub fn answer(loads: &Loads, points: &[Probe]) -> Answer {
    let seen = by_load(points);
    let first_fail = seen.values().find(|p| !p.met).map(|p| p.load);
    let boundary = seen.values().filter(|p| p.met && first_fail.is_none_or(|f| p.load < f)).map(|p| p.load).max();
    let violations = match first_fail {
        Some(f) => seen.values().filter(|p| p.met && p.load > f).map(|p| p.load).collect(),
        None => Vec::new(),
    };
    let stop = match next(loads, points) {
        Next::Done(stop) => Some(stop),
        Next::Measure(_) => None,
    };
    Answer { boundary, stop, violations }
}

/// One configuration's point for the Pareto chart.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tradeoff {
    /// Output tokens a second per GPU.
    pub per_gpu: f64,
    /// Output tokens a second a user (1000 ÷ mean TPOT in ms).
    pub per_user: f64,
}

/// The indices of the points no other point dominates (at least as good on both axes and
/// better on one), in the order given; of identical points the first stays.
pub fn frontier(points: &[Tradeoff]) -> Vec<usize> {
    let dominates = |a: &Tradeoff, b: &Tradeoff| {
        a.per_gpu >= b.per_gpu && a.per_user >= b.per_user && (a.per_gpu > b.per_gpu || a.per_user > b.per_user)
    };
    (0..points.len())
        .filter(|&i| {
            let p = &points[i];
            p.per_gpu.is_finite()
                && p.per_user.is_finite()
                && !points.iter().any(|q| dominates(q, p))
                && !points[..i].iter().any(|q| q == p)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn search(min: u64, max: u64, points: u32) -> Loads {
        Loads::Search { min, max, points, step: 1, plateau: false }
    }

    /// Runs the search on a curve that meets the SLO up to `edge`; the probes and the answer.
    fn drive(loads: &Loads, meets: impl Fn(u64) -> bool) -> (Vec<u64>, Answer) {
        let mut points = Vec::new();
        let mut probes = Vec::new();
        while let Next::Measure(l) = next(loads, &points) {
            assert!(!probes.contains(&l), "{l} probed twice: {probes:?}");
            probes.push(l);
            points.push(Probe { load: l, met: meets(l), throughput: Some(l as f64) });
            assert!(probes.len() <= 64, "runaway: {probes:?}");
        }
        (probes, answer(loads, &points))
    }

    #[test]
    fn the_search_finds_the_edge_to_one_step_within_its_budget() {
        for edge in [1u64, 2, 3, 7, 20, 48, 100, 333, 511, 512] {
            let loads = search(1, 512, 20);
            let (probes, a) = drive(&loads, |l| l <= edge);
            assert_eq!(a.boundary, Some(edge), "{probes:?}");
            let stop = if edge == 512 { Stop::UpperBound } else { Stop::Resolution };
            assert_eq!(a.stop, Some(stop));
            assert!(probes.len() <= 19, "{edge}: {probes:?}");
        }
    }

    #[test]
    fn no_load_meets_the_slo_below_the_lower_bound() {
        let (probes, a) = drive(&search(4, 64, 10), |_| false);
        assert_eq!(probes, vec![4]);
        assert_eq!((a.boundary, a.stop), (None, Some(Stop::BelowLowerBound)));
    }

    #[test]
    fn a_flat_throughput_stops_the_search() {
        let loads = Loads::Search { min: 1, max: 512, points: 12, step: 1, plateau: true };
        let mut points = Vec::new();
        while let Next::Measure(l) = next(&loads, &points) {
            points.push(Probe { load: l, met: true, throughput: Some((l as f64).min(8.0)) });
        }
        let a = answer(&loads, &points);
        assert_eq!(a.stop, Some(Stop::Plateau));
        assert_eq!(a.boundary, Some(16));
    }

    #[test]
    fn duplicates_and_a_non_monotone_curve_give_one_boundary_and_say_so() {
        let loads = Loads::List(vec![1, 2, 4, 8]);
        let p = |load, met| Probe { load, met, throughput: None };
        let points = [p(1, true), p(2, true), p(2, false), p(4, false), p(8, true), p(1, true)];
        let a = answer(&loads, &points);
        assert_eq!(a.boundary, Some(1));
        assert_eq!(a.violations, vec![8]);
        assert_eq!(a.stop, Some(Stop::ListDone));
    }

    #[test]
    fn limits_read_their_keys_and_judge_points() {
        assert_eq!(Limit::parse("p99_ttft_ms", 500.0).unwrap().key(), "p99_ttft_ms");
        assert!(Limit::parse("p98_ttft_ms", 1.0).is_none());
        assert!(Limit::parse("p99_ttft", 1.0).is_none());
        let slo = Slo { limits: vec![Limit::parse("mean_tpot_ms", 50.0).unwrap()], min_success_rate: Some(0.99) };
        let v = slo.verdict(|k| (k == "mean_tpot_ms").then_some(50.0), Some(1.0));
        assert!(v.met);
        let v = slo.verdict(|_| Some(50.1), Some(0.98));
        assert_eq!(v.broken, vec!["mean_tpot_ms", "success_rate"]);
        let v = slo.verdict(|_| None, Some(1.0));
        assert!(!v.met && v.unmeasured == vec!["mean_tpot_ms"]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Random bounds, random monotone curves, random repeated measurements: every probe
        /// inside the bounds, none twice, one boundary, equal to the exhaustive scan's to one
        /// step (exact at step 1) whenever the search ends on resolution or a bound.
        #[test]
        fn the_search_stays_in_bounds_and_agrees_with_an_exhaustive_scan(
            min in 1u64..50, span in 0u64..2000, edge in 0u64..2100, budget in 1u32..16, dup in any::<bool>(),
        ) {
            let max = min + span;
            let loads = search(min, max, budget);
            let meets = |l: u64| l <= edge;
            let mut points = Vec::new();
            let mut probes = Vec::new();
            while let Next::Measure(l) = next(&loads, &points) {
                prop_assert!((min..=max).contains(&l), "probe {} outside [{}, {}]", l, min, max);
                prop_assert!(!probes.contains(&l));
                probes.push(l);
                points.push(Probe { load: l, met: meets(l), throughput: None });
                if dup { points.push(Probe { load: l, met: meets(l), throughput: None }); }
            }
            prop_assert!(probes.len() <= budget as usize);
            let a = answer(&loads, &points);
            let scan = (min..=max).filter(|l| meets(*l)).max();
            match a.stop {
                Some(Stop::Resolution) | Some(Stop::UpperBound) | Some(Stop::BelowLowerBound) => prop_assert_eq!(a.boundary, scan),
                Some(Stop::Budget) => prop_assert!(a.boundary <= scan),
                other => prop_assert!(false, "stop {:?}", other),
            }
            prop_assert!(a.violations.is_empty());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(10_000))]
        /// The frontier over random point sets with ties and duplicates keeps every point no
        /// other dominates, drops every dominated one, and keeps one of identical points.
        #[test]
        fn the_frontier_keeps_exactly_the_points_nothing_dominates(
            raw in proptest::collection::vec((0u8..6, 0u8..6), 0..24),
        ) {
            let pts: Vec<Tradeoff> = raw.iter().map(|(a, b)| Tradeoff { per_gpu: *a as f64, per_user: *b as f64 }).collect();
            let kept = frontier(&pts);
            for (i, p) in pts.iter().enumerate() {
                let dominated = pts.iter().any(|q| q.per_gpu >= p.per_gpu && q.per_user >= p.per_user && q != p);
                let first = pts.iter().position(|q| q == p) == Some(i);
                prop_assert_eq!(kept.contains(&i), !dominated && first, "point {} {:?}", i, p);
            }
        }
    }
}
