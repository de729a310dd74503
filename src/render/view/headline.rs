//! The page's answer in one line, outside the page: the index card's headline and the
//! description a search result or a link preview shows under the page's title.

use super::Ctx;
use super::gains::How;
use crate::analysis::Analysis;
use crate::render::i18n::{Catalog, I18nError};
use crate::study::Study;

/// The target profile's gains as the first screen gives them: the recommended command's,
/// and where stages are left out of it, then the gain with them as well.
struct Answer {
    gain: String,
    all: Option<String>,
}

impl Ctx<'_> {
    /// The gains on the target profile, shown as `how` says; `None` where there are none.
    /// A latency study's gain is said as the page says it, "1.9× faster", not as a percentage
    /// that reads as latency going up.
    fn answer(&self, how: How) -> Result<Option<Answer>, I18nError> {
        let a = self.analysis;
        let target = a.scenarios.iter().find(|s| s.target);
        let base = target.and_then(|s| s.baseline.as_ref());
        let (recommended, optimized) =
            (target.and_then(|s| s.recommended.as_ref()), target.and_then(|s| s.optimized.as_ref()));
        let total = |g| self.gain_from(self.gain(g, a.total_gain_interval, how)?, base, optimized);
        Ok(match (a.recommended_gain, a.total_gain) {
            // The recommended command's own gain when stages are left out of it: what a
            // reader gets.
            (Some(g), all) => Some(Answer {
                gain: self.gain_from(self.gain(g, None, how)?, base, recommended)?,
                all: all.map(total).transpose()?,
            }),
            (None, Some(g)) => Some(Answer { gain: total(g)?, all: None }),
            (None, None) => None,
        })
    }

    fn target_profile(&self) -> String {
        self.study.profile(&self.analysis.target_profile).map_or("", |p| p.name.get(&self.c.locale)).to_string()
    }
}

/// The index line of a study: its gain on the target profile (the recommended command's), as HTML.
pub fn headline(study: &Study, analysis: &Analysis, c: &Catalog) -> Result<String, I18nError> {
    let x = Ctx::new(study, analysis, c);
    let gain = match x.answer(How::HEADLINE)? {
        Some(answer) => answer.gain,
        None => c.msg("value-missing")?,
    };
    let profile = crate::render::html::escape(&x.target_profile());
    c.fmt("site-headline", &[("gain", &gain), ("metric", &x.metric_name(&analysis.objective)?), ("profile", &profile)])
}

/// What a search result or a link preview shows under the page's title, as plain text: the
/// answer the first screen gives (the recommended command's gain on the target profile, then
/// the gain with the settings left out of it as well), then the study's goal. Without a
/// gain, the goal alone; without either, nothing.
pub fn description(study: &Study, analysis: &Analysis, c: &Catalog) -> Result<Option<String>, I18nError> {
    let x = Ctx::new(study, analysis, c);
    let goal = study.spec.goal.as_ref().map(|g| g.get(&c.locale).to_string());
    let Some(answer) = x.answer(How::HEADLINE.marked(false))? else { return Ok(goal) };
    let (metric, profile) = (x.metric_name(&analysis.objective)?, x.target_profile());
    let mut args = vec![("metric", metric.as_str()), ("gain", answer.gain.as_str()), ("profile", profile.as_str())];
    let key = match &answer.all {
        Some(all) => {
            args.push(("all", all.as_str()));
            "site-description-command"
        }
        None => "site-description",
    };
    let result = c.fmt(key, &args)?;
    Ok(Some(match goal {
        Some(goal) => c.sentences(&[result, goal]),
        None => result,
    }))
}
