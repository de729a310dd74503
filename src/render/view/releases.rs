//! The answer across the engine releases of a study's history (see
//! [`crate::analysis::releases`]): a chart of the baseline's and the optimized configuration's
//! figures, a table of them, and what each release changed.

use super::age::ChangesView;
use super::gains::How;
use super::{Ctx, Image, Links, Table, cell};
use crate::analysis::Analysis;
use crate::analysis::releases::{Release, Releases};
use crate::render::charts::{AxisLabels, Chart, Series, xy};
use crate::render::i18n::{Catalog, I18nError};
use crate::render::markdown::plain;
use crate::study::Study;
use crate::study::command::{join, quote};
use serde::Serialize;

/// The chart's file in the charts' folder.
pub const RELEASES_CHART: &str = "releases.svg";

/// The section of a page whose study holds three or more releases.
#[derive(Debug, Serialize)]
pub struct ReleasesView {
    pub intro: String,
    pub chart: Image,
    pub table: Table,
    /// Each release after the first: its name, and what it changed from the one before.
    pub changes: Vec<(String, ChangesView)>,
}

/// `perflab diff --releases`: the releases of a study's history in a table (both figures and
/// each stage's winner), the first one's recommended command, and what each one changed.
#[derive(Debug, Serialize)]
pub struct HistoryView {
    pub intro: String,
    /// Which releases are shown, when not all of them.
    pub subset: Option<String>,
    pub table: Table,
    /// Each release shown whose optimized run has a record: "The optimized configuration ran
    /// on Sim 1.0:", and the engine's command as it started.
    pub commands: Vec<(String, String)>,
    /// Each release shown that has one before it: its name, and what it changed.
    pub changes: Vec<(String, ChangesView)>,
}

/// `perflab diff --releases`, localized: the releases `shown` of the history `all`.
pub fn history(
    study: &Study,
    analysis: &Analysis,
    c: &Catalog,
    all: &Releases,
    shown: &Releases,
) -> Result<HistoryView, I18nError> {
    Ctx::new(study, analysis, c).history(all, shown)
}

impl Ctx<'_> {
    /// A release's name: its engines' versions (`Sim 1.1`), joined where it has several.
    fn release_name(&self, r: &Release) -> String {
        let names: Vec<String> = r
            .versions
            .iter()
            .map(|v| {
                let engine = self.study.engine(&v.engine).map_or(v.engine.as_str(), |e| e.name.as_str());
                format!("{} {}", plain(engine), plain(&v.version))
            })
            .collect();
        names.join(" + ")
    }

    pub(super) fn releases(&self, links: &Links) -> Result<Option<ReleasesView>, I18nError> {
        let Some(all) = &self.analysis.releases else { return Ok(None) };
        let c = self.c;
        let metric = self.metric_name(&all.objective)?;
        let (headers, rows) = self.release_rows(&all.releases)?;
        let count = all.releases.len().to_string();
        Ok(Some(ReleasesView {
            intro: c.fmt("releases-intro", &[("count", &count), ("metric", &metric)])?,
            chart: Image::chart(c.fmt("chart-releases", &[("metric", &metric)])?, links, RELEASES_CHART.to_string()),
            table: Table { headers, rows },
            changes: self.release_changes(&all.releases)?,
        }))
    }

    /// The table's headers and a row a release: its name, date, both figures and the gain.
    fn release_rows(&self, releases: &[Release]) -> Result<(Vec<String>, Vec<Vec<String>>), I18nError> {
        let (c, decimals) = (self.c, self.analysis.objective.decimals);
        let number = |v: Option<f64>| v.map_or("—".to_string(), |v| c.number(v, decimals));
        let figures = self.figures();
        let mut rows = Vec::new();
        for r in releases {
            let gain = r.gain.map(|g| figures.gain(c, g, None, How::TABLE)).transpose()?;
            let date = r.date.clone().unwrap_or_else(|| "—".to_string());
            rows.push(vec![
                self.release_name(r),
                date,
                number(r.baseline),
                number(r.optimized),
                gain.unwrap_or("—".into()),
            ]);
        }
        let headers = [
            "releases-col-release",
            "releases-col-date",
            "releases-col-baseline",
            "releases-col-optimized",
            "releases-col-gain",
        ]
        .iter()
        .map(|k| c.msg(k))
        .collect::<Result<Vec<_>, _>>()?;
        Ok((headers, rows))
    }

    /// Each release that has a release before it (shown or not): its heading, and what it
    /// changed.
    fn release_changes(&self, releases: &[Release]) -> Result<Vec<(String, ChangesView)>, I18nError> {
        let mut changes = Vec::new();
        for r in releases {
            if let Some(d) = &r.changes {
                let mut view = self.changes(d)?;
                if let Some(f) = r.ran_changes.as_ref().filter(|f| !f.is_empty()) {
                    view.ran = Some(self.c.fmt("releases-ran-changed", &[("changes", &self.flag_changes(f)?)])?);
                }
                changes.push((self.c.fmt("releases-changed", &[("release", &self.release_name(r))])?, view));
            }
        }
        Ok(changes)
    }

    /// `perflab diff --releases`: `shown` of the history `all`, with each stage's winner a
    /// column of the table.
    pub(super) fn history(&self, all: &Releases, shown: &Releases) -> Result<HistoryView, I18nError> {
        let c = self.c;
        let (mut headers, mut rows) = self.release_rows(&shown.releases)?;
        let stages = shown.releases.first().map_or(&[][..], |r| &r.winners[..]);
        headers.extend(stages.iter().map(|w| cell(&self.stage_title(&w.stage))));
        for (row, r) in rows.iter_mut().zip(&shown.releases) {
            for s in stages {
                let winner = r.winners.iter().find(|w| w.stage == s.stage);
                row.push(winner.map_or("—".to_string(), |w| cell(&self.in_force(&w.stage, &w.adopted))));
            }
        }
        let metric = self.metric_name(&all.objective)?;
        let count = all.releases.len().to_string();
        let names: Vec<String> = shown.releases.iter().map(|r| self.release_name(r)).collect();
        let subset = (shown.releases.len() < all.releases.len())
            .then(|| c.fmt("releases-history-shown", &[("releases", &c.list(&names))]))
            .transpose()?;
        let mut commands = Vec::new();
        for r in &shown.releases {
            if let Some(ran) = &r.ran {
                let exports = ran.env.iter().map(|(k, v)| format!("export {k}={}\n", quote(v)));
                let command = format!("{}{}", exports.collect::<String>(), join(&ran.engine));
                commands.push((c.fmt("releases-history-ran", &[("release", &self.release_name(r))])?, command));
            }
        }
        Ok(HistoryView {
            intro: c.fmt("releases-history-intro", &[("count", &count), ("metric", &metric)])?,
            subset,
            table: Table { headers, rows },
            commands,
            changes: self.release_changes(&shown.releases)?,
        })
    }

    /// The chart: a line for the baseline and one for the optimized configuration, a release a
    /// point, each labelled with its release.
    pub(super) fn releases_chart(&self) -> Result<Option<Chart>, I18nError> {
        let Some(all) = &self.analysis.releases else { return Ok(None) };
        let c = self.c;
        let names: Vec<String> = all.releases.iter().map(|r| self.release_name(r)).collect();
        let side = |optimized: bool| -> Result<Series, I18nError> {
            let value = |r: &Release| if optimized { r.optimized } else { r.baseline };
            let points =
                all.releases.iter().enumerate().filter_map(|(i, r)| Some(((i + 1) as f64, value(r)?))).collect();
            let name = c.msg(if optimized { "chart-optimized" } else { "chart-baseline" })?;
            Ok(Series { name, points, optimized, line: true, marked: None, labels: Vec::new() })
        };
        let series = [side(false)?, side(true)?];
        // A tick between two releases names none.
        let release_tick = |v: f64| match (v - v.round()).abs() < 1e-9 {
            true => names.get((v.round() as usize).wrapping_sub(1)).cloned().unwrap_or_default(),
            false => String::new(),
        };
        let value_tick = |v: f64| c.number(v, crate::render::charts::tick_decimals(v));
        let metric = self.metric_name(&all.objective)?;
        let x = AxisLabels { name: &c.msg("releases-col-release")?, ticks: &release_tick, from_zero: false };
        let y = AxisLabels { name: &self.axis_title(&all.objective)?, ticks: &value_tick, from_zero: true };
        Ok(Some(xy(&c.fmt("chart-releases", &[("metric", &metric)])?, x, y, &series, None)))
    }
}
