//! What the analysis finds wrong in a study, said as diagnostics at the files they are about:
//! runs that are missing, and each data warning at the run it is about.

use super::{Analysis, Warning, resolve};
use crate::diag::Diagnostic;
use crate::study::{RunKey, Study, VariantRef};

/// Problems the analysis finds in a loaded study: runs that are missing for a variant, for
/// the baseline or for the optimized configuration on a compared profile.
pub fn check(study: &Study) -> Vec<Diagnostic> {
    let chain = resolve(study);
    let mut out = chain.problems.clone();
    out.extend(study.unmeasurable_metrics());
    let last = chain.last();
    for (what, point) in [("baseline", &chain.baseline), ("optimized configuration", last)] {
        for profile in study.compare_profiles() {
            let id = profile.id.get_ref();
            // A stand-in for a baseline that did not run is measured where the search measured
            // it; the page says the baseline failed, and shows no comparison where it has none.
            let stand_in = what == "baseline" && chain.baseline_failed.is_some();
            if point.source.is_nothing() || stand_in || chain.registry.find(study, point, id).is_some() {
                continue;
            }
            // A failure recorded for the run stands for it (a load curve where no load met the SLO).
            let failed =
                |r: &VariantRef| study.variant_of(r).is_some_and(|(_, v)| study.failure(v, &r.key(id)).is_some());
            if point.source.variant().is_some_and(failed) {
                continue;
            }
            out.push(study.diag_at(
                &profile.id,
                format!("the {what} (`{}`) has no run for compared profile `{id}`", point.source),
            ));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The data warnings of a study as diagnostics at the run files they are about.
pub fn warning_diagnostics(study: &Study, analysis: &Analysis) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut at = |key: &RunKey, message: String| {
        if let Some(run) = study.runs.get(key) {
            out.push(Diagnostic::new(&run.path, run.block.line, 1, format!("warning: {message}")));
        }
    };
    for w in &analysis.warnings {
        match w {
            // One line a run, about that run.
            Warning::ImplausiblePeak { runs } => {
                for p in runs {
                    at(
                        &p.run,
                        format!(
                            "peak output throughput {:.2} tok/s is more than the run could stream (at most {:.2} tok/s)",
                            p.peak, p.ceiling
                        ),
                    );
                }
            }
            Warning::TpotIncludesWaiting { runs } => {
                for w in runs {
                    at(
                        &w.run,
                        format!(
                            "the printed TPOT {:.2} ms is the mean latency {:.2} ms over {:.0} output tokens: it includes queueing and the first token",
                            w.tpot_ms, w.latency_ms, w.tokens
                        ),
                    );
                }
            }
            _ => {
                for name in w.runs() {
                    at(name, describe(w));
                }
            }
        }
    }
    out
}

/// A plain-English line for a warning, for the terminal.
pub fn describe(w: &Warning) -> String {
    match w {
        Warning::LostRequests { completed, expected, .. } => {
            format!("only {completed} of {expected} requests completed; its throughput is not comparable")
        }
        Warning::Incomplete { .. } => "the block is cut off; the run does not rank".to_string(),
        Warning::Noisy { runs, values, spread_percent } => format!(
            "the same configuration measured {} times ({}) is {spread_percent:.2}% apart, beyond the noise threshold",
            values.len(),
            runs.iter().zip(values).map(|(r, v)| format!("{r}: {v:.2}")).collect::<Vec<_>>().join(", ")
        ),
        Warning::ImplausiblePeak { runs } => format!(
            "{} {} a peak output throughput above what {} could stream ({})",
            runs.len(),
            if runs.len() == 1 { "run reports" } else { "runs report" },
            if runs.len() == 1 { "it" } else { "they" },
            runs.iter()
                .map(|p| format!("{}: {:.2} tok/s, at most {:.2}", p.run, p.peak, p.ceiling))
                .collect::<Vec<_>>()
                .join("; ")
        ),
        Warning::TpotIncludesWaiting { runs } => format!(
            "the printed TPOT is the mean request latency over the output tokens, queueing and first token included ({})",
            runs.iter()
                .map(|w| format!("{}: {:.2} ms = {:.2} ms / {:.0} tokens", w.run, w.tpot_ms, w.latency_ms, w.tokens))
                .collect::<Vec<_>>()
                .join("; ")
        ),
        Warning::ZeroLatency { metric, .. } => {
            format!("`{metric}` is 0.00 although the run produced tokens")
        }
        Warning::BufferedStreams { buffered, completed, .. } => format!(
            "{buffered} of {completed} streams arrived in bursts, so their TTFT and ITL measure buffering (a server or proxy that holds chunks back), not the engine"
        ),
        Warning::RequestCount { counted, expected, .. } => {
            format!("the block counts {counted} requests; the profile sends {expected}")
        }
        Warning::LeftOut { file, completed, expected, .. } => format!(
            "the measurement in `{file}` completed {completed} of {expected} requests or was cut off; it is left out of the mean"
        ),
        Warning::ShortSample { have, wanted, .. } => format!(
            "its mean is taken from {have} of the {wanted} measurements the study asks for; its comparisons rest on that smaller sample"
        ),
        Warning::FewRequests { metric, requests, .. } => format!(
            "`{metric}` comes from {requests} requests, too few for that percentile: it is about the slowest request"
        ),
        Warning::UnequalGpus { stage, runs, gpus } => format!(
            "stage `{stage}` ranks configurations on different numbers of GPUs by their total, not per GPU ({}); to compare them per GPU, make the objective a `[[metric]]` that divides by `gpus`",
            runs.iter().zip(gpus).map(|(r, n)| format!("{}: {n}", r.config())).collect::<Vec<_>>().join(", ")
        ),
        Warning::BaselineFailed { baseline, class, instead } => format!(
            "the baseline `{baseline}` did not run ({}); the page compares with `{instead}`, the configuration the search went on from",
            class.map_or("no result".to_string(), |c| c.to_string())
        ),
    }
}
