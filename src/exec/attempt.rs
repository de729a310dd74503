//! One engine start, from the launch the backend gets to what is kept of it: the attempt folder,
//! the results moved into place durably, a manifest a benchmark, failures classified and
//! recorded, and a load curve's points judged as they come.

use super::backend::{self, Backend, CurveBench, Event, Interrupt, Launch, Report};
use super::confidence::Confidence;
use super::plan::Job;
use super::recover::engine_record;
use crate::study::command::{self, HOST, Port};
use crate::study::outcome::{self, BenchmarkEnd, Observed, judge_output};
use crate::study::{
    ATTEMPTS_DIR, ENGINE_LOG, FailureClass, MANIFEST_SUFFIX, Manifest, RUNS_DIR, RecordedFailure, RunState, Study,
};
use anyhow::{Context, bail};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The next attempt folder of a variant: `attempts/<n>` after the highest there (not created).
pub(super) fn next_attempt(variant_dir: &Path) -> anyhow::Result<PathBuf> {
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
pub(super) fn attempt_number(dir: &Path) -> u32 {
    dir.file_name().and_then(|n| n.to_str()).and_then(|n| n.parse().ok()).unwrap_or(0)
}

/// The port of an engine start, or why it cannot be known.
pub(super) fn port_of(study: &Study, engine_id: &str, argv: &[String]) -> anyhow::Result<Port> {
    let engine = study.engine(engine_id).with_context(|| format!("no engine `{engine_id}`"))?;
    command::engine_port(argv, engine.ready_url.as_deref()).map_err(|why| {
        let at = study.diag_at(&engine.command, format!("engine `{engine_id}`: {why}"));
        anyhow::anyhow!("{at}")
    })
}

pub(super) fn launch(study: &Study, job: &Job, dir: &Path, slot: &Slot) -> anyhow::Result<Launch> {
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
        bench_env: study.spec.benchmark.env.clone(),
        machine: None,
        version: None,
        host: study.spec.record.host,
        evaluation: super::evaluate::job_for(study, job)?,
    })
}

/// A load curve to measure in this start: it goes on with the configuration's newest search
/// when that one has not finished (an interrupted search resumes), unless the run starts anew;
/// otherwise this start begins a search of its own (with `repeats`, each start searches anew).
pub(super) fn curve_bench(
    study: &Study,
    job: &Job,
    profile: &crate::study::Profile,
    load: &crate::curve::LoadSpec,
    attempt: u32,
) -> anyhow::Result<CurveBench> {
    let id = profile.id.get_ref();
    let unfinished = match job.adds_to.contains(id) {
        true => study.current_search(&job.stage, &job.variant, id, &job.config)?.unfinished,
        false => None,
    };
    let (known, search) = match unfinished {
        Some(s) => (s.points.iter().map(|p| p.probe()).collect(), s.id),
        None => (Vec::new(), Some(attempt)),
    };
    Ok(CurveBench {
        profile: id.clone(),
        argv: command::curve_bench_argv(study, &job.config, profile, load.axis)?,
        loads: load.loads(),
        slo: study.slo(id),
        expected: profile.total_requests,
        known,
        search,
    })
}

pub(super) fn manifest(study: &Study, job: &Job, profile: &str, bench: &[String], started_at: &str) -> Manifest {
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
pub(super) fn execute(
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
    let mut launch = launch(study, job, &dir, slot)?;
    let name = job.reference().to_string();
    if adopted.is_none() {
        // The engine's version is checked before anything of the attempt is written.
        let devices = launch.devices.as_ref().map(|(_, d)| d.as_str());
        let (machine, check) =
            slot.recorder.prepare(study, job, devices).map_err(|why| anyhow::anyhow!("{name}: {why}"))?;
        launch.machine = Some(machine);
        launch.version = check;
        std::fs::create_dir_all(&dir).with_context(|| format!("cannot create '{}'", dir.display()))?;
        let started_at = backend::now();
        for (profile, bench, _) in &launch.benchmarks {
            let mut m = manifest(study, job, profile, bench, &started_at);
            super::machine::stamp(&mut m, &launch, None);
            write_manifest(&m, &dir, profile)?;
        }
    }
    let report = backend.execute(&launch, interrupt, &mut |event| match event {
        Event::Step(what) => log(Event::Step(&format!("{name}: {what}"))),
        Event::Waiting { elapsed, timeout, last_line, .. } => {
            let config = if slot.named { name.as_str() } else { "" };
            log(Event::Waiting { config, elapsed, timeout, last_line })
        }
    });
    nothing_to_record(&report, &dir, &name)?;
    summary.engine_starts += 1;
    if report.ready_at.is_some() {
        summary.served_starts += 1;
    }
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
pub(super) fn nothing_to_record(report: &Report, dir: &Path, name: &str) -> anyhow::Result<()> {
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
pub(super) struct Start<'a> {
    study: &'a Study,
    job: &'a Job,
    launch: &'a Launch,
    report: &'a Report,
    dir: &'a Path,
    name: &'a str,
    /// A cluster job a killed runner had submitted, followed to its end.
    followed: bool,
}

/// A run one start measured: its profile (or curve point), its measurements (their place in
/// the report, their output file) and its benchmark command.
pub(super) struct Measured {
    profile: String,
    entries: Vec<(usize, PathBuf)>,
    bench: Vec<String>,
}

/// What a run's measurements gave: the outputs that are results, the first failure (and
/// whether its output is kept as evidence), whether Ctrl-C cut one short, their durations.
#[derive(Default)]
pub(super) struct Judged<'a> {
    kept: Vec<(&'a PathBuf, outcome::Completion)>,
    first_failure: Option<(FailureClass, String, bool)>,
    /// Every measurement that failed, in the order taken.
    failures: Vec<RecordedFailure>,
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
            let Some((curve, load)) = crate::curve::split_point(&b.profile) else { continue };
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
        // fails the way the start did (no verdict on its load; see `curve::next`).
        if self.report.start_failure.is_some() {
            for c in &launch.curves {
                let crate::curve::Next::Measure(load) = crate::curve::next(&c.loads, &c.known) else {
                    continue;
                };
                work.push(Measured {
                    profile: crate::curve::point_id(&c.profile, load),
                    // No benchmark of the report: the start's failure is the point's.
                    entries: vec![(usize::MAX, c.output(dir, load, 1))],
                    bench: command::fill_load(&c.argv, load),
                });
            }
        }
        work
    }

    /// The curve a point's run belongs to.
    fn curve_of(&self, profile: &str) -> Option<(&CurveBench, u64)> {
        let (curve, load) = crate::curve::split_point(profile)?;
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
        m.ended_at = Some(backend::now());
        m.cluster_end = report.cluster_end.clone();
        super::machine::stamp(&mut m, self.launch, Some(report));
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
                    Some(p) => Observed::NotRunAfterDeath(p).failure(),
                    None => Observed::NotRun.failure(),
                })),
                Some(b) => {
                    m.exit_status = b.exit_status;
                    judged.seconds.push(b.seconds);
                    for warning in &b.warnings {
                        log(Event::Step(&format!("{name} on {profile}: {warning}")));
                        m.warnings.push(warning.trim_start_matches("warning: ").to_string());
                    }
                    match outcome::benchmark_end(b.failure.clone(), judge_output(tmp, expected, min_completed)) {
                        BenchmarkEnd::Result(completion) => {
                            judged.kept.push((tmp, completion));
                            None
                        }
                        BenchmarkEnd::Failed { failure, evidence } => {
                            keep_output = evidence;
                            Some(failure)
                        }
                    }
                }
            };
            if let Some((class, message)) = failure {
                log(Event::Step(&format!("{name} on {profile}: failed ({class}): {message}")));
                judged.failures.push(RecordedFailure { class, message: message.clone() });
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
            // A measurement that failed beside others that succeeded (a boundary's confirmation)
            // is kept on record: the search counted it, and a later start must see it too.
            summary.failed += judged.failures.len();
            m.failed_measurements = judged.failures;
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
        write_manifest(&m, dir, profile)
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

/// Writes a run's manifest beside its results, naming the file when it cannot.
fn write_manifest(m: &Manifest, dir: &Path, profile: &str) -> anyhow::Result<()> {
    let path = dir.join(format!("{profile}{MANIFEST_SUFFIX}"));
    m.write(&path).with_context(|| format!("cannot write '{}'", path.display()))
}

/// Moves a finished output into place durably.
pub(super) fn persist(from: &Path, to: &Path) -> anyhow::Result<()> {
    crate::durable::persist(from, to).with_context(|| format!("cannot write '{}'", to.display()))
}

/// What a run did.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub engine_starts: usize,
    /// The engine starts whose engine became ready and served (a start that never became
    /// ready, or was refused its port, is not one).
    pub served_starts: usize,
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
    /// The recorded failures that stand for their runs when the run ends.
    pub standing_failures: super::StandingFailures,
}

pub(super) fn runs_dir(study: &Study) -> PathBuf {
    study.dir.join(RUNS_DIR)
}

impl Summary {
    pub(super) fn add(&mut self, other: &Summary) {
        self.engine_starts += other.engine_starts;
        self.served_starts += other.served_starts;
        self.benchmark_runs += other.benchmark_runs;
        self.failed += other.failed;
        self.interrupted |= other.interrupted;
        self.cluster_ended.extend(other.cluster_ended.iter().cloned());
    }
}

/// Whether the file system that holds `dir` has less than 1 MiB left for this user.
pub(super) fn disk_full(dir: &Path) -> bool {
    let Ok(stat) = rustix::fs::statvfs(dir) else { return false };
    u128::from(stat.f_bavail) * u128::from(stat.f_frsize) < 1 << 20
}

/// Where one engine start runs: its slot (which engine record it keeps), its GPUs, and whether
/// its progress is named (several in flight).
#[derive(Debug, Clone, Default)]
pub(super) struct Slot {
    pub(super) index: usize,
    pub(super) devices: Vec<String>,
    pub(super) named: bool,
    /// What records the machine and checks the engine's version, shared by the runner's starts.
    pub(super) recorder: std::sync::Arc<super::machine::Recorder>,
}
