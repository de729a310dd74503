//! A published guide read back into a study: `perflab import PAGE.md --id ID`.
//!
//! [`page`] reads the Markdown into its parts, [`build`] turns commands into engines and
//! flags and blocks into runs, and this file assembles the study, checks its decisions against
//! the page's with the analysis (a stage whose winner differs from what the page went on with
//! gets the page's decision as `adopt`), and writes it. Whatever the page leaves open and
//! import had to choose is a [`Choice`]: printed, written as an `# import:` comment at its key,
//! and a warning of `perflab check` until the comment is removed.

mod bases;
mod build;
mod context;
mod gpus;
mod options;
mod page;
mod write;

use build::{EngineDraft, ProfileDraft, StageDraft, VariantDraft};
use context::Context;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

pub use write::{UNRESOLVED, unresolved, write_study};

/// Why a page could not be imported, at its 1-based line (0: the page as a whole) and column
/// (0: the whole line).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ImportError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl ImportError {
    pub fn new(line: usize, message: impl Into<String>) -> ImportError {
        ImportError { line, column: 0, message: message.into() }
    }

    /// `page:line:column: message`, or `page:line: message` without a column.
    pub fn at_page(&self, page: &Path) -> String {
        match self.column {
            0 => format!("{}:{}: {}", page.display(), self.line, self.message),
            c => format!("{}:{}:{c}: {}", page.display(), self.line, self.message),
        }
    }
}

/// Something the page did not say, and what import chose.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    /// Where it lands in the study: `stage.<id>`, `stage.<id>.variant.<id>`, `profile.<id>`,
    /// `engine.<id>` or a top-level key.
    pub key: String,
    /// The page's line it is about.
    pub line: usize,
    pub message: String,
}

impl Choice {
    pub fn new(key: impl Into<String>, line: usize, message: impl Into<String>) -> Choice {
        Choice { key: key.into(), line, message: message.into() }
    }
}

/// A study made from a page: its spec's text and its run files (paths under the study folder).
#[derive(Debug, Clone)]
pub struct Imported {
    pub spec: String,
    pub runs: Vec<(PathBuf, String)>,
    pub choices: Vec<Choice>,
}

/// What the page says, made into a study's parts.
pub(crate) struct Draft {
    pub title: String,
    pub goal: Option<String>,
    pub model: String,
    pub hardware: String,
    pub engines: Vec<EngineDraft>,
    pub profiles: Vec<ProfileDraft>,
    pub target: String,
    pub baseline: String,
    /// Whether the page scales each configuration's throughput to the GPUs of the largest one
    /// (`Total TPS: 3019.19x2`, "scaled to same GPU count").
    pub scaled: bool,
    /// Whether the page compares its configurations per GPU: the objective is total token
    /// throughput per GPU, and each variant says its `gpus`.
    pub per_gpu: bool,
    /// The expression of a latency page's objective in seconds.
    pub latency: Option<String>,
    pub percent_decimals: usize,
    pub benchmark: (String, String),
    pub notes: Vec<String>,
    pub stages: Vec<StageDraft>,
    /// The profiles both the baseline and the optimized configuration were measured on, when
    /// that is not all of them.
    pub compare: Option<Vec<String>>,
    pub choices: Vec<Choice>,
}

/// Reads a page and makes it a study, its decisions checked against the page's.
pub fn import(text: &str) -> Result<Imported, ImportError> {
    import_with(text, Vec::new())
}

/// Reads a page's bytes: those that are not UTF-8 are replaced by U+FFFD, as `perflab parse`
/// replaces them, and the lines where that happened are a choice at the study's top.
pub fn import_bytes(bytes: &[u8]) -> Result<Imported, ImportError> {
    let (text, replaced) = crate::parse::decode(bytes);
    let said = replaced
        .first()
        .map(|first| Choice::new("", *first, crate::parse::stream::replaced_remark(&replaced, replaced.len())));
    let remark = said.as_ref().map(|c| c.message.clone());
    import_with(&text, said.into_iter().collect()).map_err(|mut e| {
        if let Some(remark) = remark {
            e.message = format!("{} ({remark})", e.message);
        }
        e
    })
}

fn import_with(text: &str, said: Vec<Choice>) -> Result<Imported, ImportError> {
    let mut page = page::read(text)?;
    let regrouped = options::by_option(&page.stages);
    let by_option = regrouped.is_some();
    if let Some(stages) = regrouped {
        page.stages = stages;
    }
    let mut draft = assemble(&page)?;
    draft.choices.splice(0..0, said);
    gpus::assign(&mut draft, gpus::per_gpu_mark(text));
    if by_option {
        draft.choices.push(Choice::new(
            "stages",
            0,
            "the page tunes each engine in a section of its own: each option became one stage across the engines, as the summary of options names them",
        ));
    }
    let analysis = settle_adoptions(&mut draft)?;
    table_against_blocks(&page, &analysis, &mut draft.choices);
    let spec = write::spec(&draft);
    Ok(Imported { spec, runs: write::runs(&draft), choices: draft.choices })
}

/// The study's model: the setup's, or the name the commands serve it under when the setup
/// gives it without its organisation (`Qwen3-14B` for `Qwen/Qwen3-14B`).
fn model(page: &page::Page, commands: &[String], choices: &mut Vec<Choice>) -> Result<String, ImportError> {
    let named = page.model.clone().or_else(|| commands.iter().find_map(|c| build::split(c).model));
    let Some(named) = named else {
        return Err(ImportError::new(
            0,
            "the page names no model: no `### Model` section and no model in a serving command",
        ));
    };
    if named.contains('/') {
        return Ok(named);
    }
    let lower = named.to_lowercase();
    let full = commands
        .iter()
        .filter_map(|c| build::split(c).model)
        .find(|m| m.to_lowercase().ends_with(&format!("/{lower}")));
    if let Some(full) = full {
        choices.push(Choice::new(
            "model",
            0,
            format!("the setup names the model `{named}`, the commands `{full}`; the study serves `{full}`"),
        ));
        return Ok(full);
    }
    Ok(named)
}

fn assemble(page: &page::Page) -> Result<Draft, ImportError> {
    let mut choices = Vec::new();
    if page.stages.is_empty() {
        return Err(ImportError::new(0, "no stage found: the page has no `###` section under `## Experiment Results`"));
    }
    let any_block = page.stages.iter().flat_map(|s| &s.variants).any(|v| !v.blocks.is_empty());
    if !any_block {
        return Err(ImportError::new(
            page.stages[0].line,
            "no benchmark block (`Serving Benchmark Result`) under any stage",
        ));
    }
    let mut commands: Vec<String> = page
        .stages
        .iter()
        .flat_map(|s| &s.variants)
        .filter(|v| !v.parameters_only)
        .filter_map(|v| v.command.clone())
        .map(|c| c.1)
        .collect();
    commands.extend(page.recommended.clone().map(|c| c.1));
    let model = model(page, &commands, &mut choices)?;
    let mut profiles = build::profiles(page);
    if profiles.is_empty() {
        profiles.push(ProfileDraft {
            id: "sharegpt".into(),
            name: "ShareGPT".into(),
            src: page::ProfileSource { name: "ShareGPT".into(), dataset: "sharegpt".into(), ..Default::default() },
            max_concurrency: None,
            dataset_path: None,
        });
        choices.push(Choice::new(
            "profile.sharegpt",
            0,
            "the page lists no dataset; its blocks are taken for ShareGPT runs",
        ));
    }
    if page.hardware.is_none() {
        choices.push(Choice::new("hardware", 0, "the page names no hardware (`### Hardware`): written as `unknown`"));
    }
    let others = page.other.iter().filter(|o| !o.parameters_only).filter_map(|o| o.command.clone()).map(|c| c.1);
    commands.extend(others);
    let aliases = build::aliases(commands.iter().map(String::as_str));
    let mut ctx =
        Context { model: model.clone(), aliases, engines: Vec::new(), choices, profiles, recommended_engine: None };
    ctx.recommended_engine = page.recommended.as_ref().and_then(|c| build::split(&c.1).engine);
    let stages = ctx.stages(page)?;
    if stages.is_empty() {
        return Err(ImportError::new(page.stages[0].line, "no stage has a serving command or a benchmark block"));
    }
    let mut draft = Draft {
        title: page.title.clone(),
        goal: page.goal.clone(),
        model,
        hardware: page.hardware.clone().unwrap_or_else(|| "unknown".into()),
        engines: Vec::new(),
        profiles: Vec::new(),
        target: String::new(),
        baseline: String::new(),
        latency: latency_of(page),
        scaled: scaled(page),
        per_gpu: false,
        percent_decimals: percent_decimals(page),
        benchmark: (String::new(), String::new()),
        notes: Vec::new(),
        stages,
        compare: None,
        choices: Vec::new(),
    };
    ctx.finish(page, &mut draft)?;
    replicate(&mut draft);
    Ok(draft)
}

/// How a latency page measures a request: `None` for a throughput page; the expression of its
/// latency in seconds otherwise (the blocks' own end-to-end latency when they print one).
fn latency_of(page: &page::Page) -> Option<String> {
    let rows = page.before_after.as_ref()?;
    if !rows.rows.iter().any(|r| r.1.join(" ").to_lowercase().contains("latency")) {
        return None;
    }
    let blocks = page.stages.iter().flat_map(|s| &s.variants).flat_map(|v| &v.blocks);
    let e2e = blocks
        .take(1)
        .any(|w| crate::parse::parse_text(&w.text).blocks.iter().any(|b| b.metric("mean_e2el_ms").is_some()));
    Some(if e2e {
        "mean_e2el_ms / 1000".into()
    } else {
        "(mean_ttft_ms + (total_output_tokens / completed - 1) * mean_tpot_ms) / 1000".into()
    })
}

fn scaled(page: &page::Page) -> bool {
    let Some(t) = &page.before_after else { return false };
    let times = regex::Regex::new(r"\d\s*x\s*\d").expect("a valid pattern");
    t.header.iter().any(|h| h.contains("scaled")) || t.rows.iter().flat_map(|r| &r.1).any(|c| times.is_match(c))
}

/// Replicas for every configuration of a page that scales to the same GPU count.
fn replicate(d: &mut Draft) {
    if !d.scaled {
        return;
    }
    let gpus = |v: &VariantDraft| gpus::count(&v.cfg, &v.label).gpus;
    let most = d.stages.iter().flat_map(|s| &s.variants).map(gpus).max().unwrap_or(1);
    for v in d.stages.iter_mut().flat_map(|s| &mut s.variants) {
        v.replicas = (most / gpus(v)).max(1);
    }
    d.choices.push(Choice::new("objective", 0, format!("the page scales each configuration to {most} GPUs: a configuration on fewer GPUs counts as that many replicas, from its parallel sizes")));
}

/// The decimals of the page's percentages (`+58.1%` → 1), 2 when it prints none.
fn percent_decimals(page: &page::Page) -> usize {
    let tables = page.before_after.iter().chain(page.summary.iter());
    let cells = tables.flat_map(|t| t.rows.iter().flat_map(|r| r.1.iter()));
    let re = regex::Regex::new(r"[+-]\d+(?:\.(\d+))?%").expect("a valid pattern");
    cells.filter_map(|c| re.captures(c)).map(|c| c.get(1).map_or(0, |d| d.as_str().len())).next().unwrap_or(2).min(4)
}

fn default_template(engine: &str) -> String {
    match engine {
        "sglang" => "python3 -m sglang.launch_server --model-path {model}".into(),
        "trtllm" => "trtllm-serve {model}".into(),
        "mindie" => "mindie serve {model}".into(),
        other => format!("{other} serve {{model}}"),
    }
}

/// The other cases' blocks: under the baseline's and the optimized configuration's variants
/// where those have no run on the profile yet, else in a stage of their own.
fn other_cases(page: &page::Page, d: &mut Draft, ctx: &mut Context) -> Result<(), ImportError> {
    let optimized =
        d.stages.iter().rev().find_map(|s| s.page_adopted.map(|a| (s.id.clone(), s.variants[a].id.clone())));
    let base = d.baseline.split_once('/').map(|(s, v)| (s.to_string(), v.to_string()));
    let mut extra: Vec<VariantDraft> = Vec::new();
    for side in &page.other {
        let target = if side.baseline { base.clone() } else { optimized.clone() };
        let Some((stage, variant)) = target else { continue };
        for w in &side.blocks {
            let named = side.heading.as_deref();
            let Some(profile) = build::profile_of(w, named, &mut ctx.profiles, &mut ctx.choices) else {
                return Err(ImportError::new(w.line, "this block fits no profile of the setup"));
            };
            let s = d.stages.iter_mut().find(|s| s.id == stage).expect("a stage of the draft");
            let v = s.variants.iter_mut().find(|v| v.id == variant).expect("a variant of the draft");
            if !v.blocks.iter().any(|(p, _)| *p == profile) {
                v.blocks.push((profile, w.clone()));
                continue;
            }
            let id = if side.baseline { "baseline" } else { "optimized" };
            let slot = extra.iter().position(|x| x.id == id && !x.blocks.iter().any(|(p, _)| *p == profile));
            let slot = slot.unwrap_or_else(|| {
                let taken: Vec<String> = extra.iter().map(|x| x.id.clone()).collect();
                let mut x = v.clone();
                x.id = build::unique(id, &taken);
                x.label = x.id.clone();
                x.base = Some(format!("{stage}/{variant}"));
                (x.flags, x.unset, x.env, x.model) = (Vec::new(), Vec::new(), BTreeMap::new(), None);
                x.blocks.clear();
                x.failure = None;
                extra.push(x);
                extra.len() - 1
            });
            extra[slot].blocks.push((profile.clone(), w.clone()));
            ctx.choices.push(Choice::new("stage.other-cases", w.line, format!("`{stage}/{variant}` has a run on `{profile}` already; this one is kept as a repeat in `other-cases`")));
        }
    }
    if !extra.is_empty() {
        let taken: Vec<String> = d.stages.iter().map(|s| s.id.clone()).collect();
        let id = build::unique("other-cases", &taken);
        let reason = "Measured to compare, not to choose: the page's other cases.".to_string();
        d.stages.push(StageDraft {
            id,
            line: 0,
            title: "Other benchmark cases".into(),
            variants: extra,
            page_adopted: None,
            adopt: Some((None, reason)),
            exclude: None,
            notes: Vec::new(),
            warnings: Vec::new(),
        });
    }
    Ok(())
}

/// Where the page went on from after each stage and the analysis did not, the page's decision
/// becomes the stage's `adopt`, one stage at a time (a changed decision changes the later bases).
fn settle_adoptions(d: &mut Draft) -> Result<crate::analysis::Analysis, ImportError> {
    loop {
        let a = analyze_draft(d)?;
        let Some((k, wanted)) = first_disagreement(d, &a) else { return Ok(a) };
        let reason = match &wanted {
            Some(v) => format!("The page goes on with {v}."),
            None => "The page keeps the configuration it had.".to_string(),
        };
        d.choices.push(Choice::new(
            format!("stage.{}", d.stages[k].id),
            d.stages[k].line,
            "the page's decision differs from what its numbers give: kept as `adopt`",
        ));
        d.stages[k].adopt = Some((wanted, reason));
    }
}

/// The draft written into a scratch folder, loaded and analyzed.
fn analyze_draft(d: &Draft) -> Result<crate::analysis::Analysis, ImportError> {
    let dir = tempfile::tempdir().map_err(|e| ImportError::new(0, format!("cannot make a scratch folder: {e}")))?;
    let study_dir = dir.path().join("draft");
    write::to_dir(&write::spec(d), &write::runs(d), &study_dir).map_err(|e| ImportError::new(0, e.to_string()))?;
    match crate::study::Study::load(&study_dir) {
        Ok(study) => Ok(crate::analysis::analyze(&study)),
        Err(diags) => Err(on_page(d, &study_dir, &diags.0)),
    }
}

/// The problems of the study made from the page, at the page's lines: a run file's at its
/// block's line and column, the spec's as the spec's (nothing of the scratch folder is named).
fn on_page(d: &Draft, study_dir: &Path, diags: &[crate::diag::Diagnostic]) -> ImportError {
    let blocks = write::blocks(d);
    let placed: Vec<(usize, usize, String)> = diags
        .iter()
        .map(|g| {
            let file = g.file.strip_prefix(study_dir).unwrap_or(&g.file);
            match blocks.iter().find(|(path, _)| path == file) {
                Some((path, w)) => {
                    let (line, col) = w.on_page(g.line, g.col);
                    (line, col, format!("{} (the block kept as `{}`)", g.message, path.display()))
                }
                None => (0, 0, format!("{}:{}:{}: {}", file.display(), g.line, g.col, g.message)),
            }
        })
        .collect();
    let Some((line, column, first)) = placed.first().cloned() else {
        return ImportError::new(0, "the study made from the page does not load");
    };
    let mut message = first;
    for (l, c, m) in &placed[1..] {
        let _ = write!(message, "\n  also at line {l}:{c}: {m}");
    }
    if line == 0 {
        message = format!("the study made from the page does not load: {message}");
    }
    ImportError { line, column, message }
}

/// The before/after table's measured figures that no run of the study gives, each a choice at
/// its row: the page's table and its blocks disagree, and the study keeps the blocks.
fn table_against_blocks(page: &page::Page, a: &crate::analysis::Analysis, choices: &mut Vec<Choice>) {
    gains_per_gpu(page, a, choices);
    let Some(table) = &page.before_after else { return };
    let figure = regex::Regex::new(r"(?:TPS|latency|Latency):\s*(\d+\.\d+)").expect("a valid pattern");
    let values: Vec<f64> = a
        .scenarios
        .iter()
        .flat_map(|s| [&s.baseline, &s.optimized])
        .flat_map(|m| m.iter().flat_map(|m| [m.value, m.secondary]).flatten())
        .collect();
    for (line, cells) in &table.rows {
        for c in figure.captures_iter(&cells.join(" ")) {
            let printed = &c[1];
            let d = printed.split_once('.').map_or(0, |(_, x)| x.len());
            // Per-replica figures (`3019.19x2`) are compared as the page multiplies them.
            if !values.iter().any(|v| {
                format!("{v:.d$}") == printed || (2..=8).any(|n| format!("{:.d$}", v / f64::from(n)) == printed)
            }) {
                choices.push(Choice::new("baseline", *line, format!("the before/after table prints {printed}; the comparison the study computes from the blocks does not")));
            }
        }
    }
}

/// The gains a page marks per GPU (`+32.50%/GPU`) that the study does not compute, each a
/// choice at its row: in the before/after table a profile's change, in the summary of
/// options a stage's step or gain against the baseline, or the total.
fn gains_per_gpu(page: &page::Page, a: &crate::analysis::Analysis, choices: &mut Vec<Choice>) {
    let mark = regex::Regex::new(r"([+-]?\d+(?:\.\d+)?)%\s*/\s*GPU").expect("a valid pattern");
    let changes: Vec<f64> = a.scenarios.iter().filter_map(|s| s.change).collect();
    let mut steps: Vec<f64> = a.options.iter().flat_map(|o| [o.step, o.vs_baseline]).flatten().collect();
    steps.extend(a.total_gain);
    let tables = [(&page.before_after, &changes, "before/after table"), (&page.summary, &steps, "summary of options")];
    for (table, computed, name) in tables {
        for (line, cells) in table.iter().flat_map(|t| &t.rows) {
            for c in mark.captures_iter(&cells.join(" ")) {
                let printed = c[1].trim_start_matches('+');
                let d = printed.split_once('.').map_or(0, |(_, x)| x.len());
                if !computed.iter().any(|v| format!("{v:.d$}") == printed) {
                    let what = format!(
                        "the {name} prints {}%/GPU; the gain per GPU the study computes from the blocks differs",
                        &c[1]
                    );
                    choices.push(Choice::new("baseline", *line, what));
                }
            }
        }
    }
}

fn first_disagreement(d: &Draft, a: &crate::analysis::Analysis) -> Option<(usize, Option<String>)> {
    let mut before = d.baseline.clone();
    for (k, s) in d.stages.iter().enumerate() {
        let wanted = s.page_adopted.map(|j| s.variants[j].id.clone());
        let page_after = wanted.as_ref().map_or(before.clone(), |v| format!("{}/{v}", s.id));
        let got = a.stage(&s.id).map(|x| x.after.to_string());
        if s.adopt.is_none() && got.as_deref() != Some(page_after.as_str()) && k + 1 < d.stages.len() + 1 {
            if k == 0 && wanted.is_none() {
                before = got.unwrap_or(before);
                continue;
            }
            return Some((k, wanted));
        }
        before = page_after;
    }
    None
}

/// The largest page `perflab import` reads (the published pages are 20 to 60 KB).
pub const MAX_PAGE_BYTES: u64 = 16 << 20;

/// Imports one page into `results/<id>`; refuses an existing study unless `force`.
pub fn import_file(page: &Path, dir: &Path, force: bool) -> Result<Imported, String> {
    let bytes = crate::durable::read_bytes(page, MAX_PAGE_BYTES)
        .map_err(|e| format!("{}: cannot read: {e}", page.display()))?;
    let imported = import_bytes(&bytes).map_err(|e| e.at_page(page))?;
    write_study(&imported, dir, force).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(imported)
}
