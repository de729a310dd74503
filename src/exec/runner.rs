//! The greedy search: run the pending variants of the first unsettled stage, let the analysis
//! pick its winner, plan again, until nothing is pending. Results are written through temporary
//! files and renamed; every run has a manifest; a killed runner's engine is stopped on the next
//! start.

use super::command::{self, HOST};
use super::local::{self, Backend, Launch};
use super::plan::{Job, plan};
use crate::study::{ENGINE_LOG, FailureClass, MANIFEST_SUFFIX, Manifest, RUNS_DIR, RecordedFailure, RunState, Study};
use anyhow::{Context, bail};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The runner's lock file in `runs/`: the process id of the runner.
const LOCK: &str = ".perflab-run.lock";
/// The running engine's record in `runs/`: its process id, to stop it after a crash.
const ENGINE_RECORD: &str = ".engine.json";

#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Only this stage.
    pub stage: Option<String>,
    /// Only this variant (`stage/variant`, or a variant id of --stage).
    pub variant: Option<String>,
    /// Measure these `stage/variant` again even when done.
    pub rerun: BTreeSet<String>,
    /// Measure stale runs again.
    pub rerun_stale: bool,
    /// Print the commands instead of running them.
    pub dry_run: bool,
}

/// What a run did.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub engine_starts: usize,
    pub benchmark_runs: usize,
    pub failed: usize,
    /// One start a (variant, profile) run the study needs, reused or not.
    pub naive_starts: usize,
    pub interrupted: bool,
}

fn runs_dir(study: &Study) -> PathBuf {
    study.dir.join(RUNS_DIR)
}

/// Stops an engine a killed runner left behind, drops half-written files, and marks runs that
/// were in progress as interrupted.
fn recover(dir: &Path, log: &mut dyn FnMut(&str)) -> anyhow::Result<()> {
    let runs = dir.join(RUNS_DIR);
    let record = runs.join(ENGINE_RECORD);
    if let Ok(text) = std::fs::read_to_string(&record) {
        let pid = serde_json::from_str::<serde_json::Value>(&text).ok().and_then(|v| v["pid"].as_u64());
        if let Some(pid) = pid.map(|p| p as u32)
            && local::signal_group(pid, 0)
        {
            log(&format!("stopping the engine (process group {pid}) a previous run left behind"));
            local::stop_group(pid, None, Duration::from_secs(10));
        }
        std::fs::remove_file(&record).with_context(|| format!("cannot remove '{}'", record.display()))?;
    }
    if !runs.is_dir() {
        return Ok(());
    }
    for entry in walkdir::WalkDir::new(&runs) {
        let entry = entry?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy();
        if name.ends_with(".tmp") {
            std::fs::remove_file(path).with_context(|| format!("cannot remove '{}'", path.display()))?;
        } else if name.ends_with(MANIFEST_SUFFIX)
            && let Ok(mut m) = Manifest::read(path)
            && m.state == RunState::Running
        {
            m.state = RunState::Interrupted;
            m.write(path)?;
        }
    }
    Ok(())
}

/// Holds the study's run lock; released when dropped.
struct Lock(PathBuf);

impl Lock {
    fn take(runs: &Path) -> anyhow::Result<Lock> {
        std::fs::create_dir_all(runs).with_context(|| format!("cannot create '{}'", runs.display()))?;
        let path = runs.join(LOCK);
        if let Ok(text) = std::fs::read_to_string(&path)
            && let Ok(pid) = text.trim().parse::<u32>()
            && pid != std::process::id()
            && local::alive(pid)
        {
            bail!("another perflab run (process {pid}) is running this study; its lock is '{}'", path.display());
        }
        std::fs::write(&path, std::process::id().to_string())
            .with_context(|| format!("cannot write '{}'", path.display()))?;
        Ok(Lock(path))
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn launch(study: &Study, job: &Job) -> anyhow::Result<Launch> {
    let engine = study.engine(&job.config.engine).with_context(|| format!("no engine `{}`", job.config.engine))?;
    let dir = runs_dir(study).join(&job.stage).join(&job.variant);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create '{}'", dir.display()))?;
    let mut benchmarks = Vec::new();
    for p in &job.profiles {
        let profile = study.profile(p).with_context(|| format!("no profile `{p}`"))?;
        benchmarks.push((p.clone(), command::bench_argv(study, engine, profile)?, dir.join(format!("{p}.txt.tmp"))));
    }
    let mut patterns: Vec<(FailureClass, regex::Regex)> = study
        .spec
        .failure_patterns
        .iter()
        .filter_map(|p| regex::Regex::new(p.regex.get_ref()).ok().map(|r| (p.class, r)))
        .collect();
    patterns.extend(local::builtin_patterns());
    let ready_url =
        engine.ready_url.clone().unwrap_or_else(|| "http://{host}:{port}/health".to_string()).replace("{host}", HOST);
    Ok(Launch {
        job: job.clone(),
        ready_url,
        start_timeout: Duration::from_secs_f64(engine.start_timeout.max(0.0)),
        stop_grace: Duration::from_secs_f64(engine.stop_grace.max(0.0)),
        benchmarks,
        log: dir.join(ENGINE_LOG),
        record: runs_dir(study).join(ENGINE_RECORD),
        patterns,
    })
}

fn manifest(study: &Study, job: &Job, bench: &[String], started_at: &str) -> Manifest {
    Manifest {
        state: RunState::Running,
        engine: job.config.engine.clone(),
        engine_version: study.engine(&job.config.engine).map(|e| e.version.clone()).unwrap_or_default(),
        command: job.argv.clone(),
        env: job.env.clone(),
        benchmark_command: bench.to_vec(),
        engine_pid: None,
        started_at: started_at.to_string(),
        engine_ready_at: None,
        ended_at: None,
        engine_stopped_at: None,
        benchmark_seconds: None,
        start_seconds: None,
        exit_status: None,
        failure: None,
        log_tail: Vec::new(),
    }
}

/// The benchmark's output as a result: exactly one complete-or-not block or JSON result.
fn check_output(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read the benchmark's output: {e}"))?;
    match crate::parse_str(&text) {
        Ok(blocks) if blocks.len() == 1 => Ok(()),
        Ok(blocks) => Err(format!("the benchmark printed {} results; a run keeps one", blocks.len())),
        Err(e) => Err(format!("the benchmark's output holds no result: {e}")),
    }
}

/// Runs one engine start and records it: results renamed into place, manifests written.
fn execute(
    study: &Study,
    job: &Job,
    backend: &mut dyn Backend,
    interrupt: &AtomicBool,
    summary: &mut Summary,
    log: &mut dyn FnMut(&str),
) -> anyhow::Result<()> {
    let launch = launch(study, job)?;
    let dir = runs_dir(study).join(&job.stage).join(&job.variant);
    let started_at = local::now();
    for (profile, bench, _) in &launch.benchmarks {
        manifest(study, job, bench, &started_at).write(&dir.join(format!("{profile}{MANIFEST_SUFFIX}")))?;
    }
    let name = format!("{}/{}", job.stage, job.variant);
    let report = backend.execute(&launch, interrupt, &mut |what| log(&format!("{name}: {what}")));
    summary.engine_starts += 1;
    for (profile, bench, tmp) in &launch.benchmarks {
        let path = dir.join(format!("{profile}{MANIFEST_SUFFIX}"));
        let mut m = manifest(study, job, bench, &report.started_at);
        m.engine_pid = report.pid;
        m.engine_ready_at = report.ready_at.clone();
        m.engine_stopped_at = report.stopped_at.clone();
        m.start_seconds = report.start_seconds;
        m.log_tail = report.log_tail.clone();
        m.ended_at = Some(local::now());
        let result = report.benchmarks.iter().find(|b| b.profile == *profile);
        // Stopped by Ctrl-C before it ended on its own: neither a result nor a failure.
        let cut_short = report.interrupted && result.is_none_or(|b| b.failure.is_none() && b.exit_status.is_none());
        let failure = match result {
            _ if cut_short => None,
            None => report.start_failure.clone(),
            Some(b) => {
                m.exit_status = b.exit_status;
                m.benchmark_seconds = Some(b.seconds);
                b.failure.clone().or_else(|| check_output(tmp).err().map(|e| (FailureClass::BenchmarkFailure, e)))
            }
        };
        if cut_short {
            m.state = RunState::Interrupted;
            let _ = std::fs::remove_file(tmp);
        } else if let Some((class, message)) = failure {
            log(&format!("{name} on {profile}: failed ({class:?}): {message}"));
            m.state = RunState::Failed;
            m.failure = Some(RecordedFailure { class, message });
            summary.failed += 1;
            let _ = std::fs::remove_file(tmp);
        } else {
            m.state = RunState::Done;
            summary.benchmark_runs += 1;
            let target = dir.join(format!("{profile}.txt"));
            std::fs::rename(tmp, &target).with_context(|| format!("cannot write '{}'", target.display()))?;
            log(&format!("{name} on {profile}: done in {:.1} s", m.benchmark_seconds.unwrap_or(0.0)));
        }
        m.write(&path)?;
    }
    summary.interrupted |= report.interrupted;
    Ok(())
}

/// Whether `--stage` and `--variant` select this variant.
fn selected(stage: &str, variant: &str, options: &RunOptions) -> bool {
    let stage_ok = options.stage.as_ref().is_none_or(|s| s == stage);
    let variant_ok = options.variant.as_ref().is_none_or(|v| v == variant || *v == format!("{stage}/{variant}"));
    stage_ok && variant_ok
}

/// Runs a study until nothing is pending (or `interrupt` is set). Progress lines go to `log`.
pub fn run(
    dir: &Path,
    options: &RunOptions,
    backend: &mut dyn Backend,
    interrupt: &AtomicBool,
    log: &mut dyn FnMut(&str),
) -> anyhow::Result<Summary> {
    let mut summary = Summary::default();
    let load = || Study::load(dir).map_err(|d| anyhow::anyhow!("{d}"));
    let study = load()?;
    if options.dry_run {
        let plan = plan(&study, &options.rerun, options.rerun_stale)?;
        for job in plan.jobs.iter().filter(|j| selected(&j.stage, &j.variant, options)) {
            let env: Vec<String> = job.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
            log(&format!("{}/{} on {}:", job.stage, job.variant, job.profiles.join(", ")));
            log(&format!(
                "  engine: {}{}",
                if env.is_empty() { String::new() } else { format!("{} ", env.join(" ")) },
                job.argv.join(" ")
            ));
            let engine = study.engine(&job.config.engine).context("engine")?;
            for p in &job.profiles {
                let profile = study.profile(p).context("profile")?;
                log(&format!("  benchmark: {}", command::bench_argv(&study, engine, profile)?.join(" ")));
            }
        }
        let waiting = plan.count(|s| matches!(s, super::Status::Waiting { .. }));
        if waiting > 0 {
            log(&format!("{waiting} more runs wait for earlier stages' winners"));
        }
        return Ok(summary);
    }
    let _lock = Lock::take(&runs_dir(&study))?;
    recover(dir, log)?;
    let started = Instant::now();
    let mut rerun = options.rerun.clone();
    loop {
        let study = load()?;
        let plan = plan(&study, &rerun, options.rerun_stale)?;
        summary.naive_starts = plan.runs.iter().filter(|r| !matches!(r.status, super::Status::Waiting { .. })).count();
        let Some(first) = plan.jobs.iter().find(|j| selected(&j.stage, &j.variant, options)) else {
            // Say why a selected stage or variant did not run.
            for r in &plan.runs {
                if let super::Status::Waiting { on } = &r.status
                    && (options.stage.is_some() || options.variant.is_some())
                    && selected(&r.stage, &r.variant, options)
                {
                    log(&format!(
                        "{}/{} waits for the winner of stage `{on}`: run that stage first",
                        r.stage, r.variant
                    ));
                    break;
                }
            }
            break;
        };
        let stage = first.stage.clone();
        let jobs: Vec<&Job> =
            plan.jobs.iter().filter(|j| j.stage == stage && selected(&j.stage, &j.variant, options)).collect();
        let total = plan.count(|s| matches!(s, super::Status::Pending | super::Status::Waiting { .. }));
        let number = study.stage_index(&stage).map_or(0, |i| i + 1);
        let planned = Instant::now();
        let mut to_go = total;
        for job in jobs {
            let left = plan
                .estimate_seconds
                .map_or(String::new(), |s| format!(", about {} left", clock(s - planned.elapsed().as_secs_f64())));
            log(&format!(
                "[stage {number}/{}] {}/{} on {} ({to_go} runs to go, {} elapsed{left})",
                study.spec.stages.len(),
                job.stage,
                job.variant,
                job.profiles.join(", "),
                clock(started.elapsed().as_secs_f64())
            ));
            execute(&study, job, backend, interrupt, &mut summary, log)?;
            to_go = to_go.saturating_sub(job.profiles.len());
            rerun.remove(&format!("{}/{}", job.stage, job.variant));
            if interrupt.load(Ordering::SeqCst) {
                summary.interrupted = true;
                return Ok(summary);
            }
        }
    }
    Ok(summary)
}

/// `1:05:03`, `4:10`.
pub fn clock(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}
