//! A published guide read back into a study: `perflab import PAGE.md --id ID`.
//!
//! [`page`] reads the Markdown into its parts, [`build`] turns commands into engines and
//! flags and blocks into runs, and this file assembles the study, checks its decisions against
//! the page's with the analysis (a stage whose winner differs from what the page went on with
//! gets the page's decision as `adopt`), and writes it. Whatever the page leaves open and
//! import had to choose is a [`Choice`]: printed, written as an `# import:` comment at its key,
//! and a warning of `perflab check` until the comment is removed.

mod build;
mod options;
mod page;
mod write;

use build::{Cfg, EngineDraft, ProfileDraft, StageDraft, VariantDraft};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use write::{UNRESOLVED, unresolved, write_study};

/// Why a page could not be imported, at its 1-based line (0: the page as a whole).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ImportError {
    pub line: usize,
    pub message: String,
}

impl ImportError {
    pub fn new(line: usize, message: impl Into<String>) -> ImportError {
        ImportError { line, message: message.into() }
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
    let mut page = page::read(text)?;
    let regrouped = options::by_option(&page.stages);
    let by_option = regrouped.is_some();
    if let Some(stages) = regrouped {
        page.stages = stages;
    }
    let mut draft = assemble(&page)?;
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
    let most = d.stages.iter().flat_map(|s| &s.variants).map(|v| build::gpus(&v.cfg)).max().unwrap_or(1);
    for v in d.stages.iter_mut().flat_map(|s| &mut s.variants) {
        v.replicas = (most / build::gpus(&v.cfg)).max(1);
    }
    d.choices.push(Choice::new("objective", 0, format!("the page scales each configuration to {most} GPUs: a configuration on fewer GPUs counts as that many replicas, from its `-tp`/`-pp` sizes")));
}

/// The decimals of the page's percentages (`+58.1%` → 1), 2 when it prints none.
fn percent_decimals(page: &page::Page) -> usize {
    let tables = page.before_after.iter().chain(page.summary.iter());
    let cells = tables.flat_map(|t| t.rows.iter().flat_map(|r| r.1.iter()));
    let re = regex::Regex::new(r"[+-]\d+(?:\.(\d+))?%").expect("a valid pattern");
    cells.filter_map(|c| re.captures(c)).map(|c| c.get(1).map_or(0, |d| d.as_str().len())).next().unwrap_or(2).min(4)
}

struct Context {
    model: String,
    /// Per engine, the short flag names the page also writes long.
    aliases: BTreeMap<String, BTreeMap<String, String>>,
    engines: Vec<EngineDraft>,
    choices: Vec<Choice>,
    profiles: Vec<ProfileDraft>,
    recommended_engine: Option<String>,
}

impl Context {
    /// A command as a configuration; its engine is registered the first time it is seen.
    fn cfg(&mut self, v: &page::VariantSource, engine_hint: Option<String>, key: &str) -> Result<Cfg, ImportError> {
        let Some((line, command)) = v.command.clone() else {
            return Err(ImportError::new(
                v.line,
                "this variant has benchmark results but no serving command or backend parameters",
            ));
        };
        let split = build::split(&command);
        if !split.dropped.is_empty() {
            self.choices.push(Choice::new(
                key,
                line,
                format!("`{}` left out: perflab gives each engine start its own port", split.dropped.join(" ")),
            ));
        }
        let engine = match (v.parameters_only, split.engine.clone(), engine_hint) {
            (false, Some(e), _) => e,
            (true, _, Some(e)) => e,
            (_, _, Some(e)) => e,
            _ => return Err(ImportError::new(line, format!("cannot tell which engine runs `{command}`"))),
        };
        if !self.engines.iter().any(|e| e.id == engine) {
            let template = if v.parameters_only || split.engine.is_none() {
                default_template(&engine)
            } else {
                split.template.clone()
            };
            self.engines.push(EngineDraft {
                id: engine.clone(),
                name: String::new(),
                version: String::new(),
                command: template,
                aliases: self.aliases.get(&engine).cloned().unwrap_or_default(),
            });
        }
        let mut flags = split.flags;
        if let Some(aliases) = self.aliases.get(&engine) {
            for f in &mut flags {
                if let Some(long) = aliases.get(&f.key) {
                    f.key = long.clone();
                }
            }
        }
        let model = match split.model {
            Some(m) if m != self.model && self.model.to_lowercase().ends_with(&format!("/{}", m.to_lowercase())) => {
                self.choices.push(Choice::new(
                    key,
                    line,
                    format!("`{m}` taken for the study's model `{}`", self.model),
                ));
                self.model.clone()
            }
            Some(m) => m,
            None => self.model.clone(),
        };
        Ok(Cfg { engine, model, flags, env: split.env })
    }

    fn stages(&mut self, page: &page::Page) -> Result<Vec<StageDraft>, ImportError> {
        let mut out: Vec<StageDraft> = Vec::new();
        let profile_ids: Vec<String> = self.profiles.iter().map(|p| build::slug(&p.name)).collect();
        let is_profile = |l: &str| {
            let s = build::slug(l);
            l.to_lowercase().contains("input") || l.contains("BS=") || profile_ids.contains(&s)
        };
        for (k, s) in page.stages.iter().enumerate() {
            let taken: Vec<String> = out.iter().map(|d| d.id.clone()).collect();
            let id = build::unique(&build::stage_slug(&s.title), &taken);
            let mut variants: Vec<VariantDraft> = Vec::new();
            for source in s.variants.iter().flat_map(|v| build::expand(v, &is_profile)) {
                let hint = match k {
                    0 => source.label.as_deref().and_then(build::engine_named).map(str::to_string),
                    _ => source
                        .engine
                        .clone()
                        .or_else(|| self.recommended_engine.clone())
                        .or_else(|| out.last().and_then(|d| d.variants.first()).map(|v| v.cfg.engine.clone())),
                };
                if source.command.is_none() && source.blocks.is_empty() {
                    continue;
                }
                let key = variant_slot(&id, variants.len());
                let mut cfg = self.cfg(&source, hint, &key)?;
                self.environment_only(&source, &mut cfg, out.first(), &key);
                variants.push(self.variant(&id, &source, cfg, &variants)?);
            }
            if variants.is_empty() {
                self.choices.push(Choice::new(
                    "stage",
                    s.line,
                    format!("section `{}` has no serving command: left out", s.title),
                ));
                continue;
            }
            out.push(StageDraft {
                id,
                title: s.title.clone(),
                variants,
                page_adopted: None,
                adopt: None,
                exclude: None,
                notes: s.notes.clone(),
                warnings: s.warnings.clone(),
            });
        }
        Ok(out)
    }

    /// A command that only sets the environment (`export VLLM_ATTENTION_BACKEND=FLASHMLA`)
    /// sets it on its engine's configuration of the first stage.
    fn environment_only(&mut self, v: &page::VariantSource, cfg: &mut Cfg, first: Option<&StageDraft>, key: &str) {
        let Some((line, command)) = &v.command else { return };
        let split = build::split(command);
        if v.parameters_only || split.engine.is_some() || !cfg.flags.is_empty() || cfg.env.is_empty() {
            return;
        }
        let Some(own) = first.and_then(|f| f.variants.iter().find(|x| x.cfg.engine == cfg.engine)) else { return };
        cfg.flags = own.cfg.flags.clone();
        cfg.model = own.cfg.model.clone();
        self.choices.push(Choice::new(
            key,
            *line,
            format!("`{command}` sets only the environment: taken on {}'s first configuration", own.label),
        ));
    }

    fn variant(
        &mut self,
        stage: &str,
        v: &page::VariantSource,
        cfg: Cfg,
        siblings: &[VariantDraft],
    ) -> Result<VariantDraft, ImportError> {
        let label = v.label.clone().unwrap_or_default();
        let mut blocks = Vec::new();
        for w in &v.blocks {
            let Some(profile) = build::profile_of(w, v.profile.as_deref(), &mut self.profiles, &mut self.choices)
            else {
                return Err(ImportError::new(w.line, "this block fits no profile of the setup"));
            };
            if blocks.iter().any(|(p, _): &(String, page::Written)| *p == profile) {
                self.choices.push(Choice::new(
                    variant_slot(stage, siblings.len()),
                    w.line,
                    format!("a second block on `{profile}` in one variant: left out"),
                ));
                continue;
            }
            if !w.text.contains("Serving Benchmark Result") {
                self.choices.push(Choice::new(
                    variant_slot(stage, siblings.len()),
                    w.line,
                    "this block has no `Serving Benchmark Result` line: read from its first figure, as written",
                ));
            }
            blocks.push((profile, w.clone()));
        }
        let failure = blocks.is_empty().then(|| {
            let said = v.said.join(" ");
            let (class, told) = build::failure_class(&said);
            if !told {
                self.choices.push(Choice::new(
                    variant_slot(stage, siblings.len()),
                    v.line,
                    format!("no block and no reason for `{label}`: recorded as `{class}`"),
                ));
            }
            (class.to_string(), said)
        });
        let taken: Vec<String> = siblings.iter().map(|s| s.id.clone()).collect();
        Ok(VariantDraft {
            id: build::unique(&build::slug(&label), &taken),
            label,
            line: v.line,
            cfg,
            base: None,
            flags: Vec::new(),
            unset: Vec::new(),
            env: BTreeMap::new(),
            model: None,
            notes: if failure.is_none() { v.said.clone() } else { Vec::new() },
            blocks,
            failure,
            replicas: 1,
        })
    }

    /// Bases, flags, labels, the page's adoptions, the other cases and the setup.
    fn finish(&mut self, page: &page::Page, d: &mut Draft) -> Result<(), ImportError> {
        let recommended = self.command_cfg(page.recommended.as_ref())?;
        let optimized = page.other.iter().find(|o| !o.baseline && !o.parameters_only).and_then(|o| o.command.as_ref());
        let measured = self.command_cfg(optimized)?;
        chain(d, measured.as_ref().or(recommended.as_ref()), &mut self.choices);
        if let (Some(m), Some(r)) = (&measured, &recommended)
            && !m.same(r)
        {
            leave_out(d, r, &mut self.choices);
        }
        d.baseline = baseline_ref(page, d, &mut self.choices);
        other_cases(page, d, self)?;
        d.target = target(d);
        self.setup(page, d);
        d.profiles = std::mem::take(&mut self.profiles);
        d.compare = compared(d, &mut self.choices);
        d.engines = std::mem::take(&mut self.engines);
        d.choices = std::mem::take(&mut self.choices);
        let mut choices = std::mem::take(&mut d.choices);
        name_variant_slots(d, &mut choices);
        d.choices = choices;
        Ok(())
    }

    /// A command of the conclusion or the other cases as a configuration.
    fn command_cfg(&mut self, command: Option<&(usize, String)>) -> Result<Option<Cfg>, ImportError> {
        let Some((line, c)) = command else { return Ok(None) };
        let v = page::VariantSource { line: *line, command: Some((*line, c.clone())), ..Default::default() };
        self.cfg(&v, self.recommended_engine.clone(), "baseline").map(Some)
    }

    fn setup(&mut self, page: &page::Page, d: &mut Draft) {
        for e in &mut self.engines {
            let (name, version) = page
                .engines
                .iter()
                .find(|(n, _)| build::engine_named(n) == Some(e.id.as_str()))
                .cloned()
                .unwrap_or_else(|| (e.id.clone(), String::new()));
            e.name = name;
            e.version = version;
            if e.version.is_empty() {
                e.version = "unknown".into();
                self.choices.push(Choice::new(
                    format!("engine.{}", e.id),
                    0,
                    "the setup gives no version for this engine",
                ));
            }
        }
        let script: Vec<String> =
            page.benchmark_script.iter().filter(|l| !l.trim_start().starts_with('#')).cloned().collect();
        let (line, _) = page::join_command(&script);
        let guidellm = page.benchmark_tool.as_deref() == Some("guidellm") || line.contains("guidellm");
        d.benchmark = if guidellm {
            ("guidellm".into(), "guidellm benchmark --target http://{host}:{port} --model {model} --processor {model} --max-requests {total_requests}".into())
        } else {
            ("vllm bench serve".into(), "vllm bench serve --model {model} --base-url http://{host}:{port} --backend openai-chat --endpoint /v1/chat/completions --dataset-name {dataset} --num-prompts {total_requests}".into())
        };
        let path = script.iter().find_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            words
                .iter()
                .position(|w| *w == "--dataset-path" || *w == "--data")
                .and_then(|k| words.get(k + 1))
                .map(|w| w.to_string())
        });
        let wget = page
            .benchmark_script
            .iter()
            .find_map(|l| l.trim().strip_prefix("wget ").and_then(|u| u.rsplit('/').next()).map(str::to_string));
        for p in &mut self.profiles {
            if p.src.dataset == "sharegpt" {
                p.dataset_path = path.clone().or(wget.clone()).filter(|p| !p.contains('{'));
            }
            if p.src.total_requests.is_none() {
                self.choices.push(Choice::new(
                    format!("profile.{}", p.id),
                    0,
                    "no block gives this profile's request count: 1000 assumed",
                ));
            }
        }
        d.notes = page.notes.clone();
    }
}

fn default_template(engine: &str) -> String {
    match engine {
        "sglang" => "python3 -m sglang.launch_server --model-path {model}".into(),
        "trtllm" => "trtllm-serve {model}".into(),
        "mindie" => "mindie serve {model}".into(),
        other => format!("{other} serve {{model}}"),
    }
}

/// Where each stage's variant comes from: its closest earlier configuration, with flags against
/// it; which variant each stage adopted on the page; and the variants that build on another
/// configuration than their stage's base.
fn chain(d: &mut Draft, recommended: Option<&Cfg>, choices: &mut Vec<Choice>) {
    let bases = closest_bases(d);
    diff_against_bases(d, &bases);
    page_adoptions(d, &bases, recommended);
    set_bases(d, &bases, choices);
}

/// For each stage, for each of its variants: (stage, variant) of its closest earlier
/// configuration (none in the first stage).
type Bases = Vec<Vec<Option<(usize, usize)>>>;

/// Each variant's closest earlier configuration (of equal ones, the latest stage's).
fn closest_bases(d: &Draft) -> Bases {
    let mut bases: Bases = Vec::new();
    for (k, s) in d.stages.iter().enumerate() {
        let row = s.variants.iter().map(|v| {
            let earlier = d.stages[..k]
                .iter()
                .enumerate()
                .flat_map(|(i, e)| e.variants.iter().enumerate().map(move |(j, c)| (i, j, c)));
            let best = earlier
                .filter_map(|(i, j, c)| build::closeness(&c.cfg, &v.cfg).map(|score| (score, i, j)))
                .max_by_key(|(score, i, _)| (*score, *i));
            if k == 0 { None } else { best.map(|(_, i, j)| (i, j)) }
        });
        bases.push(row.collect());
    }
    bases
}

/// Flags against the base, and a label for each variant the page does not name.
fn diff_against_bases(d: &mut Draft, bases: &Bases) {
    for (k, row) in bases.iter().enumerate() {
        for (j, base) in row.iter().enumerate() {
            let base_cfg = match *base {
                Some((i, b)) => d.stages[i].variants[b].cfg.clone(),
                None => Cfg {
                    engine: d.stages[k].variants[j].cfg.engine.clone(),
                    model: d.model.clone(),
                    flags: Vec::new(),
                    env: BTreeMap::new(),
                },
            };
            let v = &mut d.stages[k].variants[j];
            (v.flags, v.unset, v.env, v.model) = build::diff(&base_cfg, &v.cfg);
            if v.label.is_empty() {
                v.label = describe(v);
                v.id = build::slug(&v.label);
            }
        }
        dedupe_ids(&mut d.stages[k]);
    }
}

/// The optimized configuration: the variant closest to the configuration the page measures
/// as optimized (of equal ones, the latest). After the first stage, the page adopted the
/// variants that configuration builds on, closest base by closest base, and nothing in the
/// stages that chain skips. In the first stage: the variant the next stages build on.
fn page_adoptions(d: &mut Draft, bases: &Bases, measured: Option<&Cfg>) {
    let closest = measured.and_then(|rec| {
        let all =
            d.stages.iter().enumerate().flat_map(|(k, s)| s.variants.iter().enumerate().map(move |(j, v)| (k, j, v)));
        all.filter(|(_, _, v)| v.failure.is_none())
            .filter_map(|(k, j, v)| build::closeness(&v.cfg, rec).map(|c| (c, k, j)))
            .max_by_key(|(c, k, _)| (*c, *k))
    });
    let mut on_chain = vec![None; d.stages.len()];
    let mut at = closest.map(|(_, k, j)| (k, j));
    while let Some((k, j)) = at {
        on_chain[k] = Some(j);
        at = bases[k][j];
    }
    for (k, chained) in on_chain.into_iter().enumerate() {
        let later = bases.iter().skip(k + 1).flatten().flatten().find(|(stage, _)| *stage >= k);
        d.stages[k].page_adopted = match (closest, later) {
            (Some(_), _) if k > 0 => chained,
            (Some((_, 0, j)), _) => Some(j),
            (_, Some((stage, j))) if *stage == k => Some(*j),
            _ => None,
        };
    }
}

/// The stages whose adopted flags the recommended command leaves out, while the page measures
/// its optimized configuration with them: kept out of the command.
fn leave_out(d: &mut Draft, recommended: &Cfg, choices: &mut Vec<Choice>) {
    for s in d.stages.iter_mut().skip(1) {
        let Some(v) = s.page_adopted.map(|j| &s.variants[j]) else { continue };
        let mut missing: Vec<String> = v
            .cfg
            .flags
            .iter()
            .filter(|f| v.flags.contains(&f.text) && !recommended.has(f))
            .map(|f| f.text.clone())
            .collect();
        let env = v.env.iter().filter(|(k, x)| recommended.env.get(*k) != Some(*x));
        missing.extend(env.map(|(k, x)| format!("{k}={x}")));
        if missing.is_empty() {
            continue;
        }
        let what = missing.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(" ");
        choices.push(Choice::new(
            format!("stage.{}", s.id),
            0,
            format!("the optimized runs use {what}, which the recommended command leaves out: kept out of it (`exclude_from_command`)"),
        ));
        s.exclude = Some("The page measures its optimized configuration with this stage's setting but leaves it out of the recommended command.".into());
    }
}

/// A variant whose closest configuration is not what its stage builds on gets a `base`.
fn set_bases(d: &mut Draft, bases: &Bases, choices: &mut Vec<Choice>) {
    let mut current: Option<(usize, usize)> = None;
    for (k, row) in bases.iter().enumerate() {
        for (j, &base) in row.iter().enumerate() {
            if k > 0 && base != current {
                let key = variant_slot(&d.stages[k].id, j);
                let line = d.stages[k].variants[j].line;
                let Some((i, b)) = base else {
                    let message = "this variant's engine runs in no earlier stage: it builds on the stage's base";
                    choices.push(Choice::new(key, line, message));
                    continue;
                };
                let r = format!("{}/{}", d.stages[i].id, d.stages[i].variants[b].id);
                let message = format!(
                    "builds on `{r}` (its `base`), the earlier configuration its command is closest to, not on the stage's base"
                );
                choices.push(Choice::new(key, line, message));
                d.stages[k].variants[j].base = Some(r);
            }
        }
        if let Some(a) = d.stages[k].page_adopted {
            current = Some((k, a));
        }
    }
}

/// Where a choice about the `j`th variant of a stage lands until the variants have their ids:
/// [`name_variant_slots`] makes it `stage.<id>.variant.<variant id>`.
fn variant_slot(stage: &str, j: usize) -> String {
    format!("stage.{stage}.variant#{j}")
}

/// Each choice about a variant keyed by the variant's id, now that it has one.
fn name_variant_slots(d: &Draft, choices: &mut [Choice]) {
    for c in choices.iter_mut() {
        let Some((stage, j)) = c.key.strip_prefix("stage.").and_then(|k| k.split_once(".variant#")) else { continue };
        let s = d.stages.iter().find(|s| s.id == stage);
        let v = s.zip(j.parse::<usize>().ok()).and_then(|(s, j)| s.variants.get(j));
        c.key = match v {
            Some(v) => format!("stage.{stage}.variant.{}", v.id),
            None => format!("stage.{stage}"),
        };
    }
}

fn dedupe_ids(s: &mut StageDraft) {
    let mut taken: Vec<String> = Vec::new();
    for v in &mut s.variants {
        v.id = build::unique(&v.id, &taken);
        taken.push(v.id.clone());
    }
}

/// A label for a variant the page does not name: what it changes.
fn describe(v: &VariantDraft) -> String {
    let mut parts: Vec<String> = v.flags.clone();
    parts.extend(v.unset.iter().map(|u| format!("no {u}")));
    parts.extend(v.env.iter().map(|(k, x)| format!("{k}={x}")));
    if let Some(m) = &v.model {
        parts.push(m.rsplit('/').next().unwrap_or(m).to_string());
    }
    if parts.is_empty() { "default".into() } else { parts.join(" ") }
}

/// The baseline: the first stage's variant of the engine the before/after table names.
fn baseline_ref(page: &page::Page, d: &Draft, choices: &mut Vec<Choice>) -> String {
    let first = &d.stages[0];
    let named = page.before_after.as_ref().and_then(|t| t.header.get(1)).and_then(|h| build::engine_named(h));
    let found = first.variants.iter().find(|v| Some(v.cfg.engine.as_str()) == named && v.failure.is_none());
    let v = found.unwrap_or_else(|| {
        choices.push(Choice::new(
            "baseline",
            0,
            "the before/after table names no engine of the first stage: its first variant is the baseline",
        ));
        &first.variants[0]
    });
    format!("{}/{}", first.id, v.id)
}

/// The profiles with a run of both the baseline's and the optimized configuration, when some
/// profile lacks one.
fn compared(d: &Draft, choices: &mut Vec<Choice>) -> Option<Vec<String>> {
    let find = |r: &str| {
        let (s, v) = r.split_once('/')?;
        d.stages.iter().find(|x| x.id == s)?.variants.iter().find(|x| x.id == v).map(|x| x.cfg.clone())
    };
    let base = find(&d.baseline)?;
    let last = d
        .stages
        .iter()
        .rev()
        .find_map(|s| s.page_adopted.map(|a| s.variants[a].cfg.clone()))
        .unwrap_or_else(|| base.clone());
    let measured = |cfg: &Cfg, profile: &str| {
        d.stages.iter().flat_map(|s| &s.variants).any(|v| v.cfg.same(cfg) && v.blocks.iter().any(|(p, _)| p == profile))
    };
    let both: Vec<String> =
        d.profiles.iter().map(|p| p.id.clone()).filter(|p| measured(&base, p) && measured(&last, p)).collect();
    if both.len() == d.profiles.len() || both.is_empty() {
        return None;
    }
    choices.push(Choice::new(
        "compare_profiles",
        0,
        "the other cases measure some profiles on one side only: the comparison leaves them out",
    ));
    Some(both)
}

/// The profile most of the stages' blocks are on.
fn target(d: &Draft) -> String {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for s in &d.stages {
        for v in &s.variants {
            for (p, _) in &v.blocks {
                *count.entry(p.as_str()).or_default() += 1;
            }
        }
    }
    count.into_iter().max_by_key(|(_, n)| *n).map(|(p, _)| p.to_string()).unwrap_or_default()
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
            0,
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
        Err(diags) => Err(ImportError::new(0, format!("the study made from the page does not load:\n{diags}"))),
    }
}

/// The before/after table's measured figures that no run of the study gives, each a choice at
/// its row: the page's table and its blocks disagree, and the study keeps the blocks.
fn table_against_blocks(page: &page::Page, a: &crate::analysis::Analysis, choices: &mut Vec<Choice>) {
    let Some(table) = &page.before_after else { return };
    let figure = regex::Regex::new(r"(?:TPS|latency|Latency):\s*(\d+\.\d+)").expect("a valid pattern");
    let values: Vec<f64> = a
        .scenarios
        .iter()
        .flat_map(|s| [&s.baseline, &s.optimized])
        .filter_map(|m| m.as_ref().and_then(|m| m.value))
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
    let text =
        crate::durable::read_text(page, MAX_PAGE_BYTES).map_err(|e| format!("{}: cannot read: {e}", page.display()))?;
    let imported = import(&text).map_err(|e| format!("{}:{}: {}", page.display(), e.line, e.message))?;
    write_study(&imported, dir, force).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(imported)
}
