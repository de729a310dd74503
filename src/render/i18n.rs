//! Catalogs: every sentence and label of a page, one Fluent file a language
//! (`templates/i18n/<locale>.ftl`), and the number format of each language, set in its catalog.
//!
//! Besides Fluent's own, a catalog has one function: `SUFFIX($value, case: "ablative")` writes a
//! Turkish case suffix after a name, number or unit so that it follows how the value is read
//! ("636,24 ms'den", "%2,00'lik"; see [`crate::render::suffix`]).

use crate::diag::Diagnostic;
use crate::render::suffix;
use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::types::{FluentNumber, FluentNumberOptions};
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The catalogs built into the binary; a `templates/i18n/` folder adds or replaces them.
pub const BUILT_IN: &[(&str, &str)] = &[
    ("en", include_str!("../../templates/i18n/en.ftl")),
    ("tr", include_str!("../../templates/i18n/tr.ftl")),
    ("zh", include_str!("../../templates/i18n/zh.ftl")),
    ("ja", include_str!("../../templates/i18n/ja.ftl")),
];

/// The locale whose catalog defines the keys every other must have.
pub const SOURCE_LOCALE: &str = "en";

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum I18nError {
    #[error("catalog `{locale}` has no message `{key}`")]
    MissingKey { locale: String, key: String },
    #[error("catalog `{locale}`: message `{key}`: {message}")]
    Format { locale: String, key: String, message: String },
    #[error("no catalog for locale `{0}` (add templates/i18n/{0}.ftl)")]
    NoLocale(String),
    #[error("{0}")]
    Syntax(Diagnostic),
    #[error("cannot read '{path}': {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error(
        "'{path}': `{name}` is not a language tag such as tr, zh-Hans or pt-BR; a catalog is named after the language it holds, and that name becomes a folder of the site"
    )]
    BadLocale { path: PathBuf, name: String },
    #[error("'{path}': {why}")]
    BadFile { path: PathBuf, why: String },
}

/// The language tag a page in `locale` is marked with (`<html lang>`, `hreflang`, mdBook's
/// `language`): the locale itself, except a bare `zh`, which is written in simplified
/// characters (the built-in catalog is) and so is `zh-Hans`: a browser then picks simplified
/// glyphs and fonts, and a screen reader a Mandarin voice. A catalog in traditional characters is
/// named `zh-Hant.ftl` (or `zh-TW.ftl`) and keeps its name.
pub fn language_tag(locale: &str) -> &str {
    if locale == "zh" { "zh-Hans" } else { locale }
}

/// The most bytes a catalog file may hold (the built-in ones are about 60 KB).
pub const MAX_CATALOG_BYTES: u64 = 4 << 20;

/// Whether `name` has the shape of a BCP 47 language tag a catalog may be named after: a
/// language of 2 or 3 lowercase letters, then optionally a script (`Hans`) and a region (`BR`,
/// `419`, or a private-use one such as `XA`). Never a path: no dot, slash or empty part.
pub fn is_locale(name: &str) -> bool {
    let mut parts = name.split('-');
    let language = parts.next().unwrap_or("");
    let lower =
        |s: &str, n: std::ops::RangeInclusive<usize>| n.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_lowercase());
    if !lower(language, 2..=3) {
        return false;
    }
    let rest: Vec<&str> = parts.collect();
    let script = |s: &str| {
        s.len() == 4 && s.as_bytes()[0].is_ascii_uppercase() && s.bytes().skip(1).all(|b| b.is_ascii_lowercase())
    };
    let region = |s: &str| {
        (s.len() == 2 && s.bytes().all(|b| b.is_ascii_uppercase()))
            || (s.len() == 3 && s.bytes().all(|b| b.is_ascii_digit()))
    };
    match rest.as_slice() {
        [] => true,
        [a] => script(a) || region(a),
        [a, b] => script(a) && region(b),
        _ => false,
    }
}

/// An argument of a message: text, or a number, which the catalog's plural rules select on
/// and which is shown in the catalog's number format.
#[derive(Debug, Clone, Copy)]
pub enum Arg<'a> {
    Text(&'a str),
    Number { value: f64, decimals: usize },
}

impl Arg<'_> {
    /// A count: a whole number (`1 run`, `2 runs`, `1.000` requests in Turkish).
    pub fn count(n: u64) -> Arg<'static> {
        Arg::Number { value: n as f64, decimals: 0 }
    }
}

impl<'a> From<&'a str> for Arg<'a> {
    fn from(text: &'a str) -> Arg<'a> {
        Arg::Text(text)
    }
}

impl<'a> From<&'a String> for Arg<'a> {
    fn from(text: &'a String) -> Arg<'a> {
        Arg::Text(text)
    }
}

/// Fluent formats numbers itself, without a locale's grouping; perflab's formatter instead marks
/// each number (`\u{E000}decimals:value\u{E001}`) and [`Catalog::fmt_args`] puts it in the
/// catalog's format once the message is resolved.
const NUMBER_OPEN: char = '\u{E000}';
const NUMBER_CLOSE: char = '\u{E001}';

fn mark_number<M>(value: &FluentValue, _: &M) -> Option<String> {
    match value {
        FluentValue::Number(n) => {
            let decimals = n.options.minimum_fraction_digits.unwrap_or(0);
            Some(format!("{NUMBER_OPEN}{decimals}:{}{NUMBER_CLOSE}", n.value))
        }
        _ => None,
    }
}

/// `SUFFIX($value, case: "…")`: the value with the suffix of that case after it. A number keeps
/// its mark, so that the catalog still formats it; it is read with a decimal comma.
fn suffix_function<'a>(positional: &[FluentValue<'a>], named: &FluentArgs) -> FluentValue<'a> {
    let case = match named.get("case") {
        Some(FluentValue::String(name)) => suffix::Case::parse(name),
        _ => None,
    };
    let (Some(value), Some(case)) = (positional.first(), case) else {
        return FluentValue::Error;
    };
    match value {
        FluentValue::String(text) => FluentValue::from(suffix::attach(text, case)),
        FluentValue::Number(n) => {
            let decimals = n.options.minimum_fraction_digits.unwrap_or(0);
            let read = format!("{:.*}", decimals, n.value).replace('.', ",");
            let suffixed = suffix::attach(&read, case);
            let marked = mark_number(value, &()).unwrap_or_default();
            FluentValue::from(format!("{marked}{}", &suffixed[read.len()..]))
        }
        _ => FluentValue::Error,
    }
}

/// Every `SUFFIX(…)` of a catalog names a known case: checked when the catalog is read, so that
/// a typo fails at its line rather than in the middle of a page.
fn check_suffix_cases(source: &str, file: &Path) -> Result<(), I18nError> {
    for (at, _) in source.match_indices("SUFFIX(") {
        let call = &source[at..];
        let call = &call[..call.find(')').unwrap_or(call.len())];
        let case = call.split_once("case:").map(|(_, c)| c.trim().trim_matches('"'));
        if case.and_then(suffix::Case::parse).is_none() {
            let message = match case {
                Some(case) => suffix::UnknownCase(case.to_string()).to_string(),
                None => "SUFFIX needs a case (`case: \"genitive\"`)".to_string(),
            };
            return Err(I18nError::Syntax(Diagnostic::at(file, source, at, message)));
        }
    }
    Ok(())
}

/// One language's messages.
pub struct Catalog {
    pub locale: String,
    bundle: FluentBundle<FluentResource>,
    keys: Vec<String>,
    decimal: String,
    group: String,
    list: String,
    label: String,
    sentence: String,
    clause: String,
    /// The hash of the language's name and the catalog's text: what its messages come from.
    source: blake3::Hash,
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalog").field("locale", &self.locale).finish()
    }
}

impl Catalog {
    /// Parses a catalog; `file` names it in errors.
    pub fn parse(locale: &str, source: &str, file: &Path) -> Result<Catalog, I18nError> {
        let resource = FluentResource::try_new(source.to_string()).map_err(|(_, errors)| {
            let e = &errors[0];
            I18nError::Syntax(Diagnostic::at(file, source, e.pos.start, format!("invalid Fluent: {:?}", e.kind)))
        })?;
        let keys = resource
            .entries()
            .filter_map(|e| match e {
                fluent_syntax::ast::Entry::Message(m) => Some(m.id.name.to_string()),
                _ => None,
            })
            .collect();
        check_suffix_cases(source, file)?;
        let lang = locale.parse().unwrap_or_else(|_| unic_langid::LanguageIdentifier::default());
        let mut bundle = FluentBundle::new_concurrent(vec![lang]);
        bundle.set_use_isolating(false);
        bundle.set_formatter(Some(mark_number));
        bundle
            .add_function("SUFFIX", suffix_function)
            .map_err(|e| I18nError::Syntax(Diagnostic::new(file, 0, 0, format!("cannot add SUFFIX: {e:?}"))))?;
        bundle.add_resource(resource).map_err(|errors| {
            I18nError::Syntax(Diagnostic::new(file, 0, 0, format!("duplicate or invalid message: {:?}", errors[0])))
        })?;
        let mut catalog = Catalog {
            locale: locale.to_string(),
            bundle,
            keys,
            decimal: String::new(),
            group: String::new(),
            list: String::new(),
            label: String::new(),
            sentence: String::new(),
            clause: String::new(),
            source: blake3::Hasher::new().update(locale.as_bytes()).update(b"\n").update(source.as_bytes()).finalize(),
        };
        catalog.decimal = catalog.msg("number-decimal-separator")?;
        catalog.group = catalog.msg("number-group-separator")?;
        // Catalogs written before these two existed keep English punctuation.
        let optional = |key: &str, default: &str| match catalog.msg(key) {
            Err(I18nError::MissingKey { .. }) => Ok(default.to_string()),
            other => other,
        };
        let (list, label) = (optional("list-separator", ", ")?, optional("label-separator", ": ")?);
        let sentence = optional("sentence-separator", " ")?;
        let clause = optional("clause-separator", "; ")?;
        (catalog.list, catalog.label, catalog.sentence, catalog.clause) = (list, label, sentence, clause);
        Ok(catalog)
    }

    /// Items in a run of text, joined as the language does (`a, b` in English, `a、b` in Chinese).
    pub fn list(&self, items: &[String]) -> String {
        items.join(&self.list)
    }

    /// The clauses of one list of changes, joined as the language does (`added a; b → c` in
    /// English, `新增 a；b → c` in Chinese).
    pub fn clauses(&self, items: &[String]) -> String {
        items.join(&self.clause)
    }

    /// Sentences of one paragraph, joined as the language does: with a space in English, with
    /// nothing after a full-width `。` or `：` in Chinese and Japanese.
    pub fn sentences(&self, items: &[String]) -> String {
        items.join(&self.sentence)
    }

    /// A value after its name (`Total TPS: 13760.98 tok/s`, `总 token 吞吐量：13,760.98 tok/s`).
    pub fn labelled(&self, name: &str, value: &str) -> String {
        format!("{name}{}{value}", self.label)
    }

    /// The hash of what this catalog's messages come from (its language and its text).
    pub fn source_hash(&self) -> blake3::Hash {
        self.source
    }

    /// The message ids this catalog defines.
    pub fn keys(&self) -> &[String] {
        &self.keys
    }

    /// A message without arguments.
    pub fn msg(&self, key: &str) -> Result<String, I18nError> {
        self.fmt(key, &[])
    }

    /// A message with text arguments. A missing message or argument is an error.
    pub fn fmt(&self, key: &str, args: &[(&str, &str)]) -> Result<String, I18nError> {
        let args: Vec<(&str, Arg)> = args.iter().map(|(k, v)| (*k, Arg::Text(v))).collect();
        self.fmt_args(key, &args)
    }

    /// A message with text and number arguments. A missing message or argument is an error.
    pub fn fmt_args(&self, key: &str, args: &[(&str, Arg)]) -> Result<String, I18nError> {
        let pattern = self
            .bundle
            .get_message(key)
            .and_then(|m| m.value())
            .ok_or_else(|| I18nError::MissingKey { locale: self.locale.clone(), key: key.to_string() })?;
        let mut fluent_args = FluentArgs::new();
        for (name, value) in args {
            let value = match *value {
                Arg::Number { value, decimals } if value.is_finite() => {
                    // Plural rules see the number as shown: 1.004 with two decimals is "1.00".
                    let scale = 10f64.powi(decimals.min(15) as i32);
                    let options = FluentNumberOptions {
                        minimum_fraction_digits: Some(decimals),
                        maximum_fraction_digits: Some(decimals),
                        ..FluentNumberOptions::default()
                    };
                    FluentValue::Number(FluentNumber::new((value * scale).round() / scale, options))
                }
                Arg::Number { value, .. } => FluentValue::from(value.to_string()),
                Arg::Text(text) => FluentValue::from(text.to_string()),
            };
            fluent_args.set(*name, value);
        }
        let mut errors = Vec::new();
        let text = self.bundle.format_pattern(pattern, Some(&fluent_args), &mut errors);
        if let Some(e) = errors.first() {
            return Err(I18nError::Format {
                locale: self.locale.clone(),
                key: key.to_string(),
                message: e.to_string(),
            });
        }
        let text = self.format_marked_numbers(&text);
        Ok(if self.writes_without_spaces() { close_wide_gaps(&text) } else { text })
    }

    /// Chinese and Japanese set no space between two of their own characters: a space that a
    /// message puts around an argument (there for a Latin name or a number) is taken out where
    /// the argument turned out to be written in the language's own script.
    fn writes_without_spaces(&self) -> bool {
        matches!(self.locale.split(['-', '_']).next(), Some("zh" | "ja"))
    }

    /// Replaces the numbers [`mark_number`] marked by this catalog's format of them.
    fn format_marked_numbers(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find(NUMBER_OPEN) {
            out.push_str(&rest[..start]);
            let after = &rest[start + NUMBER_OPEN.len_utf8()..];
            let Some(end) = after.find(NUMBER_CLOSE) else {
                rest = &rest[start..];
                break;
            };
            let inner = &after[..end];
            let parsed = inner.split_once(':').and_then(|(d, v)| Some((d.parse().ok()?, v.parse::<f64>().ok()?)));
            match parsed {
                Some((decimals, value)) => out.push_str(&self.number(value, decimals)),
                None => out.push_str(inner),
            }
            rest = &after[end + NUMBER_CLOSE.len_utf8()..];
        }
        out.push_str(rest);
        out
    }

    /// `x` with `decimals` decimals, in this language's digits grouping and decimal separator.
    pub fn number(&self, x: f64, decimals: usize) -> String {
        let text = format!("{:.*}", decimals, x.abs());
        let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
        let mut grouped = String::new();
        for (i, c) in int.chars().enumerate() {
            if i > 0 && (int.len() - i) % 3 == 0 {
                grouped.push_str(&self.group);
            }
            grouped.push(c);
        }
        let sign = if x < 0.0 && text.bytes().any(|b| (b'1'..=b'9').contains(&b)) { "−" } else { "" };
        if frac.is_empty() { format!("{sign}{grouped}") } else { format!("{sign}{grouped}{}{frac}", self.decimal) }
    }

    /// A percentage with `decimals` decimals; `signed` puts `+` before a positive one.
    pub fn percent(&self, x: f64, signed: bool, decimals: usize) -> Result<String, I18nError> {
        let value = self.number(x.abs(), decimals);
        let zero = !value.bytes().any(|b| (b'1'..=b'9').contains(&b));
        let sign = match (x < 0.0, signed) {
            _ if zero => "",
            (true, _) => "−",
            (false, true) => "+",
            (false, false) => "",
        };
        self.fmt("percent", &[("sign", sign), ("value", &value)])
    }
}

/// The languages a build publishes: the built-in catalogs' and those of `templates/i18n/*.ftl`
/// under `dir` whose names are languages, sorted.
pub fn locales(dir: Option<&Path>) -> Vec<String> {
    let mut found: std::collections::BTreeSet<String> = BUILT_IN.iter().map(|(l, _)| l.to_string()).collect();
    let files = catalog_files(dir).unwrap_or_default();
    found.extend(files.into_iter().map(|(locale, _)| locale).filter(|l| is_locale(l)));
    found.into_iter().collect()
}

/// The catalog files `templates/i18n/*.ftl` under `dir`, each with the name it gives its
/// language (checked by the caller: `load_all` refuses a name that is not a language, `locales`
/// leaves it out).
fn catalog_files(dir: Option<&Path>) -> Result<Vec<(String, PathBuf)>, I18nError> {
    let Some(folder) = dir.map(|d| d.join("i18n")).filter(|f| f.is_dir()) else { return Ok(Vec::new()) };
    let entries = std::fs::read_dir(&folder).map_err(|source| I18nError::Io { path: folder.clone(), source })?;
    let mut out = Vec::new();
    for entry in entries {
        let path = entry.map_err(|source| I18nError::Io { path: folder.clone(), source })?.path();
        if path.extension().is_some_and(|e| e == "ftl") {
            let locale = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            out.push((locale, path));
        }
    }
    Ok(out)
}

/// Every available catalog: the built-in ones, then `templates/i18n/*.ftl` under `dir`, which
/// add languages or replace built-in ones.
pub fn load_all(dir: Option<&Path>) -> Result<BTreeMap<String, Catalog>, I18nError> {
    let mut sources: BTreeMap<String, (String, PathBuf)> = BUILT_IN
        .iter()
        .map(|(l, s)| (l.to_string(), (s.to_string(), PathBuf::from(format!("templates/i18n/{l}.ftl")))))
        .collect();
    for (locale, path) in catalog_files(dir)? {
        if !is_locale(&locale) {
            return Err(I18nError::BadLocale { path, name: locale });
        }
        let text = read_catalog(&path)?;
        sources.insert(locale, (text, path));
    }
    sources.into_iter().map(|(l, (s, p))| Catalog::parse(&l, &s, &p).map(|c| (l, c))).collect()
}

/// A catalog's text: a regular file (a link to one is followed) of at most
/// [`MAX_CATALOG_BYTES`], never a FIFO or a device, which could hang the build or fill its memory.
fn read_catalog(path: &Path) -> Result<String, I18nError> {
    crate::durable::read_text(path, MAX_CATALOG_BYTES).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidInput => I18nError::BadFile { path: path.to_path_buf(), why: e.to_string() },
        _ => I18nError::Io { path: path.to_path_buf(), source: e },
    })
}

/// `text` without the single spaces that stand between two CJK characters (ideographs, kana,
/// CJK and full-width punctuation): "采用 默认设置，" becomes "采用默认设置，"; "1.74 秒 低"
/// becomes "1.74 秒低", and "采用 TP 2" keeps its spaces.
pub fn close_wide_gaps(text: &str) -> String {
    fn wide(c: char) -> bool {
        matches!(c as u32, 0x3000..=0x303F | 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xFF00..=0xFFEF)
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        let between = |i: usize| i > 0 && i + 1 < chars.len() && wide(chars[i - 1]) && wide(chars[i + 1]);
        if c == ' ' && between(i) {
            continue;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_space_between_two_cjk_characters_is_taken_out_and_one_beside_latin_kept() {
        assert_eq!(close_wide_gaps("采用 默认设置，相对 TP 2 提升 +5%。"), "采用默认设置，相对 TP 2 提升 +5%。");
        assert_eq!(close_wide_gaps("比 1.74 秒 低 0.13 秒"), "比 1.74 秒低 0.13 秒");
        assert_eq!(close_wide_gaps("目的： 多数の要求"), "目的：多数の要求");
        assert_eq!(close_wide_gaps("a b  c"), "a b  c");
        assert_eq!(close_wide_gaps(" 采 "), " 采 ");
    }

    #[test]
    fn catalogs_are_named_after_language_tags_never_paths() {
        for good in ["en", "tr", "zh", "ja", "zh-Hans", "pt-BR", "en-XA", "es-419", "zh-Hant-TW", "fil"] {
            assert!(is_locale(good), "{good}");
        }
        for bad in [
            "..", ".", "", "EN", "e", "english", "en_US", "en-", "-en", "en-us", "zh-hans", "a/b", "en-XA-1", "en..",
            "x.y",
        ] {
            assert!(!is_locale(bad), "{bad}");
        }
    }

    #[test]
    fn numbers_follow_the_catalog() {
        let en = Catalog::parse("en", BUILT_IN[0].1, Path::new("en.ftl")).unwrap();
        let tr = Catalog::parse("tr", BUILT_IN[1].1, Path::new("tr.ftl")).unwrap();
        assert_eq!(en.number(13760.98, 2), "13760.98");
        assert_eq!(tr.number(13760.98, 2), "13.760,98");
        assert_eq!(tr.number(-2.5, 2), "−2,50");
        assert_eq!(en.number(-0.001, 2), "0.00");
        assert_eq!(en.percent(219.702, true, 2).unwrap(), "+219.70%");
        assert_eq!(tr.percent(-52.9, true, 2).unwrap(), "−%52,90");
        assert_eq!(en.percent(0.0001, true, 2).unwrap(), "0.00%");
        assert_eq!(en.percent(283.99, true, 1).unwrap(), "+284.0%");
        assert_eq!(tr.percent(-0.04, true, 1).unwrap(), "%0,0");
    }

    #[test]
    fn chinese_and_japanese_numbers_units_and_counts() {
        for (i, locale) in [(2, "zh"), (3, "ja")] {
            let c = Catalog::parse(locale, BUILT_IN[i].1, Path::new("x.ftl")).unwrap();
            assert_eq!(BUILT_IN[i].0, locale);
            // Thousands grouped by three with a comma (no 万), a decimal point, a real minus.
            assert_eq!(c.number(13760.98, 2), "13,760.98");
            assert_eq!(c.number(1234567.0, 0), "1,234,567");
            assert_eq!(c.number(999.0, 0), "999");
            assert_eq!(c.number(-2.5, 2), "−2.50");
            assert_eq!(c.percent(219.702, true, 2).unwrap(), "+219.70%");
            assert_eq!(c.percent(-52.9, true, 2).unwrap(), "−52.90%");
            assert_eq!(c.percent(-0.04, true, 1).unwrap(), "0.0%");
            assert_eq!(c.percent(7.5, false, 1).unwrap(), "7.5%");
            let n = |value, decimals| [("value", Arg::Number { value, decimals })];
            assert_eq!(c.fmt_args("unit-tok-s", &n(13760.98, 2)).unwrap(), "13,760.98 tok/s");
            assert_eq!(c.fmt_args("unit-ms", &n(1234.5, 2)).unwrap(), "1,234.50 ms");
            // One form for every count: no plural categories.
            let one = c.fmt_args("unit-requests", &n(1.0, 0)).unwrap();
            let many = c.fmt_args("unit-requests", &n(1000.0, 0)).unwrap();
            assert_eq!(one.replacen('1', "1,000", 1), many);
        }
        let zh = Catalog::parse("zh", BUILT_IN[2].1, Path::new("zh.ftl")).unwrap();
        let ja = Catalog::parse("ja", BUILT_IN[3].1, Path::new("ja.ftl")).unwrap();
        let s = |value, decimals| [("value", Arg::Number { value, decimals })];
        assert_eq!(zh.fmt_args("unit-s", &s(0.87, 2)).unwrap(), "0.87 秒");
        assert_eq!(ja.fmt_args("unit-s", &s(3600.0, 0)).unwrap(), "3,600秒");
        assert_eq!(zh.fmt_args("unit-tokens", &s(2048.0, 0)).unwrap(), "2,048 个 token");
        assert_eq!(ja.fmt_args("unit-tokens", &s(1.0, 0)).unwrap(), "1トークン");
        assert_eq!(zh.fmt("ratio-faster", &[("value", "1.58")]).unwrap(), "速度为原来的 1.58 倍");
        assert_eq!(zh.fmt("ratio-slower", &[("value", "1.2")]).unwrap(), "耗时为原来的 1.2 倍");
        assert_eq!(zh.list(&["a".into(), "b".into()]), "a、b");
        assert_eq!(ja.labelled("平均TPOT", "12.34 ms"), "平均TPOT：12.34 ms");
        assert_eq!(ja.sentences(&["比較：".into(), "A。".into(), "B。".into()]), "比較：A。B。");
        let en = Catalog::parse("en", BUILT_IN[0].1, Path::new("en.ftl")).unwrap();
        assert_eq!(en.sentences(&["Fastest against slowest:".into(), "A.".into()]), "Fastest against slowest: A.");
        assert_eq!(ja.fmt("ratio-faster", &[("value", "1.58")]).unwrap(), "1.58倍高速");
    }

    #[test]
    fn a_missing_key_names_key_and_locale() {
        let en = Catalog::parse("en", BUILT_IN[0].1, Path::new("en.ftl")).unwrap();
        let e = en.msg("no-such-key").unwrap_err();
        assert_eq!(e.to_string(), "catalog `en` has no message `no-such-key`");
    }

    #[test]
    fn suffix_follows_the_value_as_read() {
        let source = "number-decimal-separator = ,\nnumber-group-separator = .\n\
            from-to = { SUFFIX($a, case: \"ablative\") } { SUFFIX($b, case: \"dative\") } iniyor\n\
            threshold = { SUFFIX($t, case: \"lik\") } eşik\n\
            count = { SUFFIX($n, case: \"locative\") }\n";
        let tr = Catalog::parse("tr", source, Path::new("tr.ftl")).unwrap();
        assert_eq!(
            tr.fmt("from-to", &[("a", "636,24 ms"), ("b", "540,79 ms")]).unwrap(),
            "636,24 ms'den 540,79 ms'ye iniyor"
        );
        assert_eq!(tr.fmt("threshold", &[("t", "%16,11")]).unwrap(), "%16,11'lik eşik");
        let n = |value, decimals| [("n", Arg::Number { value, decimals })];
        assert_eq!(tr.fmt_args("count", &n(1000.0, 0)).unwrap(), "1.000'de");
        assert_eq!(tr.fmt_args("count", &n(4.0, 0)).unwrap(), "4'te");
        assert_eq!(tr.fmt_args("count", &n(2.5, 2)).unwrap(), "2,50'de");
        let turkish = Catalog::parse("tr", BUILT_IN[1].1, Path::new("tr.ftl")).unwrap();
        let noisy = turkish.fmt_args(
            "warning-noisy",
            &[
                ("count", Arg::count(2)),
                ("spread", "%16,11".into()),
                ("threshold", "%2,00".into()),
                ("values", "a, b".into()),
            ],
        );
        assert!(noisy.unwrap().contains("%2,00'lik gürültü eşiğinden büyük"));
    }

    #[test]
    fn an_unknown_suffix_case_names_file_and_line() {
        let e =
            Catalog::parse("xx", "a = ok\nb = { SUFFIX($x, case: \"genitiv\") }\n", Path::new("xx.ftl")).unwrap_err();
        assert!(e.to_string().starts_with("xx.ftl:2:7: SUFFIX: unknown case `genitiv`"), "{e}");
    }

    #[test]
    fn a_syntax_error_names_file_and_line() {
        let e = Catalog::parse("xx", "a = ok\nb = { $x\n", Path::new("xx.ftl")).unwrap_err();
        assert!(e.to_string().starts_with("xx.ftl:3:1: invalid Fluent"), "{e}");
    }
}
