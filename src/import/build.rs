//! The parts of a page made into a study: engines and commands split into flags, each
//! variant's flags taken against the configuration it builds on, blocks given their profile.

use super::Choice;
use super::page::{Page, ProfileSource, VariantSource, Written};
use crate::study::Flag;
use std::collections::BTreeMap;

/// A serving configuration as a page writes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Cfg {
    pub engine: String,
    pub model: String,
    pub flags: Vec<Flag>,
    pub env: BTreeMap<String, String>,
}

impl Cfg {
    pub fn has(&self, f: &Flag) -> bool {
        self.flags.iter().any(|g| g.key == f.key && g.value == f.value)
    }

    /// Same engine, model, environment and flags, in any order.
    pub fn same(&self, other: &Cfg) -> bool {
        self.engine == other.engine
            && self.model == other.model
            && self.env == other.env
            && self.flags.len() == other.flags.len()
            && self.flags.iter().all(|f| other.has(f))
    }
}

#[derive(Debug, Clone)]
pub struct EngineDraft {
    pub id: String,
    pub name: String,
    pub version: String,
    pub command: String,
    /// Short flag name → the long one, where the page writes a flag both ways.
    pub aliases: BTreeMap<String, String>,
}

/// Short and long names of one flag, as each engine accepts both.
const ALIASES: [(&str, &str, &str); 8] = [
    ("vllm", "-tp", "--tensor-parallel-size"),
    ("vllm", "-dp", "--data-parallel-size"),
    ("vllm", "-pp", "--pipeline-parallel-size"),
    ("vllm", "-dcp", "--decode-context-parallel-size"),
    ("sglang", "--tp", "--tp-size"),
    ("sglang", "--dp", "--dp-size"),
    ("sglang", "--ep", "--ep-size"),
    ("sglang", "--pp", "--pp-size"),
];

/// Each engine's aliases among the flags of its commands: the pairs the page writes both ways
/// (`--dp 8` in one command, `--dp-size 8` in another), which must count as one flag.
pub fn aliases<'a>(commands: impl Iterator<Item = &'a str>) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut used: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for c in commands {
        let s = split(c);
        if let Some(e) = s.engine {
            used.entry(e).or_default().extend(s.flags.into_iter().map(|f| f.key));
        }
    }
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (engine, short, long) in ALIASES {
        let keys = used.get(engine).map(Vec::as_slice).unwrap_or_default();
        if keys.iter().any(|k| k == short) && keys.iter().any(|k| k == long) {
            out.entry(engine.to_string()).or_default().insert(short.to_string(), long.to_string());
        }
    }
    out
}

#[derive(Debug, Clone)]
pub struct VariantDraft {
    pub id: String,
    pub label: String,
    pub line: usize,
    pub cfg: Cfg,
    /// `stage/variant` this variant builds on when not the stage's base.
    pub base: Option<String>,
    pub flags: Vec<String>,
    pub unset: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub model: Option<String>,
    pub blocks: Vec<(String, Written)>,
    pub failure: Option<(String, String)>,
    /// What the page says about a variant it measured.
    pub notes: Vec<String>,
    /// Copies of this configuration that fill the GPUs of the largest one, on a page that
    /// scales its figures to the same GPU count.
    pub replicas: u32,
    /// The GPUs of this configuration, written on a page that compares per GPU.
    pub gpus: Option<u32>,
}

#[derive(Debug, Clone)]
pub struct StageDraft {
    pub id: String,
    /// The page line of its section (0: a stage the page has no section for).
    pub line: usize,
    pub title: String,
    pub variants: Vec<VariantDraft>,
    /// The variant the page went on from (`None`: it kept its base).
    pub page_adopted: Option<usize>,
    pub adopt: Option<(Option<String>, String)>,
    /// Why the stage's adopted flags stay out of the recommended command, when they do.
    pub exclude: Option<String>,
    pub notes: Vec<String>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct ProfileDraft {
    pub id: String,
    pub name: String,
    pub src: ProfileSource,
    pub max_concurrency: Option<u64>,
    pub dataset_path: Option<String>,
}

/// Words that tell one engine's launcher from another's.
pub const ENGINES: [(&str, &str, &str); 4] = [
    ("sglang", "sglang", "SGLang"),
    ("trtllm", "trtllm", "TensorRT-LLM"),
    ("mindie", "mindie", "MindIE"),
    ("vllm", "vllm", "vLLM"),
];

/// A command's engine from its launcher words.
fn engine_of(program: &str) -> Option<&'static (&'static str, &'static str, &'static str)> {
    let p = program.to_lowercase();
    ENGINES.iter().find(|(word, _, _)| p.contains(word))
}

/// The engine named by a label or a table header (`vLLM`, `TensorRT-LLM`).
pub fn engine_named(text: &str) -> Option<&'static str> {
    let t = text.to_lowercase().replace(['-', ' '], "");
    let named =
        [("tensorrtllm", "trtllm"), ("trtllm", "trtllm"), ("sglang", "sglang"), ("mindie", "mindie"), ("vllm", "vllm")];
    named.iter().find(|(w, _)| t.contains(w)).map(|(_, id)| *id)
}

/// A command split into its launcher (model as `{model}`), model, environment and flags.
pub struct Split {
    pub template: String,
    pub engine: Option<String>,
    pub model: Option<String>,
    pub flags: Vec<Flag>,
    pub env: BTreeMap<String, String>,
    pub dropped: Vec<String>,
}

const MODEL_FLAGS: [&str; 3] = ["--model-path", "--model", "--model-dir"];
const ADDRESS_FLAGS: [&str; 2] = ["--host", "--port"];

pub fn split(command: &str) -> Split {
    let words =
        shell_words::split(command).unwrap_or_else(|_| command.split_whitespace().map(str::to_string).collect());
    let mut env = BTreeMap::new();
    let mut k = 0;
    while k < words.len() {
        // `export NAME=value` on a line of its own before the launcher.
        if words[k] == "export" {
            k += 1;
            continue;
        }
        match words[k].split_once('=') {
            Some((name, value))
                if !name.is_empty()
                    && name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_') =>
            {
                env.insert(name.to_string(), value.to_string());
                k += 1;
            }
            _ => break,
        }
    }
    let words = &words[k..];
    let opens = |w: &str| w.starts_with("--") || (w.starts_with('-') && w[1..].starts_with(char::is_alphabetic));
    // `python3 -m sglang.launch_server`: the module is part of the launcher.
    let module = words.len() > 2 && words[0].starts_with("python") && words[1] == "-m";
    let skip = if module { 3 } else { 0 };
    let first_flag = words.iter().skip(skip).position(|w| opens(w)).map_or(words.len(), |k| k + skip);
    let mut program: Vec<String> = words[..first_flag].to_vec();
    let mut flags = Flag::from_argv(&words[first_flag..]);
    let mut model = None;
    let engine = engine_of(&program.join(" ")).map(|e| e.1.to_string());
    // `vllm serve MODEL`: the positional after the launcher; `--model-path MODEL`: the flag.
    if let Some(k) = flags.iter().position(|f| MODEL_FLAGS.contains(&f.key.as_str())) {
        let f = flags.remove(k);
        model = f.value.clone();
        program.push(format!("{} {{model}}", f.key));
    } else if program.len() >= 2 && engine.is_some() {
        let last = program.len() - 1;
        let w = &program[last];
        if w.contains('/') || w.chars().any(|c| c.is_ascii_digit()) {
            model = Some(w.clone());
            program[last] = "{model}".into();
        }
    }
    let mut dropped = Vec::new();
    flags.retain(|f| {
        let keep = !ADDRESS_FLAGS.contains(&f.key.as_str());
        if !keep {
            dropped.push(f.text.clone());
        }
        keep
    });
    Split { template: program.join(" "), engine, model, flags, env, dropped }
}

/// A text as an id: lowercase letters, digits and `-`.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.to_lowercase().chars() {
        if c.is_ascii_alphanumeric() || c == '.' {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_matches(['-', '.']).to_string();
    out.chars().take(60).collect::<String>().trim_end_matches('-').to_string()
}

/// A stage's id from its title, without the filler words.
pub fn stage_slug(title: &str) -> String {
    let filler = ["the", "in", "of", "a", "an", "choosing", "for", "vllm", "sglang", "mindie", "tensorrt-llm"];
    let words: Vec<String> =
        title.split_whitespace().map(str::to_lowercase).filter(|w| !filler.contains(&w.as_str())).collect();
    let s = slug(&words.join(" "));
    if s.is_empty() { slug(title) } else { s }
}

/// A unique id among `taken`.
pub fn unique(base: &str, taken: &[String]) -> String {
    let base = if base.is_empty() { "variant" } else { base };
    if !taken.iter().any(|t| t == base) {
        return base.to_string();
    }
    (2..).map(|n| format!("{base}-{n}")).find(|c| !taken.contains(c)).expect("an unused id")
}

/// The profiles of the page's setup, with ids.
pub fn profiles(page: &Page) -> Vec<ProfileDraft> {
    let mut out: Vec<ProfileDraft> = Vec::new();
    for p in &page.profiles {
        let name = p.name.replace(" prompt", "").replace(" Prompt", "");
        let taken: Vec<String> = out.iter().map(|d| d.id.clone()).collect();
        let id = unique(&slug(&name), &taken);
        out.push(ProfileDraft { id, name: p.name.clone(), src: p.clone(), max_concurrency: None, dataset_path: None });
    }
    out
}

/// What a block tells of its case: mean input and output tokens a request, and its concurrency.
fn shape(w: &Written) -> (Option<f64>, Option<u64>, Option<u64>) {
    let blocks = crate::parse::parse_text(&w.text).blocks;
    let Some(b) = blocks.first() else { return (None, None, None) };
    let done = b.metric("completed").filter(|n| *n > 0.0);
    let input = b.metric("total_input_tokens").zip(done).map(|(t, n)| t / n);
    let concurrency = b.metric("max_concurrency").map(|c| c as u64);
    (input, concurrency, done.map(|n| n as u64))
}

/// The concurrency a label names: `BS=4`, `batch size 4`.
fn label_concurrency(label: &str) -> Option<u64> {
    let l = label.to_lowercase();
    let at = l.find("bs=").map(|k| k + 3).or_else(|| l.find("batch size").map(|k| k + 10))?;
    l[at..].trim().split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}

/// The input length a label names: `random 32K input` → 32000.
fn label_input(label: &str) -> Option<f64> {
    let l = label.to_lowercase();
    if !l.contains("input") {
        return None;
    }
    let word = l.split_whitespace().find(|w| w.starts_with(|c: char| c.is_ascii_digit()))?;
    let (digits, k) = match word.strip_suffix('k') {
        Some(d) => (d, 1000.0),
        None => (word, 1.0),
    };
    digits.parse::<f64>().ok().map(|n| n * k)
}

/// The profile a block belongs to: by the name the page gives it, by its label, by its
/// numbers; a new profile when none fits (the same dataset at another concurrency).
pub fn profile_of(
    w: &Written,
    named: Option<&str>,
    profiles: &mut Vec<ProfileDraft>,
    choices: &mut Vec<Choice>,
) -> Option<String> {
    for name in named.into_iter().chain(w.label.as_deref()) {
        if let Some(p) = profiles.iter().find(|p| names(p, name)) {
            return Some(p.id.clone());
        }
    }
    let (input, concurrency, done) = shape(w);
    let concurrency = concurrency.or_else(|| w.label.as_deref().and_then(label_concurrency));
    let input = w.label.as_deref().and_then(label_input).or(input);
    let close = |p: &ProfileDraft| match (p.src.input_tokens, input) {
        (Some(want), Some(got)) => ((got - want as f64) / want as f64).abs() < 0.1,
        _ => false,
    };
    let random = profiles.iter().position(close);
    let at = random.or_else(|| profiles.iter().position(|p| p.src.dataset == "sharegpt"))?;
    let fits = |p: &ProfileDraft| {
        p.max_concurrency == concurrency || p.max_concurrency.is_none() && p.src.total_requests.is_none()
    };
    if fits(&profiles[at]) {
        let p = &mut profiles[at];
        p.max_concurrency = p.max_concurrency.or(concurrency);
        if p.src.total_requests.is_none() {
            p.src.total_requests = done;
        }
        return Some(p.id.clone());
    }
    if let Some(p) = profiles.iter().find(|p| {
        p.src.dataset == profiles[at].src.dataset
            && close_or_shared(p, &profiles[at])
            && p.max_concurrency == concurrency
    }) {
        return Some(p.id.clone());
    }
    let mut fresh = profiles[at].clone();
    let c = concurrency.unwrap_or(0);
    fresh.id = unique(&format!("{}-c{c}", profiles[at].id), &profiles.iter().map(|p| p.id.clone()).collect::<Vec<_>>());
    fresh.name = format!("{} (concurrency {c})", profiles[at].name);
    fresh.max_concurrency = concurrency;
    fresh.src.total_requests = done;
    choices.push(Choice::new(
        format!("profile.{}", fresh.id),
        w.line,
        format!(
            "a block at line {} runs {} at concurrency {c}, which the setup does not list; it got a profile of its own",
            w.line, profiles[at].name
        ),
    ));
    profiles.push(fresh.clone());
    Some(fresh.id)
}

/// Whether a heading or label names this profile: `ShareGPT Profile`, `Balanced: 8K in / 1K
/// out`, `Rate 4` for a profile at 4 requests a second.
fn names(p: &ProfileDraft, name: &str) -> bool {
    let wanted = slug(&name.replace(" Profile", "").replace(" prompt", ""));
    let own = slug(&p.name);
    let head = slug(name.split([':', '(']).next().unwrap_or(name));
    if p.id == wanted || own == wanted || (head != wanted && head == own) {
        return true;
    }
    let l = name.to_lowercase();
    let rate = l.strip_prefix("rate ").and_then(|r| r.trim().parse::<f64>().ok());
    rate.is_some() && rate == p.src.request_rate.as_deref().and_then(|r| r.parse().ok())
}

fn close_or_shared(a: &ProfileDraft, b: &ProfileDraft) -> bool {
    a.src.input_tokens == b.src.input_tokens
}

/// The variants a source holds: one, or one per labelled block when a single serving script
/// is followed by blocks labelled with the option each measures (`# --max-num-batched-tokens 4096`).
pub fn expand(v: &VariantSource, profile_label: &dyn Fn(&str) -> bool) -> Vec<VariantSource> {
    let labelled: Vec<&Written> =
        v.blocks.iter().filter(|b| b.label.as_deref().is_some_and(|l| !profile_label(l))).collect();
    if labelled.len() < 2 || labelled.len() != v.blocks.len() {
        return vec![v.clone()];
    }
    let words: Vec<String> = labelled.iter().map(|b| b.label.clone().unwrap_or_default()).collect();
    let command = v.command.clone().map(|c| c.1).unwrap_or_default();
    labelled
        .iter()
        .map(|b| {
            let label = b.label.clone().unwrap_or_default();
            let cmd = relabel(&command, &label, &words);
            VariantSource {
                line: b.line,
                label: Some(label),
                command: Some((v.command.as_ref().map_or(b.line, |c| c.0), cmd)),
                parameters_only: v.parameters_only,
                blocks: vec![(*b).clone()],
                profile: v.profile.clone(),
                said: Vec::new(),
                engine: v.engine.clone(),
            }
        })
        .collect()
}

/// The command a labelled block measures: the label's flags set on the command, or the word
/// that names another block's option replaced by this one's.
fn relabel(command: &str, label: &str, words: &[String]) -> String {
    let flags_of = |text: &str| Flag::from_argv(&shell_words::split(text).unwrap_or_default());
    if label.trim_start().starts_with('-') {
        // The labels say the whole option set each block measures: what any of them sets is
        // the label's to give.
        let named: Vec<String> = words.iter().flat_map(|w| flags_of(w)).map(|f| f.key).collect();
        let added = flags_of(label);
        let mut words_out = shell_words::split(command).unwrap_or_default();
        let module = words_out.len() > 2 && words_out[0].starts_with("python") && words_out[1] == "-m";
        let skip = if module { 3 } else { 0 };
        let first = words_out.iter().skip(skip).position(|w| w.starts_with('-')).map_or(words_out.len(), |k| k + skip);
        let mut flags = flags_of(&shell_words::join(words_out.split_off(first)));
        flags.retain(|f| !named.contains(&f.key));
        for f in added {
            match flags.iter_mut().find(|g| g.key == f.key) {
                Some(g) => *g = f,
                None => flags.push(f),
            }
        }
        let mut out = words_out;
        out.extend(flags.iter().flat_map(Flag::argv));
        return out.join(" ");
    }
    let mut out: Vec<String> = command.split_whitespace().map(str::to_string).collect();
    for w in out.iter_mut() {
        for other in words {
            if w == other || w.ends_with(&format!("={other}")) {
                *w = w.replace(other.as_str(), label);
            }
        }
    }
    out.join(" ")
}

/// The class of a failure from what the page says about it.
pub fn failure_class(said: &str) -> (&'static str, bool) {
    let s = said.to_lowercase();
    let rules = [
        ("oom", "oom"),
        ("out of memory", "oom"),
        ("not support", "unsupported"),
        ("unsupported", "unsupported"),
        ("crash", "crash"),
        ("fail", "start-failure"),
        ("error", "start-failure"),
    ];
    match rules.iter().find(|(w, _)| s.contains(w)) {
        Some((_, class)) => (class, true),
        None => ("start-failure", false),
    }
}

/// Flags, unset flags, environment and model that turn `base` into `cfg`.
pub fn diff(base: &Cfg, cfg: &Cfg) -> (Vec<String>, Vec<String>, BTreeMap<String, String>, Option<String>) {
    let flags = cfg.flags.iter().filter(|f| !base.has(f)).map(|f| f.text.clone()).collect();
    let unset =
        base.flags.iter().filter(|f| !cfg.flags.iter().any(|g| g.key == f.key)).map(|f| f.key.clone()).collect();
    let env =
        cfg.env.iter().filter(|(k, v)| base.env.get(*k) != Some(*v)).map(|(k, v)| (k.clone(), v.clone())).collect();
    let model = (cfg.model != base.model).then(|| cfg.model.clone());
    (flags, unset, env, model)
}

/// How close `cfg` is to building on `base`: flags shared, less flags it would drop.
pub fn closeness(base: &Cfg, cfg: &Cfg) -> Option<i64> {
    if base.engine != cfg.engine {
        return None;
    }
    let shared = base.flags.iter().filter(|f| cfg.has(f)).count() as i64;
    let dropped = base.flags.iter().filter(|f| !cfg.flags.iter().any(|g| g.key == f.key)).count() as i64;
    let changed = base.flags.len() as i64 - shared - dropped;
    let env = base.env.iter().filter(|(k, v)| cfg.env.get(*k) == Some(*v)).count() as i64;
    // A variable of the base that `cfg` does not set: no variant can take it away.
    let env_dropped = base.env.keys().filter(|k| !cfg.env.contains_key(*k)).count() as i64;
    let model = i64::from(base.model == cfg.model);
    Some(2 * shared + env + model - 2 * dropped - changed - 2 * env_dropped)
}

/// Whether an environment variable changes which code a process runs: what the dynamic
/// loader loads (`LD_PRELOAD`, `LD_LIBRARY_PATH`, `LD_AUDIT`), where Python finds its modules
/// (`PYTHONPATH`, `PYTHONHOME`, `PYTHONSTARTUP`), where programs are found (`PATH`).
pub fn changes_code(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "LD_AUDIT",
        "PYTHONPATH",
        "PYTHONHOME",
        "PYTHONSTARTUP",
        "PYTHONUSERBASE",
        "PATH",
    ];
    NAMES.contains(&name) || name.starts_with("DYLD_")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(command: &str) -> Cfg {
        let s = split(command);
        Cfg { engine: s.engine.unwrap(), model: s.model.unwrap_or_default(), flags: s.flags, env: s.env }
    }

    #[test]
    fn a_flag_written_both_ways_is_an_alias_and_one_written_one_way_is_not() {
        let commands = [
            "python3 -m sglang.launch_server --model-path m --tp-size 8 --dp-size 8",
            "python3 -m sglang.launch_server --model-path m --tp-size 8 --dp 8",
            "vllm serve m -tp 8",
        ];
        let aliases = aliases(commands.into_iter());
        assert_eq!(aliases.len(), 1, "vLLM writes `-tp` one way only: {aliases:?}");
        let sglang: Vec<(&str, &str)> = aliases["sglang"].iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(sglang, [("--dp", "--dp-size")]);
    }

    #[test]
    fn an_exported_variable_is_environment_and_a_base_s_variable_counts_against_it() {
        let with = cfg("export VLLM_USE_DEEP_GEMM=0\nvllm serve m -tp 8".replace('\n', " ").as_str());
        assert_eq!(with.env.get("VLLM_USE_DEEP_GEMM").map(String::as_str), Some("0"));
        assert_eq!(with.flags.len(), 1);
        let plain = cfg("vllm serve m -tp 8");
        let tool = cfg("vllm serve m -tp 8 --tool-call-parser x");
        // The variant does not set the variable: the base without it is the closer one.
        assert!(closeness(&plain, &tool) > closeness(&with, &tool));
    }
}
