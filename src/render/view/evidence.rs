//! How much measuring stands behind a page's figures: the statement that they are single runs
//! (with the run-to-run spread the study shows, when a configuration was measured twice) or
//! means of repeated runs, and a stage that cannot tell its best variant from its base.

use super::Ctx;
use super::gains::How;
use crate::analysis::Adoption;
use crate::analysis::stats::CONFIDENCE_PERCENT;
use crate::render::i18n::{Arg, I18nError};

impl Ctx<'_> {
    /// The sentence of a stage whose runs could not tell its best variant from its base.
    pub(super) fn cannot_tell(&self, adoption: &Adoption, variant: &str, base: &str) -> Result<String, I18nError> {
        let Adoption::CannotTell { gain_percent, interval, .. } = adoption else { return Ok(String::new()) };
        let key = if interval.contains_zero() { "adoption-cannot-tell" } else { "adoption-cannot-tell-threshold" };
        self.c.fmt(
            key,
            &[
                ("variant", variant),
                ("base", base),
                ("gain", &self.gain(*gain_percent, Some(*interval), How::SENTENCE)?),
                ("threshold", &self.percent(self.analysis.noise_threshold, false)?),
            ],
        )
    }

    /// The statement of how many runs stand behind the figures: single runs (with the spread of
    /// a configuration measured more than once, when there is one) or means of repeats.
    pub(super) fn evidence(&self) -> Result<String, I18nError> {
        let e = &self.analysis.evidence;
        if !e.single_runs() {
            let (fewest, most) = (Arg::count(e.fewest_repeats as u64), Arg::count(e.most_repeats as u64));
            let key = if e.fewest_repeats == e.most_repeats { "evidence-repeats" } else { "evidence-repeats-range" };
            let repeats = self.c.fmt_args(
                key,
                &[("fewest", fewest), ("most", most), ("confidence", Arg::count(u64::from(CONFIDENCE_PERCENT)))],
            )?;
            return match self.decision_cost()? {
                Some(cost) => Ok(self.c.sentences(&[repeats, cost])),
                None => Ok(repeats),
            };
        }
        let Some(widest) = e.spread.first() else { return self.c.msg("evidence-single-runs") };
        let values: Vec<String> = widest
            .runs
            .iter()
            .zip(&widest.values)
            .map(|(r, v)| self.c.labelled(&self.run_title(r), &self.c.number(*v, self.analysis.objective.decimals)))
            .collect();
        self.c.fmt_args(
            "evidence-single-runs-spread",
            &[
                ("count", Arg::count(widest.runs.len() as u64)),
                ("values", (&values.join("; ")).into()),
                ("spread", (&self.percent(widest.spread_percent, false)?).into()),
            ],
        )
    }

    /// What the stages decided on an interval cost, in all: engine starts, benchmark runs and
    /// minutes of measuring (left out when no start recorded its time); `None` when no stage
    /// was.
    fn decision_cost(&self) -> Result<Option<String>, I18nError> {
        let Some(total) = &self.analysis.evidence.decisions_total else { return Ok(None) };
        let (starts, runs, minutes) = (total.starts as u64, total.runs as u64, total.seconds / 60.0);
        let key = if minutes > 0.0 { "evidence-decision-cost" } else { "evidence-decision-cost-untimed" };
        let args = [
            ("starts", Arg::count(starts)),
            ("runs", Arg::count(runs)),
            ("minutes", Arg::Number { value: minutes, decimals: 1 }),
        ];
        self.c.fmt_args(key, &args).map(Some)
    }
}
