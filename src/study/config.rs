//! A serving configuration: an engine, its flags and environment, built up stage by stage.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One command-line flag as written in the study (`--tp-size=8`, `-tp 8`, `--enable-dp-attention`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flag {
    /// The flag's name after the engine's aliases: `--dp` and `--dp-size` can be one flag.
    pub key: String,
    /// The value, if the flag has one.
    pub value: Option<String>,
    /// The flag as written.
    pub text: String,
}

impl Flag {
    /// Reads `--name=value`, `--name value` or `--name`. `None` when it does not start with `-`.
    pub fn parse(text: &str, aliases: &BTreeMap<String, String>) -> Option<Flag> {
        let text = text.trim();
        if !text.starts_with('-') || text.len() < 2 {
            return None;
        }
        let split = text.find(|c: char| c == '=' || c.is_whitespace());
        let (name, value) = match split {
            Some(i) => (&text[..i], Some(text[i + 1..].trim().to_string())),
            None => (text, None),
        };
        let key = aliases.get(name).cloned().unwrap_or_else(|| name.to_string());
        Some(Flag { key, value, text: text.to_string() })
    }

    /// The flag as arguments for a process: `--a=b` stays one, `--a b` becomes two.
    pub fn argv(&self) -> Vec<String> {
        match self.text.find(char::is_whitespace) {
            Some(i) if !self.text[..i].contains('=') => {
                vec![self.text[..i].to_string(), self.text[i..].trim().to_string()]
            }
            _ => vec![self.text.clone()],
        }
    }
}

/// An engine with flags and environment variables.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Config {
    pub engine: String,
    pub flags: Vec<Flag>,
    pub env: BTreeMap<String, String>,
}

impl Config {
    pub fn new(engine: &str) -> Config {
        Config { engine: engine.to_string(), ..Config::default() }
    }

    /// This configuration with `unset` flags removed, then `flags` replacing flags of the same
    /// name in place or appended, then `env` merged.
    pub fn with(&self, unset: &[String], flags: &[Flag], env: &BTreeMap<String, String>) -> Config {
        let mut out = self.clone();
        out.flags.retain(|f| !unset.contains(&f.key));
        for flag in flags {
            match out.flags.iter_mut().find(|f| f.key == flag.key) {
                Some(old) => *old = flag.clone(),
                None => out.flags.push(flag.clone()),
            }
        }
        out.env.extend(env.iter().map(|(k, v)| (k.clone(), v.clone())));
        out
    }

    /// A key that is equal for two configurations exactly when they would run the same way,
    /// whatever the order and spelling of their flags.
    pub fn identity(&self) -> String {
        let mut flags: Vec<String> =
            self.flags.iter().map(|f| format!("{}={}", f.key, f.value.as_deref().unwrap_or(""))).collect();
        flags.sort();
        let env: Vec<String> = self.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{}|{}|{}", self.engine, flags.join(" "), env.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(list: &[&str], aliases: &BTreeMap<String, String>) -> Vec<Flag> {
        list.iter().map(|t| Flag::parse(t, aliases).unwrap()).collect()
    }

    #[test]
    fn flags_replace_in_place_and_identity_ignores_order_and_aliases() {
        let mut aliases = BTreeMap::new();
        aliases.insert("--dp".to_string(), "--dp-size".to_string());
        let base = Config::new("sglang").with(&[], &flags(&["--tp-size 8", "--dp-size 8"], &aliases), &BTreeMap::new());
        let a = base.with(&[], &flags(&["--tp-size 4"], &aliases), &BTreeMap::new());
        assert_eq!(a.flags[0].text, "--tp-size 4");
        let b = Config::new("sglang").with(&[], &flags(&["--dp 8", "--tp-size 4"], &aliases), &BTreeMap::new());
        assert_eq!(a.identity(), b.identity());
        let c = a.with(&["--dp-size".to_string()], &[], &BTreeMap::new());
        assert_eq!(c.flags.len(), 1);
    }

    #[test]
    fn argv_keeps_values_whole() {
        let f = Flag::parse(r#"--speculative-config {"method":"mtp", "n":1}"#, &BTreeMap::new()).unwrap();
        assert_eq!(f.argv(), vec!["--speculative-config".to_string(), r#"{"method":"mtp", "n":1}"#.to_string()]);
        assert_eq!(Flag::parse("--tp-size=8", &BTreeMap::new()).unwrap().argv(), vec!["--tp-size=8"]);
        assert!(Flag::parse("tp", &BTreeMap::new()).is_none());
    }
}
