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
    /// The mean over the run's requests (`mean`).
    Mean,
    /// The median, the 50th percentile (`median`).
    Median,
    /// The 90th percentile (`p90`).
    P90,
    /// The 95th percentile (`p95`).
    P95,
    /// The 99th percentile (`p99`).
    P99,
}

/// The latency a limit holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Latency {
    /// Time to first token: from sending a request to its first output token (`ttft`).
    Ttft,
    /// Time per output token after the first, one request's average (`tpot`).
    Tpot,
    /// Inter-token latency: the gap between two consecutive output tokens (`itl`).
    Itl,
    /// End-to-end latency: from sending a request to its last token (`e2el`).
    E2el,
}

/// The statistics and latencies an SLO may limit, as their keys are spelled.
pub const STATS: &[(&str, Stat)] =
    &[("mean", Stat::Mean), ("median", Stat::Median), ("p90", Stat::P90), ("p95", Stat::P95), ("p99", Stat::P99)];
/// The latencies an SLO may limit, as their keys spell them (`p99_ttft_ms` is `p99` of `ttft`).
pub const LATENCIES: &[(&str, Latency)] =
    &[("ttft", Latency::Ttft), ("tpot", Latency::Tpot), ("itl", Latency::Itl), ("e2el", Latency::E2el)];

/// One limit: `stat` of `latency` at most `max_ms` milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Limit {
    /// The statistic over the run's requests that is held (mean, median or a percentile).
    pub stat: Stat,
    /// The latency the statistic is of.
    pub latency: Latency,
    /// The most the statistic may be, in milliseconds; a point at exactly this meets it.
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

    /// The statistic as its key spells it (`p99`).
    pub fn stat_name(&self) -> &'static str {
        STATS.iter().find(|(_, s)| *s == self.stat).map_or("", |(k, _)| k)
    }

    /// The latency as its key spells it (`ttft`).
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
    /// The latency limits, each of which a point must hold; empty when the SLO sets none.
    pub limits: Vec<Limit>,
    /// The least share of requests (0 to 1) that must succeed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_success_rate: Option<f64>,
}

/// Whether a point met the SLO, and which limits it broke or could not be judged on.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Verdict {
    /// The point met the SLO: `broken` and `unmeasured` are both empty.
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

    /// It sets no limit and no minimum success rate: every measured point meets it.
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
    /// The loads to measure, in the axis's unit (concurrent requests or requests a second),
    /// in the order given.
    List(Vec<u64>),
    /// `plateau`: stop once throughput stops growing while the SLO holds (for a search after
    /// the most throughput rather than the most load). `confirm`: how many measurements the
    /// boundary and the load above it each need before the search ends on [`Stop::Resolution`].
    Search {
        /// The smallest load searched and the first measured, in the axis's unit (at least 1).
        min: u64,
        /// The largest load searched, in the axis's unit: doubling stops there.
        max: u64,
        /// The most measurements the search takes, confirmations included (a count).
        points: u32,
        /// The search resolves once a passing and a failing load are at most this far apart,
        /// in the axis's unit (0 reads as 1).
        step: u64,
        /// Stop once throughput grows less than [`PLATEAU`] a doubling while the SLO holds.
        plateau: bool,
        /// The measurements the boundary and the load above it each need (a count; 1 takes
        /// each load once).
        confirm: u32,
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

/// What one measurement of a load found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// Every limit held.
    Met,
    /// A limit broke, too few requests succeeded, or the output was cut off.
    Missed,
    /// The measurement measured nothing: the engine crashed, ran out of memory, stopped
    /// answering or did not start, or the benchmark itself failed. It is no verdict on the load.
    Failed,
}

/// One measurement as the search sees it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Probe {
    /// The load measured, in the axis's unit: concurrent requests or requests a second.
    pub load: u64,
    /// Whether the measurement met the SLO, missed it or measured nothing.
    pub outcome: Outcome,
    /// The point's throughput (the figure whose growth tells a plateau): output tokens a
    /// second, else requests a second when the run reported no output throughput; `None` when
    /// it reported neither or measured nothing.
    pub throughput: Option<f64>,
}

/// The one rule for whether a load meets the SLO, from the measurements that judged it: when
/// more of them met it than missed it. One measurement decides alone; of two, a miss is a tie
/// and the load does not pass; of the three a confirmed boundary has, one miss is outvoted, as
/// one stalled measurement on a busy machine should be, while two are not. (A load that misses
/// as often as it meets is not one the configuration carries.)
pub fn meets(met: u32, missed: u32) -> bool {
    met > missed
}

/// Every measurement of one load in a search, counted.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Tally {
    /// The load counted, in the axis's unit: concurrent requests or requests a second.
    pub load: u64,
    /// Measurements that met the SLO.
    pub met: u32,
    /// Measurements that broke it.
    pub missed: u32,
    /// Measurements that measured nothing (see [`Outcome::Failed`]).
    pub failed: u32,
    /// The median throughput of the measurements that reported one.
    #[serde(skip)]
    pub throughput: Option<f64>,
}

impl Tally {
    /// Measurements that judged the load.
    pub fn judged(&self) -> u32 {
        self.met + self.missed
    }

    /// Whether the load meets the SLO, by [`meets`]; `None` while no measurement judged it.
    pub fn passes(&self) -> Option<bool> {
        (self.judged() > 0).then(|| meets(self.met, self.missed))
    }

    /// Met in one measurement and missed in another.
    pub fn mixed(&self) -> bool {
        self.met > 0 && self.missed > 0
    }
}

/// Why a curve's measurement ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stop {
    /// Every load of the list was measured.
    ListDone,
    /// A passing and a failing load one step apart, each measured as often as the search
    /// confirms: the boundary is exact to one step (or a band, see [`Answer::band`]).
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
    /// The load the search needed next failed to measure [`MAX_FAILURES`] times (the engine
    /// crashed or did not start): the curve is not whole, and its boundary is no answer.
    Failed,
}

/// A step that raises throughput by less than this share (5%) counts as a plateau.
pub const PLATEAU: f64 = 0.05;

/// How often a load's measurement may fail before the search gives up on it: the first
/// failure is measured again (in a new engine start, since a failed one rarely serves on).
pub const MAX_FAILURES: u32 = 2;

/// The measurements the boundary and the load above it each get when a study does not say.
pub const DEFAULT_CONFIRM: u32 = 3;

/// What the search does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Measure this load next (in the axis's unit); it may be one already measured, to
    /// confirm it or after a measurement that failed.
    Measure(u64),
    /// The search is over, for this reason.
    Done(Stop),
}

/// Every load's measurements, counted; its throughput is the median of theirs.
pub fn by_load(points: &[Probe]) -> BTreeMap<u64, Tally> {
    let mut grouped: BTreeMap<u64, Vec<&Probe>> = BTreeMap::new();
    for p in points {
        grouped.entry(p.load).or_default().push(p);
    }
    grouped
        .into_iter()
        .map(|(load, list)| {
            let mut t: Vec<f64> =
                list.iter().filter(|p| p.outcome != Outcome::Failed).filter_map(|p| p.throughput).collect();
            t.sort_by(f64::total_cmp);
            let throughput = (!t.is_empty()).then(|| {
                let n = t.len();
                if n % 2 == 1 { t[n / 2] } else { (t[n / 2 - 1] + t[n / 2]) / 2.0 }
            });
            let count = |o: Outcome| list.iter().filter(|p| p.outcome == o).count() as u32;
            let (met, missed, failed) = (count(Outcome::Met), count(Outcome::Missed), count(Outcome::Failed));
            (load, Tally { load, met, missed, failed, throughput })
        })
        .collect()
}

/// The next load to measure, given the measurements so far (in any order, a load measured any
/// number of times). Searches double from the lower bound until a load fails (never past the
/// upper bound), then bisect between the largest passing and the smallest failing load above
/// it; once the two are a step apart, each is measured again until it has `confirm`
/// measurements. A load passes by [`meets`]: a passing load that misses as often as it met no
/// longer passes, so the bisection goes on below it, and a failing load that most of its
/// measurements met passes again, so the search goes on above it. A measurement that failed is no verdict: the search asks for the same load
/// again, and ends on [`Stop::Failed`] once it failed [`MAX_FAILURES`] times. The budget counts
/// every measurement that judged a load, confirmations included.
pub fn next(loads: &Loads, points: &[Probe]) -> Next {
    let seen = by_load(points);
    let wanted = |load: u64| match seen.get(&load) {
        Some(t) if t.failed >= MAX_FAILURES => Next::Done(Stop::Failed),
        _ => Next::Measure(load),
    };
    let judged: BTreeMap<u64, Tally> = seen.iter().filter(|(_, t)| t.judged() > 0).map(|(l, t)| (*l, *t)).collect();
    match loads {
        Loads::List(list) => match list.iter().find(|l| !judged.contains_key(l)) {
            Some(l) => wanted(*l),
            None => Next::Done(Stop::ListDone),
        },
        Loads::Search { min, max, points: budget, step, plateau: stop_on_plateau, confirm } => {
            let step = (*step).max(1);
            let measured: u32 = judged.range(*min..=*max).map(|(_, t)| t.judged()).sum();
            let spent = measured >= *budget;
            let Some(first) = judged.get(min) else {
                return if spent { Next::Done(Stop::Budget) } else { wanted(*min) };
            };
            if first.passes() == Some(false) {
                return Next::Done(Stop::BelowLowerBound);
            }
            let (lo, hi) = bracket(&judged, *min, *max);
            // A plateau is judged while doubling: during bisection the steps are small by design.
            if hi.is_none()
                && *stop_on_plateau
                && let Some(stop) = plateau(&judged, lo)
            {
                return Next::Done(stop);
            }
            let probe = match hi {
                None if lo >= *max => return Next::Done(Stop::UpperBound),
                None => lo.saturating_mul(2).min(*max),
                Some(hi) if hi - lo <= step => {
                    let short = [lo, hi].into_iter().find(|l| judged.get(l).map_or(0, Tally::judged) < *confirm);
                    match short {
                        Some(l) => l,
                        None => return Next::Done(Stop::Resolution),
                    }
                }
                Some(hi) => lo + (hi - lo) / 2,
            };
            if spent { Next::Done(Stop::Budget) } else { wanted(probe) }
        }
    }
}

/// The largest passing load reached from `min` through passing loads (`lo`), and the smallest
/// failing load above it (`hi`), within the bounds.
fn bracket(seen: &BTreeMap<u64, Tally>, min: u64, max: u64) -> (u64, Option<u64>) {
    let hi =
        seen.values().filter(|t| t.passes() == Some(false) && t.load > min && t.load <= max).map(|t| t.load).next();
    let lo = seen
        .values()
        .filter(|t| t.passes() == Some(true) && t.load >= min && t.load <= max && hi.is_none_or(|h| t.load < h))
        .map(|t| t.load)
        .max()
        .unwrap_or(min);
    (lo, hi)
}

/// A plateau: the passing load `lo` serves less than [`PLATEAU`] more than the passing load
/// measured just below it.
fn plateau(seen: &BTreeMap<u64, Tally>, lo: u64) -> Option<Stop> {
    let top = seen.get(&lo)?.throughput?;
    let below = seen.range(..lo).rev().find(|(_, t)| t.passes() == Some(true))?.1.throughput?;
    (below > 0.0 && top < below * (1.0 + PLATEAU)).then_some(Stop::Plateau)
}

/// Where a curve's boundary is not one load: `low` met the SLO (by [`meets`]), `high` is the
/// smallest load above it that missed it in every measurement, and the loads between went both
/// ways, missing at least as often as they met.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Band {
    /// The largest load that met the SLO below the loads that went both ways: the boundary
    /// (in the axis's unit).
    pub low: u64,
    /// The smallest load above `low` that missed in every measurement, else the largest load
    /// measured (in the axis's unit).
    pub high: u64,
}

/// A measured curve's answer: the boundary, why it ended, how sure it is, and the loads that
/// contradict a monotone curve.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Answer {
    /// The largest load that met the SLO (by [`meets`]) with no failing load below it; `None`
    /// when none did.
    pub boundary: Option<u64>,
    /// Why the measurement ended; `None` while the search would still measure.
    pub stop: Option<Stop>,
    /// The boundary's and the next load's measurements, when the search ended on resolution.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub confirmed: Vec<Tally>,
    /// Set when the loads above the boundary went both ways: the answer is a band, not a load.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub band: Option<Band>,
    /// Loads whose measurement failed at least once (engine crash, failed start, ...), each
    /// measured again or, with [`Stop::Failed`], given up on.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<Tally>,
    /// Loads that met the SLO above a load that broke it (the curve is not monotone there).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub violations: Vec<u64>,
}

impl Answer {
    /// The boundary is one load, exact to one step: the search resolved it, both sides were
    /// confirmed without a contradiction, and the two are one load apart.
    pub fn exact(&self) -> bool {
        self.stop == Some(Stop::Resolution)
            && self.band.is_none()
            && matches!(self.confirmed.as_slice(), [a, b] if b.load == a.load + 1)
    }
}

/// The answer of a curve measured so far.
pub fn answer(loads: &Loads, points: &[Probe]) -> Answer {
    let seen = by_load(points);
    let judged = || seen.values().filter(|t| t.judged() > 0);
    let first_fail = judged().find(|t| t.passes() == Some(false)).map(|t| t.load);
    let boundary =
        judged().filter(|t| t.passes() == Some(true) && first_fail.is_none_or(|f| t.load < f)).map(|t| t.load).max();
    let violations = match first_fail {
        Some(f) => judged().filter(|t| t.passes() == Some(true) && t.load > f).map(|t| t.load).collect(),
        None => Vec::new(),
    };
    let stop = match next(loads, points) {
        Next::Done(stop) => Some(stop),
        Next::Measure(_) => None,
    };
    let mut confirmed = Vec::new();
    let mut band = None;
    if stop == Some(Stop::Resolution)
        && let (Some(low), Some(above)) = (boundary, first_fail)
    {
        confirmed = [low, above].iter().filter_map(|l| seen.get(l).copied()).collect();
        if seen[&above].mixed() {
            // The smallest load above that missed every time, or else the largest measured.
            let high = judged()
                .filter(|t| t.load > above && t.met == 0)
                .map(|t| t.load)
                .next()
                .or_else(|| judged().map(|t| t.load).max())
                .unwrap_or(above);
            band = Some(Band { low, high });
        }
    }
    let failed = seen.values().filter(|t| t.failed > 0).copied().collect();
    Answer { boundary, stop, confirmed, band, failed, violations }
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
mod tests;
