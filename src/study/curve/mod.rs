//! A study's load curves: its `load` and `slo` keys checked at their place in `study.toml`, the
//! points and searches its runs hold, and the curve of each configuration. What the keys mean,
//! a point's name, and the search itself are in [`crate::curve`].

mod checks;

use super::Study;
use super::spec::Profile;
use crate::curve::{Limit, LoadSpec, Loads, Slo};
use std::collections::BTreeMap;

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
}

/// The `slo` key that is the share of requests to complete, not a latency's limit.
const MIN_SUCCESS: &str = "min_success_rate";

/// One measurement of a configuration's curve at one load.
#[derive(Debug, Clone)]
pub struct Point {
    pub load: u64,
    /// The point's run (`<stage>/<variant>/<profile>@<load>`).
    pub key: super::RunKey,
    /// Its result (with the study's derived metrics), or `None` when its benchmark failed.
    pub run: Option<super::Run>,
    /// Why it has no result, when its attempt failed.
    pub failure: Option<super::RecordedFailure>,
    /// Which measurement of its load in its engine start it is (1, 2, ... for the boundary's
    /// confirmations).
    pub measurement: u32,
    pub verdict: crate::curve::Verdict,
    /// Requests a second that met every per-request limit of the SLO, from the point's
    /// per-request records (`<profile>@<load>.requests.jsonl`), when the benchmark kept them.
    pub goodput: Option<crate::parse::requests::Goodput>,
    /// The attempt (engine start) that measured it, and what measured it.
    pub attempt: u32,
    pub provenance: Option<super::Provenance>,
}

impl Point {
    /// Its result's block.
    pub fn block(&self) -> Option<&crate::parse::Block> {
        self.run.as_ref().map(|r| &r.block)
    }

    /// The point as the search sees it: a failure that measured nothing (the engine crashed
    /// or did not start) is no verdict on its load.
    pub fn probe(&self) -> crate::curve::Probe {
        let mut probe = probe_of(self.load, &self.verdict, self.block());
        if self.run.is_none() && self.failure.as_ref().is_some_and(|f| f.class.measured_the_service()) {
            probe.outcome = crate::curve::Outcome::Missed;
        }
        probe
    }

    /// It measured nothing: no verdict on its load.
    pub fn failed(&self) -> bool {
        self.probe().outcome == crate::curve::Outcome::Failed
    }
}

/// One search of a configuration's curve: the points one engine start measured, with those of
/// the starts that went on with it after an interruption. With `repeats`, each engine start
/// searches anew, and each finished search is one measurement of the curve.
#[derive(Debug, Clone)]
pub struct Search {
    /// The attempt that began it; `None` for points recorded before searches were numbered,
    /// which form one search of the points that stand.
    pub id: Option<u32>,
    /// Its measurements, by load, then in the order they were taken (a load is measured more
    /// than once to confirm the boundary, or again after a measurement that failed).
    pub points: Vec<Point>,
    /// It joins the searches before it as one sample (its start's manifests say `repeat`);
    /// the first search, and one begun by `--rerun`, begin a series of their own.
    pub repeats: bool,
    /// Its boundary and why it ended, worked out once from its points.
    pub answer: crate::curve::Answer,
}

impl Search {
    /// What measured the search: its first point's provenance.
    pub fn provenance(&self) -> Option<&super::Provenance> {
        self.points.iter().min_by_key(|p| p.attempt).and_then(|p| p.provenance.as_ref())
    }

    /// The newest failed measurement of the load the search gave up on, when it stopped on
    /// [`Stop::Failed`](crate::curve::Stop::Failed): why the curve is not whole.
    pub fn gave_up_on(&self) -> Option<&Point> {
        use crate::curve::{MAX_FAILURES, Stop};
        (self.answer.stop == Some(Stop::Failed)).then_some(())?;
        let load = self.answer.failed.iter().find(|t| t.failed >= MAX_FAILURES)?.load;
        self.points.iter().rev().find(|p| p.load == load && p.failed())
    }

    /// What the search found so far: its boundary, and why it stopped (`None`: not finished).
    fn answer_of(points: &[Point], loads: &Loads) -> crate::curve::Answer {
        let probes: Vec<_> = points.iter().map(Point::probe).collect();
        crate::curve::answer(loads, &probes)
    }
}

/// Judges one point's result against an SLO: its latency metrics, and the share of the
/// `expected` requests it completed. A point without a result, or whose block was cut off, met
/// nothing. The runner (choosing the next load) and the analysis (the page) both judge here.
pub fn judge_block(slo: &Slo, expected: u64, block: Option<&crate::parse::Block>) -> crate::curve::Verdict {
    let Some(block) = block else {
        return crate::curve::Verdict { met: false, broken: vec!["failed".into()], unmeasured: Vec::new() };
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
    verdict: &crate::curve::Verdict,
    block: Option<&crate::parse::Block>,
) -> crate::curve::Probe {
    use crate::curve::Outcome;
    let throughput = block.and_then(|b| b.metric("output_throughput").or(b.metric("request_throughput")));
    let outcome = match (block, verdict.met) {
        (None, _) => Outcome::Failed,
        (Some(_), true) => Outcome::Met,
        (Some(_), false) => Outcome::Missed,
    };
    crate::curve::Probe { load, outcome, throughput }
}

/// The metric a curve's run gets for its boundary: the largest load that met the SLO.
pub const BOUNDARY_METRIC: &str = "slo_load";
/// The metric a curve's run gets when its answer is a band: the smallest load above the
/// boundary that missed the SLO every time (the boundary, [`BOUNDARY_METRIC`], met it every time).
pub const BAND_HIGH_METRIC: &str = "slo_load_band_high";
/// The metric a curve's run gets (as 1) when its search met the SLO up to the top of the range
/// it searched: [`BOUNDARY_METRIC`] is then a lower bound.
pub const AT_LIMIT_METRIC: &str = "slo_load_at_limit";
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
    pub fn judge(&self, profile: &str, block: Option<&crate::parse::Block>) -> crate::curve::Verdict {
        let expected = self.profile(profile).map_or(0, |p| p.total_requests);
        judge_block(&self.slo(profile), expected, block)
    }

    /// The searches a configuration (`stage/variant`) made on a curve profile, oldest first
    /// (read once, when the study loads).
    pub fn searches(&self, stage: &str, variant: &str, profile: &str) -> &[Search] {
        self.searches.get(&super::RunKey::new(stage, variant, profile)).map_or(&[], Vec::as_slice)
    }

    /// The finished searches a configuration's curve stands on, oldest first: its run's
    /// measurements (see [`Study::attach_curves`]).
    pub fn counted_searches(&self, stage: &str, variant: &str, profile: &str) -> Vec<&Search> {
        if self.curve(profile).is_none() {
            return Vec::new();
        }
        let searches = self.searches(stage, variant, profile);
        series(searches).into_iter().rev().map(|k| &searches[k]).collect()
    }

    /// The record of the engine start that measured a point, when `perflab run` made it.
    pub fn point_manifest(&self, point: &Point) -> Option<&super::Manifest> {
        self.attempts.get(&point.key)?.iter().find(|a| a.number == point.attempt)?.manifest.as_ref()
    }

    /// The points of a configuration's newest search on a curve profile, by load.
    pub fn points(&self, stage: &str, variant: &str, profile: &str) -> Vec<Point> {
        self.searches(stage, variant, profile).last().map(|s| s.points.clone()).unwrap_or_default()
    }

    /// Reads a configuration's searches from its point runs' attempts: each attempt that left
    /// results or a recorded failure gives points (one a measurement) to the search its manifest
    /// names. A result placed by hand belongs to every search: it is evidence of its load
    /// whichever search asks.
    fn read_searches(&self, stage: &str, variant: &str, profile: &str) -> Vec<Search> {
        let Some((_, spec)) = self.curve(profile) else { return Vec::new() };
        let loads = spec.loads();
        let slo = self.slo(profile);
        let mut groups: BTreeMap<Option<u32>, Vec<Point>> = BTreeMap::new();
        let mut repeats: BTreeMap<Option<u32>, (u32, bool)> = BTreeMap::new();
        let mut by_hand: Vec<Point> = Vec::new();
        let derived = self.derived();
        for (key, list) in self.attempts.iter().filter(|(k, _)| k.stage == stage && k.variant == variant) {
            let Some(load) = key.load.filter(|_| key.profile == profile) else { continue };
            // Points measured before searches were numbered form one search: of those, the
            // attempt that would stand among them.
            let unnumbered: Vec<super::Attempt> =
                list.iter().filter(|a| a.manifest.as_ref().is_none_or(|m| m.search.is_none())).cloned().collect();
            let standing = super::Attempt::select(&unnumbered).map(|a| a.number);
            for a in list {
                let search = a.manifest.as_ref().and_then(|m| m.search);
                if search.is_none() && Some(a.number) != standing {
                    continue;
                }
                let points = self.attempt_points(key, a, load, &slo, &derived);
                if points.is_empty() {
                    continue;
                }
                if a.number == 0 && a.manifest.is_none() {
                    by_hand.extend(points.iter().cloned());
                }
                let first = repeats.entry(search).or_insert((a.number, false));
                if a.number <= first.0 {
                    *first = (a.number, a.manifest.as_ref().is_some_and(|m| m.repeat));
                }
                groups.entry(search).or_default().extend(points);
            }
        }
        // A result placed by hand joins every numbered search; alone, it is a search of its own.
        if groups.keys().any(Option::is_some) && !by_hand.is_empty() {
            if let Some(old) = groups.get_mut(&None) {
                old.retain(|p| !(p.attempt == 0 && by_hand.iter().any(|h| h.key == p.key)));
                if old.is_empty() {
                    groups.remove(&None);
                    repeats.remove(&None);
                }
            }
            for (_, points) in groups.iter_mut().filter(|(id, _)| id.is_some()) {
                points.extend(by_hand.iter().cloned());
            }
        }
        groups
            .into_iter()
            .map(|(id, mut points)| {
                points.sort_by_key(|p| (p.load, p.attempt, p.measurement));
                let answer = Search::answer_of(&points, &loads);
                Search { id, points, repeats: repeats.get(&id).is_some_and(|r| r.1), answer }
            })
            .collect()
    }

    /// The points one attempt at a curve's point run measured (`key`, at `load`): a point a
    /// result, or one for its failure, then one for each measurement that failed in a start
    /// whose others ended. None when it left neither.
    fn attempt_points(
        &self,
        key: &super::RunKey,
        a: &super::Attempt,
        load: u64,
        slo: &Slo,
        derived: &[(&str, crate::metric::expr::Expr)],
    ) -> Vec<Point> {
        let results: Vec<(u32, &super::Run)> = match a.run.as_ref().filter(|_| a.succeeded()) {
            Some(first) => std::iter::once((1, first)).chain(a.repeats.iter().map(|(k, r)| (*k, r))).collect(),
            None => Vec::new(),
        };
        let failure = a.failure().cloned();
        if results.is_empty() && failure.is_none() {
            return Vec::new();
        }
        let profile = key.profile.as_str();
        let provenance = self.provenance_of(key, a);
        let point = |measurement: u32, run: Option<super::Run>| {
            let run = run.map(|mut r| {
                self.derive_into(derived, key, &mut r.block);
                r
            });
            let verdict = self.judge(profile, run.as_ref().map(|r| &r.block));
            let goodput = run.as_ref().and_then(|r| goodput_of(slo, r));
            let failure = if run.is_none() { failure.clone() } else { None };
            let (key, attempt, provenance) = (key.clone(), a.number, provenance.clone());
            Point { load, key, run, failure, measurement, verdict, goodput, attempt, provenance }
        };
        let mut points: Vec<Point> = match results.is_empty() {
            true => vec![point(1, None)],
            false => results.into_iter().map(|(k, r)| point(k, Some(r.clone()))).collect(),
        };
        // The measurements that failed in a start whose others succeeded come after them.
        for f in a.manifest.iter().flat_map(|m| &m.failed_measurements) {
            let mut p = point(points.len() as u32 + 1, None);
            p.failure = Some(f.clone());
            points.push(p);
        }
        points
    }

    /// Where a configuration's searches on a curve profile stand against what the study says
    /// for `config` now: the finished searches its curve stands on that still measure it, and
    /// the newest search when it has not finished; or why the newest no longer measures it.
    pub fn current_search(
        &self,
        stage: &str,
        variant: &str,
        profile: &str,
        config: &super::Config,
    ) -> anyhow::Result<CurrentSearches> {
        let mut out = CurrentSearches::default();
        let (Some(_), Some(newest)) = (self.curve(profile), self.searches(stage, variant, profile).last()) else {
            return Ok(out);
        };
        out.measured = true;
        let stale = |search: &Search| -> anyhow::Result<Vec<super::Stale>> {
            for p in &search.points {
                let reasons = match &p.provenance {
                    Some(was) => super::history::staleness_of(self, &p.key, was, config)?,
                    None => Vec::new(),
                };
                if !reasons.is_empty() {
                    return Ok(reasons);
                }
            }
            Ok(Vec::new())
        };
        out.stale = stale(newest)?;
        if !out.stale.is_empty() {
            return Ok(out);
        }
        if newest.answer.stop.is_none() {
            out.unfinished = Some(newest.clone());
        }
        let searches = self.searches(stage, variant, profile);
        for k in series(searches) {
            out.finished += u32::from(stale(&searches[k])?.is_empty());
        }
        Ok(out)
    }

    /// Gives each configuration's curve on each curve profile a run of its own, `<profile>`,
    /// whose measurements are its searches: each finished search's boundary point's result,
    /// with the boundary load added as [`BOUNDARY_METRIC`] and the best goodput as
    /// [`GOODPUT_METRIC`], taken in the engine start that began the search. Stages, gains,
    /// intervals and tables then read a curve the way they read a fixed load. A configuration
    /// whose searches have not finished yet stands on its newest one so far; one whose finished
    /// searches found no load that met the SLO failed the profile.
    pub(super) fn attach_curves(&mut self) {
        let curves: Vec<String> =
            self.spec.profiles.iter().filter(|p| p.load.is_some()).map(|p| p.id.get_ref().clone()).collect();
        let configs: Vec<(String, String)> = self
            .spec
            .stages
            .iter()
            .flat_map(|s| s.variants.iter().map(move |v| (s.id.get_ref().clone(), v.id.get_ref().clone())))
            .collect();
        for profile in &curves {
            for (stage, variant) in &configs {
                let searches = self.read_searches(stage, variant, profile);
                if searches.is_empty() {
                    continue;
                }
                let key = super::RunKey::new(stage, variant, profile);
                self.searches.insert(key.clone(), searches);
                self.attach_curve(&key);
            }
        }
    }

    /// [`Study::attach_curves`] for one configuration's curve on one profile.
    fn attach_curve(&mut self, key: &super::RunKey) {
        let searches = self.searches(&key.stage, &key.variant, &key.profile);
        let answers: Vec<_> = searches.iter().map(|s| s.answer.clone()).collect();
        let finished = series(searches);
        // The finished searches of the newest series, newest first; or the newest so far.
        let counted = if finished.is_empty() { vec![searches.len() - 1] } else { finished };
        // The newest search gave up on a load whose measurement kept failing: the curve is not
        // whole, so the configuration failed the profile the way that load's measurement did.
        if answers[counted[0]].stop == Some(crate::curve::Stop::Failed) {
            if let Some(point) = searches[counted[0]].gave_up_on()
                && let Some(mut m) = self.point_manifest(point).cloned()
            {
                let failure = point.failure.clone().unwrap_or(super::RecordedFailure {
                    class: super::FailureClass::BenchmarkFailure,
                    message: String::new(),
                });
                m.state = super::RunState::Failed;
                m.failure = Some(super::RecordedFailure {
                    class: failure.class,
                    message: format!(
                        "the measurement at load {} failed {} times, so the search stopped there: {}",
                        point.load,
                        crate::curve::MAX_FAILURES,
                        failure.message
                    ),
                });
                self.manifests.insert(key.clone(), m);
            }
            return;
        }
        let mut sample: Vec<(super::Run, Option<u32>, Option<super::Manifest>)> = Vec::new();
        for k in &counted {
            sample.extend(self.boundary_run(&searches[*k]));
        }
        if sample.is_empty() {
            // Finished searches where no load met the SLO: the configuration failed the profile,
            // as the record of the newest one's first point says.
            let newest = &searches[counted[0]];
            if answers[counted[0]].stop.is_none() {
                return;
            }
            let first = newest.points.iter().find_map(|p| self.point_manifest(p).cloned());
            if let Some(mut m) = first {
                m.state = super::RunState::Failed;
                let loads: Vec<String> = newest.points.iter().map(|p| p.load.to_string()).collect();
                m.failure = Some(super::RecordedFailure {
                    class: super::FailureClass::SloNotMet,
                    message: format!("none of the loads {} met the SLO", loads.join(", ")),
                });
                self.manifests.insert(key.clone(), m);
            }
            return;
        }
        let mut sample = sample.into_iter();
        let Some((run, start, manifest)) = sample.next() else { return };
        let (rest, rest_starts): (Vec<super::Run>, Vec<Option<u32>>) = sample.map(|(r, s, _)| (r, s)).unzip();
        if let Some(m) = manifest {
            self.manifests.insert(key.clone(), m);
        }
        self.starts.insert(key.clone(), std::iter::once(start).chain(rest_starts).collect());
        if !rest.is_empty() {
            self.repeats.insert(key.clone(), rest);
        }
        self.runs.insert(key.clone(), run);
    }

    /// A finished search as one measurement of its configuration's curve: its boundary point's
    /// result with the boundary (`slo_load`, and the band's top when it is one) and the best
    /// goodput of the search as metrics, the engine start it counts as, and the point's record.
    /// None when no load met the SLO.
    fn boundary_run(&self, search: &Search) -> Option<(super::Run, Option<u32>, Option<super::Manifest>)> {
        let answer = &search.answer;
        let edge = answer.boundary.and_then(|b| search.points.iter().find(|p| p.load == b && p.run.is_some()))?;
        let mut run = edge.run.clone()?;
        run.block.metrics.insert(BOUNDARY_METRIC.into(), edge.load as f64);
        if let Some(band) = answer.band {
            run.block.metrics.insert(BAND_HIGH_METRIC.into(), band.high as f64);
        }
        if answer.stop == Some(crate::curve::Stop::UpperBound) {
            run.block.metrics.insert(AT_LIMIT_METRIC.into(), 1.0);
        }
        let best = search.points.iter().filter_map(|p| p.goodput.map(|g| g.request_goodput)).reduce(f64::max);
        if let Some(g) = best {
            run.block.metrics.insert(GOODPUT_METRIC.into(), g);
        }
        let manifest = self.point_manifest(edge).cloned();
        let start = search.id.or((edge.attempt > 0).then_some(edge.attempt));
        Some((run, start, manifest))
    }
}

/// The finished searches a curve's run stands on, newest first: back from the newest search
/// while each one repeats the ones before it and was measured with the same engine, version and
/// command (see [`Search::repeats`]).
fn series(searches: &[Search]) -> Vec<usize> {
    let mut out = Vec::new();
    let setup = searches.last().and_then(Search::provenance);
    for k in (0..searches.len()).rev() {
        let search = &searches[k];
        if let (Some(a), Some(b)) = (setup, search.provenance())
            && !a.same_setup(b)
        {
            break;
        }
        if search.answer.stop.is_some() {
            out.push(k);
        }
        if !search.repeats {
            break;
        }
    }
    out
}

/// Where a configuration's searches on a curve profile stand against what the study says now.
#[derive(Debug, Default)]
pub struct CurrentSearches {
    /// It has measured at least one point.
    pub measured: bool,
    /// Finished searches its curve stands on that still measure what the study says.
    pub finished: u32,
    /// The newest search, when it still measures what the study says and has not finished.
    pub unfinished: Option<Search>,
    /// Why the newest search no longer measures what the study says (empty when it does).
    pub stale: Vec<super::Stale>,
}
