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

/// How one list of flags became another: flags added, removed, and changed in value (by name).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FlagChanges {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    /// `(before, after)` as written.
    pub changed: Vec<(String, String)>,
}

impl FlagChanges {
    pub fn between(before: &[Flag], after: &[Flag]) -> FlagChanges {
        let mut out = FlagChanges::default();
        for f in after {
            match before.iter().find(|b| b.key == f.key) {
                None => out.added.push(f.text.clone()),
                Some(b) if b.value != f.value => out.changed.push((b.text.clone(), f.text.clone())),
                Some(_) => {}
            }
        }
        out.removed = before.iter().filter(|b| !after.iter().any(|f| f.key == b.key)).map(|b| b.text.clone()).collect();
        out
    }

    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }

    /// `+ --a 1, − --b, --c 1 → --c 2`; empty when nothing changed.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = self.added.iter().map(|f| format!("+ {f}")).collect();
        parts.extend(self.removed.iter().map(|f| format!("− {f}")));
        parts.extend(self.changed.iter().map(|(a, b)| format!("{a} → {b}")));
        parts.join(", ")
    }
}

impl Flag {
    /// The flags of an argument vector: a word that starts with `-` and a letter (or `--`) opens
    /// a flag, and the words up to the next one are its value. Words before the first flag (the
    /// program and its positional arguments) are left out.
    pub fn from_argv(argv: &[String]) -> Vec<Flag> {
        let opens = |w: &str| w.starts_with("--") || (w.starts_with('-') && w[1..].starts_with(char::is_alphabetic));
        let mut groups: Vec<Vec<&str>> = Vec::new();
        for word in argv {
            if opens(word) {
                groups.push(vec![word]);
            } else if let Some(g) = groups.last_mut() {
                g.push(word);
            }
        }
        groups.iter().filter_map(|g| Flag::parse(&g.join(" "), &BTreeMap::new())).collect()
    }
}

/// An engine with flags and environment variables, and the checkpoint it serves when a variant
/// chose one.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Config {
    pub engine: String,
    /// The model the engine is given instead of the study's (or the engine's) model.
    pub model: Option<String>,
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

    /// This configuration with the change that turned `from` into `to` made to it as well: the
    /// flags `to` added or changed are set, the flags it dropped are removed, its environment
    /// changes likewise, and its checkpoint when it chose another. Used to carry a stage's
    /// decision onto another configuration (`measured_on`) and to take an excluded stage's back.
    pub fn transplant(&self, from: &Config, to: &Config) -> Config {
        let set: Vec<Flag> = to.flags.iter().filter(|f| !from.flags.contains(f)).cloned().collect();
        let dropped: Vec<String> =
            from.flags.iter().filter(|f| !to.flags.iter().any(|g| g.key == f.key)).map(|f| f.key.clone()).collect();
        let mut out = self.with(&dropped, &set, &BTreeMap::new());
        for (k, v) in &to.env {
            if from.env.get(k) != Some(v) {
                out.env.insert(k.clone(), v.clone());
            }
        }
        for k in from.env.keys().filter(|k| !to.env.contains_key(*k)) {
            out.env.remove(k);
        }
        if from.model != to.model {
            out.model = to.model.clone();
        }
        out
    }

    /// An engine's command words with this configuration's flags applied: a flag the command
    /// already has (its name after `aliases`) takes this configuration's value where it stands,
    /// so that each flag appears once with the value that applies; the other flags follow.
    pub fn apply_to(&self, words: &[String], aliases: &BTreeMap<String, String>) -> Vec<String> {
        let mut out: Vec<String> = Vec::with_capacity(words.len() + 2 * self.flags.len());
        let mut pending: Vec<&Flag> = self.flags.iter().collect();
        let mut i = 0;
        while i < words.len() {
            let word = &words[i];
            let (name, inline) = match word.split_once('=') {
                Some((n, _)) if word.starts_with('-') => (n, true),
                _ => (word.as_str(), false),
            };
            let key = aliases.get(name).map_or(name, String::as_str);
            let found = word.starts_with('-').then(|| pending.iter().position(|f| f.key == key)).flatten();
            let Some(at) = found else {
                out.push(word.clone());
                i += 1;
                continue;
            };
            let flag = pending.remove(at);
            // The template's value: in the same word, or the next word unless that is a flag.
            let takes_next = !inline && words.get(i + 1).is_some_and(|next| !next.starts_with('-'));
            i += if takes_next { 2 } else { 1 };
            out.extend(flag.argv());
        }
        out.extend(pending.into_iter().flat_map(Flag::argv));
        out
    }

    /// What makes this configuration the run it is, for reuse: equal for two configurations
    /// exactly when they would run the same way, whatever the order of their flags and whether
    /// they are written `--x=1` or `--x 1`.
    pub fn identity(&self) -> Identity {
        Identity {
            engine: self.engine.clone(),
            model: self.model.clone(),
            flags: self.flags.iter().map(|f| (f.key.clone(), f.value.clone())).collect(),
            env: self.env.clone(),
        }
    }
}

/// A configuration as parsed flags: engine, flag name (after aliases) → value, environment.
/// Built from the parsed flags rather than their text, so that no two different configurations
/// share one (`["--a=1 --b=2"]` gives `--a` the value `1 --b=2`; `["--a=1", "--b=2"]` gives two
/// flags).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Identity {
    engine: String,
    model: Option<String>,
    flags: BTreeMap<String, Option<String>>,
    env: BTreeMap<String, String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(list: &[&str], aliases: &BTreeMap<String, String>) -> Vec<Flag> {
        list.iter().map(|t| Flag::parse(t, aliases).unwrap()).collect()
    }

    #[test]
    fn a_change_carries_over_and_back() {
        let none = BTreeMap::new();
        let mut env = BTreeMap::new();
        env.insert("X".to_string(), "1".to_string());
        let from = Config::new("e").with(&[], &flags(&["--a 1", "--b 1"], &none), &BTreeMap::new());
        let to = from.with(&["--b".to_string()], &flags(&["--a 2", "--c"], &none), &env);
        let other = Config::new("e").with(&[], &flags(&["--b 1", "--d 4"], &none), &BTreeMap::new());
        let carried = other.transplant(&from, &to);
        let text: Vec<&str> = carried.flags.iter().map(|f| f.text.as_str()).collect();
        assert_eq!(text, ["--d 4", "--a 2", "--c"]);
        assert_eq!(carried.env, env);
        // Taking the change back restores what it dropped and removes what it added.
        let back = to.transplant(&to, &from);
        assert_eq!(back.identity(), from.identity());
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
    fn flag_changes_by_name() {
        let argv = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
        let before = Flag::from_argv(&argv("engine serve m --port {port} --tp-size 2 --fp8 --chunk 4096"));
        let after = Flag::from_argv(&argv("engine serve m --port {port} --tp-size 4 --chunk 4096 --mem -1"));
        assert_eq!(before.len(), 4);
        let c = FlagChanges::between(&before, &after);
        assert_eq!(c.added, vec!["--mem -1"]);
        assert_eq!(c.removed, vec!["--fp8"]);
        assert_eq!(c.changed, vec![("--tp-size 2".to_string(), "--tp-size 4".to_string())]);
        assert_eq!(c.describe(), "+ --mem -1, − --fp8, --tp-size 2 → --tp-size 4");
        assert!(FlagChanges::between(&after, &after).is_empty());
    }

    #[test]
    fn a_flag_of_the_command_takes_the_configuration_value_in_place() {
        let mut aliases = BTreeMap::new();
        aliases.insert("-tp".to_string(), "--tensor-parallel-size".to_string());
        let words: Vec<String> =
            ["vllm", "serve", "m", "--dtype", "bfloat16", "-tp=2", "--enforce-eager", "--port", "{port}"]
                .map(String::from)
                .to_vec();
        let config = Config::new("vllm").with(
            &[],
            &flags(&["--dtype float32", "--tensor-parallel-size 4", "--enforce-eager", "--max-num-seqs 8"], &aliases),
            &BTreeMap::new(),
        );
        assert_eq!(
            config.apply_to(&words, &aliases).join(" "),
            "vllm serve m --dtype float32 --tensor-parallel-size 4 --enforce-eager --port {port} --max-num-seqs 8"
        );
        // A flag of the command that takes no value keeps the next flag.
        let words: Vec<String> = ["serve", "--enforce-eager", "--dtype", "x"].map(String::from).to_vec();
        let config = Config::new("e").with(&[], &flags(&["--enforce-eager"], &aliases), &BTreeMap::new());
        assert_eq!(config.apply_to(&words, &aliases), words);
    }

    #[test]
    fn identity_is_the_parsed_flags_not_their_text() {
        let none = BTreeMap::new();
        let config = |list: &[&str]| Config::new("vllm").with(&[], &flags(list, &none), &BTreeMap::new());
        // One flag whose value holds a space is not two flags.
        assert_ne!(config(&["--a=1 --b=2"]).identity(), config(&["--a=1", "--b=2"]).identity());
        // Spelling and order do not matter.
        assert_eq!(config(&["--a=1", "--b 2"]).identity(), config(&["--b=2", "--a 1"]).identity());
        assert_ne!(config(&["--a"]).identity(), config(&["--a="]).identity());
        assert_ne!(
            config(&["--a=1"]).identity(),
            Config::new("sglang").with(&[], &flags(&["--a=1"], &none), &BTreeMap::new()).identity()
        );
    }

    #[test]
    fn argv_keeps_values_whole() {
        let f = Flag::parse(r#"--speculative-config {"method":"mtp", "n":1}"#, &BTreeMap::new()).unwrap();
        assert_eq!(f.argv(), vec!["--speculative-config".to_string(), r#"{"method":"mtp", "n":1}"#.to_string()]);
        assert_eq!(Flag::parse("--tp-size=8", &BTreeMap::new()).unwrap().argv(), vec!["--tp-size=8"]);
        assert!(Flag::parse("tp", &BTreeMap::new()).is_none());
    }
}
