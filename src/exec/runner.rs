//! The greedy search: run the pending variants of the first unsettled stage (several at once
//! when the backend has room), let the analysis pick its winner, plan again, until nothing is
//! pending. Each engine start is a new attempt folder (`runs/<stage>/<variant>/attempts/<n>/`)
//! with a manifest a profile; results are written durably; a killed runner's engines are
//! stopped on the next start, and its cluster jobs adopted.

use super::local::{self, Backend, EngineRecord, Event, Interrupt, Launch};
use super::plan::{Job, plan};
use crate::study::command::{self, HOST, Port};
use crate::study::outcome::{self, Output, judge_output};
use crate::study::{
    ATTEMPTS_DIR, ENGINE_LOG, FailureClass, MANIFEST_SUFFIX, Manifest, RUNS_DIR, RecordedFailure, RunState, Study,
    VariantRef,
};
use anyhow::{Context, bail};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The runner's lock file in `runs/`, locked with `flock` while a runner works on the study.
const LOCK: &str = ".perflab-run.lock";
/// The running engine's record in `runs/`: its identity, to stop it after a crash. An engine in
/// the n-th slot of a parallel run (n > 0) has `.engine-<n>.json`.
const ENGINE_RECORD: &str = ".engine.json";

/// The engine record of a slot.
fn engine_record(runs: &Path, slot: usize) -> PathBuf {
    if slot == 0 { runs.join(ENGINE_RECORD) } else { runs.join(format!(".engine-{slot}.json")) }
}

#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Only this stage.
    pub stage: Option<String>,
    /// Only this variant (`stage/variant`, or a variant id of --stage).
    pub variant: Option<String>,
    /// Measure these `stage/variant` again even when done.
    pub rerun: BTreeSet<VariantRef>,
    /// Measure stale runs again.
    pub rerun_stale: bool,
    /// Print the commands instead of running them.
    pub dry_run: bool,
    /// At most this many engine starts at once (`--jobs`); else the backend's capacity.
    pub jobs: Option<usize>,
    /// `--until-confident`: measure the best variant and the base of a stage that cannot tell
    /// them apart again, within this budget.
    pub until_confident: Option<Budget>,
}

/// What `--until-confident` may spend on measurements the study does not ask for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Budget {
    /// Benchmark runs (failed ones included).
    Runs(usize),
    /// Wall time of the whole `perflab run`: no measurement is added after it.
    Time(Duration),
}

impl std::str::FromStr for Budget {
    type Err = String;

    /// `20` (runs), `90s`, `30m`, `2h`, `1.5h`.
    fn from_str(text: &str) -> Result<Budget, String> {
        let text = text.trim();
        if let Ok(n) = text.parse::<usize>() {
            return Ok(Budget::Runs(n));
        }
        let unit = text.chars().last().unwrap_or(' ');
        let scale = match unit {
            's' => 1.0,
            'm' => 60.0,
            'h' => 3600.0,
            _ => return Err(format!("`{text}` is not a budget: a number of runs (20) or a time (90s, 30m, 2h)")),
        };
        match text[..text.len() - 1].parse::<f64>() {
            Ok(x) if x.is_finite() && x >= 0.0 && x * scale < 1e9 => {
                Ok(Budget::Time(Duration::from_secs_f64(x * scale)))
            }
            _ => Err(format!("`{text}` is not a budget: a number of runs (20) or a time (90s, 30m, 2h)")),
        }
    }
}

/// What `--until-confident` spent in runs that did not finish (interrupted, stopped by an
/// error, left runs pending), in `runs/`: the next run's budget goes on from it. A run that
/// finishes removes it.
const SPENT: &str = ".until-confident.json";

/// The contents of [`SPENT`].
#[derive(Debug, Clone, Copy, Default, serde::Serialize, serde::Deserialize)]
struct Spent {
    /// Benchmark runs added (failed ones included).
    runs: usize,
    /// Wall time of those runs, seconds.
    seconds: f64,
}

impl Spent {
    /// What the study's earlier runs spent; nothing when no record is there. A record that
    /// cannot be read is an error naming it: starting the budget again would overspend it.
    fn read(runs: &Path) -> anyhow::Result<Spent> {
        let path = runs.join(SPENT);
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text).with_context(|| {
                format!(
                    "'{}' is not a record of what `--until-confident` spent: remove it to start the budget again",
                    path.display()
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Spent::default()),
            Err(e) => Err(e).with_context(|| format!("cannot read '{}'", path.display())),
        }
    }

    fn write(&self, runs: &Path) -> anyhow::Result<()> {
        let path = runs.join(SPENT);
        crate::durable::write(&path, &serde_json::to_vec_pretty(self)?)
            .with_context(|| format!("cannot write '{}'", path.display()))
    }
}

/// What `--until-confident` did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Confidence {
    /// Benchmark runs it added (failed ones included).
    pub added_runs: usize,
    /// Measurements on the target profile of every variant that was measured, as they stand.
    pub spent: usize,
    /// The same if every such variant had been measured as often as the most measured one.
    pub fixed: usize,
    /// That most measured variant's count.
    pub most: usize,
    /// Stages that still cannot tell their best variant from their base.
    pub undecided: Vec<String>,
    /// The budget ran out.
    pub budget_spent: bool,
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
    /// Configurations (`stage/variant`) not started again in this run because their last start
    /// in it added no measurement.
    pub not_retried: Vec<String>,
    /// Configurations (`stage/variant`) whose job the cluster ended for a reason of its own, with
    /// how: their unmeasured runs stay pending, and they are not submitted again in this run.
    pub cluster_ended: Vec<(String, String)>,
    /// What `--until-confident` added, when asked.
    pub confidence: Option<Confidence>,
}

fn runs_dir(study: &Study) -> PathBuf {
    study.dir.join(RUNS_DIR)
}

/// Stops an engine a killed runner left behind (only when its process id still names the same
/// process: same start time, same command line), drops half-written files, and marks runs that
/// were in progress as interrupted.
fn recover(dir: &Path, cluster: bool, log: &mut dyn FnMut(Event)) -> anyhow::Result<()> {
    let runs = dir.join(RUNS_DIR);
    let mut records: Vec<PathBuf> = match std::fs::read_dir(&runs) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(".engine") && n.ends_with(".json"))
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    records.sort();
    for record in records {
        let Ok(text) = std::fs::read_to_string(&record) else { continue };
        match serde_json::from_str::<EngineRecord>(&text) {
            Ok(r) => stop_leftover(&r, log),
            Err(why) => damaged_record(&record, &text, &why, log)?,
        }
        std::fs::remove_file(&record).with_context(|| format!("cannot remove '{}'", record.display()))?;
    }
    if !runs.is_dir() {
        return Ok(());
    }
    // A cluster job a killed runner submitted may still be queued or running: its attempt is
    // left as it is for the cluster backend to adopt. Another backend cannot follow it.
    let mut jobs = BTreeSet::new();
    for entry in walkdir::WalkDir::new(&runs) {
        let entry = entry?;
        if entry.file_name() == super::slurm::JOB_RECORD
            && let Some(attempt) = entry.path().parent()
        {
            if cluster {
                jobs.insert(attempt.to_path_buf());
            } else {
                // Running it here as well would measure it twice (beside the job, on a machine
                // that may be the cluster's) and throw away what the job measures.
                let job = super::slurm::JobRecord::read(entry.path()).map(|r| r.id).unwrap_or_default();
                bail!(
                    "Slurm job {job} of an earlier run ('{}') may still be measuring this study: `perflab run --backend slurm` follows it; to run here instead, `scancel {job}` and remove '{}'",
                    attempt.display(),
                    entry.path().display()
                );
            }
        }
    }
    for entry in walkdir::WalkDir::new(&runs).into_iter().filter_entry(|e| !jobs.contains(e.path())) {
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

/// Stops what is left of an engine a killed runner recorded: the engine's process group, or the
/// workers of its group that outlived it, before anything else is started on its GPUs.
fn stop_leftover(r: &EngineRecord, log: &mut dyn FnMut(Event)) {
    let pid = r.process.pid;
    let grace = Duration::from_secs(10);
    let stopped = match r.leftover() {
        local::Leftover::Engine => {
            let command = &r.process.command;
            log(Event::Step(&format!(
                "stopping the engine (process group {pid}, `{command}`) a previous run left behind"
            )));
            local::stop_group(pid, None, grace, None)
        }
        local::Leftover::Workers(workers) => {
            let ids: Vec<String> = workers.iter().map(u32::to_string).collect();
            let (which, verb) = if ids.len() == 1 { ("process", "runs") } else { ("processes", "run") };
            log(Event::Step(&format!(
                "the engine a previous run left behind (process {pid}) has ended, but {which} {} of its group still {verb}; stopping them",
                ids.join(", ")
            )));
            // Workers without their engine serve nobody: they get the short grace.
            local::stop_group(pid, None, local::LOADING_GRACE, None)
        }
        local::Leftover::Nothing => {
            log(Event::Step(&format!("the engine a previous run left behind (process {pid}) has ended")));
            return;
        }
        local::Leftover::Other => {
            log(Event::Step(&format!(
                "the engine a previous run left behind (process {pid}) has ended; process {pid} is another program now and is left alone"
            )));
            return;
        }
    };
    if let Some(line) = stopped.describe(pid) {
        log(Event::Step(&line));
    }
}

/// An engine record that cannot be read. When the process id it shows (if any) has ended with
/// its whole group, the record is dropped; otherwise nothing is started, since an engine that
/// may still hold the GPUs would make the next start fail for a reason not its own.
fn damaged_record(path: &Path, text: &str, why: &serde_json::Error, log: &mut dyn FnMut(Event)) -> anyhow::Result<()> {
    let at = path.display();
    match local::damaged_record_pid(text) {
        Some(pid) if !local::process_or_group_runs(pid) => {
            log(Event::Step(&format!("'{at}' is damaged ({why}); process {pid}, which it names, has ended")));
            Ok(())
        }
        Some(pid) => bail!(
            "'{at}' is damaged ({why}), so perflab cannot tell whether process {pid}, which it names, is the engine an earlier run started, and stops nothing: see what runs in its group (`pgrep -a -g {pid}`), stop it if it is that engine (`kill -- -{pid}`), then remove '{at}' and run again"
        ),
        None => bail!(
            "'{at}' is damaged ({why}) and names no process, so perflab cannot tell which engine an earlier run left running, and stops nothing: look for one (`ps -eo pid,pgid,args`), stop it, then remove '{at}' and run again"
        ),
    }
}

/// Holds the study's run lock (an exclusive `flock` the system drops when the process ends,
/// however it ends); released when dropped.
struct Lock(#[allow(dead_code)] std::fs::File);

impl Lock {
    fn take(runs: &Path) -> anyhow::Result<Lock> {
        std::fs::create_dir_all(runs).with_context(|| format!("cannot create '{}'", runs.display()))?;
        let path = runs.join(LOCK);
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            bail!(
                "'{}' is a symbolic link; perflab never writes through one (remove it and run again)",
                path.display()
            );
        }
        match crate::durable::lock(&path).with_context(|| format!("cannot lock '{}'", path.display()))? {
            Ok(file) => Ok(Lock(file)),
            Err(crate::durable::Held(holder)) => {
                bail!("another perflab run (process {holder}) is running this study; its lock is '{}'", path.display())
            }
        }
    }
}

/// The next attempt folder of a variant: `attempts/<n>` after the highest there (not created).
fn next_attempt(variant_dir: &Path) -> anyhow::Result<PathBuf> {
    let attempts = variant_dir.join(ATTEMPTS_DIR);
    let last = match std::fs::read_dir(&attempts) {
        Ok(entries) => entries.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok()).max().unwrap_or(0),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
        Err(e) => return Err(e).with_context(|| format!("cannot read '{}'", attempts.display())),
    };
    let Some(next) = last.checked_add(1) else {
        bail!(
            "'{}' holds an attempt numbered {last}, the highest there can be; rename or remove that folder",
            attempts.display()
        );
    };
    Ok(attempts.join(next.to_string()))
}

/// The number of an attempt from its folder (`attempts/<n>`).
fn attempt_number(dir: &Path) -> u32 {
    dir.file_name().and_then(|n| n.to_str()).and_then(|n| n.parse().ok()).unwrap_or(0)
}

/// The port of an engine start, or why it cannot be known.
fn port_of(study: &Study, engine_id: &str, argv: &[String]) -> anyhow::Result<Port> {
    let engine = study.engine(engine_id).with_context(|| format!("no engine `{engine_id}`"))?;
    command::engine_port(argv, engine.ready_url.as_deref()).map_err(|why| {
        let at = study.diag_at(&engine.command, format!("engine `{engine_id}`: {why}"));
        anyhow::anyhow!("{at}")
    })
}

fn launch(study: &Study, job: &Job, dir: &Path, slot: &Slot) -> anyhow::Result<Launch> {
    let engine = study.engine(&job.config.engine).with_context(|| format!("no engine `{}`", job.config.engine))?;
    let mut benchmarks = Vec::new();
    let mut curves = Vec::new();
    for p in &job.profiles {
        let profile = study.profile(p).with_context(|| format!("no profile `{p}`"))?;
        if let Some((_, load)) = study.curve(p) {
            curves.push(curve_bench(study, job, profile, load, attempt_number(dir))?);
            continue;
        }
        let argv = command::bench_argv(study, &job.config, profile)?;
        for k in 1..=job.measurements(p) {
            let out = crate::durable::temporary(&dir.join(crate::study::result_file(p, k)));
            benchmarks.push((p.clone(), argv.clone(), out));
        }
    }
    let mut patterns: Vec<(FailureClass, regex::Regex)> = study
        .spec
        .failure_patterns
        .iter()
        .filter_map(|p| regex::Regex::new(p.regex.get_ref()).ok().map(|r| (p.class, r)))
        .collect();
    patterns.extend(outcome::builtin_patterns());
    let ready_url =
        engine.ready_url.clone().unwrap_or_else(|| "http://{host}:{port}/health".to_string()).replace("{host}", HOST);
    let devices = (!slot.devices.is_empty()).then(|| {
        let var = engine.devices_env.clone().unwrap_or_else(|| "CUDA_VISIBLE_DEVICES".to_string());
        (var, slot.devices.join(","))
    });
    Ok(Launch {
        job: job.clone(),
        dir: dir.to_path_buf(),
        devices,
        ready_url,
        start_timeout: Duration::from_secs_f64(engine.start_timeout.max(0.0)),
        stop_grace: Duration::from_secs_f64(engine.stop_grace.max(0.0)),
        benchmarks,
        port: port_of(study, &job.config.engine, &job.argv)?,
        log: dir.join(ENGINE_LOG),
        record: engine_record(&runs_dir(study), slot.index),
        patterns,
        curves,
    })
}

/// A load curve to measure in this start: it goes on with the configuration's newest search
/// when that one has not finished (an interrupted search resumes), unless the run starts anew;
/// otherwise this start begins a search of its own (with `repeats`, each start searches anew).
fn curve_bench(
    study: &Study,
    job: &Job,
    profile: &crate::study::Profile,
    load: &crate::study::curve::LoadSpec,
    attempt: u32,
) -> anyhow::Result<local::CurveBench> {
    let id = profile.id.get_ref();
    let unfinished = match job.adds_to.contains(id) {
        true => study.current_search(&job.stage, &job.variant, id, &job.config)?.unfinished,
        false => None,
    };
    let (known, search) = match unfinished {
        Some(s) => (s.points.iter().map(|p| p.probe()).collect(), s.id),
        None => (Vec::new(), Some(attempt)),
    };
    Ok(local::CurveBench {
        profile: id.clone(),
        argv: command::curve_bench_argv(study, &job.config, profile, load.axis)?,
        loads: load.loads(),
        slo: study.slo(id),
        expected: profile.total_requests,
        known,
        search,
    })
}

fn manifest(study: &Study, job: &Job, profile: &str, bench: &[String], started_at: &str) -> Manifest {
    let version = study.engine(&job.config.engine).map(|e| e.version.clone()).unwrap_or_default();
    let mut m =
        Manifest::start(&job.config.engine, &version, job.argv.clone(), job.env.clone(), bench.to_vec(), started_at);
    m.dataset_fingerprint = study.dataset_fingerprint(profile);
    m.planned_starts = study.designs.get(&job.stage).copied();
    m
}

/// Runs one engine start as a new attempt and records it: results moved into place durably,
/// a manifest a profile. A failure of the engine is recorded, never returned: only a problem of
/// perflab's own (a file it cannot write) stops the study.
fn execute(
    study: &Study,
    job: &Job,
    backend: &dyn Backend,
    interrupt: &Interrupt,
    slot: &Slot,
    log: &mut dyn FnMut(Event),
) -> anyhow::Result<Summary> {
    let mut summary = Summary::default();
    let variant_dir = runs_dir(study).join(&job.stage).join(&job.variant);
    // A cluster job a killed runner submitted for this configuration is followed, not repeated.
    let adopted = backend.adoptable(&variant_dir, job);
    let dir = match &adopted {
        Some(dir) => dir.clone(),
        None => next_attempt(&variant_dir)?,
    };
    let launch = launch(study, job, &dir, slot)?;
    if adopted.is_none() {
        std::fs::create_dir_all(&dir).with_context(|| format!("cannot create '{}'", dir.display()))?;
        let started_at = local::now();
        for (profile, bench, _) in &launch.benchmarks {
            manifest(study, job, profile, bench, &started_at)
                .write(&dir.join(format!("{profile}{MANIFEST_SUFFIX}")))?;
        }
    }
    let name = job.reference().to_string();
    let report = backend.execute(&launch, interrupt, &mut |event| match event {
        Event::Step(what) => log(Event::Step(&format!("{name}: {what}"))),
        Event::Waiting { elapsed, timeout, last_line, .. } => {
            let config = if slot.named { name.as_str() } else { "" };
            log(Event::Waiting { config, elapsed, timeout, last_line })
        }
    });
    nothing_to_record(&report, &dir, &name)?;
    summary.engine_starts += 1;
    let start =
        Start { study, job, launch: &launch, report: &report, dir: &dir, name: &name, followed: adopted.is_some() };
    for measured in start.measured() {
        start.record(&measured, &mut summary, log)?;
    }
    if let Some(end) = &report.cluster_end {
        log(Event::Step(&format!(
            "{name}: {end}: the cluster's doing, not the configuration's; what it did not measure stays pending"
        )));
        summary.cluster_ended.push((name.clone(), end.clone()));
    } else {
        summary.interrupted |= report.interrupted;
    }
    if !report.job_still_queued {
        backend.finished(&dir);
    }
    Ok(summary)
}

/// Stops the run, leaving no trace of the attempt, when the start says nothing about the
/// configuration: the backend refused it before anything ran, or the disk is full.
fn nothing_to_record(report: &local::Report, dir: &Path, name: &str) -> anyhow::Result<()> {
    if let Some(why) = &report.refused {
        // Nothing ran: the run stops rather than record a failure the configuration did not have.
        let _ = std::fs::remove_dir_all(dir);
        bail!("{name}: {why}; nothing was recorded, and `perflab run` starts it again once that is fixed");
    }
    let failed = report.start_failure.is_some() || report.benchmarks.iter().any(|b| b.failure.is_some());
    if failed && disk_full(dir) {
        // A full disk fails engines and benchmarks alike (a log or an output that cannot be
        // written): that says nothing about the configuration.
        let _ = std::fs::remove_dir_all(dir);
        bail!(
            "{name}: the disk that holds '{}' is full, and the start failed; nothing was recorded: free some space and run again",
            dir.display()
        );
    }
    Ok(())
}

/// One engine start that ran, to be recorded.
struct Start<'a> {
    study: &'a Study,
    job: &'a Job,
    launch: &'a local::Launch,
    report: &'a local::Report,
    dir: &'a Path,
    name: &'a str,
    /// A cluster job a killed runner had submitted, followed to its end.
    followed: bool,
}

/// A run one start measured: its profile (or curve point), its measurements (their place in
/// the report, their output file) and its benchmark command.
struct Measured {
    profile: String,
    entries: Vec<(usize, PathBuf)>,
    bench: Vec<String>,
}

/// What a run's measurements gave: the outputs that are results, the first failure (and
/// whether its output is kept as evidence), whether Ctrl-C cut one short, their durations.
#[derive(Default)]
struct Judged<'a> {
    kept: Vec<(&'a PathBuf, outcome::Completion)>,
    first_failure: Option<(FailureClass, String, bool)>,
    cut_short: bool,
    seconds: Vec<f64>,
}

impl Start<'_> {
    /// Every run this start measured, profiles first, then each point of a load curve (a run of
    /// its own, `<profile>@<load>`) in the order measured.
    fn measured(&self) -> Vec<Measured> {
        let (launch, dir) = (self.launch, self.dir);
        let mut work = Vec::new();
        for profile in self.job.profiles.iter().filter(|p| self.study.curve(p).is_none()) {
            // This profile's measurements: their place in the start's benchmarks, which the
            // report follows (it ends early when the engine died or the run was stopped).
            let entries: Vec<(usize, PathBuf)> = launch
                .benchmarks
                .iter()
                .enumerate()
                .filter(|(_, b)| b.0 == *profile)
                .enumerate()
                .map(|(k, (i, b))| {
                    // A followed job whose result an earlier runner already moved into place
                    // (it was killed before writing the manifest): the result stands where it is.
                    let placed = dir.join(crate::study::result_file(profile, k as u32 + 1));
                    let path = if self.followed && !b.2.exists() && placed.is_file() { placed } else { b.2.clone() };
                    (i, path)
                })
                .collect();
            let bench = entries.first().map(|(i, _)| launch.benchmarks[*i].1.clone()).unwrap_or_default();
            work.push(Measured { profile: profile.clone(), entries, bench });
        }
        // A point measured more than once (the boundary's confirmations) is one run whose
        // measurements are `<profile>@<load>.txt`, `.r2.txt`, ...
        let first = work.len();
        for (i, b) in self.report.benchmarks.iter().enumerate().skip(launch.benchmarks.len()) {
            let Some((curve, load)) = crate::study::curve::split_point(&b.profile) else { continue };
            let Some(c) = launch.curves.iter().find(|c| c.profile == curve) else { continue };
            match work[first..].iter_mut().find(|m| m.profile == b.profile) {
                Some(m) => {
                    let k = m.entries.len() as u32 + 1;
                    m.entries.push((i, c.output(dir, load, k)));
                }
                None => work.push(Measured {
                    profile: b.profile.clone(),
                    entries: vec![(i, c.output(dir, load, 1))],
                    bench: command::fill_load(&c.argv, load),
                }),
            }
        }
        // An engine that did not start measured no curve: the point each search wanted next
        // fails the way the start did (no verdict on its load; see `metric::load::next`).
        if self.report.start_failure.is_some() {
            for c in &launch.curves {
                let crate::metric::load::Next::Measure(load) = crate::metric::load::next(&c.loads, &c.known) else {
                    continue;
                };
                work.push(Measured {
                    profile: crate::study::curve::point_id(&c.profile, load),
                    // No benchmark of the report: the start's failure is the point's.
                    entries: vec![(usize::MAX, c.output(dir, load, 1))],
                    bench: command::fill_load(&c.argv, load),
                });
            }
        }
        work
    }

    /// The curve a point's run belongs to.
    fn curve_of(&self, profile: &str) -> Option<(&local::CurveBench, u64)> {
        let (curve, load) = crate::study::curve::split_point(profile)?;
        self.launch.curves.iter().find(|c| c.profile == curve).map(|c| (c, load))
    }

    /// A run's manifest, with what the start reported.
    fn manifest(&self, run: &Measured) -> Manifest {
        let report = self.report;
        let mut m = manifest(self.study, self.job, &run.profile, &run.bench, &report.started_at);
        m.engine_pid = report.pid;
        m.port = report.port;
        m.engine_ready_at = report.ready_at.clone();
        m.engine_stopped_at = report.stopped_at.clone();
        m.start_seconds = report.start_seconds;
        m.engine_exit_status = report.engine_exit;
        m.log_tail = report.log_tail.clone();
        m.job_id = report.job_id.clone();
        m.node = report.node.clone();
        m.devices = self.launch.devices.as_ref().map(|(_, v)| v.clone());
        // A curve's point joins the curve's earlier searches unless the run starts anew.
        let point_of = self.curve_of(&run.profile).map(|(c, _)| c);
        m.repeat = self.job.adds_to.contains(point_of.map_or(run.profile.as_str(), |c| c.profile.as_str()));
        m.search = point_of.and_then(|c| c.search);
        m.ended_at = Some(local::now());
        m.cluster_end = report.cluster_end.clone();
        m
    }

    /// Judges each measurement of a run by its benchmark's end and its output.
    fn judge<'r>(&self, run: &'r Measured, m: &mut Manifest, log: &mut dyn FnMut(Event)) -> Judged<'r> {
        let (report, name, profile) = (self.report, self.name, &run.profile);
        let expected = self.study.profile(profile).map_or(0, |p| p.total_requests);
        let min_completed = *self.study.spec.min_completed.get_ref();
        let mut judged = Judged::default();
        for (index, tmp) in &run.entries {
            let result = report.benchmarks.get(*index);
            // Stopped by Ctrl-C before it ended on its own: neither a result nor a failure.
            if report.interrupted && result.is_none_or(|b| b.failure.is_none() && b.exit_status.is_none()) {
                judged.cut_short = true;
                let _ = std::fs::remove_file(tmp);
                continue;
            }
            let mut keep_output = false;
            let failure = match result {
                None => Some(report.start_failure.clone().unwrap_or_else(|| match &report.died_during {
                    Some(p) => (FailureClass::Crash, format!("not run: the engine died during the benchmark on `{p}`")),
                    None => (FailureClass::BenchmarkFailure, "not run: the engine start ended before it".to_string()),
                })),
                Some(b) => {
                    m.exit_status = b.exit_status;
                    judged.seconds.push(b.seconds);
                    for warning in &b.warnings {
                        log(Event::Step(&format!("{name} on {profile}: {warning}")));
                        m.warnings.push(warning.trim_start_matches("warning: ").to_string());
                    }
                    // A benchmark that exits non-zero because too few requests succeeded (as
                    // `perflab bench` does when none did) still printed the result that says so.
                    match (b.failure.clone(), judge_output(tmp, expected, min_completed)) {
                        (None | Some((FailureClass::BenchmarkFailure, _)), Output::TooFew(message)) => {
                            keep_output = true;
                            Some((FailureClass::RequestsFailed, message))
                        }
                        (Some(failure), _) => Some(failure),
                        (None, Output::Result { completion }) => {
                            judged.kept.push((tmp, completion));
                            None
                        }
                        (None, Output::Unusable(message)) => Some((FailureClass::BenchmarkFailure, message)),
                    }
                }
            };
            if let Some((class, message)) = failure {
                log(Event::Step(&format!("{name} on {profile}: failed ({class}): {message}")));
                if judged.first_failure.is_none() && keep_output {
                    judged.first_failure = Some((class, message, true));
                } else {
                    let _ = std::fs::remove_file(tmp);
                    judged.first_failure.get_or_insert((class, message, false));
                }
            }
        }
        judged
    }

    /// Records one run: its results moved into place (or its failure with the output that
    /// shows it), its per-request records, its manifest.
    fn record(&self, run: &Measured, summary: &mut Summary, log: &mut dyn FnMut(Event)) -> anyhow::Result<()> {
        let (dir, profile) = (self.dir, &run.profile);
        let mut m = self.manifest(run);
        let judged = self.judge(run, &mut m, log);
        if !judged.seconds.is_empty() {
            m.benchmark_seconds = Some(judged.seconds.iter().sum::<f64>() / judged.seconds.len() as f64);
        }
        if !judged.kept.is_empty() {
            m.state = RunState::Done;
            summary.benchmark_runs += judged.kept.len();
            self.place(run, &judged.kept, m.benchmark_seconds.unwrap_or(0.0), log)?;
        } else if let Some((class, message, keep_output)) = judged.first_failure {
            m.state = RunState::Failed;
            m.failure = Some(RecordedFailure { class, message });
            summary.failed += 1;
            if keep_output {
                // The failed measurement's own output, kept as evidence of the failure.
                if let Some((_, tmp)) = run.entries.iter().find(|(_, t)| t.exists()) {
                    persist(tmp, &dir.join(format!("{profile}.txt")))?;
                }
            }
        } else if judged.cut_short {
            m.state = RunState::Interrupted;
        }
        // A curve point's per-request records stand beside each result they belong to, or go.
        if let Some((c, load)) = self.curve_of(profile) {
            let mut placed = 0;
            for (k, (_, tmp)) in run.entries.iter().enumerate() {
                let records = c.requests_output(dir, load, k as u32 + 1);
                if records.exists() && judged.kept.iter().any(|(t, _)| *t == tmp) {
                    placed += 1;
                    let result = dir.join(crate::study::result_file(profile, placed));
                    persist(&records, &crate::study::curve::requests_file(&result))?;
                } else {
                    let _ = std::fs::remove_file(&records);
                }
            }
        }
        Ok(m.write(&dir.join(format!("{profile}{MANIFEST_SUFFIX}")))?)
    }

    /// Moves the measurements that succeeded into place, in order: `<profile>.txt`,
    /// `<profile>.r2.txt`, ...; a failed measurement's output is evidence only when nothing
    /// succeeded, so it goes.
    fn place(
        &self,
        run: &Measured,
        kept: &[(&PathBuf, outcome::Completion)],
        seconds: f64,
        log: &mut dyn FnMut(Event),
    ) -> anyhow::Result<()> {
        let (name, profile, entries) = (self.name, &run.profile, &run.entries);
        let mut placed = Vec::new();
        for (k, (tmp, completion)) in kept.iter().enumerate() {
            let target = self.dir.join(crate::study::result_file(profile, k as u32 + 1));
            // A followed job's result that a killed runner already moved into place stays.
            if *tmp != &target {
                persist(tmp, &target)?;
            }
            placed.push(target);
            let lost = if completion.all() {
                String::new()
            } else {
                format!(" ({} of {} requests completed)", completion.count(), completion.expected)
            };
            let which = if entries.len() > 1 { format!(" ({} of {})", k + 1, entries.len()) } else { String::new() };
            log(Event::Step(&format!("{name} on {profile}{which}: done in {seconds:.1} s{lost}")));
        }
        for (_, tmp) in entries.iter().filter(|(_, t)| !placed.contains(t)) {
            let _ = std::fs::remove_file(tmp);
        }
        Ok(())
    }
}

/// Moves a finished output into place durably.
fn persist(from: &Path, to: &Path) -> anyhow::Result<()> {
    crate::durable::persist(from, to).with_context(|| format!("cannot write '{}'", to.display()))
}

/// Where one engine start runs: its slot (which engine record it keeps), its GPUs, and whether
/// its progress is named (several in flight).
#[derive(Debug, Clone, Default)]
struct Slot {
    index: usize,
    devices: Vec<String>,
    named: bool,
}

/// What the threads running engine starts tell the runner's thread.
enum Message {
    Step(String),
    Waiting { config: String, elapsed: Duration, timeout: Duration, last_line: String },
    Ended { slot: usize, result: anyhow::Result<Summary> },
}

impl Message {
    fn of(event: Event) -> Message {
        match event {
            Event::Step(text) => Message::Step(text.to_string()),
            Event::Waiting { config, elapsed, timeout, last_line } => {
                Message::Waiting { config: config.to_string(), elapsed, timeout, last_line: last_line.to_string() }
            }
        }
    }
}

impl Summary {
    fn add(&mut self, other: &Summary) {
        self.engine_starts += other.engine_starts;
        self.benchmark_runs += other.benchmark_runs;
        self.failed += other.failed;
        self.interrupted |= other.interrupted;
        self.cluster_ended.extend(other.cluster_ended.iter().cloned());
    }
}

/// Every declared share of GPUs fits the machine's, before anything starts.
fn check_shares(study: &Study, devices: usize) -> anyhow::Result<()> {
    if devices == 0 {
        return Ok(());
    }
    let too_many = |gpus: Option<u32>| gpus.is_some_and(|g| g as usize > devices);
    if let Some(engine) = study.spec.engines.iter().find(|e| too_many(e.gpus)) {
        let gpus = engine.gpus.unwrap_or(0);
        let why = format!("engine `{}` takes {gpus} GPUs; `[local]` declares {devices}", engine.id.get_ref());
        bail!("{}", study.diag_at(&engine.id, why));
    }
    let mut variants = study.spec.stages.iter().flat_map(|s| s.variants.iter().map(move |v| (s, v)));
    let own = |v: &crate::study::Variant| v.gpus.as_ref().map(|g| *g.get_ref());
    if let Some((stage, v)) = variants.find(|(_, v)| too_many(own(v))) {
        let (s, id, gpus) = (stage.id.get_ref(), v.id.get_ref(), own(v).unwrap_or(0));
        bail!("{}", study.diag_at(&v.id, format!("`{s}/{id}` takes {gpus} GPUs; `[local]` declares {devices}")));
    }
    Ok(())
}

/// Whether `--stage` and `--variant` select this variant.
fn selected(stage: &str, variant: &str, options: &RunOptions) -> bool {
    let stage_ok = options.stage.as_ref().is_none_or(|s| s == stage);
    let variant_ok = options.variant.as_ref().is_none_or(|v| v == variant || VariantRef::new(stage, variant) == *v);
    stage_ok && variant_ok
}

/// Runs a study until nothing is pending (or `interrupt` is set). Progress lines go to `log`.
pub fn run(
    dir: &Path,
    options: &RunOptions,
    backend: &dyn Backend,
    interrupt: &Interrupt,
    log: &mut dyn FnMut(Event),
) -> anyhow::Result<Summary> {
    let budget = options.until_confident;
    let load = || {
        let mut study = Study::load(dir).map_err(|d| anyhow::anyhow!("{d}"))?;
        if let Some(budget) = budget {
            plan_designs(&mut study, budget);
        }
        Ok::<Study, anyhow::Error>(study)
    };
    let study = load()?;
    if options.dry_run {
        dry_run(&study, options, log)?;
        return Ok(Summary::default());
    }
    check_selection(&study, options)?;
    let _lock = Lock::take(&runs_dir(&study))?;
    recover(dir, backend.follows_jobs(), &mut |e| log(e))?;
    super::plan::record_hand_placed(&study)?;
    check_shares(&study, backend.devices().len())?;
    let mut state = Rounds::new(&study, options)?;
    loop {
        let study = load()?;
        state.note_stalled(&study);
        let plan = super::plan::plan_with(&study, &state.rerun, options.rerun_stale, &state.more)?;
        state.summary.naive_starts =
            plan.runs.iter().filter(|r| !matches!(r.status, super::Status::Waiting { .. })).count();
        state.say_not_retried(&plan, log);
        let first = plan.jobs.iter().find(|j| state.runnable(j));
        if state.more_wanted(&study, first, log) {
            continue;
        }
        let Some(first) = first else {
            say_waiting(&plan, options, log);
            break;
        };
        // Every engine's address must be known before the first start, not hours into the study.
        if state.summary.engine_starts == 0 {
            for engine in &study.spec.engines {
                port_of(&study, engine.id.get_ref(), &command::split(engine.command.get_ref())?)?;
            }
        }
        let jobs = state.stage_jobs(&study, &plan, &first.stage);
        let total = plan.count(|s| matches!(s, super::Status::Pending | super::Status::Waiting { .. }));
        let header = state.header(&study, &plan, &first.stage);
        let done = dispatch(&study, &jobs, total, backend, options.jobs, interrupt, &header, log)?;
        state.after_stage(&study, &jobs, &done)?;
        if interrupt.requested() {
            state.summary.interrupted = true;
            break;
        }
    }
    let mut summary = state.summary;
    if let Some(mut c) = state.confidence {
        let study = load()?;
        let finished = !summary.interrupted && summary.not_retried.is_empty() && summary.cluster_ended.is_empty();
        if finished {
            let _ = std::fs::remove_file(runs_dir(&study).join(SPENT));
        }
        confidence_report(&study, &mut c);
        summary.confidence = Some(c);
    }
    Ok(summary)
}

/// `perflab run --dry-run`: the commands each pending start would run.
fn dry_run(study: &Study, options: &RunOptions, log: &mut dyn FnMut(Event)) -> anyhow::Result<()> {
    let plan = plan(study, &options.rerun, options.rerun_stale)?;
    for job in plan.jobs.iter().filter(|j| selected(&j.stage, &j.variant, options)) {
        let env: Vec<String> = job.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        log(Event::Step(&format!("{} on {}:", job.reference(), job.profiles.join(", "))));
        log(Event::Step(&format!(
            "  engine: {}{}",
            if env.is_empty() { String::new() } else { format!("{} ", env.join(" ")) },
            job.argv.join(" ")
        )));
        let engine = study.engine(&job.config.engine).context("engine")?;
        // The benchmark connects where the engine listens: a fixed port is shown as such.
        let port = match command::engine_port(&job.argv, engine.ready_url.as_deref()) {
            Ok(Port::Fixed(p)) => p.to_string(),
            Ok(Port::Pick) => "{port}".to_string(),
            Err(why) => {
                log(Event::Step(&format!("  warning: engine `{}`: {why}", job.config.engine)));
                "{port}".to_string()
            }
        };
        for p in &job.profiles {
            let profile = study.profile(p).context("profile")?;
            let argv = command::bench_argv(study, &job.config, profile)?;
            let argv: Vec<String> = argv.iter().map(|w| w.replace("{port}", &port)).collect();
            log(Event::Step(&format!("  benchmark: {}", argv.join(" "))));
        }
    }
    let waiting = plan.count(|s| matches!(s, super::Status::Waiting { .. }));
    if waiting > 0 {
        let (runs, verb) = if waiting == 1 { ("run", "waits") } else { ("runs", "wait") };
        log(Event::Step(&format!("{waiting} more {runs} {verb} for earlier stages' winners")));
    }
    Ok(())
}

/// Says why a selected stage or variant did not run.
fn say_waiting(plan: &super::Plan, options: &RunOptions, log: &mut dyn FnMut(Event)) {
    if options.stage.is_none() && options.variant.is_none() {
        return;
    }
    let waiting = plan.runs.iter().find_map(|r| match &r.status {
        super::Status::Waiting { on } if selected(&r.stage, &r.variant, options) => Some((r, on)),
        _ => None,
    });
    if let Some((r, on)) = waiting {
        log(Event::Step(&format!(
            "{}/{} waits for the winner of stage `{on}`: run that stage first",
            r.stage, r.variant
        )));
    }
}

/// What a run keeps from one stage's starts to the next.
struct Rounds<'o> {
    options: &'o RunOptions,
    summary: Summary,
    started: Instant,
    rerun: BTreeSet<VariantRef>,
    /// `--until-confident`: measurements wanted beyond the study's, by `stage/variant`.
    more: BTreeMap<String, u32>,
    confidence: Option<Confidence>,
    /// What earlier runs that did not finish spent of the budget.
    earlier: Spent,
    /// A configuration whose start in this run added no measurement (a repeat that failed, a
    /// result that does not show up on reload) is not started again in this run: every loop
    /// ends. `started_with` holds each one's measurements when it was last started.
    started_with: BTreeMap<String, usize>,
    stalled: BTreeSet<String>,
    /// Rounds of `--until-confident` so far: every other one starts its two contenders in the
    /// other order (A B, B A, A B, ...), so that a steady drift of the machine cancels.
    rounds: usize,
}

impl<'o> Rounds<'o> {
    fn new(study: &Study, options: &'o RunOptions) -> anyhow::Result<Rounds<'o>> {
        let mut confidence = options.until_confident.map(|_| Confidence::default());
        let earlier = if confidence.is_some() { Spent::read(&runs_dir(study))? } else { Spent::default() };
        if let Some(c) = confidence.as_mut() {
            c.added_runs = earlier.runs;
        }
        Ok(Rounds {
            options,
            summary: Summary::default(),
            started: Instant::now(),
            rerun: options.rerun.clone(),
            more: BTreeMap::new(),
            confidence,
            earlier,
            started_with: BTreeMap::new(),
            stalled: BTreeSet::new(),
            rounds: 0,
        })
    }

    fn spent_time(&self) -> Duration {
        self.started.elapsed() + Duration::from_secs_f64(self.earlier.seconds.max(0.0))
    }

    fn note_stalled(&mut self, study: &Study) {
        for (config, before) in &self.started_with {
            if measurements(study, config) <= *before {
                self.stalled.insert(config.clone());
            }
        }
    }

    fn runnable(&self, j: &Job) -> bool {
        selected(&j.stage, &j.variant, self.options) && !self.stalled.contains(j.reference().as_str())
    }

    fn say_not_retried(&mut self, plan: &super::Plan, log: &mut dyn FnMut(Event)) {
        for job in plan.jobs.iter().filter(|j| selected(&j.stage, &j.variant, self.options)) {
            let config = job.reference().to_string();
            let ended = self.summary.cluster_ended.iter().any(|(c, _)| *c == config);
            if self.stalled.contains(&config) && !ended && !self.summary.not_retried.contains(&config) {
                log(Event::Step(&format!(
                    "{config}: its last start in this run added no measurement, so it is not started again in this run; `perflab run` tries it again"
                )));
                self.summary.not_retried.push(config);
            }
        }
    }

    /// `--until-confident`: a stage is settled once it has nothing pending; before the next
    /// stage starts, one that cannot tell gets more measurements of its two contenders. True
    /// when it asked for more (the plan is made again).
    fn more_wanted(&mut self, study: &Study, first: Option<&Job>, log: &mut dyn FnMut(Event)) -> bool {
        let Some(budget) = self.options.until_confident else { return false };
        let before = first.map_or(study.spec.stages.len(), |j| {
            if j.after_search { study.spec.stages.len() } else { study.stage_index(&j.stage).unwrap_or(0) }
        });
        let spent_time = self.spent_time();
        let Some(spent) = self.confidence.as_mut() else { return false };
        let left = match budget {
            Budget::Runs(n) => n.saturating_sub(spent.added_runs),
            Budget::Time(t) => usize::from(spent_time < t) * usize::MAX,
        };
        let unclear = unclear_stage(study, before);
        if left == 0 {
            spent.budget_spent |= !self.more.is_empty() || unclear.is_some();
            self.more.clear();
            return false;
        }
        let Some(k) = unclear else { return false };
        let mut round = contenders(study, k);
        // A look adds one engine start to each side, in turn, so that drift cancels.
        let stage = study.spec.stages[k].id.get_ref();
        let per = start_size(study, stage);
        if left < start_cost(study, stage) * round.len() {
            spent.budget_spent = true;
            self.more.clear();
            round.clear();
        }
        let mut added = false;
        for (source, have) in round.iter() {
            let target = (*have + per) as u32;
            if self.more.get(source).is_none_or(|m| *m < target) {
                self.more.insert(source.clone(), target);
                added = true;
            }
        }
        if added {
            self.rounds += 1;
            log(Event::Step(&format!(
                "until confident: {} more for {}",
                runs_count(per),
                round.iter().map(|(s, _)| s.as_str()).collect::<Vec<_>>().join(" and ")
            )));
        }
        added
    }

    /// The starts of `stage` this round runs, in the order of the round.
    fn stage_jobs<'p>(&mut self, study: &Study, plan: &'p super::Plan, stage: &str) -> Vec<&'p Job> {
        let mut jobs: Vec<&Job> = plan.jobs.iter().filter(|j| j.stage == stage && self.runnable(j)).collect();
        if self.rounds % 2 == 1 && jobs.iter().all(|j| self.more.contains_key(j.reference().as_str())) {
            jobs.reverse();
        }
        for job in &jobs {
            let config = job.reference().to_string();
            self.started_with.insert(config.clone(), measurements(study, &config));
        }
        jobs
    }

    /// The line that introduces each start: where it is in the study, what is left.
    fn header<'a>(&self, study: &'a Study, plan: &'a super::Plan, stage: &str) -> impl Fn(&Job, usize) -> String + 'a {
        let number = study.stage_index(stage).map_or(0, |i| i + 1);
        let (planned, started) = (Instant::now(), self.started);
        move |job: &Job, to_go: usize| {
            let left = plan
                .estimate_seconds
                .map_or(String::new(), |s| format!(", about {} left", clock(s - planned.elapsed().as_secs_f64())));
            let step = if job.after_search {
                "[optimized configuration]".to_string()
            } else {
                format!("[stage {number}/{}]", study.spec.stages.len())
            };
            format!(
                "{step} {} on {} ({} to go, {} elapsed{left})",
                job.reference(),
                job.profiles.join(", "),
                runs_count(to_go),
                clock(started.elapsed().as_secs_f64())
            )
        }
    }

    /// Takes in what a stage's starts did.
    fn after_stage(&mut self, study: &Study, jobs: &[&Job], done: &Summary) -> anyhow::Result<()> {
        self.summary.add(done);
        // A job the cluster ended is not submitted again in this run: one it keeps ending would
        // otherwise be resubmitted for ever.
        self.stalled.extend(done.cluster_ended.iter().map(|(config, _)| config.clone()));
        let asked_more = jobs.iter().any(|j| self.more.contains_key(j.reference().as_str()));
        let spent_time = self.spent_time();
        if let Some(c) = self.confidence.as_mut() {
            if asked_more {
                c.added_runs += done.benchmark_runs + done.failed;
            }
            Spent { runs: c.added_runs, seconds: spent_time.as_secs_f64() }.write(&runs_dir(study))?;
        }
        for job in jobs {
            self.rerun.remove(&job.reference());
        }
        Ok(())
    }
}

/// Whether the file system that holds `dir` has less than 1 MiB left for this user.
fn disk_full(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(path) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else { return false };
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `path` is a NUL-terminated string and `stat` a buffer statvfs fills on success.
    if unsafe { libc::statvfs(path.as_ptr(), stat.as_mut_ptr()) } != 0 {
        return false;
    }
    // SAFETY: statvfs returned 0, so it filled `stat`.
    let stat = unsafe { stat.assume_init() };
    (stat.f_bavail as u128) * (stat.f_frsize as u128) < 1 << 20
}

/// The successful measurements configuration `stage/variant` has on disk, over its profiles and
/// attempts (a measurement taken again replaces the standing one but still counts here).
fn measurements(study: &Study, config: &str) -> usize {
    // A load curve's point that failed counts too: its search asks for it again in a new start,
    // and gives up on a load that failed twice, so the loop ends.
    let counts = |k: &crate::study::RunKey, a: &crate::study::Attempt| match a.succeeded() {
        true => 1 + a.repeats.len(),
        false => usize::from(crate::study::curve::split_point(&k.profile).is_some() && a.failure().is_some()),
    };
    study
        .attempts
        .iter()
        .filter(|(k, _)| k.config() == config)
        .flat_map(|(k, list)| list.iter().map(move |a| counts(k, a)))
        .sum()
}

/// `--stage` and `--variant` must name what the study has: a typo would otherwise run nothing
/// and say nothing.
fn check_selection(study: &Study, options: &RunOptions) -> anyhow::Result<()> {
    let stages: Vec<&str> = study.spec.stages.iter().map(|s| s.id.get_ref().as_str()).collect();
    if let Some(stage) = &options.stage
        && !stages.contains(&stage.as_str())
    {
        bail!("`--stage {stage}`: the study has no such stage (its stages: {})", stages.join(", "));
    }
    if let Some(variant) = &options.variant {
        let known = study.spec.stages.iter().any(|s| {
            s.variants.iter().any(|v| {
                let id = v.id.get_ref();
                *variant == format!("{}/{id}", s.id.get_ref())
                    || (options.stage.as_deref() == Some(s.id.get_ref().as_str()) && variant == id)
            })
        });
        if !known {
            bail!(
                "`--variant {variant}`: the study has no such variant (give `stage/variant`, or a variant id with `--stage`)"
            );
        }
    }
    Ok(())
}

/// The first stage before `before` whose runs cannot tell its best variant from its base: its
/// decision's interval reaches beyond the noise threshold, or (with a single engine start a
/// side) it has no interval yet.
fn unclear_stage(study: &Study, before: usize) -> Option<usize> {
    let chain = crate::analysis::resolve(study);
    chain.stages.iter().take(before).position(|s| {
        let single = |p: &crate::analysis::Point| p.sample.is_some_and(|x| x.n < 2);
        let without_interval = matches!(
            s.adoption,
            crate::analysis::Adoption::Adopted { interval: None, .. }
                | crate::analysis::Adoption::WithinNoise { interval: None, .. }
                | crate::analysis::Adoption::NotBetter { interval: None, .. }
                | crate::analysis::Adoption::BaseIsBest { .. }
        );
        let Some(c) = challenger(study, s) else { return false };
        // The design's last look has been taken: the stage stays as it is.
        let starts = c.point.sample.zip(s.base.sample).map_or(0, |(a, b)| a.n.min(b.n));
        if study.designs.get(&s.id).is_some_and(|most| starts >= *most as usize) {
            return false;
        }
        s.adoption.unclear() || (without_interval && (single(&c.point) || single(&s.base)))
    })
}

/// The variant a stage's decision compares with its base: the one its adoption names, or
/// (when the base measured best) the best of the others.
fn challenger<'a>(
    study: &Study,
    stage: &'a crate::analysis::StageOutcome,
) -> Option<&'a crate::analysis::VariantOutcome> {
    use crate::analysis::Adoption;
    match &stage.adoption {
        Adoption::Adopted { variant, .. }
        | Adoption::WithinNoise { variant, .. }
        | Adoption::NotBetter { variant, .. }
        | Adoption::CannotTell { variant, .. } => stage.variants.iter().find(|v| v.id == *variant),
        Adoption::BaseIsBest { .. } => {
            let base = stage.base.config.identity();
            let metric = study.metric(study.spec.objective.get_ref());
            let values =
                stage.variants.iter().map(|v| v.point.value.filter(|_| v.ranks() && v.point.config.identity() != base));
            crate::analysis::adoption::best(&metric, values).map(|i| &stage.variants[i])
        }
        _ => None,
    }
}

/// Engine starts a side may get beyond the study's own when `--until-confident` has a time
/// budget (a run budget says how many it pays for).
pub const TIME_BUDGET_STARTS: u32 = 20;

/// Measurements of one engine start that `--until-confident` adds to a run of `stage`: one with
/// `repeat_across_restarts`, else the stage's `repeats`.
fn start_size(study: &Study, stage: &str) -> usize {
    let target = study.spec.target_profile.get_ref();
    if study.one_a_start(target) { 1 } else { study.repeats_wanted(stage, target) as usize }
}

/// The benchmark runs one engine start of `--until-confident` may cost on the target profile:
/// its measurements, or a load curve's point budget (a start searches the curve anew).
fn start_cost(study: &Study, stage: &str) -> usize {
    let target = study.spec.target_profile.get_ref();
    match study.curve(target) {
        Some((_, load)) => load.loads().most_points().max(1),
        None => start_size(study, stage),
    }
}

/// The sequential design of each stage that has none recorded: the most engine starts a side,
/// the study's own and those the budget pays for (a look adds one to each of two sides).
fn plan_designs(study: &mut Study, budget: Budget) {
    let stages: Vec<String> = study.spec.stages.iter().map(|s| s.id.get_ref().clone()).collect();
    for stage in stages {
        let first = study.first_starts(&stage);
        let added = match budget {
            Budget::Runs(n) => (n / (2 * start_cost(study, &stage))) as u32,
            Budget::Time(_) => TIME_BUDGET_STARTS,
        };
        study.designs.entry(stage).or_insert(first + added);
    }
}

/// The runs of stage `k`'s two contenders, the variant its adoption could not tell and its
/// base, as `stage/variant` with their measurements so far that pass the single-run checks.
fn contenders(study: &Study, k: usize) -> Vec<(String, usize)> {
    let chain = crate::analysis::resolve(study);
    let Some(stage) = chain.stages.get(k) else { return Vec::new() };
    let challenger = challenger(study, stage);
    let mut out: Vec<(String, usize)> = Vec::new();
    for run in [challenger.and_then(|v| v.point.run.as_ref()), stage.base.run.as_ref()].into_iter().flatten() {
        let source = run.config().to_string();
        if !out.iter().any(|(s, _)| *s == source) {
            out.push((source, study.whole_count(run)));
        }
    }
    out
}

/// Fills what `--until-confident` spent against measuring every variant as often, and the
/// stages that still cannot tell.
fn confidence_report(study: &Study, c: &mut Confidence) {
    let chain = crate::analysis::resolve(study);
    let target = study.spec.target_profile.get_ref();
    let counts: Vec<usize> =
        study.runs.keys().filter(|k| k.profile == *target).map(|k| study.sample(k).len()).collect();
    c.spent = counts.iter().sum();
    c.most = counts.iter().copied().max().unwrap_or(0);
    c.fixed = counts.len() * c.most;
    c.undecided = chain.stages.iter().filter(|s| s.adoption.unclear()).map(|s| s.id.clone()).collect();
}

/// Runs a stage's engine starts, as many at once as `jobs` (else the backend's capacity), the
/// GPUs and fixed ports allow; returns when every one has ended. A problem of perflab's own
/// stops new starts and is returned once the running ones have ended.
#[allow(clippy::too_many_arguments)]
fn dispatch(
    study: &Study,
    jobs: &[&Job],
    total: usize,
    backend: &dyn Backend,
    limit: Option<usize>,
    interrupt: &Interrupt,
    header: &dyn Fn(&Job, usize) -> String,
    log: &mut dyn FnMut(Event),
) -> anyhow::Result<Summary> {
    let limit = limit.or(backend.capacity()).unwrap_or(usize::MAX).max(1);
    let mut slots =
        Slots { devices: backend.devices(), busy: vec![false; backend.devices().len()], taken: BTreeMap::new() };
    // Every share must fit the machine before anything starts.
    if let Some(job) = jobs.iter().find(|j| !slots.fits(j)) {
        bail!("`{}` takes {} GPUs; `[local]` declares {}", job.reference(), slots.share(job), slots.devices.len());
    }
    let mut summary = Summary::default();
    let mut queue: Vec<&Job> = jobs.to_vec();
    let mut to_go = total;
    let mut failure: Option<anyhow::Error> = None;
    let named = limit > 1 && jobs.len() > 1;
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::channel::<Message>();
        loop {
            let mut i = 0;
            while i < queue.len() && slots.taken.len() < limit && failure.is_none() && !interrupt.requested() {
                let job = queue[i];
                let Some((index, devices)) = slots.claim(job, fixed_port(study, job)) else {
                    i += 1;
                    continue;
                };
                queue.remove(i);
                let slot = Slot { index, devices, named };
                log(Event::Step(&slots.start_line(header(job, to_go), &slot)));
                to_go = to_go.saturating_sub(job.profiles.len());
                let tx = tx.clone();
                scope.spawn(move || {
                    let send = |m: Message| {
                        let _ = tx.send(m);
                    };
                    let result = execute(study, job, backend, interrupt, &slot, &mut |event| send(Message::of(event)));
                    send(Message::Ended { slot: slot.index, result });
                });
            }
            if slots.taken.is_empty() {
                break;
            }
            match rx.recv() {
                Ok(Message::Step(text)) => log(Event::Step(&text)),
                Ok(Message::Waiting { config, elapsed, timeout, last_line }) => {
                    log(Event::Waiting { config: &config, elapsed, timeout, last_line: &last_line })
                }
                Ok(Message::Ended { slot, result }) => {
                    slots.release(slot);
                    match result {
                        Ok(done) => summary.add(&done),
                        Err(e) => {
                            failure.get_or_insert(e);
                        }
                    }
                }
                Err(_) => break,
            }
        }
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(summary),
    }
}

/// The port a job's engine always listens on, when its command fixes one.
fn fixed_port(study: &Study, job: &Job) -> Option<u16> {
    let engine = study.engine(&job.config.engine)?;
    match command::engine_port(&job.argv, engine.ready_url.as_deref()) {
        Ok(Port::Fixed(p)) => Some(p),
        _ => None,
    }
}

/// The starts in flight: slot → (configuration, its fixed port, the GPUs it holds).
struct Slots<'d> {
    devices: &'d [String],
    busy: Vec<bool>,
    taken: BTreeMap<usize, (String, Option<u16>, Vec<usize>)>,
}

impl Slots<'_> {
    /// The GPUs a job takes: its share, or the whole machine.
    fn share(&self, job: &Job) -> usize {
        job.gpus.map_or(self.devices.len(), |g| g as usize)
    }

    fn fits(&self, job: &Job) -> bool {
        self.devices.is_empty() || self.share(job) <= self.devices.len()
    }

    /// A slot and GPUs for a job, when enough GPUs are free and no start in flight listens on
    /// its fixed port.
    fn claim(&mut self, job: &Job, port: Option<u16>) -> Option<(usize, Vec<String>)> {
        let free: Vec<usize> = (0..self.devices.len()).filter(|d| !self.busy[*d]).collect();
        let need = if self.devices.is_empty() { 0 } else { self.share(job) };
        let port_free = port.is_none_or(|p| self.taken.values().all(|(_, q, _)| *q != Some(p)));
        if free.len() < need || !port_free {
            return None;
        }
        let held: Vec<usize> = free[..need].to_vec();
        for d in &held {
            self.busy[*d] = true;
        }
        let index = (0..).find(|n| !self.taken.contains_key(n)).unwrap_or(0);
        let devices = held.iter().map(|d| self.devices[*d].clone()).collect();
        self.taken.insert(index, (job.reference().to_string(), port, held));
        Some((index, devices))
    }

    fn release(&mut self, slot: usize) {
        if let Some((_, _, held)) = self.taken.remove(&slot) {
            for d in held {
                self.busy[d] = false;
            }
        }
    }

    /// The line that announces a start: its header, its GPUs, what else is in flight.
    fn start_line(&self, mut line: String, slot: &Slot) -> String {
        if !slot.devices.is_empty() {
            line.push_str(&format!(" on GPU {}", slot.devices.join(",")));
        }
        if self.taken.len() > 1 {
            let names: Vec<&str> = self.taken.values().map(|(n, _, _)| n.as_str()).collect();
            line.push_str(&format!("; in flight: {}", names.join(", ")));
        }
        line
    }
}

/// The line that says an engine is still loading: which configuration (when several are in
/// flight), for how long, out of how long, and the last line of its log (cut to fit a terminal
/// line).
pub fn waiting_line(config: &str, elapsed: Duration, timeout: Duration, last_line: &str) -> String {
    let head = format!(
        "  {}waiting for the engine to serve: {} of {}",
        if config.is_empty() { String::new() } else { format!("{config}: ") },
        clock(elapsed.as_secs_f64().floor()),
        clock(timeout.as_secs_f64())
    );
    if last_line.is_empty() {
        return format!("{head}; its log is empty");
    }
    let mut shown: String = last_line.chars().filter(|c| !c.is_control()).take(100).collect();
    if last_line.chars().count() > 100 {
        shown.push('…');
    }
    format!("{head}; its log: {shown}")
}

/// `1 run`, `3 runs`.
pub fn runs_count(n: usize) -> String {
    if n == 1 { "1 run".to_string() } else { format!("{n} runs") }
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
