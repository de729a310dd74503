//! Decisions taken at every look of `perflab run --until-confident`, on seeded simulated
//! measurements with the simulated engine's noise (half drawn at each engine start, half at
//! each benchmark): the error rate the design promises holds however often the runner looks,
//! where testing each look at the fixed 95% does not. The decision goes through the functions
//! the analysis replays a stage with: the stage's level at its look (`decision_level`, from
//! the design its manifests record), the gain's interval (`gain_at`) and the adoption rule.

use crate::common;

use perflab::Metric;
use perflab::analysis::adoption::{self, Adoption, Best};
use perflab::analysis::{analyze, chain, stats};
use perflab::study::{Manifest, RunState, Study};

/// The calibration benchmark's trials (`benches/allocation.rs`); this test uses the policy's
/// and a fixed design's.
#[allow(dead_code)]
#[path = "../../benches/calibration/trials.rs"]
mod calibration;

const HEAD: &str = concat!(
    r#"
model = "m"
baseline = "s1/a"
target_profile = "p"
noise_threshold = 1
repeats = 2
repeat_across_restarts = true

"#,
    synthetic_setup!(),
    r#"
[[stage.variant]]
id = "a"
label = "A"
engine = "e"

[[stage.variant]]
id = "b"
label = "B"
engine = "e"
flags = ["--fast"]
"#
);

/// A study whose variants were each measured in engine starts (attempts 1, 2, ... that
/// repeat), one slice of values a start, their manifests recording `planned` as the design's
/// most starts.
fn study_of_starts(a: &[Vec<f64>], b: &[Vec<f64>], planned: Option<u32>) -> (tempfile::TempDir, Study) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sequential");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("study.toml"), HEAD).unwrap();
    for (variant, starts) in [("a", a), ("b", b)] {
        for (k, values) in starts.iter().enumerate() {
            let folder = dir.join(format!("runs/s1/{variant}/attempts/{}", k + 1));
            std::fs::create_dir_all(&folder).unwrap();
            for (r, v) in values.iter().enumerate() {
                let file = perflab::study::result_file("p", r as u32 + 1);
                std::fs::write(folder.join(file), common::vllm_block(*v, 10.0, "")).unwrap();
            }
            let mut m = Manifest::start("e", "1", vec!["serve".into(), "m".into()], Default::default(), vec![], "t");
            m.state = RunState::Done;
            m.repeat = k > 0;
            m.planned_starts = planned;
            m.write(&folder.join("p.manifest.json")).unwrap();
        }
    }
    let study = Study::load(&dir).unwrap_or_else(|e| panic!("{e}"));
    (tmp, study)
}

/// [`study_of_starts`] with one benchmark a start.
fn study(a: &[f64], b: &[f64], planned: Option<u32>) -> (tempfile::TempDir, Study) {
    let one = |values: &[f64]| values.iter().map(|v| vec![*v]).collect::<Vec<_>>();
    study_of_starts(&one(a), &one(b), planned)
}

/// How a trial ended.
#[derive(Debug, Default)]
struct Tally {
    adopted: u32,
    kept: u32,
    unclear: u32,
    runs: u32,
}

/// The value of the `start`-th engine start of side `side` in trial `seed`: throughput `mean`
/// slowed by the engine's speed factor under ±5% noise.
fn measured(seed: u64, side: u64, start: u64, mean: f64) -> f64 {
    let draw = |stream: u64| perflab::sim::draw(seed, stream * 2 + side, start);
    mean / perflab::sim::speed_factor(0.05, draw(0), draw(1))
}

/// Trials of a stage whose B is `gain` (a share) faster than A, looked at after every start
/// from `first` to `most` a side at the levels `level(n)`, stopping at the first look that
/// decides (`first = most`: a fixed design, one look).
fn trials(count: u64, gain: f64, first: usize, most: usize, level: &dyn Fn(usize) -> f64) -> Tally {
    let tps = Metric::of("total_token_throughput");
    let mut tally = Tally::default();
    for seed in 1..=count {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for n in 1..=most {
            a.push(measured(seed, 0, n as u64, 1000.0));
            b.push(measured(seed, 1, n as u64, 1000.0 * (1.0 + gain)));
            if n < first {
                continue;
            }
            let (sa, sb) = (stats::Sample::of(&a).unwrap(), stats::Sample::of(&b).unwrap());
            let interval = stats::gain_at(&tps, &sb, &sa, level(n));
            let challenger = Best { variant: "b", value: sb.mean, is_base: false, interval };
            let decision = if sb.mean > sa.mean {
                adoption::decide(&tps, 1.0, Some(sa.mean), Some(challenger), None, None, None)
            } else {
                let base = Best { variant: "a", value: sa.mean, is_base: true, interval: None };
                adoption::decide(&tps, 1.0, Some(sa.mean), Some(base), Some(challenger), None, None)
            };
            if !decision.unclear() || n == most {
                tally.runs += 2 * n as u32;
                match decision {
                    Adoption::Adopted { .. } => tally.adopted += 1,
                    Adoption::CannotTell { .. } => tally.unclear += 1,
                    _ => tally.kept += 1,
                }
                break;
            }
        }
    }
    tally
}

#[test]
fn looking_after_every_start_keeps_the_error_rate_the_design_promises() {
    // `--until-confident --budget 60` on a study of two starts a side: 30 more starts a side.
    let most = 32;
    let (_tmp, s) = study(&[1000.0, 1001.0], &[1000.0, 1002.0], Some(most as u32));
    assert_eq!(s.designs.get("s1"), Some(&(most as u32)), "the manifests record the design");
    let levels: Vec<f64> = (0..=most).map(|n| chain::decision_level(&s, "s1", n)).collect();
    assert!(levels[2] < 1e-4 && levels[most] > 0.02 && levels[most] < 0.05, "{levels:?}");
    let sequential = |n: usize| levels[n];
    let fixed = |_: usize| stats::FIXED_LEVEL;

    // Identical variants: 1000 trials tell 5% from 7% (the standard error is under 0.8%).
    let null = trials(1000, 0.0, 2, most, &sequential);
    let naive = trials(1000, 0.0, 2, most, &fixed);
    assert!(null.adopted <= 50, "the design adopts an identical variant too often: {null:?}");
    assert!(naive.adopted > 70, "testing every look at 95% adopts an identical variant more often: {naive:?}");

    // A 2% gain under ±5% noise: found in at least 90% of trials, the worse kept with
    // confidence in at most 2%, for fewer runs than the fixed design of the same power.
    let real = trials(1000, 0.02, 2, most, &sequential);
    assert!(real.adopted >= 900 && real.kept <= 20, "{real:?}");
    let fixed_24 = trials(1000, 0.02, 24, 24, &fixed);
    assert!(fixed_24.adopted >= 880, "24 starts a side, one look, find it about as often: {fixed_24:?}");
    assert!(real.runs < fixed_24.runs, "{real:?} against {fixed_24:?}");
    let single = (trials(1000, 0.0, 1, 1, &fixed), trials(1000, 0.02, 1, 1, &fixed));
    let fixed_null = trials(1000, 0.0, 24, 24, &fixed);
    assert!(single.0.adopted > 100, "one run a side adopts an identical variant often: {single:?}");
    eprintln!("one run: identical {:?}, 2% {:?}; fixed 24, identical: {fixed_null:?}", single.0, single.1);
    eprintln!(
        "sequential: identical {null:?}, 2% {real:?}; every look at 95%: identical {naive:?}; fixed 24: {fixed_24:?}"
    );
}

#[test]
fn the_analysis_decides_at_the_level_of_its_look() {
    let (a, b) = ([1000.0, 1010.0, 990.0, 1005.0], [1030.0, 1040.0, 1020.0, 1035.0]);
    let width = |planned| {
        let (_tmp, s) = study(&a, &b, planned);
        let analysis = analyze(&s);
        let adoption = analysis.stage("s1").unwrap().adoption.clone();
        adoption.interval().unwrap().half_width()
    };
    let (fixed, sequential) = (width(None), width(Some(32)));
    assert!(sequential > 2.0 * fixed, "an early look of a long design is far wider: {sequential} against {fixed}");
    assert!((width(Some(4)) - fixed).abs() > 1e-9 && width(Some(4)) < sequential);
}

#[test]
fn measurements_of_one_start_are_one_unit() {
    // Two starts of A, two benchmarks each: the interval rests on the two start means.
    let a = [vec![1000.0, 1002.0], vec![1100.0, 1102.0]];
    let b = [vec![1000.0, 1000.0], vec![1000.0, 1000.0]];
    let (_tmp, s) = study_of_starts(&a, &b, None);
    let key = perflab::study::RunKey::parse("s1/a/p");
    assert_eq!(s.values(&key, "total_token_throughput").len(), 4);
    let mut starts = s.start_values(&key, "total_token_throughput");
    starts.sort_by(f64::total_cmp);
    assert_eq!(starts, [1001.0, 1101.0]);
    let sample = perflab::analysis::Measure::sample(&s, &key).unwrap();
    assert_eq!(sample.n, 2, "two starts, not four measurements");
    let half = sample.interval().unwrap().half_width();
    assert!(half > 500.0, "the spread between starts, with one degree of freedom: {half}");
}

#[test]
fn the_policy_keeps_the_error_rate_in_every_mix_of_noise() {
    // The calibration benchmark's cases (docs/benchmarks.md, "Where the variance is"): ±5% of
    // noise drawn mostly at each start, evenly, mostly at each run; a start costing 2, a run 1; a
    // budget of 240. 1,000 trials a case tell 5% from 7%, and 90% from 85%.
    use perflab::analysis::allocation::Costs;
    let (costs, budget) = (Costs { start: 2.0, run: 1.0 }, 240.0);
    let levels = calibration::levels(budget, costs);
    // The cheapest fixed design that finds the 2% gain as often as the policy, as the benchmark
    // found it for each mix: starts × runs a side.
    for (per_run, starts, runs) in [(0.2, 36, 1), (0.5, 27, 1), (0.8, 12, 6)] {
        let policy = |gain| {
            calibration::trials(1000, per_run, |m, t| {
                calibration::sequential_trial(m, gain, calibration::Way::Policy, costs, budget, &levels, t)
            })
        };
        let (null, real) = (policy(0.0), policy(0.02));
        assert!(null.adopted <= 50, "{per_run}: an identical variant adopted too often: {}", null.adopted);
        assert!(real.adopted >= 900 && real.kept <= 20, "{per_run}: {} adopted, {} kept", real.adopted, real.kept);
        let fixed = calibration::trials(1000, per_run, |m, t| calibration::fixed_trial(m, 0.02, starts, runs, t));
        assert!(fixed.adopted + 15 >= real.adopted, "{per_run}: the fixed design finds it about as often");
        let (spent, fixed_cost) = (costs.of(real.starts, real.runs), costs.of(fixed.starts, fixed.runs));
        assert!(spent < fixed_cost, "{per_run}: the policy cost {spent} where the fixed design cost {fixed_cost}");
    }
}
