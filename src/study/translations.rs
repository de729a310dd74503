//! Which texts of a study have no translation in a language, so that its page in that language
//! shows them in English: titles, notes, warnings, stage titles, profile names, localized variant
//! labels, explanations, reasons, accuracy checks. A label written as one plain string (a flag, a
//! value, a product name) is the same in every language and is not listed.

use crate::diag::Diagnostic;
use std::path::Path;
use toml::de::{DeTable, DeValue};

/// The localized texts of `source` (the study file at `file`) with no `locale` entry, each at its
/// position, named by its key path (`stage[engine].variant[auto].label`) and quoting its English.
pub fn untranslated(file: &Path, source: &str, locale: &str) -> Vec<Diagnostic> {
    let Ok(doc) = DeTable::parse(source) else { return Vec::new() };
    let mut found = Vec::new();
    table(doc.get_ref(), "", &mut |t, offset, path, english| {
        if !t.contains_key(locale) {
            found.push((offset, path.to_string(), english.to_string()));
        }
    });
    found
        .into_iter()
        .map(|(offset, path, english)| {
            let english: String =
                english.chars().take(70).collect::<String>() + if english.chars().count() > 70 { "…" } else { "" };
            Diagnostic::at(
                file,
                source,
                offset,
                format!("`{path}` has no `{locale}` text; the page shows the English one: \"{english}\""),
            )
        })
        .collect()
}

/// The localized texts of `source` with an entry in a language the site does not publish
/// (`published`, the languages of its catalogs), each at that entry's key: no page shows it.
pub fn unpublished(file: &Path, source: &str, published: &[String]) -> Vec<Diagnostic> {
    let Ok(doc) = DeTable::parse(source) else { return Vec::new() };
    let mut found = Vec::new();
    table(doc.get_ref(), "", &mut |t, _, path, _| {
        for key in t.keys().filter(|k| !published.iter().any(|p| p == k.get_ref().as_ref())) {
            let message = format!(
                "warning: `{path}` has a `{}` text, but the site publishes no `{}` page (its languages: {}); add a catalog for it or leave it out",
                key.get_ref(),
                key.get_ref(),
                published.join(", ")
            );
            found.push(Diagnostic::at(file, source, key.span().start, message));
        }
    });
    found
}

/// Tables of names that are not texts, whatever their keys (an environment variable may be
/// called `en`).
const NOT_TEXT: &[&str] = &["env", "aliases"];

/// What a walk over a study's tables is told of each localized text: its table, where it
/// starts, its key path and its English.
type Visit<'v> = dyn FnMut(&DeTable<'_>, usize, &str, &str) + 'v;

fn table(t: &DeTable<'_>, path: &str, visit: &mut Visit<'_>) {
    for (key, value) in t {
        if NOT_TEXT.contains(&key.get_ref().as_ref()) {
            continue;
        }
        let here = if path.is_empty() { key.get_ref().to_string() } else { format!("{path}.{}", key.get_ref()) };
        self::value(value, &here, visit);
    }
}

fn value(v: &toml::Spanned<DeValue<'_>>, path: &str, visit: &mut Visit<'_>) {
    match v.get_ref() {
        DeValue::Table(t) => match localized_english(t) {
            Some(english) => visit(t, v.span().start, path, &english),
            None => table(t, path, visit),
        },
        DeValue::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                // An item with an id is named by it: `stage[engine]`; others by their number.
                let id = match item.get_ref() {
                    DeValue::Table(t) => t.get("id").and_then(|id| match id.get_ref() {
                        DeValue::String(s) => Some(s.to_string()),
                        _ => None,
                    }),
                    _ => None,
                };
                let name = id.unwrap_or_else(|| (i + 1).to_string());
                value(item, &format!("{path}[{name}]"), visit);
            }
        }
        _ => {}
    }
}

/// The English of a localized text: a table of strings with an `en` entry.
fn localized_english(t: &DeTable<'_>) -> Option<String> {
    if !t.values().all(|v| matches!(v.get_ref(), DeValue::String(_))) {
        return None;
    }
    match t.get("en").map(|v| v.get_ref()) {
        Some(DeValue::String(en)) => Some(en.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STUDY: &str = r#"
[title]
en = "Tuning"
tr = "Ayar"

[[notes]]
en = "Only in English."

[[stage]]
id = "engine"
title = { en = "Engine", tr = "Motor" }

[[stage.variant]]
id = "auto"
label = { en = "automatic" }

[[stage.variant]]
id = "tp"
label = "TP"
env = { en = "not a text: a table of environment variables has no en" }
"#;

    #[test]
    fn lists_texts_without_the_locale_at_their_line() {
        let found = untranslated(Path::new("study.toml"), STUDY, "tr");
        let lines: Vec<String> = found.iter().map(|d| d.to_string()).collect();
        assert_eq!(lines.len(), 2, "{lines:#?}");
        assert!(lines[0].starts_with("study.toml:6:1: `notes[1]` has no `tr` text"), "{}", lines[0]);
        assert!(lines[0].ends_with("\"Only in English.\""));
        assert!(lines[1].starts_with("study.toml:15:9: `stage[engine].variant[auto].label`"), "{}", lines[1]);
        assert!(untranslated(Path::new("study.toml"), STUDY, "en").is_empty());
    }

    #[test]
    fn a_text_in_a_language_without_a_catalog_is_named_at_its_key() {
        let study = STUDY.replace("tr = \"Ayar\"", "tr = \"Ayar\"\nde = \"Abstimmung\"");
        let published = ["en".to_string(), "tr".to_string()];
        let found = unpublished(Path::new("study.toml"), &study, &published);
        let lines: Vec<String> = found.iter().map(|d| d.to_string()).collect();
        assert_eq!(lines.len(), 1, "{lines:#?}");
        assert!(lines[0].starts_with("study.toml:5:1: warning: `title` has a `de` text, but the site publishes no `de` page (its languages: en, tr)"), "{}", lines[0]);
        assert!(unpublished(Path::new("study.toml"), STUDY, &published).is_empty());
    }
}
