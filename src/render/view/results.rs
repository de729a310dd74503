//! Other scenarios, accuracy tables and raw results.

use super::{AccuracyView, Collapsible, Ctx, ScenarioView, Table, cell};
use crate::analysis::Measure;
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

    /// The raw result of a measured run: its block, or with repeats every measurement's block,
    /// each titled with its place in the sample and its file.
    pub(super) fn raw(&self, key: &str, m: Option<&Measure>) -> Result<Vec<Collapsible>, I18nError> {
        let Some(m) = m else { return Ok(Vec::new()) };
        let sample = self.study.sample(&m.run);
        let mut out = if sample.len() < 2 {
            sample
                .iter()
                .map(|run| self.collapsible(key, run.text.trim_end().to_string(), "text"))
                .collect::<Result<_, _>>()?
        } else {
            self.measurements(key, &sample)?
        };
        // What to run to measure it again, for a run perflab measured (its record says how).
        if let Ok(recipe) = crate::analysis::reproduce::reproduce(self.study, &m.run)
            && recipe.benchmark.is_some()
        {
            let code = crate::render::reproduce::script(&recipe, super::setup::SHOWN_PORT);
            out.push(self.collapsible("reproduce-figure", code.trim_end().to_string(), "bash")?);
        }
        Ok(out)
    }

    /// Each measurement of a run's sample, titled with its place in it and its file.
    fn measurements(&self, key: &str, sample: &[&crate::study::Run]) -> Result<Vec<Collapsible>, I18nError> {
        let title = self.c.msg(key)?;
        let runs = self.study.dir.join(crate::study::RUNS_DIR);
        let mut out = Vec::new();
        for (k, run) in sample.iter().enumerate() {
            let file = run.path.strip_prefix(&runs).unwrap_or(&run.path).display().to_string();
            let title = self.c.fmt_args(
                "raw-measurement",
                &[
                    ("title", (&title).into()),
                    ("k", crate::render::i18n::Arg::count(k as u64 + 1)),
                    ("n", crate::render::i18n::Arg::count(sample.len() as u64)),
                    ("file", (&file).into()),
                ],
            )?;
            out.push(Collapsible { title, code: run.text.trim_end().to_string(), lang: "text".to_string() });
        }
        Ok(out)
    }
}
