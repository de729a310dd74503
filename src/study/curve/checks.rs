//! A study's `load` and `slo` keys, checked at their place in `study.toml`.

use super::MIN_SUCCESS;
use crate::curve::{Axis, LATENCIES, Limit, LoadSpec, MAX_CONFIRM, MAX_POINTS, STATS, SloSpec};
use crate::diag::Diagnostic;
use crate::study::Study;
use crate::study::spec::{Id, Profile};
use toml::Spanned;

impl Study {
    /// The diagnostics of every profile's `load` and of every `slo` table.
    pub(in crate::study) fn check_curves(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        if let Some(slo) = &self.spec.slo {
            check_slo(self, slo, "slo", &mut out);
        }
        for p in &self.spec.profiles {
            if let Some(slo) = &p.slo {
                check_slo(self, slo, &format!("profile `{}` slo", p.id.get_ref()), &mut out);
            }
            if let Some(load) = &p.load {
                check_profile(self, p, load, &mut out);
            }
        }
        out
    }
}

fn check_slo(study: &Study, slo: &SloSpec, place: &str, out: &mut Vec<Diagnostic>) {
    for (key, value) in slo {
        let v = *value.get_ref();
        if key == MIN_SUCCESS {
            if !(v > 0.0 && v <= 1.0) {
                out.push(study.diag_at(value, format!("`{place}.{key}`: {v} is not a share of requests in (0, 1]")));
            }
            continue;
        }
        if Limit::parse(key, v).is_none() {
            let stats: Vec<&str> = STATS.iter().map(|s| s.0).collect();
            let latencies: Vec<&str> = LATENCIES.iter().map(|s| s.0).collect();
            out.push(study.diag_at(
                value,
                format!(
                    "`{place}.{key}`: not a limit perflab knows; write <statistic>_<latency>_ms with a statistic of {} and a latency of {} (e.g. p99_ttft_ms), or {MIN_SUCCESS}",
                    stats.join(", "),
                    latencies.join(", ")
                ),
            ));
        } else if !(v.is_finite() && v > 0.0) {
            out.push(study.diag_at(value, format!("`{place}.{key}`: {v} is not a number of milliseconds above 0")));
        }
    }
}

/// `load = { values = [...] }`: a list of loads, increasing, each at least 1.
fn check_list(
    study: &Study,
    p: &Profile,
    load: &Spanned<LoadSpec>,
    values: &Spanned<Vec<u64>>,
    out: &mut Vec<Diagnostic>,
) {
    let id = p.id.get_ref();
    let spec = load.get_ref();
    let v = values.get_ref();
    if v.is_empty() {
        out.push(study.diag_at(values, format!("profile `{id}` load.values: the list is empty")));
    } else if v[0] == 0 {
        out.push(study.diag_at(values, format!("profile `{id}` load.values: a load is at least 1")));
    } else if let Some(w) = v.windows(2).find(|w| w[1] <= w[0]) {
        out.push(
            study
                .diag_at(values, format!("profile `{id}` load.values: loads must increase; {} follows {}", w[1], w[0])),
        );
    } else if spec.axis == Axis::Concurrency && v[v.len() - 1] > p.total_requests {
        out.push(study.diag_at(
            values,
            format!(
                "profile `{id}` load.values: {} requests at once is more than the {} requests a point sends (`total_requests`)",
                v[v.len() - 1],
                p.total_requests
            ),
        ));
    } else if v.len() > MAX_POINTS as usize {
        out.push(study.diag_at(values, format!("profile `{id}` load.values: at most {MAX_POINTS} loads")));
    }
    if spec.points.is_some() || spec.step.is_some() || spec.stop_on_plateau || spec.confirm.is_some() {
        out.push(study.diag_at(
            load,
            format!("profile `{id}` load: `points`, `step`, `confirm` and `stop_on_plateau` belong to a search (`min`, `max`), not a list"),
        ));
    }
}

/// `load = { min, max, ... }`: a search's bounds, point budget and step.
fn check_search(
    study: &Study,
    p: &Profile,
    spec: &LoadSpec,
    (min, max): (&Spanned<u64>, &Spanned<u64>),
    out: &mut Vec<Diagnostic>,
) {
    let id = p.id.get_ref();
    if *min.get_ref() < 1 {
        out.push(study.diag_at(min, format!("profile `{id}` load.min: the smallest load is at least 1")));
    }
    if max.get_ref() < min.get_ref() {
        out.push(
            study
                .diag_at(max, format!("profile `{id}` load.max: {} is below `min` ({})", max.get_ref(), min.get_ref())),
        );
    }
    if let Some(points) = &spec.points
        && !(1..=MAX_POINTS).contains(points.get_ref())
    {
        out.push(
            study.diag_at(points, format!("profile `{id}` load.points: the search measures 1 to {MAX_POINTS} points")),
        );
    }
    if spec.axis == Axis::Concurrency && *max.get_ref() > p.total_requests {
        out.push(study.diag_at(
            max,
            format!(
                "profile `{id}` load.max: {} requests at once is more than the {} requests a point sends (`total_requests`); such a point sends them all at once",
                max.get_ref(),
                p.total_requests
            ),
        ));
    }
    if let Some(step) = &spec.step
        && *step.get_ref() < 1
    {
        out.push(study.diag_at(step, format!("profile `{id}` load.step: at least 1")));
    }
    if let Some(confirm) = &spec.confirm
        && !(1..=MAX_CONFIRM).contains(confirm.get_ref())
    {
        out.push(study.diag_at(
            confirm,
            format!("profile `{id}` load.confirm: the boundary is measured 1 to {MAX_CONFIRM} times"),
        ));
    }
}

/// A curve profile: its `load` (a list or a search), a benchmark command that takes the load,
/// an SLO to judge it by, and the percentiles that SLO needs.
fn check_profile(study: &Study, p: &Profile, load: &Spanned<LoadSpec>, out: &mut Vec<Diagnostic>) {
    let id = p.id.get_ref();
    let spec = load.get_ref();
    match (&spec.values, &spec.min, &spec.max) {
        (Some(values), None, None) => check_list(study, p, load, values, out),
        (None, Some(min), Some(max)) => check_search(study, p, spec, (min, max), out),
        _ => out.push(study.diag_at(
            load,
            format!("profile `{id}` load: give either `values` (a list of loads) or both `min` and `max` (a search)"),
        )),
    }
    if let Some(template) = &study.spec.benchmark.command {
        let words = std::iter::once(template.get_ref()).chain(&p.args);
        let axis = spec.axis.key();
        if !words.clone().any(|w| w.contains(&format!("{{{axis}}}")) || w.contains(crate::study::command::LOAD)) {
            out.push(study.diag_at(
                load,
                format!("profile `{id}` load: `benchmark.command` must take each point's load: put `{{{axis}}}` (or `{{load}}`) where its value goes"),
            ));
        }
    }
    let own = match spec.axis {
        Axis::Concurrency => p.max_concurrency.map(|v| v.to_string()),
        Axis::Rate => p.request_rate.as_ref().map(|r| match r {
            crate::study::spec::Rate::PerSecond(v) => v.to_string(),
            crate::study::spec::Rate::Unlimited => "\"inf\"".to_string(),
        }),
    };
    if let Some(value) = own {
        let key = spec.axis.key();
        out.push(study.diag_at(
            load,
            format!("profile `{id}`: `{key} = {value}` would be replaced by each point's load on this curve's {} axis; remove it", if spec.axis == Axis::Concurrency { "concurrency" } else { "rate" }),
        ));
    }
    if study.slo(id).is_empty() {
        out.push(study.diag_at(
            load,
            format!(
                "profile `{id}` load: a load curve is judged against an SLO; give one in `[slo]` or the profile's `slo`"
            ),
        ));
    }
    check_percentiles(study, p, out);
}

/// A limit on a percentile the benchmark does not print cannot be judged: `perflab bench` and
/// `vllm bench serve` print the percentiles `--metric-percentiles` lists (99 by default) of the
/// latencies `--percentile-metrics` lists.
fn check_percentiles(study: &Study, p: &Profile, out: &mut Vec<Diagnostic>) {
    let id = p.id.get_ref();
    let command = study.spec.benchmark.command.as_ref().map(|c| c.get_ref().as_str()).unwrap_or("perflab bench");
    let vllm = command.contains("vllm bench serve") || command.contains("vllm bench");
    if !(vllm || command.starts_with("perflab bench") || study.spec.benchmark.command.is_none()) {
        return;
    }
    let words: Vec<&str> = command.split_whitespace().chain(p.args.iter().map(String::as_str)).collect();
    let listed = |flag: &str| {
        words.iter().position(|w| *w == flag || w.starts_with(&format!("{flag}="))).map(|i| {
            let w = words[i];
            let v = w.split_once('=').map_or(words.get(i + 1).copied().unwrap_or(""), |(_, v)| v);
            v.split(',').map(str::trim).map(str::to_string).collect::<Vec<_>>()
        })
    };
    let percentiles = listed("--metric-percentiles").unwrap_or_else(|| vec!["99".into()]);
    let default_metrics = if vllm { "ttft,tpot,itl" } else { "ttft,tpot,itl,e2el" };
    let metrics =
        listed("--percentile-metrics").unwrap_or_else(|| default_metrics.split(',').map(str::to_string).collect());
    let slo = study.slo(id);
    let place: &Id = &p.id;
    for limit in &slo.limits {
        let missing_pct = limit.percentile().filter(|n| !percentiles.iter().any(|x| x == &n.to_string()));
        let missing_metric = !metrics.iter().any(|m| m == limit.latency_name());
        if let Some(n) = missing_pct {
            out.push(study.diag_at(
                place,
                format!(
                    "profile `{id}`: the SLO limits `{}`, but the benchmark prints no {n}th percentile; add `--metric-percentiles {}` to the profile's `args`",
                    limit.key(),
                    percentiles.iter().cloned().chain([n.to_string()]).collect::<Vec<_>>().join(",")
                ),
            ));
        } else if missing_metric && limit.percentile().is_some() {
            out.push(study.diag_at(
                place,
                format!(
                    "profile `{id}`: the SLO limits `{}`, but the benchmark prints no percentiles of {}; add `--percentile-metrics {},{}` to the profile's `args`",
                    limit.key(),
                    limit.latency_name(),
                    metrics.join(","),
                    limit.latency_name()
                ),
            ));
        }
    }
}
