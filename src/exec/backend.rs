//! What the runner asks of a backend and what it hands back: [`Launch`] (one engine start to
//! run), [`Report`] (how it went), the [`Event`]s told while it works and the [`Interrupt`] that
//! stops it. A backend runs a start on this machine ([`super::local`]) or as a cluster job
//! ([`super::slurm`]).

use super::plan::Job;
use crate::bench::eval::{Ask, Question};
use crate::study::command::Port;
use crate::study::machine::version_matches;
use crate::study::{Fact, FailureClass};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// What a backend needs to run one engine start. A cluster backend hands it to its node as JSON.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Launch {
    pub job: Job,
    /// The attempt's folder: the engine's log, the results and manifests go there.
    pub dir: PathBuf,
    /// Where the engine listens: the one source of the port for readiness and benchmarks.
    pub port: Port,
    /// With `{port}` to fill.
    pub ready_url: String,
    pub start_timeout: Duration,
    pub stop_grace: Duration,
    /// (profile, benchmark command with `{port}`, file its standard output goes to).
    pub benchmarks: Vec<(String, Vec<String>, PathBuf)>,
    /// The engine's log.
    pub log: PathBuf,
    /// Where the engine's identity is kept while it runs, for recovery.
    pub record: PathBuf,
    /// Study patterns first, then the built-in ones.
    #[serde(with = "patterns")]
    pub patterns: Vec<(FailureClass, regex::Regex)>,
    /// The engine's share of the machine's GPUs: the variable that tells it (such as
    /// `CUDA_VISIBLE_DEVICES`) and its value, `0,1`.
    #[serde(default)]
    pub devices: Option<(String, String)>,
    /// Load curves measured after the fixed benchmarks, one point at a time.
    #[serde(default)]
    pub curves: Vec<CurveBench>,
    /// What the benchmark's environment adds (`[benchmark] env`).
    #[serde(default)]
    pub bench_env: std::collections::BTreeMap<String, String>,
    /// What the start runs on, gathered before it (see [`super::machine`]).
    #[serde(default)]
    pub machine: Option<crate::study::Machine>,
    /// The version the study declares for the engine, checked again once it serves.
    #[serde(default)]
    pub version: Option<VersionCheck>,
    /// The accuracy evaluation asked after the benchmarks, when the stage requires one.
    #[serde(default)]
    pub evaluation: Option<EvalJob>,
    /// How the manifests name the host and the node (the study's `[record] host`).
    #[serde(default)]
    pub host: crate::study::machine::HostRecord,
}

/// A profile's load curve for one engine start: each point's benchmark is chosen from the
/// points measured before it (a search), and judged as soon as it ends.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CurveBench {
    pub profile: String,
    /// The benchmark command with `{port}` and `{load}` to fill.
    pub argv: Vec<String>,
    pub loads: crate::curve::Loads,
    pub slo: crate::curve::Slo,
    /// The requests each point sends (its success rate is of these).
    pub expected: u64,
    /// Points measured by earlier starts that the search goes on from.
    pub known: Vec<crate::curve::Probe>,
    /// The search the points belong to (see [`crate::study::Manifest::search`]).
    #[serde(default)]
    pub search: Option<u32>,
}

impl CurveBench {
    /// Where the per-request records of the `k`-th measurement (from 1) of the point at `load`
    /// in this start go while it runs.
    pub fn requests_output(&self, dir: &Path, load: u64, k: u32) -> PathBuf {
        crate::durable::temporary(&crate::study::curve::requests_file(&self.result(dir, load, k)))
    }

    /// Where the output of the `k`-th measurement of the point at `load` goes while it runs.
    pub fn output(&self, dir: &Path, load: u64, k: u32) -> PathBuf {
        crate::durable::temporary(&self.result(dir, load, k))
    }

    fn result(&self, dir: &Path, load: u64, k: u32) -> PathBuf {
        dir.join(crate::study::result_file(&crate::curve::point_id(&self.profile, load), k))
    }
}

/// Failure patterns as (class, regular expression text) pairs.
mod patterns {
    use crate::study::FailureClass;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(list: &[(FailureClass, regex::Regex)], s: S) -> Result<S::Ok, S::Error> {
        let texts: Vec<(FailureClass, &str)> = list.iter().map(|(c, r)| (*c, r.as_str())).collect();
        texts.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(FailureClass, regex::Regex)>, D::Error> {
        let texts = Vec::<(FailureClass, String)>::deserialize(d)?;
        texts
            .into_iter()
            .map(|(c, t)| regex::Regex::new(&t).map(|r| (c, r)).map_err(serde::de::Error::custom))
            .collect()
    }
}

/// How one benchmark went.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchResult {
    pub profile: String,
    pub command: Vec<String>,
    pub exit_status: Option<i32>,
    pub seconds: f64,
    pub failure: Option<(FailureClass, String)>,
    /// The warnings `perflab bench` printed (a server's usage it did not believe).
    #[serde(default)]
    pub warnings: Vec<String>,
    /// The benchmark's program is not there: the machine's fault, not the configuration's; the
    /// run records nothing and stops with this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_fault: Option<String>,
}

/// How an engine start went (a cluster's node hands it back as JSON).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Report {
    /// The cluster job that ran it.
    #[serde(default)]
    pub job_id: Option<String>,
    /// The cluster node it ran on.
    #[serde(default)]
    pub node: Option<String>,
    pub pid: Option<u32>,
    /// The port the engine was given and benchmarked on.
    pub port: Option<u16>,
    pub started_at: String,
    pub ready_at: Option<String>,
    pub stopped_at: Option<String>,
    pub start_seconds: Option<f64>,
    /// Set when the engine did not become ready: every benchmark of the start fails with it.
    pub start_failure: Option<(FailureClass, String)>,
    /// The profile whose benchmark the engine died in: the later ones did not run.
    pub died_during: Option<String>,
    pub engine_exit: Option<i32>,
    pub benchmarks: Vec<BenchResult>,
    pub interrupted: bool,
    /// The version the engine said while it served (`GET /version`).
    #[serde(default)]
    pub engine_version: Option<crate::study::Fact>,
    pub log_tail: Vec<String>,
    /// Set when the start could not even be attempted for a reason that is not the
    /// configuration's (a scheduler refusing every submission): nothing is recorded and the run
    /// stops with this message.
    #[serde(default)]
    pub refused: Option<String>,
    /// The cluster may still be running the job (its controller stopped answering): its record
    /// is kept, so that the next run follows the job instead of submitting another.
    #[serde(default)]
    pub job_still_queued: bool,
    /// The cluster ended the job for a reason of its own (cancelled from outside, a node that
    /// failed): how, as a sentence. What was not measured stays pending, not failed.
    #[serde(default)]
    pub cluster_end: Option<String>,
    /// What a cluster's node recorded of itself (its host, the accelerators it gave the job),
    /// each source naming the node; joined with the runner's facts in the manifests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<crate::study::Machine>,
}

/// A request to stop, set from signal handlers: the first asks for an orderly stop (the engine
/// gets its grace period), a second one for an immediate stop (SIGKILL at once).
#[derive(Debug, Default)]
pub struct Interrupt {
    stop: AtomicBool,
    now: AtomicBool,
}

impl Interrupt {
    /// One more request to stop.
    pub fn request(&self) {
        if self.stop.swap(true, Ordering::SeqCst) {
            self.now.store(true, Ordering::SeqCst);
        }
    }

    pub fn requested(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Stop without waiting for anything.
    pub fn urgent(&self) -> bool {
        self.now.load(Ordering::SeqCst)
    }

    /// An interrupt that SIGINT (Ctrl-C), SIGTERM (a scheduler cancelling a job) and SIGHUP (a
    /// dropped SSH session) request, each signal once more.
    pub fn on_signals() -> std::io::Result<std::sync::Arc<Interrupt>> {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let interrupt = std::sync::Arc::new(Interrupt::default());
        let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
        let requests = interrupt.clone();
        std::thread::spawn(move || {
            for _ in signals.forever() {
                requests.request();
            }
        });
        Ok(interrupt)
    }
}

/// What a backend tells while it works.
#[derive(Debug, Clone, Copy)]
pub enum Event<'a> {
    /// A step: `starting the engine`, `benchmark on mixed`.
    Step(&'a str),
    /// Still waiting for the engine to serve (told about once a second). `config` names the
    /// configuration when several are in flight, else it is empty.
    Waiting { config: &'a str, elapsed: Duration, timeout: Duration, last_line: &'a str },
}

/// Runs engine starts; the runner calls `execute` from several threads at once.
pub trait Backend: Sync {
    /// Starts the engine, waits until it serves, runs each benchmark (its standard output into
    /// the given file), stops the engine. `interrupt` asks it to stop.
    fn execute(&self, launch: &Launch, interrupt: &Interrupt, progress: &mut dyn FnMut(Event)) -> Report;

    /// How many engine starts it takes at once when `--jobs` does not say: `None` for as many
    /// as the stage has.
    fn capacity(&self) -> Option<usize>;

    /// The machine's devices, shared out among the engines in flight (local backend only).
    fn devices(&self) -> &[String] {
        &[]
    }

    /// Whether it runs engine starts as jobs of a scheduler that outlive a killed runner: their
    /// attempts are then left for [`Backend::adoptable`] instead of being marked interrupted.
    fn follows_jobs(&self) -> bool {
        false
    }

    /// The attempt folder of a job a killed runner left for this configuration, to follow
    /// instead of starting it again.
    fn adoptable(&self, _variant_dir: &Path, _job: &Job) -> Option<PathBuf> {
        None
    }

    /// The runner has recorded the attempt in `dir`.
    fn finished(&self, _dir: &Path) {}
}

/// The time now, as records and manifests write it (RFC 3339 in UTC, to the millisecond).
pub fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// What one start evaluates: the study's evaluation and its questions, or its command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalJob {
    /// The study's evaluation id.
    pub evaluation: String,
    /// The data file as the study names it, or the command as written.
    pub data: String,
    pub ask: Ask,
    /// The questions asked, in the file's order (none for a command).
    pub questions: Vec<Question>,
    /// An external evaluator's words, `{port}` and `{output}` still to fill, and the folder it
    /// runs in (the study's).
    #[serde(default)]
    pub command: Option<(Vec<String>, PathBuf)>,
    /// Seconds the evaluation may take before it is stopped.
    #[serde(default = "crate::study::evaluation::default_eval_timeout")]
    pub timeout_s: u64,
}

/// The version a study declares for a start's engine, where, and whether another may be
/// measured anyway (`perflab run --any-engine-version`).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct VersionCheck {
    pub engine: String,
    pub declared: String,
    /// Where the study declares it: `path/study.toml:35`.
    pub at: String,
    pub any: bool,
}

impl VersionCheck {
    /// Nothing when the engine reports the declared version (or another may be measured);
    /// else why the configuration is not measured.
    pub fn refusal(&self, reported: &Fact) -> Option<String> {
        if self.any || version_matches(&self.declared, &reported.value) {
            return None;
        }
        Some(format!(
            "engine `{}`: the study declares version {} ({}), but the engine reports {} ({}); nothing was measured. \
             Set `version` to what is installed, install {}, or pass `perflab run --any-engine-version` to measure it \
             anyway (its runs then carry {} and are stale against {})",
            self.engine,
            self.declared,
            self.at,
            reported.value,
            reported.source,
            self.declared,
            reported.value,
            self.declared
        ))
    }

    /// The version a run measured with this check carries: the engine's own when it differs.
    pub fn carried(&self, reported: Option<&Fact>) -> String {
        match reported {
            Some(r) if !version_matches(&self.declared, &r.value) => r.value.clone(),
            _ => self.declared.clone(),
        }
    }
}
