//! The record `perflab run` keeps of each attempt at a run: what was started, when, on which
//! port, and how it ended. Written as `runs/<stage>/<variant>/attempts/<n>/<profile>.manifest.json`
//! (see [`super::Attempt`]), durably.

use super::FailureClass;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunState {
    /// The run was started and has not ended (or its runner was killed).
    Running,
    Done,
    Failed,
    /// Stopped by Ctrl-C; it will be run again.
    Interrupted,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedFailure {
    pub class: FailureClass,
    /// The line of the engine's log that told the class, or what went wrong.
    pub message: String,
}

/// One run's record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub state: RunState,
    pub engine: String,
    pub engine_version: String,
    /// The engine's command as an argument vector, with the port as `{port}`: equal for two runs
    /// of the same configuration.
    pub command: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub benchmark_command: Vec<String>,
    /// Process id of the engine (its process group id too), while it may be alive.
    pub engine_pid: Option<u32>,
    /// The port the engine served on and the benchmark connected to.
    #[serde(default)]
    pub port: Option<u16>,
    /// RFC 3339 times.
    pub started_at: String,
    pub engine_ready_at: Option<String>,
    pub ended_at: Option<String>,
    pub engine_stopped_at: Option<String>,
    /// Seconds the benchmark took.
    pub benchmark_seconds: Option<f64>,
    /// Seconds from the engine's start to ready.
    pub start_seconds: Option<f64>,
    /// The benchmark's exit status.
    pub exit_status: Option<i32>,
    /// The engine's exit status when it ended on its own (a crash, a failed start).
    #[serde(default)]
    pub engine_exit_status: Option<i32>,
    pub failure: Option<RecordedFailure>,
    /// The last lines of the engine's log.
    pub log_tail: Vec<String>,
    /// The cluster job that ran the attempt (`perflab run --backend slurm`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_id: Option<String>,
    /// The cluster node it ran on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// The GPUs the engine was given, as its device variable said them (`0,1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub devices: Option<String>,
    /// The attempt repeats the measurement of the attempts before it (`repeats`, `perflab run
    /// --until-confident`): its results join theirs as one sample instead of replacing them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub repeat: bool,
    /// FNV-1a (64-bit) of the profile's dataset file when the run started, so that other
    /// contents at the same path make the run stale.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset_fingerprint: Option<String>,
    /// Taken by `perflab run --until-confident`: the most engine starts of each side its
    /// sequential design plans for a stage's comparison (see `analysis::sequential`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub planned_starts: Option<u32>,
    /// A point of a load curve: the search it belongs to, named by the attempt that began it (a
    /// start that resumes an interrupted search goes on with its number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<u32>,
    /// How the cluster ended the attempt's job for a reason of its own (`Slurm job 12 ended
    /// NODE_FAIL`): the runs it did not measure stay pending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_end: Option<String>,
    /// What the benchmark said it did not believe of its own measurement (`perflab bench`'s
    /// `warning:` lines: streams that arrived in bursts, usage it did not trust).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The measurements of a run that is `done` which failed in the same engine start, in the
    /// order taken (a boundary's confirmation whose benchmark failed while the others ended):
    /// each is a failed point of its load, as it was to the search that took it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_measurements: Vec<RecordedFailure>,
    /// What the start ran on: the machine, the engine's own version, its packages (see
    /// [`super::Machine`]); absent in records made before perflab kept it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<super::Machine>,
}

impl Manifest {
    /// The record of an attempt that starts now: `running`, nothing measured yet.
    pub fn start(
        engine: &str,
        engine_version: &str,
        command: Vec<String>,
        env: BTreeMap<String, String>,
        benchmark_command: Vec<String>,
        started_at: &str,
    ) -> Manifest {
        Manifest {
            state: RunState::Running,
            engine: engine.to_string(),
            engine_version: engine_version.to_string(),
            command,
            env,
            benchmark_command,
            engine_pid: None,
            port: None,
            started_at: started_at.to_string(),
            engine_ready_at: None,
            ended_at: None,
            engine_stopped_at: None,
            benchmark_seconds: None,
            start_seconds: None,
            exit_status: None,
            engine_exit_status: None,
            failure: None,
            log_tail: Vec::new(),
            job_id: None,
            node: None,
            devices: None,
            repeat: false,
            dataset_fingerprint: None,
            planned_starts: None,
            search: None,
            cluster_end: None,
            warnings: Vec::new(),
            failed_measurements: Vec::new(),
            machine: None,
        }
    }

    pub fn read(path: &Path) -> Result<Manifest, String> {
        Manifest::read_placed(path).map_err(|d| match d.line {
            0 => d.message,
            line => format!("{} (line {line}, column {})", d.message, d.col),
        })
    }

    /// As [`Manifest::read`], the error placed where the JSON went wrong, once.
    pub fn read_placed(path: &Path) -> Result<Manifest, crate::diag::Diagnostic> {
        use crate::diag::Diagnostic;
        let text =
            std::fs::read_to_string(path).map_err(|e| Diagnostic::new(path, 0, 0, format!("cannot read: {e}")))?;
        serde_json::from_str(&text).map_err(|e| {
            // serde_json's message ends with its own "at line L column C": the position goes
            // into the diagnostic's place instead.
            let what = e.to_string();
            let what = what.split(" at line ").next().unwrap_or(&what);
            Diagnostic::new(
                path,
                e.line(),
                e.column(),
                format!(
                    "not a run manifest ({what}): it was cut off or edited; remove its attempt folder and `perflab run` measures the run again"
                ),
            )
        })
    }

    /// Writes durably (temporary file, `fsync`, rename), so a reader never sees half a manifest.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        let mut bytes = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        bytes.push(b'\n');
        crate::durable::write(path, &bytes)
    }
}
