//! What changed between two states of a study: the results that stood before its newest
//! re-measurements (or at a git revision) and the results that stand now.

use super::stats::Interval;
use super::{Analysis, Measure, analyze_results};
use crate::metric::{Metric, percent_change};
use crate::study::command::Command;
use crate::study::{Flag, FlagChanges, Study};
use serde::Serialize;

/// A figure before and after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// The objective before, in its unit.
    pub before: f64,
    /// The objective now, in its unit.
    pub after: f64,
    /// `after` against `before`, in percent of `before` (+10: 10% more).
    pub percent: Option<f64>,
    /// The same, positive when the objective improved.
    pub improvement: Option<f64>,
    /// The change is real: larger than the study's noise threshold and, when both sides were
    /// measured repeatedly, with an interval that excludes zero.
    pub beyond_noise: bool,
    /// The 95% confidence interval of `improvement`, when both sides were measured repeatedly.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval: Option<Interval>,
}

impl Change {
    fn new(before: Option<&Measure>, after: Option<&Measure>, objective: &Metric, noise: f64) -> Option<Change> {
        let (b, a) = (before?, after?);
        let (before, after) = (b.value?, a.value?);
        let gain = objective.improvement(after, before);
        let interval = a.sample.zip(b.sample).and_then(|(x, y)| super::stats::gain(objective, &x, &y));
        Some(Change {
            before,
            after,
            percent: percent_change(after, before),
            improvement: gain,
            beyond_noise: gain.is_some_and(|g| g.abs() > noise) && interval.is_none_or(|i| !i.contains_zero()),
            interval,
        })
    }
}

/// A stage's outcome before and after: its best variant and what it adopted (`stage/variant`
/// in force after it).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StageChange {
    /// The stage's id.
    pub stage: String,
    /// The variant its row of options showed before (see [`super::OptionRow::best`]); `None`
    /// when it showed none or the stage is new.
    pub best_before: Option<String>,
    /// The variant its row of options shows now; `None` when it shows none.
    pub best_after: Option<String>,
    /// The configuration in force after the stage before: `stage/variant`, a stage's id for a
    /// configuration no variant names, or empty (none, or the stage is new).
    pub adopted_before: String,
    /// The configuration in force after the stage now, written the same way.
    pub adopted_after: String,
    /// The best variant or the adopted configuration is another one now.
    pub changed: bool,
}

/// The baseline and the optimized configuration on one profile, before and after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProfileChange {
    /// The profile's id.
    pub profile: String,
    /// It is the study's target profile.
    pub target: bool,
    /// The baseline's objective before and now; `None` unless both sides have a value.
    pub baseline: Option<Change>,
    /// The optimized configuration's objective before and now, the same way.
    pub optimized: Option<Change>,
}

/// The recommended command before and after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommandChange {
    /// The recommended command before.
    pub before: Command,
    /// The recommended command now.
    pub after: Command,
    /// The flags' changes (by name; across engines when the engine changed too).
    pub flags: FlagChanges,
}

/// An engine's versions on each side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VersionChange {
    /// The engine's id in the study.
    pub engine: String,
    /// The versions that measured the runs the page read before, sorted as text; empty when none.
    pub before: Vec<String>,
    /// The versions that measure the runs it reads now, sorted as text; empty when none.
    pub after: Vec<String>,
}

/// Everything that changed between two states of a study (`perflab diff`, and an analysis's
/// `changes`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diff {
    /// The study's id (its folder name).
    pub study: String,
    /// The git revision compared with; `None` for the results before the newest re-measurements.
    pub since: Option<String>,
    /// The metric stages are ranked by now (serialised as its key).
    pub objective: Metric,
    /// A lower objective is better (a latency).
    pub lower_is_better: bool,
    /// The study's noise threshold, in percent (2.0 for 2%): smaller changes are noise.
    pub noise_threshold: f64,
    /// Each engine of the study whose versions measured runs on either side, in the study's order.
    pub versions: Vec<VersionChange>,
    /// Each stage of the study now, in its order.
    pub stages: Vec<StageChange>,
    /// Each profile the baseline and the optimized configuration are compared on now.
    pub profiles: Vec<ProfileChange>,
    /// The recommended command before and now, and its flags' changes.
    pub recommended: CommandChange,
}

/// Compares `before` (the same study earlier, e.g. at a git revision) with `now`.
pub fn diff(before: &Study, now: &Study, since: Option<&str>) -> Diff {
    compare(&analyze_results(before), &analyze_results(now), now, since)
}

/// `b` (before) against `a` (after) of the study `now`.
pub(super) fn compare(b: &Analysis, a: &Analysis, now: &Study, since: Option<&str>) -> Diff {
    let noise = now.spec.noise_threshold;
    let objective = &a.objective;
    let stages = a
        .stages
        .iter()
        .zip(&a.options)
        .map(|(s, o)| {
            let old = b.stages.iter().position(|x| x.id == s.id);
            let best_before = old.and_then(|i| b.options[i].best.clone());
            let adopted_before = old.map_or(String::new(), |i| b.stages[i].after.to_string());
            StageChange {
                stage: s.id.clone(),
                changed: best_before != o.best || adopted_before != s.after.as_str(),
                best_before,
                best_after: o.best.clone(),
                adopted_before,
                adopted_after: s.after.to_string(),
            }
        })
        .collect();
    let profiles = a
        .scenarios
        .iter()
        .map(|s| {
            let old = b.scenarios.iter().find(|x| x.profile == s.profile);
            ProfileChange {
                profile: s.profile.clone(),
                target: s.target,
                baseline: Change::new(old.and_then(|o| o.baseline.as_ref()), s.baseline.as_ref(), objective, noise),
                optimized: Change::new(old.and_then(|o| o.optimized.as_ref()), s.optimized.as_ref(), objective, noise),
            }
        })
        .collect();
    let flags = |c: &Command| c.flags.iter().filter_map(|f| Flag::parse(f, &Default::default())).collect::<Vec<_>>();
    let recommended = CommandChange {
        before: b.recommended.clone(),
        after: a.recommended.clone(),
        flags: FlagChanges::between(&flags(&b.recommended), &flags(&a.recommended)),
    };
    let versions_of = |x: &Analysis, engine: &str| -> Vec<String> {
        x.age
            .engines
            .iter()
            .filter(|e| e.engine == engine)
            .flat_map(|e| e.versions.iter().map(|v| v.version.clone()))
            .collect()
    };
    let versions = now
        .spec
        .engines
        .iter()
        .map(|e| e.id.get_ref())
        .map(|e| VersionChange { engine: e.clone(), before: versions_of(b, e), after: versions_of(a, e) })
        .filter(|v| !v.before.is_empty() || !v.after.is_empty())
        .collect();
    Diff {
        study: now.id.clone(),
        since: since.map(str::to_string),
        objective: a.objective.clone(),
        lower_is_better: objective.lower_is_better(),
        noise_threshold: noise,
        versions,
        stages,
        profiles,
        recommended,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::RunStatus;
    use crate::analysis::stats::Sample;
    use crate::study::RunKey;

    fn measure(values: &[f64]) -> Measure {
        let sample = Sample::of(values);
        Measure {
            run: RunKey::parse("s/v/p"),
            value: sample.map(|s| s.mean),
            secondary: None,
            also: Vec::new(),
            status: RunStatus::Ok,
            repeats: values.len(),
            interval: sample.and_then(|s| s.interval()),
            sample,
            at_least: false,
        }
    }

    #[test]
    fn a_change_is_real_only_when_its_interval_excludes_zero() {
        let tps = Metric::of("total_token_throughput");
        let change = |before: &[f64], after: &[f64]| {
            Change::new(Some(&measure(before)), Some(&measure(after)), &tps, 2.0).unwrap()
        };
        // +10%, runs close together: real.
        let c = change(&[100.0, 101.0, 99.0], &[110.0, 111.0, 109.0]);
        assert!(c.beyond_noise && c.interval.is_some_and(|i| i.low > 0.0), "{c:?}");
        // The same +10% with scattered runs: beyond the threshold, but not a change one can tell.
        let c = change(&[100.0, 101.0, 99.0], &[80.0, 140.0, 110.0]);
        assert!(!c.beyond_noise && c.interval.is_some_and(|i| i.contains_zero()), "{c:?}");
        // Single runs: the threshold alone, as before.
        let c = change(&[100.0], &[110.0]);
        assert!(c.beyond_noise && c.interval.is_none());
    }
}
