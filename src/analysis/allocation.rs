//! Where `perflab run --until-confident` spends its next measurement: on a new engine start, or
//! on more benchmark runs inside one.
//!
//! A run's measurements vary at two levels: between engine starts (what a start draws: the
//! placement of memory, the clocks, the warm state of the machine) and between the benchmarks
//! of one start. The decision compares the means of starts (see [`crate::study::Study::start_values`]),
//! so a start of `m` runs contributes one value whose variance is `σ²_between + σ²_within / m`,
//! for the cost `start + m · run`. The variance of the decision's difference per unit of cost is
//! smallest for
//!
//! `m* = √((start / run) · (σ²_within / σ²_between))`
//!
//! the optimum of two-stage sampling (Cochran, "Sampling Techniques", 3rd ed., 1977, ch. 10:
//! the number of second-stage units that minimises the variance for a fixed cost). When the
//! starts differ much more than the runs of one start do, `m*` is 1 and every measurement is a
//! new start; when the benchmark itself is noisy and a start is costly, several runs a start
//! buy more.
//!
//! The two variances are estimated from the measurements so far, both contenders pooled, each
//! centred on its own mean (so the estimate says nothing of the difference the decision is
//! about, and choosing `m` from it leaves the decision's error rate alone): within a start, the
//! pooled variance of runs about their start's mean; between starts, the variance of start
//! means less the part the within-start noise explains (the one-way analysis of variance's
//! estimator, floored at zero).

/// The two-level spread of the measurements so far.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// Variance between engine starts (of a start's true mean), in the values' unit squared.
    pub between: f64,
    /// Variance of one benchmark run about its start's mean; `None` while no start has two runs.
    pub within: Option<f64>,
}

impl Spread {
    /// The spread of `sides`: for each contender, the values of each engine start's runs.
    /// `None` until some side has two starts (nothing says how starts differ).
    pub fn of(sides: &[&[Vec<f64>]]) -> Option<Spread> {
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let (mut within_ss, mut within_df) = (0.0, 0usize);
        let (mut between_ss, mut between_df) = (0.0, 0usize);
        let (mut inverse_runs, mut starts) = (0.0, 0usize);
        for side in sides {
            let starts_of: Vec<&Vec<f64>> = side.iter().filter(|s| !s.is_empty()).collect();
            for runs in &starts_of {
                let m = mean(runs);
                within_ss += runs.iter().map(|v| (v - m).powi(2)).sum::<f64>();
                within_df += runs.len() - 1;
            }
            if starts_of.len() < 2 {
                continue;
            }
            let means: Vec<f64> = starts_of.iter().map(|r| mean(r)).collect();
            let centre = mean(&means);
            between_ss += means.iter().map(|v| (v - centre).powi(2)).sum::<f64>();
            between_df += means.len() - 1;
            inverse_runs += starts_of.iter().map(|r| 1.0 / r.len() as f64).sum::<f64>();
            starts += starts_of.len();
        }
        if between_df == 0 || !(within_ss.is_finite() && between_ss.is_finite()) {
            return None;
        }
        let within = (within_df > 0).then(|| within_ss / within_df as f64);
        let of_means = between_ss / between_df as f64;
        let between = (of_means - within.unwrap_or(0.0) * inverse_runs / starts as f64).max(0.0);
        Some(Spread { between, within })
    }
}

/// What one engine start and one benchmark run cost, in any one unit (seconds by default).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Costs {
    /// An engine start: from the command to the engine serving, and its stop.
    pub start: f64,
    /// One benchmark run in a started engine.
    pub run: f64,
}

impl Costs {
    /// The cost of `starts` engine starts that ran `runs` benchmarks in all.
    pub fn of(&self, starts: usize, runs: usize) -> f64 {
        self.start * starts as f64 + self.run * runs as f64
    }
}

/// The costs of a study: its `start_cost` and `run_cost`, else the mean start and benchmark
/// times its manifests recorded, else a start costing as much as a run.
pub fn study_costs(study: &crate::study::Study) -> Costs {
    let mean = |values: Vec<f64>| {
        let values: Vec<f64> = values.into_iter().filter(|v| v.is_finite() && *v > 0.0).collect();
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    };
    let recorded =
        |f: fn(&crate::study::Manifest) -> Option<f64>| mean(study.manifests.values().filter_map(f).collect());
    let start = study.spec.start_cost.as_ref().map(|c| *c.get_ref()).or_else(|| recorded(|m| m.start_seconds));
    let run = study.spec.run_cost.as_ref().map(|c| *c.get_ref()).or_else(|| recorded(|m| m.benchmark_seconds));
    match (start, run) {
        (Some(start), Some(run)) => Costs { start, run },
        _ => Costs { start: 1.0, run: 1.0 },
    }
}

/// The most benchmark runs the policy puts in one engine start.
pub const MOST_RUNS_A_START: usize = 8;

/// The benchmark runs the next engine start of each contender should take: the `m` from 1 to
/// `most` that minimises `(σ²_between + σ²_within / m) · (start + m · run)`, the variance of a
/// start's mean times its cost. Without an estimate (fewer than two starts a side), `default`;
/// while no start has had two runs (the two levels cannot be told apart yet), two runs, so
/// that the next start says how noisy the benchmark is.
pub fn runs_a_start(spread: Option<Spread>, costs: Costs, default: usize, most: usize) -> usize {
    let most = most.max(1);
    let Some(spread) = spread else { return default.clamp(1, most) };
    let Some(within) = spread.within else { return 2.min(most) };
    let (start, run) = (costs.start.max(0.0), costs.run.max(1e-9));
    let per_cost = |m: usize| (spread.between + within / m as f64) * (start + m as f64 * run);
    (1..=most).min_by(|a, b| per_cost(*a).total_cmp(&per_cost(*b))).unwrap_or(1)
}

/// What a stage's decision cost: the engine starts and benchmark runs of its two contenders on
/// the target profile (the variant it judged and its base), and the time they took.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct DecisionCost {
    /// The stage; empty for the sum of every stage's (a run two stages share counted once).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub stage: String,
    /// Engine starts of both contenders that gave a counted measurement (a count).
    pub starts: usize,
    /// Their counted benchmark runs (a count).
    pub runs: usize,
    /// Seconds of those starts (to ready) and benchmarks, as their manifests recorded them.
    pub seconds: f64,
}

impl DecisionCost {
    fn add(&mut self, study: &crate::study::Study, key: &crate::study::RunKey) {
        let groups = study.start_groups(key, study.spec.objective.get_ref());
        self.starts += groups.len();
        self.runs += groups.iter().map(|(_, values)| values.len()).sum::<usize>();
        for a in study.attempts.get(key).into_iter().flatten().filter(|a| a.succeeded()) {
            let m = a.manifest.as_ref();
            let bench = m.and_then(|m| m.benchmark_seconds).unwrap_or(0.0) * (1 + a.repeats.len()) as f64;
            self.seconds += m.and_then(|m| m.start_seconds).unwrap_or(0.0) + bench;
        }
    }
}

/// The two contenders of every stage decided on an interval (both measured in two starts or
/// more), in the stages' order.
fn decided(study: &crate::study::Study, chain: &super::Chain) -> Vec<(String, Vec<crate::study::RunKey>)> {
    use super::Adoption;
    let target = study.spec.target_profile.get_ref();
    let mut out = Vec::new();
    for stage in &chain.stages {
        let variant = match &stage.adoption {
            Adoption::Adopted { variant, interval: Some(_), .. }
            | Adoption::WithinNoise { variant, interval: Some(_), .. }
            | Adoption::NotBetter { variant, interval: Some(_), .. }
            | Adoption::CannotTell { variant, .. } => variant,
            _ => continue,
        };
        let judged = crate::study::RunKey::new(&stage.id, variant, target);
        out.push((stage.id.clone(), std::iter::once(judged).chain(stage.base.run.clone()).collect()));
    }
    out
}

/// What each stage decided on an interval cost, in the stages' order.
pub fn decision_costs(study: &crate::study::Study, chain: &super::Chain) -> Vec<DecisionCost> {
    let mut out = Vec::new();
    for (stage, keys) in decided(study, chain) {
        let mut cost = DecisionCost { stage, ..DecisionCost::default() };
        keys.iter().for_each(|k| cost.add(study, k));
        out.push(cost);
    }
    out
}

/// What every stage decided on an interval cost together, a run that two stages share (one's
/// winner, the next one's base) counted once; `None` when no stage was.
pub fn decisions_total(study: &crate::study::Study, chain: &super::Chain) -> Option<DecisionCost> {
    let mut keys: Vec<crate::study::RunKey> = decided(study, chain).into_iter().flat_map(|(_, k)| k).collect();
    if keys.is_empty() {
        return None;
    }
    keys.sort();
    keys.dedup();
    let mut cost = DecisionCost::default();
    keys.iter().for_each(|k| cost.add(study, k));
    Some(cost)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_levels_are_told_apart() {
        // Starts differ by ±10, runs of a start by ±1: almost all of the spread is between.
        let a = vec![vec![100.0, 101.0], vec![110.0, 111.0], vec![90.0, 91.0]];
        let b = vec![vec![200.0, 199.0], vec![210.0, 209.0]];
        let s = Spread::of(&[&a, &b]).unwrap();
        assert!((s.within.unwrap() - 0.5).abs() < 1e-9, "{s:?}");
        assert!(s.between > 80.0 && s.between < 130.0, "{s:?}");
        // The sides' own means do not count as spread: a 100 apart changes nothing.
        let shifted: Vec<Vec<f64>> = b.iter().map(|r| r.iter().map(|v| v + 100.0).collect()).collect();
        assert_eq!(Spread::of(&[&a, &shifted]), Some(s));
        // Runs of a start that differ as much as starts do: nothing is left between.
        let noisy = vec![vec![90.0, 110.0], vec![110.0, 90.0]];
        assert_eq!(Spread::of(&[&noisy]).unwrap().between, 0.0);
        assert!(Spread::of(&[&a[..1], &b[..1]]).is_none(), "one start a side");
        assert_eq!(Spread::of(&[&[vec![1.0], vec![2.0]]]).unwrap().within, None);
    }

    #[test]
    fn the_policy_buys_what_shrinks_the_interval() {
        let costs = Costs { start: 2.0, run: 1.0 };
        let starts_differ = Spread { between: 4.0, within: Some(0.25) };
        let runs_differ = Spread { between: 0.25, within: Some(4.0) };
        assert_eq!(runs_a_start(Some(starts_differ), costs, 2, 8), 1);
        // m* = √(2 · 16) ≈ 5.7
        let m = runs_a_start(Some(runs_differ), costs, 2, 8);
        assert!((5..=6).contains(&m), "{m}");
        assert_eq!(runs_a_start(Some(Spread { between: 0.0, within: Some(1.0) }), costs, 2, 8), 8);
        // A start that costs nothing: a new start is never worse than another run.
        assert_eq!(runs_a_start(Some(runs_differ), Costs { start: 0.0, run: 1.0 }, 2, 8), 1);
        assert_eq!(runs_a_start(None, costs, 3, 8), 3);
        assert_eq!(runs_a_start(Some(Spread { between: 1.0, within: None }), costs, 1, 8), 2);
        assert_eq!(costs.of(3, 7), 13.0);
    }
}
