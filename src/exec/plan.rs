//! Which runs a study needs, given what is on disk.

use crate::analysis::{Point, resolve};
use crate::study::command;
use crate::study::{Config, FailureClass, Ref, RunKey, Stale, Study, VariantRef, staleness};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Where a run stands.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "status")]
pub enum Status {
    /// Measured; `date` when `perflab run` recorded it.
    Done { date: Option<String> },
    /// Measured (or failed, `failed`), but what the study says now differs from what measured it.
    Stale { reasons: Vec<Stale>, failed: Option<FailureClass> },
    /// Could not run.
    Failed { class: FailureClass },
    /// An identical configuration's run stands for it.
    Reused { from: String },
    /// To run now.
    Pending,
    /// Its configuration depends on a stage that is not settled yet.
    Waiting { on: String },
}

#[derive(Debug, Clone, Serialize)]
pub struct PlannedRun {
    pub stage: String,
    pub variant: String,
    pub profile: String,
    #[serde(flatten)]
    pub status: Status,
    /// A load curve's points: how many are measured, and the most it measures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub points: Option<(usize, usize)>,
    /// A load curve with `repeats`: its finished searches that still measure what the study
    /// says, and how many it wants (one an engine start).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub searches: Option<(u32, u32)>,
}

/// A curve profile's finished searches of a configuration against the searches wanted, when
/// it wants more than one.
fn searches_of(study: &Study, key: &RunKey, config: &Config, wanted: u32) -> Option<(u32, u32)> {
    study.curve(&key.profile).filter(|_| wanted > 1)?;
    let current = study.current_search(&key.stage, &key.variant, &key.profile, config).ok()?;
    Some((current.finished, wanted))
}

/// A curve profile's points of a configuration: measured, and the most it measures.
fn points_of(study: &Study, stage: &str, variant: &str, profile: &str) -> Option<(usize, usize)> {
    let (_, load) = study.curve(profile)?;
    let judged = study.points(stage, variant, profile).iter().filter(|p| !p.failed()).count();
    Some((judged, load.loads().most_points()))
}

/// Records in `runs/recorded.json` what the study names now (engine, version, command, its
/// `date`) for every run placed by hand it does not name yet, so that a later version bump does
/// not relabel them. Returns how many it recorded.
pub fn record_hand_placed(study: &Study) -> anyhow::Result<usize> {
    let unrecorded = study.unrecorded();
    if unrecorded.is_empty() {
        return Ok(0);
    }
    let chain = resolve(study);
    let mut recorded = study.recorded.clone();
    for key in &unrecorded {
        let Some(config) = chain.config_of(key) else { continue };
        let Some(engine) = study.engine(&config.engine) else { continue };
        recorded.insert(
            key.clone(),
            crate::study::Recorded {
                engine: config.engine.clone(),
                engine_version: engine.version.clone(),
                command: command::engine_argv(study, config)?,
                date: study.spec.date.as_ref().map(|d| d.get_ref().clone()),
            },
        );
    }
    let path = study.dir.join(crate::study::RUNS_DIR).join(crate::study::RECORDED_FILE);
    crate::study::write_recorded(&path, &recorded)
        .map_err(|e| anyhow::anyhow!("cannot write '{}': {e}", path.display()))?;
    Ok(unrecorded.len())
}

/// One engine start: a configuration and the profiles to benchmark on it.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Job {
    pub stage: String,
    pub variant: String,
    pub config: Config,
    pub profiles: Vec<String>,
    /// The engine's command with `{port}` to fill.
    pub argv: Vec<String>,
    pub env: BTreeMap<String, String>,
    /// The optimized configuration on the profiles the search did not measure it on, run once
    /// every stage is settled.
    pub after_search: bool,
    /// The GPUs it takes, as the study declares them (`gpus` of its variant, of the variant it
    /// builds on, ..., or of its engine).
    #[serde(default)]
    pub gpus: Option<u32>,
    /// Measurements of a profile in this engine start (a profile not listed: one).
    #[serde(default)]
    pub repeats: BTreeMap<String, u32>,
    /// Profiles whose measurements add to the run's earlier ones instead of starting anew.
    #[serde(default)]
    pub adds_to: BTreeSet<String>,
}

impl Job {
    /// The variant whose configuration this job runs.
    pub fn reference(&self) -> VariantRef {
        VariantRef::new(&self.stage, &self.variant)
    }

    /// Measurements of `profile` this start takes.
    pub fn measurements(&self, profile: &str) -> u32 {
        self.repeats.get(profile).copied().unwrap_or(1).max(1)
    }
}

#[derive(Debug, Default)]
pub struct Plan {
    pub runs: Vec<PlannedRun>,
    /// Engine starts that can run now, in order.
    pub jobs: Vec<Job>,
    /// Seconds the pending and waiting runs should take, from recorded durations.
    pub estimate_seconds: Option<f64>,
    /// The same with the stale runs measured again (`--rerun-stale`).
    pub rerun_stale_seconds: Option<f64>,
}

impl Plan {
    pub fn count(&self, f: impl Fn(&Status) -> bool) -> usize {
        self.runs.iter().filter(|r| f(&r.status)).count()
    }

    /// The recorded failures that stand for their runs: those a run reuses and does not start
    /// again (`--rerun` does), and those the study changed since, which are stale
    /// (`--rerun-stale` starts them again).
    pub fn standing_failures(&self) -> StandingFailures {
        StandingFailures {
            kept: self.count(|s| matches!(s, Status::Failed { .. })),
            stale: self.count(|s| matches!(s, Status::Stale { failed: Some(_), .. })),
        }
    }
}

/// How many recorded failures stand for their runs ([`Plan::standing_failures`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StandingFailures {
    /// Failures that still hold for what the study says: not started again.
    pub kept: usize,
    /// Failures recorded under another engine, version or command than the study names now.
    pub stale: usize,
}

impl StandingFailures {
    /// One sentence for `perflab plan` and the end of `perflab run`, when any failure stands.
    pub fn sentence(&self) -> Option<String> {
        let runs = |n: usize| if n == 1 { "1 run".to_string() } else { format!("{n} runs") };
        let kept = (self.kept > 0).then(|| {
            let (its, it) = if self.kept == 1 { ("its", "it") } else { ("their", "them") };
            format!(
                "{} stand as failed: `perflab run` reuses {its} recorded failure and does not start {it} again (`perflab run --rerun --variant STAGE/VARIANT` tries one again)",
                runs(self.kept)
            )
        });
        let stale = (self.stale > 0).then(|| {
            let it = if self.stale == 1 { "it" } else { "them" };
            format!(
                "{} failed under another engine version or command than the study names now: stale, and `perflab run --rerun-stale` tries {it} again",
                runs(self.stale)
            )
        });
        match (kept, stale) {
            (None, None) => None,
            (Some(one), None) | (None, Some(one)) => Some(one),
            (Some(kept), Some(stale)) => Some(format!("{kept}; {stale}")),
        }
    }
}

/// Which earlier stages must be settled before a variant's configuration is known.
fn needs(study: &Study, stage: usize, base: Option<&str>) -> usize {
    match base {
        None => stage,
        Some(b) => match Ref::parse(b) {
            Ref::Variant(r) => study.stage_index(r.stage()).unwrap_or(stage),
            Ref::Stage(s) => study.stage_index(&s).map_or(stage, |i| i + 1),
        },
    }
}

/// The plan of a study. `rerun` lists `stage/variant` whose runs are measured again.
pub fn plan(study: &Study, rerun: &BTreeSet<VariantRef>, rerun_stale: bool) -> anyhow::Result<Plan> {
    plan_with(study, rerun, rerun_stale, &BTreeMap::new())
}

/// The plan with more measurements of some runs on the target profile than the study asks
/// for: `more` maps `stage/variant` to the measurements its run should hold.
pub fn plan_with(
    study: &Study,
    rerun: &BTreeSet<VariantRef>,
    rerun_stale: bool,
    more: &BTreeMap<String, u32>,
) -> anyhow::Result<Plan> {
    let chain = resolve(study);
    let planner = Planner {
        study,
        chain: &chain,
        rerun,
        rerun_stale,
        more,
        target: study.spec.target_profile.get_ref().clone(),
        compare: study.compare_profiles().iter().map(|p| p.id.get_ref().clone()).collect(),
    };
    let mut plan = Plan::default();
    let mut unsettled: Option<String> = None;
    for (i, (stage, outcome)) in study.spec.stages.iter().zip(&chain.stages).enumerate() {
        let mut settled = true;
        for (v, vo) in stage.variants.iter().zip(&outcome.variants) {
            let base =
                v.base.as_ref().or(stage.base.as_ref()).or(stage.measured_on.as_ref()).map(|b| b.get_ref().as_str());
            let required = needs(study, i, base);
            let waiting_on = unsettled
                .as_ref()
                .filter(|_| study.spec.stages[..required].iter().any(|s| Some(s.id.get_ref()) == unsettled.as_ref()));
            settled &= planner.variant(&outcome.id, v, vo, waiting_on, &mut plan)?;
        }
        if !settled && unsettled.is_none() {
            unsettled = Some(outcome.id.clone());
        }
    }
    // Once every stage is settled, the optimized configuration is known: its other profiles.
    if unsettled.is_none()
        && let Some(source) = chain.last().source.variant()
    {
        planner.optimized(source, &mut plan)?;
    }
    plan.estimate_seconds = estimate(study, &plan, false);
    plan.rerun_stale_seconds = estimate(study, &plan, true);
    Ok(plan)
}

/// What a plan is made from: the search replayed, and what the run asks for.
struct Planner<'a> {
    study: &'a Study,
    chain: &'a crate::analysis::chain::Chain,
    rerun: &'a BTreeSet<VariantRef>,
    rerun_stale: bool,
    more: &'a BTreeMap<String, u32>,
    target: String,
    compare: Vec<String>,
}

impl Planner<'_> {
    /// A variant's runs (the target profile; the baseline's compared profiles too) and its
    /// engine start when any is pending. True when its run on the target is settled.
    fn variant(
        &self,
        stage: &str,
        v: &crate::study::Variant,
        vo: &crate::analysis::chain::VariantOutcome,
        waiting_on: Option<&String>,
        plan: &mut Plan,
    ) -> anyhow::Result<bool> {
        let (study, target) = (self.study, &self.target);
        let reference = VariantRef::new(stage, &vo.id);
        let mut profiles = vec![target.clone()];
        if reference == *study.spec.baseline.get_ref() {
            profiles.extend(self.compare.iter().filter(|p| *p != target).cloned());
        }
        let mut settled = true;
        let mut job_profiles = Vec::new();
        let mut measurements = Measurements::default();
        for profile in profiles {
            let key = reference.key(&profile);
            let wanted = study.repeats_wanted(stage, &profile).max(if profile == *target {
                self.more.get(reference.as_str()).copied().unwrap_or(1)
            } else {
                1
            });
            let again = self.rerun.contains(reference.as_str());
            let status = match waiting_on {
                Some(on) => Status::Waiting { on: on.clone() },
                None => {
                    let asked = Asked { rerun: again, rerun_stale: self.rerun_stale, wanted };
                    status_of(study, &self.chain.registry, &vo.point, &key, v, asked)?
                }
            };
            if matches!(status, Status::Pending | Status::Waiting { .. }) && profile == *target {
                settled = false;
            }
            if status == Status::Pending {
                measurements.add(study, &key, &vo.point.config, again, wanted)?;
                job_profiles.push(profile.clone());
            }
            let points = points_of(study, stage, &vo.id, &profile);
            let searches = searches_of(study, &key, &vo.point.config, wanted);
            plan.runs.push(PlannedRun {
                stage: stage.to_string(),
                variant: vo.id.clone(),
                profile,
                status,
                points,
                searches,
            });
        }
        if !job_profiles.is_empty() {
            let mut job = job(study, stage, &vo.id, &vo.point.config, job_profiles)?;
            job.gpus = self.chain.gpus(study, &reference);
            (job.repeats, job.adds_to) = (measurements.counts, measurements.adds_to);
            plan.jobs.push(job);
        }
        Ok(settled)
    }

    /// The optimized configuration on the compared profiles the search did not measure it on.
    fn optimized(&self, source: &VariantRef, plan: &mut Plan) -> anyhow::Result<()> {
        let (study, last) = (self.study, self.chain.last());
        let (stage, variant) = (source.stage(), source.variant());
        let Some((_, v)) = study.variant_of(source) else { return Ok(()) };
        let mut job_profiles = Vec::new();
        let mut measurements = Measurements::default();
        for profile in self.compare.iter().filter(|p| **p != self.target) {
            let key = source.key(profile);
            if plan.runs.iter().any(|r| r.stage == stage && r.variant == variant && r.profile == *profile) {
                continue;
            }
            let (again, wanted) = (self.rerun.contains(source.as_str()), study.repeats_wanted(stage, profile));
            let asked = Asked { rerun: again, rerun_stale: self.rerun_stale, wanted };
            let status = status_of(study, &self.chain.registry, last, &key, v, asked)?;
            if status == Status::Pending {
                measurements.add(study, &key, &last.config, again, wanted)?;
                job_profiles.push(profile.clone());
            }
            plan.runs.push(PlannedRun {
                stage: stage.into(),
                variant: variant.into(),
                profile: profile.clone(),
                points: points_of(study, stage, variant, profile),
                searches: searches_of(study, &key, &last.config, wanted),
                status,
            });
        }
        if !job_profiles.is_empty() {
            let mut job = job(study, stage, variant, &last.config, job_profiles)?;
            job.after_search = true;
            (job.repeats, job.adds_to) = (measurements.counts, measurements.adds_to);
            job.gpus = self.chain.gpus(study, source);
            plan.jobs.push(job);
        }
        Ok(())
    }
}

/// What the next engine start of a configuration measures on each profile: how many times,
/// and whether it adds to the run's earlier measurements.
#[derive(Default)]
struct Measurements {
    counts: BTreeMap<String, u32>,
    adds_to: BTreeSet<String>,
}

impl Measurements {
    /// A pending run of `key`, which should hold `wanted` measurements that pass the single-run
    /// checks: a run that stands and still measures what the study says gets the ones it lacks
    /// (see [`Study::measurements_missing`]); another run, all of them. One a start where
    /// [`Study::one_a_start`] says so.
    fn add(&mut self, study: &Study, key: &RunKey, config: &Config, again: bool, wanted: u32) -> anyhow::Result<()> {
        let adds = !again
            && (study.curve(&key.profile).is_some()
                || (study.runs.contains_key(key) && staleness(study, key, config)?.is_empty()));
        let missing = if adds { study.measurements_missing(key, wanted) } else { wanted };
        let count = if study.one_a_start(&key.profile) { 1 } else { missing.max(1) };
        if count > 1 {
            self.counts.insert(key.profile.clone(), count);
        }
        if adds {
            self.adds_to.insert(key.profile.clone());
        }
        Ok(())
    }
}

/// What the command line asks of one run: to measure it again whatever stands (`--rerun`), to
/// measure it again where what stands is stale (`--rerun-stale`), and how many measurements it
/// should hold.
#[derive(Debug, Clone, Copy)]
struct Asked {
    rerun: bool,
    rerun_stale: bool,
    wanted: u32,
}

fn status_of(
    study: &Study,
    registry: &crate::analysis::chain::Registry,
    point: &Point,
    key: &RunKey,
    variant: &crate::study::Variant,
    asked: Asked,
) -> anyhow::Result<Status> {
    let Asked { rerun, rerun_stale, wanted } = asked;
    if study.curve(&key.profile).is_some() {
        return curve_status(study, registry, point, key, asked);
    }
    if rerun && (study.runs.contains_key(key) || study.failure(variant, key).is_some()) {
        return Ok(Status::Pending);
    }
    // What stands for the run (a result, or a failure perflab recorded) and what measured it:
    // another engine, version, command or benchmark makes it stale.
    let stale = staleness(study, key, &point.config)?;
    if let Some((class, _)) = study.failure(variant, key) {
        // A failure the spec declares is the variant's own: never stale.
        let stale = variant.failure.is_none().then(|| if_stale(stale, Some(class), rerun_stale)).flatten();
        return Ok(stale.unwrap_or(Status::Failed { class }));
    }
    if study.runs.contains_key(key) {
        if let Some(stale) = if_stale(stale, None, rerun_stale) {
            return Ok(stale);
        }
        if study.measurements_missing(key, wanted) > 0 {
            return Ok(Status::Pending);
        }
        let date = study.manifests.get(key).and_then(|m| m.ended_at.clone());
        return Ok(Status::Done { date });
    }
    if let Some((from, true)) = registry.find(study, point, &key.profile).filter(|_| !rerun) {
        return Ok(Status::Reused { from: from.config().to_string() });
    }
    // An identical configuration failed: started again, it would fail the same way, unless
    // that failure was recorded under another engine, version or command than the study names
    // now, which makes it as stale as the configuration's own would be.
    if let Some(f) = registry.failure_of(&point.config, &key.profile).filter(|_| !rerun) {
        let stale = if_stale(staleness(study, &f.run, &point.config)?, Some(f.class), rerun_stale);
        return Ok(stale.unwrap_or(Status::Failed { class: f.class }));
    }
    Ok(Status::Pending)
}

/// What a run stands as when the result or failure recorded for it (`failed`) was measured
/// under what the study no longer names (`stale`, its reasons): measured again under
/// `--rerun-stale`, else stale. `None` when nothing is stale.
fn if_stale(stale: Vec<Stale>, failed: Option<FailureClass>, rerun_stale: bool) -> Option<Status> {
    match (stale.is_empty(), rerun_stale) {
        (true, _) => None,
        (false, true) => Some(Status::Pending),
        (false, false) => Some(Status::Stale { reasons: stale, failed }),
    }
}

/// Where a configuration's load curve stands: measured once it has `wanted` finished searches
/// that still measure what the study says (each engine start searches anew), pending while its
/// newest search would measure more or more searches are wanted.
fn curve_status(
    study: &Study,
    registry: &crate::analysis::chain::Registry,
    point: &Point,
    key: &RunKey,
    asked: Asked,
) -> anyhow::Result<Status> {
    let Asked { rerun, rerun_stale, wanted } = asked;
    if rerun {
        return Ok(Status::Pending);
    }
    let current = study.current_search(&key.stage, &key.variant, &key.profile, &point.config)?;
    // An identical configuration's curve stands for this one, as a fixed load's run does.
    if !current.measured
        && let Some((from, true)) = registry.find(study, point, &key.profile)
    {
        return Ok(Status::Reused { from: from.config().to_string() });
    }
    if let Some(stale) = if_stale(current.stale, None, rerun_stale) {
        return Ok(stale);
    }
    let newest = study.searches(&key.stage, &key.variant, &key.profile).last();
    // A search that gave up on a load whose measurement kept failing is a failure, not done.
    if let Some(point) = newest.and_then(crate::study::curve::Search::gave_up_on) {
        let class = point.failure.as_ref().map_or(crate::study::FailureClass::BenchmarkFailure, |f| f.class);
        return Ok(Status::Failed { class });
    }
    if current.unfinished.is_some() || current.finished < wanted {
        return Ok(Status::Pending);
    }
    let date =
        newest.into_iter().flat_map(|s| &s.points).filter_map(|p| study.point_manifest(p)?.ended_at.clone()).max();
    Ok(Status::Done { date })
}

fn job(study: &Study, stage: &str, variant: &str, config: &Config, profiles: Vec<String>) -> anyhow::Result<Job> {
    Ok(Job {
        stage: stage.to_string(),
        variant: variant.to_string(),
        config: config.clone(),
        profiles,
        argv: command::engine_argv(study, config)?,
        env: command::engine_env(study, config),
        after_search: false,
        gpus: None,
        repeats: BTreeMap::new(),
        adds_to: BTreeSet::new(),
    })
}

/// Pending and waiting runs (and stale ones, with `stale`) times the mean recorded benchmark
/// time, plus one mean engine start a variant among them.
fn estimate(study: &Study, plan: &Plan, stale: bool) -> Option<f64> {
    let bench: Vec<f64> = study.manifests.values().filter_map(|m| m.benchmark_seconds).collect();
    let start: Vec<f64> = study.manifests.values().filter_map(|m| m.start_seconds).collect();
    if bench.is_empty() {
        return None;
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let open = |s: &Status| {
        matches!(s, Status::Pending | Status::Waiting { .. }) || (stale && matches!(s, Status::Stale { .. }))
    };
    let runs = plan.count(open) as f64;
    let starts: BTreeSet<(&str, &str)> =
        plan.runs.iter().filter(|r| open(&r.status)).map(|r| (r.stage.as_str(), r.variant.as_str())).collect();
    Some(runs * mean(&bench) + starts.len() as f64 * mean(&start))
}
