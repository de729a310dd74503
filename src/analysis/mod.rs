//! From a study's stored runs to the numbers a page shows. [`analyze`] computes everything;
//! the result is serialisable (`perflab analyze` prints it) and is what pages are rendered from.

#![warn(missing_docs)]

pub mod accuracy;
pub mod adoption;
pub mod allocation;
pub mod chain;
pub mod curves;
pub mod delta;
mod diagnostics;
pub mod diff;
pub mod history;
pub mod machine;
pub mod per_gpu;
pub mod releases;
mod replay;
pub mod reproduce;
pub mod sequential;
pub mod stats;
pub mod warnings;

pub use adoption::{Adoption, NoResultReason};
pub use chain::{Chain, Point, RunStatus, StageOutcome, VariantOutcome, resolve};
pub use delta::{Delta, Trend};
pub use diagnostics::{check, describe, warning_diagnostics};
pub use diff::Diff;
pub use history::{Age, Measured, PastResult};
pub use stats::{Interval, Sample};
pub use warnings::Warning;

use replay::{Replayed, engine_ranking};

use crate::metric::Metric;
use crate::study::command::{self, Command};
use crate::study::{Config, FailureClass, RunKey, Source, Study, VariantRef};
use serde::Serialize;

/// A measured value of the objective and the secondary metric.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measure {
    /// The run, as `stage/variant/profile`.
    pub run: RunKey,
    /// The objective: the mean of the run's measurements (the value of a single run).
    pub value: Option<f64>,
    /// The secondary metric, the same way.
    pub secondary: Option<f64>,
    /// The values of the study's further secondary metrics, in their order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<Option<f64>>,
    /// Whether the run can rank: whole, short of requests, or cut off.
    pub status: RunStatus,
    /// How many measurements the run holds (shown when more than one).
    #[serde(skip_serializing_if = "is_one")]
    pub repeats: usize,
    /// The objective's 95% confidence interval, for a run measured more than once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval: Option<Interval>,
    /// The objective's measurements, summarised (for intervals of differences).
    #[serde(skip)]
    pub sample: Option<Sample>,
    /// The value is a lower bound, not a measurement: a load curve's search met the SLO up to
    /// the top of the range it searched, so the configuration may carry more.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub at_least: bool,
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

impl Measure {
    /// The objective's measurements, summarised.
    pub fn sample(study: &Study, key: &RunKey) -> Option<Sample> {
        Sample::of(&study.start_values(key, study.spec.objective.get_ref()))
    }
}

/// How a variant fared.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Outcome {
    /// Measured; it ranks in its stage.
    Ran,
    /// Could not be measured.
    Failed {
        /// How it failed (a crash, out of memory, a failed start, ...).
        class: FailureClass,
    },
    /// Measured, but fewer requests completed than were sent: it does not rank.
    LostRequests {
        /// Requests that completed (a count).
        completed: u64,
        /// Requests the profile sends (`total_requests`), never fewer than `completed`.
        expected: u64,
    },
    /// Its block was cut off: it does not rank.
    Incomplete,
    /// No run yet.
    Missing,
}

impl Outcome {
    /// The outcome of a variant from its replayed result.
    fn of(outcome: &VariantOutcome) -> Outcome {
        match (&outcome.failure, outcome.status) {
            (Some((class, _)), _) => Outcome::Failed { class: *class },
            (None, None) => Outcome::Missing,
            (None, Some(RunStatus::Ok)) => Outcome::Ran,
            (None, Some(RunStatus::Incomplete)) => Outcome::Incomplete,
            (None, Some(RunStatus::LostRequests { completed, expected })) => {
                Outcome::LostRequests { completed, expected }
            }
        }
    }
}

/// One variant of a stage: its configuration and what measuring it on the target profile gave.
#[derive(Debug, Clone, Serialize)]
pub struct VariantAnalysis {
    /// The variant's id within its stage.
    pub id: String,
    /// Its display name from the study, in English.
    pub label: String,
    /// The serving command of its configuration.
    pub command: Command,
    /// The configuration it builds on.
    pub base: Option<Source>,
    /// Whether it ranks, and if not, why.
    pub outcome: Outcome,
    /// Its figures on the target profile (its own run or an identical configuration's); `None`
    /// when it has no run there.
    pub measure: Option<Measure>,
    /// The variant whose run of the identical configuration is reused.
    pub reused_from: Option<VariantRef>,
    /// The error a failed variant printed (for a shared failure, the identical configuration's).
    pub failure_message: Option<String>,
    /// The identical configuration whose failure it shares: it was not started again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_from: Option<VariantRef>,
}

/// The stage's fastest and slowest variant that rank, compared.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// The id of the best variant that ranks (the first of equal values).
    pub best: String,
    /// The id of the worst variant that ranks (the first of equal values; when all that rank
    /// are equal, the last of them).
    pub worst: String,
    /// The best's objective against the worst's: `diff` is the gap, `percent` in % of the worst.
    pub objective: Delta,
    /// The best's secondary metric against the worst's.
    pub secondary: Option<Delta>,
    /// The best against the second best that ranks, when that is not the worst.
    pub runner_up: Option<Versus>,
    /// The best against the configuration the stage builds on, when that is measured
    /// separately (not the best's own run); the gain is the step the adoption weighs.
    pub over_base: Option<Versus>,
    /// A variant of the stage that runs the configuration it builds on unchanged, in a run of
    /// its own: two figures of one configuration, whose difference a reader should weigh.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_again: Option<Remeasured>,
}

/// The configuration a stage builds on, measured again by one of its variants.
#[derive(Debug, Clone, Serialize)]
pub struct Remeasured {
    /// The variant that ran it again.
    pub source: Source,
    /// What it measured here, as the stage weighs it (per GPU when it compares per GPU).
    pub value: f64,
    /// What the configuration measured before, which the stage's gains are taken against.
    pub earlier: f64,
    /// `value` against `earlier`, in percent (positive: better).
    pub change: Option<f64>,
}

/// The best variant of a stage against another configuration.
#[derive(Debug, Clone, Serialize)]
pub struct Versus {
    /// The other configuration.
    pub source: Source,
    /// Its objective on the target profile, in the objective's unit.
    pub value: f64,
    /// The best's improvement over it, in percent (positive: better).
    pub gain: Option<f64>,
}

/// An engine's place in a stage that compares engines.
#[derive(Debug, Clone, Serialize)]
pub struct Rank {
    /// The engine's id in the study.
    pub engine: String,
    /// The id of the stage's variant that runs it; `None` for an engine of the study the stage
    /// has no variant for.
    pub variant: Option<String>,
    /// `None` when the engine could not be measured ("not supported").
    pub value: Option<f64>,
    /// Whether its variant ranks, and if not, why ([`Outcome::Missing`] without a variant).
    pub outcome: Outcome,
}

/// One stage: its variants, how they compare, and what it adopted.
#[derive(Debug, Clone, Serialize)]
pub struct StageAnalysis {
    /// The stage's id.
    pub id: String,
    /// The configuration the stage is measured against.
    pub base: Source,
    /// The base's objective on the target profile, in the objective's unit; `None` when it has
    /// no value there.
    pub base_value: Option<f64>,
    /// Its variants, in the study's order.
    pub variants: Vec<VariantAnalysis>,
    /// Its best and worst variant that rank; `None` when fewer than two rank.
    pub comparison: Option<Comparison>,
    /// What it adopted, and the numbers behind the decision.
    pub adoption: Adoption,
    /// The configuration in force after the stage.
    pub after: Source,
    /// The study keeps the stage's flags out of the recommended command
    /// (`exclude_from_command`).
    pub excluded_from_command: bool,
    /// For a stage whose variants are the engines: engines by objective, best first; engines
    /// of the study without a measurement last.
    pub ranking: Option<Vec<Rank>>,
    /// The GPUs of its configurations when they differ and it weighs them per GPU: its
    /// comparison and its decision (values, gains, intervals) are then per GPU.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_gpu: Option<per_gpu::PerGpu>,
    /// Its variants' accuracy and the gate's verdicts, when the stage requires accuracy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accuracy: Option<accuracy::Gate>,
}

/// One row of the summary of optimization options.
#[derive(Debug, Clone, Serialize)]
pub struct OptionRow {
    /// The stage's id.
    pub stage: String,
    /// The stage's best variant that ranks.
    pub best: Option<String>,
    /// `best`'s objective on the target profile, in the objective's unit; `None` with no `best`.
    pub value: Option<f64>,
    /// `value` is a lower bound (see [`Measure::at_least`]), and so are its gains.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub at_least: bool,
    /// `best`'s first secondary metric, in its unit, as the result that stands for its run
    /// reports it (not a mean of repeats); `None` when not reported.
    pub secondary: Option<f64>,
    /// The best's values of the further secondary metrics.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<Option<f64>>,
    /// The best against the baseline, in percent (cumulative view).
    pub vs_baseline: Option<f64>,
    /// The adopted configuration against the previously adopted one, in percent (step view);
    /// `None` for a stage that adopted nothing. Per GPU when the stage weighs per GPU.
    pub step: Option<f64>,
    /// The stage weighs its configurations per GPU, and so is `step`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub per_gpu: bool,
    /// The step's 95% confidence interval, when its runs were repeated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step_interval: Option<Interval>,
    /// When no variant ranks but one was measured and lost requests: that variant's requests
    /// completed and expected. `best`, `value` and the secondary metrics are then its own, so
    /// that the row still shows what it measured; it has no gains.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lost: Option<(u64, u64)>,
    /// The later stage whose adopted variant builds on a configuration from before this stage
    /// (its `base`): what this stage adopted was measured but is not in the optimized
    /// configuration, nor in the chain of steps to the total.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left_out_by: Option<String>,
    /// For a stage whose adopted variant builds on such an earlier configuration: the adopted
    /// variant against that configuration, in percent, the step that chains to the total.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub carried_step: Option<f64>,
}

/// A stage whose adopted variant builds on the configuration an earlier stage left (the
/// variant's `base`), not on the one just before it, leaves what the stages in between adopted
/// out of the optimized configuration: their rows name it, and its own step is taken against
/// the configuration it builds on, so that the steps shown chain to the total.
fn carried_steps(stages: &[StageAnalysis], options: &mut [OptionRow], objective: &crate::metric::Metric) {
    let value = |reference: &str| {
        let (stage, variant) = reference.split_once('/')?;
        let v = stages.iter().find(|s| s.id == stage)?.variants.iter().find(|v| v.id == variant)?;
        v.measure.as_ref()?.value
    };
    for (t, stage) in stages.iter().enumerate() {
        let Some(v) = stage.adoption.adopted().and_then(|id| stage.variants.iter().find(|v| v.id == id)) else {
            continue;
        };
        let Some(base) = v.base.as_deref().filter(|b| stage.base != *b) else { continue };
        // Only a base that is where an earlier stage left the search: a variant on another
        // configuration of that stage (one it did not adopt) skips nothing.
        let Some(from) = stages[..t].iter().position(|s| s.after == base) else { continue };
        let skipped: Vec<&StageAnalysis> =
            stages[from + 1..t].iter().filter(|s| s.adoption.adopted().is_some()).collect();
        if skipped.is_empty() {
            continue;
        }
        for skipped in skipped {
            if let Some(row) = options.iter_mut().find(|o| o.stage == skipped.id && o.left_out_by.is_none()) {
                row.left_out_by = Some(stage.id.clone());
            }
        }
        let step = v.measure.as_ref().and_then(|m| m.value).zip(value(base));
        if let Some(row) = options.iter_mut().find(|o| o.stage == stage.id) {
            row.carried_step = step.and_then(|(new, old)| objective.improvement(new, old));
        }
    }
}

/// The baseline and the optimized configuration on one profile.
#[derive(Debug, Clone, Serialize)]
pub struct Scenario {
    /// The profile's id.
    pub profile: String,
    /// It is the study's target profile.
    pub target: bool,
    /// The baseline's figures on this profile (its own run or an identical configuration's);
    /// `None` when it has no run here.
    pub baseline: Option<Measure>,
    /// The optimized configuration's figures on this profile, the same way.
    pub optimized: Option<Measure>,
    /// Optimized against baseline, objective, in percent (positive: better).
    pub change: Option<f64>,
    /// The change's 95% confidence interval, when both runs were repeated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change_interval: Option<Interval>,
    /// Optimized against baseline, secondary metric.
    pub secondary: Option<Delta>,
    /// The optimized configuration is worse than the baseline beyond the noise threshold.
    pub regression: bool,
    /// When stages are left out of the recommended command: the run of that command's own
    /// configuration on this profile (a measured configuration identical to it), which is what
    /// a reader who runs the command gets. `None` when nothing is left out, or when nothing
    /// measured that configuration here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recommended: Option<Measure>,
    /// The recommended command against the baseline, objective, in percent, with `recommended`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recommended_change: Option<f64>,
}

/// Everything a page shows, computed from the runs.
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    /// The study's id (its folder name).
    pub study: String,
    /// The metric stages are ranked by (serialised as its key).
    pub objective: Metric,
    /// The metric shown beside it (the first of the study's `secondary`).
    pub secondary: Metric,
    /// The study's further secondary metrics, shown in the tables after the first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<Metric>,
    /// A lower objective is better (a latency).
    pub lower_is_better: bool,
    /// The study's noise threshold, in percent (2.0 for 2%): a gain up to it is noise.
    pub noise_threshold: f64,
    /// The id of the profile stages are decided on.
    pub target_profile: String,
    /// The baseline's serving command.
    pub baseline: Command,
    /// The baseline's figures on the target profile; `None` when it has no run there.
    pub baseline_measure: Option<Measure>,
    /// The serving command of the configuration the stages chose, excluded stages' flags included.
    pub optimized: Command,
    /// Its figures on the target profile; `None` when it has no run there.
    pub optimized_measure: Option<Measure>,
    /// The serving command to publish: the optimized configuration without the flags of stages
    /// kept out of it.
    pub recommended: Command,
    /// Stages whose flags are kept out of the recommended command.
    pub excluded_stages: Vec<String>,
    /// Every stage, in the study's order.
    pub stages: Vec<StageAnalysis>,
    /// The summary of optimization options: one row a stage, in the study's order.
    pub options: Vec<OptionRow>,
    /// Optimized against baseline on the target profile, in percent: the product of the steps.
    pub total_gain: Option<f64>,
    /// Its 95% confidence interval, when both runs were repeated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_gain_interval: Option<Interval>,
    /// The recommended command against the baseline on the target profile, in percent, when
    /// stages are left out of it and its configuration was measured: the page's headline then.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recommended_gain: Option<f64>,
    /// How many times the figures were measured, and what the study shows of run-to-run spread.
    pub evidence: warnings::Evidence,
    /// The baseline against the optimized configuration on each compared profile, in the
    /// study's order.
    pub scenarios: Vec<Scenario>,
    /// What a reader should not trust in the stored runs; empty when nothing.
    pub warnings: Vec<Warning>,
    /// Which engine versions measured the runs read here, and when; whether they mix.
    pub age: Age,
    /// Earlier results a later attempt superseded, kept on disk.
    pub superseded: Vec<PastResult>,
    /// What changed since the results the newest re-measurements superseded (another engine,
    /// version or command); `None` when nothing was measured again that way.
    pub changes: Option<Diff>,
    /// The load curves of the profiles that have one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub curves: Vec<curves::CurveProfile>,
    /// What the runs that stand recorded of their machine and engine, fact by fact.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub recorded: Vec<machine::RecordedFact>,
    /// The answer across the engine releases of the study's history, when it holds three or more.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub releases: Option<releases::Releases>,
}

impl Analysis {
    /// The stage with id `id`.
    pub fn stage(&self, id: &str) -> Option<&StageAnalysis> {
        self.stages.iter().find(|s| s.id == id)
    }

    /// The places of the page that show a run (`stage/variant/profile`): the stages whose
    /// variants measure it (itself or reused), otherwise the other scenarios when they do.
    pub fn shown_in(&self, run: &RunKey) -> Vec<warnings::Place> {
        let stages: Vec<warnings::Place> = self
            .stages
            .iter()
            .filter(|s| s.variants.iter().any(|v| v.measure.as_ref().is_some_and(|m| m.run == *run)))
            .map(|s| warnings::Place::Stage(s.id.clone()))
            .collect();
        let in_scenarios =
            self.scenarios.iter().flat_map(|s| [&s.baseline, &s.optimized]).flatten().any(|m| m.run == *run);
        if stages.is_empty() && in_scenarios { vec![warnings::Place::Scenarios] } else { stages }
    }

    /// The page's warnings, one group a kind, each placed where the page shows its runs.
    pub fn warning_groups(&self) -> Vec<warnings::WarningGroup> {
        warnings::group(&self.warnings, &|run| self.shown_in(run))
    }

    /// What keeps the page from giving its answer on the target profile; `None` when it has
    /// one (the baseline and the optimized configuration both measured).
    pub fn unanswered(&self) -> Option<Unanswered> {
        let target = self.scenarios.iter().find(|s| s.target);
        let value = |m: Option<&Measure>| m.and_then(|m| m.value).is_some();
        // A load curve that was measured answers even where no load met the SLO: the page
        // says so.
        let curve = self.curves.iter().find(|c| c.profile == self.target_profile);
        let traced = |c: Option<&curves::Curve>| c.is_some_and(|c| !c.points.is_empty());
        let baseline =
            value(target.and_then(|s| s.baseline.as_ref())) || traced(curve.and_then(|c| c.baseline.as_ref()));
        // The configuration the stages chose; a command that leaves some of its settings out
        // may have no run of its own, and the page says what was measured instead.
        let recommended =
            value(target.and_then(|s| s.optimized.as_ref())) || traced(curve.and_then(|c| c.optimized.as_ref()));
        if baseline && recommended {
            return None;
        }
        let stages = self
            .stages
            .iter()
            .filter(|s| s.variants.iter().all(|v| matches!(v.outcome, Outcome::Missing)))
            .map(|s| s.id.clone())
            .collect();
        Some(Unanswered { baseline: !baseline, recommended: !recommended, stages })
    }
}

/// Why a page has no answer yet: what was not measured on its target profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unanswered {
    /// The baseline has no result.
    pub baseline: bool,
    /// The optimized configuration, which the stages chose, has no result.
    pub recommended: bool,
    /// Stages none of whose variants has a run yet, in the study's order.
    pub stages: Vec<String>,
}

fn measure(study: &Study, key: &RunKey) -> Option<Measure> {
    let status = chain::run_status(study, key)?;
    let objective = Measure::sample(study, key);
    let secondary = Sample::of(&study.start_values(key, study.spec.first_secondary().get_ref()));
    let mean = |values: &[f64]| Sample::of(values).map(|s| s.mean);
    Some(Measure {
        run: key.clone(),
        value: objective.map(|s| s.mean),
        secondary: secondary.map(|s| s.mean),
        also: study.spec.secondary[1..].iter().map(|m| mean(&study.start_values(key, m.get_ref()))).collect(),
        status,
        repeats: study.counted(key).len(),
        interval: objective.and_then(|s| s.interval()),
        sample: objective,
        at_least: study.spec.objective.get_ref() == crate::study::curve::BOUNDARY_METRIC
            && study.start_values(key, crate::study::curve::AT_LIMIT_METRIC).iter().any(|x| *x > 0.0),
    })
}

/// The optimized configuration without what the excluded stages changed: a flag an excluded
/// stage added is dropped, one it changed or dropped gets back the value it had before, and so do
/// its environment and checkpoint.
fn recommended(chain: &Chain, excluded: &[String]) -> Config {
    let mut config = chain.last().config.clone();
    for (index, stage) in chain.stages.iter().enumerate().filter(|(_, s)| excluded.contains(&s.id)) {
        // The first stage's variants build on their engine alone: leaving the stage out of the
        // command takes back the flags and environment of the variant it went on with, not the
        // engine or the checkpoint every later stage runs.
        if index == 0 {
            let from = &stage.after.config;
            config = config.transplant(from, &Config { flags: Vec::new(), env: Default::default(), ..from.clone() });
        } else if let Some(adopted) = stage.adopted() {
            config = config.transplant(&adopted.point.config, &stage.base.config);
        }
    }
    config
}

/// Computes the whole analysis of a loaded study, with what changed since the results its
/// newest re-measurements superseded.
pub fn analyze(study: &Study) -> Analysis {
    let mut analysis = analyze_results(study);
    analysis.changes = study.previous().map(|before| diff::compare(&analyze_results(&before), &analysis, study, None));
    analysis.releases = releases::releases(study, &analysis);
    analysis
}

/// The analysis of the results that stand, without comparing them with earlier ones.
pub(crate) fn analyze_results(study: &Study) -> Analysis {
    let spec = &study.spec;
    let chain = resolve(study);
    let x = Replayed {
        study,
        chain: &chain,
        objective: study.metric(spec.objective.get_ref()),
        secondary: study.metric(spec.first_secondary().get_ref()),
    };
    let target = spec.target_profile.get_ref().clone();
    let mut stages = Vec::new();
    let mut options = Vec::new();
    for (stage_spec, outcome) in spec.stages.iter().zip(&chain.stages) {
        options.push(x.option_row(outcome));
        stages.push(StageAnalysis {
            id: outcome.id.clone(),
            base: outcome.base.source.clone(),
            base_value: outcome.base.value,
            variants: x.variants(stage_spec, outcome),
            comparison: x.comparison(outcome),
            adoption: outcome.adoption.clone(),
            after: outcome.after.source.clone(),
            excluded_from_command: stage_spec.exclude_from_command.is_some(),
            ranking: engine_ranking(study, stage_spec, outcome, &x.objective),
            per_gpu: outcome.per_gpu.clone(),
            accuracy: outcome.accuracy.clone(),
        });
    }
    carried_steps(&stages, &mut options, &x.objective);
    let excluded_stages: Vec<String> =
        spec.stages.iter().filter(|s| s.exclude_from_command.is_some()).map(|s| s.id.get_ref().clone()).collect();
    let last = chain.last();
    let total_gain = last.value.zip(chain.baseline.value).and_then(|(a, b)| x.objective.improvement(a, b));
    // The configuration whose runs stand for a point (an identical one's, when reused).
    let measured = |p: &Point| p.run.as_ref().map(RunKey::config).or_else(|| p.source.variant().cloned());
    let left_out = (!excluded_stages.is_empty()).then(|| recommended(&chain, &excluded_stages));
    let scenarios = x.scenarios(left_out.as_ref());
    let mut analysis = Analysis {
        curves: curves::curves(study, &chain, measured(&chain.baseline).as_ref(), measured(last).as_ref()),
        study: study.id.clone(),
        lower_is_better: x.objective.lower_is_better(),
        noise_threshold: spec.noise_threshold,
        target_profile: target.clone(),
        baseline: command::shown(study, &chain.baseline.source, &chain.baseline.config),
        baseline_measure: chain.baseline.run.as_ref().and_then(|k| measure(study, k)),
        optimized: command::shown(study, &last.source, &last.config),
        optimized_measure: last.run.as_ref().and_then(|k| measure(study, k)),
        recommended: command::shown(study, &last.source, &recommended(&chain, &excluded_stages)),
        recommended_gain: scenarios.iter().find(|s| s.target).and_then(|s| s.recommended_change),
        excluded_stages,
        stages,
        options,
        total_gain,
        total_gain_interval: total_gain.and(x.gain_interval(&target)),
        evidence: warnings::evidence(study, &chain),
        scenarios,
        warnings: warnings::find(study, &chain),
        objective: x.objective.clone(),
        secondary: x.secondary.clone(),
        also: spec.secondary[1..].iter().map(|m| study.metric(m.get_ref())).collect(),
        age: Age::default(),
        superseded: history::superseded(study),
        changes: None,
        recorded: machine::recorded(study),
        releases: None,
    };
    analysis.age = history::age(study, &chain, &analysis);
    analysis
}
