//! The data warnings of a page, one sentence each.

use super::Ctx;
use crate::analysis::Warning;
use crate::analysis::warnings::Place;
use crate::metric::Metric;
use crate::render::i18n::{Arg, I18nError};

impl Ctx<'_> {
    pub(super) fn warning(&self, w: &Warning) -> Result<String, I18nError> {
        let c = self.c;
        match w {
            Warning::LostRequests { run, completed, expected } => c.fmt_args(
                "warning-lost-requests",
                &[
                    ("run", (&self.run_title(run)).into()),
                    ("completed", Arg::count(*completed)),
                    ("expected", Arg::count(*expected)),
                ],
            ),
            Warning::Incomplete { run } => c.fmt("warning-incomplete", &[("run", &self.run_title(run))]),
            Warning::Noisy { runs, values, spread_percent } => {
                let list: Vec<String> = runs
                    .iter()
                    .zip(values)
                    .map(|(r, v)| {
                        self.c.labelled(&self.run_title(r), &self.c.number(*v, self.analysis.objective.decimals))
                    })
                    .collect();
                c.fmt_args(
                    "warning-noisy",
                    &[
                        ("count", Arg::count(runs.len() as u64)),
                        ("spread", (&self.percent(*spread_percent, false)?).into()),
                        ("threshold", (&self.percent(self.analysis.noise_threshold, false)?).into()),
                        ("values", (&list.join("; ")).into()),
                    ],
                )
            }
            Warning::ImplausiblePeak { runs } => {
                let tps = Metric::of("output_throughput");
                let list = runs
                    .iter()
                    .map(|p| {
                        c.fmt(
                            "warning-implausible-peak-run",
                            &[
                                ("run", &self.run_title(&p.run)),
                                ("peak", &self.value(&tps, Some(p.peak))?),
                                ("ceiling", &self.value(&tps, Some(p.ceiling))?),
                            ],
                        )
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let limit = Arg::Number { value: crate::analysis::warnings::STREAM_RATE_LIMIT, decimals: 0 };
                let limit = c.fmt_args("unit-tok-s", &[("value", limit)])?;
                c.fmt_args(
                    "warning-implausible-peak",
                    &[
                        ("count", Arg::count(runs.len() as u64)),
                        ("stream_limit", (&limit).into()),
                        ("runs", (&list.join("; ")).into()),
                    ],
                )
            }
            Warning::TpotIncludesWaiting { runs } => {
                let (ms, seconds) = (Metric::of("mean_tpot_ms"), Metric::of("duration"));
                let list = runs
                    .iter()
                    .map(|w| {
                        c.fmt_args(
                            "warning-tpot-includes-waiting-run",
                            &[
                                ("run", (&self.run_title(&w.run)).into()),
                                ("tpot", (&self.value(&ms, Some(w.tpot_ms))?).into()),
                                ("latency", (&self.value(&seconds, Some(w.latency_ms / 1000.0))?).into()),
                                ("tokens", Arg::Number { value: w.tokens, decimals: 0 }),
                            ],
                        )
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                c.fmt_args(
                    "warning-tpot-includes-waiting",
                    &[("count", Arg::count(runs.len() as u64)), ("runs", (&list.join("; ")).into())],
                )
            }
            Warning::ZeroLatency { run, metric } => c.fmt(
                "warning-zero-latency",
                &[("run", &self.run_title(run)), ("metric", &self.metric_name(&Metric::of(metric))?)],
            ),
            Warning::RequestCount { run, counted, expected } => c.fmt_args(
                "warning-request-count",
                &[
                    ("run", (&self.run_title(run)).into()),
                    ("counted", Arg::count(*counted)),
                    ("expected", Arg::count(*expected)),
                ],
            ),
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
            Warning::LeftOut { run, file, completed, expected } => c.fmt_args(
                "warning-left-out",
                &[
                    ("run", (&self.run_title(run)).into()),
                    ("file", file.into()),
                    ("completed", Arg::count(*completed)),
                    ("expected", Arg::count(*expected)),
                ],
            ),
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

    /// The warning boxes of one place of the page: one a kind, each listing every warning of
    /// that kind, one paragraph each (paragraphs are separated by a blank line).
    pub(super) fn warning_boxes(&self, place: &Place) -> Result<Vec<String>, I18nError> {
        self.groups
            .iter()
            .filter(|g| &g.place == place)
            .map(|g| Ok(g.warnings.iter().map(|w| self.warning(w)).collect::<Result<Vec<_>, _>>()?.join("\n\n")))
            .collect()
    }
}
