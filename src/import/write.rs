//! The draft as `study.toml` and run files, written so that nothing existing is lost.

use super::{Choice, Draft, Imported};
use crate::diag::Diagnostic;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The comment that marks what import chose; `perflab check` warns while one is left.
pub const UNRESOLVED: &str = "# import:";

/// A TOML string.
fn q(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

fn list(items: &[String]) -> String {
    format!("[{}]", items.iter().map(|s| q(s)).collect::<Vec<_>>().join(", "))
}

fn comments(out: &mut String, choices: &[Choice], key: &str) {
    for c in choices.iter().filter(|c| c.key == key) {
        let at = if c.line > 0 { format!(" (page line {})", c.line) } else { String::new() };
        let _ = writeln!(out, "{UNRESOLVED} {}{at}", c.message.replace('\n', " "));
    }
}

/// The study's spec.
pub(crate) fn spec(d: &Draft) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# Imported from a published page by `perflab import`. Layout and keys: docs/study-format.md.");
    let _ =
        writeln!(o, "# Lines starting with `{UNRESOLVED}` are what the page left open; check each and delete it.\n");
    // A choice whose key the spec does not write is listed at the top.
    let mut keys: Vec<String> = d.engines.iter().map(|e| format!("engine.{}", e.id)).collect();
    keys.extend(d.profiles.iter().map(|p| format!("profile.{}", p.id)));
    for s in &d.stages {
        keys.push(format!("stage.{}", s.id));
        keys.extend(s.variants.iter().map(|v| format!("stage.{}.variant.{}", s.id, v.id)));
    }
    let known = |c: &&Choice| keys.contains(&c.key);
    let top: Vec<Choice> = d
        .choices
        .iter()
        .filter(|c| !known(c))
        .cloned()
        .map(|mut c| {
            c.key = String::new();
            c
        })
        .collect();
    comments(&mut o, &top, "");
    let _ = writeln!(o, "model = {}", q(&d.model));
    let _ = writeln!(o, "baseline = {}", q(&d.baseline));
    let _ = writeln!(o, "target_profile = {}", q(&d.target));
    if d.latency.is_some() {
        let _ = writeln!(o, "objective = \"latency_s\"\nsecondary = [\"mean_ttft_ms\", \"mean_tpot_ms\"]");
    } else if d.scaled {
        let _ = writeln!(o, "objective = \"scaled_tps\"\nsecondary = \"mean_tpot_ms\"");
    } else if d.per_gpu {
        let _ = writeln!(o, "objective = \"tps_per_gpu\"\nsecondary = [\"total_token_throughput\", \"mean_tpot_ms\"]");
    } else {
        let _ = writeln!(o, "objective = \"total_token_throughput\"\nsecondary = \"mean_tpot_ms\"");
    }
    if let Some(c) = &d.compare {
        let _ = writeln!(o, "compare_profiles = {}", list(c));
    }
    let _ = writeln!(o, "\n[display]\npercent_decimals = {}", d.percent_decimals);
    if let Some(expr) = &d.latency {
        let _ = writeln!(o, "speedup = true");
        let _ = writeln!(
            o,
            "\n[[metric]]\nid = \"latency_s\"\nname = {{ en = \"Mean latency per request\" }}\nexpr = {}\nunit = \"s\"\nbetter = \"lower\"",
            q(expr)
        );
    }
    if d.scaled {
        let _ = writeln!(
            o,
            "\n[[metric]]\nid = \"scaled_tps\"\nname = {{ en = \"Total TPS at the same GPU count\" }}\nexpr = \"total_token_throughput * replicas\"\nunit = \"tok/s\"\nbetter = \"higher\""
        );
    }
    if d.per_gpu {
        let _ = writeln!(
            o,
            "\n[[metric]]\nid = \"tps_per_gpu\"\nname = {{ en = \"Total TPS per GPU\" }}\nexpr = \"total_token_throughput / gpus\"\nunit = \"tok/s\"\nbetter = \"higher\""
        );
    }
    let _ = writeln!(o, "\n[title]\nen = {}\n\n[hardware]\nen = {}", q(&d.title), q(&d.hardware));
    if let Some(goal) = &d.goal {
        let _ = writeln!(o, "\n[goal]\nen = {}", q(goal));
    }
    let _ = writeln!(o, "\n[benchmark]\ntool = {}\ncommand = {}", q(&d.benchmark.0), q(&d.benchmark.1));
    for e in &d.engines {
        engine(&mut o, d, e);
    }
    for p in &d.profiles {
        profile(&mut o, d, p);
    }
    for n in &d.notes {
        let _ = writeln!(o, "\n[[notes]]\nen = {}", q(n));
    }
    for s in &d.stages {
        stage(&mut o, d, s);
    }
    o
}

fn engine(o: &mut String, d: &Draft, e: &super::EngineDraft) {
    o.push('\n');
    comments(o, &d.choices, &format!("engine.{}", e.id));
    let command = format!("{} --port {{port}}", e.command);
    let _ = writeln!(
        o,
        "[[engine]]\nid = {}\nname = {}\nversion = {}\ncommand = {}",
        q(&e.id),
        q(&e.name),
        q(&e.version),
        q(&command)
    );
    if !e.aliases.is_empty() {
        let pairs: Vec<String> = e.aliases.iter().map(|(k, v)| format!("{} = {}", q(k), q(v))).collect();
        let _ = writeln!(o, "aliases = {{ {} }}", pairs.join(", "));
    }
}

fn profile(o: &mut String, d: &Draft, p: &super::ProfileDraft) {
    o.push('\n');
    comments(o, &d.choices, &format!("profile.{}", p.id));
    let _ = writeln!(
        o,
        "[[profile]]\nid = {}\nname = {{ en = {} }}\ndataset = {}",
        q(&p.id),
        q(&p.name),
        q(&p.src.dataset)
    );
    let mut args: Vec<String> = Vec::new();
    let guidellm = d.benchmark.0 == "guidellm";
    if let Some(path) = &p.dataset_path {
        let _ = writeln!(o, "dataset_path = {}", q(path));
        args.extend([if guidellm { "--data" } else { "--dataset-path" }.to_string(), "{dataset_path}".into()]);
    }
    for (key, value) in
        [("input_tokens", p.src.input_tokens), ("output_tokens", p.src.output_tokens), ("seed", p.src.seed)]
    {
        if let Some(v) = value {
            let _ = writeln!(o, "{key} = {v}");
        }
    }
    if p.src.input_tokens.is_some() {
        if guidellm {
            args.extend(["--data".into(), "prompt_tokens={input_tokens},output_tokens={output_tokens}".into()]);
        } else {
            args.extend(
                ["--random-input-len", "{input_tokens}", "--random-output-len", "{output_tokens}"].map(String::from),
            );
        }
        if p.src.seed.is_some() {
            args.extend([if guidellm { "--random-seed" } else { "--seed" }.into(), "{seed}".into()]);
        }
    }
    let rate = p.src.request_rate.as_deref().map(str::parse::<f64>);
    match rate {
        Some(Ok(r)) => {
            let _ = writeln!(o, "request_rate = {r}");
        }
        _ if guidellm => {
            let _ = writeln!(o, "request_rate = \"inf\"");
        }
        _ => {}
    }
    let _ = writeln!(o, "total_requests = {}", p.src.total_requests.unwrap_or(1000));
    if let Some(c) = p.max_concurrency {
        let _ = writeln!(o, "max_concurrency = {c}");
    }
    args.extend(load_args(guidellm, p.max_concurrency.is_some(), matches!(rate, Some(Ok(_)))));
    let _ = writeln!(o, "args = {}", list(&args));
}

/// How a profile's load is passed to its benchmark tool. guidellm takes the kind of load as
/// `--profile` and its size as `--rate`: streams for `concurrent`, requests a second for
/// `constant`, nothing for `throughput` (every request at once); `vllm bench serve` takes a
/// rate and a concurrency cap as flags of their own, and sends every request at once without.
fn load_args(guidellm: bool, concurrency: bool, rate: bool) -> Vec<String> {
    let words: &[&str] = match (guidellm, concurrency, rate) {
        (true, true, _) => &["--profile", "concurrent", "--rate", "{max_concurrency}"],
        (true, false, true) => &["--profile", "constant", "--rate", "{request_rate}"],
        (true, false, false) => &["--profile", "throughput"],
        (false, true, true) => &["--request-rate", "{request_rate}", "--max-concurrency", "{max_concurrency}"],
        (false, true, false) => &["--max-concurrency", "{max_concurrency}"],
        (false, false, true) => &["--request-rate", "{request_rate}"],
        (false, false, false) => &[],
    };
    words.iter().map(|w| w.to_string()).collect()
}

fn stage(o: &mut String, d: &Draft, s: &super::StageDraft) {
    o.push('\n');
    comments(o, &d.choices, &format!("stage.{}", s.id));
    let _ = writeln!(o, "[[stage]]\nid = {}\ntitle = {{ en = {} }}", q(&s.id), q(&s.title));
    if let Some((variant, reason)) = &s.adopt {
        let v = variant.as_ref().map(|v| format!("variant = {}, ", q(v))).unwrap_or_default();
        let _ = writeln!(o, "adopt = {{ {v}reason = {{ en = {} }} }}", q(reason));
    }
    if let Some(reason) = &s.exclude {
        let _ = writeln!(o, "exclude_from_command = {{ reason = {{ en = {} }} }}", q(reason));
    }
    texts(o, "notes", &s.notes);
    texts(o, "warnings", &s.warnings);
    let first = d.stages.first().is_some_and(|f| f.id == s.id);
    for v in &s.variants {
        o.push('\n');
        comments(o, &d.choices, &format!("stage.{}.variant.{}", s.id, v.id));
        let _ = writeln!(o, "[[stage.variant]]\nid = {}\nlabel = {}", q(&v.id), q(&v.label));
        if first {
            let _ = writeln!(o, "engine = {}", q(&v.cfg.engine));
        }
        if let Some(b) = &v.base {
            let _ = writeln!(o, "base = {}", q(b));
        }
        if let Some(m) = v.model.as_ref().filter(|m| **m != d.model || !first) {
            let _ = writeln!(o, "model = {}", q(m));
        }
        if let Some(gpus) = v.gpus {
            let _ = writeln!(o, "gpus = {gpus}");
        }
        if v.replicas > 1 {
            let _ = writeln!(o, "replicas = {}", v.replicas);
        }
        if !v.flags.is_empty() {
            let _ = writeln!(o, "flags = {}", list(&v.flags));
        }
        if !v.unset.is_empty() {
            let _ = writeln!(o, "unset = {}", list(&v.unset));
        }
        if !v.env.is_empty() {
            let env: Vec<String> = v.env.iter().map(|(k, x)| format!("{} = {}", q(k), q(x))).collect();
            let _ = writeln!(o, "env = {{ {} }}", env.join(", "));
        }
        texts(o, "notes", &v.notes);
        if let Some((class, message)) = &v.failure {
            let m = if message.is_empty() { String::new() } else { format!(", message = {}", q(message)) };
            let _ = writeln!(o, "failure = {{ class = {}{m} }}", q(class));
        }
    }
}

/// `key = [{ en = "..." }, ...]`, English texts of a stage or a variant; nothing when empty.
fn texts(o: &mut String, key: &str, items: &[String]) {
    if !items.is_empty() {
        let items: Vec<String> = items.iter().map(|t| format!("{{ en = {} }}", q(t))).collect();
        let _ = writeln!(o, "{key} = [{}]", items.join(", "));
    }
}

/// Every block as its run file, under the study folder.
pub(crate) fn runs(d: &Draft) -> Vec<(PathBuf, String)> {
    blocks(d).into_iter().map(|(path, w)| (path, w.text.clone())).collect()
}

/// Every block with the path of its run file under the study folder.
pub(crate) fn blocks(d: &Draft) -> Vec<(PathBuf, &super::page::Written)> {
    let mut out = Vec::new();
    for s in &d.stages {
        for v in &s.variants {
            for (profile, w) in &v.blocks {
                let path = Path::new(crate::study::RUNS_DIR).join(&s.id).join(&v.id).join(format!("{profile}.txt"));
                out.push((path, w));
            }
        }
    }
    out
}

/// Writes a spec and runs into a folder that does not exist yet.
pub(crate) fn to_dir(spec: &str, runs: &[(PathBuf, String)], dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join(crate::study::SPEC_FILE), spec)?;
    for (path, text) in runs {
        let full = dir.join(path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(full, text)?;
    }
    Ok(())
}

/// Writes the study at `dir`: into a fresh folder beside it first, then put in place, so that a
/// failure leaves nothing half-written. An existing study is kept unless `force`.
pub fn write_study(imported: &Imported, dir: &Path, force: bool) -> std::io::Result<()> {
    let exists = dir.exists();
    if exists && !force {
        return Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            "a study is already there; nothing was written (--force replaces it)",
        ));
    }
    // A study being measured is not replaced: its run lock is held until the swap is done (a
    // run that starts meanwhile is refused).
    let runs = dir.join(crate::study::RUNS_DIR);
    let _lock = if exists && dir.is_dir() {
        Some(crate::exec::Lock::take(&runs).map_err(|e| {
            std::io::Error::new(std::io::ErrorKind::ResourceBusy, format!("{e:#}; nothing was written"))
        })?)
    } else {
        None
    };
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    let fresh = crate::durable::beside(dir, "import");
    if fresh.exists() {
        crate::durable::remove_tree(&fresh)?;
    }
    to_dir(&imported.spec, &imported.runs, &fresh)?;
    crate::durable::swap(&fresh, dir)?;
    // With --force the study that was there is now at `fresh`.
    crate::durable::remove_tree(&fresh)
}

/// The choices import left in a study: a warning at each `# import:` comment.
pub fn unresolved(file: &Path, source: &str) -> Vec<Diagnostic> {
    let lines = source.lines().enumerate();
    let marked = lines.filter_map(|(k, l)| l.trim_start().strip_prefix(UNRESOLVED).map(|m| (k + 1, m.trim())));
    marked
        .map(|(line, m)| {
            Diagnostic::new(file, line, 1, format!("warning: import chose this, check it and delete the comment: {m}"))
        })
        .collect()
}
