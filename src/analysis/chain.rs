//! The greedy search replayed from stored runs: each variant's effective configuration, its
//! measurement on the target profile, each stage's best variant and what it adopts.

use super::adoption::{self, Adoption, Best};
use super::per_gpu::{PerGpu, grows_with_gpus};
use super::stats::{self, Sample};
use crate::diag::Diagnostic;
use crate::study::outcome::Completion;
use crate::study::{Compare, Config, Flag, Identity, Ref, RunKey, Source, Stage, Study, Variant, VariantRef, command};
use std::collections::BTreeMap;

/// Whether a run can be trusted to rank a variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum RunStatus {
    /// Not cut off, and every request the profile sent completed with none failed: it ranks.
    Ok,
    /// Fewer requests completed than the profile sent.
    LostRequests {
        /// Requests that completed (a count): the result's own count, else the requests it
        /// does not count as failed.
        completed: u64,
        /// Requests the profile sends (`total_requests`), never fewer than `completed`.
        expected: u64,
    },
    /// The block was cut off.
    Incomplete,
}

/// A configuration with the run that measured it on the target profile.
#[derive(Debug, Clone)]
pub struct Point {
    /// Whose configuration this is.
    pub source: Source,
    /// Its engine, model, flags and environment.
    pub config: Config,
    /// The run that measured it on the target profile: its own or an identical configuration's
    /// (`stage/variant/profile`); `None` when none did.
    pub run: Option<RunKey>,
    /// The objective: the mean of the run's measurements (the value of a single run).
    pub value: Option<f64>,
    /// The run's measurements of the objective, summarised.
    pub sample: Option<Sample>,
}

impl Point {
    /// No configuration: what stands in for a baseline that names no variant.
    pub fn nothing() -> Point {
        Point { source: Source::Nothing, config: Config::default(), run: None, value: None, sample: None }
    }

    /// A configuration first known by the stage that made it (`measured_on`), now found measured
    /// by the variant of `key`: from here on it is that variant's configuration.
    fn measured_by(&mut self, key: RunKey, sample: Option<Sample>) {
        self.source = Source::Variant(key.config());
        self.sample = sample;
        self.value = self.sample.map(|s| s.mean);
        self.run = Some(key);
    }
}

/// What happened to one variant.
#[derive(Debug, Clone)]
pub struct VariantOutcome {
    /// The variant's id within its stage.
    pub id: String,
    /// Its configuration and its run on the target profile.
    pub point: Point,
    /// The configuration it built on; `None` for a variant that builds on nothing.
    pub base: Option<Source>,
    /// True when its run is another variant's, of the identical configuration.
    pub reused: bool,
    /// Why it could not be measured, from the spec or from `perflab run`'s record.
    pub failure: Option<(crate::study::FailureClass, Option<String>)>,
    /// The identical configuration whose recorded failure it shares (it was not started
    /// again); the failure's message is that run's own.
    pub failure_from: Option<VariantRef>,
    /// Whether its run on the target profile can rank; `None` when it has no run.
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
    /// The stage's id.
    pub id: String,
    /// The configuration the stage is measured against.
    pub base: Point,
    /// Its variants, in the study's order.
    pub variants: Vec<VariantOutcome>,
    /// Index of the best variant that ranks (the first of equal values).
    pub best: Option<usize>,
    /// The decision and the numbers behind it.
    pub adoption: Adoption,
    /// The configuration after the stage.
    pub after: Point,
    /// The GPUs of its configurations when they differ and the stage weighs them per GPU (its
    /// best, its decision and its comparison are then per GPU); `None` when they are weighed as
    /// measured.
    pub per_gpu: Option<PerGpu>,
    /// Its variants' accuracy, when the stage requires it (see [`super::accuracy`]).
    pub accuracy: Option<super::accuracy::Gate>,
}

impl StageOutcome {
    /// The adopted variant; `None` keeps `base`.
    pub fn adopted(&self) -> Option<&VariantOutcome> {
        self.adoption.adopted().and_then(|id| self.variants.iter().find(|v| v.id == id))
    }

    /// The objective of variant `i` as the stage weighs it: per GPU when it compares per GPU.
    pub fn weighed(&self, i: usize) -> Option<f64> {
        let v = &self.variants[i];
        v.point.value.map(|x| x / self.gpus_of(i))
    }

    /// The objective of the configuration the stage builds on, as the stage weighs it.
    pub fn weighed_base(&self) -> Option<f64> {
        self.base.value.map(|x| x / self.per_gpu.as_ref().map_or(1.0, |p| f64::from(p.base.max(1))))
    }

    /// Whether variant `i` ranks: measured, complete, and not refused by the stage's accuracy
    /// gate, whatever its speed.
    pub fn ranks(&self, i: usize) -> bool {
        let v = &self.variants[i];
        v.ranks() && !self.accuracy.as_ref().is_some_and(|g| g.refuses(&v.id))
    }

    fn gpus_of(&self, i: usize) -> f64 {
        self.per_gpu.as_ref().map_or(1.0, |p| f64::from(p.variants.get(i).copied().unwrap_or(1).max(1)))
    }
}

/// The whole search.
#[derive(Debug, Clone)]
pub struct Chain {
    /// Every stage, in the study's order.
    pub stages: Vec<StageOutcome>,
    /// What the optimized configuration is compared with: the study's baseline, or when that did
    /// not run, the configuration the search went on from after the first stage.
    pub baseline: Point,
    /// The study's baseline when it did not run and `baseline` stands in.
    pub baseline_failed: Option<VariantRef>,
    /// Every stored run by configuration, to find the run of a configuration on any profile.
    pub registry: Registry,
    /// What the replay found wrong in the study (a variant without a run, a `base` that drops
    /// adopted flags, ...); empty when nothing.
    pub problems: Vec<Diagnostic>,
}

impl Chain {
    /// The outcome of a variant.
    pub fn variant(&self, reference: &VariantRef) -> Option<&VariantOutcome> {
        self.stages.iter().find(|x| x.id == reference.stage())?.variants.iter().find(|x| x.id == reference.variant())
    }

    /// The configuration a run of `stage/variant` measures as the search stands now.
    pub fn config_of(&self, key: &RunKey) -> Option<&Config> {
        let stage = self.stages.iter().find(|s| s.id == key.stage)?;
        stage.variants.iter().find(|v| v.id == key.variant).map(|v| &v.point.config)
    }

    /// The GPUs a variant's configuration takes, as the study declares them: its variant's
    /// `gpus`, else that of the variant it builds on, and so on back, else its engine's.
    pub fn gpus(&self, study: &Study, source: &VariantRef) -> Option<u32> {
        gpus_of(study, source, &|r| self.variant(r))
    }

    /// The configuration after the last stage.
    pub fn last(&self) -> &Point {
        self.stages.last().map_or(&self.baseline, |s| &s.after)
    }
}

/// The GPUs `source`'s configuration takes (see [`Chain::gpus`]), with `outcome` finding the
/// outcome of a variant replayed so far.
fn gpus_of<'a>(
    study: &Study,
    source: &VariantRef,
    outcome: &dyn Fn(&VariantRef) -> Option<&'a VariantOutcome>,
) -> Option<u32> {
    let mut at = source;
    // Each step goes to an earlier stage: the walk ends within as many steps as there are stages.
    for _ in 0..=study.spec.stages.len() {
        let (_, variant) = study.variant_of(at)?;
        if let Some(gpus) = &variant.gpus {
            return Some(*gpus.get_ref());
        }
        let outcome = outcome(at)?;
        match outcome.base.as_ref().and_then(Source::variant) {
            Some(base) if base != at => at = base,
            _ => return study.engine(&outcome.point.config.engine).and_then(|e| e.gpus),
        }
    }
    None
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
    /// How it failed (a crash, out of memory, a failed start, ...).
    pub class: crate::study::FailureClass,
    /// The error it printed, when one was recorded.
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
        if let Some(source) = point.source.variant() {
            let own = source.key(profile);
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
    let mut replay = Replay {
        study,
        target: study.spec.target_profile.get_ref(),
        objective: study.spec.objective.get_ref(),
        metric: study.metric(study.spec.objective.get_ref()),
        registry: Registry::default(),
        stages: Vec::new(),
        current: None,
        problems: Vec::new(),
    };
    // Configurations are known before results, but a stage builds on the previous stage's
    // winner: stage by stage, its variants' configurations are built, then measured and decided.
    for stage in &study.spec.stages {
        let outcome = replay.stage(stage);
        replay.current = Some(outcome.after.clone());
        replay.stages.push(outcome);
    }
    replay.finish()
}

/// The search as replayed so far.
struct Replay<'a> {
    study: &'a Study,
    target: &'a str,
    objective: &'a str,
    /// The objective's metric, which every stage's decision weighs.
    metric: crate::metric::Metric,
    registry: Registry,
    stages: Vec<StageOutcome>,
    /// The configuration the search stands on after the stages replayed so far.
    current: Option<Point>,
    problems: Vec<Diagnostic>,
}

impl Replay<'_> {
    fn sample_of(&self, key: &RunKey) -> Option<Sample> {
        Sample::of(&self.study.start_values(key, self.objective))
    }

    /// The configuration a `base` or `measured_on` names, as replayed so far.
    fn point_of(&self, name: &str) -> Option<Point> {
        match Ref::parse(name) {
            Ref::Variant(r) => self.variant_outcome(&r).map(|x| x.point.clone()),
            Ref::Stage(s) => self.stages.iter().find(|x| x.id == s).map(|x| x.after.clone()),
        }
    }

    fn variant_outcome(&self, r: &VariantRef) -> Option<&VariantOutcome> {
        self.stages.iter().find(|x| x.id == r.stage())?.variants.iter().find(|x| x.id == r.variant())
    }

    /// What a stage's variants build on: its `base`, else the configuration it is measured on,
    /// else where the search stands.
    fn stage_base(&mut self, stage: &Stage) -> Option<Point> {
        let Some(b) = &stage.base else {
            return match &stage.measured_on {
                Some(m) => self.point_of(m.get_ref()),
                None => self.current.clone(),
            };
        };
        let named = self.point_of(b.get_ref());
        if let (Some(named), Some(current)) = (&named, &self.current)
            && let Some(lost) = dropped(&current.config, &named.config)
        {
            let message = format!(
                "stage `{}`: `base = \"{}\"` builds the rest of the search on `{}`, which drops {lost} that the search had adopted by then (`{}`): every later configuration and the recommended command would lose it. Leave `base` out to build on the previous stage, or give the variants that need another starting point their own `base`",
                stage.id.get_ref(),
                b.get_ref(),
                named.source,
                current.source
            );
            self.problems.push(self.study.diag_at(b, message));
        }
        named
    }

    /// The configuration a variant starts from before its own flags: its base's, or its own
    /// engine's when it names one the base does not run on (which is a problem).
    fn start(&mut self, v: &Variant, base: Option<&Point>) -> Config {
        match (base, &v.engine) {
            (Some(b), Some(e)) if !b.config.engine.is_empty() && b.config.engine != *e.get_ref() => {
                let message = format!(
                    "variant `{}` runs on `{}` but builds on `{}`, which runs on `{}`",
                    v.id.get_ref(),
                    e.get_ref(),
                    b.source,
                    b.config.engine
                );
                self.problems.push(self.study.diag_at(e, message));
                Config::new(e.get_ref())
            }
            (Some(b), _) => b.config.clone(),
            (None, Some(e)) => Config::new(e.get_ref()),
            (None, None) => Config::default(),
        }
    }

    /// A variant's configuration: where it starts, with its flags, `unset`, environment and
    /// checkpoint applied.
    fn config(&mut self, v: &Variant, base: Option<&Point>) -> Config {
        let start = self.start(v, base);
        let (unset, flags) = flags_of(self.study, &start.engine, v);
        for flag in v.unset.iter().filter(|f| command::in_template(self.study, &start.engine, f.get_ref())) {
            let message = format!(
                "variant `{}`: `unset` cannot remove `{}`, which engine `{}`'s own command gives; take it out of the command and into the flags of the variants that need it",
                v.id.get_ref(),
                flag.get_ref(),
                start.engine
            );
            self.problems.push(self.study.diag_at(flag, message));
        }
        let mut config = start.with(&unset, &flags, &v.env);
        if let Some(model) = &v.model {
            config.model = Some(model.get_ref().clone());
        }
        config
    }

    /// Why a variant cannot be measured on the target profile: its own failure (in the spec or
    /// recorded by a run), or one an identical configuration recorded, with that run's name.
    fn failure(&self, v: &Variant, own: &RunKey, config: &Config) -> Failure {
        let own_failure = self.study.failure(v, own);
        if own_failure.is_some()
            || self.study.runs.contains_key(own)
            || self.registry.by_identity(config, self.target).is_some()
        {
            return (own_failure, None);
        }
        match self.registry.failure_of(config, self.target) {
            Some(f) => (Some((f.class, f.message.clone())), Some(f.run.config())),
            None => (None, None),
        }
    }

    /// Makes every stored run of a variant reusable by identical configurations, and every
    /// failure a run of it recorded shared with them.
    fn register(&mut self, r: &VariantRef, v: &Variant, config: &Config) {
        for p in &self.study.spec.profiles {
            let key = r.key(p.id.get_ref());
            if self.study.runs.contains_key(&key) {
                self.registry.runs.entry((config.identity(), key.profile.clone())).or_insert(key);
            } else if v.failure.is_none()
                && let Some((class, message)) = self.study.failure(v, &key)
            {
                // Only what a run recorded: a failure the spec declares is the variant's own.
                let reused = ReusedFailure { run: key.clone(), class, message };
                self.registry.failures.entry((config.identity(), key.profile.clone())).or_insert(reused);
            }
        }
    }

    /// One variant: its configuration, and the run that measures it on the target profile.
    fn variant(&mut self, stage: &Stage, v: &Variant, stage_base: Option<&Point>) -> VariantOutcome {
        let r = VariantRef::new(stage.id.get_ref(), v.id.get_ref());
        let base = match &v.base {
            Some(b) => self.point_of(b.get_ref()),
            None => stage_base.cloned(),
        };
        let config = self.config(v, base.as_ref());
        let own = r.key(self.target);
        let (failure, failure_from) = self.failure(v, &own, &config);
        let failed = failure.is_some();
        if failed && self.study.runs.contains_key(&own) {
            let message = format!("variant `{}` has a `failure` and a run file; keep one", v.id.get_ref());
            self.problems.push(self.study.diag_at(&v.id, message));
        }
        self.register(&r, v, &config);
        let mut point = Point { source: Source::Variant(r.clone()), config, run: None, value: None, sample: None };
        let found = if failed { None } else { self.registry.find(self.study, &point, self.target) };
        if !failed && found.is_none() {
            let message = format!(
                "variant `{r}` has no run for profile `{}`: expected {}/{}/{r}/{}.txt",
                self.target,
                self.study.dir.display(),
                crate::study::RUNS_DIR,
                self.target
            );
            self.problems.push(self.study.diag_at(&v.id, message));
        }
        let status = found.as_ref().and_then(|(k, _)| run_status(self.study, k));
        point.sample = found.as_ref().and_then(|(k, _)| self.sample_of(k));
        point.value = point.sample.map(|s| s.mean);
        point.run = found.as_ref().map(|(k, _)| k.clone());
        VariantOutcome {
            id: v.id.get_ref().clone(),
            point,
            base: base.map(|b| b.source),
            reused: found.is_some_and(|(_, r)| r),
            failure,
            failure_from,
            status,
        }
    }

    /// One stage: its variants, what they are measured against, the decision and where the
    /// search stands after it.
    fn stage(&mut self, stage: &Stage) -> StageOutcome {
        let stage_base = self.stage_base(stage);
        let variants: Vec<VariantOutcome> =
            stage.variants.iter().map(|v| self.variant(stage, v, stage_base.as_ref())).collect();
        // A configuration carried over from a `measured_on` stage may be measured only here, by
        // a variant that changes nothing.
        let stage_base = stage_base.map(|mut b| {
            if b.run.is_none()
                && matches!(b.source, Source::Stage(_))
                && let Some(key) = self.registry.by_identity(&b.config, self.target)
            {
                let sample = self.sample_of(&key);
                b.measured_by(key, sample);
            }
            b
        });
        // The first stage is measured against the study's baseline.
        let base = stage_base.unwrap_or_else(|| {
            let baseline = VariantRef::parse(self.study.spec.baseline.get_ref());
            baseline
                .filter(|b| b.stage() == stage.id.get_ref())
                .and_then(|b| variants.iter().find(|x| x.id == b.variant()))
                .map_or_else(Point::nothing, |x| x.point.clone())
        });
        let per_gpu = self.per_gpu(stage, &base, &variants);
        let accuracy = {
            use super::accuracy::{Contender, judge};
            fn of<'a>(p: &'a Point, id: &'a str) -> Contender<'a> {
                Contender { id, run: p.run.as_ref(), is_base: false, value: p.value }
            }
            let base_identity = base.config.identity();
            let contenders: Vec<Contender> = variants
                .iter()
                .map(|v| Contender { is_base: v.point.config.identity() == base_identity, ..of(&v.point, &v.id) })
                .collect();
            judge(self.study, stage, of(&base, ""), &contenders, &self.metric)
        };
        let mut outcome = StageOutcome {
            id: stage.id.get_ref().clone(),
            base,
            variants,
            best: None,
            adoption: Adoption::NoResult { reason: adoption::NoResultReason::NoVariantRanks },
            after: Point::nothing(),
            per_gpu,
            accuracy,
        };
        (outcome.best, outcome.adoption) = self.decide(stage, &outcome);
        outcome.after = self.after(stage, &outcome.base, &outcome.variants, outcome.best, &outcome.adoption);
        outcome
    }

    /// The GPUs of a stage's configurations, when they differ and the stage weighs them per GPU
    /// ([`PerGpu`]): those of the variants that rank and of a base with a value. A configuration
    /// that declares no GPUs, nor does anything it builds on, takes the study's `gpus`, else one.
    fn per_gpu(&self, stage: &Stage, base: &Point, variants: &[VariantOutcome]) -> Option<PerGpu> {
        let total = stage.compare.as_ref().is_some_and(|c| *c.get_ref() == Compare::Total);
        if total || !grows_with_gpus(self.study) {
            return None;
        }
        let default = self.study.spec.gpus.as_ref().map(|g| *g.get_ref());
        let outcome = |r: &VariantRef| match r.stage() == stage.id.get_ref() {
            true => variants.iter().find(|v| v.id == r.variant()),
            false => self.variant_outcome(r),
        };
        let of = |r: &VariantRef| gpus_of(self.study, r, &outcome).or(default).unwrap_or(1);
        let counts: Vec<u32> = variants.iter().map(|v| of(&VariantRef::new(stage.id.get_ref(), &v.id))).collect();
        let base_gpus = base.source.variant().map_or(default.unwrap_or(1), of);
        let mut weighed = counts
            .iter()
            .zip(variants)
            .filter(|(_, v)| v.ranks())
            .map(|(n, _)| *n)
            .chain(base.value.map(|_| base_gpus));
        let first = weighed.next()?;
        (!weighed.all(|n| n == first)).then_some(PerGpu { base: base_gpus, variants: counts })
    }

    /// The stage's best variant and its decision against its base, per GPU when the stage
    /// weighs its configurations so.
    fn decide(&self, stage: &Stage, outcome: &StageOutcome) -> (Option<usize>, Adoption) {
        let (study, metric) = (self.study, &self.metric);
        let (base, variants) = (&outcome.base, &outcome.variants);
        let base_gpus = outcome.per_gpu.as_ref().map_or(1.0, |p| f64::from(p.base.max(1)));
        let base_sample = base.sample.map(|s| s.scaled(1.0 / base_gpus));
        // A variant the accuracy gate refuses does not rank, whatever its speed.
        let values = (0..variants.len()).map(|i| outcome.weighed(i).filter(|_| outcome.ranks(i)));
        let best = adoption::best(metric, values);
        let decided = stage.adopt.as_ref().map(|a| a.variant.as_ref().map(|v| v.get_ref().as_str()));
        let override_value =
            decided.flatten().and_then(|id| variants.iter().position(|x| x.id == id)).and_then(|i| outcome.weighed(i));
        let as_best = |i: usize| {
            let v = &variants[i];
            let is_base = v.point.config.identity() == base.config.identity();
            let level = |n: &Sample, b: &Sample| decision_level(study, stage.id.get_ref(), n.n.min(b.n));
            Best {
                variant: &v.id,
                value: outcome.weighed(i).unwrap_or_default(),
                is_base,
                interval: v
                    .point
                    .sample
                    .map(|n| n.scaled(1.0 / outcome.gpus_of(i)))
                    .zip(base_sample)
                    .filter(|_| !is_base)
                    .and_then(|(n, b)| stats::gain_at(metric, &n, &b, level(&n, &b))),
            }
        };
        let challenger = adoption::best(
            metric,
            (0..variants.len()).map(|i| {
                let v = &variants[i];
                outcome.weighed(i).filter(|_| outcome.ranks(i) && v.point.config.identity() != base.config.identity())
            }),
        );
        let adoption = adoption::decide(
            metric,
            study.spec.noise_threshold,
            outcome.weighed_base(),
            best.map(as_best),
            challenger.map(as_best),
            decided,
            override_value,
        );
        (best, adoption)
    }

    /// Where the search stands after a stage.
    fn after(
        &self,
        stage: &Stage,
        base: &Point,
        variants: &[VariantOutcome],
        best: Option<usize>,
        adoption: &Adoption,
    ) -> Point {
        let adopted = adoption.adopted().and_then(|id| variants.iter().find(|x| x.id == id));
        match (&stage.measured_on, &self.current) {
            // Measured elsewhere: the search goes on from where it stood, with the decision carried over.
            (Some(_), Some(current)) => match adopted {
                Some(v) if v.point.config.identity() != current.config.identity() => {
                    let config = current.config.transplant(&base.config, &v.point.config);
                    if config.identity() == v.point.config.identity() {
                        return v.point.clone();
                    }
                    let mut point =
                        Point { source: Source::Stage(stage.id.get_ref().clone()), config, ..Point::nothing() };
                    if let Some(key) = self.registry.by_identity(&point.config, self.target) {
                        let sample = self.sample_of(&key);
                        point.measured_by(key, sample);
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
        }
    }

    /// The chain, with what the optimized configuration is compared with.
    fn finish(self) -> Chain {
        let stages = self.stages;
        let baseline = VariantRef::parse(self.study.spec.baseline.get_ref())
            .and_then(|b| stages.iter().find(|x| x.id == b.stage())?.variants.iter().find(|y| y.id == b.variant()))
            .map_or_else(Point::nothing, |x| x.point.clone());
        // A baseline that did not run cannot be compared with: the figures are compared with the
        // configuration the search went on from after the first stage, and the page says so.
        let (baseline, baseline_failed) = match (stages.first(), baseline.source.variant()) {
            (Some(first), Some(failed)) if baseline.run.is_none() && first.after.run.is_some() => {
                let failed = failed.clone();
                (first.after.clone(), Some(failed))
            }
            _ => (baseline, None),
        };
        Chain { stages, baseline, baseline_failed, registry: self.registry, problems: self.problems }
    }
}

/// A variant's failure (class and message) and the configuration whose recorded failure it shares.
type Failure = (Option<(crate::study::FailureClass, Option<String>)>, Option<VariantRef>);

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
