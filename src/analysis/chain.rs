//! The greedy search replayed from stored runs: each variant's effective configuration, its
//! measurement on the target profile, each stage's best variant and what it adopts.

use super::adoption::{self, Adoption, Best};
use super::stats::{self, Sample};
use crate::diag::Diagnostic;
use crate::study::outcome::Completion;
use crate::study::{Config, Flag, Identity, RunKey, Study, Variant, command};
use std::collections::BTreeMap;

/// Whether a run can be trusted to rank a variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum RunStatus {
    Ok,
    /// Fewer requests completed than the profile sent.
    LostRequests {
        completed: u64,
        expected: u64,
    },
    /// The block was cut off.
    Incomplete,
}

/// A configuration with the run that measured it on the target profile.
#[derive(Debug, Clone)]
pub struct Point {
    /// `stage/variant` whose configuration this is.
    pub source: String,
    pub config: Config,
    pub run: Option<RunKey>,
    /// The objective: the mean of the run's measurements (the value of a single run).
    pub value: Option<f64>,
    /// The run's measurements of the objective, summarised.
    pub sample: Option<Sample>,
}

impl Point {
    /// A configuration first known by the stage that made it (`measured_on`), now found measured
    /// by the variant of `key`: from here on it is that variant's configuration.
    fn measured_by(&mut self, key: RunKey, sample_of: impl Fn(&RunKey) -> Option<Sample>) {
        self.source = format!("{}/{}", key.stage, key.variant);
        self.sample = sample_of(&key);
        self.value = self.sample.map(|s| s.mean);
        self.run = Some(key);
    }
}

/// What happened to one variant.
#[derive(Debug, Clone)]
pub struct VariantOutcome {
    pub id: String,
    pub point: Point,
    /// `stage/variant` of the configuration it built on; `None` for a variant that builds on nothing.
    pub base: Option<String>,
    /// True when its run is another variant's, of the identical configuration.
    pub reused: bool,
    /// Why it could not be measured, from the spec or from `perflab run`'s record.
    pub failure: Option<(crate::study::FailureClass, Option<String>)>,
    /// `stage/variant` of the identical configuration whose recorded failure it shares (it was
    /// not started again); the failure's message is that run's own.
    pub failure_from: Option<String>,
    pub status: Option<RunStatus>,
}

impl VariantOutcome {
    /// Could not be measured (a failure in the spec or recorded by a run).
    pub fn failed(&self) -> bool {
        self.failure.is_some()
    }

    /// Measured, complete and without lost requests.
    pub fn ranks(&self) -> bool {
        !self.failed() && self.status == Some(RunStatus::Ok) && self.point.value.is_some()
    }
}

/// What happened in one stage.
#[derive(Debug, Clone)]
pub struct StageOutcome {
    pub id: String,
    /// The configuration the stage is measured against.
    pub base: Point,
    pub variants: Vec<VariantOutcome>,
    /// Index of the best variant that ranks (the first of equal values).
    pub best: Option<usize>,
    /// The decision and the numbers behind it.
    pub adoption: Adoption,
    /// The configuration after the stage.
    pub after: Point,
}

/// The whole search.
#[derive(Debug, Clone)]
pub struct Chain {
    pub stages: Vec<StageOutcome>,
    /// What the optimized configuration is compared with: the study's baseline, or when that did
    /// not run, the configuration the search went on from after the first stage.
    pub baseline: Point,
    /// `stage/variant` of the study's baseline when it did not run and `baseline` stands in.
    pub baseline_failed: Option<String>,
    /// Every stored run by configuration, to find the run of a configuration on any profile.
    pub registry: Registry,
    pub problems: Vec<Diagnostic>,
}

impl StageOutcome {
    /// The adopted variant; `None` keeps `base`.
    pub fn adopted(&self) -> Option<&VariantOutcome> {
        self.adoption.adopted().and_then(|id| self.variants.iter().find(|v| v.id == id))
    }
}

impl Chain {
    /// The outcome of `stage/variant`.
    pub fn variant(&self, reference: &str) -> Option<&VariantOutcome> {
        let (s, v) = reference.split_once('/')?;
        self.stages.iter().find(|x| x.id == s)?.variants.iter().find(|x| x.id == v)
    }

    /// The configuration a run of `stage/variant` measures as the search stands now.
    pub fn config_of(&self, key: &RunKey) -> Option<&Config> {
        let stage = self.stages.iter().find(|s| s.id == key.stage)?;
        stage.variants.iter().find(|v| v.id == key.variant).map(|v| &v.point.config)
    }

    /// The configuration after the last stage.
    /// The GPUs a configuration (`stage/variant`) takes, as the study declares them: its
    /// variant's `gpus`, else that of the variant it builds on, and so on back, else its engine's.
    pub fn gpus(&self, study: &Study, source: &str) -> Option<u32> {
        let mut at = source.to_string();
        // Each step goes to an earlier stage: the walk ends within as many steps as there are stages.
        for _ in 0..=study.spec.stages.len() {
            let (_, variant) = study.variant(&at)?;
            if let Some(gpus) = &variant.gpus {
                return Some(*gpus.get_ref());
            }
            let (stage, id) = at.split_once('/')?;
            let outcome = self.stages.iter().find(|s| s.id == stage)?.variants.iter().find(|v| v.id == id)?;
            match &outcome.base {
                Some(base) if *base != at => at = base.clone(),
                _ => return study.engine(&outcome.point.config.engine).and_then(|e| e.gpus),
            }
        }
        None
    }

    pub fn last(&self) -> &Point {
        self.stages.last().map_or(&self.baseline, |s| &s.after)
    }
}

/// The status of a run of `profile` by its block.
pub fn run_status(study: &Study, key: &RunKey) -> Option<RunStatus> {
    let run = study.runs.get(key)?;
    if !run.block.complete {
        return Some(RunStatus::Incomplete);
    }
    let expected = study.profile(&key.profile).map_or(0, |p| p.total_requests);
    let completion = Completion::of(&run.block, expected);
    if !completion.all() {
        let completed = completion.count();
        return Some(RunStatus::LostRequests { completed, expected: expected.max(completed) });
    }
    Some(RunStatus::Ok)
}

/// Stored runs by (configuration identity, profile), the first stored for each, for reuse; and
/// the failures runs recorded, which identical configurations share.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    runs: BTreeMap<(Identity, String), RunKey>,
    failures: BTreeMap<(Identity, String), ReusedFailure>,
}

/// A failure recorded for a configuration, which every identical configuration shares: it is
/// not started again to fail the same way.
#[derive(Debug, Clone)]
pub struct ReusedFailure {
    /// The run that failed.
    pub run: RunKey,
    pub class: crate::study::FailureClass,
    pub message: Option<String>,
}

impl Registry {
    /// The failure recorded for an identical configuration on `profile`, when no run of it
    /// stands.
    pub fn failure_of(&self, config: &Config, profile: &str) -> Option<&ReusedFailure> {
        self.failures.get(&(config.identity(), profile.to_string()))
    }

    /// The run of `point`'s configuration on `profile`: the variant's own, or the first stored
    /// run of the identical configuration. The flag says whether it was reused.
    pub fn find(&self, study: &Study, point: &Point, profile: &str) -> Option<(RunKey, bool)> {
        if let Some((stage, variant)) = point.source.split_once('/') {
            let own = RunKey { stage: stage.into(), variant: variant.into(), profile: profile.into() };
            if study.runs.contains_key(&own) {
                return Some((own, false));
            }
        }
        self.by_identity(&point.config, profile).map(|k| (k, true))
    }

    /// The first stored run of `config` on `profile`.
    pub fn by_identity(&self, config: &Config, profile: &str) -> Option<RunKey> {
        self.runs.get(&(config.identity(), profile.to_string())).cloned()
    }
}

fn flags_of(study: &Study, engine: &str, v: &Variant) -> (Vec<String>, Vec<Flag>) {
    let aliases = study.engine(engine).map(|e| e.aliases.clone()).unwrap_or_default();
    let flags = v.flags.iter().filter_map(|f| Flag::parse(f.get_ref(), &aliases)).collect();
    let unset = v.unset.iter().filter_map(|f| Flag::parse(f.get_ref(), &aliases)).map(|f| f.key).collect();
    (unset, flags)
}

/// Replays the search. Problems found on the way (a variant whose engine differs from its
/// base's, a variant with no run) are in `problems`.
pub fn resolve(study: &Study) -> Chain {
    let spec = &study.spec;
    let target = spec.target_profile.get_ref().as_str();
    let objective = spec.objective.get_ref().as_str();
    let metric = study.metric(objective);
    let mut problems = Vec::new();

    // Configurations are known before results: a first pass builds them all, a second measures.
    // Both happen stage by stage, since a stage builds on the previous stage's winner.
    let mut registry = Registry::default();
    let mut stages: Vec<StageOutcome> = Vec::new();
    let empty = Point { source: String::new(), config: Config::default(), run: None, value: None, sample: None };
    let mut current: Option<Point> = None;
    let sample_of = |key: &RunKey| Sample::of(&study.start_values(key, objective));

    for stage in &spec.stages {
        let stage_id = stage.id.get_ref().clone();
        let resolve_ref = |name: &str, stages: &[StageOutcome]| -> Option<Point> {
            match name.split_once('/') {
                Some((s, v)) => {
                    stages.iter().find(|x| x.id == s)?.variants.iter().find(|x| x.id == v).map(|x| x.point.clone())
                }
                None => stages.iter().find(|x| x.id == name).map(|x| x.after.clone()),
            }
        };
        let stage_base: Option<Point> = match &stage.base {
            Some(b) => {
                let named = resolve_ref(b.get_ref(), &stages);
                if let (Some(named), Some(current)) = (&named, &current)
                    && let Some(lost) = dropped(&current.config, &named.config)
                {
                    problems.push(study.diag_at(
                        b,
                        format!(
                            "stage `{stage_id}`: `base = \"{}\"` builds the rest of the search on `{}`, which drops {lost} that the search had adopted by then (`{}`): every later configuration and the recommended command would lose it. Leave `base` out to build on the previous stage, or give the variants that need another starting point their own `base`",
                            b.get_ref(),
                            named.source,
                            current.source
                        ),
                    ));
                }
                named
            }
            None => match &stage.measured_on {
                Some(m) => resolve_ref(m.get_ref(), &stages),
                None => current.clone(),
            },
        };
        let mut variants = Vec::new();
        for v in &stage.variants {
            let variant_id = v.id.get_ref().clone();
            let base = match &v.base {
                Some(b) => resolve_ref(b.get_ref(), &stages),
                None => stage_base.clone(),
            };
            let start = match (&base, &v.engine) {
                (Some(b), Some(e)) if !b.config.engine.is_empty() && b.config.engine != *e.get_ref() => {
                    problems.push(study.diag_at(
                        e,
                        format!(
                            "variant `{variant_id}` runs on `{}` but builds on `{}`, which runs on `{}`",
                            e.get_ref(),
                            b.source,
                            b.config.engine
                        ),
                    ));
                    Config::new(e.get_ref())
                }
                (Some(b), _) => b.config.clone(),
                (None, Some(e)) => Config::new(e.get_ref()),
                (None, None) => Config::default(),
            };
            let (unset, flags) = flags_of(study, &start.engine, v);
            for flag in v.unset.iter().filter(|f| command::in_template(study, &start.engine, f.get_ref())) {
                problems.push(study.diag_at(flag, format!(
                    "variant `{variant_id}`: `unset` cannot remove `{}`, which engine `{}`'s own command gives; take it out of the command and into the flags of the variants that need it",
                    flag.get_ref(), start.engine
                )));
            }
            let mut config = start.with(&unset, &flags, &v.env);
            if let Some(model) = &v.model {
                config.model = Some(model.get_ref().clone());
            }
            let own = RunKey { stage: stage_id.clone(), variant: variant_id.clone(), profile: target.to_string() };
            let own_failure = study.failure(v, &own);
            let shared = own_failure
                .is_none()
                .then(|| {
                    if study.runs.contains_key(&own) || registry.by_identity(&config, target).is_some() {
                        return None;
                    }
                    registry.failure_of(&config, target)
                })
                .flatten();
            let failure_from = shared.map(|f| format!("{}/{}", f.run.stage, f.run.variant));
            let failure = own_failure.or_else(|| shared.map(|f| (f.class, f.message.clone())));
            let failed = failure.is_some();
            if failed && study.runs.contains_key(&own) {
                problems.push(
                    study.diag_at(&v.id, format!("variant `{variant_id}` has a `failure` and a run file; keep one")),
                );
            }
            // Every stored run of this variant becomes reusable by identical configurations.
            for p in &spec.profiles {
                let key =
                    RunKey { stage: stage_id.clone(), variant: variant_id.clone(), profile: p.id.get_ref().clone() };
                if study.runs.contains_key(&key) {
                    registry.runs.entry((config.identity(), key.profile.clone())).or_insert(key);
                } else if v.failure.is_none()
                    && let Some((class, message)) = study.failure(v, &key)
                {
                    // Only what a run recorded: a failure the spec declares is the variant's own.
                    let reused = ReusedFailure { run: key.clone(), class, message };
                    registry.failures.entry((config.identity(), key.profile.clone())).or_insert(reused);
                }
            }
            let mut point =
                Point { source: format!("{stage_id}/{variant_id}"), config, run: None, value: None, sample: None };
            let found = if failed { None } else { registry.find(study, &point, target) };
            if !failed && found.is_none() {
                problems.push(study.diag_at(&v.id, format!(
                    "variant `{stage_id}/{variant_id}` has no run for profile `{target}`: expected {}/{}/{stage_id}/{variant_id}/{target}.txt",
                    study.dir.display(), crate::study::RUNS_DIR
                )));
            }
            let status = found.as_ref().and_then(|(k, _)| run_status(study, k));
            point.sample = found.as_ref().and_then(|(k, _)| sample_of(k));
            point.value = point.sample.map(|s| s.mean);
            point.run = found.as_ref().map(|(k, _)| k.clone());
            variants.push(VariantOutcome {
                id: variant_id,
                point,
                base: base.map(|b| b.source),
                reused: found.is_some_and(|(_, r)| r),
                failure,
                failure_from,
                status,
            });
        }
        let values = variants.iter().map(|v| v.point.value.filter(|_| v.ranks()));
        let best = adoption::best(&metric, values);
        // A configuration carried over from a `measured_on` stage may be measured only here, by
        // a variant that changes nothing.
        let stage_base = stage_base.map(|mut b| {
            if b.run.is_none()
                && !b.source.contains('/')
                && let Some(key) = registry.by_identity(&b.config, target)
            {
                b.measured_by(key, sample_of);
            }
            b
        });
        // The first stage is measured against the study's baseline.
        let base = stage_base.unwrap_or_else(|| {
            let baseline = spec.baseline.get_ref();
            let (s, v) = baseline.split_once('/').unwrap_or(("", ""));
            variants
                .iter()
                .find(|x| s == stage_id && x.id == v)
                .map(|x| x.point.clone())
                .unwrap_or_else(|| empty.clone())
        });
        let decided = stage.adopt.as_ref().map(|a| a.variant.as_ref().map(|v| v.get_ref().as_str()));
        let override_value =
            decided.flatten().and_then(|id| variants.iter().find(|x| x.id == id)).and_then(|x| x.point.value);
        let as_best =
            |i: usize| {
                let v = &variants[i];
                let is_base = v.point.config.identity() == base.config.identity();
                Best {
                    variant: &v.id,
                    value: v.point.value.unwrap_or_default(),
                    is_base,
                    interval: v.point.sample.zip(base.sample).filter(|_| !is_base).and_then(|(n, b)| {
                        stats::gain_at(&metric, &n, &b, decision_level(study, &stage_id, n.n.min(b.n)))
                    }),
                }
            };
        let challenger = adoption::best(
            &metric,
            variants
                .iter()
                .map(|v| v.point.value.filter(|_| v.ranks() && v.point.config.identity() != base.config.identity())),
        );
        let adoption = adoption::decide(
            &metric,
            spec.noise_threshold,
            base.value,
            best.map(as_best),
            challenger.map(as_best),
            decided,
            override_value,
        );
        let adopted = adoption.adopted().and_then(|id| variants.iter().find(|x| x.id == id));
        let after = match (&stage.measured_on, &current) {
            // Measured elsewhere: the search goes on from where it stood, with the decision carried over.
            (Some(_), Some(current)) => match adopted {
                Some(v) if v.point.config.identity() != current.config.identity() => {
                    let mut point = Point {
                        source: stage_id.clone(),
                        config: current.config.transplant(&base.config, &v.point.config),
                        run: None,
                        value: None,
                        sample: None,
                    };
                    if point.config.identity() == v.point.config.identity() {
                        point = v.point.clone();
                    } else if let Some(key) = registry.by_identity(&point.config, target) {
                        point.measured_by(key, sample_of);
                    }
                    point
                }
                _ => current.clone(),
            },
            _ => match adopted {
                Some(v) => v.point.clone(),
                // What the stage builds on did not run: the search goes on from the best
                // configuration that did, never from one known to fail.
                None if base.value.is_none() => best.map_or_else(|| base.clone(), |i| variants[i].point.clone()),
                None => base.clone(),
            },
        };
        current = Some(after.clone());
        stages.push(StageOutcome { id: stage_id, base, variants, best, adoption, after });
    }
    let baseline = {
        let b = spec.baseline.get_ref();
        let (s, v) = b.split_once('/').unwrap_or(("", ""));
        stages
            .iter()
            .find(|x| x.id == s)
            .and_then(|x| x.variants.iter().find(|y| y.id == v))
            .map_or(empty, |x| x.point.clone())
    };
    // A baseline that did not run cannot be compared with: the figures are compared with the
    // configuration the search went on from after the first stage, and the page says so.
    let (baseline, baseline_failed) = match stages.first() {
        Some(first) if baseline.run.is_none() && !baseline.source.is_empty() && first.after.run.is_some() => {
            (first.after.clone(), Some(baseline.source.clone()))
        }
        _ => (baseline, None),
    };
    Chain { stages, baseline, baseline_failed, registry, problems }
}

/// What `to` loses of `from` (flags by name and value, environment variables, a checkpoint),
/// described for a message; `None` when it keeps all of it.
fn dropped(from: &Config, to: &Config) -> Option<String> {
    let mut lost: Vec<String> = from
        .flags
        .iter()
        .filter(|f| !to.flags.iter().any(|g| g.key == f.key && g.value == f.value))
        .map(|f| format!("`{}`", f.text))
        .collect();
    lost.extend(from.env.iter().filter(|(k, v)| to.env.get(*k) != Some(v)).map(|(k, v)| format!("`{k}={v}`")));
    if let Some(model) = from.model.as_ref().filter(|m| to.model.as_ref() != Some(m)) {
        lost.push(format!("the checkpoint `{model}`"));
    }
    (!lost.is_empty()).then(|| lost.join(", "))
}

/// The two-sided level of the interval a stage decides on, when each side has `starts`
/// engine starts: 5% for a fixed design; under `--until-confident`, the level of the look it
/// stands at in the stage's sequential design (see [`super::sequential`]), which counts a look
/// for every start after the ones the study asks for.
pub fn decision_level(study: &Study, stage: &str, starts: usize) -> f64 {
    let Some(most) = study.designs.get(stage) else { return stats::FIXED_LEVEL };
    let first = study.first_starts(stage) as usize;
    super::sequential::nominal_level(&super::sequential::looks(first.max(2), starts, *most as usize))
}

/// The metric `name` of the run `key`.
pub fn metric(study: &Study, key: &RunKey, name: &str) -> Option<f64> {
    study.runs.get(key)?.block.metric(name)
}
