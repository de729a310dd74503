//! Data a reader should not trust: lost requests, cut-off blocks, repeated measurements that
//! disagree, implausible values, request counts that do not match the profile.

use super::chain::{Chain, RunStatus, run_status};
use crate::study::{Identity, RunKey, Source, Study, VariantRef};
use serde::Serialize;
use std::collections::BTreeMap;

/// The pattern of every warning about a single run, binding that run to `$run`: the one list of
/// them, for [`Warning::runs`] and for the page, which says once the warnings about points of a
/// load curve that differ only in their load.
macro_rules! single_run {
    ($run:pat) => {
        $crate::analysis::warnings::Warning::LostRequests { run: $run, .. }
            | $crate::analysis::warnings::Warning::Incomplete { run: $run }
            | $crate::analysis::warnings::Warning::ZeroLatency { run: $run, .. }
            | $crate::analysis::warnings::Warning::BufferedStreams { run: $run, .. }
            | $crate::analysis::warnings::Warning::RequestCount { run: $run, .. }
            | $crate::analysis::warnings::Warning::LeftOut { run: $run, .. }
            | $crate::analysis::warnings::Warning::FewRequests { run: $run, .. }
            | $crate::analysis::warnings::Warning::ShortSample { run: $run, .. }
    };
}
pub(crate) use single_run;

/// The most output tokens a second one request could be streamed at: well above what any
/// engine decodes for a single sequence, even with speculative decoding.
pub const STREAM_RATE_LIMIT: f64 = 2000.0;

/// The most output tokens a second a run could have streamed in its busiest second, from what
/// every block reports: its concurrency (peak concurrent requests, or the configured maximum)
/// times [`STREAM_RATE_LIMIT`], and never more than all the tokens it produced (in one second,
/// or in its whole duration when that is shorter). `None` when the block gives neither bound.
pub fn peak_ceiling(b: &crate::parse::Block) -> Option<f64> {
    let by_streams = b
        .metric("max_concurrent_requests")
        .or_else(|| b.metric("max_concurrency"))
        .filter(|c| *c > 0.0)
        .map(|c| c * STREAM_RATE_LIMIT);
    let by_output = b
        .metric("total_output_tokens")
        .zip(b.metric("duration"))
        .filter(|(_, d)| *d > 0.0)
        .map(|(tokens, duration)| tokens / duration.min(1.0));
    match (by_streams, by_output) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A run whose reported peak output throughput is above its [`peak_ceiling`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Peak {
    /// The run (`stage/variant/profile`).
    pub run: RunKey,
    /// Reported peak output throughput, tokens a second.
    pub peak: f64,
    /// The most it could have been, tokens a second.
    pub ceiling: f64,
}

/// A run whose printed TPOT is its mean request latency divided by its output tokens: a TPOT
/// that holds the time in the queue and the first token (GPUStack's blocks, from guidellm).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LatencyPerToken {
    /// The run (`stage/variant/profile`).
    pub run: RunKey,
    /// Printed mean TPOT, milliseconds.
    pub tpot_ms: f64,
    /// Mean request latency, milliseconds.
    pub latency_ms: f64,
    /// Output tokens a request.
    pub tokens: f64,
}

/// The [`LatencyPerToken`] of a block, when its mean TPOT is within 1% of its mean latency over
/// its output tokens a request while being more than 2% above what the latency less the TTFT
/// gives (a real TPOT would be close to the latter).
pub fn latency_per_token(b: &crate::parse::Block) -> Option<(f64, f64, f64)> {
    let (tpot, latency) = (b.metric("mean_tpot_ms")?, b.metric("mean_e2el_ms")?);
    let tokens = b.metric("total_output_tokens")? / b.metric("completed").filter(|c| *c > 0.0)?;
    if tokens <= 1.0 || tpot <= 0.0 {
        return None;
    }
    let per_token = latency / tokens;
    let real = (latency - b.metric("mean_ttft_ms").unwrap_or(0.0)) / (tokens - 1.0);
    ((per_token - tpot).abs() <= 0.01 * tpot && (tpot - real).abs() > 0.02 * real).then_some((tpot, latency, tokens))
}

/// One warning about one run (or, for repeated measurements, a set of runs).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
#[non_exhaustive]
pub enum Warning {
    /// Fewer requests completed than the profile sent.
    LostRequests {
        /// The run (`stage/variant/profile`).
        run: RunKey,
        /// Requests that completed (a count).
        completed: u64,
        /// Requests the profile sends (`total_requests`), never fewer than `completed`.
        expected: u64,
    },
    /// The block was cut off before its closing line.
    Incomplete {
        /// The run (`stage/variant/profile`).
        run: RunKey,
    },
    /// The same configuration measured more than once, further apart than the noise threshold.
    Noisy {
        /// The runs of the one configuration on one profile, in the study's order of stages
        /// and variants.
        runs: Vec<RunKey>,
        /// Each run's objective (the mean of its engine starts), in the objective's unit, in the
        /// order of `runs`.
        values: Vec<f64>,
        /// (max − min) / max of `values`, in percent (12.3 for 12.3%).
        spread_percent: f64,
    },
    /// Runs whose peak output throughput is more than they could have streamed: one warning
    /// for the study, listing them.
    ImplausiblePeak {
        /// Each run with its peak and ceiling, in run order.
        runs: Vec<Peak>,
    },
    /// Runs whose TPOT is their latency over their output tokens, waiting time included: one
    /// warning for the study, listing them.
    TpotIncludesWaiting {
        /// Each run with its TPOT, latency and tokens a request, in run order.
        runs: Vec<LatencyPerToken>,
    },
    /// A mean or median TPOT or ITL of zero in a run that produced tokens after the first.
    ZeroLatency {
        /// The run (`stage/variant/profile`).
        run: RunKey,
        /// The metric that is zero: `mean_tpot_ms`, `median_tpot_ms`, `mean_itl_ms` or
        /// `median_itl_ms`.
        metric: String,
    },
    /// Streams whose tokens arrived in bursts (`buffered` of the `completed` requests): their
    /// TTFT and ITL measure a server's or proxy's buffering, not the engine.
    BufferedStreams {
        /// The run (`stage/variant/profile`).
        run: RunKey,
        /// Requests whose stream arrived in bursts (a count).
        buffered: u64,
        /// Requests the block says completed (a count; 0 when it prints none).
        completed: u64,
    },
    /// The block's request count does not match the profile's.
    RequestCount {
        /// The run (`stage/variant/profile`).
        run: RunKey,
        /// Requests the block counts: completed plus failed (each 0 when it prints none).
        counted: u64,
        /// Requests the profile sends (`total_requests`).
        expected: u64,
    },
    /// A repeated measurement that fails the checks a single run must pass (lost requests, a
    /// cut-off block): left out of the run's mean and interval. `file` is its path under `runs/`.
    LeftOut {
        /// The run (`stage/variant/profile`).
        run: RunKey,
        /// The measurement's result file, relative to `runs/`.
        file: String,
        /// Requests it completed (a count; 0 when its block prints none).
        completed: u64,
        /// Requests the profile sends (`total_requests`; 0 when the study has no such profile).
        expected: u64,
    },
    /// A high percentile the page shows or decides on, computed from fewer requests than it
    /// takes for one to lie beyond it (a p99 from fewer than 100): it is the slowest request,
    /// or close to it, and varies between runs far more than a mean.
    FewRequests {
        /// The run (`stage/variant/profile`).
        run: RunKey,
        /// The percentile metric's key (`p99_ttft_ms`).
        metric: String,
        /// Requests the run's standing result completed (a count; 0 when it prints none).
        requests: u64,
    },
    /// The study's baseline (`stage/variant`) did not run: the page compares with `instead`,
    /// the configuration the search went on from after the first stage.
    BaselineFailed {
        /// The study's baseline (`stage/variant`).
        baseline: VariantRef,
        /// How it failed; `None` when no failure was recorded (it simply has no run).
        class: Option<crate::study::FailureClass>,
        /// The configuration compared with instead (`stage/variant`, or a stage's id for a
        /// configuration no variant names).
        instead: Source,
    },
    /// A run that holds fewer measurements than the study asks for (`have` of `wanted`, those
    /// its mean is taken from): repeats that could not be taken, or were left out. Its
    /// comparisons rest on a smaller sample than the study planned, and with one measurement
    /// it has no interval.
    ShortSample {
        /// The run (`stage/variant/profile`).
        run: RunKey,
        /// Measurements its mean is taken from (a count).
        have: usize,
        /// Measurements the study asks for (the `repeats` that applies; more than 1).
        wanted: u32,
    },
    /// A stage whose configurations run on different numbers of GPUs and that ranks them by a
    /// total that grows with GPUs (throughput, a load carried): the runs of its variants on the
    /// target profile, and the GPUs each configuration takes, in the same order. Per GPU their
    /// order can differ.
    UnequalGpus {
        /// The stage's id.
        stage: String,
        /// The runs that stand for its variants that rank (on the target profile, an identical
        /// configuration's when reused), in the stage's order.
        runs: Vec<RunKey>,
        /// The GPUs each configuration takes, in the order of `runs`.
        gpus: Vec<u32>,
    },
}

/// The kinds of [`Warning`], in the order a page shows them: what bears on a decision first,
/// artifacts of the benchmark tool in metrics the page does not rank by last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WarningKind {
    /// [`Warning::BaselineFailed`].
    BaselineFailed,
    /// [`Warning::UnequalGpus`].
    UnequalGpus,
    /// [`Warning::Noisy`].
    Noisy,
    /// [`Warning::LostRequests`].
    LostRequests,
    /// [`Warning::Incomplete`].
    Incomplete,
    /// [`Warning::RequestCount`].
    RequestCount,
    /// [`Warning::LeftOut`].
    LeftOut,
    /// [`Warning::ShortSample`].
    ShortSample,
    /// [`Warning::FewRequests`].
    FewRequests,
    /// [`Warning::BufferedStreams`].
    BufferedStreams,
    /// [`Warning::ZeroLatency`].
    ZeroLatency,
    /// [`Warning::ImplausiblePeak`].
    ImplausiblePeak,
    /// [`Warning::TpotIncludesWaiting`].
    TpotIncludesWaiting,
}

/// Where a page shows a group of warnings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "place", content = "stage")]
pub enum Place {
    /// With the data to read with care, near the top of the page.
    Study,
    /// In the stage (by id) that shows every run the group lists.
    Stage(String),
    /// Among the other benchmark scenarios.
    Scenarios,
}

/// Every warning of one kind on a page, in one box at one place.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WarningGroup {
    /// The kind of every warning in it.
    pub kind: WarningKind,
    /// Where the page shows it.
    pub place: Place,
    /// Its warnings, in the order they were found.
    pub warnings: Vec<Warning>,
}

/// Groups `warnings` by kind, one group a kind, in [`WarningKind`] order. A group goes where
/// the page shows the runs it concerns: `shown_in` gives the places that show a run. A kind
/// that concerns the study as a whole ([`Warning::study_wide`]), or whose runs are shown in more
/// than one place or nowhere, goes to [`Place::Study`].
pub fn group(warnings: &[Warning], shown_in: &dyn Fn(&RunKey) -> Vec<Place>) -> Vec<WarningGroup> {
    let mut by_kind: BTreeMap<WarningKind, Vec<Warning>> = BTreeMap::new();
    for w in warnings {
        by_kind.entry(w.kind()).or_default().push(w.clone());
    }
    by_kind
        .into_iter()
        .map(|(kind, warnings)| {
            let mut places: Vec<Place> = Vec::new();
            for run in warnings.iter().flat_map(|w| w.runs()) {
                let here = shown_in(run);
                if here.is_empty() {
                    places.push(Place::Study);
                }
                for p in here {
                    if !places.contains(&p) {
                        places.push(p);
                    }
                }
            }
            let place = match places.as_slice() {
                [one] if !warnings.iter().any(Warning::study_wide) => one.clone(),
                _ => Place::Study,
            };
            WarningGroup { kind, place, warnings }
        })
        .collect()
}

impl Warning {
    /// Its kind, which groups it on a page.
    pub fn kind(&self) -> WarningKind {
        match self {
            Warning::LostRequests { .. } => WarningKind::LostRequests,
            Warning::Incomplete { .. } => WarningKind::Incomplete,
            Warning::Noisy { .. } => WarningKind::Noisy,
            Warning::ImplausiblePeak { .. } => WarningKind::ImplausiblePeak,
            Warning::TpotIncludesWaiting { .. } => WarningKind::TpotIncludesWaiting,
            Warning::ZeroLatency { .. } => WarningKind::ZeroLatency,
            Warning::BufferedStreams { .. } => WarningKind::BufferedStreams,
            Warning::RequestCount { .. } => WarningKind::RequestCount,
            Warning::LeftOut { .. } => WarningKind::LeftOut,
            Warning::FewRequests { .. } => WarningKind::FewRequests,
            Warning::ShortSample { .. } => WarningKind::ShortSample,
            Warning::BaselineFailed { .. } => WarningKind::BaselineFailed,
            Warning::UnequalGpus { .. } => WarningKind::UnequalGpus,
        }
    }

    /// A warning shown once for the study rather than beside each run it lists.
    pub fn study_wide(&self) -> bool {
        matches!(
            self,
            Warning::ImplausiblePeak { .. } | Warning::TpotIncludesWaiting { .. } | Warning::BaselineFailed { .. }
        )
    }

    /// The runs (`stage/variant/profile`) the warning is about.
    pub fn runs(&self) -> Vec<&RunKey> {
        match self {
            Warning::Noisy { runs, .. } | Warning::UnequalGpus { runs, .. } => runs.iter().collect(),
            Warning::ImplausiblePeak { runs } => runs.iter().map(|p| &p.run).collect(),
            Warning::TpotIncludesWaiting { runs } => runs.iter().map(|p| &p.run).collect(),
            single_run!(run) => vec![run],
            Warning::BaselineFailed { .. } => Vec::new(),
        }
    }
}

/// Every warning about the study's stored runs, in run order.
pub fn find(study: &Study, chain: &Chain) -> Vec<Warning> {
    let mut out = Vec::new();
    if let Some(baseline) = &chain.baseline_failed {
        let class = chain.variant(baseline).and_then(|v| v.failure.as_ref()).map(|f| f.0);
        out.push(Warning::BaselineFailed { baseline: baseline.clone(), class, instead: chain.baseline.source.clone() });
    }
    let mut peaks = Vec::new();
    let mut waiting = Vec::new();
    for (key, run) in &study.runs {
        let name = key.clone();
        let b = &run.block;
        match run_status(study, key) {
            Some(RunStatus::Incomplete) => out.push(Warning::Incomplete { run: name.clone() }),
            Some(RunStatus::LostRequests { completed, expected }) => {
                out.push(Warning::LostRequests { run: name.clone(), completed, expected })
            }
            _ => {}
        }
        if let (Some(peak), Some(ceiling)) = (b.metric("max_output_tokens_per_s"), peak_ceiling(b))
            && peak > ceiling
        {
            peaks.push(Peak { run: name.clone(), peak, ceiling });
        }
        if let Some((tpot_ms, latency_ms, tokens)) = latency_per_token(b) {
            waiting.push(LatencyPerToken { run: name.clone(), tpot_ms, latency_ms, tokens });
        }
        let completed = b.metric("completed").unwrap_or(0.0);
        let produced_more_than_first = b.metric("total_output_tokens").is_some_and(|t| t > completed);
        if produced_more_than_first {
            for metric in ["mean_tpot_ms", "median_tpot_ms", "mean_itl_ms", "median_itl_ms"] {
                if b.metric(metric) == Some(0.0) {
                    out.push(Warning::ZeroLatency { run: name.clone(), metric: metric.to_string() });
                }
            }
        }
        if let Some(buffered) = b.metric("buffered_streams").filter(|n| *n > 0.0) {
            out.push(Warning::BufferedStreams {
                run: name.clone(),
                buffered: buffered as u64,
                completed: completed as u64,
            });
        }
        if let Some(profile) = study.profile(&key.profile) {
            let counted = completed as u64 + b.metric("failed").unwrap_or(0.0) as u64;
            let has_failed_line = b.metric("failed").is_some();
            if counted > profile.total_requests || (has_failed_line && counted != profile.total_requests) {
                out.push(Warning::RequestCount { run: name, counted, expected: profile.total_requests });
            }
        }
    }
    out.extend(left_out(study));
    out.extend(short_samples(study));
    out.extend(few_requests(study));
    out.extend(noisy(study, chain));
    out.extend(unequal_gpus(study, chain));
    if !peaks.is_empty() {
        out.push(Warning::ImplausiblePeak { runs: peaks });
    }
    if !waiting.is_empty() {
        out.push(Warning::TpotIncludesWaiting { runs: waiting });
    }
    out
}

/// One configuration measured by more than one run (in several stages, or as several variants):
/// each run's objective (its mean, with repeats) and how far apart they are. The runs stay
/// separate, each its stage's evidence; this only reports their spread.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Spread {
    /// The runs of the one configuration on one profile, in the study's order of stages and
    /// variants.
    pub runs: Vec<RunKey>,
    /// Each run's objective (the mean of its engine starts), in the objective's unit, in the
    /// order of `runs`.
    pub values: Vec<f64>,
    /// (max − min) / max, in percent.
    pub spread_percent: f64,
}

/// How much measuring stands behind a study's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evidence {
    /// The fewest and the most measurements of a run the analysis reads (1 and 1: every figure
    /// is a single run).
    pub fewest_repeats: usize,
    /// The most measurements of a run (a count; 1 when there is no run).
    pub most_repeats: usize,
    /// Configurations measured by more than one run, the widest spread first.
    pub spread: Vec<Spread>,
    /// What each stage decided on an interval cost, in the stages' order.
    pub decisions: Vec<super::allocation::DecisionCost>,
    /// What they cost together.
    pub decisions_total: Option<super::allocation::DecisionCost>,
}

impl Evidence {
    /// Every figure rests on one measurement.
    pub fn single_runs(&self) -> bool {
        self.most_repeats <= 1
    }
}

/// The evidence of a study's figures (see [`Evidence`]).
pub fn evidence(study: &Study, chain: &Chain) -> Evidence {
    let counts: Vec<usize> = study.runs.keys().map(|k| study.counted(k).len()).collect();
    let mut spread = repeated(study, chain);
    spread.sort_by(|a, b| b.spread_percent.total_cmp(&a.spread_percent));
    Evidence {
        fewest_repeats: counts.iter().copied().min().unwrap_or(1),
        most_repeats: counts.iter().copied().max().unwrap_or(1),
        spread,
        decisions: super::allocation::decision_costs(study, chain),
        decisions_total: super::allocation::decisions_total(study, chain),
    }
}

/// Configurations with more than one run of their own on a profile, in run order, with the
/// spread of their objective values: (max − min) / max.
fn repeated(study: &Study, chain: &Chain) -> Vec<Spread> {
    let objective = study.spec.objective.get_ref();
    let mut groups: BTreeMap<(Identity, String), Vec<(RunKey, f64)>> = BTreeMap::new();
    for stage in &chain.stages {
        for v in &stage.variants {
            for profile in &study.spec.profiles {
                let key = RunKey::new(&stage.id, &v.id, profile.id.get_ref());
                if let Some(x) = super::stats::Sample::of(&study.start_values(&key, objective)).map(|s| s.mean) {
                    groups.entry((v.point.config.identity(), key.profile.clone())).or_default().push((key, x));
                }
            }
        }
    }
    let mut out = Vec::new();
    for runs in groups.into_values().filter(|g| g.len() > 1) {
        let max = runs.iter().map(|r| r.1).fold(f64::MIN, f64::max);
        let min = runs.iter().map(|r| r.1).fold(f64::MAX, f64::min);
        if max <= 0.0 {
            continue;
        }
        out.push(Spread {
            runs: runs.iter().map(|r| r.0.clone()).collect(),
            values: runs.iter().map(|r| r.1).collect(),
            spread_percent: (max - min) / max * 100.0,
        });
    }
    out
}

/// Configurations measured by more than one run whose objective values are further apart than
/// the noise threshold.
fn noisy(study: &Study, chain: &Chain) -> Vec<Warning> {
    repeated(study, chain)
        .into_iter()
        .filter(|s| s.spread_percent > study.spec.noise_threshold)
        .map(|s| Warning::Noisy { runs: s.runs, values: s.values, spread_percent: s.spread_percent })
        .collect()
}

/// The repeated measurements [`Study::counted`] leaves out of a run's mean, one warning each.
fn left_out(study: &Study) -> Vec<Warning> {
    let mut out = Vec::new();
    for key in study.runs.keys() {
        let expected = study.profile(&key.profile).map_or(0, |p| p.total_requests);
        for run in study.left_out(key) {
            let runs = study.dir.join(crate::study::RUNS_DIR);
            let file = run.path.strip_prefix(&runs).unwrap_or(&run.path).display().to_string();
            let completed = run.block.metric("completed").unwrap_or(0.0).max(0.0) as u64;
            out.push(Warning::LeftOut { run: key.clone(), file, completed, expected });
        }
    }
    out
}

/// Each run whose mean is taken from fewer measurements than the study asks for.
fn short_samples(study: &Study) -> Vec<Warning> {
    let mut out = Vec::new();
    for key in study.runs.keys() {
        let wanted = study.repeats_wanted(&key.stage, &key.profile);
        let have = study.counted(key).len();
        if wanted > 1 && have < wanted as usize {
            out.push(Warning::ShortSample { run: key.clone(), have, wanted });
        }
    }
    out
}

/// The percentile a metric key names (`p99_ttft_ms` → 99, `p99.9_itl_ms` → 99.9).
pub fn percentile(metric: &str) -> Option<f64> {
    let rest = metric.strip_prefix('p')?;
    let number = rest.split('_').next()?;
    number.parse::<f64>().ok().filter(|p| *p > 0.0 && *p < 100.0)
}

/// The fewest requests for which at least one lies beyond percentile `p`: 100 for a p99.
pub fn requests_for(p: f64) -> u64 {
    (100.0 / (100.0 - p)).round() as u64
}

/// Each run whose objective or a secondary metric the page shows is a high percentile from
/// fewer requests than [`requests_for`] it (the requests its measurements completed).
fn few_requests(study: &Study) -> Vec<Warning> {
    let shown: Vec<&str> = std::iter::once(study.spec.objective.get_ref().as_str())
        .chain(study.spec.secondary.iter().map(|m| m.get_ref().as_str()))
        .collect();
    let mut out = Vec::new();
    for (key, run) in &study.runs {
        let requests = run.block.metric("completed").unwrap_or(0.0).max(0.0) as u64;
        for metric in &shown {
            if let Some(p) = percentile(metric)
                && run.block.metric(metric).is_some()
                && requests < requests_for(p)
            {
                out.push(Warning::FewRequests { run: key.clone(), metric: metric.to_string(), requests });
            }
        }
    }
    out
}

/// The stages that rank configurations on different numbers of GPUs by a total that grows with
/// them ([`Warning::UnequalGpus`]): those whose study asks for totals (`compare = "total"`).
/// A derived objective and a latency are not warned about ([`super::per_gpu::grows_with_gpus`]).
/// A configuration's GPUs are those it runs on ([`Chain::gpus`]), else the study's `gpus`; one
/// with neither is left out, as is one without a run that ranks.
fn unequal_gpus(study: &Study, chain: &Chain) -> Vec<Warning> {
    if !super::per_gpu::grows_with_gpus(study) {
        return Vec::new();
    }
    let default = study.spec.gpus.as_ref().map(|g| *g.get_ref());
    let mut out = Vec::new();
    // A stage that weighs per GPU compares fairly; one that weighs totals (`compare = "total"`)
    // is warned about.
    for stage in chain.stages.iter().filter(|s| s.per_gpu.is_none()) {
        let (mut runs, mut gpus) = (Vec::new(), Vec::new());
        for v in stage.variants.iter().filter(|v| v.ranks()) {
            let r = VariantRef::new(&stage.id, &v.id);
            if let (Some(n), Some(run)) = (chain.gpus(study, &r).or(default), &v.point.run) {
                runs.push(run.clone());
                gpus.push(n);
            }
        }
        if gpus.iter().any(|n| Some(n) != gpus.first()) {
            out.push(Warning::UnequalGpus { stage: stage.id.clone(), runs, gpus });
        }
    }
    out
}
