//! A study's answer across the engine releases its history holds: the study as it stood before
//! each re-measurement with another engine, version or command ([`Study::previous`], peeled one
//! layer at a time), each analysed as its page was, oldest first, with what each release
//! changed against the one before it (as `perflab diff` says it).

use super::diff::{Diff, compare};
use super::{Analysis, analyze_results};
use crate::metric::Metric;
use crate::study::command::Command;
use crate::study::{Flag, FlagChanges, RunKey, Study};
use serde::Serialize;
use std::collections::BTreeMap;

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
    /// Each stage's outcome on this release, in the study's order.
    pub winners: Vec<Winner>,
    /// What the optimized configuration's run ran on this release, as its record says (the
    /// recommended command is written from the study as it is now, and so is the same on
    /// every release unless a winner changed).
    pub ran: Option<Ran>,
    /// What changed from the release before (none for the first): winners, figures, command.
    pub changes: Option<Diff>,
    /// How the engine command of the optimized run changed from the release before's, flag by
    /// flag (none for the first, or where either run has no record).
    pub ran_changes: Option<FlagChanges>,
}

/// A stage's outcome on one release: its best variant, and the configuration it left in force
/// (written as [`super::diff::StageChange`] writes them).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Winner {
    /// The stage's id.
    pub stage: String,
    /// The variant its row of options showed as best; `None` when it showed none.
    pub best: Option<String>,
    /// The configuration in force after the stage: `stage/variant`, or a stage's id for a
    /// configuration no variant names.
    pub adopted: String,
}

/// The engine command a run started, as recorded.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ran {
    /// The run, `stage/variant/profile`.
    pub run: RunKey,
    /// The engine's argument vector as it was started, the port as `{port}`.
    pub engine: Vec<String>,
    /// What the engine's environment added.
    pub env: BTreeMap<String, String>,
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

/// The releases of `study`'s history when it holds at least [`MIN_RELEASES`] (what a page
/// shows); `now` is the study's own analysis.
pub fn releases(study: &Study, now: &Analysis) -> Option<Releases> {
    Some(history(study, now)).filter(|h| h.releases.len() >= MIN_RELEASES)
}

/// Every release of `study`'s history, however few (one when it was never measured again),
/// the newest [`MAX_RELEASES`] at most; `now` is the study's own analysis.
pub fn history(study: &Study, now: &Analysis) -> Releases {
    let mut earlier = Vec::new();
    let mut at = study.previous();
    while let Some(s) = at {
        if earlier.len() + 1 >= MAX_RELEASES {
            break;
        }
        at = s.previous();
        earlier.push(s);
    }
    earlier.reverse();
    let analyses: Vec<Analysis> = earlier.iter().map(analyze_results).collect();
    let mut releases: Vec<Release> = Vec::new();
    let mut before: Option<&Analysis> = None;
    let all = earlier.iter().zip(&analyses).chain(std::iter::once((study, now)));
    for (s, a) in all {
        let mut r = release(s, a, before);
        let ran_before = releases.last().and_then(|b| b.ran.as_ref());
        r.ran_changes = ran_before
            .zip(r.ran.as_ref())
            .map(|(b, n)| FlagChanges::between(&Flag::from_argv(&b.engine), &Flag::from_argv(&n.engine)));
        releases.push(r);
        before = Some(a);
    }
    Releases { objective: now.objective.clone(), lower_is_better: now.lower_is_better, releases }
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
        winners: a
            .stages
            .iter()
            .zip(&a.options)
            .map(|(s, o)| Winner { stage: s.id.clone(), best: o.best.clone(), adopted: s.after.to_string() })
            .collect(),
        ran: a.optimized_measure.as_ref().and_then(|m| super::reproduce::reproduce(study, &m.run).ok()).map(|r| Ran {
            run: r.run,
            engine: r.engine,
            env: r.env,
        }),
        changes: before.map(|b| compare(b, a, study, None)),
        ran_changes: None,
    }
}

/// Which releases of a history to show (`perflab diff --releases FROM..TO`): from the first
/// release measured with version `from` to the last measured with `to`, both included; an end
/// left open reaches the history's first or last release.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Span {
    /// The version of the first release shown; `None`: the history's first.
    pub from: Option<String>,
    /// The version of the last release shown; `None`: the history's last.
    pub to: Option<String>,
}

impl Span {
    /// `A..B`, `A..`, `..B`, `..` or nothing (every release), or `A` (the releases measured
    /// with version A).
    pub fn parse(text: &str) -> Span {
        let end = |s: &str| Some(s.trim()).filter(|s| !s.is_empty()).map(str::to_string);
        match text.split_once("..") {
            Some((a, b)) => Span { from: end(a), to: end(b) },
            None => Span { from: end(text), to: end(text) },
        }
    }
}

/// A [`Span`] the history cannot give.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpanError {
    /// No release was measured with the version.
    #[error("no release of the study's history was measured with version `{version}`; its releases are {}", .known.join(", "))]
    Unknown {
        /// The version asked for.
        version: String,
        /// The history's releases, named as [`Releases::names`] names them.
        known: Vec<String>,
    },
    /// The span's first version was measured after its last.
    #[error("version `{from}` was measured after `{to}` (the releases are {}, oldest first): give the older one first", .known.join(", "))]
    Reversed {
        /// The span's first version.
        from: String,
        /// The span's last version.
        to: String,
        /// The history's releases, named as [`Releases::names`] names them.
        known: Vec<String>,
    },
}

impl Releases {
    /// Each release's versions as a reader names it (`1.1`, or `0.9 + 1.1` for a release of
    /// two engines), oldest first.
    pub fn names(&self) -> Vec<String> {
        self.releases
            .iter()
            .map(|r| r.versions.iter().map(|v| v.version.as_str()).collect::<Vec<_>>().join(" + "))
            .collect()
    }

    /// The releases `span` names, each with what it changed from the release before it (shown
    /// or not).
    pub fn span(&self, span: &Span) -> Result<Releases, SpanError> {
        let known = self.names();
        let measured_with = |r: &Release, v: &str| r.versions.iter().any(|x| x.version == v);
        let find = |version: &Option<String>, last: bool| -> Result<Option<usize>, SpanError> {
            let Some(v) = version else { return Ok(None) };
            let mut at = self.releases.iter().enumerate().filter(|(_, r)| measured_with(r, v)).map(|(i, _)| i);
            let found = if last { at.next_back() } else { at.next() };
            found.map(Some).ok_or_else(|| SpanError::Unknown { version: v.clone(), known: known.clone() })
        };
        let first = find(&span.from, false)?.unwrap_or(0);
        let last = find(&span.to, true)?.unwrap_or(self.releases.len().saturating_sub(1));
        if first > last {
            let (from, to) = (span.from.clone().unwrap_or_default(), span.to.clone().unwrap_or_default());
            return Err(SpanError::Reversed { from, to, known });
        }
        Ok(Releases { releases: self.releases[first..=last].to_vec(), ..self.clone() })
    }
}

#[cfg(test)]
mod tests {
    use super::Span;

    #[test]
    fn a_span_is_read_as_git_reads_a_range() {
        let span = |from: Option<&str>, to: Option<&str>| Span { from: from.map(Into::into), to: to.map(Into::into) };
        assert_eq!(Span::parse(".."), span(None, None));
        assert_eq!(Span::parse("1.1"), span(Some("1.1"), Some("1.1")));
        assert_eq!(Span::parse("1.0..1.2"), span(Some("1.0"), Some("1.2")));
        assert_eq!(Span::parse("1.1.."), span(Some("1.1"), None));
        assert_eq!(Span::parse("..0.13.0"), span(None, Some("0.13.0")));
    }
}
