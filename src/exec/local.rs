//! Running engine starts as local processes. This is the only place that starts engines: a
//! backend for a cluster scheduler implements [`Backend`] and runs this one on its nodes
//! (see [`super::slurm`]).

use super::backend::{Backend, BenchResult, CurveBench, Event, Interrupt, Launch, Report, now};
use super::port::{
    Backoff, PortLease, ephemeral_range, fill_port, pick_port, port_free, port_refused, port_taken, ready,
    still_serving,
};
use super::process::{
    EngineRecord, LOADING_GRACE, ProcessIdentity, die_with_parent, listener_in_group, own_folder, program, stop_group,
    tail,
};
use crate::study::FailureClass;
use crate::study::command::Port;
use crate::study::outcome::{FAILURE_WINDOW, Observed};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Engine and benchmarks as processes on this machine. The engine runs in a process group of
/// its own (and the benchmarks in the same group), stopped with SIGTERM, then SIGKILL.
#[derive(Debug, Default)]
pub struct LocalBackend {
    /// The GPUs engines may be given (`[local]`); empty when the study declares none.
    pub devices: Vec<String>,
    /// Runs inside a cluster job: the engine and benchmarks die with the process that started
    /// them (a cluster kills that one), and a stop gives the engine at most [`JOB_GRACE`].
    pub in_job: bool,
}

/// The grace an engine gets when its cluster job is cancelled or times out: the scheduler kills
/// what is left of the job `KillWait` seconds later (30 by default, 5 on small clusters).
pub const JOB_GRACE: Duration = Duration::from_secs(3);

impl Backend for LocalBackend {
    fn capacity(&self) -> Option<usize> {
        // Serial unless the machine's GPUs are declared: then as many as fit.
        if self.devices.is_empty() { Some(1) } else { None }
    }

    fn devices(&self) -> &[String] {
        &self.devices
    }

    fn execute(&self, launch: &Launch, interrupt: &Interrupt, progress: &mut dyn FnMut(Event)) -> Report {
        let mut report = Report { started_at: now(), ..Report::default() };
        // A picked port stays this start's until the engine is stopped.
        let (port, _lease) = match engine_port(launch) {
            Ok(picked) => picked,
            Err(seen) => return start_failed(report, launch, seen),
        };
        report.port = Some(port);
        let argv = fill_port(&launch.job.argv, port);
        let mut engine = match self.spawn(launch, &argv) {
            Ok(engine) => engine,
            Err(seen) => return start_failed(report, launch, seen),
        };
        let pgid = engine.id();
        report.pid = Some(pgid);
        if let Some(process) = ProcessIdentity::of(pgid, &argv.join(" ")) {
            let record = EngineRecord { process, started_at: report.started_at.clone() };
            if let Ok(bytes) = serde_json::to_vec_pretty(&record) {
                let _ = crate::durable::write(&launch.record, &bytes);
            }
        }
        let ready_url = launch.ready_url.replace("{port}", &port.to_string());
        progress(Event::Step("starting the engine"));
        report = wait_ready(launch, &mut engine, port, &ready_url, interrupt, progress, report);
        if report.ready_at.is_some() {
            super::machine::check_served(launch, port, &mut report);
        }
        if report.ready_at.is_some() && !report.interrupted && report.refused.is_none() {
            let mut served = Served { pgid, child: &mut engine, ready_url: &ready_url };
            let bench = Bench { launch, port, interrupt, in_job: self.in_job };
            self.benchmarks(&bench, &mut served, progress, &mut report);
        }
        progress(Event::Step("stopping the engine"));
        // An engine that never served may ignore SIGTERM while it loads (vLLM does): it gets a
        // short grace, and so does one inside a cluster job that is being cancelled (Slurm kills
        // the job soon); the full one is for a serving engine to finish cleanly.
        let grace = if report.ready_at.is_none() {
            launch.stop_grace.min(LOADING_GRACE)
        } else if self.in_job && report.interrupted {
            launch.stop_grace.min(JOB_GRACE)
        } else {
            launch.stop_grace
        };
        let stopped = stop_group(pgid, Some(&mut engine), grace, Some(interrupt));
        if let Some(line) = stopped.describe(pgid) {
            progress(Event::Step(&line));
        }
        report.stopped_at = Some(now());
        if report.engine_exit.is_none() {
            report.engine_exit = engine.try_wait().ok().flatten().and_then(|s| s.code());
        }
        let _ = std::fs::remove_file(&launch.record);
        report.log_tail = tail(&launch.log, 20);
        report
    }
}

impl LocalBackend {
    /// Starts the engine's process group, its output into the start's log.
    fn spawn(&self, launch: &Launch, argv: &[String]) -> Result<std::process::Child, Observed<'static>> {
        if argv.is_empty() {
            return Err(Observed::NotStarted("the engine's command is empty".to_string()));
        }
        let log = std::fs::File::create(&launch.log)
            .map_err(|e| Observed::NotStarted(format!("cannot write {}: {e}", launch.log.display())))?;
        let mut command = Command::new(program(&argv[0]));
        command
            .args(&argv[1..])
            .envs(&launch.job.env)
            .envs(launch.devices.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(log.try_clone().map(Stdio::from).unwrap_or(Stdio::null()))
            .stderr(Stdio::from(log))
            .process_group(0);
        if self.in_job {
            die_with_parent(&mut command);
        }
        command.spawn().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied => {
                missing(&argv[0], "the engine's `command`", &e)
            }
            _ => Observed::NotStarted(format!("cannot start `{}`: {e}", argv[0])),
        })
    }

    /// The start's benchmarks, then its load curves, until the engine dies or the run is stopped.
    fn benchmarks(&self, bench: &Bench, served: &mut Served<'_>, progress: &mut dyn FnMut(Event), report: &mut Report) {
        let Bench { launch, port, interrupt, .. } = *bench;
        for (profile, bench_argv, out) in &launch.benchmarks {
            progress(Event::Step(&format!("benchmark on {profile}")));
            let argv = fill_port(bench_argv, port);
            let again = Served { pgid: served.pgid, child: &mut *served.child, ready_url: served.ready_url };
            let (result, died) = run_benchmark(&argv, out, again, bench);
            if let Some(why) = result.machine_fault.clone() {
                report.refused = Some(why);
                return;
            }
            report.interrupted |= interrupt.requested();
            report.benchmarks.push(BenchResult { profile: profile.clone(), ..result });
            if died {
                report.died_during = Some(profile.clone());
            }
            if died || report.interrupted {
                return;
            }
        }
        for curve in &launch.curves {
            if report.died_during.is_some() || report.interrupted {
                break;
            }
            run_curve(curve, bench, served, report, progress);
        }
        if let Some(eval) = launch.evaluation.as_ref().filter(|_| report.died_during.is_none() && !report.interrupted) {
            super::evaluate::run(eval, port, &launch.dir, progress);
        }
    }
}

/// A start that failed before its engine served: refused when what was seen is the machine's
/// fault (a program, a library, a device or a port that is not there, which says nothing of the
/// configuration), else every benchmark of the start fails the way the start did.
fn start_failed(mut report: Report, launch: &Launch, seen: Observed) -> Report {
    match seen.machines_fault() {
        Some(why) => {
            report.refused = Some(why);
            report
        }
        None => fail_all(report, launch, seen.failure()),
    }
}

/// Every benchmark of the start fails the way the start did.
fn fail_all(mut report: Report, launch: &Launch, failure: (FailureClass, String)) -> Report {
    report.benchmarks = launch
        .benchmarks
        .iter()
        .map(|(p, argv, _)| BenchResult {
            profile: p.clone(),
            command: argv.clone(),
            exit_status: None,
            seconds: 0.0,
            failure: Some(failure.clone()),
            warnings: Vec::new(),
            machine_fault: None,
        })
        .collect();
    report.start_failure = Some(failure);
    report
}

/// The port the engine listens on: its fixed one when nothing else answers there, or one
/// picked and held until the engine stops.
fn engine_port(launch: &Launch) -> Result<(u16, Option<PortLease>), Observed<'static>> {
    match launch.port {
        Port::Fixed(port) if port_taken(port) => Err(Observed::PortTaken(port)),
        Port::Fixed(port) => match port_refused(port) {
            Some(why) => Err(Observed::PortRefused { port: Some(port), why }),
            None => Ok((port, None)),
        },
        Port::Pick => match pick_port(port_free) {
            Some(lease) => Ok((lease.0, Some(lease))),
            None => {
                let (low, high) = ephemeral_range();
                Err(Observed::PortRefused {
                    port: None,
                    why: format!("no free port outside the ephemeral range {low}-{high}"),
                })
            }
        },
    }
}

/// Waits until the engine answers at `ready_url`, dies, takes too long or the run is stopped.
fn wait_ready(
    launch: &Launch,
    engine: &mut std::process::Child,
    port: u16,
    ready_url: &str,
    interrupt: &Interrupt,
    progress: &mut dyn FnMut(Event),
    mut report: Report,
) -> Report {
    let pgid = engine.id();
    let started = Instant::now();
    let mut told = Instant::now();
    // Set when the port answered but the listener was not the engine's.
    let mut foreign = false;
    let mut poll = Backoff::default();
    loop {
        if interrupt.requested() {
            report.interrupted = true;
            return report;
        }
        if let Ok(Some(status)) = engine.try_wait() {
            report.engine_exit = status.code();
            let log = tail(&launch.log, FAILURE_WINDOW);
            let seen = Observed::ExitedBeforeReady {
                log: &log,
                patterns: &launch.patterns,
                foreign: foreign.then_some(port),
                exit: report.engine_exit,
            };
            return start_failed(report, launch, seen);
        }
        if started.elapsed() > launch.start_timeout {
            let seen = Observed::NotReady { seconds: launch.start_timeout.as_secs_f64(), url: ready_url };
            return fail_all(report, launch, seen.failure());
        }
        // Ready only while the engine perflab started runs: an answer from a process that
        // took the port while the engine died is not the engine's.
        if ready(ready_url) && matches!(engine.try_wait(), Ok(None)) {
            if listener_in_group(port, pgid) == Some(false) {
                foreign = true;
            } else {
                report.ready_at = Some(now());
                report.start_seconds = Some(started.elapsed().as_secs_f64());
                return report;
            }
        }
        if told.elapsed() >= Duration::from_secs(1) {
            told = Instant::now();
            let last = tail(&launch.log, 1);
            let last_line = last.first().map_or("", |l| l.trim());
            progress(Event::Waiting {
                config: "",
                elapsed: started.elapsed(),
                timeout: launch.start_timeout,
                last_line,
            });
        }
        std::thread::sleep(poll.pause());
    }
}

/// Where a start's benchmarks run: its launch, the port its engine serves on, the run's Ctrl-C,
/// and whether the start runs inside a Slurm job (its children then die with it).
#[derive(Clone, Copy)]
struct Bench<'a> {
    launch: &'a Launch,
    port: u16,
    interrupt: &'a Interrupt,
    in_job: bool,
}

/// Measures a load curve point after point while the engine serves: the search picks each
/// load from the points before it, and stops on its own rule, when the engine dies or on Ctrl-C.
fn run_curve(
    curve: &CurveBench,
    bench: &Bench,
    served: &mut Served<'_>,
    report: &mut Report,
    progress: &mut dyn FnMut(Event),
) {
    let Bench { launch, port, interrupt, .. } = *bench;
    use crate::curve::{Next, next};
    let mut points = curve.known.clone();
    // Measurements of each load in this start: a confirmation measures a load again.
    let mut taken: std::collections::BTreeMap<u64, u32> = std::collections::BTreeMap::new();
    while let Next::Measure(load) = next(&curve.loads, &points) {
        let id = crate::curve::point_id(&curve.profile, load);
        let k = *taken.entry(load).and_modify(|k| *k += 1).or_insert(1);
        let again = if k > 1 { format!(" (measurement {k})") } else { String::new() };
        progress(Event::Step(&format!("benchmark on {} at load {load}{again}", curve.profile)));
        let words = crate::study::command::fill_load(&curve.argv, load);
        let out = curve.output(&launch.dir, load, k);
        let argv = crate::study::command::with_requests_file(
            fill_port(&words, port),
            &curve.requests_output(&launch.dir, load, k),
        );
        let again = Served { pgid: served.pgid, child: &mut *served.child, ready_url: served.ready_url };
        let (result, died) = run_benchmark(&argv, &out, again, bench);
        if let Some(why) = result.machine_fault.clone() {
            report.refused = Some(why);
            break;
        }
        let ended = result.failure.is_none() && result.exit_status.is_some();
        report.benchmarks.push(BenchResult { profile: id.clone(), ..result });
        report.interrupted |= interrupt.requested();
        if died {
            report.died_during = Some(id);
        }
        if died || report.interrupted {
            break;
        }
        let block = ended
            .then(|| std::fs::read_to_string(&out).ok())
            .flatten()
            .and_then(|text| crate::parse::parse_str(&text).ok())
            .and_then(|mut blocks| (!blocks.is_empty()).then(|| blocks.remove(0)));
        let verdict = crate::study::curve::judge_block(&curve.slo, curve.expected, block.as_ref());
        points.push(crate::study::curve::probe_of(load, &verdict, block.as_ref()));
    }
}

/// Removes a file when dropped.
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The engine a benchmark runs against: its process group, its process and where it answers
/// whether it serves.
struct Served<'a> {
    pgid: u32,
    child: &'a mut Child,
    ready_url: &'a str,
}

/// The failure of an engine that died during a benchmark (`how`: "exited (…)"), from its log.
fn died_during_benchmark(launch: &Launch, how: &str) -> (FailureClass, String) {
    let log = tail(&launch.log, FAILURE_WINDOW);
    Observed::DiedDuringBenchmark { how, log: &log, patterns: &launch.patterns }.failure()
}

/// Runs one benchmark; the flag is true when the engine died during it.
fn run_benchmark(argv: &[String], out: &Path, served: Served<'_>, bench: &Bench) -> (BenchResult, bool) {
    let Bench { launch, interrupt, in_job, .. } = *bench;
    let Served { pgid, child: engine, ready_url } = served;
    let mut result = BenchResult {
        profile: String::new(),
        command: argv.to_vec(),
        exit_status: None,
        seconds: 0.0,
        failure: None,
        warnings: Vec::new(),
        machine_fault: None,
    };
    let started = Instant::now();
    // Its standard error (progress bars, error summaries) goes to a file beside the output, so
    // that no pipe can fill up and stall it.
    let err_path = out.with_extension("stderr.tmp");
    let _cleanup = RemoveOnDrop(err_path.clone());
    let mut child = match spawn_benchmark(argv, &launch.bench_env, out, &err_path, pgid, in_job) {
        Ok(c) => c,
        Err(seen) => {
            result.machine_fault = seen.machines_fault();
            result.failure = Some(seen.failure());
            return (result, false);
        }
    };
    loop {
        if interrupt.requested() {
            let _ = child.kill();
            let _ = child.wait();
            return (result, false);
        }
        if let Ok(Some(status)) = engine.try_wait() {
            let _ = child.kill();
            let _ = child.wait();
            result.failure = Some(died_during_benchmark(launch, &format!("exited ({status})")));
            result.seconds = started.elapsed().as_secs_f64();
            return (result, true);
        }
        match child.try_wait() {
            Ok(Some(status)) => {
                result.exit_status = status.code();
                result.seconds = started.elapsed().as_secs_f64();
                let ended = Ended { status, argv, err_path: &err_path, ready_url, launch };
                return ended.judge(result, engine);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => {
                result.failure =
                    Some(Observed::BenchmarkBroke(format!("cannot wait for the benchmark: {e}")).failure());
                return (result, false);
            }
        }
    }
}

/// Starts a benchmark in the engine's process group, its output into `out` and its standard
/// error into `err_path`.
fn spawn_benchmark(
    argv: &[String],
    env: &std::collections::BTreeMap<String, String>,
    out: &Path,
    err_path: &Path,
    pgid: u32,
    in_job: bool,
) -> Result<Child, Observed<'static>> {
    let file = std::fs::File::create(out)
        .map_err(|e| Observed::BenchmarkBroke(format!("cannot write {}: {e}", out.display())))?;
    let err_file = std::fs::File::create(err_path).map(Stdio::from).unwrap_or(Stdio::null());
    let mut command = Command::new(program(&argv[0]));
    command
        .args(&argv[1..])
        .envs(env)
        .stdin(Stdio::null())
        .stdout(Stdio::from(file))
        .stderr(err_file)
        .process_group(pgid as i32);
    if in_job {
        die_with_parent(&mut command);
    }
    command.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied => {
            missing(&argv[0], "`benchmark.command`", &e)
        }
        _ => Observed::BenchmarkBroke(format!("cannot start `{}`: {e}", argv[0])),
    })
}

/// A program that could not be run at all, named in the study at `in_key`.
fn missing(program: &str, in_key: &'static str, e: &std::io::Error) -> Observed<'static> {
    Observed::ProgramMissing { program: program.to_string(), in_key, beside: own_folder(program), why: e.to_string() }
}

/// A benchmark that ended on its own.
struct Ended<'a> {
    status: std::process::ExitStatus,
    argv: &'a [String],
    err_path: &'a Path,
    ready_url: &'a str,
    launch: &'a Launch,
}

impl Ended<'_> {
    /// What its end says: its warnings, whether the engine died during it, its own failure.
    fn judge(&self, mut result: BenchResult, engine: &mut Child) -> (BenchResult, bool) {
        let (argv, status, ready_url) = (self.argv, self.status, self.ready_url);
        // `perflab bench` says on standard error what it did not believe, in one line.
        if crate::study::command::is_perflab_bench(argv) {
            let lines = tail(self.err_path, 20).into_iter();
            result.warnings = lines.filter(|l| l.starts_with("warning: ")).collect();
        }
        // A real engine can die faster than the benchmark's loop looks (its requests then fail
        // at once and the benchmark ends): one that no longer serves, or that has exited, died
        // during the benchmark, whatever the benchmark made of it.
        if !still_serving(ready_url, engine) {
            let exited = engine.try_wait().ok().flatten();
            let how = exited.map_or(format!("stopped answering {ready_url}"), |s| format!("exited ({s})"));
            result.failure = Some(died_during_benchmark(self.launch, &how));
            return (result, true);
        }
        if !status.success() {
            // The error line, or else the last line it printed.
            let lines = tail(self.err_path, 20);
            let line = lines
                .iter()
                .find(|l| l.to_ascii_lowercase().contains("error"))
                .or_else(|| lines.iter().rev().find(|l| !l.trim().is_empty()))
                .cloned()
                .unwrap_or_default();
            let message = format!("the benchmark exited with {status}: {}", line.trim());
            result.failure = Some(Observed::BenchmarkBroke(message).failure());
        }
        (result, false)
    }
}
