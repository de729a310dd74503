//! Study text made safe to put into a page's Markdown, which is published as it is (GitHub,
//! mdBook) and turned into HTML by [`super::html`].
//!
//! - Prose ([`prose`]) stays Markdown, but what the Markdown parser reads as raw HTML becomes text,
//!   and a link whose address is not allowed ([`link_allowed`]) becomes its text.
//! - Plain strings (labels, names) are escaped so that nothing in them is markup ([`plain`]).
//! - Code is put in a code span ([`code`]) or a fence ([`fence`]) longer than any run of backticks
//!   inside, so that it cannot close early.
//! - Link addresses perflab writes are percent-encoded ([`url_path`]).

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use std::ops::Range;

/// The Markdown extensions every page is read with.
pub fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH
}

/// Whether a link may point at `url`: `http:`, `https:`, `mailto:`, a relative address or a
/// fragment. Anything else (`javascript:`, `data:`, `vbscript:`, `file:` ...) is shown as text.
pub fn link_allowed(url: &str) -> bool {
    // Browsers ignore these when they read a scheme: `java\tscript:` is `javascript:`.
    let cleaned: String = url.chars().filter(|c| !c.is_control() && !c.is_whitespace()).collect();
    let lower = cleaned.to_ascii_lowercase();
    let scheme_end = lower.find(|c: char| !(c.is_ascii_alphanumeric() || "+-.".contains(c)));
    match scheme_end {
        Some(i) if lower[i..].starts_with(':') && i > 0 => {
            matches!(&lower[..i], "http" | "https" | "mailto")
        }
        _ => true,
    }
}

/// A plain string shown as text in Markdown: no tag, link, code span or emphasis can start in it.
/// Line breaks become spaces.
pub fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in escape(text).chars() {
        if "\\`[]*!".contains(c) {
            out.push('\\');
        }
        out.push(if c.is_control() { ' ' } else { c });
    }
    out
}

/// The longest run of backticks in `text`.
fn longest_backtick_run(text: &str) -> usize {
    // Raw results are long and hold few backticks: each run is found by `find`, which skips
    // ahead through `memchr`.
    let (mut longest, mut at) = (0, 0);
    while let Some(start) = text[at..].find('`') {
        let run = text.as_bytes()[at + start..].iter().take_while(|&&b| b == b'`').count();
        longest = longest.max(run);
        at += start + run;
    }
    longest
}

/// `text` as an inline code span, its delimiters longer than any backtick run inside.
pub fn code(text: &str) -> String {
    let text: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let ticks = "`".repeat(longest_backtick_run(&text) + 1);
    // A space on each side keeps a backtick at either end from joining the delimiters.
    let pad = if text.starts_with('`') || text.ends_with('`') { " " } else { "" };
    format!("{ticks}{pad}{text}{pad}{ticks}")
}

/// `code` as a fenced code block in `lang`, its fence longer than any backtick run inside.
pub fn fence(code: &str, lang: &str) -> String {
    let fence = "`".repeat(longest_backtick_run(code).max(2) + 1);
    let lang: String = lang.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
    format!("{fence}{lang}\n{code}\n{fence}")
}

/// A path for a link: every byte but letters, digits and `-._~/` percent-encoded.
pub fn url_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A heading's id: lower case ASCII letters and digits joined by `-`, Turkish letters by their
/// base letter ("1. Çıkarım motoru seçimi" → `1-cikarim-motoru-secimi`), so that an id keeps
/// every word of its heading where a tool's own slugs would drop "ı".
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        let c = match c {
            'ı' | 'İ' | 'î' | 'Î' => 'i',
            'ğ' | 'Ğ' => 'g',
            'ü' | 'Ü' | 'û' | 'Û' => 'u',
            'ş' | 'Ş' => 's',
            'ö' | 'Ö' => 'o',
            'ç' | 'Ç' => 'c',
            'â' | 'Â' => 'a',
            c => c.to_ascii_lowercase(),
        };
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    if out.is_empty() { "section".to_string() } else { out }
}

/// Markdown whose ATX headings (outside code blocks) carry explicit ids, `## Heading { #id }`,
/// as mkdocs' `attr_list` reads them; a repeated id gets `-2`, `-3`, ….
pub fn with_heading_ids(markdown: &str) -> String {
    let ids = own_ids(markdown);
    rewrite_headings(markdown, &mut |i, _, _| ids[i].1.clone())
}

/// The level and id of each heading of `markdown`, from its own words.
fn own_ids(markdown: &str) -> Vec<(u8, String)> {
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut ids = Vec::new();
    headings(markdown, &mut |level, text| {
        let base = slug(&plain_heading(text));
        let n = seen.entry(base.clone()).or_insert(0);
        *n += 1;
        ids.push((level, if *n == 1 { base } else { format!("{base}-{n}") }));
    });
    ids
}

/// [`with_heading_ids`] for a page whose headings do not fold to ASCII ([`needs_source_ids`]):
/// the ids are those of `source`, the same page in the source language ([`borrowed_ids`]).
pub fn with_heading_ids_from(markdown: &str, source: &str) -> String {
    let levels: Vec<u8> = own_ids(markdown).into_iter().map(|(level, _)| level).collect();
    let ids = borrowed_ids(&levels, &own_ids(source));
    rewrite_headings(markdown, &mut |i, _, _| ids[i].clone())
}

/// Calls `id_for(index, level, text)` for each ATX heading outside code blocks and writes the id
/// it returns after the heading.
fn rewrite_headings(markdown: &str, id_for: &mut dyn FnMut(usize, u8, &str) -> String) -> String {
    let mut out = String::with_capacity(markdown.len() + 1024);
    let mut index = 0;
    lines_and_headings(markdown, &mut |line, heading| {
        match heading {
            Some((level, text)) => {
                let id = id_for(index, level, text);
                index += 1;
                out.push_str(line.trim_end());
                out.push_str(" { #");
                out.push_str(&id);
                out.push_str(" }");
            }
            None => out.push_str(line),
        }
        out.push('\n');
    });
    out
}

/// Calls `visit(line, heading)` for each line of `markdown`, with the level and text of the
/// line's ATX heading where it is one outside code blocks.
fn lines_and_headings<'m>(markdown: &'m str, visit: &mut dyn FnMut(&'m str, Option<(u8, &'m str)>)) {
    // The length of the open code block's fence.
    let mut fence: Option<usize> = None;
    for line in markdown.lines() {
        let t = line.trim_start();
        let ticks = t.bytes().take_while(|&b| b == b'`').count();
        let mut heading = None;
        if let Some(open) = fence {
            if ticks >= open && t.trim_end().len() == ticks {
                fence = None;
            }
        } else if ticks >= 3 {
            fence = Some(ticks);
        } else {
            heading = heading_text(line);
        }
        visit(line, heading);
    }
}

/// Calls `visit(level, text)` for each ATX heading of `markdown` outside code blocks.
fn headings<'m>(markdown: &'m str, visit: &mut dyn FnMut(u8, &'m str)) {
    lines_and_headings(markdown, &mut |_, heading| {
        if let Some((level, text)) = heading {
            visit(level, text);
        }
    });
}

/// The level and text of an ATX heading line (`## Text`), if the line is one.
fn heading_text(line: &str) -> Option<(u8, &str)> {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    let rest = &line[hashes..];
    ((1..=6).contains(&hashes) && rest.starts_with(' ')).then(|| (hashes as u8, rest.trim()))
}

/// Whether a letter or digit keeps a place in [`slug`]: ASCII, or a Turkish letter it folds.
fn folds(c: char) -> bool {
    !c.is_alphanumeric() || c.is_ascii() || slug(&c.to_string()) != "section"
}

/// Whether some heading of `markdown` is written in letters that do not fold to ASCII (Chinese,
/// Japanese, …): its own id would lose them, so the page takes the ids of the same page in the
/// source language instead ([`borrowed_ids`]).
pub fn needs_source_ids(markdown: &str) -> bool {
    let mut foreign = false;
    headings(markdown, &mut |_, text| {
        foreign = foreign || !plain_heading(text).chars().all(folds);
    });
    foreign
}

/// The ids of a page's headings (their `levels`, in order) taken from the same page in the
/// source language (`source`: level and id of each heading), heading for heading, where both
/// pages have the same outline, so that an address such as `#conclusion` leads to the same
/// section in every language. Otherwise each heading's id is its place in the outline: `s-4-2`
/// for the fourth section's second subsection, unique by construction.
pub fn borrowed_ids(levels: &[u8], source: &[(u8, String)]) -> Vec<String> {
    if levels.len() == source.len() && levels.iter().zip(source).all(|(l, (s, _))| l == s) {
        return source.iter().map(|(_, id)| id.clone()).collect();
    }
    let mut counts = [0usize; 6];
    levels
        .iter()
        .map(|&level| {
            let depth = usize::from(level.clamp(1, 6)) - 1;
            counts[depth] += 1;
            counts[depth + 1..].iter_mut().for_each(|c| *c = 0);
            let path: Vec<String> = counts[..=depth].iter().map(usize::to_string).collect();
            format!("s-{}", path.join("-"))
        })
        .collect()
}

/// A heading's words as a reader sees them: without Markdown's marks and entities.
fn plain_heading(text: &str) -> String {
    let mut out = String::new();
    for event in Parser::new_ext(text, options()) {
        if let Event::Text(t) | Event::Code(t) = event {
            out.push_str(&t);
        }
    }
    out
}

/// Study prose (Markdown) for a page: raw HTML is shown as text, links and images to addresses
/// [`link_allowed`] refuses become their text, and link reference definitions to them are
/// turned into text. Everything else is kept as written.
pub fn prose(text: &str) -> String {
    let parser = Parser::new_ext(text, options());
    // Definitions (`[x]: javascript:...`) print nothing here, but would be picked up by a link
    // of another text on the same page.
    let mut edits: Vec<(Range<usize>, String)> = parser
        .reference_definitions()
        .iter()
        .filter(|(_, def)| !link_allowed(&def.dest))
        .map(|(_, def)| (def.span.start..def.span.start, "\\".to_string()))
        .collect();
    let mut skip_until: Option<usize> = None;
    let mut inner: Option<(Range<usize>, String)> = None;
    for (event, range) in parser.into_offset_iter() {
        if let Some(end) = skip_until {
            if range.start < end {
                if let (Some((_, text)), Event::Text(t) | Event::Code(t)) = (&mut inner, &event) {
                    text.push_str(t);
                }
                continue;
            }
            if let Some((r, text)) = inner.take() {
                edits.push((r, plain(&text)));
            }
            skip_until = None;
        }
        match event {
            Event::Html(_) | Event::InlineHtml(_) => edits.push((range.clone(), escape(&text[range]))),
            // The link's text (an autolink's text is its address) is kept, as text.
            Event::Start(Tag::Link { ref dest_url, .. } | Tag::Image { ref dest_url, .. })
                if !link_allowed(dest_url) =>
            {
                skip_until = Some(range.end);
                inner = Some((range, String::new()));
            }
            Event::End(TagEnd::Link | TagEnd::Image) => {}
            _ => {}
        }
    }
    if let Some((r, text)) = inner.take() {
        edits.push((r, plain(&text)));
    }
    edits.sort_by_key(|(r, _)| (r.start, r.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (range, replacement) in edits {
        if range.start < at {
            continue;
        }
        out.push_str(&text[at..range.start]);
        out.push_str(&replacement);
        at = range.end;
    }
    out.push_str(&text[at..]);
    out
}

/// A page's Markdown with every directive of the tools that build the drop-ins made text, so
/// that nothing a study or a catalog says can make them read a file into the page: mdBook's
/// `{{#include …}}` (and its other `{{#…}}` preprocessors, which act inside code blocks too)
/// is escaped as mdBook escapes it, `\{{#…}}`, and for mkdocs the snippets of
/// `pymdownx.snippets` (`--8<-- "file"`) as that extension escapes them, `;--8<--`. Pages use
/// neither, so only text that came from a study or a catalog changes.
pub fn inert(page: &str, flavor: super::Flavor) -> String {
    let page = page.replace("{{#", "\\{{#");
    match flavor {
        super::Flavor::Mkdocs => page.replace("--8<--", ";--8<--"),
        _ => page,
    }
}

/// Text for HTML: `&`, `<`, `>` and `"` as entities.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_backtick_run_is_found_anywhere() {
        // The plain definition the fast one must agree with.
        let reference = |t: &str| t.split(|c| c != '`').map(str::len).max().unwrap_or(0);
        let cases = ["", "a", "`", "``a```", "a`b``c", "é``ü`", "````", "x\n```\ny `` z`"];
        for case in cases {
            assert_eq!(longest_backtick_run(case), reference(case), "{case:?}");
        }
        // Seeded strings of backticks, letters and a two-byte letter.
        let mut state = 0x2545_f491_u64;
        for _ in 0..500 {
            let text: String = (0..40)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    ['`', '`', 'a', 'é', '\n'][(state % 5) as usize]
                })
                .collect();
            assert_eq!(longest_backtick_run(&text), reference(&text), "{text:?}");
        }
    }

    #[test]
    fn slugs_keep_turkish_words() {
        assert_eq!(slug("1. Çıkarım motoru seçimi"), "1-cikarim-motoru-secimi");
        assert_eq!(slug("Deney kurulumu"), "deney-kurulumu");
        assert_eq!(slug("İşlem hacmi: ÖZET"), "islem-hacmi-ozet");
        assert_eq!(slug("SGLang: TP + DP Attention"), "sglang-tp-dp-attention");
        assert_eq!(slug("—"), "section");
    }

    #[test]
    fn headings_get_unique_ids_outside_code() {
        let md = "# Başlık\n\n## vLLM\n\n```bash\n# not a heading\n```\n\n#### vLLM\n\n#hashtag\n";
        assert_eq!(
            with_heading_ids(md),
            "# Başlık { #baslik }\n\n## vLLM { #vllm }\n\n```bash\n# not a heading\n```\n\n#### vLLM { #vllm-2 }\n\n#hashtag\n"
        );
    }

    #[test]
    fn cjk_headings_take_the_source_pages_ids() {
        let en = "# Title\n\n## Conclusion\n\n### Before and after\n\n## Results\n\n### 1. Engine\n\n#### vLLM\n";
        let zh = "# 标题\n\n## 结论\n\n### 优化前后对比\n\n## 实验结果\n\n### 1. 推理引擎\n\n#### vLLM\n";
        assert!(needs_source_ids(zh) && !needs_source_ids(en));
        assert!(!needs_source_ids("## Çıkarım motoru\n\n```\n# 代码\n```\n"));
        assert_eq!(
            with_heading_ids_from(zh, en),
            "# 标题 { #title }\n\n## 结论 { #conclusion }\n\n### 优化前后对比 { #before-and-after }\n\n\
             ## 实验结果 { #results }\n\n### 1. 推理引擎 { #engine }\n\n#### vLLM { #vllm }\n"
        );
        // Another outline: each heading's place in it.
        let other = with_heading_ids_from("# 标题\n\n## 结论\n\n### 甲\n\n### 乙\n\n## 丙\n\n### 丁\n", en);
        assert!(other.contains("## 结论 { #s-1-1 }") && other.contains("### 乙 { #s-1-1-2 }"), "{other}");
        assert!(other.contains("### 丁 { #s-1-2-1 }"), "{other}");
    }

    fn html(md: &str) -> String {
        let mut out = String::new();
        pulldown_cmark::html::push_html(&mut out, Parser::new_ext(md, options()));
        out
    }

    #[test]
    fn raw_html_in_prose_is_text_even_after_an_unmatched_backtick() {
        for attack in [
            "a ` b <script>alert(1)</script>",
            "<img src=x onerror=alert(1)>",
            "<div>\n<script>alert(1)</script>\n</div>",
            "``x`` <b onclick=alert(1)>b</b>",
        ] {
            let out = html(&prose(attack));
            assert!(!out.contains("<script") && !out.contains("<img") && !out.contains("<b "), "{attack}: {out}");
        }
        assert_eq!(prose("Use `--tp 8` and **bold**"), "Use `--tp 8` and **bold**");
        assert!(html(&prose("code `<b>` stays")).contains("<code>&lt;b&gt;</code>"));
    }

    #[test]
    fn only_safe_links_survive() {
        assert!(link_allowed("https://github.com/x"));
        assert!(link_allowed("#section"));
        assert!(link_allowed("../data/x.csv"));
        assert!(link_allowed("mailto:a@b.c"));
        for bad in ["javascript:alert(1)", "JavaScript:alert(1)", "java\tscript:x", " data:text/html,x", "vbscript:x"] {
            assert!(!link_allowed(bad), "{bad}");
        }
        let out = html(&prose("see [here](javascript:alert(1)) and <javascript:alert(2)> and ![i](data:x)"));
        assert!(!out.contains("href=\"javascript") && !out.contains("src=\"data"), "{out}");
        assert!(out.contains("here"), "{out}");
        let out = html(&prose("[x][r]\n\n[r]: javascript:alert(1)"));
        assert!(!out.contains("href"), "{out}");
        assert!(html(&prose("[ok](https://example.com)")).contains("href=\"https://example.com\""));
    }

    #[test]
    fn code_cannot_close_early() {
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(fence("x\n```\n<script>", "bash"), "````bash\nx\n```\n<script>\n````");
        let out = html(&format!("{}\n", code("m`<script>alert(1)</script>`")));
        assert!(!out.contains("<script"), "{out}");
        assert!(!html(&plain("[x](javascript:a) <b> `c")).contains("<a"));
        assert_eq!(url_path("a b/\"c.html"), "a%20b/%22c.html");
    }
}
