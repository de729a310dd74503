//! The accuracy gate: whether each variant of a stage that requires accuracy keeps it, with the
//! sampling error of the questions accounted for. A variant below its tolerance is not adopted
//! whatever its speed; where the questions are too few to tell, the study's `when_unclear`
//! decides.
//!
//! The rule, for a variant held to `max_drop = δ` (points below the configuration it builds on):
//! the difference d = variant − base in points has a 95% interval; when both answered the same
//! questions it is paired (the questions one got right and the other wrong, Agresti–Min's
//! interval, which adds half a question to each discordant cell so that no difference is known
//! exactly), otherwise unpaired (Agresti–Caffo). The variant is within the tolerance when the
//! interval's low end is at or above −δ, below it when its high end is under −δ, and unclear
//! otherwise. A floor (`min_percent = f`) is judged the same way on the variant's own share
//! with Wilson's interval. With both, either being below refuses, and both being within passes.

use crate::bench::eval::Scores;
use crate::study::evaluation::{Requirement, WhenUnclear};
use crate::study::{RunKey, Stage, Study};
use serde::Serialize;

/// z of a two-sided 95% interval.
const Z: f64 = 1.959_963_984_540_054;

/// The accuracy of a stage's variants, when the stage (or one of its variants) requires it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Gate {
    /// The evaluation's id.
    pub evaluation: String,
    /// The base's share answered right, in percent, and its questions (a count).
    pub base: Option<Share>,
    /// Each variant held to a requirement, in the stage's order.
    pub variants: Vec<Judged>,
}

/// A share of questions answered right.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Share {
    /// In percent.
    pub percent: f64,
    /// Questions asked (a count).
    pub questions: u32,
}

/// One variant's accuracy and its verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Judged {
    /// The variant's id within its stage.
    pub variant: String,
    /// Its share answered right; `None` when it has no record.
    pub share: Option<Share>,
    /// Its difference from the base, in points, with the 95% interval; `None` without both.
    pub difference: Option<Difference>,
    /// The ids of the questions it answered wrong, in the file's order.
    pub wrong: Vec<String>,
    /// Its objective's gain over the base, in percent, when both have a value.
    pub gain_percent: Option<f64>,
    /// What the gate says of it.
    pub verdict: Verdict,
}

/// A difference of two shares, in points (percentage points), variant minus base.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Difference {
    /// The variant's share less the base's.
    pub points: f64,
    /// The interval's low end, in points.
    pub low: f64,
    /// The interval's high end, in points.
    pub high: f64,
    /// Both answered the same questions: the interval is paired.
    pub paired: bool,
}

/// What the gate says of a variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Verdict {
    /// Within the tolerance, the sampling error included.
    Within,
    /// Below the tolerance, the sampling error included: never adopted.
    Below,
    /// The questions are too few to tell: the study's choice decides.
    Unclear {
        /// What the study chose for this case (`when_unclear`).
        chosen: WhenUnclear,
    },
    /// No accuracy recorded (for it or for its base): the study's choice decides.
    NotMeasured {
        /// What the study chose for this case (`when_unclear`).
        chosen: WhenUnclear,
    },
    /// Its configuration is the base's own.
    IsBase,
}

impl Verdict {
    /// The gate keeps the variant from being adopted.
    pub fn refuses(self) -> bool {
        match self {
            Verdict::Below => true,
            Verdict::Unclear { chosen } | Verdict::NotMeasured { chosen } => chosen == WhenUnclear::Refuse,
            Verdict::Within | Verdict::IsBase => false,
        }
    }
}

impl Gate {
    /// Whether the gate keeps `variant` from being adopted.
    pub fn refuses(&self, variant: &str) -> bool {
        self.variants.iter().any(|j| j.variant == variant && j.verdict.refuses())
    }
}

/// A configuration as the gate sees it: the run that stands for it on the target profile and
/// its objective there.
#[derive(Debug, Clone, Copy)]
pub struct Contender<'a> {
    /// The variant's id within its stage (empty for the base).
    pub id: &'a str,
    /// The run that measured it: its own, or an identical configuration's.
    pub run: Option<&'a RunKey>,
    /// Its configuration is the one the stage builds on.
    pub is_base: bool,
    /// Its objective on the target profile.
    pub value: Option<f64>,
}

/// The gate of a stage, `None` when nothing in it requires accuracy: each of `variants`
/// against `base`, the configuration the stage builds on.
pub fn judge(
    study: &Study,
    stage: &Stage,
    base: Contender<'_>,
    variants: &[Contender<'_>],
    metric: &crate::metric::Metric,
) -> Option<Gate> {
    let stage_id = stage.id.get_ref();
    let first = variants.iter().find_map(|v| study.requirement(stage_id, v.id))?;
    let evaluation = first.evaluation.get_ref().clone();
    let scores = |run: Option<&RunKey>| run.and_then(|k| study.scores(&k.stage, &k.variant));
    // The base's scores: those of its run, else those of a variant whose configuration is the base's.
    let base_scores = scores(base.run)
        .or_else(|| variants.iter().filter(|v| v.is_base).find_map(|v| scores(v.run)))
        .filter(|s| s.evaluation == evaluation);
    let mut judged = Vec::new();
    for v in variants {
        let Some(r) = study.requirement(stage_id, v.id) else { continue };
        let own = scores(v.run).filter(|s| s.evaluation == evaluation);
        let gain_percent = v.value.zip(base.value).and_then(|(x, y)| metric.improvement(x, y));
        judged.push(judge_one(v.id, r, own, base_scores.filter(|_| !v.is_base), v.is_base, gain_percent));
    }
    let base = base_scores.map(share);
    Some(Gate { evaluation, base, variants: judged })
}

fn share(s: &Scores) -> Share {
    Share { percent: s.percent(), questions: s.questions }
}

fn judge_one(
    id: &str,
    r: &Requirement,
    own: Option<&Scores>,
    base: Option<&Scores>,
    is_base: bool,
    gain_percent: Option<f64>,
) -> Judged {
    let difference = own.zip(base).map(|(o, b)| difference(o, b));
    let wrong = own.map(|o| o.wrong().into_iter().map(str::to_string).collect()).unwrap_or_default();
    let chosen = r.when_unclear;
    let verdict = if is_base {
        Verdict::IsBase
    } else {
        let mut parts = Vec::new();
        if let Some(drop) = &r.max_drop {
            parts.push(difference.map(|d| place(d.low, d.high, -drop.get_ref())));
        }
        if let Some(floor) = &r.min_percent {
            parts.push(own.map(|o| {
                let (low, high) = wilson(o.correct, o.questions);
                place(low, high, *floor.get_ref())
            }));
        }
        combine(&parts, chosen)
    };
    Judged { variant: id.to_string(), share: own.map(share), difference, wrong, gain_percent, verdict }
}

/// Where an interval stands against a limit below which a variant fails: within when its low end
/// is at or above the limit, below when its high end is under it, unclear otherwise.
pub fn place(low: f64, high: f64, limit: f64) -> Verdict {
    if low >= limit {
        Verdict::Within
    } else if high < limit {
        Verdict::Below
    } else {
        Verdict::Unclear { chosen: WhenUnclear::Refuse }
    }
}

/// One verdict from those of each tolerance (`None`: not measured).
fn combine(parts: &[Option<Verdict>], chosen: WhenUnclear) -> Verdict {
    if parts.contains(&Some(Verdict::Below)) {
        Verdict::Below
    } else if parts.contains(&None) {
        Verdict::NotMeasured { chosen }
    } else if parts.iter().all(|p| *p == Some(Verdict::Within)) {
        Verdict::Within
    } else {
        Verdict::Unclear { chosen }
    }
}

/// The difference of two records' shares, paired when they asked the same questions.
pub fn difference(own: &Scores, base: &Scores) -> Difference {
    let same = own.items.len() == base.items.len() && own.items.iter().zip(&base.items).all(|(a, b)| a.id == b.id);
    let points = own.percent() - base.percent();
    let (low, high) = if same && !own.items.is_empty() {
        let b = own.items.iter().zip(&base.items).filter(|(o, b)| b.correct && !o.correct).count();
        let c = own.items.iter().zip(&base.items).filter(|(o, b)| !b.correct && o.correct).count();
        paired(b as f64, c as f64, own.items.len() as f64)
    } else {
        unpaired(own.correct, own.questions, base.correct, base.questions)
    };
    Difference { points, low, high, paired: same }
}

/// Agresti–Min's interval of a paired difference, in points: `lost` questions the base got right
/// and the variant wrong, `gained` the other way, of `n`.
pub fn paired(lost: f64, gained: f64, n: f64) -> (f64, f64) {
    let (b, c, n) = (lost + 0.5, gained + 0.5, n + 2.0);
    let d = (c - b) / n;
    let se = ((b + c) - (c - b).powi(2) / n).max(0.0).sqrt() / n;
    (100.0 * (d - Z * se), 100.0 * (d + Z * se))
}

/// Agresti–Caffo's interval of the difference of two independent shares, in points.
pub fn unpaired(x1: u32, n1: u32, x2: u32, n2: u32) -> (f64, f64) {
    let p = |x: u32, n: u32| (f64::from(x) + 1.0) / (f64::from(n) + 2.0);
    let (p1, p2) = (p(x1, n1), p(x2, n2));
    let se = (p1 * (1.0 - p1) / (f64::from(n1) + 2.0) + p2 * (1.0 - p2) / (f64::from(n2) + 2.0)).sqrt();
    (100.0 * (p1 - p2 - Z * se), 100.0 * (p1 - p2 + Z * se))
}

/// Wilson's 95% interval of a share, in percent.
pub fn wilson(x: u32, n: u32) -> (f64, f64) {
    if n == 0 {
        return (0.0, 100.0);
    }
    let (n, p) = (f64::from(n), f64::from(x) / f64::from(n));
    let z2 = Z * Z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
    (100.0 * (centre - half), 100.0 * (centre + half))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paired_difference_knows_more_than_an_unpaired_one() {
        // 500 questions, 15 lost, none gained: 3 points lower, surely below a 1-point tolerance.
        let (low, high) = paired(15.0, 0.0, 500.0);
        assert!(high < -1.0 && low > -5.0, "{low} {high}");
        // The same shares (80% and 77%) unpaired cannot tell.
        let (low, high) = unpaired(385, 500, 400, 500);
        assert!(low < -1.0 && high > -1.0, "{low} {high}");
        // No question differs: the interval is narrow but never a point.
        let (low, high) = paired(0.0, 0.0, 500.0);
        assert!(low < 0.0 && low > -1.0 && high > 0.0, "{low} {high}");
        // Ten questions tell nothing.
        let (low, high) = paired(1.0, 0.0, 10.0);
        assert!(low < -20.0 && high > 0.0, "{low} {high}");
    }

    #[test]
    fn wilson_brackets_the_share() {
        let (low, high) = wilson(80, 100);
        assert!(low < 80.0 && high > 80.0 && low > 70.0 && high < 88.0, "{low} {high}");
        assert_eq!(wilson(0, 0), (0.0, 100.0));
    }

    #[test]
    fn verdicts_combine() {
        let refuse = WhenUnclear::Refuse;
        assert_eq!(combine(&[Some(Verdict::Within), Some(Verdict::Below)], refuse), Verdict::Below);
        assert_eq!(combine(&[Some(Verdict::Within), None], refuse), Verdict::NotMeasured { chosen: refuse });
        let adopt = WhenUnclear::Adopt;
        let unclear = Some(Verdict::Unclear { chosen: refuse });
        assert_eq!(combine(&[Some(Verdict::Within), unclear], adopt), Verdict::Unclear { chosen: adopt });
        assert!(!Verdict::Unclear { chosen: adopt }.refuses() && Verdict::Unclear { chosen: refuse }.refuses());
    }
}
