//! What `--until-confident` buys, and for what cost, when the noise lies between engine starts,
//! within one, or both: the calibration of the decision and of the policy that picks the runs
//! of the next start, on the simulated engine's noise model (not the engine: a trial draws the
//! engine's own speed factors, `perflab::sim::mixed_speed_factor` of `perflab::sim::draw`,
//! instead of serving requests), decided by the analysis's own functions (the sequential
//! design's nominal level, the gain's interval on start means, the adoption rule).
//!
//! Three noise mixes of ±5% in all (`--sim-noise 0.05`): start-dominated (`--sim-noise-per-run
//! 0.2`), even (0.5), run-dominated (0.8); the noise threshold 1%; B identical to A, and B 2%
//! faster. Each way of measuring is run over the same seeded trials:
//! - the policy: a first start of 2 runs a side, then a look after every start, each new start
//!   of as many runs as `allocation::runs_a_start` picks from the spread so far;
//! - the same design with every start of one run, and of 2 runs (the study's `repeats`, what
//!   `--until-confident` did before the policy);
//! - every fixed design of `s` starts a side of `m` runs (one look at 95%), from which the
//!   cheapest that adopts B at least as often as the policy is picked.
//!
//! A trial's cost is `starts × START_COST + runs × RUN_COST`, both sides.
//!
//!   nice -n 19 cargo bench --bench allocation -- [TRIALS] [START_COST] [RUN_COST] [BUDGET]
//!   (default 1000 trials a case, a start costing 2 and a run 1, a budget of 240 in that unit)

use perflab::Metric;
use perflab::analysis::adoption::{self, Adoption, Best};
use perflab::analysis::allocation::{Costs, MOST_RUNS_A_START, Spread, runs_a_start};
use perflab::analysis::{sequential, stats};

/// The noise of the simulated engine, in all.
const NOISE: f64 = 0.05;
/// The noise threshold, percent.
const THRESHOLD: f64 = 1.0;

/// How a trial measures: the runs of each new start (the policy, or a fixed count).
#[derive(Clone, Copy, PartialEq)]
enum Way {
    Policy,
    Runs(usize),
}

/// One trial's end.
#[derive(Default, Clone, Copy)]
struct Tally {
    adopted: u32,
    kept: u32,
    unclear: u32,
    starts: usize,
    runs: usize,
}

impl Tally {
    fn add(&mut self, decision: &Adoption, starts: usize, runs: usize) {
        self.starts += starts;
        self.runs += runs;
        match decision {
            Adoption::Adopted { .. } => self.adopted += 1,
            Adoption::CannotTell { .. } => self.unclear += 1,
            _ => self.kept += 1,
        }
    }
}

/// The trial's noise: the value of run `run` of start `start` of side `side`.
struct Model {
    per_run: f64,
    seed: u64,
}

impl Model {
    fn value(&self, side: u64, start: u64, run: u64, mean: f64) -> f64 {
        let start_draw = perflab::sim::draw(self.seed, side, start);
        let run_draw = perflab::sim::draw(self.seed, 2 + side * 4096 + start, run);
        mean / perflab::sim::mixed_speed_factor(NOISE, self.per_run, start_draw, run_draw)
    }

    fn start(&self, side: u64, start: u64, runs: usize, mean: f64) -> Vec<f64> {
        (0..runs as u64).map(|r| self.value(side, start, r, mean)).collect()
    }
}

/// The stage's decision on the starts so far at `level`, as the analysis takes it.
fn decide(a: &[Vec<f64>], b: &[Vec<f64>], level: f64) -> Adoption {
    let tps = Metric::of("total_token_throughput");
    let means = |s: &[Vec<f64>]| s.iter().map(|r| r.iter().sum::<f64>() / r.len() as f64).collect::<Vec<_>>();
    let (sa, sb) = (stats::Sample::of(&means(a)).unwrap(), stats::Sample::of(&means(b)).unwrap());
    let interval = stats::gain_at(&tps, &sb, &sa, level);
    let challenger = Best { variant: "b", value: sb.mean, is_base: false, interval };
    if sb.mean > sa.mean {
        adoption::decide(&tps, THRESHOLD, Some(sa.mean), Some(challenger), None, None, None)
    } else {
        let base = Best { variant: "a", value: sa.mean, is_base: true, interval: None };
        adoption::decide(&tps, THRESHOLD, Some(sa.mean), Some(base), Some(challenger), None, None)
    }
}

/// The most starts a side of the design `perflab run --until-confident --budget TIME` makes
/// (`exec::confidence::plan_designs`) for a study of one start of 2 runs a side, the budget in
/// the costs' unit: the first added start a side is of 2 runs, every later one of `m`.
fn most_starts(budget: f64, costs: Costs, m: usize) -> usize {
    let first = 2.0 * costs.of(1, 2);
    2 + ((budget - first).max(0.0) / (2.0 * costs.of(1, m))) as usize
}

/// A sequential trial: two first starts of 2 runs a side, then a start a side and a look, each
/// new start of `m` runs (the policy's choice from the spread of the first two starts, or a
/// fixed count), up to the starts the budget pays for at `m`; `levels[most][n]` is the
/// nominal level of the look at `n` starts of a design of `most`.
fn sequential_trial(
    model: &Model,
    gain: f64,
    way: Way,
    costs: Costs,
    budget: f64,
    levels: &[Vec<f64>],
    tally: &mut Tally,
) {
    let mut a = vec![model.start(0, 0, 2, 1000.0), model.start(0, 1, 2, 1000.0)];
    let mut b = vec![model.start(1, 0, 2, 1000.0 * (1.0 + gain)), model.start(1, 1, 2, 1000.0 * (1.0 + gain))];
    let m = match way {
        Way::Runs(m) => m,
        Way::Policy => runs_a_start(Spread::of(&[&a, &b]), costs, 2, MOST_RUNS_A_START),
    };
    let most = most_starts(budget, costs, m).min(levels.len() - 1);
    for (n, level) in levels[most].iter().enumerate().skip(2) {
        if n > 2 {
            a.push(model.start(0, n as u64 - 1, m, 1000.0));
            b.push(model.start(1, n as u64 - 1, m, 1000.0 * (1.0 + gain)));
        }
        let decision = decide(&a, &b, *level);
        if !decision.unclear() || n == most {
            let runs: usize = a.iter().chain(&b).map(Vec::len).sum();
            tally.add(&decision, 2 * n, runs);
            return;
        }
    }
}

/// A fixed design's trial: `starts` of `runs` a side, one look at 95%.
fn fixed_trial(model: &Model, gain: f64, starts: usize, runs: usize, tally: &mut Tally) {
    let a: Vec<Vec<f64>> = (0..starts as u64).map(|s| model.start(0, s, runs, 1000.0)).collect();
    let b: Vec<Vec<f64>> = (0..starts as u64).map(|s| model.start(1, s, runs, 1000.0 * (1.0 + gain))).collect();
    tally.add(&decide(&a, &b, stats::FIXED_LEVEL), 2 * starts, 2 * starts * runs);
}

fn trials(count: u64, per_run: f64, mut one: impl FnMut(&Model, &mut Tally)) -> Tally {
    let mut tally = Tally::default();
    for seed in 1..=count {
        one(&Model { per_run, seed }, &mut tally);
    }
    tally
}

/// The cheapest fixed design that adopts a 2% gain in at least `wanted` of `count` trials:
/// (starts a side, runs a start, its tally). For each runs a start, the fewest starts that do.
fn cheapest_fixed(count: u64, per_run: f64, costs: Costs, wanted: u32) -> Option<(usize, usize, Tally)> {
    let mut best: Option<(usize, usize, Tally)> = None;
    let cost = |t: &Tally| costs.of(t.starts, t.runs);
    for runs in 1..=MOST_RUNS_A_START {
        for starts in 2..=80 {
            let t = trials(count, per_run, |m, t| fixed_trial(m, 0.02, starts, runs, t));
            if t.adopted >= wanted {
                if best.as_ref().is_none_or(|(_, _, b)| cost(&t) < cost(b)) {
                    best = Some((starts, runs, t));
                }
                break;
            }
        }
    }
    best
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let arg = |i: usize, default: f64| args.get(i).and_then(|a| a.parse::<f64>().ok()).unwrap_or(default);
    let count = arg(0, 1000.0) as u64;
    let costs = Costs { start: arg(1, 2.0), run: arg(2, 1.0) };
    let budget = arg(3, 240.0);
    let longest = most_starts(budget, costs, 1);
    let levels: Vec<Vec<f64>> = (0..=longest)
        .map(|most| {
            let level = |n: usize| sequential::nominal_level(&sequential::looks(2, n, most));
            (0..=most).map(|n| if n < 2 { 1.0 } else { level(n) }).collect()
        })
        .collect();
    let per_trial = |t: &Tally| costs.of(t.starts, t.runs) / count as f64;
    println!(
        "{count} seeded trials a row; noise ±{}%, threshold {THRESHOLD}%; a start costs {}, a run {}; sequential designs of a budget of {budget} (`--budget` in time)",
        NOISE * 100.0,
        costs.start,
        costs.run
    );
    println!();
    println!(
        "| mix | way | identical: adopted | 2% faster: adopted | kept | cannot tell | starts a trial | runs a trial | cost a trial |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for (mix, per_run) in [("start-dominated", 0.2), ("even", 0.5), ("run-dominated", 0.8)] {
        let mut policy_adopted = 0;
        for (name, way) in [("policy", Way::Policy), ("1 run a start", Way::Runs(1)), ("2 runs a start", Way::Runs(2))]
        {
            let null = trials(count, per_run, |m, t| sequential_trial(m, 0.0, way, costs, budget, &levels, t));
            let real = trials(count, per_run, |m, t| sequential_trial(m, 0.02, way, costs, budget, &levels, t));
            if way == Way::Policy {
                policy_adopted = real.adopted;
            }
            println!(
                "| {mix} | sequential, {name} | {} | {} | {} | {} | {:.1} | {:.1} | {:.1} |",
                null.adopted,
                real.adopted,
                real.kept,
                real.unclear,
                real.starts as f64 / count as f64,
                real.runs as f64 / count as f64,
                per_trial(&real)
            );
        }
        let wanted = policy_adopted.max((count as u32 * 9).div_ceil(10));
        match cheapest_fixed(count, per_run, costs, wanted) {
            Some((starts, runs, real)) => {
                let null = trials(count, per_run, |m, t| fixed_trial(m, 0.0, starts, runs, t));
                println!(
                    "| {mix} | cheapest fixed design adopting ≥ {wanted}: {starts} starts × {runs} runs | {} | {} | {} | {} | {:.1} | {:.1} | {:.1} |",
                    null.adopted,
                    real.adopted,
                    real.kept,
                    real.unclear,
                    real.starts as f64 / count as f64,
                    real.runs as f64 / count as f64,
                    per_trial(&real)
                );
            }
            None => println!("| {mix} | no fixed design up to 80 starts adopts ≥ {wanted} | | | | | | | |"),
        }
    }
}
