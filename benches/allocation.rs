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

#[path = "calibration/trials.rs"]
mod trials;

use perflab::analysis::allocation::{Costs, MOST_RUNS_A_START};
use trials::*;

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
    let levels = levels(budget, costs);
    // A table row: the identical case's adoptions, the 2% case's ends and means a trial.
    let row = |mix: &str, way: &str, null: &Tally, real: &Tally| {
        let per = |x: f64| x / count as f64;
        println!(
            "| {mix} | {way} | {} | {} | {} | {} | {:.1} | {:.1} | {:.1} |",
            null.adopted,
            real.adopted,
            real.kept,
            real.unclear,
            per(real.starts as f64),
            per(real.runs as f64),
            per(costs.of(real.starts, real.runs))
        );
    };
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
            row(mix, &format!("sequential, {name}"), &null, &real);
        }
        let wanted = policy_adopted.max((count as u32 * 9).div_ceil(10));
        match cheapest_fixed(count, per_run, costs, wanted) {
            Some((starts, runs, real)) => {
                let null = trials(count, per_run, |m, t| fixed_trial(m, 0.0, starts, runs, t));
                row(
                    mix,
                    &format!("cheapest fixed design adopting ≥ {wanted}: {starts} starts × {runs} runs"),
                    &null,
                    &real,
                );
            }
            None => println!("| {mix} | no fixed design up to 80 starts adopts ≥ {wanted} | | | | | | | |"),
        }
    }
}
