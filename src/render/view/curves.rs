//! The load curves of a page: for each curve profile, the sentence that answers "how much load
//! within the SLO", why each search stopped, and the points of the baseline and the optimized
//! configuration side by side.

use super::{Ctx, CurveChart, Image, Links, Table, cell, curve_chart};
use crate::analysis::curves::{Curve, CurvePoint, CurveProfile};
use crate::curve::{Axis, Limit, Slo, Stat, Stop};
use crate::render::charts::{AxisLabels, Chart, Mark, Series, xy};
use crate::render::i18n::I18nError;
use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct CurveView {
    pub title: String,
    /// The answer, then why each search stopped, then what the curve contradicts.
    pub lines: Vec<String>,
    pub table: Table,
    pub charts: Vec<Image>,
}

impl Ctx<'_> {
    pub(super) fn curves(&self, links: &Links) -> Result<Vec<CurveView>, I18nError> {
        self.analysis.curves.iter().map(|cp| self.curve_view(cp, links)).collect()
    }

    /// Every curve profile's charts, by file name.
    pub(super) fn curve_charts(&self) -> Result<Vec<(String, Chart)>, I18nError> {
        let mut out = Vec::new();
        for cp in &self.analysis.curves {
            for (which, chart) in self.charts_of(cp)? {
                out.push((curve_chart(&cp.profile, which), chart));
            }
        }
        Ok(out)
    }

    /// The charts a curve profile has, with their titles: throughput against load always, the
    /// first limited latency when the SLO limits one, the Pareto chart when a boundary is known.
    fn chart_titles(&self, cp: &CurveProfile) -> Result<Vec<(CurveChart, String)>, I18nError> {
        let c = self.c;
        let profile = self.profile_name(&cp.profile);
        let tps_name = self.metric_name(&self.study.metric("output_throughput"))?;
        let mut out =
            vec![(CurveChart::Throughput, c.fmt("chart-curve", &[("metric", &tps_name), ("profile", &profile)])?)];
        if let Some(limit) = cp.slo.limits.first() {
            let name = self.limit_name(limit)?;
            out.push((CurveChart::Latency, c.fmt("chart-curve", &[("metric", &name), ("profile", &profile)])?));
        }
        if !cp.pareto.is_empty() {
            out.push((CurveChart::Pareto, c.fmt("chart-pareto", &[("profile", &profile)])?));
        }
        Ok(out)
    }

    fn charts_of(&self, cp: &CurveProfile) -> Result<Vec<(CurveChart, Chart)>, I18nError> {
        let c = self.c;
        let load_name = c.msg(match cp.axis {
            Axis::Concurrency => "curve-col-concurrency",
            Axis::Rate => "curve-col-rate",
        })?;
        let sides = [(&cp.baseline, false), (&cp.optimized, true)];
        let series = |y: &dyn Fn(&CurvePoint) -> Option<f64>| -> Result<Vec<Series>, I18nError> {
            let mut out = Vec::new();
            for (curve, optimized) in sides {
                let Some(curve) = curve else { continue };
                let points: Vec<(f64, f64)> =
                    curve.points.iter().filter_map(|p| Some((p.load as f64, y(p)?))).collect();
                // A boundary at the top of the range searched is a bound: the configuration may
                // carry more, and its mark says so.
                let bound = curve.answer.stop == Some(Stop::UpperBound);
                let marked = curve.answer.boundary.and_then(|b| {
                    let index = curve.points.iter().filter(|p| y(p).is_some()).position(|p| p.load == b)?;
                    let key = if bound { "chart-boundary-at-least" } else { "chart-boundary" };
                    Some(Mark { index, label: c.fmt(key, &[("load", &c.number(b as f64, 0))]).ok()?, bound })
                });
                let name = c.msg(if optimized { "chart-optimized" } else { "chart-baseline" })?;
                out.push(Series { name, points, optimized, line: true, marked, labels: Vec::new() });
            }
            Ok(out)
        };
        let ticks = |v: f64| c.number(v, crate::render::charts::tick_decimals(v));
        let mut out = Vec::new();
        for (which, title) in self.chart_titles(cp)? {
            let chart = match which {
                CurveChart::Throughput => {
                    let tps_name = self.axis_title(&self.study.metric("output_throughput"))?;
                    let x = AxisLabels { name: &load_name, ticks: &ticks, from_zero: true };
                    let y = AxisLabels { name: &tps_name, ticks: &ticks, from_zero: true };
                    xy(&title, x, y, &series(&|p| p.output_throughput)?, None)
                }
                CurveChart::Latency => {
                    let Some(limit) = cp.slo.limits.first() else { continue };
                    let key = limit.key();
                    let name = self.limit_name(limit)?;
                    let line = c.fmt("chart-slo-line", &[("limit", &self.limit_text(limit)?)])?;
                    let y = |p: &CurvePoint| p.limited.iter().find(|(k, _)| *k == key).and_then(|(_, v)| *v);
                    let ms = |v: f64| c.number(v, if v < 10.0 { 1 } else { 0 });
                    let axis = format!("{name} (ms)");
                    let x = AxisLabels { name: &load_name, ticks: &ticks, from_zero: true };
                    let y_axis = AxisLabels { name: &axis, ticks: &ms, from_zero: true };
                    xy(&title, x, y_axis, &series(&y)?, Some((limit.max_ms, &line)))
                }
                CurveChart::Pareto => self.pareto_chart(cp, &title)?,
            };
            out.push((which, chart));
        }
        Ok(out)
    }

    /// Every configuration's boundary as throughput per GPU against per user: the frontier as
    /// a line, the others as points, each labelled with its configuration and the recommended
    /// one marked; both axes zoomed on the points, which sit close together.
    fn pareto_chart(&self, cp: &CurveProfile, title: &str) -> Result<Chart, I18nError> {
        let c = self.c;
        let ticks = |v: f64| c.number(v, crate::render::charts::tick_decimals(v));
        let at = |p: &crate::analysis::curves::ParetoPoint| (p.at.per_user, p.at.per_gpu);
        let side = |on_frontier: bool| {
            let mut list: Vec<&crate::analysis::curves::ParetoPoint> =
                cp.pareto.iter().filter(|p| p.on_frontier == on_frontier).collect();
            if on_frontier {
                list.sort_by(|a, b| a.at.per_user.total_cmp(&b.at.per_user));
            }
            let points: Vec<(f64, f64)> = list.iter().map(|p| at(p)).collect();
            let labels: Vec<String> = list.iter().map(|p| self.label(&p.config)).collect();
            let marked = list.iter().position(|p| p.recommended).and_then(|index| {
                let label = c.fmt("chart-recommended", &[("config", &labels[index])]).ok()?;
                Some(Mark { index, label, bound: false })
            });
            (points, labels, marked)
        };
        let ((frontier, on_labels, on_mark), (others, off_labels, off_mark)) = (side(true), side(false));
        let series = vec![
            Series {
                name: c.msg("chart-frontier")?,
                marked: on_mark,
                points: frontier,
                optimized: true,
                line: true,
                labels: on_labels,
            },
            Series {
                name: c.msg("chart-others")?,
                marked: off_mark,
                points: others,
                optimized: false,
                line: false,
                labels: off_labels,
            },
        ];
        let (per_user, per_gpu) = (c.msg("chart-per-user")?, c.msg("chart-per-gpu")?);
        let x = AxisLabels { name: &per_user, ticks: &ticks, from_zero: false };
        let y = AxisLabels { name: &per_gpu, ticks: &ticks, from_zero: false };
        Ok(xy(title, x, y, &series, None))
    }

    fn curve_view(&self, cp: &CurveProfile, links: &Links) -> Result<CurveView, I18nError> {
        let c = self.c;
        let title = c.fmt("curve-heading", &[("profile", &self.profile_name(&cp.profile))])?;
        let slo = self.slo_text(&cp.slo)?;
        let unit = c.msg(match cp.axis {
            Axis::Concurrency => "curve-unit-concurrency",
            Axis::Rate => "curve-unit-rate",
        })?;
        let answer = self.curve_answer(cp, &unit, &slo)?;
        let n = |x: u64| c.number(x as f64, 0);
        let mut lines = vec![answer];
        // The baseline's and the optimized configuration's curves, then every other whose search
        // stopped on a failure: a curve that broke is said where curves are read.
        let broke = cp.configs.iter().filter(|c| c.answer.stop == Some(Stop::Failed));
        let sides = [cp.baseline.as_ref(), cp.optimized.as_ref()].into_iter().flatten().chain(broke);
        let mut seen = Vec::new();
        for curve in sides {
            if seen.contains(&&curve.config) {
                continue;
            }
            seen.push(&curve.config);
            lines.push(self.stop_line(curve)?);
            if curve.searches.len() > 1 {
                let boundaries: Vec<String> =
                    curve.searches.iter().map(|b| b.map_or_else(|| "–".to_string(), n)).collect();
                lines.push(c.fmt(
                    "curve-searches",
                    &[
                        ("config", &self.label(&curve.config)),
                        ("count", &n(curve.searches.len() as u64)),
                        ("loads", &boundaries.join(&c.msg("list-separator")?)),
                    ],
                )?);
            }
            if let Some(line) = self.failures_line(curve)? {
                lines.push(line);
            }
            if !curve.answer.violations.is_empty() {
                let loads: Vec<String> = curve.answer.violations.iter().map(|l| n(*l)).collect();
                lines.push(c.fmt(
                    "curve-violations",
                    &[("config", &self.label(&curve.config)), ("loads", &loads.join(&c.msg("list-separator")?))],
                )?);
            }
            let short: Vec<String> =
                curve.points.iter().filter(|p| p.kept_up == Some(false)).map(|p| n(p.load)).collect();
            if !short.is_empty() {
                lines.push(c.fmt(
                    "curve-kept-up",
                    &[("config", &self.label(&curve.config)), ("loads", &short.join(&c.msg("list-separator")?))],
                )?);
            }
        }
        // What decides (the aggregate figures) and what goodput adds (single requests).
        lines.push(c.fmt("curve-how-judged", &[("slo", &slo)])?);
        let charts = self
            .chart_titles(cp)?
            .into_iter()
            .map(|(which, title)| Image::chart(title, links, curve_chart(&cp.profile, which)))
            .collect();
        Ok(CurveView { title, lines, table: self.curve_table(cp)?, charts })
    }

    /// The curve's answer: the load the optimized configuration carries within the SLO, against
    /// the baseline's, each said as a bound where the search met the SLO up to its top.
    fn curve_answer(&self, cp: &CurveProfile, unit: &str, slo: &str) -> Result<String, I18nError> {
        let c = self.c;
        let base = cp.baseline.as_ref().and_then(|b| b.answer.boundary);
        let opt = cp.optimized.as_ref().and_then(|b| b.answer.boundary);
        let n = |x: u64| c.number(x as f64, 0);
        // The search met the SLO up to its top: the optimized configuration's load is a bound.
        let bound =
            |cv: Option<&crate::analysis::curves::Curve>| cv.is_some_and(|cv| cv.answer.stop == Some(Stop::UpperBound));
        let (opt_bound, base_bound) = (bound(cp.optimized.as_ref()), bound(cp.baseline.as_ref()));
        let answer = match (opt, base) {
            // Both bounds: neither load is known, so neither is their ratio.
            (Some(o), Some(_)) if opt_bound && base_bound => {
                c.fmt("curve-answer-both-at-least", &[("load", &n(o)), ("unit", unit), ("slo", slo)])?
            }
            (Some(o), Some(b)) if b > 0 => c.fmt(
                if opt_bound { "curve-answer-at-least" } else { "curve-answer" },
                &[
                    ("load", &n(o)),
                    ("unit", unit),
                    ("slo", slo),
                    ("ratio", &c.number(o as f64 / b as f64, 2)),
                    ("base", &n(b)),
                ],
            )?,
            (Some(o), _) => c.fmt("curve-answer-no-base", &[("load", &n(o)), ("unit", unit), ("slo", slo)])?,
            (None, _) => c.fmt("curve-answer-none", &[("slo", slo)])?,
        };
        Ok(answer)
    }

    fn stop_line(&self, curve: &Curve) -> Result<String, I18nError> {
        use crate::render::i18n::Arg;
        let c = self.c;
        let a = &curve.answer;
        let boundary = a.boundary.unwrap_or(0);
        let above = self
            .tallies(curve)
            .into_iter()
            .filter(|t| t.load > boundary && t.passes() == Some(false))
            .map(|t| t.load)
            .min();
        // The message, its whole-number arguments and its text arguments.
        let (key, numbers, texts): Message<'_> = match a.stop {
            Some(Stop::Resolution) => match (a.band, a.confirmed.as_slice()) {
                (Some(band), _) => {
                    let mixed: Vec<String> = self
                        .tallies(curve)
                        .into_iter()
                        .filter(|t| t.load > band.low && t.load < band.high && t.judged() > 0)
                        .map(|t| {
                            let args = [
                                ("load", Arg::count(t.load)),
                                ("met", Arg::count(t.met.into())),
                                ("runs", Arg::count(t.judged().into())),
                            ];
                            c.fmt_args("curve-mixed-load", &args)
                        })
                        .collect::<Result<_, _>>()?;
                    let mixed = mixed.join(&c.msg("list-separator")?);
                    ("curve-why-band", vec![("low", band.low), ("high", band.high)], vec![("mixed", mixed)])
                }
                (None, [at, up]) if a.exact() => (
                    "curve-why-resolution",
                    vec![
                        ("at", at.load),
                        ("met", at.met.into()),
                        ("at_runs", at.judged().into()),
                        ("above", up.load),
                        ("missed", up.missed.into()),
                        ("above_runs", up.judged().into()),
                    ],
                    vec![],
                ),
                _ => {
                    let above = above.unwrap_or(boundary + 1);
                    ("curve-why-step", vec![("boundary", boundary), ("above", above), ("last", above - 1)], vec![])
                }
            },
            Some(Stop::UpperBound) => ("curve-why-upper-bound", vec![("max", boundary)], vec![]),
            Some(Stop::BelowLowerBound) => {
                ("curve-why-below-lower-bound", vec![("min", curve.points.first().map_or(0, |p| p.load))], vec![])
            }
            Some(Stop::Budget) => match above {
                Some(x) => ("curve-why-budget", vec![("boundary", boundary), ("above", x)], vec![]),
                None => ("curve-why-budget-open", vec![("boundary", boundary)], vec![]),
            },
            Some(Stop::Plateau) => ("curve-why-plateau", vec![("boundary", boundary)], vec![]),
            Some(Stop::ListDone) => ("curve-why-list-done", vec![], vec![]),
            Some(Stop::Failed) => {
                let last = curve.points.iter().rev().find(|p| p.failure.is_some());
                let class = match last.and_then(|p| p.failure) {
                    Some(class) => self.failure_class(class)?,
                    None => String::new(),
                };
                let count = crate::curve::MAX_FAILURES.into();
                (
                    "curve-why-failed",
                    vec![("load", last.map_or(0, |p| p.load)), ("count", count)],
                    vec![("class", class)],
                )
            }
            None => ("curve-why-unfinished", vec![], vec![]),
        };
        let mut args: Vec<(&str, Arg)> = numbers.iter().map(|(k, v)| (*k, Arg::count(*v))).collect();
        args.extend(texts.iter().map(|(k, v)| (*k, Arg::Text(v))));
        let why = c.fmt_args(key, &args)?;
        let label = self.label(&curve.config);
        let points = Arg::count(curve.points.len() as u64);
        c.fmt_args("curve-stop", &[("config", Arg::Text(&label)), ("points", points), ("why", Arg::Text(&why))])
    }

    /// A line for the measurements that failed without judging the SLO and were taken again,
    /// when there were any and the search did not stop on them.
    fn failures_line(&self, curve: &Curve) -> Result<Option<String>, I18nError> {
        use crate::render::i18n::Arg;
        let c = self.c;
        let failed = &curve.answer.failed;
        if failed.is_empty() || curve.answer.stop == Some(Stop::Failed) {
            return Ok(None);
        }
        let count: u32 = failed.iter().map(|t| t.failed).sum();
        let loads: Vec<String> = failed.iter().map(|t| c.number(t.load as f64, 0)).collect();
        let loads = loads.join(&c.msg("list-separator")?);
        let mut classes: Vec<crate::study::FailureClass> = curve.points.iter().filter_map(|p| p.failure).collect();
        classes.dedup();
        let classes = classes
            .into_iter()
            .map(|k| self.failure_class(k))
            .collect::<Result<Vec<_>, _>>()?
            .join(&c.msg("list-separator")?);
        let label = self.label(&curve.config);
        let args = [
            ("config", Arg::Text(&label)),
            ("count", Arg::count(count.into())),
            ("loads", Arg::Text(&loads)),
            ("classes", Arg::Text(&classes)),
        ];
        c.fmt_args("curve-failures", &args).map(Some)
    }

    /// Every load's measurements on a curve, counted.
    fn tallies(&self, curve: &Curve) -> Vec<crate::curve::Tally> {
        let probes: Vec<crate::curve::Probe> = curve
            .points
            .iter()
            .map(|p| crate::curve::Probe { load: p.load, outcome: p.outcome, throughput: p.output_throughput })
            .collect();
        crate::curve::by_load(&probes).into_values().collect()
    }

    /// The SLO as a reader says it: "p99 TTFT 500 ms and mean TPOT 50 ms".
    fn slo_text(&self, slo: &Slo) -> Result<String, I18nError> {
        let c = self.c;
        let mut parts = slo.limits.iter().map(|l| self.limit_text(l)).collect::<Result<Vec<_>, _>>()?;
        if let Some(min) = slo.min_success_rate {
            let share = min * 100.0;
            // Every request succeeding is said so, not as "at least 100%".
            parts.push(match share >= 100.0 {
                true => c.msg("slo-success-all")?,
                false => c.fmt("slo-success", &[("share", &c.number(share, shortest_decimals(share)))])?,
            });
        }
        Ok(match parts.len() {
            0 => String::new(),
            1 => parts.remove(0),
            _ => {
                let last = parts.pop().unwrap_or_default();
                c.fmt("slo-and", &[("list", &parts.join(&c.msg("list-separator")?)), ("last", &last)])?
            }
        })
    }

    fn limit_text(&self, l: &Limit) -> Result<String, I18nError> {
        let c = self.c;
        let stat = stat_word(c, l.stat)?;
        let latency = l.latency_name().to_uppercase();
        let value = c.fmt("unit-ms", &[("value", &c.number(l.max_ms, shortest_decimals(l.max_ms)))])?;
        c.fmt("slo-limit", &[("stat", &stat), ("latency", &latency), ("value", &value)])
    }

    fn curve_table(&self, cp: &CurveProfile) -> Result<Table, I18nError> {
        let c = self.c;
        let mut loads: Vec<u64> = [&cp.baseline, &cp.optimized]
            .iter()
            .filter_map(|x| x.as_ref())
            .flat_map(|cv| cv.points.iter().map(|p| p.load))
            .collect();
        loads.sort_unstable();
        loads.dedup();
        let at = |cv: &Option<Curve>, load: u64| -> Vec<CurvePoint> {
            cv.as_ref().map(|cv| cv.points.iter().filter(|p| p.load == load).cloned().collect()).unwrap_or_default()
        };
        let mut rows = Vec::new();
        for load in loads {
            let mut row = vec![cell(&c.number(load as f64, 0))];
            for side in [&cp.baseline, &cp.optimized] {
                row.push(cell(&self.load_cell(&at(side, load))?));
            }
            rows.push(row);
        }
        let baseline = self.label(&self.analysis.baseline.source);
        Ok(Table {
            headers: vec![
                c.msg(match cp.axis {
                    Axis::Concurrency => "curve-col-concurrency",
                    Axis::Rate => "curve-col-rate",
                })?,
                self.baseline_header(&baseline)?,
                c.msg("table-optimized")?,
            ],
            rows,
        })
    }

    /// A load's cell: whether it met the SLO (by [`crate::curve::meets`]; in how many of its
    /// measurements, when more than one judged it), then the figures of its first measurement
    /// that agrees with that verdict; a load whose every measurement failed says why.
    fn load_cell(&self, points: &[CurvePoint]) -> Result<String, I18nError> {
        use crate::render::i18n::Arg;
        let c = self.c;
        let judged: Vec<&CurvePoint> = points.iter().filter(|p| p.failure.is_none()).collect();
        let Some(first) = judged.first() else {
            return match points.iter().find_map(|p| p.failure) {
                Some(class) => c.fmt("curve-failed-point", &[("class", &self.failure_class(class)?)]),
                None => Ok(String::new()),
            };
        };
        let met = judged.iter().filter(|p| p.verdict.met).count() as u32;
        let passes = crate::curve::meets(met, judged.len() as u32 - met);
        // The figures beside the mark are of a measurement that agrees with it.
        let shown = judged.iter().find(|p| p.verdict.met == passes).unwrap_or(first);
        let mut cell = self.point_cell(shown, passes)?;
        if judged.len() > 1 {
            let args = [("met", Arg::count(met.into())), ("runs", Arg::count(judged.len() as u64))];
            cell = format!("{cell}<br>{}", c.fmt_args("curve-met-of", &args)?);
        }
        Ok(cell)
    }

    fn point_cell(&self, p: &CurvePoint, met: bool) -> Result<String, I18nError> {
        let c = self.c;
        let mark = c.msg(if met { "curve-met" } else { "curve-broken" })?;
        let mut parts = vec![mark];
        let tps = self.study.metric("output_throughput");
        if let Some(v) = p.output_throughput {
            parts.push(self.value(&tps, Some(v))?);
        }
        for (key, v) in &p.limited {
            let Some(v) = v else { continue };
            let m = self.study.metric(key);
            let name = match Limit::parse(key, 0.0) {
                Some(l) => self.limit_name(&l)?,
                None => key.clone(),
            };
            parts.push(format!("{name} {}", self.value(&m, Some(*v))?));
        }
        if let Some(n) = p.buffered_streams {
            parts.push(c.fmt_args("curve-buffered", &[("count", crate::render::i18n::Arg::count(n))])?);
        }
        if let Some(g) = &p.goodput {
            let rate = self.value(&self.study.metric("request_goodput"), Some(g.request_goodput))?;
            parts.push(c.fmt(
                "curve-goodput",
                &[("value", &rate), ("good", &c.number(g.good as f64, 0)), ("total", &c.number(g.total as f64, 0))],
            )?);
        }
        Ok(parts.join("<br>"))
    }

    pub(super) fn limit_name(&self, l: &Limit) -> Result<String, I18nError> {
        let stat = stat_word(self.c, l.stat)?;
        Ok(format!("{stat} {}", l.latency_name().to_uppercase()))
    }
}

/// A message's key, its whole-number arguments and its text arguments.
type Message<'a> = (&'a str, Vec<(&'a str, u64)>, Vec<(&'a str, String)>);

/// A statistic as a page names it (`mean`, `p99`).
fn stat_word(c: &crate::render::i18n::Catalog, stat: Stat) -> Result<String, I18nError> {
    c.msg(match stat {
        Stat::Mean => "slo-stat-mean",
        Stat::Median => "slo-stat-median",
        Stat::P90 => "slo-stat-p90",
        Stat::P95 => "slo-stat-p95",
        Stat::P99 => "slo-stat-p99",
    })
}

/// The fewest decimals (up to 3) that show a limit as the study wrote it: 500, 5.5, 0.25.
fn shortest_decimals(x: f64) -> usize {
    (0..3).find(|d| ((x * 10f64.powi(*d as i32)).round() - x * 10f64.powi(*d as i32)).abs() < 1e-9).unwrap_or(3)
}
