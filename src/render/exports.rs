//! Exports of a study: every run as CSV, the analysis as JSON.

use crate::analysis::{Analysis, Outcome, RunStatus};
use crate::study::{Flag, RunKey, Study};
use std::collections::BTreeSet;

/// One row a measurement (a run measured once has one): every variant on the target profile (measured, reused, failed or missing),
/// then every other stored run, then every earlier result a later attempt superseded (status
/// `superseded`, kept on disk). Columns: study, stage, variant, profile, engine, flags, env,
/// status, run (the run the numbers come from), attempt, engine_version and date (what measured
/// it, when recorded), recorded (what it ran on, a JSON object: see [`recorded`]), then every
/// canonical metric found. `flags` and `env` are JSON arrays of
/// strings ([`json_list`]); a metric is a number as measured.
pub fn csv(study: &Study, analysis: &Analysis) -> Result<Vec<u8>, csv::Error> {
    let metrics: BTreeSet<&String> = study.runs.values().flat_map(|r| r.block.metrics.keys()).collect();
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header = vec![
        "study",
        "stage",
        "variant",
        "profile",
        "engine",
        "flags",
        "env",
        "status",
        "run",
        "attempt",
        "engine_version",
        "date",
        "recorded",
    ];
    header.extend(metrics.iter().map(|m| m.as_str()));
    // The accuracy columns, for a study that evaluates accuracy.
    let gated = !study.spec.evaluations.is_empty();
    if gated {
        header.extend(ACCURACY_COLUMNS);
    }
    w.write_record(header.iter().map(|cell| formula_safe(cell).into_owned()))?;
    let mut lines = Vec::new();
    for stage in &analysis.stages {
        for v in &stage.variants {
            let variant = Variant {
                stage: stage.id.clone(),
                variant: v.id.clone(),
                engine: v.command.engine.clone(),
                flags: v.command.flags.clone(),
                env: v.command.env.iter().map(|(k, val)| format!("{k}={val}")).collect(),
            };
            lines.extend(run_lines(study, &variant, runs_of(study, analysis, &stage.id, v)));
            lines.extend(point_lines(study, &variant));
        }
    }
    lines.extend(superseded_lines(study, analysis));
    for line in lines {
        let block = line.run_of.map(|r| &r.block);
        let target = line.profile == *study.spec.target_profile.get_ref();
        let accuracy = if gated { accuracy_cells(analysis, &line.of).filter(|_| target) } else { None };
        let mut record = vec![
            study.id.clone(),
            line.of.stage,
            line.of.variant,
            line.profile,
            line.of.engine,
            json_list(&line.of.flags),
            json_list(&line.of.env),
            line.status,
            line.run,
            line.attempt,
            line.was.as_ref().map(|p| p.engine_version.clone()).unwrap_or_default(),
            line.was.as_ref().and_then(|p| p.date.clone()).unwrap_or_default(),
            line.was.as_ref().map(recorded).unwrap_or_default(),
        ];
        record
            .extend(metrics.iter().map(|m| block.and_then(|b| b.metric(m)).map(|x| x.to_string()).unwrap_or_default()));
        if gated {
            record.extend(accuracy.unwrap_or_else(|| vec![String::new(); ACCURACY_COLUMNS.len()]));
        }
        w.write_record(record.iter().map(|cell| formula_safe(cell).into_owned()))?;
    }
    w.into_inner().map_err(|e| e.into_error().into())
}

/// What a measurement recorded of its machine and engine, as a JSON object of the facts
/// `analyze` names (`{"gpu-model": "...", "package torch": "2.13.0"}`); empty when nothing was.
fn recorded(was: &crate::study::Provenance) -> String {
    let Some(machine) = &was.machine else { return String::new() };
    let facts: std::collections::BTreeMap<String, String> = crate::analysis::machine::facts_of(&was.engine, machine)
        .into_iter()
        .map(|(s, f)| (s.of().map_or(s.key().to_string(), |of| format!("{} {of}", s.key())), f.value))
        .collect();
    serde_json::to_string(&facts).unwrap_or_default()
}

/// The columns of a variant's accuracy: its share right (percent), its questions, its
/// difference from the base in points with the 95% interval, and the gate's verdict.
const ACCURACY_COLUMNS: [&str; 6] = [
    "accuracy_percent",
    "accuracy_questions",
    "accuracy_difference_points",
    "accuracy_difference_low",
    "accuracy_difference_high",
    "accuracy_verdict",
];

/// A variant's accuracy cells, when its stage judged it.
fn accuracy_cells(analysis: &Analysis, of: &Variant) -> Option<Vec<String>> {
    let gate = analysis.stage(&of.stage)?.accuracy.as_ref()?;
    let j = gate.variants.iter().find(|j| j.variant == of.variant)?;
    let text = |x: Option<f64>| x.map(|x| x.to_string()).unwrap_or_default();
    let verdict = serde_json::to_value(j.verdict).ok().and_then(|v| v["kind"].as_str().map(str::to_string));
    Some(vec![
        text(j.share.map(|s| s.percent)),
        j.share.map(|s| s.questions.to_string()).unwrap_or_default(),
        text(j.difference.map(|d| d.points)),
        text(j.difference.map(|d| d.low)),
        text(j.difference.map(|d| d.high)),
        verdict.unwrap_or_default(),
    ])
}

/// What a row says of the configuration it measured.
#[derive(Clone)]
struct Variant {
    stage: String,
    variant: String,
    engine: String,
    flags: Vec<String>,
    env: Vec<String>,
}

/// One row of the CSV: a measurement of a run, what measured it, and its status.
struct Line<'a> {
    of: Variant,
    profile: String,
    status: String,
    run: String,
    attempt: String,
    was: Option<crate::study::Provenance>,
    run_of: Option<&'a crate::study::Run>,
}

fn status_name(s: RunStatus) -> &'static str {
    match s {
        RunStatus::Ok => "ok",
        RunStatus::LostRequests { .. } => "lost-requests",
        RunStatus::Incomplete => "incomplete",
    }
}

/// A variant's runs with their status: its run on the target profile (measured, reused,
/// failed or missing), then every other profile it has a run of.
fn runs_of(
    study: &Study,
    analysis: &Analysis,
    stage: &str,
    v: &crate::analysis::VariantAnalysis,
) -> Vec<(String, String, Option<RunKey>)> {
    let status = match &v.outcome {
        Outcome::Failed { class } => format!(
            "failed:{}",
            serde_json::to_value(class).ok().and_then(|x| x.as_str().map(str::to_string)).unwrap_or_default()
        ),
        Outcome::Missing => "missing".to_string(),
        _ => v.measure.as_ref().map_or("missing".to_string(), |m| status_name(m.status).to_string()),
    };
    let target_key = v.measure.as_ref().map(|m| m.run.clone());
    let mut rows = vec![(analysis.target_profile.clone(), status, target_key)];
    for p in &study.spec.profiles {
        let id = p.id.get_ref();
        if *id == analysis.target_profile {
            continue;
        }
        let key = RunKey::new(stage, &v.id, id);
        if let Some(status) = crate::analysis::chain::run_status(study, &key) {
            rows.push((id.clone(), status_name(status).to_string(), Some(key)));
        }
    }
    rows
}

/// A row for each measurement of each run, in the sample's order, with its own status and the
/// attempt (engine start) it was taken in.
fn run_lines<'a>(study: &'a Study, of: &Variant, rows: Vec<(String, String, Option<RunKey>)>) -> Vec<Line<'a>> {
    let mut lines = Vec::new();
    for (profile, status, key) in rows {
        let was = key.as_ref().and_then(|k| study.provenance(k));
        let sample = key.as_ref().map(|k| study.sample(k)).unwrap_or_default();
        let starts = key.as_ref().and_then(|k| study.starts.get(k));
        for i in 0..sample.len().max(1) {
            let run = sample.get(i).copied();
            let attempt = match (i, starts.and_then(|s| s.get(i)).copied().flatten()) {
                (0, _) => was.as_ref().map(|p| p.attempt.to_string()).unwrap_or_default(),
                (_, Some(n)) => n.to_string(),
                (_, None) => "0".to_string(),
            };
            let status = match (i, key.as_ref().zip(run)) {
                (0, _) | (_, None) => status.clone(),
                (_, Some((k, r))) => measurement_status(study, k, r).to_string(),
            };
            let run_name = key.as_ref().map(|k| k.name()).unwrap_or_default();
            lines.push(Line {
                of: of.clone(),
                profile: profile.clone(),
                status,
                run: run_name,
                attempt,
                was: was.clone(),
                run_of: run,
            });
        }
    }
    lines
}

/// Every point of a variant's load curves is a run of its own: a row each, for every search.
fn point_lines<'a>(study: &'a Study, of: &Variant) -> Vec<Line<'a>> {
    let mut lines = Vec::new();
    for p in study.spec.profiles.iter().filter(|p| p.load.is_some()) {
        for point in study.searches(&of.stage, &of.variant, p.id.get_ref()).iter().flat_map(|s| &s.points) {
            let standing = study.runs.get(&point.key).zip(point.run.as_ref()).is_some_and(|(a, b)| a.path == b.path);
            let status = match &point.run {
                None => "failed".to_string(),
                Some(_) if standing => crate::analysis::chain::run_status(study, &point.key)
                    .map_or("failed".to_string(), |s| status_name(s).to_string()),
                Some(r) => measurement_status(study, &point.key, r).to_string(),
            };
            lines.push(Line {
                of: of.clone(),
                profile: point.key.point(),
                status,
                run: point.key.name(),
                attempt: point.provenance.as_ref().map(|p| p.attempt.to_string()).unwrap_or_default(),
                was: point.provenance.clone(),
                run_of: point.run.as_ref(),
            });
        }
    }
    lines
}

/// Every earlier result a later attempt superseded (status `superseded`, kept on disk).
fn superseded_lines<'a>(study: &'a Study, analysis: &'a Analysis) -> Vec<Line<'a>> {
    let mut lines = Vec::new();
    for past in &analysis.superseded {
        let key = &past.run;
        let attempt = study.attempts.get(key).and_then(|list| list.iter().find(|a| a.number == past.attempt));
        let flags: Vec<String> =
            past.command.as_deref().map(Flag::from_argv).unwrap_or_default().into_iter().map(|f| f.text).collect();
        let of = Variant {
            stage: key.stage.clone(),
            variant: key.variant.clone(),
            engine: past.engine.clone().unwrap_or_default(),
            flags,
            env: Vec::new(),
        };
        lines.push(Line {
            of,
            profile: key.point(),
            status: "superseded".to_string(),
            run: past.run.to_string(),
            attempt: past.attempt.to_string(),
            was: Some(crate::study::Provenance {
                attempt: past.attempt,
                engine: String::new(),
                engine_version: past.engine_version.clone().unwrap_or_default(),
                command: Vec::new(),
                benchmark_command: None,
                date: past.date.clone(),
                dataset_fingerprint: None,
                machine: attempt.and_then(|a| a.manifest.as_ref()).and_then(|m| m.machine.clone()),
            }),
            run_of: attempt.and_then(|a| a.run.as_ref()),
        });
    }
    lines
}

/// A list of arguments (flags, or `NAME=value` settings) as one cell: a JSON array of strings,
/// each argument exactly as the engine was given it. A reader decodes it with any JSON parser;
/// the cell starts with `[`, so no spreadsheet takes it for a formula and no argument needs
/// to be changed to keep it from being one (a flag starts with `-`).
fn json_list(items: &[String]) -> String {
    serde_json::to_string(items).unwrap_or_else(|_| "[]".to_string())
}

/// A cell a spreadsheet will not run as a formula: text that starts with `=`, `+`, `-`, `@`, a
/// tab or a carriage return gets a `'` before it (the usual CSV-injection advice). Numbers are
/// left as they are, so `-3.5` stays a number.
pub fn formula_safe(cell: &str) -> std::borrow::Cow<'_, str> {
    let risky = cell.starts_with(['=', '+', '-', '@', '\t', '\r']);
    if risky && cell.parse::<f64>().is_err() {
        std::borrow::Cow::Owned(format!("'{cell}"))
    } else {
        std::borrow::Cow::Borrowed(cell)
    }
}

/// The analysis as pretty JSON with a final newline (what `perflab analyze` prints).
pub fn json(analysis: &Analysis) -> serde_json::Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(analysis)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// The status of one measurement of a repeated run, or of a curve's point from an earlier
/// search: `ok` when it passes the single-run checks.
fn measurement_status(study: &Study, key: &RunKey, run: &crate::study::Run) -> &'static str {
    if study.whole(key, run) {
        "ok"
    } else if !run.block.complete {
        "incomplete"
    } else {
        "lost-requests"
    }
}

#[cfg(test)]
mod tests {
    use super::formula_safe;

    #[test]
    fn formulas_are_neutralised_and_numbers_kept() {
        assert_eq!(formula_safe("=HYPERLINK(\"http://x\")"), "'=HYPERLINK(\"http://x\")");
        assert_eq!(formula_safe("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(formula_safe("+cmd"), "'+cmd");
        assert_eq!(formula_safe("--tp-size 8"), "'--tp-size 8");
        assert_eq!(formula_safe("-3.5"), "-3.5");
        assert_eq!(formula_safe("+2"), "+2");
        assert_eq!(formula_safe("13760.98"), "13760.98");
        assert_eq!(formula_safe("sglang"), "sglang");
    }
}
