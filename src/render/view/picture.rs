//! The summary PNG's words and numbers, localized: what [`crate::render::png`] draws.

use super::Ctx;
use crate::analysis::{Analysis, RunStatus, Scenario, Trend};
use crate::render::i18n::{Catalog, I18nError};
use crate::render::png::{Pair, Summary};
use crate::study::Study;

/// The summary chart of a study in the catalog's language: the baseline and the optimized
/// configuration on every profile, with the change the before/after table gives.
pub fn summary_chart(study: &Study, analysis: &Analysis, c: &Catalog) -> Result<Summary, I18nError> {
    let x = Ctx::new(study, analysis, c);
    let metric = x.metric_name(&analysis.objective)?;
    let pairs = analysis.scenarios.iter().map(|s| x.pair(s)).collect::<Result<_, _>>()?;
    Ok(Summary {
        locale: c.locale.clone(),
        title: c.fmt("chart-comparison", &[("metric", &metric)])?,
        legend: (c.msg("chart-baseline")?, c.msg("chart-optimized")?),
        pairs,
    })
}

impl Ctx<'_> {
    fn pair(&self, s: &Scenario) -> Result<Pair, I18nError> {
        // Drawn as it is written: no Markdown reaches a bitmap.
        let name = self.study.profile(&s.profile).map_or(s.profile.as_str(), |p| p.name.get(&self.c.locale));
        let mut label: String = name.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
        // The target's bar is the recommended command's when stages are left out of it and its
        // configuration was measured: what a reader who runs it gets.
        let command = s.recommended.as_ref().zip(s.recommended_change);
        if s.target {
            let key = if command.is_some() { "table-target-command" } else { "table-target" };
            label = self.c.fmt(key, &[("profile", &label)])?;
        }
        let (optimized, change, interval) = match command {
            Some((m, change)) => (Some(m), Some(change), None),
            None => (s.optimized.as_ref(), s.change, s.change_interval),
        };
        self.pair_of(s, label, optimized, change, interval)
    }

    /// The pair of a profile: its baseline, the configuration beside it (`optimized`) and the
    /// change between them.
    fn pair_of(
        &self,
        s: &Scenario,
        label: String,
        optimized: Option<&crate::analysis::Measure>,
        change: Option<f64>,
        interval: Option<crate::analysis::Interval>,
    ) -> Result<Pair, I18nError> {
        let value = |m: Option<&crate::analysis::Measure>| m.and_then(|m| m.value);
        // As the before/after table marks it: a change from a run that lost requests or was cut
        // off is neither a gain nor a loss.
        let trusted = s.baseline.iter().chain(optimized).all(|m| m.status == RunStatus::Ok);
        let (change, trend) = match change {
            Some(p) => {
                let text = self.gain(p, interval, super::gains::How::CHART.marked(trusted))?;
                let text = self.gain_from(text, s.baseline.as_ref(), optimized)?;
                let trend = if trusted { self.figures().mark_of(p) } else { Trend::Same };
                (text, trend)
            }
            None => (self.c.msg("value-missing")?, Trend::Same),
        };
        Ok(Pair {
            label,
            baseline: value(s.baseline.as_ref()),
            optimized: value(optimized),
            baseline_text: self.objective_short(s.baseline.as_ref())?,
            optimized_text: self.objective_short(optimized)?,
            change,
            trend,
        })
    }
}
