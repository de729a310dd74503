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
        let a = self.analysis;
        let value = |m: &Option<crate::analysis::Measure>| m.as_ref().and_then(|m| m.value);
        // Drawn as it is written: no Markdown reaches a bitmap.
        let name = self.study.profile(&s.profile).map_or(s.profile.as_str(), |p| p.name.get(&self.c.locale));
        let mut label: String = name.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
        if s.target {
            label = self.c.fmt("table-target", &[("profile", &label)])?;
        }
        // As the before/after table marks it: a change from a run that lost requests or was cut
        // off is neither a gain nor a loss.
        let trusted = [&s.baseline, &s.optimized].into_iter().flatten().all(|m| m.status == RunStatus::Ok);
        let (change, trend) = match s.change {
            Some(p) => {
                let text = self.gain(p, s.change_interval, super::gains::How::CHART.marked(trusted))?;
                let trend = if trusted { self.figures().mark_of(p) } else { Trend::Same };
                (text, trend)
            }
            None => (self.c.msg("value-missing")?, Trend::Same),
        };
        Ok(Pair {
            label,
            baseline: value(&s.baseline),
            optimized: value(&s.optimized),
            baseline_text: self.value(&a.objective, value(&s.baseline))?,
            optimized_text: self.value(&a.objective, value(&s.optimized))?,
            change,
            trend,
        })
    }
}
