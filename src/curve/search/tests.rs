//! The search's rules, against curves whose answer is known: seeded, and as properties.

use super::*;
use proptest::prelude::*;

fn search(min: u64, max: u64, points: u32) -> Loads {
    Loads::Search { min, max, points, step: 1, plateau: false, confirm: 1 }
}

fn outcome(met: bool) -> Outcome {
    if met { Outcome::Met } else { Outcome::Missed }
}

fn probe(load: u64, met: bool) -> Probe {
    Probe { load, outcome: outcome(met), throughput: Some(load as f64) }
}

/// Runs the search on a curve that meets the SLO where `meets` says; the probes (in order)
/// and the answer.
fn drive(loads: &Loads, mut meets: impl FnMut(u64) -> Outcome) -> (Vec<u64>, Answer) {
    let mut points = Vec::new();
    let mut probes = Vec::new();
    while let Next::Measure(l) = next(loads, &points) {
        probes.push(l);
        points.push(Probe { load: l, outcome: meets(l), throughput: Some(l as f64) });
        assert!(probes.len() <= 200, "runaway: {probes:?}");
    }
    (probes, answer(loads, &points))
}

#[test]
fn the_search_finds_the_edge_to_one_step_within_its_budget() {
    for edge in [1u64, 2, 3, 7, 20, 48, 100, 333, 511, 512] {
        let loads = search(1, 512, 20);
        let (probes, a) = drive(&loads, |l| outcome(l <= edge));
        let mut unique = probes.clone();
        unique.dedup();
        assert_eq!(unique.len(), probes.len(), "{edge}: a load probed twice without confirmation: {probes:?}");
        assert_eq!(a.boundary, Some(edge), "{probes:?}");
        let stop = if edge == 512 { Stop::UpperBound } else { Stop::Resolution };
        assert_eq!(a.stop, Some(stop));
        assert_eq!(a.exact(), edge < 512);
        assert!(probes.len() <= 19, "{edge}: {probes:?}");
    }
}

#[test]
fn a_boundary_is_confirmed_before_the_search_ends_and_the_confirmations_count() {
    let loads = Loads::Search { min: 1, max: 64, points: 20, step: 1, plateau: false, confirm: 3 };
    let (probes, a) = drive(&loads, |l| outcome(l <= 14));
    assert_eq!((a.boundary, a.stop, a.band), (Some(14), Some(Stop::Resolution), None));
    assert!(a.exact());
    let count = |l| probes.iter().filter(|p| **p == l).count();
    assert_eq!((count(14), count(15)), (3, 3), "{probes:?}");
    assert_eq!(a.confirmed.iter().map(|t| (t.load, t.met, t.missed)).collect::<Vec<_>>(), [(14, 3, 0), (15, 0, 3)]);
    // Without confirmation the same search takes four points fewer.
    let with = |points: u32, confirm: u32| Loads::Search { min: 1, max: 64, points, step: 1, plateau: false, confirm };
    let (unconfirmed, _) = drive(&with(20, 1), |l| outcome(l <= 14));
    assert_eq!(probes.len(), unconfirmed.len() + 4);
    // A budget that the confirmations exceed ends on the budget, not on an exact boundary.
    let tight = with(unconfirmed.len() as u32 + 2, 3);
    let (probes, a) = drive(&tight, |l| outcome(l <= 14));
    assert_eq!((probes.len(), a.stop), (unconfirmed.len() + 2, Some(Stop::Budget)));
    assert!(!a.exact());
}

#[test]
fn a_boundary_that_goes_both_ways_is_a_band_and_a_miss_below_moves_the_search_down() {
    let loads = Loads::Search { min: 1, max: 64, points: 30, step: 1, plateau: false, confirm: 3 };
    // 15 meets the SLO every other time; 16 and above never, 14 and below always.
    let mut at15 = 0;
    let (_, a) = drive(&loads, |l| {
        at15 += u32::from(l == 15);
        outcome(l <= 14 || (l == 15 && at15 % 2 == 0))
    });
    assert_eq!(a.stop, Some(Stop::Resolution));
    assert_eq!(a.boundary, Some(14));
    assert_eq!(a.band, Some(Band { low: 14, high: 16 }), "{a:?}");
    assert!(!a.exact());
    // 14 misses on its second and third measurements: it no longer passes, and 13 becomes the
    // boundary.
    let mut at14 = 0;
    let (probes, a) = drive(&loads, |l| {
        at14 += u32::from(l == 14);
        outcome(l <= 13 || (l == 14 && at14 == 1))
    });
    assert_eq!((a.boundary, a.stop), (Some(13), Some(Stop::Resolution)), "{probes:?}");
    assert_eq!(a.band, Some(Band { low: 13, high: 15 }), "{a:?}");
}

#[test]
fn one_stalled_measurement_of_three_is_outvoted_wherever_it_falls() {
    let loads = Loads::Search { min: 1, max: 64, points: 30, step: 1, plateau: false, confirm: 3 };
    // The edge is sharp at 14, and one measurement of 14 misses (a stalled machine): the first,
    // the second or the third. The tie after two moves the search down for a while; the third
    // outvotes the miss, and the boundary is 14, exact, met in 2 of 3.
    for stalled in 1..=3 {
        let mut at14 = 0;
        let (probes, a) = drive(&loads, |l| {
            at14 += u32::from(l == 14);
            outcome(l <= 13 || (l == 14 && at14 != stalled))
        });
        assert_eq!((a.boundary, a.stop, a.band), (Some(14), Some(Stop::Resolution), None), "{stalled}: {probes:?}");
        assert!(a.exact(), "{stalled}: {a:?}");
        let sides: Vec<(u64, u32, u32)> = a.confirmed.iter().map(|t| (t.load, t.met, t.missed)).collect();
        assert_eq!(sides, [(14, 2, 1), (15, 0, 3)], "{stalled}");
    }
    // A stall far below the edge, on a load measured once while doubling (8 of 1..64 with the
    // edge at 40): the search bisects below it, confirms it, outvotes the miss and goes on up to
    // the real edge.
    let mut at8 = 0;
    let (probes, a) = drive(&loads, |l| {
        at8 += u32::from(l == 8);
        outcome(l <= 40 && !(l == 8 && at8 == 1))
    });
    assert_eq!((a.boundary, a.stop), (Some(40), Some(Stop::Resolution)), "{probes:?}");
    assert!(a.exact(), "{a:?}");
}

#[test]
fn a_failed_measurement_is_measured_again_and_twice_ends_the_search() {
    let loads = Loads::Search { min: 1, max: 64, points: 12, step: 1, plateau: false, confirm: 1 };
    // The engine dies the first time 8 is measured: 8 is asked for again, and the answer is
    // the one without the failure.
    let mut failures = 0;
    let (probes, a) = drive(&loads, |l| {
        if l == 8 && failures == 0 {
            failures += 1;
            return Outcome::Failed;
        }
        outcome(l <= 16)
    });
    assert_eq!(&probes[..5], [1, 2, 4, 8, 8]);
    assert_eq!((a.boundary, a.stop), (Some(16), Some(Stop::Resolution)));
    assert_eq!(a.failed.iter().map(|t| (t.load, t.failed, t.met)).collect::<Vec<_>>(), [(8, 1, 1)]);
    // It fails every time: the search stops there, and does not call 4 the boundary.
    let (probes, a) = drive(&loads, |l| if l == 8 { Outcome::Failed } else { outcome(l <= 16) });
    assert_eq!(probes, [1, 2, 4, 8, 8]);
    assert_eq!(a.stop, Some(Stop::Failed));
    assert!(!a.exact());
    // A failure is no point of the budget.
    let (probes, a) = drive(&search(1, 64, 4), |l| if l == 2 { Outcome::Failed } else { Outcome::Met });
    assert_eq!((probes, a.stop), (vec![1, 2, 2], Some(Stop::Failed)));
}

#[test]
fn a_step_wider_than_one_load_is_never_exact() {
    let loads = Loads::Search { min: 1, max: 64, points: 20, step: 1 << 40, plateau: false, confirm: 1 };
    let (_, a) = drive(&loads, |l| outcome(l <= 3));
    assert_eq!((a.boundary, a.stop), (Some(2), Some(Stop::Resolution)));
    assert!(!a.exact());
}

/// A deterministic stream of uniform draws in [0, 1), from a seed.
struct Draws(u64);

impl Draws {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Of `trials` seeded searches on a curve whose load `l` meets the SLO with probability
/// `p(l)`, the share that end on an exact boundary `b` that is wrong: `b` meets the SLO less
/// often than not, or `b + 1` more often than not.
fn wrong_exact_share(confirm: u32, trials: u64, p: impl Fn(u64) -> f64) -> f64 {
    let loads = Loads::Search { min: 1, max: 64, points: 40, step: 1, plateau: false, confirm };
    let mut wrong = 0;
    for seed in 1..=trials {
        let mut draws = Draws(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let (_, a) = drive(&loads, |l| outcome(draws.next() < p(l)));
        if let (true, Some(b)) = (a.exact(), a.boundary) {
            wrong += u32::from(p(b) < 0.5 || p(b + 1) > 0.5);
        }
    }
    f64::from(wrong) / trials as f64
}

/// The case where one measurement misleads: from 12 to 20 every load meets the SLO 7 times
/// in 10, so the boundary is 20, and a single miss below it says nothing. Unconfirmed, the
/// search names a wrong exact boundary in about half of 2,000 seeded searches; confirmed (each
/// side measured 3 times) in fewer than 10%. Where the edge is sharp (14 always meets, 15
/// never), the confirmed search is exact and right every time.
#[test]
fn confirmation_rarely_publishes_a_wrong_exact_boundary() {
    let mostly = |l: u64| {
        if l < 12 {
            1.0
        } else if l <= 20 {
            0.7
        } else {
            0.0
        }
    };
    let unconfirmed = wrong_exact_share(1, 2000, mostly);
    assert!(unconfirmed > 0.4, "{unconfirmed}");
    let confirmed = wrong_exact_share(3, 2000, mostly);
    assert!(confirmed < 0.10, "{confirmed}");
    let sharp = |l: u64| if l <= 14 { 1.0 } else { 0.0 };
    assert_eq!(wrong_exact_share(3, 200, sharp), 0.0);
    let loads = Loads::Search { min: 1, max: 64, points: 40, step: 1, plateau: false, confirm: 3 };
    assert!(drive(&loads, |l| outcome(sharp(l) > 0.5)).1.exact());
}

#[test]
fn no_load_meets_the_slo_below_the_lower_bound() {
    let (probes, a) = drive(&search(4, 64, 10), |_| Outcome::Missed);
    assert_eq!(probes, vec![4]);
    assert_eq!((a.boundary, a.stop), (None, Some(Stop::BelowLowerBound)));
}

#[test]
fn a_flat_throughput_stops_the_search() {
    let loads = Loads::Search { min: 1, max: 512, points: 12, step: 1, plateau: true, confirm: 3 };
    let mut points = Vec::new();
    while let Next::Measure(l) = next(&loads, &points) {
        points.push(Probe { load: l, outcome: Outcome::Met, throughput: Some((l as f64).min(8.0)) });
    }
    let a = answer(&loads, &points);
    assert_eq!(a.stop, Some(Stop::Plateau));
    assert_eq!(a.boundary, Some(16));
}

#[test]
fn duplicates_and_a_non_monotone_curve_give_one_boundary_and_say_so() {
    let loads = Loads::List(vec![1, 2, 4, 8]);
    let points = [probe(1, true), probe(2, true), probe(2, false), probe(4, false), probe(8, true), probe(1, true)];
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
        min in 1u64..50, span in 0u64..2000, edge in 0u64..2100, budget in 1u32..24, confirm in 1u32..4,
        fail_at in proptest::option::of(0u64..2100),
    ) {
        let max = min + span;
        let loads = Loads::Search { min, max, points: budget, step: 1, plateau: false, confirm };
        let meets = |l: u64| l <= edge;
        let mut points = Vec::new();
        let mut probes: Vec<u64> = Vec::new();
        while let Next::Measure(l) = next(&loads, &points) {
            prop_assert!((min..=max).contains(&l), "probe {} outside [{}, {}]", l, min, max);
            // One load may fail once, and is then measured again.
            let outcome = if Some(l) == fail_at && !probes.contains(&l) { Outcome::Failed } else { outcome(meets(l)) };
            probes.push(l);
            prop_assert!(probes.iter().filter(|p| **p == l).count() <= confirm as usize + 1, "{:?}", probes);
            points.push(Probe { load: l, outcome, throughput: None });
        }
        let failures = points.iter().filter(|p| p.outcome == Outcome::Failed).count();
        prop_assert!(probes.len() - failures <= budget as usize);
        let a = answer(&loads, &points);
        let scan = (min..=max).filter(|l| meets(*l)).max();
        match a.stop {
            Some(Stop::Resolution) | Some(Stop::UpperBound) | Some(Stop::BelowLowerBound) => prop_assert_eq!(a.boundary, scan),
            Some(Stop::Budget) => prop_assert!(a.boundary <= scan),
            other => prop_assert!(false, "stop {:?}", other),
        }
        prop_assert_eq!(a.exact(), a.stop == Some(Stop::Resolution));
        prop_assert!(a.violations.is_empty() && a.band.is_none());
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
