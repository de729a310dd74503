//! How much measuring stands behind a page's figures: the statement that they are single runs
//! (with the run-to-run spread the study shows, when a configuration was measured twice) or
//! means of repeated runs, and gains with their confidence interval, rounded to what the
//! interval supports.

use super::Ctx;
use crate::analysis::stats::{CONFIDENCE_PERCENT, Interval, supported_decimals};
use crate::analysis::{Adoption, Delta, Trend};
use crate::render::i18n::{Arg, I18nError};

impl Ctx<'_> {
    /// A gain as a table shows it (`+10.3%`, marked as a gain or a loss), and with an interval
    /// `+10% (95% CI 5%–15%)`: then its decimals are those the interval supports (at most the
    /// study's).
    pub(super) fn signed_with(&self, p: f64, interval: Option<Interval>) -> Result<String, I18nError> {
        self.gain_figure(p, interval, true)
    }

    /// The same for a sentence: no gain or loss mark.
    pub(in crate::render) fn gain_with(&self, p: f64, interval: Option<Interval>) -> Result<String, I18nError> {
        self.gain_figure(p, interval, false)
    }

    /// A gain with its interval, marked as a gain or a loss only when `marked` (a figure from a
    /// run that lost requests is not drawn as a gain).
    pub(super) fn gain_figure(&self, p: f64, interval: Option<Interval>, marked: bool) -> Result<String, I18nError> {
        let most = self.percent_decimals();
        let shown = self.shown_gain(p);
        let (decimals, ends) = match interval {
            Some(i) => {
                let (low, high) = (self.shown_gain(i.low), self.shown_gain(i.high));
                (supported_decimals(&Interval { low, high }, most as u32) as usize, Some((low, high)))
            }
            None => (most, None),
        };
        let text = self.c.percent(shown, true, decimals)?;
        let trend = if marked { Delta::new(shown, 0.0).trend } else { Trend::Same };
        let figure = super::mark_trend(trend, &text);
        let Some((low, high)) = ends else { return Ok(figure) };
        self.interval_text(&figure, low, high, decimals)
    }

    /// A figure already formatted, with the interval `low`–`high` (percentages) after it.
    pub(in crate::render) fn with_interval(&self, figure: &str, low: f64, high: f64) -> Result<String, I18nError> {
        self.interval_text(figure, low, high, self.percent_decimals())
    }

    fn interval_text(&self, figure: &str, low: f64, high: f64, decimals: usize) -> Result<String, I18nError> {
        self.c.fmt_args(
            "figure-interval",
            &[
                ("figure", figure.into()),
                ("confidence", Arg::count(u64::from(CONFIDENCE_PERCENT))),
                ("low", (&self.c.percent(low, false, decimals)?).into()),
                ("high", (&self.c.percent(high, false, decimals)?).into()),
            ],
        )
    }

    /// The sentence of a stage whose runs could not tell its best variant from its base.
    pub(super) fn cannot_tell(&self, adoption: &Adoption, variant: &str, base: &str) -> Result<String, I18nError> {
        let Adoption::CannotTell { gain_percent, interval, .. } = adoption else { return Ok(String::new()) };
        let key = if interval.contains_zero() { "adoption-cannot-tell" } else { "adoption-cannot-tell-threshold" };
        self.c.fmt(
            key,
            &[
                ("variant", variant),
                ("base", base),
                ("gain", &self.gain_with(*gain_percent, Some(*interval))?),
                ("threshold", &self.c.percent(self.analysis.noise_threshold, false, self.percent_decimals())?),
            ],
        )
    }

    fn percent_decimals(&self) -> usize {
        *self.study.spec.display.percent_decimals.get_ref()
    }

    /// The statement of how many runs stand behind the figures: single runs (with the spread of
    /// a configuration measured more than once, when there is one) or means of repeats.
    pub(super) fn evidence(&self) -> Result<String, I18nError> {
        let e = &self.analysis.evidence;
        if !e.single_runs() {
            let (fewest, most) = (Arg::count(e.fewest_repeats as u64), Arg::count(e.most_repeats as u64));
            let key = if e.fewest_repeats == e.most_repeats { "evidence-repeats" } else { "evidence-repeats-range" };
            return self.c.fmt_args(
                key,
                &[("fewest", fewest), ("most", most), ("confidence", Arg::count(u64::from(CONFIDENCE_PERCENT)))],
            );
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
                ("spread", (&self.c.percent(widest.spread_percent, false, self.percent_decimals())?).into()),
            ],
        )
    }
}
