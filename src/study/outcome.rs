//! How a run ended, decided in one place: the failure class of an engine start from its log
//! ([`classify`]) or from the end state a cluster gave its job ([`job_end`]), whether a
//! benchmark's output is a result ([`judge_output`]), and whether a result's requests all
//! completed.

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

/// What a job's final state says; `cancelled_here` when this runner cancelled it.
pub fn job_end(state: &str, cancelled_here: bool) -> JobEnd {
    match state {
        "COMPLETED" | "FAILED" => JobEnd::Ran,
        "CANCELLED" if cancelled_here => JobEnd::Ran,
        "TIMEOUT" => JobEnd::Failed(FailureClass::TimeLimit),
        "OUT_OF_MEMORY" => JobEnd::Failed(FailureClass::JobOutOfMemory),
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
        Err(e) => return Output::Unusable(format!("cannot read the benchmark's output: {e}")),
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
