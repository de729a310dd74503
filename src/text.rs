//! Localized strings a study writes: [`Text`] (Markdown in several languages) and [`Name`] (a
//! display name, the same in every language or localized).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Text in several languages: locale (`en`, `tr`, ...) → Markdown. English is required; other
/// locales fall back to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Text(pub BTreeMap<String, String>);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Text, D::Error> {
        let map = BTreeMap::<String, String>::deserialize(d)?;
        if !map.contains_key("en") {
            return Err(serde::de::Error::custom("localized text needs an `en` entry"));
        }
        for (locale, text) in &map {
            if locale.parse::<unic_langid::LanguageIdentifier>().is_err() {
                return Err(serde::de::Error::custom(format!(
                    "`{locale}` is not a language tag (`en`, `tr`, `zh`, ...)"
                )));
            }
            if text.trim().is_empty() {
                return Err(serde::de::Error::custom(format!(
                    "`{locale}`: the text is empty; leave the language out to show the English text"
                )));
            }
            // Line breaks and tabs are prose; any other control character (a terminal escape,
            // a bell) would reach terminals and pages.
            if let Some(c) = text.chars().find(|c| c.is_control() && !matches!(c, '\n' | '\t' | '\r')) {
                return Err(serde::de::Error::custom(format!(
                    "`{locale}`: control character U+{:04X} in the text",
                    u32::from(c)
                )));
            }
        }
        Ok(Text(map))
    }
}

impl Text {
    /// The text for `locale`, or the English one when the study has none in that locale.
    pub fn get(&self, locale: &str) -> &str {
        self.0.get(locale).or_else(|| self.0.get("en")).map_or("", String::as_str)
    }

    /// Whether `locale` has no text of its own and is shown the English one.
    pub fn falls_back(&self, locale: &str) -> bool {
        !self.0.contains_key(locale)
    }
}

/// A display name: the same in every language where it is a flag, a value or a product name
/// (`label = "TP + EP"`), or localized like [`Text`] where it is made of words
/// (`label = { en = "default", tr = "varsayılan" }`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Name {
    Same(String),
    Localized(Text),
}

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Name, D::Error> {
        struct NameVisitor;
        impl<'de> serde::de::Visitor<'de> for NameVisitor {
            type Value = Name;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a name, or a table of names by language (`{ en = \"...\", tr = \"...\" }`)")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Name, E> {
                Ok(Name::Same(v.to_string()))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Name, A::Error> {
                Text::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Name::Localized)
            }
        }
        d.deserialize_any(NameVisitor)
    }
}

impl Name {
    /// The name in `locale`; a localized name without one falls back to English.
    pub fn get(&self, locale: &str) -> &str {
        match self {
            Name::Same(name) => name,
            Name::Localized(text) => text.get(locale),
        }
    }

    /// The English name (every localized name has one), as analyses and exports record it.
    pub fn english(&self) -> &str {
        self.get("en")
    }

    /// Whether a localized name has no `locale` entry and is shown in English.
    pub fn falls_back(&self, locale: &str) -> bool {
        matches!(self, Name::Localized(text) if text.falls_back(locale))
    }
}
