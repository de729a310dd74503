//! A study: its spec (`study.toml`) and the raw results stored beside it.
//!
//! Layout of a study folder:
//! ```text
//! results/<study-id>/study.toml
//! results/<study-id>/runs/<stage>/<variant>/<profile>.txt   raw benchmark output, verbatim
//!                                            (.json / .jsonl for JSON results): attempt 0
//! results/<study-id>/runs/<stage>/<variant>/attempts/<n>/   one engine start of `perflab run`:
//!     engine.log, <profile>.txt, <profile>.manifest.json
//! results/<study-id>/runs/recorded.json       what measured the results placed by hand
//! ```
//! A run (stage, variant, profile) may have several attempts; the one that stands is chosen by
//! [`Attempt::select`]. A variant whose configuration is identical to one measured earlier needs
//! no run file: the earlier run is reused.

pub mod command;
mod config;
pub mod curve;
pub mod evaluation;
use crate::curve::Axis;
mod history;
pub mod machine;
mod manifest;
pub mod outcome;
mod placement;
mod reference;
mod runs;
mod spec;
pub mod translations;
mod validate;

pub use config::{Config, Flag, FlagChanges, Identity};
pub use history::{Provenance, RECORDED_FILE, Recorded, Stale, read_recorded, staleness, staleness_of, write_recorded};
pub use machine::{Fact, Machine};
pub use manifest::{Manifest, RecordedFailure, RunState};
pub use reference::{Ref, RunKey, Source, VariantRef};
pub use spec::*;

use crate::diag::{Diagnostic, Diagnostics};
use crate::metric::expr as metric_expr;
use crate::parse::Block;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file name of a study's spec.
pub const SPEC_FILE: &str = "study.toml";
/// The folder of a study's raw results.
pub const RUNS_DIR: &str = "runs";
/// File endings of raw results in the runs folder.
const RESULT_EXTENSIONS: &[&str] = &["txt", "json", "jsonl"];
/// Endings of files the runner writes beside a result, which are not results.
const SIDE_FILES: &[&str] = &[".manifest.json", ".tmp", curve::REQUESTS_SUFFIX];
/// The engine's log in a variant's folder.
pub const ENGINE_LOG: &str = "engine.log";
/// Suffix of a run's manifest.
pub const MANIFEST_SUFFIX: &str = ".manifest.json";
/// The folder of a variant's numbered attempts: `runs/<stage>/<variant>/attempts/<n>/`.
pub const ATTEMPTS_DIR: &str = "attempts";

/// A stored raw result.
#[derive(Debug, Clone)]
pub struct Run {
    pub path: PathBuf,
    /// The file's text, verbatim: the evidence a page shows.
    pub text: String,
    pub block: Block,
}

/// One measurement of a run: the files at `runs/<stage>/<variant>/<profile>.*` (attempt 0, a
/// result placed by hand or written by an earlier perflab) or in `runs/<stage>/<variant>/attempts/<n>/`
/// (one engine start of `perflab run`). Later attempts never remove earlier ones.
#[derive(Debug, Clone)]
pub struct Attempt {
    pub number: u32,
    /// The result, when the benchmark left one.
    pub run: Option<Run>,
    /// Its repeated measurements in the same engine start (`<profile>.r2.txt`, ...), by number.
    pub repeats: BTreeMap<u32, Run>,
    pub manifest: Option<Manifest>,
}

impl Attempt {
    /// A result that counts: a result file whose attempt did not fail (attempt 0's result file
    /// always counts: a manifest beside it that says failed is of a later, failed measurement).
    pub fn succeeded(&self) -> bool {
        self.run.is_some() && (self.number == 0 || self.manifest.as_ref().is_none_or(|m| m.state == RunState::Done))
    }

    /// The failure of an attempt that failed (and left no result that counts).
    pub fn failure(&self) -> Option<&RecordedFailure> {
        let m = self.manifest.as_ref().filter(|m| m.state == RunState::Failed)?;
        // A cluster's own end of a job (cancelled from outside, a node that failed), which an
        // earlier perflab recorded as the configuration's failure, does not stand: the run is
        // pending again.
        let cluster_side = |f: &&RecordedFailure| {
            m.job_id.is_some() && matches!(f.class, FailureClass::Cancelled | FailureClass::NodeFailure)
        };
        m.failure.as_ref().filter(|f| !self.succeeded() && !cluster_side(f))
    }

    /// The attempts whose results form one sample with `chosen` (a success of `attempts`):
    /// `chosen`, and while an attempt repeats the ones before it (its manifest says `repeat`),
    /// the successful attempts before it with the same engine, version and command, back to the
    /// one that started the series. Newest first.
    pub fn series<'a>(attempts: &'a [Attempt], chosen: &'a Attempt) -> Vec<&'a Attempt> {
        let mut out = vec![chosen];
        let mut repeats = chosen.manifest.as_ref().is_some_and(|m| m.repeat);
        for a in attempts.iter().rev().filter(|a| a.number < chosen.number && a.succeeded()) {
            if !repeats {
                break;
            }
            let same = match (&chosen.manifest, &a.manifest) {
                (Some(x), Some(y)) => history::Provenance::of_manifest(chosen.number, x)
                    .same_setup(&history::Provenance::of_manifest(a.number, y)),
                _ => true,
            };
            if !same {
                break;
            }
            out.push(a);
            repeats = a.manifest.as_ref().is_some_and(|m| m.repeat);
        }
        out
    }

    /// Which of a run's attempts (sorted by number) stands: the newest that succeeded, unless a
    /// newer one failed with another engine, engine version or command (the configuration
    /// changed and its new form failed). A failed repeat of the same command never replaces a
    /// result. With no success, the newest failure. Interrupted attempts never stand.
    pub fn select(attempts: &[Attempt]) -> Option<&Attempt> {
        let success = attempts.iter().rev().find(|a| a.succeeded());
        let failure = attempts.iter().rev().find(|a| a.failure().is_some());
        match (success, failure) {
            (Some(s), Some(f)) if f.number > s.number => {
                let changed = match (&s.manifest, &f.manifest) {
                    (Some(a), Some(b)) => !history::Provenance::of_manifest(s.number, a)
                        .same_setup(&history::Provenance::of_manifest(f.number, b)),
                    _ => false,
                };
                Some(if changed { f } else { s })
            }
            (Some(s), _) => Some(s),
            (None, f) => f,
        }
    }
}

/// A loaded, validated study.
#[derive(Debug, Clone)]
pub struct Study {
    /// The folder name.
    pub id: String,
    pub dir: PathBuf,
    /// Path of `study.toml`.
    pub file: PathBuf,
    /// The text of `study.toml`, for positions.
    pub source: String,
    pub spec: Spec,
    /// The result that stands for each run (see [`Attempt::select`]).
    pub runs: BTreeMap<RunKey, Run>,
    /// The other measurements that form one sample with the result that stands: its repeats in
    /// the same engine start and those of the attempts it repeats (see [`Study::sample`]).
    pub repeats: BTreeMap<RunKey, Vec<Run>>,
    /// The engine start of each measurement of a run's sample, in [`Study::sample`]'s order:
    /// its attempt's number, or `None` for a result placed by hand (a start of its own).
    pub starts: BTreeMap<RunKey, Vec<Option<u32>>>,
    /// The sequential design of a stage's comparison, by stage id: the most engine starts of
    /// each side it plans (from the manifests of `--until-confident`, or set by the runner).
    pub designs: BTreeMap<String, u32>,
    /// The record of the attempt that stands for each run, when `perflab run` made it.
    pub manifests: BTreeMap<RunKey, Manifest>,
    /// Every attempt at each run, oldest first.
    pub attempts: BTreeMap<RunKey, Vec<Attempt>>,
    /// What the runs placed by hand were measured with (`runs/recorded.json`).
    pub recorded: BTreeMap<RunKey, Recorded>,
    /// The searches of each configuration's load curve, by the curve's run
    /// (`<stage>/<variant>/<profile>`), oldest first (see [`Study::searches`]).
    pub searches: BTreeMap<RunKey, Vec<curve::Search>>,
    /// The accuracy recorded for each (stage, variant): the attempt's number and its scores (the
    /// newest attempt's stand).
    pub scores: BTreeMap<(String, String), (u32, crate::bench::eval::Scores)>,
}

impl Study {
    /// Reads `dir/study.toml` and every run under `dir/runs`, and checks that every id is
    /// unique, every reference resolves and every run file is in its place and parses.
    pub fn load(dir: &Path) -> Result<Study, Diagnostics> {
        let file = dir.join(SPEC_FILE);
        let source = std::fs::read_to_string(&file)
            .map_err(|e| Diagnostics(vec![Diagnostic::new(&file, 0, 0, format!("cannot read: {e}"))]))?;
        let spec: Spec = toml::from_str(&source).map_err(|e| {
            let offset = e.span().map_or(0, |s| s.start);
            let message = e.message().trim().to_string();
            Diagnostics(vec![Diagnostic::at(&file, &source, offset, message)])
        })?;
        let id = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| dir.display().to_string());
        let mut problems = Vec::new();
        if let Some(why) = id_problem(&id) {
            problems.push(Diagnostic::new(
                &file,
                0,
                0,
                format!("the study's folder name `{id}` is not a study id: {why}"),
            ));
        } else if let Some(taken) = reserved_study_id(&id) {
            problems.push(Diagnostic::new(
                &file,
                0,
                0,
                format!("the study's folder name `{id}` is taken by {taken}; rename the folder"),
            ));
        }
        problems.extend(validate::control_characters(&file, &source));
        let mut study = Study {
            id,
            dir: dir.to_path_buf(),
            file,
            source,
            spec,
            runs: BTreeMap::new(),
            repeats: BTreeMap::new(),
            starts: BTreeMap::new(),
            designs: BTreeMap::new(),
            manifests: BTreeMap::new(),
            attempts: BTreeMap::new(),
            recorded: BTreeMap::new(),
            searches: BTreeMap::new(),
            scores: BTreeMap::new(),
        };
        problems.extend(study.validate());
        problems.extend(study.load_runs());
        study.derive_metrics();
        study.attach_curves();
        if problems.is_empty() {
            Ok(study)
        } else {
            problems.sort();
            Err(Diagnostics(problems))
        }
    }

    /// A diagnostic at the position of `id` in `study.toml`.
    pub fn diag_at<T>(&self, id: &toml::Spanned<T>, message: impl Into<String>) -> Diagnostic {
        Diagnostic::at(&self.file, &self.source, id.span().start, message)
    }

    pub fn engine(&self, id: &str) -> Option<&Engine> {
        self.spec.engines.iter().find(|e| *e.id.get_ref() == id)
    }

    /// The model a configuration's engine is given: the checkpoint a variant chose, else the
    /// engine's own `model`, else the study's.
    pub fn model_of(&self, config: &Config) -> String {
        config
            .model
            .clone()
            .or_else(|| self.engine(&config.engine).and_then(|e| e.model.clone()))
            .unwrap_or_else(|| self.spec.model.clone())
    }

    /// The metric `key`: a derived metric of the study, or a canonical (or plain) one.
    pub fn metric(&self, key: &str) -> crate::metric::Metric {
        self.derived_metric(key).unwrap_or_else(|| crate::metric::Metric::of(key))
    }

    /// The derived metric `key` as a [`crate::metric::Metric`], when the study defines it.
    pub fn derived_metric(&self, key: &str) -> Option<crate::metric::Metric> {
        let d = self.spec.metrics.iter().find(|d| d.id.get_ref() == key)?;
        Some(crate::metric::Metric {
            key: key.to_string(),
            unit: d.unit,
            direction: d.better,
            decimals: d.decimals,
            name_message: None,
            label: Some(d.name.clone()),
        })
    }

    /// The value of a setup name (`gpus`, `output_tokens`, ...) for a run, in a derived metric.
    fn setup_value(&self, key: &RunKey, name: &str) -> Option<f64> {
        let profile = self.profile(&key.profile)?;
        let number = |v: Option<u64>| v.map(|v| v as f64);
        match name {
            "gpus" => {
                let own = self.variant_of(&key.config()).and_then(|(_, v)| v.gpus.as_ref());
                Some(own.or(self.spec.gpus.as_ref()).map_or(1, |g| *g.get_ref()) as f64)
            }
            "replicas" => {
                let own = self.variant_of(&key.config()).and_then(|(_, v)| v.replicas.as_ref());
                Some(own.or(self.spec.replicas.as_ref()).map_or(1, |g| *g.get_ref()) as f64)
            }
            "input_tokens" => number(profile.input_tokens),
            "output_tokens" => number(profile.output_tokens),
            "total_requests" => Some(profile.total_requests as f64),
            "max_concurrency" => match key.load {
                Some(load) if self.curve(&key.profile).is_some_and(|(_, l)| l.axis == Axis::Concurrency) => {
                    Some(load as f64)
                }
                _ => number(profile.max_concurrency),
            },
            _ => None,
        }
    }

    /// Adds each derived metric to every run that has what it needs, in the order they are
    /// defined (a derived metric may use the ones before it). A run without a value it needs
    /// (or with a division by zero) gets no value, like a metric its block does not print.
    fn derive_metrics(&mut self) {
        if self.spec.metrics.is_empty() {
            return;
        }
        let mut runs = std::mem::take(&mut self.runs);
        let mut repeats = std::mem::take(&mut self.repeats);
        let derived = self.derived();
        for (key, run) in runs.iter_mut() {
            self.derive_into(&derived, key, &mut run.block);
        }
        for (key, list) in repeats.iter_mut() {
            for run in list {
                self.derive_into(&derived, key, &mut run.block);
            }
        }
        self.runs = runs;
        self.repeats = repeats;
    }

    /// The study's derived metrics, each parsed once: its id and its expression (one that does
    /// not parse is left out; `perflab check` names it).
    pub(crate) fn derived(&self) -> Vec<(&str, metric_expr::Expr)> {
        let parsed =
            self.spec.metrics.iter().map(|d| (d.id.get_ref().as_str(), metric_expr::Expr::parse(d.expr.get_ref())));
        parsed.filter_map(|(id, expr)| Some((id, expr.ok()?))).collect()
    }

    /// Adds the derived metrics (from [`Study::derived`]) to one block of run `key` (see
    /// [`Study::derive_metrics`]).
    pub(crate) fn derive_into(&self, derived: &[(&str, metric_expr::Expr)], key: &RunKey, block: &mut Block) {
        for (id, expr) in derived {
            let metrics = &block.metrics;
            let value = expr.eval(&|name| metrics.get(name).copied().or_else(|| self.setup_value(key, name)));
            if let Some(v) = value {
                block.metrics.insert(id.to_string(), v);
            }
        }
    }

    /// Every measurement of a run that counts: the result that stands first, then its repeats.
    /// Empty for a run without a result.
    pub fn sample(&self, key: &RunKey) -> Vec<&Run> {
        let Some(run) = self.runs.get(key) else { return Vec::new() };
        std::iter::once(run).chain(self.repeats.get(key).into_iter().flatten()).collect()
    }

    /// The values of `metric` in a run's sample (measurements without it are left out, and so
    /// are those [`Study::counted`] leaves out).
    pub fn values(&self, key: &RunKey, metric: &str) -> Vec<f64> {
        self.counted(key).iter().filter_map(|(r, _)| r.block.metric(metric)).collect()
    }

    /// Whether one measurement of a run passes the checks a single run must pass: its block is
    /// complete, it completed every request of its profile and failed none.
    pub fn whole(&self, key: &RunKey, run: &Run) -> bool {
        // A curve's measurement is a search's boundary point, which met the SLO's success rate.
        if self.curve(&key.profile).is_some() {
            return run.block.complete;
        }
        let expected = self.profile(&key.profile).map_or(0, |p| p.total_requests);
        outcome::Completion::whole(&run.block, expected)
    }

    /// The measurements of a run's sample that its figures average, with their engine start:
    /// those that are [`Study::whole`]. When none is, all of them (the run then fails the checks
    /// as a single run would, and says so).
    pub fn counted(&self, key: &RunKey) -> Vec<(&Run, Option<u32>)> {
        let starts = self.starts.get(key);
        let all: Vec<(&Run, Option<u32>)> = self
            .sample(key)
            .into_iter()
            .enumerate()
            .map(|(i, r)| (r, starts.and_then(|s| s.get(i).copied()).flatten()))
            .collect();
        let whole: Vec<(&Run, Option<u32>)> = all.iter().copied().filter(|(r, _)| self.whole(key, r)).collect();
        if whole.is_empty() { all } else { whole }
    }

    /// How many measurements of a run's sample pass the single-run checks ([`Study::whole`]).
    pub fn whole_count(&self, key: &RunKey) -> usize {
        self.sample(key).into_iter().filter(|r| self.whole(key, r)).count()
    }

    /// How many more measurements a run needs to hold `wanted` that pass the single-run
    /// checks. One that fails them is replaced by another, up to `wanted` replacements; past
    /// that the run stands as measured, and its warnings say what was left out.
    pub fn measurements_missing(&self, key: &RunKey, wanted: u32) -> u32 {
        let (taken, whole) = (self.sample(key).len() as u32, self.whole_count(key) as u32);
        if taken - whole >= wanted { 0 } else { wanted.saturating_sub(whole) }
    }

    /// The measurements of a run's sample that [`Study::counted`] leaves out.
    pub fn left_out(&self, key: &RunKey) -> Vec<&Run> {
        let counted = self.counted(key);
        self.sample(key).into_iter().filter(|r| !counted.iter().any(|(c, _)| std::ptr::eq(*c, *r))).collect()
    }

    /// The value of `metric` of each engine start of a run's counted measurements: the mean
    /// of the measurements taken in that start, in the sample's order (a result placed by hand
    /// is a start of its own). The unit of a run's interval: measurements in one start share
    /// its luck, so only the spread between starts says what another start would give.
    pub fn start_values(&self, key: &RunKey, metric: &str) -> Vec<f64> {
        self.start_groups(key, metric).into_iter().map(|(_, v)| v.iter().sum::<f64>() / v.len() as f64).collect()
    }

    /// The values of `metric` of a run's counted measurements, one list an engine start (with
    /// its attempt's number; `None` for a result placed by hand), in the sample's order (what
    /// [`Study::start_values`] averages).
    pub fn start_groups(&self, key: &RunKey, metric: &str) -> Vec<(Option<u32>, Vec<f64>)> {
        let mut groups: Vec<(Option<u32>, Vec<f64>)> = Vec::new();
        for (run, start) in self.counted(key) {
            let Some(v) = run.block.metric(metric) else { continue };
            match groups.iter_mut().find(|(s, _)| start.is_some() && s == &start) {
                Some((_, values)) => values.push(v),
                None => groups.push((start, vec![v])),
            }
        }
        groups
    }

    /// Whether `perflab run` takes a run's measurements on `profile` one an engine start: with
    /// `repeat_across_restarts`, and always for a load curve (a measurement is a search).
    pub fn one_a_start(&self, profile: &str) -> bool {
        self.spec.repeat_across_restarts || self.curve(profile).is_some()
    }

    /// The engine starts a side that a stage's comparison on the target profile takes before
    /// `--until-confident` looks again: its `repeats` when they are taken one a start, else one.
    pub fn first_starts(&self, stage: &str) -> u32 {
        let target = self.spec.target_profile.get_ref();
        if self.one_a_start(target) { self.repeats_wanted(stage, target) } else { 1 }
    }

    /// The measurements `perflab run` takes of a run of `stage` on `profile`: the stage's
    /// `repeats`, else the profile's, else the study's, else one.
    pub fn repeats_wanted(&self, stage: &str, profile: &str) -> u32 {
        // A load curve's measurements are its searches, one an engine start.
        let stage = self.stage(stage).and_then(|s| s.repeats.as_ref());
        let profile = self.profile(profile).and_then(|p| p.repeats.as_ref());
        stage.or(profile).or(self.spec.repeats.as_ref()).map_or(1, |r| *r.get_ref()).max(1)
    }

    /// A fingerprint of the contents of profile `id`'s dataset file (FNV-1a, 64-bit, in hex),
    /// when it has one that can be read: it tells that the file changed, not who changed it.
    pub fn dataset_fingerprint(&self, id: &str) -> Option<String> {
        let path = self.dir.join(self.profile(id)?.dataset_path.as_ref()?);
        let bytes = std::fs::read(path).ok()?;
        let hash =
            bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3));
        Some(format!("{hash:016x}"))
    }

    /// The profile `id` names; a curve's point (`chat@16`) names its curve's profile.
    pub fn profile(&self, id: &str) -> Option<&Profile> {
        let id = crate::curve::split_point(id).map_or(id, |(p, _)| p);
        self.spec.profiles.iter().find(|p| *p.id.get_ref() == id)
    }

    pub fn stage(&self, id: &str) -> Option<&Stage> {
        self.spec.stages.iter().find(|s| *s.id.get_ref() == id)
    }

    pub fn stage_index(&self, id: &str) -> Option<usize> {
        self.spec.stages.iter().position(|s| *s.id.get_ref() == id)
    }

    /// The variant named by `stage/variant`.
    pub fn variant(&self, reference: &str) -> Option<(&Stage, &Variant)> {
        self.variant_of(&VariantRef::parse(reference)?)
    }

    /// The stage and the spec of a variant.
    pub fn variant_of(&self, reference: &VariantRef) -> Option<(&Stage, &Variant)> {
        let stage = self.stage(reference.stage())?;
        let variant = stage.variants.iter().find(|x| x.id.get_ref() == reference.variant())?;
        Some((stage, variant))
    }

    /// The profiles the baseline and the optimized configuration are compared on.
    pub fn compare_profiles(&self) -> Vec<&Profile> {
        match &self.spec.compare_profiles {
            Some(ids) => ids.iter().filter_map(|id| self.profile(id.get_ref())).collect(),
            None => self.spec.profiles.iter().collect(),
        }
    }

    /// The failure recorded for a variant on a profile: in the spec, or by `perflab run`.
    pub fn failure(&self, variant: &Variant, key: &RunKey) -> Option<(FailureClass, Option<String>)> {
        if let Some(f) = &variant.failure {
            return Some((f.class, f.message.clone()));
        }
        if self.runs.contains_key(key) {
            return None;
        }
        let m = self.manifests.get(key)?;
        m.failure.as_ref().filter(|_| m.state == RunState::Failed).map(|f| (f.class, Some(f.message.clone())))
    }

    /// The run stored for a variant on a profile, if any.
    pub fn run(&self, stage: &str, variant: &str, profile: &str) -> Option<&Run> {
        self.runs.get(&RunKey::new(stage, variant, profile))
    }
}

/// A flag's text with `{model}` replaced by the model the engine is given (a flag such as
/// `--served-model-name {model}` names it).
pub fn fill_model(text: &str, model: &str) -> String {
    text.replace("{model}", model)
}

/// The file of the k-th measurement (from 1) of a profile in an engine start: `<profile>.txt`,
/// then `<profile>.r2.txt`, `<profile>.r3.txt`, ...
pub fn result_file(profile: &str, k: u32) -> String {
    if k <= 1 { format!("{profile}.txt") } else { format!("{profile}.r{k}.txt") }
}

/// The most measurements `repeats` may ask for.
pub const MAX_REPEATS: u32 = 1000;

/// Values of a run's setup a derived metric may read besides its metrics.
pub const SETUP_NAMES: &[&str] =
    &["gpus", "replicas", "input_tokens", "output_tokens", "total_requests", "max_concurrency"];

/// The longest id: ids name folders and files (`<profile>.manifest.json`, `<study>.html`), which
/// file systems limit to 255 bytes.
pub const MAX_ID_LEN: usize = 100;

/// Why `name` cannot be an id of a study, stage, variant or profile (they name folders, files and
/// links), or `None` when it can.
pub fn id_problem(name: &str) -> Option<String> {
    let plain = name.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
    if name.is_empty() || !plain || name.starts_with('.') {
        Some("ids are letters, digits, `.`, `_` and `-`, not starting with `.`".to_string())
    } else if name.len() > MAX_ID_LEN {
        Some(format!("ids are at most {MAX_ID_LEN} characters long; this one has {}", name.len()))
    } else {
        None
    }
}

/// Names a study's pages would share with a file the site, the book or the mkdocs drop-in
/// writes itself (compared without case, as a case-insensitive file system compares them), and
/// what takes each.
const RESERVED_STUDY_IDS: &[(&str, &str)] = &[
    ("index", "the site's index page"),
    ("summary", "the book's table of contents (`SUMMARY.md`)"),
    ("book", "the book's settings (`book.toml`)"),
    ("print", "mdBook's page of the whole book (`print.html`)"),
    ("toc", "mdBook's table of contents (`toc.html`)"),
    ("404", "the not-found page of mdBook and mkdocs (`404.html`)"),
    ("search", "mkdocs' search (`search/`)"),
    ("searchindex", "mdBook's search index (`searchindex.js`)"),
    ("sitemap", "mkdocs' site map (`sitemap.xml`)"),
    ("data", "the site's exports (`data/`)"),
];

/// What already takes a study id among the site's own files, when something does.
pub fn reserved_study_id(id: &str) -> Option<&'static str> {
    RESERVED_STUDY_IDS.iter().find(|(name, _)| id.eq_ignore_ascii_case(name)).map(|(_, what)| *what)
}

/// The study folders under `results` (each holding a `study.toml`), sorted by name.
pub fn discover(results: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut dirs = Vec::new();
    for entry in std::fs::read_dir(results)? {
        let path = entry?.path();
        if path.join(SPEC_FILE).is_file() {
            dirs.push(path);
        }
    }
    dirs.sort();
    Ok(dirs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attempt(number: u32, state: Option<RunState>, version: &str, result: bool) -> Attempt {
        let text = "============ Serving Benchmark Result ============\nSuccessful requests: 4\n==================================================\n";
        let run = result.then(|| Run {
            path: PathBuf::from(format!("{number}/p.txt")),
            text: text.to_string(),
            block: crate::parse_str(text).unwrap().remove(0),
        });
        let manifest = state.map(|state| {
            let command = vec!["e".into(), "--port".into(), "{port}".into()];
            let mut m = Manifest::start("e", version, command, BTreeMap::new(), Vec::new(), "");
            m.state = state;
            m.failure = (state == RunState::Failed)
                .then(|| RecordedFailure { class: FailureClass::Oom, message: String::new() });
            m
        });
        Attempt { number, run, repeats: BTreeMap::new(), manifest }
    }

    fn chosen(list: &[Attempt]) -> Option<u32> {
        Attempt::select(list).map(|a| a.number)
    }

    #[test]
    fn the_newest_success_stands_and_a_failed_repeat_never_replaces_it() {
        use RunState::*;
        let ok = |n, v| attempt(n, Some(Done), v, true);
        let failed = |n, v| attempt(n, Some(Failed), v, false);
        assert_eq!(chosen(&[ok(1, "1"), ok(2, "1")]), Some(2));
        assert_eq!(chosen(&[ok(1, "1"), failed(2, "1")]), Some(1), "a failed --rerun");
        assert_eq!(chosen(&[ok(1, "1"), failed(2, "2")]), Some(2), "the upgraded engine failed");
        assert_eq!(chosen(&[failed(1, "2"), ok(2, "2")]), Some(2));
        assert_eq!(chosen(&[failed(1, "1"), failed(2, "1")]), Some(2));
        assert_eq!(chosen(&[ok(1, "1"), attempt(2, Some(Interrupted), "1", false)]), Some(1));
        assert_eq!(chosen(&[attempt(1, Some(Interrupted), "1", false)]), None);
        // A cluster job's cancellation or node failure, recorded as a failure by an earlier
        // perflab, leaves the run pending (a record without a job id is left as it is).
        for class in [FailureClass::Cancelled, FailureClass::NodeFailure] {
            let mut cancelled = failed(1, "1");
            let m = cancelled.manifest.as_mut().unwrap();
            m.failure = Some(RecordedFailure { class, message: "Slurm job 7 ended CANCELLED".into() });
            assert_eq!(chosen(std::slice::from_ref(&cancelled)), Some(1), "{class:?} without a job");
            cancelled.manifest.as_mut().unwrap().job_id = Some("7".into());
            assert_eq!(chosen(&[cancelled]), None, "{class:?}");
        }
        assert_eq!(chosen(&[ok(1, "1"), failed(2, "1")]), Some(1));
        // A result at runs/<stage>/<variant>/ with a failed manifest beside it (an earlier
        // perflab's failed re-measurement) keeps its result.
        let legacy = attempt(0, Some(Failed), "1", true);
        assert!(legacy.succeeded() && legacy.failure().is_none());
        assert_eq!(chosen(&[legacy, failed(1, "1")]), Some(0));
        // A kept output of a failed attempt is evidence, not a result.
        let too_few = attempt(1, Some(Failed), "1", true);
        assert!(!too_few.succeeded() && too_few.failure().is_some());
    }
}
