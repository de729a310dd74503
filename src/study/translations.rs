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
    table(doc.get_ref(), "", locale, &mut found);
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

/// Tables of names that are not texts, whatever their keys (an environment variable may be
/// called `en`).
const NOT_TEXT: &[&str] = &["env", "aliases"];

fn table(t: &DeTable<'_>, path: &str, locale: &str, out: &mut Vec<(usize, String, String)>) {
    for (key, value) in t {
        if NOT_TEXT.contains(&key.get_ref().as_ref()) {
            continue;
        }
        let here = if path.is_empty() { key.get_ref().to_string() } else { format!("{path}.{}", key.get_ref()) };
        self::value(value, &here, locale, out);
    }
}

fn value(v: &toml::Spanned<DeValue<'_>>, path: &str, locale: &str, out: &mut Vec<(usize, String, String)>) {
    match v.get_ref() {
        DeValue::Table(t) => match localized_english(t) {
            Some(english) if !t.contains_key(locale) => out.push((v.span().start, path.to_string(), english)),
            Some(_) => {}
            None => table(t, path, locale, out),
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
                value(item, &format!("{path}[{name}]"), locale, out);
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
}
