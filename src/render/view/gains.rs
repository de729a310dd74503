//! How a gain of the objective is shown: in percent or as a speedup, marked as a gain or a loss.

use super::Ctx;
use crate::render::i18n::{Arg, I18nError};

impl Ctx<'_> {
    /// A percentage with the study's `display.percent_decimals`; `signed` puts `+` before a
    /// positive one.
    pub(super) fn percent(&self, p: f64, signed: bool) -> Result<String, I18nError> {
        self.c.percent(p, signed, *self.study.spec.display.percent_decimals.get_ref())
    }

    /// Whether gains of the objective are shown as speedups (`display.speedup`, a latency).
    fn speedups(&self) -> bool {
        self.study.spec.display.speedup && self.analysis.objective.lower_is_better()
    }

    /// A gain of the objective as the page shows it: in percent of the base's value, or as a
    /// speedup (base / new − 1, in percent) when the study shows speedups.
    pub(super) fn shown_gain(&self, p: f64) -> f64 {
        let remaining = 1.0 - p / 100.0;
        if self.speedups() && remaining > 0.0 { (1.0 / remaining - 1.0) * 100.0 } else { p }
    }

    /// The change of the objective as a ratio, "2.7× faster", when the study shows speedups;
    /// marked as a gain or a loss when `marked`.
    pub(super) fn ratio(&self, p: f64, marked: bool) -> Option<Result<String, I18nError>> {
        let remaining = 1.0 - p / 100.0;
        if !self.speedups() || remaining <= 0.0 {
            return None;
        }
        let decimals = *self.study.spec.display.percent_decimals.get_ref();
        let (key, factor, class) = if remaining <= 1.0 {
            ("ratio-faster", 1.0 / remaining, "gain")
        } else {
            ("ratio-slower", remaining, "loss")
        };
        let text = self.c.fmt_args(key, &[("value", Arg::Number { value: factor, decimals })]);
        Some(text.map(|t| if marked { format!("<span class=\"{class}\">{t}</span>") } else { t }))
    }

    /// A signed gain of the objective marked as a gain or a loss (green or red on the site).
    pub(in crate::render) fn signed(&self, p: f64) -> Result<String, I18nError> {
        self.gain_figure(p, None, true)
    }
}
