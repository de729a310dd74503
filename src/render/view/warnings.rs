//! The data warnings of a page, one sentence each.

use super::Ctx;
use crate::analysis::Warning;
use crate::analysis::warnings::Place;
use crate::metric::Metric;
use crate::render::i18n::{Arg, I18nError};
use crate::study::RunKey;

impl Ctx<'_> {
    pub(super) fn warning(&self, w: &Warning) -> Result<String, I18nError> {
        let c = self.c;
        match w {
            Warning::LostRequests { run, completed, expected } => {
                self.about_run("warning-lost-requests", run, &[("completed", *completed), ("expected", *expected)])
            }
            Warning::Incomplete { run } => c.fmt("warning-incomplete", &[("run", &self.run_title(run))]),
            Warning::Noisy { runs, spread_percent, .. } => c.fmt_args(
                "warning-noisy",
                &[
                    ("count", Arg::count(runs.len() as u64)),
                    ("spread", (&self.percent(*spread_percent, false)?).into()),
                    ("threshold", (&self.percent(self.analysis.noise_threshold, false)?).into()),
                ],
            ),
            Warning::ImplausiblePeak { runs } => {
                let limit = Arg::Number { value: crate::analysis::warnings::STREAM_RATE_LIMIT, decimals: 0 };
                let limit = c.fmt_args("unit-tok-s", &[("value", limit)])?;
                c.fmt_args(
                    "warning-implausible-peak",
                    &[("count", Arg::count(runs.len() as u64)), ("stream_limit", (&limit).into())],
                )
            }
            Warning::TpotIncludesWaiting { runs } => {
                c.fmt_args("warning-tpot-includes-waiting", &[("count", Arg::count(runs.len() as u64))])
            }
            Warning::ZeroLatency { run, metric } => c.fmt(
                "warning-zero-latency",
                &[("run", &self.run_title(run)), ("metric", &self.metric_name(&Metric::of(metric))?)],
            ),
            Warning::BufferedStreams { run, buffered, completed } => {
                self.about_run("warning-buffered-streams", run, &[("buffered", *buffered), ("completed", *completed)])
            }
            Warning::RequestCount { run, counted, expected } => {
                self.about_run("warning-request-count", run, &[("counted", *counted), ("expected", *expected)])
            }
            Warning::BaselineFailed { baseline, class, instead } => {
                let why = match class {
                    Some(class) => self.failure_class(*class)?,
                    None => c.msg("warning-baseline-no-result")?,
                };
                c.fmt(
                    "warning-baseline-failed",
                    &[("baseline", &self.label(baseline)), ("class", &why), ("instead", &self.label(instead))],
                )
            }
            Warning::UnequalGpus { stage, runs, gpus } => self.unequal_gpus(stage, runs, gpus),
            Warning::LeftOut { run, file, completed, expected } => c.fmt_args(
                "warning-left-out",
                &[
                    ("run", (&self.run_title(run)).into()),
                    ("file", file.into()),
                    ("completed", Arg::count(*completed)),
                    ("expected", Arg::count(*expected)),
                ],
            ),
            Warning::ShortSample { run, have, wanted } => {
                self.about_run("warning-short-sample", run, &[("have", *have as u64), ("wanted", u64::from(*wanted))])
            }
            Warning::FewRequests { run, metric, requests } => c.fmt_args(
                "warning-few-requests",
                &[
                    ("run", (&self.run_title(run)).into()),
                    ("metric", (&self.metric_name(&Metric::of(metric))?).into()),
                    ("requests", Arg::count(*requests)),
                    (
                        "needed",
                        Arg::count(
                            crate::analysis::warnings::percentile(metric)
                                .map_or(100, crate::analysis::warnings::requests_for),
                        ),
                    ),
                ],
            ),
        }
    }

    /// A stage that ranks configurations on unequal GPU counts by a total: each with its GPUs.
    fn unequal_gpus(&self, stage: &str, runs: &[RunKey], gpus: &[u32]) -> Result<String, I18nError> {
        let c = self.c;
        let list = runs
            .iter()
            .zip(gpus)
            .map(|(r, n)| {
                let config = self.label(&r.config());
                c.fmt_args(
                    "warning-unequal-gpus-item",
                    &[("config", (&config).into()), ("gpus", Arg::count(u64::from(*n)))],
                )
            })
            .collect::<Result<Vec<_>, I18nError>>()?;
        c.fmt(
            "warning-unequal-gpus",
            &[
                ("stage", &self.stage_title(stage)),
                ("configurations", &list.join(c.msg("list-separator")?.as_str())),
                ("metric", &self.metric_name(&self.analysis.objective)?),
            ],
        )
    }

    /// A sentence about one run (`{ $run }`) and its counts.
    fn about_run(&self, key: &str, run: &RunKey, counts: &[(&str, u64)]) -> Result<String, I18nError> {
        let title = self.run_title(run);
        let mut args: Vec<(&str, Arg)> = vec![("run", (&title).into())];
        args.extend(counts.iter().map(|(name, n)| (*name, Arg::count(*n))));
        self.c.fmt_args(key, &args)
    }

    /// The warning boxes of one place of the page: one a kind, each listing every warning of
    /// that kind, one paragraph each (paragraphs are separated by a blank line). A warning about
    /// many runs is one sentence here; its runs and their figures are in [`Self::warning_runs`].
    /// The spread of repeated runs is left out of the conclusion when the evidence paragraph
    /// already gives it.
    pub(super) fn warning_boxes(&self, place: &Place) -> Result<Vec<String>, I18nError> {
        let e = &self.analysis.evidence;
        let spread_told = e.single_runs() && !e.spread.is_empty();
        self.groups
            .iter()
            .filter(|g| &g.place == place)
            .filter(|g| {
                !(spread_told
                    && *place == Place::Study
                    && g.warnings.iter().all(|w| matches!(w, Warning::Noisy { .. })))
            })
            .map(|g| {
                let said = at_loads(&g.warnings)
                    .into_iter()
                    .map(|(w, loads)| self.warning_at(&w, &loads))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(said.join("\n\n"))
            })
            .collect()
    }

    /// A warning, and where it is about points of a load curve, the loads it holds at.
    fn warning_at(&self, w: &Warning, loads: &[u64]) -> Result<String, I18nError> {
        let said = self.warning(w)?;
        let Some(run) = w.runs().first().copied().filter(|_| !loads.is_empty()) else { return Ok(said) };
        let c = self.c;
        let unit = match self.study.curve(&run.profile).map(|(_, l)| l.axis) {
            Some(crate::curve::Axis::Rate) => c.msg("curve-unit-rate")?,
            _ => c.msg("curve-unit-concurrency")?,
        };
        let list: Vec<String> = loads.iter().map(|l| c.number(*l as f64, 0)).collect();
        c.fmt(
            "warning-at-loads",
            &[("warning", &said), ("loads", &list.join(&c.msg("list-separator")?)), ("unit", &unit)],
        )
    }

    /// The table at the end of a page that holds every run a warning about many runs names:
    /// the warning, the run, and the run's figures that raised it. None when no warning names
    /// a list of runs.
    pub(super) fn warning_runs(&self) -> Result<Option<super::Table>, I18nError> {
        let c = self.c;
        let mut rows = Vec::new();
        for w in self.groups.iter().flat_map(|g| &g.warnings) {
            match w {
                Warning::Noisy { runs, values, .. } => {
                    let kind = c.msg("warning-kind-noisy")?;
                    for (r, v) in runs.iter().zip(values) {
                        let value = self.value(&self.analysis.objective, Some(*v))?;
                        rows.push(vec![super::cell(&kind), super::cell(&self.run_title(r)), super::cell(&value)]);
                    }
                }
                Warning::ImplausiblePeak { runs } => {
                    let (kind, tps) = (c.msg("warning-kind-implausible-peak")?, Metric::of("output_throughput"));
                    for p in runs {
                        let figures = c.fmt(
                            "warning-implausible-peak-run",
                            &[
                                ("peak", &self.value(&tps, Some(p.peak))?),
                                ("ceiling", &self.value(&tps, Some(p.ceiling))?),
                            ],
                        )?;
                        rows.push(vec![
                            super::cell(&kind),
                            super::cell(&self.run_title(&p.run)),
                            super::cell(&figures),
                        ]);
                    }
                }
                Warning::TpotIncludesWaiting { runs } => {
                    let (kind, ms, seconds) =
                        (c.msg("warning-kind-tpot")?, Metric::of("mean_tpot_ms"), Metric::of("duration"));
                    for w in runs {
                        // The divisor as it is (a mean of tokens need not be whole), so that the
                        // division checks out by hand.
                        let decimals = if w.tokens.fract().abs() < 1e-9 { 0 } else { 2 };
                        let figures = c.fmt_args(
                            "warning-tpot-includes-waiting-run",
                            &[
                                ("tpot", (&self.value(&ms, Some(w.tpot_ms))?).into()),
                                ("latency", (&self.value(&seconds, Some(w.latency_ms / 1000.0))?).into()),
                                ("tokens", Arg::Number { value: w.tokens, decimals }),
                            ],
                        )?;
                        rows.push(vec![
                            super::cell(&kind),
                            super::cell(&self.run_title(&w.run)),
                            super::cell(&figures),
                        ]);
                    }
                }
                _ => {}
            }
        }
        if rows.is_empty() {
            return Ok(None);
        }
        let headers = vec![c.msg("table-warning")?, c.msg("table-run")?, c.msg("table-figures")?];
        Ok(Some(super::Table { headers, rows }))
    }
}

/// The warnings of a box with those about points of one load curve that read the same but for
/// their load said once, with every load they hold at (in the order first met); a warning about
/// anything else stands alone, with no loads.
fn at_loads(warnings: &[Warning]) -> Vec<(Warning, Vec<u64>)> {
    let mut out: Vec<(Warning, Vec<u64>)> = Vec::new();
    for w in warnings {
        let mut bare = w.clone();
        let load = match &mut bare {
            crate::analysis::warnings::single_run!(run) => run.load.take(),
            _ => None,
        };
        match (load, out.iter_mut().find(|(o, loads)| !loads.is_empty() && *o == bare)) {
            (Some(load), Some((_, loads))) => loads.push(load),
            (Some(load), None) => out.push((bare, vec![load])),
            (None, _) => out.push((w.clone(), Vec::new())),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Thirty alike warnings about one curve's points read as one, with their loads; a point
    /// whose figures differ, another configuration and a run of a fixed load stay apart.
    #[test]
    fn warnings_about_a_curves_points_are_said_once_with_their_loads() {
        let few = |run: &str, requests: u64| Warning::FewRequests {
            run: RunKey::parse(run),
            metric: "p99_ttft_ms".into(),
            requests,
        };
        let mut warnings: Vec<Warning> = [1, 2, 4, 8].iter().map(|l| few(&format!("s/a/chat@{l}"), 64)).collect();
        warnings.push(few("s/a/chat@16", 32));
        warnings.push(few("s/b/chat@1", 64));
        warnings.push(few("s/a/fixed", 64));
        let grouped = at_loads(&warnings);
        let loads: Vec<&[u64]> = grouped.iter().map(|(_, l)| l.as_slice()).collect();
        assert_eq!(loads, [&[1, 2, 4, 8][..], &[16], &[1], &[]]);
        assert_eq!(grouped[0].0, few("s/a/chat", 64));
        assert_eq!(grouped[3].0, few("s/a/fixed", 64));
    }
}
