//! A stage's accuracy: a short table of each variant's share of questions answered right, its
//! difference from the base with its interval, the questions it got wrong and the gate's
//! verdict, and a sentence for each variant the gate keeps out or leaves to the study.

use super::{Ctx, Table, markdown};
use crate::analysis::StageAnalysis;
use crate::analysis::accuracy::{Judged, Verdict};
use crate::render::i18n::I18nError;
use crate::study::Stage;
use crate::study::evaluation::WhenUnclear;
use serde::Serialize;

/// The most wrong questions a table cell names; the rest are counted.
const WRONG_SHOWN: usize = 5;

/// Decimals of an accuracy figure, in points.
const DECIMALS: usize = 1;

/// A stage's accuracy on the page.
#[derive(Debug, Serialize)]
pub struct GateView {
    pub intro: String,
    pub table: Table,
    pub lines: Vec<String>,
}

impl Ctx<'_> {
    /// The accuracy of a stage that requires it.
    pub(super) fn stage_accuracy(&self, sa: &StageAnalysis, ss: &Stage) -> Result<Option<GateView>, I18nError> {
        let (c, x) = (self.c, self);
        let Some(gate) = &sa.accuracy else { return Ok(None) };
        let name = self.study.evaluation(&gate.evaluation).map_or(gate.evaluation.clone(), |e| x.text(&e.name));
        let questions = gate.variants.iter().filter_map(|j| j.share).map(|s| s.questions).max().unwrap_or(0);
        let intro =
            c.fmt("accuracy-intro", &[("evaluation", &name), ("questions", &c.number(f64::from(questions), 0))])?;
        let headers =
            ["accuracy-variant", "accuracy-right", "accuracy-difference", "accuracy-wrong", "accuracy-verdict"]
                .iter()
                .map(|k| c.msg(k))
                .collect::<Result<Vec<_>, _>>()?;
        let mut rows = Vec::new();
        let mut lines = Vec::new();
        for j in &gate.variants {
            let label = ss
                .variants
                .iter()
                .find(|v| v.id.get_ref() == &j.variant)
                .map_or(j.variant.clone(), |v| markdown::plain(v.label.get(&c.locale)));
            rows.push(self.accuracy_row(j, &label)?);
            if let Some(line) = self.accuracy_line(j, &label, &name)? {
                lines.push(line);
            }
        }
        Ok(Some(GateView { intro, table: Table { headers, rows }, lines }))
    }

    fn accuracy_row(&self, j: &Judged, label: &str) -> Result<Vec<String>, I18nError> {
        let c = self.c;
        let right = match j.share {
            Some(s) => c.percent(s.percent, false, DECIMALS)?,
            None => "—".to_string(),
        };
        let difference = match j.difference {
            Some(d) => c.fmt(
                "accuracy-points-interval",
                &[("points", &self.points(d.points)), ("low", &self.points(d.low)), ("high", &self.points(d.high))],
            )?,
            None => "—".to_string(),
        };
        let mut wrong: Vec<String> = j.wrong.iter().take(WRONG_SHOWN).map(|w| markdown::code(w)).collect();
        if j.wrong.len() > WRONG_SHOWN {
            let more = c.number((j.wrong.len() - WRONG_SHOWN) as f64, 0);
            wrong.push(c.fmt("accuracy-wrong-more", &[("count", &more)])?);
        }
        let wrong = if wrong.is_empty() { "—".to_string() } else { wrong.join(", ") };
        let verdict = c.msg(match j.verdict {
            Verdict::Within => "accuracy-within",
            Verdict::Below => "accuracy-below",
            Verdict::Unclear { .. } => "accuracy-unclear",
            Verdict::NotMeasured { .. } => "accuracy-not-measured",
            Verdict::IsBase => "accuracy-is-base",
        })?;
        Ok(vec![label.to_string(), right, difference, wrong, verdict])
    }

    /// A signed number of points.
    fn points(&self, p: f64) -> String {
        let n = self.c.number(p, DECIMALS);
        if p > 0.0 && n.bytes().any(|b| (b'1'..=b'9').contains(&b)) { format!("+{n}") } else { n }
    }

    /// Why the gate keeps a variant out, or leaves it to the study; `None` when it does neither.
    fn accuracy_line(&self, j: &Judged, label: &str, name: &str) -> Result<Option<String>, I18nError> {
        let c = self.c;
        let choice = |chosen: WhenUnclear| match chosen {
            WhenUnclear::Refuse => "accuracy-choice-refuse",
            WhenUnclear::Adopt => "accuracy-choice-adopt",
        };
        let line = match (j.verdict, j.difference, j.gain_percent) {
            (Verdict::Below, Some(d), Some(g)) => c.fmt(
                "accuracy-refused",
                &[
                    ("variant", label),
                    ("gain", &self.percent(g, true)?),
                    ("metric", &self.metric_name(&self.analysis.objective)?),
                    ("points", &c.number(-d.points, DECIMALS)),
                    ("evaluation", name),
                ],
            )?,
            (Verdict::Below, _, _) => c.fmt("accuracy-refused-floor", &[("variant", label), ("evaluation", name)])?,
            (Verdict::Unclear { chosen }, _, _) => {
                let choice = c.msg(choice(chosen))?;
                c.fmt("accuracy-cannot-tell", &[("variant", label), ("evaluation", name), ("choice", &choice)])?
            }
            (Verdict::NotMeasured { chosen }, _, _) => {
                let choice = c.msg(choice(chosen))?;
                c.fmt("accuracy-unmeasured", &[("variant", label), ("choice", &choice)])?
            }
            _ => return Ok(None),
        };
        Ok(Some(line))
    }
}
