//! The load curves a page and `perflab analyze` show: for each curve profile, the baseline's
//! and the optimized configuration's points, their boundary under the SLO, why each search
//! stopped, loads that contradict a monotone curve, achieved against offered load, and the
//! throughput per GPU against tokens a second a user of every configuration's boundary.

use crate::analysis::chain::Chain;
use crate::curve::{Answer, Axis, Slo, Tradeoff, Verdict, answer, frontier};
use crate::study::{RunKey, Study, VariantRef};
use serde::Serialize;

/// A point whose achieved load is below this share of the offered one did not get the load it
/// was meant to measure (the client or the server could not keep up).
pub const KEEP_UP: f64 = 0.8;

/// One measurement of one load of a configuration's curve.
#[derive(Debug, Clone, Serialize)]
pub struct CurvePoint {
    /// The offered load, in the axis's unit: concurrent requests at most, or requests a second.
    pub load: u64,
    /// The run that holds it (`stage/variant/profile@load`).
    pub run: RunKey,
    /// Which measurement of its load in its engine start it is (1, then 2, 3, ... for the
    /// boundary's confirmations).
    pub measurement: u32,
    /// Why it measured nothing, when its benchmark failed (a crash, a failed start, ...): such a
    /// point is no verdict on its load.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<crate::study::FailureClass>,
    /// Each limited metric's value, in the SLO's order (`None`: not reported).
    pub limited: Vec<(String, Option<f64>)>,
    /// Output tokens a second, as the benchmark reports it; `None` when it reports none or the
    /// point has no result.
    pub output_throughput: Option<f64>,
    /// Mean time per output token: 1000 ÷ it is the tokens a second each user sees.
    pub mean_tpot_ms: Option<f64>,
    /// The point against the SLO: whether it met it, and which limits it broke or left unmeasured.
    pub verdict: Verdict,
    /// What the search made of it: met, missed, or failed (no verdict on its load).
    pub outcome: crate::curve::Outcome,
    /// Requests in flight on average (Little's law: request throughput × mean end-to-end
    /// latency) for a concurrency axis; requests a second for a rate axis.
    pub achieved: Option<f64>,
    /// Whether the achieved load reached [`KEEP_UP`] of the offered one.
    pub kept_up: Option<bool>,
    /// Requests a second within every per-request limit, and how many of how many, from the
    /// point's per-request records.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub goodput: Option<crate::parse::requests::Goodput>,
    /// Streams whose tokens arrived in bursts: the point's latencies measure buffering.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffered_streams: Option<u64>,
}

/// One configuration's load curve on one profile.
#[derive(Debug, Clone, Serialize)]
pub struct Curve {
    /// The configuration (`stage/variant`) whose point runs these are.
    pub config: VariantRef,
    /// The newest search's measurements, by load, then in the order they were taken.
    pub points: Vec<CurvePoint>,
    /// The newest search's boundary (in the axis's unit), why it stopped, and how sure it is.
    #[serde(flatten)]
    pub answer: Answer,
    /// The GPUs the configuration uses, as the study declares them.
    pub gpus: u32,
    /// The boundary of each finished search the configuration's figures average, oldest first
    /// (one search an engine start; `points` are the newest search's).
    pub searches: Vec<Option<u64>>,
}

impl Curve {
    /// The boundary point (its first measurement), when a load met the SLO.
    pub fn boundary_point(&self) -> Option<&CurvePoint> {
        let b = self.answer.boundary?;
        self.points.iter().find(|p| p.load == b && p.failure.is_none())
    }
}

/// One configuration's boundary on the Pareto chart.
#[derive(Debug, Clone, Serialize)]
pub struct ParetoPoint {
    /// The configuration (`stage/variant`).
    pub config: VariantRef,
    /// Its boundary point's output tokens a second per GPU, and tokens a second a user.
    #[serde(flatten)]
    pub at: Tradeoff,
    /// No other configuration is at least as good on both and better on one.
    pub on_frontier: bool,
    /// It is the optimized configuration (the one whose runs stand for it).
    pub recommended: bool,
}

/// The load curves measured on one curve profile.
#[derive(Debug, Clone, Serialize)]
pub struct CurveProfile {
    /// The profile's id.
    pub profile: String,
    /// What its loads are: concurrent requests, or requests a second.
    pub axis: Axis,
    /// The SLO a load must meet on this profile.
    pub slo: Slo,
    /// The baseline's curve (an identical configuration's when its runs stand for it); `None`
    /// when none was measured here.
    pub baseline: Option<Curve>,
    /// The optimized configuration's curve, the same way.
    pub optimized: Option<Curve>,
    /// Every configuration's curve on this profile (an identical configuration's stands for it).
    pub configs: Vec<Curve>,
    /// The boundary of every configuration the study measured on this profile.
    pub pareto: Vec<ParetoPoint>,
}

/// A configuration's curve on `profile`, when it measured one.
pub fn curve(study: &Study, chain: &Chain, config: &VariantRef, profile: &str) -> Option<Curve> {
    let (stage, variant) = (config.stage(), config.variant());
    let (_, spec) = study.curve(profile)?;
    let points = study.points(stage, variant, profile);
    if points.is_empty() {
        return None;
    }
    let slo = study.slo(profile);
    let probes: Vec<_> = points.iter().map(|p| p.probe()).collect();
    let answer = answer(&spec.loads(), &probes);
    let points = points
        .iter()
        .map(|p| {
            let m = |k: &str| p.block().and_then(|b| b.metric(k));
            let achieved = match spec.axis {
                Axis::Concurrency => {
                    m("request_throughput").zip(m("mean_e2el_ms")).map(|(rate, e2e)| rate * e2e / 1000.0)
                }
                Axis::Rate => m("request_throughput"),
            };
            CurvePoint {
                load: p.load,
                run: p.key.clone(),
                measurement: p.measurement,
                failure: p.failed().then(|| p.failure.as_ref().map(|f| f.class)).flatten(),
                limited: slo.limits.iter().map(|l| (l.key(), m(&l.key()))).collect(),
                output_throughput: m("output_throughput"),
                mean_tpot_ms: m("mean_tpot_ms"),
                verdict: p.verdict.clone(),
                outcome: p.probe().outcome,
                achieved,
                kept_up: achieved.map(|a| a >= KEEP_UP * p.load as f64),
                goodput: p.goodput,
                buffered_streams: m("buffered_streams").map(|n| n as u64),
            }
        })
        .collect();
    let searches = study.counted_searches(stage, variant, profile).iter().map(|s| s.answer.boundary).collect();
    Some(Curve { config: config.clone(), points, answer, gpus: gpus(study, chain, config), searches })
}

/// The GPUs a configuration declares: its own, or those of the configuration it builds on (as
/// the runner gives them), else the study's, else 1.
fn gpus(study: &Study, chain: &Chain, config: &VariantRef) -> u32 {
    chain.gpus(study, config).or(study.spec.gpus.as_ref().map(|g| *g.get_ref())).unwrap_or(1).max(1)
}

/// The curves of every curve profile the baseline and the optimized configuration are
/// compared on.
pub fn curves(
    study: &Study,
    chain: &Chain,
    baseline: Option<&VariantRef>,
    optimized: Option<&VariantRef>,
) -> Vec<CurveProfile> {
    study
        .compare_profiles()
        .iter()
        .filter_map(|p| {
            let id = p.id.get_ref();
            let (_, spec) = study.curve(id)?;
            let configs: Vec<VariantRef> = study
                .spec
                .stages
                .iter()
                .flat_map(|s| s.variants.iter().map(move |v| VariantRef::new(s.id.get_ref(), v.id.get_ref())))
                .collect();
            let measured: Vec<Curve> = configs.iter().filter_map(|c| curve(study, chain, c, id)).collect();
            let of = |config: Option<&VariantRef>| measured.iter().find(|c| Some(&c.config) == config).cloned();
            Some(CurveProfile {
                profile: id.clone(),
                axis: spec.axis,
                slo: study.slo(id),
                baseline: of(baseline),
                optimized: of(optimized),
                pareto: pareto(&measured, optimized),
                configs: measured,
            })
        })
        .collect()
}

/// Every configuration's boundary as throughput per GPU against tokens a second a user, and
/// which of them the frontier keeps.
fn pareto(curves: &[Curve], recommended: Option<&VariantRef>) -> Vec<ParetoPoint> {
    let mut out: Vec<ParetoPoint> = curves
        .iter()
        .filter_map(|c| {
            let p = c.boundary_point()?;
            let per_user = p.mean_tpot_ms.filter(|t| *t > 0.0).map(|t| 1000.0 / t)?;
            Some(ParetoPoint {
                config: c.config.clone(),
                at: Tradeoff { per_gpu: p.output_throughput? / c.gpus as f64, per_user },
                on_frontier: false,
                recommended: Some(&c.config) == recommended,
            })
        })
        .collect();
    let at: Vec<Tradeoff> = out.iter().map(|p| p.at.clone()).collect();
    for i in frontier(&at) {
        out[i].on_frontier = true;
    }
    out
}
