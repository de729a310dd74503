//! The typed form of `study.toml`. Field docs say what each key means; `docs/study-format.md`
//! shows a whole file.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use toml::Spanned;

/// A string with the byte range it was read from, for error positions.
pub type Id = Spanned<String>;

pub use super::placement::{Cluster, LocalMachine};
pub use crate::text::{Name, Text};

/// The whole study file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// The page title, e.g. "Optimizing GLM-5.2 throughput on 8×H200".
    pub title: Text,
    /// The model as engines are given it, e.g. `zai-org/GLM-5.2-FP8`.
    pub model: String,
    /// The hardware as a reader should see it, e.g. `NVIDIA H200x8`.
    pub hardware: Text,
    /// When the runs were made, `YYYY-MM-DD`.
    #[serde(default)]
    pub date: Option<Spanned<String>>,
    /// What the study optimises for, in a sentence.
    #[serde(default)]
    pub goal: Option<Text>,
    /// The run every gain is measured against: `stage/variant`.
    pub baseline: Id,
    /// The profile every stage is measured on.
    pub target_profile: Id,
    /// Canonical metric to maximise (or minimise, for a latency `*_ms` metric).
    #[serde(default = "default_objective")]
    pub objective: Id,
    /// Metrics shown beside the objective: one (`"mean_tpot_ms"`) or a list, the first in
    /// sentences, every one in the tables.
    #[serde(default = "default_secondary", deserialize_with = "ids")]
    pub secondary: Vec<Id>,
    /// Differences smaller than this, in percent, are run-to-run noise.
    #[serde(default = "default_noise")]
    pub noise_threshold: f64,
    /// The share of a profile's requests a run must complete (0 to 1); below it the run failed.
    #[serde(default = "default_min_completed")]
    pub min_completed: Spanned<f64>,
    /// Measurements `perflab run` takes of each configuration on each profile (default 1); a
    /// stage's or a profile's `repeats` says otherwise for its own runs.
    #[serde(default)]
    pub repeats: Option<Spanned<u32>>,
    /// Takes each repeat in an engine start of its own (start-up variance counts) instead of
    /// all of them in one start.
    #[serde(default)]
    pub repeat_across_restarts: bool,
    /// What an engine start costs `--until-confident`, in seconds (by default the mean start
    /// time the study's manifests recorded).
    #[serde(default)]
    pub start_cost: Option<Spanned<f64>>,
    /// What one benchmark run costs, in seconds (by default the mean recorded benchmark time).
    #[serde(default)]
    pub run_cost: Option<Spanned<f64>>,
    /// Profiles the baseline and the optimized configuration are compared on (all by default).
    #[serde(default)]
    pub compare_profiles: Option<Vec<Id>>,
    pub benchmark: Benchmark,
    #[serde(rename = "engine")]
    pub engines: Vec<Engine>,
    #[serde(rename = "profile")]
    pub profiles: Vec<Profile>,
    #[serde(rename = "stage")]
    pub stages: Vec<Stage>,
    /// Numbered notes under the conclusion: a list of localized texts (one text alone is a list
    /// of one).
    #[serde(default, deserialize_with = "texts")]
    pub notes: Vec<Text>,
    /// Caveats shown as warnings under the conclusion.
    #[serde(default, deserialize_with = "texts")]
    pub warnings: Vec<Text>,
    #[serde(default)]
    pub accuracy: Vec<Accuracy>,
    /// Sets of questions a stage's `accuracy` requirement is measured with (`[[evaluation]]`).
    #[serde(default, rename = "evaluation")]
    pub evaluations: Vec<super::evaluation::Evaluation>,
    /// Extra log patterns that classify an engine's failure, tried before the built-in ones.
    #[serde(default)]
    pub failure_patterns: Vec<FailurePattern>,
    /// How figures are shown.
    #[serde(default)]
    pub display: Display,
    /// Service-level objectives a load curve's points are judged by: `p99_ttft_ms = 500`,
    /// `mean_tpot_ms = 50`, `min_success_rate = 0.99`.
    #[serde(default)]
    pub slo: Option<crate::curve::SloSpec>,
    /// Metrics computed from each run's own values (`[[metric]]`).
    #[serde(default, rename = "metric")]
    pub metrics: Vec<DerivedMetric>,
    /// GPUs (or NPUs) a configuration uses when its variant does not say (default 1); per-GPU
    /// metrics divide by it.
    #[serde(default)]
    pub gpus: Option<Spanned<u32>>,
    /// GPUs (or NPUs) the hardware the page names has: no configuration may take more, so the
    /// page never recommends a command its own hardware cannot start (default: what `[local]`
    /// declares; without either, nothing is checked).
    #[serde(default)]
    pub hardware_gpus: Option<Spanned<u32>>,
    /// Serving replicas a configuration runs when its variant does not say (default 1);
    /// per-replica metrics divide by it.
    #[serde(default)]
    pub replicas: Option<Spanned<u32>>,
    /// The machine `perflab run` runs on locally: its GPUs, shared out among engines at once.
    #[serde(default)]
    pub local: Option<LocalMachine>,
    /// The Slurm cluster `perflab run --backend slurm` submits to.
    #[serde(default)]
    pub cluster: Option<Cluster>,
    /// What a run's manifest may say of its machine (`[record] host = "hash"`).
    #[serde(default)]
    pub record: super::machine::Record,
}

/// A metric computed from a run's values by a small expression: `+ - * /`, parentheses,
/// numbers, canonical metrics, derived metrics defined before it, and the run's setup
/// (`gpus`, `input_tokens`, `output_tokens`, `total_requests`, `max_concurrency`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DerivedMetric {
    /// Its key, as `objective`, `secondary` and the exports name it.
    pub id: Id,
    /// Its display name.
    pub name: Text,
    /// E.g. `total_token_throughput / gpus` or `(mean_ttft_ms + output_tokens * mean_tpot_ms) / 1000`.
    pub expr: Spanned<String>,
    /// `tok/s`, `req/s`, `ms`, `s`, `requests`, `tokens` or `number`.
    pub unit: crate::metric::Unit,
    /// `higher` or `lower`; required for an objective.
    #[serde(default)]
    pub better: Option<crate::metric::Direction>,
    /// Decimals shown (default 2).
    #[serde(default = "default_metric_decimals")]
    pub decimals: usize,
}

fn default_metric_decimals() -> usize {
    2
}

/// How a study's figures are shown: display only, the analysis is the same whatever they say.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Display {
    /// Decimals of every percentage on the page (gains, changes, differences): 0 to 4.
    #[serde(default = "default_percent_decimals")]
    pub percent_decimals: Spanned<usize>,
    /// For an objective that is better lower (a latency): gains are shown as speedups, the
    /// base's value over the new one less one, in percent, and the before/after change as a
    /// ratio ("2.7× faster"). The analysis, and so every decision, is the same.
    #[serde(default)]
    pub speedup: bool,
}

impl Default for Display {
    fn default() -> Display {
        Display { percent_decimals: default_percent_decimals(), speedup: false }
    }
}

fn default_percent_decimals() -> Spanned<usize> {
    Spanned::new(0..0, 2)
}

/// The most decimals a percentage may be shown with.
pub const MAX_PERCENT_DECIMALS: usize = 4;

/// A list of localized texts, or one localized text (`notes = { en = "..." }`) as a list of one.
fn texts<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Text>, D::Error> {
    use serde::de::Error;
    match toml::Value::deserialize(d)? {
        table @ toml::Value::Table(_) => Text::deserialize(table).map(|t| vec![t]),
        list @ toml::Value::Array(_) => Vec::<Text>::deserialize(list),
        other => {
            return Err(D::Error::custom(format!(
                "expected a localized text (`{{ en = \"...\" }}`) or a list of them, found a {}",
                other.type_str()
            )));
        }
    }
    .map_err(|e| D::Error::custom(e.message().trim()))
}

/// A regular expression over an engine's log and the failure class it tells.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailurePattern {
    pub class: FailureClass,
    pub regex: Spanned<String>,
}

fn default_objective() -> Id {
    Spanned::new(0..0, crate::parse::names::TOTAL_TOKEN_THROUGHPUT.to_string())
}

fn default_secondary() -> Vec<Id> {
    vec![Spanned::new(0..0, crate::parse::names::MEAN_TPOT_MS.to_string())]
}

/// One name or a non-empty list of names; each keeps the span of the value it was written in.
fn ids<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Id>, D::Error> {
    use serde::de::Error;
    let value = Spanned::<toml::Value>::deserialize(d)?;
    let span = value.span();
    let name = |v: &toml::Value| match v {
        toml::Value::String(s) => Ok(Spanned::new(span.clone(), s.clone())),
        other => Err(D::Error::custom(format!("expected a metric name, found a {}", other.type_str()))),
    };
    match value.get_ref() {
        toml::Value::Array(items) if items.is_empty() => {
            Err(D::Error::custom("expected a metric name or a list of them, found an empty list"))
        }
        toml::Value::Array(items) => items.iter().map(name).collect(),
        one => name(one).map(|id| vec![id]),
    }
}

impl Spec {
    /// The first secondary metric: the one sentences speak of.
    pub fn first_secondary(&self) -> &Id {
        &self.secondary[0]
    }
}

fn default_noise() -> f64 {
    2.0
}

fn default_min_completed() -> Spanned<f64> {
    Spanned::new(0..0, 0.5)
}

fn default_start_timeout() -> f64 {
    1800.0
}

fn default_stop_grace() -> f64 {
    30.0
}

/// How the benchmark was run.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Benchmark {
    /// The tool, e.g. `vllm bench serve`, `guidellm`, `perflab bench`.
    pub tool: String,
    /// A wrapper that drove the tool, e.g. GPUStack's benchmark runner.
    #[serde(default)]
    pub runner: Option<String>,
    /// Command template; placeholders: {model} {host} {port} {dataset} {dataset_path}
    /// {input_tokens} {output_tokens} {seed} {request_rate} {total_requests} {max_concurrency}.
    #[serde(default)]
    pub command: Option<Spanned<String>>,
    #[serde(default)]
    pub description: Option<Text>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

/// Placeholders a benchmark command or launch command may use.
pub const PLACEHOLDERS: &[&str] = &[
    "model",
    "host",
    "port",
    "dataset",
    "dataset_path",
    "input_tokens",
    "output_tokens",
    "seed",
    "request_rate",
    "total_requests",
    "max_concurrency",
];

/// An inference engine.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Engine {
    pub id: Id,
    /// Display name, e.g. `vLLM`.
    pub name: String,
    pub version: String,
    /// Launch command template, e.g. `vllm serve {model}`; the configuration's flags follow it.
    pub command: Spanned<String>,
    /// The model path this engine is given, when it differs from the study's model.
    #[serde(default)]
    pub model: Option<String>,
    /// URL that answers 200 once the engine serves (default `http://{host}:{port}/health`).
    #[serde(default)]
    pub ready_url: Option<String>,
    /// Seconds the engine may take to become ready.
    #[serde(default = "default_start_timeout")]
    pub start_timeout: f64,
    /// Seconds between SIGTERM and SIGKILL when the engine is stopped.
    #[serde(default = "default_stop_grace")]
    pub stop_grace: f64,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// GPUs one start of this engine takes (its configurations' share unless a variant says).
    #[serde(default)]
    pub gpus: Option<u32>,
    /// The variable that tells the engine its devices (default `CUDA_VISIBLE_DEVICES`).
    #[serde(default)]
    pub devices_env: Option<String>,
    /// Other spellings of a flag: `"--dp" = "--dp-size"` makes them one flag.
    #[serde(default)]
    pub aliases: BTreeMap<String, String>,
}

impl Engine {
    /// The launch command as a page shows it: `{model}` filled in, and the address perflab
    /// picks for each start (`--port {port}`, `--host {host}`) left out; a port or host the
    /// study fixes stays.
    pub fn published_command(&self, model: &str) -> String {
        static PICKED_ADDRESS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(r#"\s*(--port|-p|--host)(=|\s+)["']?\{(port|host)\}["']?"#).expect("a valid pattern")
        });
        PICKED_ADDRESS.replace_all(self.command.get_ref(), "").replace("{model}", model)
    }
}

/// A request rate: a number of requests a second, or `"inf"` to send all at once.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Rate {
    PerSecond(f64),
    /// `"inf"`.
    Unlimited,
}

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Rate, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Rate;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a positive number of requests a second, or \"inf\"")
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Rate, E> {
                if v.is_finite() && v > 0.0 {
                    Ok(Rate::PerSecond(v))
                } else {
                    Err(E::custom(format!("`request_rate`: {v} is not a positive number")))
                }
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Rate, E> {
                self.visit_f64(v as f64)
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Rate, E> {
                self.visit_f64(v as f64)
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Rate, E> {
                match v {
                    "inf" => Ok(Rate::Unlimited),
                    _ => Err(E::custom(format!("`request_rate`: `{v}` is neither a number nor \"inf\""))),
                }
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// A benchmark workload.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub id: Id,
    pub name: Text,
    /// `random`, `sharegpt`, `jsonl`, ...
    pub dataset: String,
    #[serde(default)]
    pub dataset_path: Option<String>,
    /// Where the dataset file is downloaded from (`https://…`): a page shows the download
    /// before the profile's benchmark command.
    #[serde(default)]
    pub dataset_url: Option<String>,
    #[serde(default)]
    pub input_tokens: Option<u64>,
    #[serde(default)]
    pub output_tokens: Option<u64>,
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default)]
    pub request_rate: Option<Rate>,
    /// Requests a run sends; a run that completes fewer lost requests.
    pub total_requests: u64,
    #[serde(default)]
    pub max_concurrency: Option<u64>,
    /// Words added to the benchmark command for this profile (placeholders allowed), e.g.
    /// `["--random-input-len", "{input_tokens}"]`.
    #[serde(default)]
    pub args: Vec<String>,
    /// Measurements of each configuration on this profile, instead of the study's `repeats`.
    #[serde(default)]
    pub repeats: Option<Spanned<u32>>,
    /// A load curve: each configuration measured at several loads (`values`) or searched for
    /// the largest load that meets the SLO (`min`, `max`, `points`).
    #[serde(default)]
    pub load: Option<Spanned<crate::curve::LoadSpec>>,
    /// Limits that replace the study's `[slo]` ones of the same name for this profile.
    #[serde(default)]
    pub slo: Option<crate::curve::SloSpec>,
}

/// One step of the greedy search.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stage {
    pub id: Id,
    pub title: Text,
    /// What the variants build on: `stage` (the configuration adopted after it) or
    /// `stage/variant`. By default the configuration adopted after the previous stage.
    #[serde(default)]
    pub base: Option<Id>,
    /// What the variants build on and the stage is compared against (`stage` or `stage/variant`),
    /// while the search goes on from the previous stage's configuration: what the stage adopts
    /// is carried over onto it. Not with `base`.
    #[serde(default)]
    pub measured_on: Option<Id>,
    /// Overrides the measured adoption.
    #[serde(default)]
    pub adopt: Option<Adopt>,
    /// Keeps the stage's adopted flags out of the recommended command.
    #[serde(default)]
    pub exclude_from_command: Option<Reason>,
    /// Measurements of each of the stage's configurations, instead of the profile's or the
    /// study's `repeats`.
    #[serde(default)]
    pub repeats: Option<Spanned<u32>>,
    /// How configurations that run on different numbers of GPUs are weighed against each other
    /// when the objective grows with GPUs (a throughput, a load carried): `per-gpu` (the
    /// default) or `total`.
    #[serde(default)]
    pub compare: Option<Spanned<Compare>>,
    #[serde(default, deserialize_with = "texts")]
    pub notes: Vec<Text>,
    #[serde(default, deserialize_with = "texts")]
    pub warnings: Vec<Text>,
    /// The accuracy its variants must keep (each variant may say otherwise).
    #[serde(default)]
    pub accuracy: Option<super::evaluation::Requirement>,
    #[serde(rename = "variant")]
    pub variants: Vec<Variant>,
}

/// How a stage weighs configurations that run on different numbers of GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Compare {
    /// Each configuration's objective divided by its GPUs: what a reader with a fixed number of
    /// GPUs gets from each layout.
    PerGpu,
    /// The objective as measured, whatever the GPUs: one may come out ahead only because it has
    /// more of them (the page warns).
    Total,
}

/// An adoption decided by the study's authors instead of by the numbers.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Adopt {
    /// The variant adopted; absent: the stage adopts nothing.
    #[serde(default)]
    pub variant: Option<Id>,
    pub reason: Text,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reason {
    pub reason: Text,
}

/// One configuration tried in a stage.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Variant {
    pub id: Id,
    /// Display name, e.g. `TP + DP-Attention`; localized where it is made of words.
    pub label: Name,
    /// Required in a variant that builds on nothing; otherwise the base's engine.
    #[serde(default)]
    pub engine: Option<Id>,
    /// Overrides the stage's base for this variant (`stage` or `stage/variant`).
    #[serde(default)]
    pub base: Option<Id>,
    /// Another checkpoint of the model (a quantized one, say): it replaces the model wherever the
    /// engine is given it, in this variant and every configuration built on it.
    #[serde(default)]
    pub model: Option<Spanned<String>>,
    /// GPUs this variant's configuration uses. For running it (GPU slots, a Slurm job's
    /// share), the variants that build on it take as many unless they say, and the default is
    /// the engine's `gpus`; for per-GPU metrics it counts for this variant only, and the default
    /// is the study's `gpus`.
    #[serde(default)]
    pub gpus: Option<Spanned<u32>>,
    /// Serving replicas this variant's configuration runs (`2` for two TP1 engines behind one
    /// endpoint), for per-replica metrics; this variant only, default the study's `replicas`.
    #[serde(default)]
    pub replicas: Option<Spanned<u32>>,
    /// Flags added to the base, as written on a command line: `--tp-size=8`, `-tp 8`,
    /// `--enable-dp-attention`. A flag the base has already is replaced.
    #[serde(default)]
    pub flags: Vec<Spanned<String>>,
    /// Flags of the base this variant removes.
    #[serde(default)]
    pub unset: Vec<Spanned<String>>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Set when the variant could not be measured.
    #[serde(default)]
    pub failure: Option<Failure>,
    /// The accuracy this variant must keep, instead of its stage's.
    #[serde(default)]
    pub accuracy: Option<super::evaluation::Requirement>,
    #[serde(default, deserialize_with = "texts")]
    pub notes: Vec<Text>,
    #[serde(default, deserialize_with = "texts")]
    pub warnings: Vec<Text>,
}

/// What went wrong with a variant that could not be measured.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Failure {
    pub class: FailureClass,
    /// The error text as the engine printed it.
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub explanation: Option<Text>,
    #[serde(default)]
    pub link: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum FailureClass {
    /// Out of memory at start or during the run.
    Oom,
    /// The engine rejected the configuration.
    Unsupported,
    /// The engine did not start.
    StartFailure,
    /// The engine did not become ready in time.
    StartTimeout,
    /// The engine died during the run.
    Crash,
    /// The benchmark command failed.
    BenchmarkFailure,
    /// Something else already listened on the engine's port before it started.
    PortInUse,
    /// Fewer requests completed than `min_completed` asks for.
    RequestsFailed,
    /// The cluster ended the job at its time limit.
    TimeLimit,
    /// The node the job ran on failed.
    NodeFailure,
    /// The job was cancelled from outside perflab (`scancel`).
    Cancelled,
    /// The cluster killed the job for using more host memory than it asked for.
    JobOutOfMemory,
    /// No load of a load curve met the SLO (the benchmarks ran; the configuration is too slow).
    SloNotMet,
}

impl FailureClass {
    /// Whether a failure of this class measured the service: too few requests succeeded, or no
    /// load met the SLO. The others (a crash, a start that failed, a benchmark that broke, a
    /// cluster that ended the job) measured nothing, so a load curve's point that failed so is no
    /// verdict on its load and is measured again.
    pub fn measured_the_service(self) -> bool {
        matches!(self, FailureClass::RequestsFailed | FailureClass::SloNotMet)
    }

    /// The class as `study.toml` and manifests spell it: `start-failure`.
    pub fn name(self) -> &'static str {
        match self {
            FailureClass::Oom => "oom",
            FailureClass::Unsupported => "unsupported",
            FailureClass::StartFailure => "start-failure",
            FailureClass::StartTimeout => "start-timeout",
            FailureClass::Crash => "crash",
            FailureClass::BenchmarkFailure => "benchmark-failure",
            FailureClass::PortInUse => "port-in-use",
            FailureClass::RequestsFailed => "requests-failed",
            FailureClass::TimeLimit => "time-limit",
            FailureClass::NodeFailure => "node-failure",
            FailureClass::Cancelled => "cancelled",
            FailureClass::JobOutOfMemory => "job-out-of-memory",
            FailureClass::SloNotMet => "slo-not-met",
        }
    }
}

impl std::fmt::Display for FailureClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A quality check of configurations, e.g. GSM8K with bf16 and fp8 KV cache.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Accuracy {
    pub title: Text,
    #[serde(default)]
    pub description: Option<Text>,
    /// Column headers: what a row is, and what its score is, e.g. `KV dtype`, `GSM8K score`.
    pub columns: [Text; 2],
    pub rows: Vec<AccuracyRow>,
    #[serde(default)]
    pub note: Option<Text>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccuracyRow {
    pub label: String,
    pub score: f64,
}
