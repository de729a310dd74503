//! How a run ended, decided in one place: the failure class of what a backend saw go wrong
//! ([`Observed::failure`], which reads an engine's log with [`classify`]) or of the end state a
//! cluster gave its job ([`job_end`]), whether a benchmark's output is a result
//! ([`judge_output`]), and whether a result's requests all completed.

use super::FailureClass;
use crate::parse::Block;
use std::path::Path;

/// Patterns that tell why an engine failed, tried in order after the study's own.
pub fn builtin_patterns() -> Vec<(FailureClass, regex::Regex)> {
    [
        (
            FailureClass::Oom,
            r"(?i)out of memory|OutOfMemoryError|CUDA error: out of memory|\bOOM\b|larger than the available KV cache memory|no available memory for the cache blocks|insufficient memory",
        ),
        (
            FailureClass::Unsupported,
            r"(?i)not valid for this configuration|not supported|unsupported|unrecognized arguments|unexpected argument|invalid choice",
        ),
    ]
    .into_iter()
    .filter_map(|(c, r)| regex::Regex::new(r).ok().map(|r| (c, r)))
    .collect()
}

/// Lines of an engine's log that a failure is looked for in: real engines print the error far
/// above the end (vLLM: 60–95 lines, followed by tracebacks and shutdown warnings).
pub const FAILURE_WINDOW: usize = 400;

/// The class and line of the first pattern that matches the log, else `fallback` and the first
/// line that names an exception (`ValueError: ...`, the root cause of a Python traceback), else
/// the last line that speaks of an error, else the last line.
pub fn classify(
    log: &[String],
    patterns: &[(FailureClass, regex::Regex)],
    fallback: FailureClass,
) -> (FailureClass, String) {
    static EXCEPTION: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"\b[A-Z]\w*(Error|Exception): \S").expect("a valid pattern"));
    // A warning (vLLM: "Custom allreduce is not supported on more than two PCIe-only GPUs")
    // is printed by engines that then run fine: it never decides why one stopped.
    let warning = |l: &str| l.contains("WARNING") || l.contains(" WARN ") || l.starts_with("WARN ");
    for (class, re) in patterns {
        if let Some(line) = log.iter().find(|l| !warning(l) && re.is_match(l)) {
            return (*class, line.trim().to_string());
        }
    }
    // A warning that quotes an exception (vLLM's about open files does) is not the cause.
    let line = log
        .iter()
        .find(|l| EXCEPTION.is_match(l) && !l.contains("WARNING") && !l.contains("Warning"))
        .or_else(|| log.iter().rev().find(|l| l.to_ascii_lowercase().contains("error")))
        .or_else(|| log.iter().rev().find(|l| !l.trim().is_empty()));
    (fallback, line.map(|l| l.trim().to_string()).unwrap_or_default())
}

/// What a backend saw go wrong, as it saw it: [`Observed::failure`] turns it into the failure
/// class and the message a run records. The backends say what happened; only this decides what
/// it is called.
pub enum Observed<'a> {
    /// The engine was not started: its command is empty, its log cannot be written, its program
    /// cannot be run, or no port is free. Why.
    NotStarted(String),
    /// The engine's or the benchmark's program could not be run at all (not found, not
    /// executable): the machine's fault, not the configuration's ([`Observed::machines_fault`]).
    /// The program as the command names it, the study key that names it (`in_key`), the folder
    /// perflab looked beside when it is one of perflab's own, and why.
    ProgramMissing { program: String, in_key: &'static str, beside: Option<std::path::PathBuf>, why: String },
    /// Another server answered on the engine's port before it started. Which port.
    PortTaken(u16),
    /// The machine does not let the engine have a port: the fixed one cannot be bound here
    /// (`why`, e.g. permission denied), or no free port is left outside the ephemeral range
    /// (`port` is `None`). The machine's fault ([`Observed::machines_fault`]).
    PortRefused { port: Option<u16>, why: String },
    /// The engine exited before it served: the end of its log, the study's patterns, and its exit
    /// status. Another process answered on its port meanwhile when `foreign` names the port. When
    /// its program could not run here at all (a shared library or an interpreter missing, a
    /// program the shell did not find), that is the machine's fault ([`Observed::machines_fault`]).
    ExitedBeforeReady {
        log: &'a [String],
        patterns: &'a [(FailureClass, regex::Regex)],
        foreign: Option<u16>,
        exit: Option<i32>,
    },
    /// The engine did not serve within its start timeout: after how many seconds, and at what URL.
    NotReady { seconds: f64, url: &'a str },
    /// The engine exited or stopped answering (`how`) while a benchmark ran: the end of its log.
    DiedDuringBenchmark { how: &'a str, log: &'a [String], patterns: &'a [(FailureClass, regex::Regex)] },
    /// The benchmark could not be started or waited for, or it exited in error: what went wrong.
    BenchmarkBroke(String),
    /// The benchmark's result completed fewer requests than `min_completed` asks ([`Output::TooFew`]).
    TooFew(String),
    /// The benchmark's output holds no usable result ([`Output::Unusable`]).
    NoResult(String),
    /// A benchmark not run because the engine died during the one on `on`.
    NotRunAfterDeath(&'a str),
    /// A benchmark not run because its engine start ended before it.
    NotRun,
    /// A cluster job ran but left no report of its start: how it ended, and its output's last line.
    NoReport { ended: &'a str, last: &'a str },
}

impl Observed<'_> {
    /// What was seen when it says nothing of the configuration but something of the machine (a
    /// program, a shared library or an interpreter that is not there): the run records nothing
    /// and stops with this, and the next run tries again.
    pub fn machines_fault(&self) -> Option<String> {
        if let Observed::ExitedBeforeReady { log, exit, foreign: None, .. } = self {
            return cannot_run(log, *exit);
        }
        if let Observed::PortRefused { port, why } = self {
            return Some(match port {
                Some(port) => format!(
                    "port {port} cannot be bound on this machine ({why}): give the engine a port it may use, or leave `port` out so that perflab picks one"
                ),
                None => format!("{why} on this machine: stop what holds them, or give the engine a fixed `port`"),
            });
        }
        let Observed::ProgramMissing { program, in_key, beside, why } = self else { return None };
        let looked = match beside {
            _ if program.contains('/') => "at that path".to_string(),
            Some(dir) => format!("beside perflab in '{}' and on PATH", dir.display()),
            None => "on PATH".to_string(),
        };
        let fix = match program.as_str() {
            "perflab-engine" | "perflab" => "`cargo build --release` builds it beside perflab".to_string(),
            _ => format!("install it, or give its full path in {in_key}"),
        };
        Some(format!("cannot start `{program}` ({why}); perflab looked for it {looked}: {fix}"))
    }

    /// The failure class of what was seen, and the message that says it.
    pub fn failure(self) -> (FailureClass, String) {
        match self {
            Observed::NotStarted(why) => (FailureClass::StartFailure, why),
            Observed::PortRefused { port, why } => {
                let on = port.map_or(String::new(), |p| format!("port {p}: "));
                (FailureClass::StartFailure, format!("{on}{why}"))
            }
            Observed::ProgramMissing { program, why, .. } => {
                (FailureClass::StartFailure, format!("cannot start `{program}`: {why}"))
            }
            Observed::PortTaken(port) => (
                FailureClass::PortInUse,
                format!(
                    "port {port} already accepted connections before the engine started: another server listens there"
                ),
            ),
            Observed::ExitedBeforeReady { log, patterns, foreign, .. } => {
                let (class, line) = classify(log, patterns, FailureClass::StartFailure);
                match foreign {
                    Some(port) => (
                        FailureClass::PortInUse,
                        format!("another process took port {port} while the engine loaded: {line}"),
                    ),
                    None => (class, line),
                }
            }
            Observed::NotReady { seconds, url } => {
                (FailureClass::StartTimeout, format!("not ready after {seconds:.0} s ({url})"))
            }
            Observed::DiedDuringBenchmark { how, log, patterns } => {
                // Out of memory when the log says so; any other reason is a crash.
                let (class, line) = classify(log, patterns, FailureClass::Crash);
                let class = if class == FailureClass::Oom { class } else { FailureClass::Crash };
                (class, format!("the engine {how} during the benchmark: {line}"))
            }
            Observed::BenchmarkBroke(why) => (FailureClass::BenchmarkFailure, why),
            Observed::TooFew(message) => (FailureClass::RequestsFailed, message),
            Observed::NoResult(message) => (FailureClass::BenchmarkFailure, message),
            Observed::NotRunAfterDeath(on) => {
                (FailureClass::Crash, format!("not run: the engine died during the benchmark on `{on}`"))
            }
            Observed::NotRun => {
                (FailureClass::BenchmarkFailure, "not run: the engine start ended before it".to_string())
            }
            Observed::NoReport { ended, last } => {
                (FailureClass::StartFailure, format!("{ended} without a report; its output ends: {last}"))
            }
        }
    }
}

/// What engines and their runtimes print when the machine has no accelerator or driver they can
/// use: the machine's fault, whatever the configuration.
const NO_DEVICE: &[&str] = &[
    "no CUDA-capable device is detected",
    "No CUDA GPUs are available",
    "Found no NVIDIA driver on your system",
    "CUDA driver version is insufficient for CUDA runtime version",
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver",
];

/// Why an engine that exited before it served could not run on this machine at all, naming what
/// is missing: it found no accelerator or driver it can use, the dynamic loader found no shared
/// library it needs, a script's interpreter is not there, or a program it runs was not found
/// (the shell's exit status 127). None when it ran and stopped for a reason of its own, which is
/// the configuration's failure.
fn cannot_run(log: &[String], exit: Option<i32>) -> Option<String> {
    // The name just before `marker`, or just after it (up to the next colon), on `line`.
    let before = |line: &str, marker: &str| {
        let head = line.split(marker).next()?;
        head.rsplit(": ").next().map(|w| w.trim().to_string()).filter(|w| !w.is_empty())
    };
    let after = |line: &str, marker: &str| {
        let tail = line.split_once(marker)?.1;
        tail.split(':').next().map(|w| w.trim().to_string()).filter(|w| !w.is_empty())
    };
    let find = |marker: &str| log.iter().rev().find(|l| l.contains(marker)).map(|l| l.trim());
    if let Some(line) = NO_DEVICE.iter().find_map(|marker| find(marker)) {
        return Some(format!(
            "the engine cannot run on this machine: it finds no accelerator or driver it can use; its log says: {line}; \
             check the driver (nvidia-smi) and the devices the run is given (CUDA_VISIBLE_DEVICES, `[local]` devices)"
        ));
    }
    let (what, line) = if let Some(line) = find("error while loading shared libraries") {
        let name = after(line, "error while loading shared libraries:").unwrap_or_else(|| "?".into());
        (format!("the shared library `{name}` is missing"), line)
    } else if let Some(line) = find("bad interpreter") {
        let name = before(line, ": bad interpreter").unwrap_or_else(|| "?".into());
        (format!("the interpreter `{name}` is missing"), line)
    } else if exit == Some(127) {
        let line = find("not found").or_else(|| log.iter().rev().map(|l| l.trim()).find(|l| !l.is_empty()));
        let name = line.and_then(|l| before(l, ": command not found").or_else(|| before(l, ": not found")));
        let what = match name {
            Some(name) => format!("the program `{name}` is missing"),
            None => "a program it runs is missing".to_string(),
        };
        (format!("{what} (exit status 127)"), line.unwrap_or_default())
    } else {
        return None;
    };
    let said = if line.is_empty() { String::new() } else { format!("; its log says: {line}") };
    Some(format!("the engine cannot run on this machine: {what}{said}; install it, or fix the engine's command"))
}

/// How a benchmark that ran ended.
pub enum BenchmarkEnd {
    /// It left a result, with how many of its requests completed.
    Result(Completion),
    /// It failed; `evidence` when its output shows the failure and is kept.
    Failed { failure: (FailureClass, String), evidence: bool },
}

/// A benchmark's end from its process's own failure, if any, and what its output reads as.
pub fn benchmark_end(failure: Option<(FailureClass, String)>, output: Output) -> BenchmarkEnd {
    match (failure, output) {
        // A benchmark that exits non-zero because too few requests succeeded (as `perflab bench`
        // does when none did) still printed the result that says so.
        (None | Some((FailureClass::BenchmarkFailure, _)), Output::TooFew(message)) => {
            BenchmarkEnd::Failed { failure: Observed::TooFew(message).failure(), evidence: true }
        }
        (Some(failure), _) => BenchmarkEnd::Failed { failure, evidence: false },
        (None, Output::Result { completion }) => BenchmarkEnd::Result(completion),
        (None, Output::Unusable(message)) => {
            BenchmarkEnd::Failed { failure: Observed::NoResult(message).failure(), evidence: false }
        }
    }
}

/// What the end state a cluster gave a job says about the configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobEnd {
    /// The job ran to its own end (or this runner cancelled it): its report says how it went.
    Ran,
    /// The configuration's own fault: it outran its time limit or its memory.
    Failed(FailureClass),
    /// The cluster ended it for reasons of its own (cancelled from outside, a node that failed
    /// or did not boot, preemption, a deadline, a state perflab does not know): nothing about
    /// the configuration, so its runs stay pending.
    Cluster,
}

/// A job's state as Slurm names it (`squeue -o %T`, `JobState=` of `scontrol show job`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlurmState {
    Pending,
    Running,
    /// The job's script ended; the cluster is cleaning up after it.
    Completing,
    Completed,
    /// The job's script exited non-zero.
    Failed,
    Cancelled,
    /// The job outran its time limit.
    Timeout,
    /// The job used more host memory than it asked for.
    OutOfMemory,
    NodeFail,
    Preempted,
    BootFail,
    Deadline,
    /// The cluster no longer knows the job (purged, or another cluster's).
    Unknown,
    /// Nothing is known: the controller stopped answering.
    Unreachable,
    /// Any other state, as Slurm printed it (`SUSPENDED`, `REQUEUED`, `SPECIAL_EXIT`, ...).
    Other(String),
}

/// The states with a name of their own, as Slurm spells them.
const SLURM_STATES: [(SlurmState, &str); 13] = [
    (SlurmState::Pending, "PENDING"),
    (SlurmState::Running, "RUNNING"),
    (SlurmState::Completing, "COMPLETING"),
    (SlurmState::Completed, "COMPLETED"),
    (SlurmState::Failed, "FAILED"),
    (SlurmState::Cancelled, "CANCELLED"),
    (SlurmState::Timeout, "TIMEOUT"),
    (SlurmState::OutOfMemory, "OUT_OF_MEMORY"),
    (SlurmState::NodeFail, "NODE_FAIL"),
    (SlurmState::Preempted, "PREEMPTED"),
    (SlurmState::BootFail, "BOOT_FAIL"),
    (SlurmState::Deadline, "DEADLINE"),
    (SlurmState::Unknown, "UNKNOWN"),
];

impl SlurmState {
    /// The state Slurm printed (`CANCELLED by 0` is `CANCELLED`).
    pub fn parse(word: &str) -> SlurmState {
        let word = word.split_whitespace().next().unwrap_or("");
        SLURM_STATES
            .iter()
            .find(|(_, name)| *name == word)
            .map_or_else(|| SlurmState::Other(word.into()), |(s, _)| s.clone())
    }

    /// Its name as Slurm prints it (`(controller unreachable)` when nothing is known).
    pub fn name(&self) -> &str {
        match self {
            SlurmState::Other(name) => name,
            SlurmState::Unreachable => "(controller unreachable)",
            state => SLURM_STATES.iter().find(|(s, _)| s == state).map_or("", |(_, name)| name),
        }
    }

    /// Queued or running: the job has not ended.
    pub fn active(&self) -> bool {
        matches!(self, SlurmState::Pending | SlurmState::Running | SlurmState::Completing)
    }
}

impl std::fmt::Display for SlurmState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What a job's final state says; `cancelled_here` when this runner cancelled it.
pub fn job_end(state: &SlurmState, cancelled_here: bool) -> JobEnd {
    match state {
        SlurmState::Completed | SlurmState::Failed => JobEnd::Ran,
        SlurmState::Cancelled if cancelled_here => JobEnd::Ran,
        SlurmState::Timeout => JobEnd::Failed(FailureClass::TimeLimit),
        SlurmState::OutOfMemory => JobEnd::Failed(FailureClass::JobOutOfMemory),
        _ => JobEnd::Cluster,
    }
}

/// How a benchmark's output reads as a result.
pub enum Output {
    /// One result, and how many of its requests completed.
    Result { completion: Completion },
    /// A result with fewer completed requests than `min_completed`: kept as evidence, but failed.
    TooFew(String),
    /// No usable result.
    Unusable(String),
}

/// The benchmark's output as a result: exactly one block or JSON result, with at least
/// `min_completed` of the profile's `expected` requests completed.
pub fn judge_output(path: &Path, expected: u64, min_completed: f64) -> Output {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return Output::Unusable(format!("cannot read the benchmark's output '{}': {e}", path.display())),
    };
    let block = match crate::parse_str(&text) {
        Ok(mut blocks) if blocks.len() == 1 => blocks.remove(0),
        Ok(blocks) => {
            return Output::Unusable(format!("the benchmark printed {} results; a run keeps one", blocks.len()));
        }
        Err(e) => return Output::Unusable(format!("the benchmark's output holds no result: {e}")),
    };
    let completion = Completion::of(&block, expected);
    if !completion.enough(min_completed) {
        return Output::TooFew(format!(
            "only {} of {expected} requests completed; `min_completed` asks for {}",
            completion.count(),
            (min_completed * expected as f64).ceil()
        ));
    }
    Output::Result { completion }
}

/// How many of a profile's requests a result says completed: the one rule for what
/// "completed" means, used by the runner (`min_completed`) and the analysis (a result ranks only
/// when every request completed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    /// The result's own count; `None` for a format that prints none (vLLM's 2023 summary).
    pub completed: Option<u64>,
    /// The requests it counts as failed; 0 when it prints no such count.
    pub failed: u64,
    /// The requests the profile sends.
    pub expected: u64,
}

impl Completion {
    /// The counts of `block`, a result of a profile that sends `expected` requests.
    pub fn of(block: &Block, expected: u64) -> Completion {
        let count = |key: &str| block.metric(key).map(|v| v.max(0.0).ceil() as u64);
        Completion { completed: count("completed"), failed: count("failed").unwrap_or(0), expected }
    }

    /// The requests that completed: the result's count or, when it prints none, every request
    /// it does not count as failed.
    pub fn count(&self) -> u64 {
        self.completed.unwrap_or(self.expected.saturating_sub(self.failed))
    }

    /// Whether every request completed and none failed.
    pub fn all(&self) -> bool {
        self.failed == 0 && self.count() >= self.expected
    }

    /// Whether `block`, a result of a profile that sends `expected` requests, is a whole
    /// measurement: it was not cut off, every request completed and none failed. A block that
    /// prints no count is taken at its word, as [`Completion::count`] says.
    pub fn whole(block: &Block, expected: u64) -> bool {
        block.complete && Completion::of(block, expected).all()
    }

    /// Whether at least the fraction `min_completed` of the requests completed.
    pub fn enough(&self, min_completed: f64) -> bool {
        self.count() as f64 >= min_completed * self.expected as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A port the machine will not give is its fault, named with the way out; a port in use is
    /// the configuration's start failure, as it always was.
    #[test]
    fn a_port_the_machine_refuses_is_its_fault() {
        let refused = Observed::PortRefused { port: Some(80), why: "Permission denied (os error 13)".into() };
        let why = refused.machines_fault().unwrap();
        assert!(why.starts_with("port 80 cannot be bound on this machine (Permission denied"), "{why}");
        let none =
            Observed::PortRefused { port: None, why: "no free port outside the ephemeral range 32768-60999".into() };
        assert!(none.machines_fault().unwrap().contains("stop what holds them, or give the engine a fixed `port`"));
        assert_eq!(Observed::PortTaken(8000).machines_fault(), None);
        assert_eq!(Observed::PortTaken(8000).failure().0, FailureClass::PortInUse);
    }

    #[test]
    fn a_result_without_a_count_is_whole_and_one_short_or_with_a_failure_is_not() {
        let block = |lines: &str| {
            let text = format!(
                "============ Serving Benchmark Result ============\n{lines}Output token throughput (tok/s):         100.00\n==================================================\n"
            );
            crate::parse::parse_str(&text).unwrap().remove(0)
        };
        // vLLM's 2023 summary prints no count: every request is taken to have completed.
        assert!(Completion::whole(&block(""), 100));
        assert!(Completion::whole(&block("Successful requests:                     100\n"), 100));
        assert!(!Completion::whole(&block("Successful requests:                     99\n"), 100));
        assert!(!Completion::whole(
            &block("Successful requests:                     100\nFailed requests:                         1\n"),
            100
        ));
    }

    fn completion(completed: Option<u64>, failed: u64) -> Completion {
        Completion { completed, failed, expected: 100 }
    }

    #[test]
    fn a_warning_line_never_decides_the_class() {
        let log: Vec<String> = [
            "WARNING 12-01 10:00:00 [custom_all_reduce.py:144] Custom allreduce is not supported on more than two PCIe-only GPUs",
            "RuntimeError: Engine core initialization failed",
        ]
        .map(String::from)
        .to_vec();
        let (class, line) = classify(&log, &builtin_patterns(), FailureClass::StartFailure);
        assert_eq!(class, FailureClass::StartFailure);
        assert_eq!(line, "RuntimeError: Engine core initialization failed");
        let log = vec!["ValueError: --attention-backend FOO is not supported".to_string()];
        assert_eq!(classify(&log, &builtin_patterns(), FailureClass::StartFailure).0, FailureClass::Unsupported);
    }

    #[test]
    fn completed_means_one_thing() {
        // A format without a count is taken at its word; one that counts failures is not.
        assert!(completion(None, 0).all());
        assert_eq!(completion(None, 3).count(), 97);
        assert!(!completion(None, 3).all());
        assert!(completion(Some(100), 0).all());
        assert!(!completion(Some(99), 0).all());
        assert!(!completion(Some(100), 1).all(), "a failed request is lost even when the count is full");
        assert!(completion(Some(90), 10).enough(0.9));
        assert!(!completion(Some(89), 11).enough(0.9));
        assert!(completion(None, 0).enough(1.0));
    }
}
