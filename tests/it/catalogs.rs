//! The Turkish catalog and the bundled studies' Turkish texts follow the glossary
//! (`templates/i18n/glossary.toml`) and keep clear of what a native reviewer found in earlier
//! versions: "yan etki" for an artifact, the "… değerinden … değerine" detour around suffixes,
//! colon chains after a bold label ("Karar: Benimsenmedi: …") and a decimal point inside a Turkish
//! sentence.
//!
//! Every catalog also keeps en.ftl's messages in en.ftl's order and sections, the order a reader
//! meets them on a page.

use regex::Regex;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Glossary {
    term: Vec<Term>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Term {
    en: String,
    tr: String,
    #[serde(default)]
    stem: Option<String>,
    #[serde(default)]
    avoid: Vec<String>,
    #[serde(default)]
    seed: bool,
    /// false where the English word has other senses ("run" as a verb): only `avoid` is checked.
    #[serde(default = "yes")]
    paired: bool,
}

fn yes() -> bool {
    true
}

impl Term {
    fn stem(&self) -> String {
        lower(self.stem.as_deref().unwrap_or(&self.tr))
    }
}

/// Lower case as Turkish has it: "İ" is "i" and "I" is "ı".
fn lower(text: &str) -> String {
    text.replace('İ', "i").replace('I', "ı").to_lowercase()
}

/// A glossary term with its patterns compiled once (a regex a message would cost minutes).
struct Rule<'a> {
    term: &'a Term,
    stem: String,
    english: Regex,
    avoid: Vec<(String, Regex)>,
}

fn rules(g: &Glossary) -> Vec<Rule<'_>> {
    g.term
        .iter()
        .map(|term| Rule {
            term,
            stem: term.stem(),
            english: whole_word(&term.en),
            avoid: term.avoid.iter().map(|a| (a.clone(), whole_word(a))).collect(),
        })
        .collect()
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn glossary() -> Glossary {
    let text = std::fs::read_to_string(root().join("templates/i18n/glossary.toml")).unwrap();
    toml::from_str(&text).unwrap()
}

/// A catalog's messages: id → the words a reader sees, every variant of a selector included and
/// variables, selector keys and function options left out.
fn messages(locale: &str) -> BTreeMap<String, String> {
    use fluent_syntax::ast::{Entry, Expression, InlineExpression, Pattern, PatternElement};
    fn words(pattern: &Pattern<&str>, out: &mut String) {
        for element in &pattern.elements {
            match element {
                PatternElement::TextElement { value } => out.push_str(value),
                PatternElement::Placeable { expression } => expression_words(expression, out),
            }
        }
    }
    fn expression_words(expression: &Expression<&str>, out: &mut String) {
        match expression {
            Expression::Select { variants, .. } => {
                for v in variants {
                    out.push(' ');
                    words(&v.value, out);
                }
            }
            Expression::Inline(InlineExpression::StringLiteral { value }) => out.push_str(value),
            Expression::Inline(InlineExpression::Placeable { expression }) => expression_words(expression, out),
            Expression::Inline(_) => out.push_str(" X "),
        }
    }
    let path = root().join(format!("templates/i18n/{locale}.ftl"));
    let source = std::fs::read_to_string(path).unwrap();
    let resource = fluent_syntax::parser::parse(source.as_str()).unwrap();
    let mut out = BTreeMap::new();
    for entry in &resource.body {
        if let Entry::Message(m) = entry {
            let mut text = String::new();
            if let Some(value) = &m.value {
                words(value, &mut text);
            }
            out.insert(m.id.name.to_string(), text);
        }
    }
    out
}

/// Every (English, Turkish) pair of texts in the bundled studies, with where it is.
fn study_texts() -> Vec<(String, String, String)> {
    study_texts_in("tr")
}

/// Every (English, `locale`) pair of texts in the bundled studies, with where it is.
fn study_texts_in(locale: &str) -> Vec<(String, String, String)> {
    fn walk(value: &toml::Value, at: &str, locale: &str, out: &mut Vec<(String, String, String)>) {
        match value {
            toml::Value::Table(t) => {
                if let (Some(toml::Value::String(en)), Some(toml::Value::String(text))) = (t.get("en"), t.get(locale)) {
                    out.push((at.to_string(), en.clone(), text.clone()));
                }
                for (k, v) in t {
                    walk(v, &format!("{at}.{k}"), locale, out);
                }
            }
            toml::Value::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    walk(v, &format!("{at}[{i}]"), locale, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for entry in std::fs::read_dir(root().join("results")).unwrap() {
        let path = entry.unwrap().path().join("study.toml");
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let value: toml::Value = toml::from_str(&text).unwrap();
        let name = path.parent().unwrap().file_name().unwrap().to_string_lossy().into_owned();
        walk(&value, &name, locale, &mut out);
    }
    out.sort();
    assert!(out.len() > 100, "the bundled studies hold their `{locale}` texts");
    out
}

fn whole_word(term: &str) -> Regex {
    Regex::new(&format!(r"(?i)(^|[^\p{{L}}-]){}($|[^\p{{L}}-])", regex::escape(term))).unwrap()
}

/// Text outside Markdown code spans.
fn prose(text: &str) -> String {
    text.split('`').step_by(2).collect::<Vec<_>>().join(" ")
}

/// What the review found in Turkish text, each with the reason.
fn findings(text: &str, rules: &[Rule]) -> Vec<String> {
    let lowered = lower(text);
    let mut found = Vec::new();
    if lowered.contains("yan etki") {
        found.push("\"yan etki\" (an artifact is a \"yapay değer\")".to_string());
    }
    if lowered.contains("değerinden") && lowered.contains("değerine") {
        found.push("the \"… değerinden … değerine\" detour (use SUFFIX)".to_string());
    }
    // A number with a decimal point: "0.85" reads as a list in a Turkish sentence, where the
    // decimal mark is a comma; names such as GLM-4.5 or v0.5.14 are not numbers.
    let decimal = Regex::new(r"(^|[\s(])\d+\.\d{1,2}([\s,;:.)]|$)").unwrap();
    if let Some(m) = decimal.find(&prose(text)) {
        found.push(format!("a decimal point in a Turkish sentence: {:?}", m.as_str().trim()));
    }
    for rule in rules {
        for (avoid, pattern) in &rule.avoid {
            if pattern.is_match(text) {
                found.push(format!("{avoid:?}: the glossary says {:?} for {:?}", rule.term.tr, rule.term.en));
            }
        }
    }
    found
}

#[test]
fn the_glossary_is_well_formed_and_puts_the_seeds_first() {
    let g = glossary();
    assert!(g.term.len() >= 40, "{}", g.term.len());
    let first_own = g.term.iter().position(|t| !t.seed).unwrap();
    assert!(g.term[first_own..].iter().all(|t| !t.seed), "the seeds' terms come first");
    for t in &g.term {
        assert!(!t.en.is_empty() && !t.tr.is_empty());
        assert!(lower(&t.tr).contains(&t.stem()), "{:?}: the stem is part of the term", t.en);
        for a in &t.avoid {
            assert!(!whole_word(a).is_match(&t.tr), "{:?} avoids its own term", t.en);
        }
    }
    for must in ["Deney kurulumu", "Benchmark yöntemi", "Yoğun üretim"] {
        assert!(g.term.iter().any(|t| t.tr == must && t.seed), "{must}");
    }
}

#[test]
fn every_turkish_message_uses_the_glossary_term_where_the_english_one_is_used() {
    let g = glossary();
    let rules = rules(&g);
    let en = messages("en");
    let tr = messages("tr");
    assert!(en.len() > 150, "{}", en.len());
    let mut wrong = Vec::new();
    for (id, english) in &en {
        let turkish = tr.get(id).map(|t| lower(t)).unwrap_or_default();
        for rule in rules.iter().filter(|r| r.term.paired) {
            if rule.english.is_match(english) && !turkish.contains(&rule.stem) {
                wrong.push(format!("{id}: {:?} is {:?} in Turkish: {turkish}", rule.term.en, rule.term.tr));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_glossary_term_is_used_in_turkish() {
    let g = glossary();
    let tr = lower(&messages("tr").into_values().collect::<Vec<_>>().join("\n"));
    let studies = lower(&study_texts().into_iter().map(|(_, _, t)| t).collect::<Vec<_>>().join("\n"));
    let unused: Vec<&str> = g
        .term
        .iter()
        .filter(|t| !tr.contains(&t.stem()) && !studies.contains(&t.stem()))
        .map(|t| t.en.as_str())
        .collect();
    assert!(unused.is_empty(), "terms no Turkish text uses: {unused:?}");
}

#[test]
fn no_turkish_message_holds_what_the_review_found() {
    let g = glossary();
    let rules = rules(&g);
    let mut wrong = Vec::new();
    for (id, text) in messages("tr") {
        for f in findings(&text, &rules) {
            wrong.push(format!("tr.ftl {id}: {f}"));
        }
    }
    for (at, _, text) in study_texts() {
        for f in findings(&text, &rules) {
            wrong.push(format!("{at}: {f}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The decision, the summary and the ranking follow a bold label ("**Karar:** …"); a message
/// there that opens with a word and a colon makes a chain ("Karar: Benimsenmedi: …").
#[test]
fn no_message_after_a_bold_label_opens_with_a_colon() {
    let opens_with_label = Regex::new(r"^\s*\p{L}+( \p{L}+)?:").unwrap();
    for locale in ["en", "tr"] {
        for (id, text) in messages(locale) {
            if id.starts_with("adoption-") || id == "summary" || id == "stage-excluded" {
                assert!(!opens_with_label.is_match(&text), "{locale} {id} opens with a label: {text}");
            }
        }
    }
}

#[test]
fn the_findings_are_found() {
    let g = glossary();
    let rules = rules(&g);
    let found = |t: &str| findings(t, &rules);
    assert_eq!(found("Bu satır ölçüm aracının bir yan etkisidir.").len(), 1);
    assert_eq!(found("TPOT 636,24 ms değerinden 540,79 ms değerine iniyor.").len(), 1);
    assert_eq!(found("Bellek oranı 0.85, 0.8 ile karşılaştırıldı.").len(), 1);
    assert_eq!(found("Deney düzeneği").len(), 1);
    assert!(found("`--mem-fraction-static=0.85` ile GLM-4.5 ve v0.5.14; 1.000 istek, %16,11").is_empty());
}

/// The review's findings on the Turkish pages themselves, where catalog messages, study texts and
/// labels meet: no decimal point outside code, no English-style decision chain.
#[test]
fn the_turkish_pages_hold_none_of_the_findings() {
    use perflab::render::{Flavor, Renderer};
    let mut studies = Vec::new();
    for dir in perflab::study::discover(&root().join("results")).unwrap() {
        studies.push(perflab::study::Study::load(&dir).unwrap());
    }
    let site = perflab::site::Site::build(&studies, &Renderer::new(None).unwrap(), Flavor::Commonmark).unwrap();
    // A version (1.2.0rc5) is not a decimal number.
    let decimal = Regex::new(r"(^|[\s(])\d+\.\d{1,2}([\s,;:)]|\.(\s|$)|$)").unwrap();
    let chain = Regex::new(r"\*\*Karar:\*\* \p{L}+:").unwrap();
    let mut pages = 0;
    for (path, bytes) in &site.files {
        if !(path.starts_with("md/tr/") && path.ends_with(".md")) {
            continue;
        }
        pages += 1;
        let md = String::from_utf8(bytes.clone()).unwrap();
        let mut in_code = false;
        for line in md.lines() {
            if line.trim_start().starts_with("```") {
                in_code = !in_code;
            }
            if in_code {
                continue;
            }
            let text = prose(line);
            assert!(!decimal.is_match(&text), "{path}: a decimal point in a Turkish sentence: {line}");
            assert!(!chain.is_match(line), "{path}: a colon chain: {line}");
            assert!(!lower(line).contains("yan etki"), "{path}: {line}");
        }
    }
    assert!(pages >= 7, "{pages}");
}

/// The Chinese and Japanese glossary (`templates/i18n/glossary-cjk.toml`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CjkGlossary {
    term: Vec<CjkTerm>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CjkTerm {
    en: String,
    zh: String,
    ja: String,
    #[serde(default)]
    zh_avoid: Vec<String>,
    #[serde(default)]
    ja_avoid: Vec<String>,
    #[serde(default = "yes")]
    paired: bool,
    #[serde(default)]
    #[allow(dead_code)]
    why: Option<String>,
}

impl CjkTerm {
    fn term(&self, locale: &str) -> String {
        (if locale == "zh" { &self.zh } else { &self.ja }).to_lowercase()
    }

    fn avoid(&self, locale: &str) -> &[String] {
        if locale == "zh" { &self.zh_avoid } else { &self.ja_avoid }
    }
}

fn cjk_glossary() -> CjkGlossary {
    let text = std::fs::read_to_string(root().join("templates/i18n/glossary-cjk.toml")).unwrap();
    toml::from_str(&text).unwrap()
}

/// Where `text` (whose English is `en`) strays from the glossary in `locale`: a term the
/// English holds and the text does not, or a rendering to avoid. Chinese and Japanese have no
/// spaces between words, so a term is looked for as it is, not as a whole word.
fn cjk_findings(en: &str, text: &str, locale: &str, g: &CjkGlossary, english: &[Regex]) -> Vec<String> {
    let lowered = text.to_lowercase();
    let mut found = Vec::new();
    for (term, pattern) in g.term.iter().zip(english) {
        if term.paired && pattern.is_match(en) && !lowered.contains(&term.term(locale)) {
            found.push(format!("{:?} has no {:?}", term.en, term.term(locale)));
        }
        for avoid in term.avoid(locale) {
            if text.contains(avoid.as_str()) {
                found.push(format!("{avoid:?}: the glossary says {:?} for {:?}", term.term(locale), term.en));
            }
        }
    }
    found
}

#[test]
fn the_cjk_glossary_is_well_formed() {
    let g = cjk_glossary();
    assert!(g.term.len() >= 30, "{}", g.term.len());
    let mut seen = std::collections::BTreeSet::new();
    for t in &g.term {
        assert!(seen.insert(t.en.to_lowercase()), "{:?} twice", t.en);
        assert!(!t.zh.is_empty() && !t.ja.is_empty(), "{t:?}");
        for locale in ["zh", "ja"] {
            assert!(!t.avoid(locale).iter().any(|a| a.to_lowercase() == t.term(locale)), "{t:?}");
        }
    }
    for term in ["throughput", "TPOT", "TTFT", "KV cache", "chunked prefill", "tensor parallelism", "quantization"] {
        assert!(g.term.iter().any(|t| t.en == term), "the glossary decides {term:?}");
    }
}

#[test]
fn chinese_and_japanese_messages_and_study_texts_follow_the_glossary() {
    let g = cjk_glossary();
    let english: Vec<Regex> = g.term.iter().map(|t| whole_word(&t.en)).collect();
    let en = messages("en");
    let mut problems = Vec::new();
    for locale in ["zh", "ja"] {
        for (key, text) in messages(locale) {
            for f in cjk_findings(&en[&key], &text, locale, &g, &english) {
                problems.push(format!("{locale}.ftl {key}: {f}"));
            }
        }
        for (at, en, text) in study_texts_in(locale) {
            for f in cjk_findings(&prose(&en), &prose(&text), locale, &g, &english) {
                problems.push(format!("{locale} {at}: {f}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_cjk_findings_are_found() {
    let g = cjk_glossary();
    let english: Vec<Regex> = g.term.iter().map(|t| whole_word(&t.en)).collect();
    let found = cjk_findings("The KV cache is full", "KV 快取已满", "zh", &g, &english);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(cjk_findings("Speculative decoding", "投機的デコーディング", "ja", &g, &english).is_empty());
    assert_eq!(cjk_findings("the noise threshold", "ノイズ閾値", "ja", &g, &english).len(), 2);
    // A term the English does not hold is not asked for; a run as a verb is not a term.
    assert!(cjk_findings("We run it", "实行", "zh", &g, &english).is_empty());
}

/// A catalog's outline: its message ids in file order, with `##` standing for each section
/// heading (a Fluent group comment).
fn outline(source: &str) -> Vec<String> {
    use fluent_syntax::ast::Entry;
    let resource = fluent_syntax::parser::parse(source).unwrap_or_else(|(_, e)| panic!("invalid Fluent: {e:?}"));
    resource
        .body
        .iter()
        .filter_map(|entry| match entry {
            Entry::Message(m) => Some(m.id.name.to_string()),
            Entry::GroupComment(_) => Some("##".to_string()),
            _ => None,
        })
        .collect()
}

/// Where `other`'s outline first parts from `en`'s, as "position: en has X, other has Y".
fn first_difference(en: &[String], other: &[String]) -> Option<String> {
    let none = String::from("(nothing)");
    (0..en.len().max(other.len())).find_map(|i| {
        let (a, b) = (en.get(i).unwrap_or(&none), other.get(i).unwrap_or(&none));
        (a != b).then(|| format!("entry {}: en.ftl has {a}, this catalog has {b}", i + 1))
    })
}

#[test]
fn every_catalog_has_the_english_messages_in_the_english_order_and_sections() {
    let read = |path: &str| std::fs::read_to_string(root().join(path)).unwrap();
    let en = outline(&read("templates/i18n/en.ftl"));
    assert!(en.iter().filter(|e| *e == "##").count() > 10, "en.ftl is not divided into page sections");
    assert_eq!(en.first().map(String::as_str), Some("##"), "en.ftl opens with a message outside a section");
    let mut wrong = Vec::new();
    for path in
        ["templates/i18n/tr.ftl", "templates/i18n/zh.ftl", "templates/i18n/ja.ftl", "tests/fixtures/i18n/en-XA.ftl"]
    {
        if let Some(d) = first_difference(&en, &outline(&read(path))) {
            wrong.push(format!("{path}: {d}"));
        }
    }
    assert!(wrong.is_empty(), "catalogs out of en.ftl's order:\n{}", wrong.join("\n"));
}

#[test]
fn a_catalog_out_of_order_is_found() {
    let en = outline("## A\na = 1\nb = 2\n## B\nc = 3\n");
    assert_eq!(first_difference(&en, &en), None);
    let swapped = outline("## A\nb = 2\na = 1\n## B\nc = 3\n");
    assert_eq!(first_difference(&en, &swapped).unwrap(), "entry 2: en.ftl has a, this catalog has b");
    let moved = outline("## A\na = 1\nb = 2\nc = 3\n## B\n");
    assert_eq!(first_difference(&en, &moved).unwrap(), "entry 4: en.ftl has ##, this catalog has c");
    let short = outline("## A\na = 1\nb = 2\n## B\n");
    assert_eq!(first_difference(&en, &short).unwrap(), "entry 5: en.ftl has c, this catalog has (nothing)");
}
