//! Names of configurations and runs in the search: `stage/variant` for a variant's
//! configuration, a stage's id for what a stage leaves behind, `stage/variant/profile` (and
//! `…/profile@load` for a curve's point) for a run. A name is parsed once, here, into a type
//! that knows its parts; everything else asks it for them.

use serde::{Serialize, Serializer};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

/// A variant's configuration, `stage/variant`.
///
/// It reads as its text (`&VariantRef` is a `&str`), so messages, labels and lookups by name
/// take it as they are; its parts come from [`VariantRef::stage`] and [`VariantRef::variant`].
#[derive(Debug, Clone)]
pub struct VariantRef {
    text: String,
    slash: usize,
}

impl VariantRef {
    pub fn new(stage: &str, variant: &str) -> VariantRef {
        VariantRef { text: format!("{stage}/{variant}"), slash: stage.len() }
    }

    /// `stage/variant`; `None` for a text without a `/` (a stage's name, or nothing).
    pub fn parse(text: &str) -> Option<VariantRef> {
        let slash = text.find('/')?;
        Some(VariantRef { text: text.to_string(), slash })
    }

    pub fn stage(&self) -> &str {
        &self.text[..self.slash]
    }

    pub fn variant(&self) -> &str {
        &self.text[self.slash + 1..]
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The run of this configuration on `point`: a profile, or a curve's point (`chat@16`).
    pub fn key(&self, point: &str) -> RunKey {
        RunKey::new(self.stage(), self.variant(), point)
    }
}

impl PartialEq for VariantRef {
    fn eq(&self, other: &VariantRef) -> bool {
        self.text == other.text
    }
}

impl Eq for VariantRef {}

impl PartialOrd for VariantRef {
    fn partial_cmp(&self, other: &VariantRef) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for VariantRef {
    fn cmp(&self, other: &VariantRef) -> std::cmp::Ordering {
        self.text.cmp(&other.text)
    }
}

impl Hash for VariantRef {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.text.hash(state)
    }
}

impl std::borrow::Borrow<str> for VariantRef {
    fn borrow(&self) -> &str {
        &self.text
    }
}

impl Deref for VariantRef {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for VariantRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Serialize for VariantRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

impl PartialEq<str> for VariantRef {
    fn eq(&self, other: &str) -> bool {
        self.text == other
    }
}

impl PartialEq<&str> for VariantRef {
    fn eq(&self, other: &&str) -> bool {
        self.text == *other
    }
}

impl PartialEq<String> for VariantRef {
    fn eq(&self, other: &String) -> bool {
        &self.text == other
    }
}

/// What a study's `base` or `measured_on` names: one variant's configuration, or the
/// configuration a whole stage left behind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ref {
    Variant(VariantRef),
    Stage(String),
}

impl Ref {
    pub fn parse(text: &str) -> Ref {
        VariantRef::parse(text).map_or_else(|| Ref::Stage(text.to_string()), Ref::Variant)
    }
}

/// Whose configuration a point of the replayed search is.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Source {
    /// A variant's own configuration.
    Variant(VariantRef),
    /// What a stage measured on another configuration (`measured_on`) carries into the search:
    /// the search's configuration with the stage's decision applied, which no variant names.
    Stage(String),
    /// Nothing: the baseline of a study whose baseline names no variant that exists.
    #[default]
    Nothing,
}

impl Source {
    pub fn as_str(&self) -> &str {
        match self {
            Source::Variant(v) => v.as_str(),
            Source::Stage(s) => s,
            Source::Nothing => "",
        }
    }

    /// The variant whose configuration this is.
    pub fn variant(&self) -> Option<&VariantRef> {
        match self {
            Source::Variant(v) => Some(v),
            _ => None,
        }
    }

    pub fn is_nothing(&self) -> bool {
        *self == Source::Nothing
    }
}

impl Deref for Source {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Source {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl PartialEq<str> for Source {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<String> for Source {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Source {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// Which run: a variant of a stage measured on a profile, or on one load of a curve profile
/// (`chat` at load 16, named `chat@16`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RunKey {
    pub stage: String,
    pub variant: String,
    /// The profile's id, without a load.
    pub profile: String,
    /// The load of a curve's point (its concurrency or rate); `None` for a profile's own run.
    pub load: Option<u64>,
}

impl RunKey {
    /// The run of `stage/variant` on `point`: a profile's id, or a curve's point named
    /// `profile@load` (as the runs folder names its files).
    pub fn new(stage: &str, variant: &str, point: &str) -> RunKey {
        let (profile, load) = match crate::curve::split_point(point) {
            Some((profile, load)) => (profile, Some(load)),
            None => (point, None),
        };
        RunKey { stage: stage.to_string(), variant: variant.to_string(), profile: profile.to_string(), load }
    }

    /// `stage/variant/profile` (`…/profile@load` for a curve's point), as runs are named in
    /// analyses, exports and messages.
    pub fn name(&self) -> String {
        self.to_string()
    }

    /// The key of a run named `stage/variant/profile` or `stage/variant/profile@load` (missing
    /// parts are empty).
    pub fn parse(name: &str) -> RunKey {
        let mut parts = name.splitn(3, '/');
        let mut next = || parts.next().unwrap_or_default();
        let (stage, variant) = (next(), next());
        RunKey::new(stage, variant, next())
    }

    /// The configuration this run measures.
    pub fn config(&self) -> VariantRef {
        VariantRef::new(&self.stage, &self.variant)
    }

    /// What the run measured, as its files are named: the profile, or `profile@load`.
    pub fn point(&self) -> String {
        match self.load {
            Some(load) => crate::curve::point_id(&self.profile, load),
            None => self.profile.clone(),
        }
    }
}

impl std::fmt::Display for RunKey {
    /// `stage/variant/profile`, or `stage/variant/profile@load`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}/{}", self.stage, self.variant, self.profile)?;
        match self.load {
            Some(load) => write!(f, "{}{load}", crate::curve::POINT_SEPARATOR),
            None => Ok(()),
        }
    }
}

/// Runs are ordered by their names, as they always were: a stage, its variants, then what
/// they measured (`chat@12` before `chat@4`, as text), so lists and exports keep their order.
impl Ord for RunKey {
    fn cmp(&self, other: &RunKey) -> std::cmp::Ordering {
        (&self.stage, &self.variant).cmp(&(&other.stage, &other.variant)).then_with(|| self.point().cmp(&other.point()))
    }
}

impl PartialOrd for RunKey {
    fn partial_cmp(&self, other: &RunKey) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// A run equals its name, `stage/variant/profile` (or `…/profile@load`).
impl PartialEq<str> for RunKey {
    fn eq(&self, name: &str) -> bool {
        name.matches('/').count() >= 2 && *self == RunKey::parse(name)
    }
}

impl PartialEq<&str> for RunKey {
    fn eq(&self, name: &&str) -> bool {
        self == *name
    }
}

/// A run is written as its name, `stage/variant/profile` (or `…/profile@load`), in analyses
/// and exports.
impl serde::Serialize for RunKey {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_knows_its_parts() {
        let r = VariantRef::parse("engine/vllm").unwrap();
        assert_eq!((r.stage(), r.variant(), r.as_str()), ("engine", "vllm", "engine/vllm"));
        assert_eq!(r, VariantRef::new("engine", "vllm"));
        assert_eq!(r.key("chat"), RunKey::parse("engine/vllm/chat"));
        assert_eq!(RunKey::parse("a/b/c").config(), "a/b");
        assert!(VariantRef::parse("engine").is_none());
        assert_eq!(Ref::parse("engine"), Ref::Stage("engine".into()));
        assert_eq!(Ref::parse("engine/x"), Ref::Variant(VariantRef::new("engine", "x")));
        assert_eq!(serde_json::to_string(&Source::Variant(r)).unwrap(), "\"engine/vllm\"");
        assert_eq!(Source::Nothing.as_str(), "");
    }

    #[test]
    fn a_curves_point_carries_its_load_and_is_named_as_before() {
        let point = VariantRef::new("engine", "vllm").key("chat@16");
        assert_eq!((point.profile.as_str(), point.load), ("chat", Some(16)));
        assert_eq!((point.point(), point.to_string()), ("chat@16".to_string(), "engine/vllm/chat@16".to_string()));
        assert_eq!(RunKey::parse("engine/vllm/chat@16"), point);
        assert_eq!(serde_json::to_string(&point).unwrap(), "\"engine/vllm/chat@16\"");
        assert!(point == "engine/vllm/chat@16" && point != "engine/vllm/chat" && point != "engine/vllm");
        // A profile's own run has no load; a load that is not a plain number is no load.
        let own = RunKey::parse("engine/vllm/chat");
        assert_eq!((own.load, own.point()), (None, "chat".to_string()));
        assert_eq!(RunKey::parse("engine/vllm/chat@016").load, None);
        // Ordered by name, as runs always were: `chat` < `chat@12` < `chat@4`.
        let mut keys = [RunKey::parse("e/v/chat@4"), RunKey::parse("e/v/chat@12"), RunKey::parse("e/v/chat")];
        keys.sort();
        let names: Vec<String> = keys.iter().map(RunKey::point).collect();
        assert_eq!(names, ["chat", "chat@12", "chat@4"]);
    }
}
