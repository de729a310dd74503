//! How a run ended, decided in one place: the failure class of an engine start from its log
//! ([`classify`]) or from the end state a cluster gave its job ([`cluster_failure`]), whether a
//! benchmark's output is a result ([`judge_output`]), and whether a result's requests all
//! completed.

use super::FailureClass;
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
    for (class, re) in patterns {
        if let Some(line) = log.iter().find(|l| re.is_match(l)) {
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

/// The failure class of a job the cluster ended, from its final state; `None` when the job ended
/// on its own or was cancelled by this runner (`cancelled_here`).
pub fn cluster_failure(state: &str, cancelled_here: bool) -> Option<FailureClass> {
    match state {
        "TIMEOUT" | "DEADLINE" => Some(FailureClass::TimeLimit),
        "NODE_FAIL" | "BOOT_FAIL" => Some(FailureClass::NodeFailure),
        "OUT_OF_MEMORY" => Some(FailureClass::JobOutOfMemory),
        "CANCELLED" | "PREEMPTED" | "REVOKED" if !cancelled_here => Some(FailureClass::Cancelled),
        _ => None,
    }
}

/// How a benchmark's output reads as a result.
pub enum Output {
    /// One result; `lost` when some requests did not complete.
    Result { completed: Option<(u64, u64)> },
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
    let Some(completed) = block.metric("completed").map(|c| c.max(0.0) as u64) else {
        return Output::Result { completed: None };
    };
    if (completed as f64) < min_completed * expected as f64 {
        return Output::TooFew(format!(
            "only {completed} of {expected} requests completed; `min_completed` asks for {}",
            (min_completed * expected as f64).ceil()
        ));
    }
    Output::Result { completed: Some((completed, expected)) }
}
