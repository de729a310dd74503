//! The one place an analysis figure becomes a page figure: a change of the objective shown in
//! percent of the base or as a speedup ("1.9× faster") for a latency, with the study's decimals,
//! its interval rounded to what the interval supports, and the ▲/▼ mark, given only where the
//! figure as printed is not zero. Sentences, tables, the charts' notes and the index cards all
//! come through [`Figures`].

use super::Ctx;
use crate::analysis::Trend;
use crate::analysis::stats::{CONFIDENCE_PERCENT, Interval, supported_decimals};
use crate::render::i18n::{Arg, Catalog, I18nError};

/// How a page shows a change of its objective: the study's `display` settings, decided once.
#[derive(Debug, Clone, Copy)]
pub(in crate::render) struct Figures {
    /// `display.percent_decimals`.
    decimals: usize,
    /// Gains of a latency shown as speedups (`display.speedup` and an objective better lower).
    speedups: bool,
}

/// The form a gain takes on the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::render) enum Form {
    /// Signed percent (`+10.30%`), a speedup's percent where the study shows speedups.
    Percent,
    /// A ratio (`1.9× faster`) where the study shows speedups, else signed percent: the page's
    /// headline figures (before and after, the index card).
    Ratio,
    /// How far apart two figures are, unsigned: a ratio where the study shows speedups, else a
    /// percent without sign.
    Gap,
}

/// Where a figure goes: into a page (HTML, the mark coloured by a class) or an SVG chart (text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::render) enum Medium {
    Page,
    Chart,
}

/// How one gain is shown.
#[derive(Debug, Clone, Copy)]
pub(in crate::render) struct How {
    pub form: Form,
    /// Marked as a gain or a loss (a figure from a run that lost requests is not).
    pub marked: bool,
    pub medium: Medium,
}

impl How {
    /// A table cell: signed percent, marked.
    pub const TABLE: How = How { form: Form::Percent, marked: true, medium: Medium::Page };
    /// Inside a sentence: signed percent, no mark.
    pub const SENTENCE: How = How { form: Form::Percent, marked: false, medium: Medium::Page };
    /// A headline figure: a ratio for a latency shown as speedups, marked.
    pub const HEADLINE: How = How { form: Form::Ratio, marked: true, medium: Medium::Page };
    /// How far the best of a stage is from the worst, in a sentence.
    pub const GAP: How = How { form: Form::Gap, marked: false, medium: Medium::Page };
    /// A chart's note: as a headline, in plain text.
    pub const CHART: How = How { form: Form::Ratio, marked: true, medium: Medium::Chart };

    /// The same, marked only when `marked`.
    pub fn marked(self, marked: bool) -> How {
        How { marked: marked && self.marked, ..self }
    }
}

impl Figures {
    pub(in crate::render) fn of(study: &crate::study::Study, analysis: &crate::analysis::Analysis) -> Figures {
        Figures {
            decimals: *study.spec.display.percent_decimals.get_ref(),
            speedups: study.spec.display.speedup && analysis.objective.lower_is_better(),
        }
    }

    /// A percentage with the page's decimals; `signed` puts `+` before a positive one.
    pub(in crate::render) fn percent(&self, c: &Catalog, p: f64, signed: bool) -> Result<String, I18nError> {
        c.percent(p, signed, self.decimals)
    }

    /// A gain in percent as the page counts it: of the base's value, or as a speedup
    /// (base / new − 1) where the study shows speedups.
    fn shown(&self, p: f64) -> f64 {
        let remaining = 1.0 - p / 100.0;
        if self.speedups && remaining > 0.0 { (1.0 / remaining - 1.0) * 100.0 } else { p }
    }

    /// Whether `shown` (printed with `decimals`) is a gain, a loss or, printed as zero, neither.
    fn trend(shown: f64, decimals: usize) -> Trend {
        let half_unit = 0.5 * 10f64.powi(-(decimals as i32));
        if shown.abs() < half_unit {
            Trend::Same
        } else if shown < 0.0 {
            Trend::Lower
        } else {
            Trend::Higher
        }
    }

    /// The gain `improvement` (percent of the base, better positive) with its interval, as `how`
    /// says.
    pub(in crate::render) fn gain(
        &self,
        c: &Catalog,
        improvement: f64,
        interval: Option<Interval>,
        how: How,
    ) -> Result<String, I18nError> {
        if how.form != Form::Percent
            && let Some(ratio) = self.ratio(c, improvement, how)
        {
            return ratio;
        }
        let signed = how.form != Form::Gap;
        let shown = if signed { self.shown(improvement) } else { self.shown(improvement.abs()) };
        let ends = interval.map(|i| (self.shown(i.low), self.shown(i.high)));
        let decimals = match ends {
            Some((low, high)) => supported_decimals(&Interval { low, high }, self.decimals as u32) as usize,
            None => self.decimals,
        };
        let text = c.percent(shown, signed, decimals)?;
        let trend = if how.marked { Figures::trend(shown, decimals) } else { Trend::Same };
        let figure = mark(trend, &text, how.medium);
        let Some((low, high)) = ends else { return Ok(figure) };
        self.interval(c, &figure, low, high, decimals)
    }

    /// How the gain `improvement` is marked: ▲, ▼ or, printed as zero, not at all.
    pub(in crate::render) fn mark_of(&self, improvement: f64) -> Trend {
        Figures::trend(self.shown(improvement), self.decimals)
    }

    /// Whether the gain `improvement` is shown as a loss (▼).
    pub(in crate::render) fn is_loss(&self, improvement: f64) -> bool {
        Figures::trend(self.shown(improvement), self.decimals) == Trend::Lower
    }

    /// A change of a metric in percent (`-3.10%`), marked by whether it is a gain of the
    /// objective (`improvement`): a figure of the page on its engines' versions.
    pub(in crate::render) fn change(
        &self,
        c: &Catalog,
        percent: f64,
        improvement: Option<f64>,
        interval: Option<(f64, f64)>,
    ) -> Result<String, I18nError> {
        let text = c.percent(percent, true, self.decimals)?;
        let trend = improvement.map_or(Trend::Same, |g| Figures::trend(g, self.decimals));
        let figure = mark(trend, &text, Medium::Page);
        match interval {
            Some((low, high)) => self.interval(c, &figure, low, high, self.decimals),
            None => Ok(figure),
        }
    }

    /// The gain as a ratio, "2.7× faster", where the study shows speedups.
    fn ratio(&self, c: &Catalog, p: f64, how: How) -> Option<Result<String, I18nError>> {
        let remaining = 1.0 - p / 100.0;
        if !self.speedups || remaining <= 0.0 {
            return None;
        }
        let (key, factor, trend) = if remaining <= 1.0 {
            ("ratio-faster", 1.0 / remaining, Trend::Higher)
        } else {
            ("ratio-slower", remaining, Trend::Lower)
        };
        let text = c.fmt_args(key, &[("value", Arg::Number { value: factor, decimals: self.decimals })]);
        let trend = if how.marked { trend } else { Trend::Same };
        Some(text.map(|t| mark(trend, &t, how.medium)))
    }

    /// A figure already formatted, with the interval `low`–`high` (percentages) after it.
    fn interval(&self, c: &Catalog, figure: &str, low: f64, high: f64, decimals: usize) -> Result<String, I18nError> {
        c.fmt_args(
            "figure-interval",
            &[
                ("figure", figure.into()),
                ("confidence", Arg::count(u64::from(CONFIDENCE_PERCENT))),
                ("low", (&c.percent(low, false, decimals)?).into()),
                ("high", (&c.percent(high, false, decimals)?).into()),
            ],
        )
    }
}

impl Ctx<'_> {
    /// The page's figures.
    pub(super) fn figures(&self) -> Figures {
        Figures::of(self.study, self.analysis)
    }

    /// A percentage with the page's decimals; `signed` puts `+` before a positive one.
    pub(super) fn percent(&self, p: f64, signed: bool) -> Result<String, I18nError> {
        self.figures().percent(self.c, p, signed)
    }

    /// A gain of the objective with its interval, as `how` says.
    pub(super) fn gain(&self, p: f64, interval: Option<Interval>, how: How) -> Result<String, I18nError> {
        self.figures().gain(self.c, p, interval, how)
    }
}

/// Text for a terminal: each mark's page class taken off, the ▲ or ▼ and its figure kept.
/// A mark's figure holds no `<`, so the first `</span>` after its opening closes it.
pub(in crate::render) fn unmarked(text: &str) -> String {
    const OPEN: [&str; 2] = ["<span class=\"gain\">", "<span class=\"loss\">"];
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((at, open)) = OPEN.iter().filter_map(|o| rest.find(o).map(|i| (i, o))).min() {
        let inside = &rest[at + open.len()..];
        let Some(close) = inside.find("</span>").filter(|&c| !inside[..c].contains('<')) else { break };
        out.push_str(&rest[..at]);
        out.push_str(&inside[..close]);
        rest = &inside[close + "</span>".len()..];
    }
    out.push_str(rest);
    out
}

/// A change marked as a gain (▲) or a loss (▼): in the text itself, so that the mark survives
/// where perflab's CSS does not come along (GitHub, mkdocs, mdBook, an SVG), and on a page in a
/// class that colours it where it does.
fn mark(trend: Trend, text: &str, medium: Medium) -> String {
    match (trend, medium) {
        (Trend::Higher, Medium::Page) => format!("<span class=\"gain\">▲ {text}</span>"),
        (Trend::Lower, Medium::Page) => format!("<span class=\"loss\">▼ {text}</span>"),
        (Trend::Higher, Medium::Chart) => format!("▲ {text}"),
        (Trend::Lower, Medium::Chart) => format!("▼ {text}"),
        (Trend::Same, _) => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_terminal_s_text_keeps_the_marks_without_the_page_s_markup() {
        let page = format!(
            "| {} | {} | <b>x</b> |",
            mark(Trend::Higher, "+1.5%", Medium::Page),
            mark(Trend::Lower, "−2%", Medium::Page)
        );
        assert_eq!(unmarked(&page), "| ▲ +1.5% | ▼ −2% | <b>x</b> |");
        assert_eq!(unmarked("<span class=\"gain\">unclosed"), "<span class=\"gain\">unclosed");
    }
}
