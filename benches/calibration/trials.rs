//! Trials of a stage's decision on the simulated engine's noise model, shared by the calibration
//! benchmark (`benches/allocation.rs`) and the seeded CI test of its error rate
//! (`tests/it/sequential.rs`): a trial draws the engine's own speed factors
//! (`perflab::sim::mixed_speed_factor` of `perflab::sim::draw`) and decides with the analysis's
//! own functions (the sequential design's nominal level, the gain's interval on start means, the
//! adoption rule, the policy of `analysis::allocation`).

use perflab::Metric;
use perflab::analysis::adoption::{self, Adoption, Best};
use perflab::analysis::allocation::{Costs, MOST_RUNS_A_START, Spread, runs_a_start};
use perflab::analysis::{sequential, stats};

/// The noise of the simulated engine, in all.
pub const NOISE: f64 = 0.05;
/// The noise threshold, percent.
pub const THRESHOLD: f64 = 1.0;

/// How a trial measures: the runs of each new start (the policy, or a fixed count).
#[derive(Clone, Copy, PartialEq)]
pub enum Way {
    Policy,
    Runs(usize),
}

/// One trial's end.
#[derive(Default, Clone, Copy)]
pub struct Tally {
    pub adopted: u32,
    pub kept: u32,
    pub unclear: u32,
    pub starts: usize,
    pub runs: usize,
}

impl Tally {
    pub fn add(&mut self, decision: &Adoption, starts: usize, runs: usize) {
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
pub struct Model {
    pub per_run: f64,
    pub seed: u64,
}

impl Model {
    pub fn value(&self, side: u64, start: u64, run: u64, mean: f64) -> f64 {
        let start_draw = perflab::sim::draw(self.seed, side, start);
        let run_draw = perflab::sim::draw(self.seed, 2 + side * 4096 + start, run);
        mean / perflab::sim::mixed_speed_factor(NOISE, self.per_run, start_draw, run_draw)
    }

    pub fn start(&self, side: u64, start: u64, runs: usize, mean: f64) -> Vec<f64> {
        (0..runs as u64).map(|r| self.value(side, start, r, mean)).collect()
    }
}

/// The stage's decision on the starts so far at `level`, as the analysis takes it.
pub fn decide(a: &[Vec<f64>], b: &[Vec<f64>], level: f64) -> Adoption {
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
pub fn most_starts(budget: f64, costs: Costs, m: usize) -> usize {
    let first = 2.0 * costs.of(1, 2);
    2 + ((budget - first).max(0.0) / (2.0 * costs.of(1, m))) as usize
}

/// A sequential trial: two first starts of 2 runs a side, then a start a side and a look, each
/// new start of `m` runs (the policy's choice from the spread of the first two starts, or a
/// fixed count), up to the starts the budget pays for at `m`; `levels[most][n]` is the
/// nominal level of the look at `n` starts of a design of `most`.
pub fn sequential_trial(
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
pub fn fixed_trial(model: &Model, gain: f64, starts: usize, runs: usize, tally: &mut Tally) {
    let a: Vec<Vec<f64>> = (0..starts as u64).map(|s| model.start(0, s, runs, 1000.0)).collect();
    let b: Vec<Vec<f64>> = (0..starts as u64).map(|s| model.start(1, s, runs, 1000.0 * (1.0 + gain))).collect();
    tally.add(&decide(&a, &b, stats::FIXED_LEVEL), 2 * starts, 2 * starts * runs);
}

pub fn trials(count: u64, per_run: f64, mut one: impl FnMut(&Model, &mut Tally)) -> Tally {
    let mut tally = Tally::default();
    for seed in 1..=count {
        one(&Model { per_run, seed }, &mut tally);
    }
    tally
}

/// The nominal level of the look at `n` starts a side of a design of `most`, `[most][n]`, for
/// every design a budget of `budget` makes (at every start size up to
/// [`MOST_RUNS_A_START`]; the others are empty).
pub fn levels(budget: f64, costs: Costs) -> Vec<Vec<f64>> {
    let designs: Vec<usize> = (1..=MOST_RUNS_A_START).map(|m| most_starts(budget, costs, m)).collect();
    (0..=most_starts(budget, costs, 1))
        .map(|most| {
            if !designs.contains(&most) {
                return Vec::new();
            }
            let looks = sequential::nominal_levels(&sequential::looks(2, most.max(2), most));
            (0..=most).map(|n| if n < 2 { 1.0 } else { looks[n - 2] }).collect()
        })
        .collect()
}
