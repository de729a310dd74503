//! Other scenarios, accuracy tables and raw results.

use super::{AccuracyView, Ctx, ScenarioView, Table, cell};
use crate::render::i18n::I18nError;
use crate::render::markdown;
use crate::study::command::shell;

impl Ctx<'_> {
    pub(super) fn scenarios(&self) -> Result<Vec<ScenarioView>, I18nError> {
        let (x, c, a) = (self, self.c, self.analysis);
        let mut scenarios = Vec::new();
        for s in &a.scenarios {
            let mut title = x.profile_name(&s.profile);
            if s.target {
                title = c.fmt("table-target", &[("profile", &title)])?;
            }
            scenarios.push(ScenarioView {
                title,
                line: x.scenario_line(s)?,
                commands: vec![
                    x.collapsible("scenario-baseline-command", shell(&a.baseline), "bash")?,
                    x.collapsible("scenario-optimized-command", shell(&a.optimized), "bash")?,
                ],
                baseline: x.raw("scenario-baseline-result", s.baseline.as_ref())?,
                optimized: x.raw("scenario-optimized-result", s.optimized.as_ref())?,
            });
        }
        Ok(scenarios)
    }

    pub(super) fn accuracy(&self) -> Vec<AccuracyView> {
        let (x, c) = (self, self.c);
        self.study
            .spec
            .accuracy
            .iter()
            .map(|acc| AccuracyView {
                title: x.text(&acc.title),
                description: acc.description.as_ref().map(|d| x.text(d)),
                table: Table {
                    headers: acc.columns.iter().map(|h| cell(&x.text(h))).collect(),
                    rows: acc
                        .rows
                        .iter()
                        .map(|r| vec![cell(&markdown::plain(&r.label)), c.number(r.score, 3)])
                        .collect(),
                },
                note: acc.note.as_ref().map(|n| x.text(n)),
            })
            .collect()
    }
}
