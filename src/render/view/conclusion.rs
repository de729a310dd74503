//! The conclusion: the recommended command and the before/after table of every profile.

use super::{Ctx, Table, cell};
use crate::analysis::Measure;
use crate::analysis::warnings::Place;
use crate::render::i18n::{Arg, I18nError};
use crate::render::markdown;

/// The conclusion's parts of a page.
pub(super) struct Conclusion {
    /// What has no result yet, when the page cannot give its answer.
    pub unanswered: Option<String>,
    pub recommended_intro: String,
    pub excluded: Vec<String>,
    pub comparison: Table,
    /// The target profile's objective before and after, with its change: the page's answer in
    /// one line, above the command.
    pub result: Option<String>,
    /// What the table's TPOT is, when the tool printed latency ÷ tokens under that name for a
    /// run it shows.
    pub comparison_note: Option<String>,
    pub data_warnings: Vec<String>,
}

impl Ctx<'_> {
    pub(super) fn conclusion(&self) -> Result<Conclusion, I18nError> {
        let (x, c, a, study) = (self, self.c, self.analysis, self.study);
        let spec = &study.spec;
        let recommended_intro = c.fmt(
            "conclusion-intro",
            // The checkpoint the recommended command serves (an adopted FP8 one), not always the study's.
            &[("model", &markdown::code(&a.recommended.model)), ("hardware", &x.text(&spec.hardware))],
        )?;
        let excluded = a
            .excluded_stages
            .iter()
            .filter_map(|id| study.stage(id))
            .map(|s| {
                let reason = s.exclude_from_command.as_ref().map(|r| x.text(&r.reason)).unwrap_or_default();
                c.fmt("conclusion-excluded", &[("stage", &x.text(&s.title)), ("reason", &reason)])
            })
            .collect::<Result<_, _>>()?;
        let baseline_label = x.label(&a.baseline.source);
        let mut rows = Vec::new();
        for s in &a.scenarios {
            let mut name = x.profile_name(&s.profile);
            if s.target {
                name = c.fmt("table-target", &[("profile", &name)])?;
            }
            // The change second, beside the profile: what a phone shows without scrolling
            // sideways, and the answer before the figures it comes from.
            rows.push(vec![
                cell(&name),
                cell(&x.change_cell(s)?),
                cell(&x.measure_cell(s.baseline.as_ref(), "<br>")?),
                cell(&x.measure_cell(s.optimized.as_ref(), "<br>")?),
            ]);
        }
        let comparison = Table {
            headers: vec![
                c.msg("table-profile")?,
                c.fmt("table-change", &[("metric", &x.metric_name(&a.objective)?)])?,
                x.baseline_header(&baseline_label)?,
                c.msg("table-optimized")?,
            ],
            rows,
        };
        let data_warnings = x.warning_boxes(&Place::Study)?;
        let result = match a.scenarios.iter().find(|s| s.target) {
            Some(s) => x.result(s)?,
            None => None,
        };
        let shown: Vec<&crate::study::RunKey> =
            a.scenarios.iter().flat_map(|s| [&s.baseline, &s.optimized]).flatten().map(|m| &m.run).collect();
        let waiting = a.warnings.iter().any(|w| match w {
            crate::analysis::Warning::TpotIncludesWaiting { runs } => runs.iter().any(|r| shown.contains(&&r.run)),
            _ => false,
        });
        let comparison_note = if waiting { Some(c.msg("comparison-tpot-note")?) } else { None };
        let unanswered = x.unanswered()?;
        Ok(Conclusion { unanswered, recommended_intro, excluded, comparison, result, comparison_note, data_warnings })
    }

    /// "The baseline has no result on Chat yet, so this page gives no answer …", with the
    /// stages nothing was measured in.
    fn unanswered(&self) -> Result<Option<String>, I18nError> {
        let Some(u) = self.analysis.unanswered() else { return Ok(None) };
        // A command that is the baseline's own is one configuration, said once.
        let same = self.analysis.recommended == self.analysis.baseline;
        let what = match (u.baseline, u.recommended) {
            (true, false) => "baseline",
            (true, true) if same => "baseline",
            (false, true) => "command",
            _ => "both",
        };
        let profile = self.profile_name(&self.analysis.target_profile);
        let mut text = self.c.fmt("conclusion-unanswered", &[("what", what), ("profile", &profile)])?;
        if !u.stages.is_empty() {
            let stages: Vec<String> = u.stages.iter().map(|s| self.stage_title(s)).collect();
            let list = self.c.list(&stages);
            text = self.c.sentences(&[text, self.c.fmt("conclusion-unanswered-stages", &[("stages", &list)])?]);
        }
        Ok(Some(text))
    }

    /// "Total TPS on Balanced: 5481.90 tok/s → 17525.76 tok/s (▲ +219.70%)." for the target
    /// profile, when both configurations were measured on it.
    fn result(&self, s: &crate::analysis::Scenario) -> Result<Option<String>, I18nError> {
        let a = self.analysis;
        let (Some(base), Some(best)) = (&s.baseline, &s.optimized) else { return Ok(None) };
        // Stages left out of the command: what the command gets comes first, then the figure
        // with everything the search adopted.
        if let (Some(command), Some(change)) = (&s.recommended, s.recommended_change) {
            let trusted = [base, command].iter().all(|m| m.status == crate::analysis::RunStatus::Ok);
            let line = self.c.fmt(
                "conclusion-result-command",
                &[
                    ("metric", &self.metric_name(&a.objective)?),
                    ("profile", &self.profile_name(&s.profile)),
                    ("baseline", &self.objective_short(Some(base))?),
                    ("command", &self.objective_short(Some(command))?),
                    (
                        "change",
                        &self.gain_from(
                            self.gain(change, None, super::gains::How::HEADLINE.marked(trusted))?,
                            Some(base),
                            Some(command),
                        )?,
                    ),
                    ("optimized", &self.objective_short(Some(best))?),
                    ("all", &self.change_cell(s)?),
                ],
            )?;
            return Ok(Some(line));
        }
        let line = self.c.fmt(
            "conclusion-result",
            &[
                ("metric", &self.metric_name(&a.objective)?),
                ("profile", &self.profile_name(&s.profile)),
                ("baseline", &self.objective_short(Some(base))?),
                ("optimized", &self.objective_short(Some(best))?),
                ("change", &self.change_cell(s)?),
            ],
        )?;
        Ok(Some(line))
    }

    /// "Total TPS: 5481.90 tok/s → 17525.76 tok/s (▲ +219.70%)" of one scenario: its line among
    /// the other scenarios, above its raw results; a dash where a configuration has no value.
    pub(super) fn scenario_line(&self, s: &crate::analysis::Scenario) -> Result<String, I18nError> {
        let a = self.analysis;
        self.c.fmt(
            "scenario-line",
            &[
                ("metric", &self.metric_name(&a.objective)?),
                ("baseline", &self.objective_short(s.baseline.as_ref())?),
                ("optimized", &self.objective_short(s.optimized.as_ref())?),
                ("change", &self.change_cell(s)?),
            ],
        )
    }

    /// `Total TPS: 13760.98 tok/s` and `Mean TPOT: 266.89 ms` of a measure, joined by `sep`.
    fn measure_cell(&self, m: Option<&Measure>, sep: &str) -> Result<String, I18nError> {
        let Some(m) = m else {
            return self.c.msg("value-missing");
        };
        let a = self.analysis;
        let objective = self.c.labelled(&self.metric_name(&a.objective)?, &self.objective_short(Some(m))?);
        let shown = std::iter::once((&a.secondary, m.secondary)).chain(a.also.iter().zip(m.also.iter().copied()));
        let parts: Vec<String> =
            std::iter::once(Ok(objective))
                .chain(shown.map(|(metric, value)| {
                    Ok(self.c.labelled(&self.metric_name(metric)?, &self.value(metric, value)?))
                }))
                .collect::<Result<_, I18nError>>()?;
        Ok(parts.join(sep))
    }

    fn change_cell(&self, s: &crate::analysis::Scenario) -> Result<String, I18nError> {
        let Some(p) = s.change else {
            return self.c.msg("value-missing");
        };
        // A change measured on a run that lost requests or was cut off is not a gain to trust.
        let trusted =
            [&s.baseline, &s.optimized].into_iter().flatten().all(|m| m.status == crate::analysis::RunStatus::Ok);
        let mut text = self.gain(p, s.change_interval, super::gains::How::HEADLINE.marked(trusted))?;
        text = self.gain_from(text, s.baseline.as_ref(), s.optimized.as_ref())?;
        if s.regression {
            text = self.c.fmt("change-regression", &[("change", &text)])?;
        }
        for m in [&s.baseline, &s.optimized].into_iter().flatten() {
            match m.status {
                crate::analysis::RunStatus::LostRequests { completed, expected } => {
                    text = self.c.fmt_args(
                        "change-lost",
                        &[
                            ("change", (&text).into()),
                            ("completed", Arg::count(completed)),
                            ("expected", Arg::count(expected)),
                        ],
                    )?;
                }
                crate::analysis::RunStatus::Incomplete => {
                    text = self.c.fmt("change-incomplete", &[("change", &text)])?
                }
                crate::analysis::RunStatus::Ok => {}
            }
        }
        Ok(text)
    }
}
