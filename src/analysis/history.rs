//! How old the results a page reads are: which engine version measured each run and when,
//! whether the page mixes versions or rests on runs the study no longer describes, and the
//! earlier results a re-measurement superseded (kept on disk, listed in the exports).

use super::{Analysis, Chain};
use crate::study::{Attempt, RunKey, Stale, Study, staleness};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// A run the page reads, and what measured it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measured {
    /// `stage/variant/profile`.
    pub run: RunKey,
    /// The engine (its id in the study) that measured it: as recorded, else the configuration's.
    pub engine: String,
    /// `None` when nothing recorded it: a run placed by hand that `runs/recorded.json` does not
    /// name yet (shown with the version the study names).
    pub engine_version: Option<String>,
    /// `YYYY-MM-DD`, when known.
    pub date: Option<String>,
    /// Why the study, as it is now, would measure it differently (empty when it would not).
    pub stale: Vec<Stale>,
    /// Its result replaced an earlier one measured with another engine, version or command.
    pub remeasured: bool,
}

/// One engine's versions among the runs a page reads.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EngineAge {
    /// The engine's id in the study.
    pub engine: String,
    /// The version the study names now.
    pub current: String,
    /// Each version that measured runs the page reads: how many, first and last date.
    pub versions: Vec<VersionAge>,
}

/// One engine version among the runs a page reads.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VersionAge {
    /// The version as recorded (the study's current one for a run that recorded none).
    pub version: String,
    /// How many of the runs the page reads it measured (a count).
    pub runs: usize,
    /// The earliest date (`YYYY-MM-DD`) of those runs; `None` when none recorded a date.
    pub first: Option<String>,
    /// The latest date (`YYYY-MM-DD`) of those runs; `None` when none recorded a date.
    pub last: Option<String>,
}

/// The age of a page's results.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Age {
    /// Every run the page reads, in run order.
    pub runs: Vec<Measured>,
    /// The engines that measured them, in the study's order.
    pub engines: Vec<EngineAge>,
    /// The page mixes generations of results: some engine's runs come from more than one
    /// version, or some runs were measured again after a change while others it reads were not.
    pub mixed: bool,
}

impl Age {
    /// Runs measured with something other than what the study says now.
    pub fn stale(&self) -> impl Iterator<Item = &Measured> {
        self.runs.iter().filter(|m| !m.stale.is_empty())
    }
}

/// An earlier result of a run that a later attempt superseded: still on disk.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PastResult {
    /// The run (`stage/variant/profile`).
    pub run: RunKey,
    /// The attempt that measured it: `n` of `attempts/<n>/`, counted from 1; 0 for the file
    /// at `runs/<stage>/<variant>/<profile>.*`.
    pub attempt: u32,
    /// The engine that measured it; `None` when not recorded.
    pub engine: Option<String>,
    /// The engine's version; `None` when not recorded.
    pub engine_version: Option<String>,
    /// `YYYY-MM-DD` of the measurement; `None` when not recorded.
    pub date: Option<String>,
    /// The engine's command, when recorded.
    pub command: Option<Vec<String>>,
    /// The result file, relative to the study folder.
    pub path: String,
    /// Its objective, in the objective's unit; `None` when its result does not report it.
    pub value: Option<f64>,
    /// Its first secondary metric, in that metric's unit; `None` when not reported.
    pub secondary: Option<f64>,
}

/// Every run an analysis reads: each variant's, the baseline's and the optimized
/// configuration's on every compared profile.
fn runs_read(a: &Analysis) -> BTreeSet<RunKey> {
    let variants = a.stages.iter().flat_map(|s| &s.variants).filter_map(|v| v.measure.as_ref());
    let scenarios = a.scenarios.iter().flat_map(|s| s.baseline.iter().chain(&s.optimized));
    let ends = a.baseline_measure.iter().chain(&a.optimized_measure);
    variants.chain(scenarios).chain(ends).map(|m| m.run.clone()).collect()
}

/// The age of the runs an analysis reads.
pub fn age(study: &Study, chain: &Chain, a: &Analysis) -> Age {
    let mut runs = Vec::new();
    for key in runs_read(a) {
        let Some(config) = chain.config_of(&key) else { continue };
        let was = study.provenance(&key);
        runs.push(Measured {
            run: key.clone(),
            engine: was.as_ref().map_or(config.engine.clone(), |p| p.engine.clone()),
            engine_version: was.as_ref().map(|p| p.engine_version.clone()),
            date: was.and_then(|p| p.date),
            stale: staleness(study, &key, config).unwrap_or_default(),
            remeasured: remeasured(study, &key),
        });
    }
    let mut by_engine: BTreeMap<&str, BTreeMap<String, VersionAge>> = BTreeMap::new();
    for m in &runs {
        let current = study.engine(&m.engine).map_or(String::new(), |e| e.version.clone());
        let version = m.engine_version.clone().unwrap_or(current);
        let v = by_engine.entry(&m.engine).or_default().entry(version.clone()).or_insert(VersionAge {
            version,
            runs: 0,
            first: None,
            last: None,
        });
        v.runs += 1;
        if let Some(d) = &m.date {
            v.first = Some(v.first.take().map_or(d.clone(), |f| f.min(d.clone())));
            v.last = Some(v.last.take().map_or(d.clone(), |l| l.max(d.clone())));
        }
    }
    // Engines in the study's order.
    let engines: Vec<EngineAge> = study
        .spec
        .engines
        .iter()
        .filter_map(|e| {
            let versions = by_engine.get(e.id.get_ref().as_str())?;
            Some(EngineAge {
                engine: e.id.get_ref().clone(),
                current: e.version.clone(),
                versions: versions.values().cloned().collect(),
            })
        })
        .collect();
    let remeasured_fresh = runs.iter().any(|m| m.remeasured && m.stale.is_empty());
    let mixed =
        engines.iter().any(|e| e.versions.len() > 1) || (remeasured_fresh && runs.iter().any(|m| !m.stale.is_empty()));
    Age { runs, engines, mixed }
}

/// Whether the result that stands for a run replaced one measured with another setup.
fn remeasured(study: &Study, key: &RunKey) -> bool {
    let Some(list) = study.attempts.get(key) else { return false };
    let Some(now) = Attempt::select(list) else { return false };
    let Some(setup) = study.provenance_of(key, now) else { return false };
    list.iter()
        .filter(|a| a.number < now.number && a.succeeded())
        .any(|a| study.provenance_of(key, a).is_some_and(|p| !p.same_setup(&setup)))
}

/// The results of every run that a later attempt superseded, oldest first within a run.
pub fn superseded(study: &Study) -> Vec<PastResult> {
    let objective = study.spec.objective.get_ref();
    let secondary = study.spec.first_secondary().get_ref();
    let mut out = Vec::new();
    for (key, list) in &study.attempts {
        // The attempt that stands and the attempts it repeats form one sample: none of them
        // is superseded.
        let sample: Vec<u32> =
            Attempt::select(list).map_or(Vec::new(), |s| Attempt::series(list, s).iter().map(|a| a.number).collect());
        // A curve point's measurements belong to the searches the curve lists (each its own row).
        let numbered = |a: &Attempt| a.manifest.as_ref().is_some_and(|m| m.search.is_some());
        for a in list.iter().filter(|a| a.succeeded() && !sample.contains(&a.number) && !numbered(a)) {
            let Some(run) = &a.run else { continue };
            let was = study.provenance_of(key, a);
            out.push(PastResult {
                run: key.clone(),
                attempt: a.number,
                engine: was.as_ref().map(|p| p.engine.clone()),
                engine_version: was.as_ref().map(|p| p.engine_version.clone()),
                date: was.as_ref().and_then(|p| p.date.clone()),
                command: was.map(|p| p.command),
                path: run.path.strip_prefix(&study.dir).unwrap_or(&run.path).display().to_string(),
                value: run.block.metric(objective),
                secondary: run.block.metric(secondary),
            });
        }
    }
    out
}

/// `perflab check`'s warnings about the age of the runs a page reads: each run measured with
/// something other than what the study says now, at its file.
pub fn diagnostics(study: &Study, age: &Age) -> Vec<crate::diag::Diagnostic> {
    let mut out = Vec::new();
    for m in age.stale() {
        let key = &m.run;
        let Some(run) = study.runs.get(key) else { continue };
        let version = m.engine_version.as_deref().unwrap_or("(not recorded)");
        let date = m.date.as_deref().unwrap_or("an unrecorded date");
        let what = if age.mixed {
            "the page mixes engine versions"
        } else {
            "the page shows results the study no longer describes"
        };
        out.push(crate::diag::Diagnostic::new(
            &run.path,
            run.block.line,
            1,
            format!(
                "warning: {what}: measured with {} {version} on {date}; {} (`perflab run --rerun-stale`)",
                m.engine,
                Stale::describe_all(&m.stale)
            ),
        ));
    }
    out
}
