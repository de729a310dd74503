//! A study's answer across the engine releases its history holds: the study as it stood before
//! each re-measurement with another engine, version or command ([`Study::previous`], peeled one
//! layer at a time), each analysed as its page was, oldest first, with what each release
//! changed against the one before it (as `perflab diff` says it).

use super::diff::{Diff, compare};
use super::{Analysis, analyze_results};
use crate::metric::Metric;
use crate::study::Study;
use crate::study::command::Command;
use serde::Serialize;

/// The fewest releases a page shows a trend of: with two, "what changed" already says it all.
pub const MIN_RELEASES: usize = 3;
/// The most releases read back, newest first: a longer history keeps its newest.
const MAX_RELEASES: usize = 24;

/// One release: what its runs were measured with, and the page's answer then.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Release {
    /// The engine versions its runs were measured with.
    pub versions: Vec<EngineVersion>,
    /// The latest date of those runs, when recorded.
    pub date: Option<String>,
    /// The baseline's objective on the target profile.
    pub baseline: Option<f64>,
    /// The optimized configuration's objective on the target profile.
    pub optimized: Option<f64>,
    /// The optimized configuration's gain over the baseline, in percent.
    pub gain: Option<f64>,
    /// The command the page recommended.
    pub recommended: Command,
    /// What changed from the release before (none for the first): winners, figures, command.
    pub changes: Option<Diff>,
}

/// An engine's version, by the engine's id in the study.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EngineVersion {
    /// The engine's id.
    pub engine: String,
    /// Its version, as the runs recorded it.
    pub version: String,
}

/// The releases of a study's history, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Releases {
    /// The metric the figures are of.
    pub objective: Metric,
    /// A lower objective is better.
    pub lower_is_better: bool,
    /// Each release, oldest first; the last is the page's own.
    pub releases: Vec<Release>,
}

/// The releases of `study`'s history when it holds at least [`MIN_RELEASES`]; `now` is the
/// study's own analysis.
pub fn releases(study: &Study, now: &Analysis) -> Option<Releases> {
    let mut earlier = Vec::new();
    let mut at = study.previous();
    while let Some(s) = at {
        if earlier.len() + 1 >= MAX_RELEASES {
            break;
        }
        at = s.previous();
        earlier.push(s);
    }
    if earlier.len() + 1 < MIN_RELEASES {
        return None;
    }
    earlier.reverse();
    let analyses: Vec<Analysis> = earlier.iter().map(analyze_results).collect();
    let mut releases = Vec::new();
    let mut before: Option<&Analysis> = None;
    let all = earlier.iter().zip(&analyses).chain(std::iter::once((study, now)));
    for (s, a) in all {
        releases.push(release(s, a, before));
        before = Some(a);
    }
    Some(Releases { objective: now.objective.clone(), lower_is_better: now.lower_is_better, releases })
}

fn release(study: &Study, a: &Analysis, before: Option<&Analysis>) -> Release {
    let versions = a
        .age
        .engines
        .iter()
        .flat_map(|e| e.versions.iter().map(|v| EngineVersion { engine: e.engine.clone(), version: v.version.clone() }))
        .collect();
    let date = a.age.engines.iter().flat_map(|e| e.versions.iter().filter_map(|v| v.last.clone())).max();
    Release {
        versions,
        date,
        baseline: a.baseline_measure.as_ref().and_then(|m| m.value),
        optimized: a.optimized_measure.as_ref().and_then(|m| m.value),
        gain: a.total_gain,
        recommended: a.recommended.clone(),
        changes: before.map(|b| compare(b, a, study, None)),
    }
}
