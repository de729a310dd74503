//! What a study says about load curves: a profile's `load` (a list of loads, or a search for the
//! largest one that meets the SLO) and the service-level objectives (`[slo]`, `[profile.slo]`),
//! checked at their place in `study.toml`; and the names of a curve's point runs
//! (`<profile>@<load>`). Whether a point meets an SLO and where the search goes next are decided
//! in [`crate::metric::load`].

use super::Study;
use super::spec::{Id, Profile};
use crate::diag::Diagnostic;
use crate::metric::load::{Axis, LATENCIES, Limit, Loads, STATS, Slo};
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

/// `load = { ... }` of a profile, as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadSpec {
    /// `concurrency` (default) or `rate` (requests a second).
    #[serde(default = "concurrency")]
    pub axis: Axis,
    /// The loads to measure, increasing.
    #[serde(default)]
    pub values: Option<Spanned<Vec<u64>>>,
    /// The search's bounds: the largest load in [min, max] that meets the SLO.
    #[serde(default)]
    pub min: Option<Spanned<u64>>,
    #[serde(default)]
    pub max: Option<Spanned<u64>>,
    /// The most points the search measures (default 10).
    #[serde(default)]
    pub points: Option<Spanned<u32>>,
    /// The search ends when a passing and a failing load are this close (default 1).
    #[serde(default)]
    pub step: Option<Spanned<u64>>,
    /// Stop doubling once throughput grows less than 5% a step while the SLO holds: for a
    /// search after the most throughput, not the most load (default false).
    #[serde(default)]
    pub stop_on_plateau: bool,
}

fn concurrency() -> Axis {
    Axis::Concurrency
}

/// The point budget of a search that does not say.
pub const DEFAULT_POINTS: u32 = 10;
/// The most points a curve may measure.
pub const MAX_POINTS: u32 = 64;

/// `[slo]` or `[profile.slo]`: `p99_ttft_ms = 500`, `mean_tpot_ms = 50`, `min_success_rate = 0.99`.
pub type SloSpec = BTreeMap<String, Spanned<f64>>;

/// The separator of a point run's profile: `chat@16` is profile `chat` at load 16.
pub const POINT_SEPARATOR: char = '@';

/// The run name of a curve's point.
pub fn point_id(profile: &str, load: u64) -> String {
    format!("{profile}{POINT_SEPARATOR}{load}")
}

/// `chat@16` → (`chat`, 16).
pub fn split_point(id: &str) -> Option<(&str, u64)> {
    let (profile, load) = id.split_once(POINT_SEPARATOR)?;
    let n: u64 = load.parse().ok()?;
    (n.to_string() == load).then_some((profile, n))
}

impl LoadSpec {
    /// The loads as the search reads them (after [`check_profile`] found them valid).
    pub fn loads(&self) -> Loads {
        match &self.values {
            Some(v) => Loads::List(v.get_ref().clone()),
            None => Loads::Search {
                min: self.min.as_ref().map_or(1, |m| *m.get_ref()),
                max: self.max.as_ref().map_or(1, |m| *m.get_ref()),
                points: self.points.as_ref().map_or(DEFAULT_POINTS, |p| *p.get_ref()),
                step: self.step.as_ref().map_or(1, |s| *s.get_ref()),
                plateau: self.stop_on_plateau,
            },
        }
    }
}

impl Study {
    /// A profile's load curve, when it has one.
    pub fn curve(&self, profile: &str) -> Option<(&Profile, &LoadSpec)> {
        let p = self.profile(profile)?;
        Some((p, p.load.as_ref()?.get_ref()))
    }

    /// The SLO a profile's points are judged by: the study's `[slo]`, each limit the profile's
    /// `[profile.slo]` names replaced by the profile's.
    pub fn slo(&self, profile: &str) -> Slo {
        let mut merged: BTreeMap<&str, f64> = BTreeMap::new();
        let own = self.profile(profile).and_then(|p| p.slo.as_ref());
        for spec in self.spec.slo.iter().chain(own) {
            for (k, v) in spec {
                merged.insert(k, *v.get_ref());
            }
        }
        let mut slo = Slo::default();
        for (k, v) in merged {
            if k == MIN_SUCCESS {
                slo.min_success_rate = Some(v);
            } else if let Some(limit) = Limit::parse(k, v) {
                slo.limits.push(limit);
            }
        }
        slo
    }

    /// The diagnostics of every profile's `load` and of every `slo` table.
    pub(super) fn check_curves(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        if let Some(slo) = &self.spec.slo {
            check_slo(self, slo, "slo", &mut out);
        }
        for p in &self.spec.profiles {
            if let Some(slo) = &p.slo {
                check_slo(self, slo, &format!("profile `{}` slo", p.id.get_ref()), &mut out);
            }
            if let Some(load) = &p.load {
                check_profile(self, p, load, &mut out);
            }
        }
        out
    }
}

const MIN_SUCCESS: &str = "min_success_rate";

fn check_slo(study: &Study, slo: &SloSpec, place: &str, out: &mut Vec<Diagnostic>) {
    for (key, value) in slo {
        let v = *value.get_ref();
        if key == MIN_SUCCESS {
            if !(v > 0.0 && v <= 1.0) {
                out.push(study.diag_at(value, format!("`{place}.{key}`: {v} is not a share of requests in (0, 1]")));
            }
            continue;
        }
        if Limit::parse(key, v).is_none() {
            let stats: Vec<&str> = STATS.iter().map(|s| s.0).collect();
            let latencies: Vec<&str> = LATENCIES.iter().map(|s| s.0).collect();
            out.push(study.diag_at(
                value,
                format!(
                    "`{place}.{key}`: not a limit perflab knows; write <statistic>_<latency>_ms with a statistic of {} and a latency of {} (e.g. p99_ttft_ms), or {MIN_SUCCESS}",
                    stats.join(", "),
                    latencies.join(", ")
                ),
            ));
        } else if !(v.is_finite() && v > 0.0) {
            out.push(study.diag_at(value, format!("`{place}.{key}`: {v} is not a number of milliseconds above 0")));
        }
    }
}

fn check_profile(study: &Study, p: &Profile, load: &Spanned<LoadSpec>, out: &mut Vec<Diagnostic>) {
    let id = p.id.get_ref();
    let spec = load.get_ref();
    match (&spec.values, &spec.min, &spec.max) {
        (Some(values), None, None) => {
            let v = values.get_ref();
            if v.is_empty() {
                out.push(study.diag_at(values, format!("profile `{id}` load.values: the list is empty")));
            } else if v[0] == 0 {
                out.push(study.diag_at(values, format!("profile `{id}` load.values: a load is at least 1")));
            } else if let Some(w) = v.windows(2).find(|w| w[1] <= w[0]) {
                out.push(study.diag_at(
                    values,
                    format!("profile `{id}` load.values: loads must increase; {} follows {}", w[1], w[0]),
                ));
            } else if spec.axis == Axis::Concurrency && v[v.len() - 1] > p.total_requests {
                out.push(study.diag_at(
                    values,
                    format!(
                        "profile `{id}` load.values: {} requests at once is more than the {} requests a point sends (`total_requests`)",
                        v[v.len() - 1],
                        p.total_requests
                    ),
                ));
            } else if v.len() > MAX_POINTS as usize {
                out.push(study.diag_at(values, format!("profile `{id}` load.values: at most {MAX_POINTS} loads")));
            }
            if spec.points.is_some() || spec.step.is_some() || spec.stop_on_plateau {
                out.push(study.diag_at(
                    load,
                    format!("profile `{id}` load: `points`, `step` and `stop_on_plateau` belong to a search (`min`, `max`), not a list"),
                ));
            }
        }
        (None, Some(min), Some(max)) => {
            if *min.get_ref() < 1 {
                out.push(study.diag_at(min, format!("profile `{id}` load.min: the smallest load is at least 1")));
            }
            if max.get_ref() < min.get_ref() {
                out.push(study.diag_at(
                    max,
                    format!("profile `{id}` load.max: {} is below `min` ({})", max.get_ref(), min.get_ref()),
                ));
            }
            if let Some(points) = &spec.points
                && !(1..=MAX_POINTS).contains(points.get_ref())
            {
                out.push(study.diag_at(
                    points,
                    format!("profile `{id}` load.points: the search measures 1 to {MAX_POINTS} points"),
                ));
            }
            if spec.axis == Axis::Concurrency && *max.get_ref() > p.total_requests {
                out.push(study.diag_at(
                    max,
                    format!(
                        "profile `{id}` load.max: {} requests at once is more than the {} requests a point sends (`total_requests`); such a point sends them all at once",
                        max.get_ref(),
                        p.total_requests
                    ),
                ));
            }
            if let Some(step) = &spec.step
                && *step.get_ref() < 1
            {
                out.push(study.diag_at(step, format!("profile `{id}` load.step: at least 1")));
            }
        }
        _ => out.push(study.diag_at(
            load,
            format!("profile `{id}` load: give either `values` (a list of loads) or both `min` and `max` (a search)"),
        )),
    }
    if let Some(template) = &study.spec.benchmark.command {
        let words = std::iter::once(template.get_ref()).chain(&p.args);
        let axis = spec.axis.key();
        if !words.clone().any(|w| w.contains(&format!("{{{axis}}}")) || w.contains(crate::study::command::LOAD)) {
            out.push(study.diag_at(
                load,
                format!("profile `{id}` load: `benchmark.command` must take each point's load: put `{{{axis}}}` (or `{{load}}`) where its value goes"),
            ));
        }
    }
    if study.slo(id).is_empty() {
        out.push(study.diag_at(
            load,
            format!(
                "profile `{id}` load: a load curve is judged against an SLO; give one in `[slo]` or the profile's `slo`"
            ),
        ));
    }
    check_percentiles(study, p, out);
}

/// A limit on a percentile the benchmark does not print cannot be judged: `perflab bench` and
/// `vllm bench serve` print the percentiles `--metric-percentiles` lists (99 by default) of the
/// latencies `--percentile-metrics` lists.
fn check_percentiles(study: &Study, p: &Profile, out: &mut Vec<Diagnostic>) {
    let id = p.id.get_ref();
    let command = study.spec.benchmark.command.as_ref().map(|c| c.get_ref().as_str()).unwrap_or("perflab bench");
    let vllm = command.contains("vllm bench serve") || command.contains("vllm bench");
    if !(vllm || command.starts_with("perflab bench") || study.spec.benchmark.command.is_none()) {
        return;
    }
    let words: Vec<&str> = command.split_whitespace().chain(p.args.iter().map(String::as_str)).collect();
    let listed = |flag: &str| {
        words.iter().position(|w| *w == flag || w.starts_with(&format!("{flag}="))).map(|i| {
            let w = words[i];
            let v = w.split_once('=').map_or(words.get(i + 1).copied().unwrap_or(""), |(_, v)| v);
            v.split(',').map(str::trim).map(str::to_string).collect::<Vec<_>>()
        })
    };
    let percentiles = listed("--metric-percentiles").unwrap_or_else(|| vec!["99".into()]);
    let default_metrics = if vllm { "ttft,tpot,itl" } else { "ttft,tpot,itl,e2el" };
    let metrics =
        listed("--percentile-metrics").unwrap_or_else(|| default_metrics.split(',').map(str::to_string).collect());
    let slo = study.slo(id);
    let place: &Id = &p.id;
    for limit in &slo.limits {
        let missing_pct = limit.percentile().filter(|n| !percentiles.iter().any(|x| x == &n.to_string()));
        let missing_metric = !metrics.iter().any(|m| m == limit.latency_name());
        if let Some(n) = missing_pct {
            out.push(study.diag_at(
                place,
                format!(
                    "profile `{id}`: the SLO limits `{}`, but the benchmark prints no {n}th percentile; add `--metric-percentiles {}` to the profile's `args`",
                    limit.key(),
                    percentiles.iter().cloned().chain([n.to_string()]).collect::<Vec<_>>().join(",")
                ),
            ));
        } else if missing_metric && limit.percentile().is_some() {
            out.push(study.diag_at(
                place,
                format!(
                    "profile `{id}`: the SLO limits `{}`, but the benchmark prints no percentiles of {}; add `--percentile-metrics {},{}` to the profile's `args`",
                    limit.key(),
                    limit.latency_name(),
                    metrics.join(","),
                    limit.latency_name()
                ),
            ));
        }
    }
}

/// One measured point of a configuration's curve.
#[derive(Debug, Clone)]
pub struct Point {
    pub load: u64,
    /// The point's run (`<stage>/<variant>/<profile>@<load>`).
    pub key: super::RunKey,
    /// Its result, or `None` when its benchmark failed.
    pub block: Option<crate::parse::Block>,
    pub verdict: crate::metric::load::Verdict,
    /// Requests a second that met every per-request limit of the SLO, from the point's
    /// per-request records (`<profile>@<load>.requests.jsonl`), when the benchmark kept them.
    pub goodput: Option<crate::parse::requests::Goodput>,
}

impl Point {
    /// The point as the search sees it.
    pub fn probe(&self) -> crate::metric::load::Probe {
        probe_of(self.load, &self.verdict, self.block.as_ref())
    }
}

/// Judges one point's result against an SLO: its latency metrics, and the share of the
/// `expected` requests it completed. A point without a result, or whose block was cut off, met
/// nothing. The runner (choosing the next load) and the analysis (the page) both judge here.
pub fn judge_block(slo: &Slo, expected: u64, block: Option<&crate::parse::Block>) -> crate::metric::load::Verdict {
    let Some(block) = block else {
        return crate::metric::load::Verdict { met: false, broken: vec!["failed".into()], unmeasured: Vec::new() };
    };
    let expected = expected as f64;
    let rate = block.metric("completed").map(|c| if expected > 0.0 { (c / expected).min(1.0) } else { 1.0 });
    let mut v = slo.verdict(|k| block.metric(k), rate);
    if !block.complete {
        v.met = false;
        v.broken.push("incomplete".into());
    }
    v
}

/// The point as the search sees it, from its verdict and block.
pub fn probe_of(
    load: u64,
    verdict: &crate::metric::load::Verdict,
    block: Option<&crate::parse::Block>,
) -> crate::metric::load::Probe {
    let throughput = block.and_then(|b| b.metric("output_throughput").or(b.metric("request_throughput")));
    crate::metric::load::Probe { load, met: verdict.met, throughput }
}

/// The metric a curve's run gets for its boundary: the largest load that met the SLO.
pub const BOUNDARY_METRIC: &str = "slo_load";
/// The metric a curve's run gets for its best goodput.
pub const GOODPUT_METRIC: &str = "slo_goodput";
/// What a point's per-request records are named after its result: `chat@16.requests.jsonl`.
pub const REQUESTS_SUFFIX: &str = ".requests.jsonl";

/// The per-request records beside a result file (`chat@16.txt` → `chat@16.requests.jsonl`).
pub fn requests_file(result: &std::path::Path) -> std::path::PathBuf {
    let name = result.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let stem = name.strip_suffix(".txt").or_else(|| name.strip_suffix(".json")).unwrap_or(&name);
    result.with_file_name(format!("{stem}{REQUESTS_SUFFIX}"))
}

/// A point's goodput under `slo`, from the per-request records beside its result.
fn goodput_of(slo: &Slo, run: &super::Run) -> Option<crate::parse::requests::Goodput> {
    let records = crate::parse::requests::read_requests(&requests_file(&run.path)).ok()?;
    let duration = run.block.metric("duration")?;
    Some(crate::parse::requests::goodput(&records, &slo.goodput_limits(), duration))
}

impl Study {
    /// Judges one point's result against `profile`'s SLO: its latency metrics, and the share of
    /// the profile's requests it completed. A point without a result met nothing.
    pub fn judge(&self, profile: &str, block: Option<&crate::parse::Block>) -> crate::metric::load::Verdict {
        let expected = self.profile(profile).map_or(0, |p| p.total_requests);
        judge_block(&self.slo(profile), expected, block)
    }

    /// The points a configuration (`stage/variant`) measured on a curve profile, by load: each
    /// point's standing result, or its recorded failure.
    pub fn points(&self, stage: &str, variant: &str, profile: &str) -> Vec<Point> {
        let key = |load: u64| super::RunKey {
            stage: stage.into(),
            variant: variant.into(),
            profile: point_id(profile, load),
        };
        let mut loads: Vec<u64> = self
            .attempts
            .keys()
            .filter(|k| k.stage == stage && k.variant == variant)
            .filter_map(|k| split_point(&k.profile).filter(|(p, _)| *p == profile).map(|(_, l)| l))
            .collect();
        loads.sort_unstable();
        loads.dedup();
        loads
            .into_iter()
            .filter_map(|load| {
                let key = key(load);
                let run = self.runs.get(&key);
                let block = run.map(|r| r.block.clone());
                let failed = self.manifests.get(&key).is_some_and(|m| m.state == super::RunState::Failed);
                (block.is_some() || failed).then(|| {
                    let verdict = self.judge(profile, block.as_ref());
                    let goodput = run.and_then(|r| goodput_of(&self.slo(profile), r));
                    Point { load, key, block, verdict, goodput }
                })
            })
            .collect()
    }

    /// The points of a configuration's curve that still measure what the study says for
    /// `config`, and why the others do not (the first stale point's reasons; empty when none is).
    pub fn current_points(
        &self,
        stage: &str,
        variant: &str,
        profile: &str,
        config: &super::Config,
    ) -> anyhow::Result<(Vec<Point>, Vec<super::Stale>)> {
        let mut current = Vec::new();
        let mut stale = Vec::new();
        for p in self.points(stage, variant, profile) {
            let reasons = super::staleness(self, &p.key, config)?;
            if reasons.is_empty() {
                current.push(p);
            } else if stale.is_empty() {
                stale = reasons;
            }
        }
        Ok((current, stale))
    }

    /// Gives each configuration's curve on each curve profile a run of its own, `<profile>`:
    /// its boundary point's result with the boundary load added as [`BOUNDARY_METRIC`], so that
    /// stages, gains and tables read a curve the way they read a fixed load. A curve with no
    /// load that met the SLO has no such run.
    pub(super) fn attach_curves(&mut self) {
        let curves: Vec<(String, Loads)> = self
            .spec
            .profiles
            .iter()
            .filter_map(|p| Some((p.id.get_ref().clone(), p.load.as_ref()?.get_ref().loads())))
            .collect();
        let configs: Vec<(String, String)> = self
            .spec
            .stages
            .iter()
            .flat_map(|s| s.variants.iter().map(move |v| (s.id.get_ref().clone(), v.id.get_ref().clone())))
            .collect();
        for (profile, loads) in &curves {
            for (stage, variant) in &configs {
                let points = self.points(stage, variant, profile);
                if points.is_empty() {
                    continue;
                }
                let probes: Vec<_> = points.iter().map(Point::probe).collect();
                let answer = crate::metric::load::answer(loads, &probes);
                let key = super::RunKey { stage: stage.clone(), variant: variant.clone(), profile: profile.clone() };
                let Some(edge) = answer.boundary.and_then(|b| points.iter().find(|p| p.load == b)) else {
                    // A finished curve where no load met the SLO: the configuration failed the
                    // profile, as the record of its first point says.
                    let first = points.iter().find_map(|p| self.manifests.get(&p.key).cloned());
                    if let (Some(mut m), Some(_)) = (first, answer.stop) {
                        m.state = super::RunState::Failed;
                        let loads: Vec<String> = points.iter().map(|p| p.load.to_string()).collect();
                        m.failure = Some(super::RecordedFailure {
                            class: super::FailureClass::SloNotMet,
                            message: format!("none of the loads {} met the SLO", loads.join(", ")),
                        });
                        self.manifests.insert(key, m);
                    }
                    continue;
                };
                let Some(mut run) = self.runs.get(&edge.key).cloned() else { continue };
                run.block.metrics.insert(BOUNDARY_METRIC.into(), edge.load as f64);
                let best = points.iter().filter_map(|p| p.goodput.map(|g| g.request_goodput)).reduce(f64::max);
                if let Some(g) = best {
                    run.block.metrics.insert(GOODPUT_METRIC.into(), g);
                }
                if let Some(m) = self.manifests.get(&edge.key).cloned() {
                    self.manifests.insert(key.clone(), m);
                }
                if let Some(s) = self.starts.get(&edge.key).cloned() {
                    self.starts.insert(key.clone(), s);
                }
                self.runs.insert(key, run);
            }
        }
    }
}
