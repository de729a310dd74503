//! A study's files taken from the previous site as they are, without rendering them again,
//! where the study, the program and the templates are those that made them.
//!
//! Every build records in the site folder ([`RECORD`]), for each study, a hash of everything
//! its files are made from (its [`Key`]: this program, the templates and catalogs, the flavour
//! and address of the build, and the study as loaded) and the hash of each of its files. The
//! next build works out each study's key again; where it is the recorded one, the study's files
//! in the old site are read, and if each still holds the bytes recorded for it, the new site
//! gets them under a second name (a hard link) and the study is not rendered. A file edited,
//! removed or replaced since makes the whole study render again, so a build gives the same
//! files as a build into an empty folder. The record is written into the new folder with the
//! rest, so it always describes the site beside it.

use super::{SiteUrl, study_of};
use crate::render::{Flavor, Renderer};
use crate::study::Study;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// The record of what made each study's files, at the site folder's root.
pub const RECORD: &str = ".perflab-inputs";

/// The record's first line: its format, and that of the keys in it.
const HEADER: &str = "perflab-inputs 3";

/// A hash of everything one study's files are made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Key(blake3::Hash);

/// The part of the key that every study of a build shares: this program (its own file, which
/// holds the code, the fonts and the built-in templates), the templates and catalogs it
/// renders with, the flavour of the Markdown and the site's address. None where the program
/// cannot read its own file: then nothing is taken from the old site.
pub(super) fn shared(renderer: &Renderer, flavor: Flavor, url: Option<&SiteUrl>) -> Option<blake3::Hasher> {
    let program = std::fs::File::open("/proc/self/exe").ok()?;
    let mut own = blake3::Hasher::new();
    own.update_reader(program).ok()?;
    let mut hash = blake3::Hasher::new();
    hash.update(HEADER.as_bytes()).update(own.finalize().as_bytes()).update(renderer.sources_hash().as_bytes());
    hash.update(format!("\n{flavor:?}\n{url:?}\n").as_bytes());
    Some(hash)
}

/// The key of `study`: the shared part, then [`key_text`].
pub(super) fn key(shared: &blake3::Hasher, study: &Study) -> Key {
    let mut into = Feed { hash: shared.clone(), pending: Vec::with_capacity(Feed::CHUNK) };
    // Writing into a hasher does not fail.
    let _ = key_text(study, &mut into);
    into.hash.update(&into.pending);
    Key(into.hash.finalize())
}

/// What a study's key is the hash of: the study as loaded, that is the text of its
/// specification verbatim and every other field but the parsed specification (its folder,
/// every run and what was read from it) as `Debug` writes it, and the fingerprint of each
/// profile's dataset file.
fn key_text(study: &Study, out: &mut impl std::fmt::Write) -> std::fmt::Result {
    // Named one by one, so that a field added to `Study` has to be placed here.
    let Study {
        id,
        dir,
        file,
        source,
        spec: _,
        runs,
        repeats,
        starts,
        designs,
        manifests,
        attempts,
        recorded,
        searches,
        scores,
    } = study;
    // The specification as written, verbatim: what this program read it into (`spec`) follows
    // from it, and writing that out, translations and all, was most of the key's cost.
    writeln!(out, "source, {} bytes:", source.len())?;
    out.write_str(source)?;
    write!(out, "\nid {id:?}\ndir {dir:?}\nfile {file:?}\nruns {runs:?}\nrepeats {repeats:?}\nstarts {starts:?}")?;
    write!(out, "\ndesigns {designs:?}\nmanifests {manifests:?}\nattempts {attempts:?}\nrecorded {recorded:?}")?;
    write!(out, "\nsearches {searches:?}\nscores {scores:?}")?;
    // The one input read after loading: whether a dataset file still holds what its runs were
    // measured on (a page says when it does not).
    for profile in &study.spec.profiles {
        let id = profile.id.get_ref();
        write!(out, "\ndataset of {id:?}: {:?}", study.dataset_fingerprint(id))?;
    }
    Ok(())
}

/// Text written into a hash a chunk at a time (the pieces `Debug` writes are a few bytes each),
/// without the whole text ever in memory.
struct Feed {
    hash: blake3::Hasher,
    pending: Vec<u8>,
}

impl Feed {
    const CHUNK: usize = 64 << 10;
}

impl std::fmt::Write for Feed {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if self.pending.len() + s.len() > Feed::CHUNK {
            self.hash.update(&self.pending);
            self.pending.clear();
        }
        if s.len() > Feed::CHUNK {
            self.hash.update(s.as_bytes());
        } else {
            self.pending.extend_from_slice(s.as_bytes());
        }
        Ok(())
    }
}

/// What the previous build recorded: each study's key and its files, each with its hash.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Record(HashMap<String, (Key, Vec<(String, blake3::Hash)>)>);

impl Record {
    /// The record of the site in `out`; an empty one where there is none, or it is not one
    /// this program wrote whole (then every study is rendered).
    pub(super) fn read(out: &Path) -> Record {
        // A record that is not a plain file of a sensible size (a FIFO would hang the build) is
        // no record: every study is rendered.
        let text = crate::durable::read_text(&out.join(RECORD), super::MAX_LIST_BYTES).unwrap_or_default();
        Record::parse(&text).unwrap_or_default()
    }

    fn parse(text: &str) -> Option<Record> {
        let mut lines = text.lines();
        if lines.next()? != HEADER {
            return None;
        }
        let mut studies: HashMap<String, (Key, Vec<(String, blake3::Hash)>)> = HashMap::new();
        let mut lists: HashMap<String, blake3::Hash> = HashMap::new();
        let mut current: Option<String> = None;
        for line in lines {
            if line == "end" {
                // A study whose file lines are not those its own line counted (one lost or
                // added) keeps nothing: its files are made again.
                studies.retain(|id, (_, files)| {
                    lists.get(id) == Some(&list_hash(files.iter().map(|(r, h)| (r.as_str(), h))))
                });
                return Some(Record(studies));
            }
            let (first, rest) = line.split_once(' ')?;
            if first == "study" {
                let mut words = rest.split(' ');
                let (id, key, list) = (words.next()?, words.next()?, words.next()?);
                studies.insert(id.to_string(), (Key(blake3::Hash::from_hex(key).ok()?), Vec::new()));
                lists.insert(id.to_string(), blake3::Hash::from_hex(list).ok()?);
                current = Some(id.to_string());
            } else {
                let id = current.as_deref()?;
                // Only a file of this study, by a plain path inside the site.
                let plain = rest.split('/').all(|part| !matches!(part, "" | "." | ".."));
                if !plain || study_of(rest) != Some(id) {
                    return None;
                }
                studies.get_mut(id)?.1.push((rest.to_string(), blake3::Hash::from_hex(first).ok()?));
            }
        }
        // Without its last line the record is not whole.
        None
    }

    /// The files the previous build made for study `id`, where it made them from `key`.
    pub(super) fn files(&self, id: &str, key: Key) -> Option<&[(String, blake3::Hash)]> {
        let (recorded, files) = self.0.get(id)?;
        (*recorded == key && !files.is_empty()).then_some(files.as_slice())
    }
}

/// The record of a build that made its studies' files from `keys` (by study id), and wrote the
/// files `written` (with the hash of each study's files).
pub(super) fn record(keys: &BTreeMap<String, Key>, written: &BTreeMap<String, Option<blake3::Hash>>) -> String {
    let mut files: BTreeMap<&str, Vec<(&str, &blake3::Hash)>> = BTreeMap::new();
    for (rel, hash) in written {
        if let (Some(id), Some(hash)) = (study_of(rel), hash) {
            files.entry(id).or_default().push((rel, hash));
        }
    }
    let mut text = format!("{HEADER}\n");
    for (id, Key(key)) in keys {
        let mine = files.get(id.as_str()).map(Vec::as_slice).unwrap_or_default();
        let list = list_hash(mine.iter().map(|(rel, hash)| (*rel, *hash)));
        text.push_str(&format!("study {id} {} {}\n", key.to_hex(), list.to_hex()));
        for (rel, hash) in mine {
            text.push_str(&format!("{} {rel}\n", hash.to_hex()));
        }
    }
    text.push_str("end\n");
    text
}

/// The hash of a study's file lines, in order: the record's line of the study carries it, so a
/// record that lost or gained a file line is seen.
fn list_hash<'a>(files: impl Iterator<Item = (&'a str, &'a blake3::Hash)>) -> blake3::Hash {
    let mut h = blake3::Hasher::new();
    for (rel, hash) in files {
        h.update(hash.as_bytes());
        h.update(rel.as_bytes());
        h.update(b"\n");
    }
    h.finalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_as_written_and_a_partial_or_foreign_one_as_none() {
        let key = Key(blake3::hash(b"inputs"));
        let keys = BTreeMap::from([("a".to_string(), key)]);
        let page = blake3::hash(b"page");
        let written = BTreeMap::from([
            ("en/a.html".to_string(), Some(page)),
            ("md/en/a/summary.png".to_string(), Some(page)),
            ("en/index.html".to_string(), None),
        ]);
        let text = record(&keys, &written);
        let read = Record::parse(&text).unwrap();
        assert_eq!(
            read.files("a", key),
            Some(&[("en/a.html".to_string(), page), ("md/en/a/summary.png".to_string(), page)][..])
        );
        assert_eq!(read.files("a", Key(blake3::hash(b"other inputs"))), None);
        assert_eq!(read.files("b", key), None);
        // The key is the hash of the study's text, however it is fed in.
        let study =
            Study::load(&std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("results/qwen3-14b-h100")).unwrap();
        let mut whole = String::new();
        super::key_text(&study, &mut whole).unwrap();
        assert!(whole.len() > Feed::CHUNK, "the text is fed in more than one chunk: {}", whole.len());
        assert_eq!(super::key(&blake3::Hasher::new(), &study), Key(blake3::hash(whole.as_bytes())));
        // Cut short, of another format, or naming a file outside its study or the site: no record.
        assert_eq!(Record::parse(text.trim_end_matches("end\n")), None);
        assert_eq!(Record::parse(&text.replace(HEADER, "perflab-inputs 0")), None);
        assert_eq!(Record::parse(&text.replace("en/a.html", "en/b.html")), None);
        assert_eq!(Record::parse(&text.replace("md/en/a/", "md/../a/")), None);
        assert_eq!(Record::parse(""), None);
        // A file line lost (or one added): that study keeps nothing, the others keep theirs.
        let lost: String =
            text.lines().filter(|l| !l.ends_with(" md/en/a/summary.png")).map(|l| format!("{l}\n")).collect();
        assert_eq!(Record::parse(&lost).unwrap().files("a", key), None);
        let added = text.replace("end\n", &format!("{} md/en/a/extra.png\nend\n", page.to_hex()));
        assert_eq!(Record::parse(&added).unwrap().files("a", key), None);
    }
}
