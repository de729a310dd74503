//! The answer across the engine releases of a study's history (see
//! [`crate::analysis::releases`]): a chart of the baseline's and the optimized configuration's
//! figures, a table of them, and what each release changed.

use super::age::ChangesView;
use super::gains::How;
use super::{Ctx, Image, Links, Table};
use crate::analysis::releases::Release;
use crate::render::charts::{AxisLabels, Chart, Series, xy};
use crate::render::i18n::I18nError;
use crate::render::markdown::plain;
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
        let (c, decimals) = (self.c, self.analysis.objective.decimals);
        let metric = self.metric_name(&all.objective)?;
        let number = |v: Option<f64>| v.map_or("—".to_string(), |v| c.number(v, decimals));
        let figures = self.figures();
        let mut rows = Vec::new();
        for r in &all.releases {
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
        let mut changes = Vec::new();
        for r in all.releases.iter().skip(1) {
            if let Some(d) = &r.changes {
                changes.push((c.fmt("releases-changed", &[("release", &self.release_name(r))])?, self.changes(d)?));
            }
        }
        let count = all.releases.len().to_string();
        Ok(Some(ReleasesView {
            intro: c.fmt("releases-intro", &[("count", &count), ("metric", &metric)])?,
            chart: Image::chart(c.fmt("chart-releases", &[("metric", &metric)])?, links, RELEASES_CHART.to_string()),
            table: Table { headers, rows },
            changes,
        }))
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
