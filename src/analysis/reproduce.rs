//! What to run to measure one figure again (`perflab reproduce`, and the page's drawer under a
//! result): the engine's command and environment as the run started them, the benchmark's
//! command with its seed and dataset (and the dataset's fingerprint), the machine it ran on, and
//! the figure with its interval.

use super::{Measure, measure};
use crate::study::{Machine, RunKey, Study};
use serde::Serialize;
use std::collections::BTreeMap;

/// One run's recipe and its figure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reproduction {
    /// The run, `stage/variant/profile` or `stage/variant/profile@load`.
    pub run: RunKey,
    /// The attempt (engine start) whose record this is; 0 for a result placed by hand.
    pub attempt: u32,
    /// The engine's argument vector as it was started, the port as `{port}`.
    pub engine: Vec<String>,
    /// What the engine's environment added.
    pub env: BTreeMap<String, String>,
    /// The benchmark's argument vector, the port as `{port}`; `None` for a result placed by hand.
    pub benchmark: Option<Vec<String>>,
    /// The profile's seed and dataset, as the study gives them.
    pub seed: Option<u64>,
    /// The dataset: `random`, a file, or a named set.
    pub dataset: String,
    /// FNV-1a of the dataset file when the run started, when recorded.
    pub dataset_fingerprint: Option<String>,
    /// `YYYY-MM-DD` of the measurement, when known.
    pub date: Option<String>,
    /// What it ran on, when recorded.
    pub machine: Option<Machine>,
    /// The study's objective, its name.
    pub metric: String,
    /// The figure: the objective as the page shows it, with its interval over the run's
    /// measurements when it has several.
    pub figure: Option<Measure>,
}

/// The recipe of a run of `study`, or why there is none: a run it does not have.
pub fn reproduce(study: &Study, run: &RunKey) -> Result<Reproduction, String> {
    let profile = study.profile(&run.profile).ok_or_else(|| format!("the study has no profile `{}`", run.profile))?;
    let was = study.provenance(run).ok_or_else(|| {
        let known: Vec<String> = study.runs.keys().take(5).map(|k| k.to_string()).collect();
        format!("`{run}` has no measurement in this study (runs are named `stage/variant/profile`, a curve's point `stage/variant/profile@load`; some it has: {})", known.join(", "))
    })?;
    let manifest =
        study.attempts.get(run).and_then(|list| crate::study::Attempt::select(list)).and_then(|a| a.manifest.as_ref());
    let mut env = manifest.map(|m| m.env.clone()).unwrap_or_default();
    // The GPUs the start was given, in the variable its engine reads them from.
    if let Some(m) = manifest
        && let Some(devices) = &m.devices
    {
        let var = study.engine(&m.engine).and_then(|e| e.devices_env.clone());
        env.insert(var.unwrap_or_else(|| "CUDA_VISIBLE_DEVICES".to_string()), devices.clone());
    }
    Ok(Reproduction {
        run: run.clone(),
        attempt: was.attempt,
        engine: was.command,
        env,
        benchmark: was.benchmark_command,
        seed: profile.seed,
        dataset: profile.dataset_path.clone().unwrap_or_else(|| profile.dataset.clone()),
        dataset_fingerprint: was.dataset_fingerprint,
        date: was.date,
        machine: was.machine,
        metric: study.spec.objective.get_ref().clone(),
        figure: measure(study, run),
    })
}
