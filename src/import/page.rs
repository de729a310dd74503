//! A published guide read into its parts: setup, stages with their variants' commands and
//! benchmark blocks, the conclusion's tables and the other cases. Nothing here decides what a
//! part means for the study; that is `build`'s job.

use super::ImportError;

/// A fenced code block or an admonition's body, its lines without the indentation that
/// nested it, with the page line of its first line.
#[derive(Debug, Clone)]
pub struct Body {
    pub line: usize,
    /// The characters of indentation taken off each line (its fence's).
    pub indent: usize,
    pub lines: Vec<String>,
}

/// A benchmark block as written, with the `# label` line above it.
#[derive(Debug, Clone)]
pub struct Written {
    /// The page line of the block's first line (1-based).
    pub line: usize,
    /// The indentation the page gives its lines, taken off `text`.
    pub indent: usize,
    pub label: Option<String>,
    pub text: String,
}

impl Written {
    /// The page's line and column of the block text's `line` and `col` (1-based; column 0 stays).
    pub fn on_page(&self, line: usize, col: usize) -> (usize, usize) {
        (self.line + line.max(1) - 1, if col == 0 { 0 } else { col + self.indent })
    }
}

/// A variant's part of a stage section.
#[derive(Debug, Clone, Default)]
pub struct VariantSource {
    pub line: usize,
    pub label: Option<String>,
    /// The serving command, joined onto one line, or the backend parameters.
    pub command: Option<(usize, String)>,
    /// Whether `command` lists only the engine's parameters (no program, no model).
    pub parameters_only: bool,
    pub blocks: Vec<Written>,
    /// The profile the section names (`- Profile: `Balanced``).
    pub profile: Option<String>,
    /// Comments and sentences that say why nothing was measured.
    pub said: Vec<String>,
    /// The engine the variant's section tunes, where the section says (`Optimizing vLLM`).
    pub engine: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct StageSource {
    pub line: usize,
    pub title: String,
    pub variants: Vec<VariantSource>,
    /// The section's own sentences (before its first variant) and note boxes.
    pub notes: Vec<String>,
    /// The section's warning boxes.
    pub warnings: Vec<String>,
}

/// A profile the setup describes.
#[derive(Debug, Clone, Default)]
pub struct ProfileSource {
    pub name: String,
    pub dataset: String,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub seed: Option<u64>,
    pub request_rate: Option<String>,
    pub total_requests: Option<u64>,
}

/// One table: its header cells and its rows' cells, with the line of each row.
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<(usize, Vec<String>)>,
}

#[derive(Debug, Clone, Default)]
pub struct Page {
    pub title: String,
    pub goal: Option<String>,
    /// The items of the conclusion's note box.
    pub notes: Vec<String>,
    pub model: Option<String>,
    pub hardware: Option<String>,
    /// (name as written, version).
    pub engines: Vec<(String, String)>,
    pub profiles: Vec<ProfileSource>,
    pub benchmark_script: Vec<String>,
    pub benchmark_tool: Option<String>,
    pub recommended: Option<(usize, String)>,
    pub before_after: Option<Table>,
    pub summary: Option<Table>,
    pub stages: Vec<StageSource>,
    /// The other cases: `(baseline?, command, blocks)` for each side.
    pub other: Vec<OtherSide>,
}

#[derive(Debug, Clone, Default)]
pub struct OtherSide {
    pub baseline: bool,
    pub command: Option<(usize, String)>,
    pub parameters_only: bool,
    pub blocks: Vec<Written>,
    /// The `####` heading the side is under (family of pages that name the profile there).
    pub heading: Option<String>,
}

/// A line's heading level and text, outside code.
fn heading(line: &str) -> Option<(usize, &str)> {
    let level = line.bytes().take_while(|&b| b == b'#').count();
    (level > 0 && level <= 6 && line[level..].starts_with(' ')).then(|| (level, line[level..].trim()))
}

/// The title of an admonition line: `??? info "Serving script"` → `Serving script`.
fn admonition(line: &str) -> Option<&str> {
    let t = line.trim_start();
    if !(t.starts_with("???") || t.starts_with("!!!")) {
        return None;
    }
    let quoted = t.split('"').nth(1);
    Some(quoted.unwrap_or_else(|| t.trim_start_matches(['?', '!', '+']).trim()))
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The page cut into lines, with a cursor.
struct Reader<'a> {
    lines: Vec<&'a str>,
}

impl<'a> Reader<'a> {
    /// The fenced code block that opens at line `at` (0-based), de-indented, and the index
    /// after it. An unclosed fence is an error at its line.
    fn fence(&self, at: usize) -> Result<(Body, usize), ImportError> {
        let open = self.lines[at];
        let pad = indent(open);
        let mut out = Vec::new();
        let mut i = at + 1;
        while i < self.lines.len() {
            let l = self.lines[i];
            if l.trim_start().starts_with("```") && indent(l) <= pad + 1 {
                return Ok((Body { line: at + 2, indent: pad, lines: out }, i + 1));
            }
            out.push(l.get(pad.min(indent(l))..).unwrap_or("").to_string());
            i += 1;
        }
        Err(ImportError::new(at + 1, "a code block opens here and is never closed"))
    }

    /// The first fenced block after line `at` within an admonition's indented body.
    fn body_after(&self, at: usize) -> Result<Option<(Body, usize)>, ImportError> {
        let mut i = at + 1;
        while i < self.lines.len() {
            let l = self.lines[i];
            if l.trim().is_empty() {
                i += 1;
                continue;
            }
            if l.trim_start().starts_with("```") {
                return self.fence(i).map(Some);
            }
            return Ok(None);
        }
        Ok(None)
    }
}

/// A shell command's lines joined into one: continuations and comments go.
pub fn join_command(lines: &[String]) -> (String, Vec<String>) {
    let mut words = Vec::new();
    let mut comments: Vec<String> = Vec::new();
    let mut last_was_comment = false;
    for l in lines {
        let t = l.trim();
        if let Some(c) = t.strip_prefix('#') {
            // Comment lines in a row are one text, wrapped.
            match comments.last_mut() {
                Some(last) if last_was_comment => {
                    last.push(' ');
                    last.push_str(c.trim());
                }
                _ => comments.push(c.trim().to_string()),
            }
            last_was_comment = true;
            continue;
        }
        last_was_comment = false;
        let t = t.strip_suffix('\\').unwrap_or(t).trim();
        if !t.is_empty() {
            words.push(t.to_string());
        }
    }
    (words.join(" "), comments)
}

/// The benchmark blocks in a result body, each with the `# label` line above it; the comments
/// that stand alone (`# Crash, not supported`) are returned as well.
pub fn split_blocks(body: &Body) -> Result<(Vec<Written>, Vec<String>), ImportError> {
    let mut blocks = Vec::new();
    let mut loose = Vec::new();
    let mut label: Option<String> = None;
    let mut current: Option<(usize, Vec<String>)> = None;
    for (k, l) in body.lines.iter().enumerate() {
        let t = l.trim();
        if let Some((start, text)) = current.as_mut() {
            text.push(l.clone());
            if t.len() >= 10 && t.chars().all(|c| c == '=') {
                let text = text.join("\n") + "\n";
                blocks.push(Written { line: *start, indent: body.indent, label: label.take(), text });
                current = None;
            }
            continue;
        }
        // A block whose header line the page lost starts at its first figure.
        if t.contains("Serving Benchmark Result") || t.starts_with("Successful requests:") {
            current = Some((body.line + k, vec![l.clone()]));
        } else if let Some(c) = t.strip_prefix('#') {
            if let Some(old) = label.replace(c.trim().to_string()) {
                loose.push(old);
            }
        } else if !t.is_empty() {
            loose.push(t.to_string());
        }
    }
    if let Some((start, _)) = current {
        return Err(ImportError::new(start, "this benchmark block is cut off: its closing `=====` line is missing"));
    }
    loose.extend(label);
    Ok((blocks, loose))
}

/// Reads a page.
pub fn read(text: &str) -> Result<Page, ImportError> {
    let r = Reader { lines: text.lines().collect() };
    let mut page = Page::default();
    let mut h = Headings::default();
    let mut pending_label: Option<(usize, String)> = None;
    let mut i = 0;
    while i < r.lines.len() {
        let line = r.lines[i];
        if line.trim_start().starts_with("```") {
            let (body, next) = r.fence(i)?;
            setup_code(&mut page, &h.h3, h.h4.as_deref(), &body);
            i = next;
            continue;
        }
        if let Some((level, title)) = heading(line) {
            match level {
                1 => page.title = title.to_string(),
                2 => h = Headings { h2: title.to_string(), ..Headings::default() },
                3 => {
                    (h.h3, h.h4) = (title.to_string(), None);
                    if in_results(&h.h2) && is_stage(&h.h3) {
                        page.stages.push(StageSource { line: i + 1, title: stage_title(title), ..Default::default() });
                    }
                }
                _ => {
                    if level == 4 {
                        h.h4 = Some(title.to_string());
                    }
                    if in_results(&h.h2) && is_stage(&h.h3) && level == 4 {
                        start_variant(&mut page, i + 1, Some(title.to_string()));
                    }
                    if level == 5 && h.h2.contains("Setup") {
                        page.profiles.push(ProfileSource { name: title.to_string(), ..Default::default() });
                    }
                }
            }
            pending_label = None;
            i += 1;
            continue;
        }
        let t = line.trim();
        if let Some(kind) = admonition(line) {
            let next = body_or_skip(&r, i, &mut page, &h, kind, pending_label.take())?;
            i = next;
            continue;
        }
        if t.starts_with('|') {
            let (table, next) = read_table(&r, i);
            if h.h2.contains("Conclusion") && page.before_after.is_none() {
                page.before_after = Some(table);
            } else if h.h3.contains("Summary of Optimization") {
                page.summary = Some(table);
            }
            i = next;
            continue;
        }
        plain_line(&mut page, &r, i, &h, &mut pending_label)?;
        i += 1;
    }
    Ok(page)
}

/// The headings a line of the page stands under: its section (`##`), its subsection (`###`)
/// and, where there is one, its `####` heading.
#[derive(Default)]
struct Headings {
    h2: String,
    h3: String,
    h4: Option<String>,
}

fn in_results(h2: &str) -> bool {
    h2.contains("Experiment Results")
}

fn is_stage(h3: &str) -> bool {
    !(h3.contains("Summary of Optimization") || h3.contains("Other Benchmark Cases"))
}

fn in_other(h2: &str, h3: &str) -> bool {
    in_results(h2) && h3.contains("Other Benchmark Cases")
}

/// `1. Choosing the Inference Engine` → `Choosing the Inference Engine`.
fn stage_title(title: &str) -> String {
    let t = title.trim_start_matches(|c: char| c.is_ascii_digit());
    match t.strip_prefix('.') {
        Some(rest) if t.len() < title.len() => rest.trim().to_string(),
        _ => title.to_string(),
    }
}

fn start_variant(page: &mut Page, line: usize, label: Option<String>) {
    if let Some(stage) = page.stages.last_mut() {
        stage.variants.push(VariantSource { line, label, ..Default::default() });
    }
}

/// The variant a command or block belongs to: the last one, or a new one when the last has its
/// command already.
fn variant_for_command(page: &mut Page, line: usize, label: Option<String>) -> Option<&mut VariantSource> {
    let stage = page.stages.last_mut()?;
    let reuse = match stage.variants.last() {
        Some(v) => v.command.is_none() && v.blocks.is_empty() && (label.is_none() || v.label.is_none()),
        None => false,
    };
    if !reuse {
        stage.variants.push(VariantSource { line, label: label.clone(), ..Default::default() });
    }
    let v = stage.variants.last_mut()?;
    if v.label.is_none() {
        v.label = label;
    }
    Some(v)
}

fn body_or_skip(
    r: &Reader,
    i: usize,
    page: &mut Page,
    h: &Headings,
    kind: &str,
    label: Option<(usize, String)>,
) -> Result<usize, ImportError> {
    let (h2, h3, h4) = (h.h2.as_str(), h.h3.as_str(), h.h4.as_deref());
    let lower = kind.to_lowercase();
    if h2.contains("Conclusion") && lower.contains("note") {
        return Ok(conclusion_notes(r, i, page));
    }
    let Some((body, next)) = r.body_after(i)? else {
        if in_results(h2)
            && is_stage(h3)
            && let Some(next) = stage_box(r, i, page, kind)
        {
            return Ok(next);
        }
        if (lower.contains("warning") || lower.contains("failure") || lower.contains("error"))
            && let Some(v) = page.stages.last_mut().and_then(|s| s.variants.last_mut())
        {
            v.said.push(kind.to_string());
        }
        return Ok(i + 1);
    };
    let serving = lower.contains("serving");
    let benchmark = lower.contains("benchmark");
    if h2.contains("Conclusion") && serving {
        page.recommended = Some((body.line, join_command(&body.lines).0));
    } else if in_other(h2, h3) {
        other_body(page, &body, lower.contains("baseline"), serving, h4)?;
    } else if in_results(h2) && is_stage(h3) && serving {
        let line = label.as_ref().map_or(i + 1, |l| l.0);
        if let Some(v) = variant_for_command(page, line, label.map(|l| l.1)) {
            let (command, comments) = join_command(&body.lines);
            v.command = Some((body.line, command));
            v.said.extend(comments);
        }
    } else if in_results(h2) && is_stage(h3) && benchmark {
        let (blocks, loose) = split_blocks(&body)?;
        if let Some((at, name)) = label {
            start_variant(page, at, Some(name));
        }
        let stage = page.stages.last_mut();
        if let Some(stage) = stage {
            if stage.variants.is_empty() {
                stage.variants.push(VariantSource { line: i + 1, ..Default::default() });
            }
            let v = stage.variants.last_mut().expect("pushed above");
            v.blocks.extend(blocks);
            v.said.extend(loose);
        }
    } else if (lower.contains("note") || lower.contains("warning"))
        && let Some(v) = page.stages.last_mut().and_then(|s| s.variants.last_mut())
    {
        v.said.push(body.lines.join(" ").trim().to_string());
    }
    Ok(next)
}

/// A note or warning box of prose in a stage whose last variant was measured: the stage's
/// note or warning (`Title: text`); returns the line after the box. `None` for other boxes,
/// and in a stage whose last variant has no block (the box says why).
fn stage_box(r: &Reader, at: usize, page: &mut Page, title: &str) -> Option<usize> {
    let t = r.lines[at].trim_start();
    let kind = t.trim_start_matches(['!', '?', '+']).split_whitespace().next().unwrap_or("");
    let warning = matches!(kind, "warning" | "danger" | "caution" | "attention");
    if !(warning || matches!(kind, "note" | "info" | "tip" | "abstract")) {
        return None;
    }
    let stage = page.stages.last_mut()?;
    if stage.variants.last().is_some_and(|v| v.blocks.is_empty()) {
        return None;
    }
    let mut i = at + 1;
    let mut lines = Vec::new();
    while i < r.lines.len() && (r.lines[i].trim().is_empty() || indent(r.lines[i]) >= 4) {
        lines.push(r.lines[i].trim());
        i += 1;
    }
    let text = lines.join(" ").split_whitespace().collect::<Vec<_>>().join(" ");
    let has_title = t.contains('"') && !title.is_empty();
    let text = if has_title { format!("{title}: {text}") } else { text };
    if !text.is_empty() {
        if warning { stage.warnings.push(text) } else { stage.notes.push(text) }
    }
    Some(i)
}

/// Whether a line ranks or compares measured figures (`Result: vLLM (5713.95 tok/s) > ...`):
/// perflab computes those, so they are not text for the study.
fn ranks_figures(t: &str) -> bool {
    let figures = t.chars().any(|c| c.is_ascii_digit());
    t.starts_with("Result:")
        || figures && (t.contains(" > ") || t.contains(" < ") || t.contains(") <") || t.contains(") >"))
}

/// The items of the conclusion's note box (its indented lines, one item a numbered line and
/// those under it), as the study's notes; returns the line after the box.
fn conclusion_notes(r: &Reader, at: usize, page: &mut Page) -> usize {
    let mut i = at + 1;
    while i < r.lines.len() && (r.lines[i].trim().is_empty() || indent(r.lines[i]) >= 4) {
        let t = r.lines[i].trim();
        let item = t.split_once(". ").filter(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        match (item, page.notes.last_mut()) {
            (Some((_, text)), _) => page.notes.push(text.to_string()),
            (None, Some(last)) if !t.is_empty() => {
                last.push(' ');
                last.push_str(t);
            }
            (None, None) if !t.is_empty() => page.notes.push(t.to_string()),
            _ => {}
        }
        i += 1;
    }
    i
}

fn other_body(
    page: &mut Page,
    body: &Body,
    baseline: bool,
    serving: bool,
    h4: Option<&str>,
) -> Result<(), ImportError> {
    let heading = h4.map(str::to_string);
    let found = page.other.iter().position(|s| s.baseline == baseline && s.heading == heading);
    let side = match found {
        Some(k) => &mut page.other[k],
        None => {
            page.other.push(OtherSide { baseline, heading, ..Default::default() });
            page.other.last_mut().expect("pushed")
        }
    };
    if serving {
        side.command = Some((body.line, join_command(&body.lines).0));
    } else {
        side.blocks.extend(split_blocks(body)?.0);
    }
    Ok(())
}

/// A code block outside any admonition: the benchmark script, a profile's settings, a
/// variant's backend parameters.
fn setup_code(page: &mut Page, h3: &str, h4: Option<&str>, body: &Body) {
    if h3.contains("Benchmark Script") || h3.contains("Open-Source Replacement") {
        page.benchmark_script.extend(body.lines.iter().cloned());
    } else if h4.is_some_and(|h| h.contains("Benchmark Profiles"))
        && let Some(p) = page.profiles.last_mut()
    {
        for l in &body.lines {
            let Some((k, v)) = l.split_once(':') else { continue };
            let v = v.trim();
            match k.trim() {
                "dataset_name" => p.dataset = v.to_lowercase(),
                "dataset_input_tokens" => p.input_tokens = v.parse().ok(),
                "dataset_output_tokens" => p.output_tokens = v.parse().ok(),
                "dataset_seed" => p.seed = v.parse().ok(),
                "request_rate" => p.request_rate = Some(v.to_string()),
                "total_requests" => p.total_requests = v.parse().ok(),
                _ => {}
            }
        }
    }
}

/// Parameters listed under `- Backend Parameters:`, inside a stage or the other cases.
fn parameters(page: &mut Page, body: &Body, line: usize, baseline: Option<bool>, h4: Option<&str>) {
    let (command, _) = join_command(&body.lines);
    match baseline {
        None => {
            if let Some(v) = variant_for_command(page, line, None) {
                v.command = Some((body.line, command));
                v.parameters_only = true;
            }
        }
        Some(b) => {
            let heading = h4.map(str::to_string);
            let found = page.other.iter().position(|s| s.baseline == b && s.heading == heading);
            if found.is_none() {
                page.other.push(OtherSide { baseline: b, heading, ..Default::default() });
            }
            let k = found.unwrap_or(page.other.len() - 1);
            page.other[k].command = Some((body.line, command));
            page.other[k].parameters_only = true;
        }
    }
}

fn plain_line(
    page: &mut Page,
    r: &Reader,
    i: usize,
    h: &Headings,
    pending: &mut Option<(usize, String)>,
) -> Result<(), ImportError> {
    let (h2, h3, h4) = (h.h2.as_str(), h.h3.as_str(), h.h4.as_deref());
    let t = r.lines[i].trim();
    if t.is_empty() {
        return Ok(());
    }
    if h2.contains("Objective") && page.goal.is_none() {
        page.goal = Some(t.to_string());
    }
    if h2.contains("Setup") {
        setup_line(page, h3, t);
        return Ok(());
    }
    if !in_results(h2) {
        return Ok(());
    }
    if t.contains("Backend Parameters")
        && let Some((body, _)) = r.body_after(i)?
    {
        let side = in_other(h2, h3).then(|| !t.contains("Optimized"));
        parameters(page, &body, i + 1, side, h4);
        return Ok(());
    }
    if let Some(p) = t.strip_prefix("- Profile:") {
        let name = p.trim().trim_matches('`').to_string();
        let fresh = page
            .stages
            .last()
            .and_then(|s| s.variants.last())
            .is_none_or(|v| v.command.is_some() || !v.blocks.is_empty());
        if fresh {
            start_variant(page, i + 1, None);
        }
        if let Some(v) = page.stages.last_mut().and_then(|s| s.variants.last_mut()) {
            v.profile = Some(name);
        }
        return Ok(());
    }
    if !is_stage(h3) || t.starts_with('-') || t.starts_with('!') || t.starts_with('<') {
        return Ok(());
    }
    // A short line right before a serving script names the variant (a sentence does not);
    // other lines are words.
    let next = r.lines[i + 1..].iter().find(|l| !l.trim().is_empty());
    let names_next = next.and_then(|l| admonition(l)).is_some_and(|k| {
        let k = k.to_lowercase();
        k.contains("serving") || k.contains("benchmark")
    });
    if names_next && t.len() <= 60 && !t.ends_with('.') {
        *pending = Some((i + 1, t.to_string()));
    } else if !ranks_figures(t)
        && let Some(stage) = page.stages.last_mut()
    {
        match stage.variants.last_mut() {
            Some(v) => v.said.push(t.to_string()),
            None => stage.notes.push(t.to_string()),
        }
    }
    Ok(())
}

fn setup_line(page: &mut Page, h3: &str, t: &str) {
    if h3 == "Model" && page.model.is_none() {
        page.model = Some(t.to_string());
    } else if h3 == "Hardware" && page.hardware.is_none() {
        page.hardware = Some(mid_sentence(t.trim_end_matches('.')));
    } else if h3.starts_with("Engine Version") {
        let item = t.trim_start_matches(['-', '*', ' ']);
        let (name, version) = match item.split_once(':') {
            Some((n, v)) => (n.trim(), v.trim()),
            None => item.rsplit_once(' ').map_or((item, ""), |(n, v)| (n.trim(), v.trim())),
        };
        if !name.is_empty() && !version.is_empty() {
            page.engines.push((name.to_string(), version.to_string()));
        }
    } else if h3.starts_with("Benchmark Dataset") {
        dataset_line(page, t);
    } else if h3.contains("Benchmark Script") || h3.contains("Benchmark Method") {
        if t.contains("vLLM bench") {
            page.benchmark_tool = Some("vllm bench serve".into());
        } else if t.contains("guidellm") {
            page.benchmark_tool = Some("guidellm".into());
        }
    }
}

/// The hardware as a sentence reads it after "on": a page's paragraph that opens with an
/// article or a count word ("A single NVIDIA A100") gets it in lower case; a name or an acronym
/// ("NVIDIA H200", "AN…") keeps its capitals.
fn mid_sentence(text: &str) -> String {
    const ARTICLE_LIKE: [&str; 10] = ["a", "an", "the", "one", "two", "four", "eight", "single", "dual", "each"];
    let word = text.split_whitespace().next().unwrap_or_default();
    let mut letters = word.chars();
    let capital = letters.next().is_some_and(char::is_uppercase);
    let then_lower = letters.next().is_none_or(char::is_lowercase);
    if !(capital && then_lower && ARTICLE_LIKE.contains(&word.to_lowercase().as_str())) {
        return text.to_string();
    }
    let mut chars = text.chars();
    chars.next().map(|first| first.to_lowercase().chain(chars).collect()).unwrap_or_default()
}

/// `1. ShareGPT`, `- Long prompt: 4000 input tokens, 200 output tokens`.
fn dataset_line(page: &mut Page, t: &str) {
    let item = t.trim_start_matches(|c: char| c.is_ascii_digit() || matches!(c, '.' | '-' | '*' | ' '));
    if let Some((name, rest)) = item.split_once(':') {
        // `1K input tokens`: a thousand.
        let numbers: Vec<u64> = rest
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter_map(|w| match w.strip_suffix(['k', 'K']) {
                Some(n) => n.parse::<u64>().ok().map(|n| n * 1000),
                None => w.parse().ok(),
            })
            .collect();
        if numbers.len() >= 2 {
            page.profiles.push(ProfileSource {
                name: name.trim().to_string(),
                dataset: "random".into(),
                input_tokens: Some(numbers[0]),
                output_tokens: Some(numbers[1]),
                seed: Some(42),
                ..Default::default()
            });
        }
    } else if item.to_lowercase().starts_with("sharegpt") {
        page.profiles.push(ProfileSource { name: "ShareGPT".into(), dataset: "sharegpt".into(), ..Default::default() });
    }
}

/// The table starting at line `at`: its header, and its rows without the separator line.
fn read_table(r: &Reader, at: usize) -> (Table, usize) {
    let cells = |l: &str| -> Vec<String> {
        let t = l.trim().trim_start_matches('|').trim_end_matches('|');
        t.split('|').map(|c| c.trim().to_string()).collect()
    };
    let mut table = Table { header: cells(r.lines[at]), rows: Vec::new() };
    let mut i = at + 1;
    while i < r.lines.len() && r.lines[i].trim().starts_with('|') {
        let row = cells(r.lines[i]);
        if !row.iter().all(|c| c.chars().all(|ch| matches!(ch, '-' | ':' | ' '))) {
            table.rows.push((i + 1, row));
        }
        i += 1;
    }
    (table, i)
}
