//! How a study's stored runs are read: every attempt of every run under `runs/`, which one
//! stands, and what its file names say (stage, variant, profile, attempt, repeat).

use super::{
    ATTEMPTS_DIR, Attempt, ENGINE_LOG, MANIFEST_SUFFIX, Manifest, RECORDED_FILE, RESULT_EXTENSIONS, RUNS_DIR, Run,
    RunKey, RunState, SIDE_FILES, SPEC_FILE, Study, VariantRef, read_recorded,
};
use crate::diag::Diagnostic;
use crate::parse;
use std::collections::BTreeMap;
use std::path::Path;

impl Study {
    /// Reads every attempt of every run; returns the problems.
    pub(super) fn load_runs(&mut self) -> Vec<Diagnostic> {
        let root = self.dir.join(RUNS_DIR);
        let mut out = Vec::new();
        if !root.is_dir() {
            return out;
        }
        let mut attempts: BTreeMap<RunKey, BTreeMap<u32, Attempt>> = BTreeMap::new();
        for entry in walkdir::WalkDir::new(&root).sort_by_file_name() {
            match entry {
                Ok(entry) => self.load_entry(&root, &entry, &mut attempts, &mut out),
                Err(e) => out.push(Diagnostic::new(&root, 0, 0, format!("cannot read: {e}"))),
            }
        }
        for attempt in attempts.values().flat_map(|a| a.values()) {
            if let (None, Some(first)) = (&attempt.run, attempt.repeats.values().next()) {
                out.push(Diagnostic::new(
                    &first.path,
                    0,
                    0,
                    "a repeated measurement without the first one (`<profile>.txt`) beside it",
                ));
            }
        }
        for (key, list) in attempts {
            let list: Vec<Attempt> = list.into_values().collect();
            self.attempts.insert(key.clone(), list.clone());
            if let Some(chosen) = Attempt::select(&list) {
                self.stand(&key, chosen);
            }
        }
        out
    }

    /// One file under `runs/`: a result or a manifest into its attempt, the record of results
    /// placed by hand, or one of the runner's own files (skipped).
    fn load_entry(
        &mut self,
        root: &Path,
        entry: &walkdir::DirEntry,
        attempts: &mut BTreeMap<RunKey, BTreeMap<u32, Attempt>>,
        out: &mut Vec<Diagnostic>,
    ) {
        if entry.file_type().is_symlink() {
            // The runner would write through a linked folder into another run's place (or
            // outside the study), and a linked file would be read as this study's result.
            out.push(Diagnostic::new(
                entry.path(),
                0,
                0,
                "a symbolic link under runs/: perflab neither reads nor writes through links there; replace it with the folder or file itself",
            ));
            return;
        }
        if !entry.file_type().is_file() {
            return;
        }
        let path = entry.path();
        let name = entry.file_name().to_string_lossy();
        // The runner's own files: its lock and engine records at the top, logs beside runs,
        // a cluster job's records (dot files) in its attempt.
        if name == ENGINE_LOG || name.starts_with('.') {
            return;
        }
        if name == RECORDED_FILE && entry.depth() == 1 {
            match read_recorded(path) {
                Ok(recorded) => self.recorded = recorded,
                Err(message) => out.push(Diagnostic::new(path, 0, 0, message)),
            }
            return;
        }
        if path.strip_prefix(root).is_ok_and(super::evaluation::evaluators_file) {
            return;
        }
        if name == super::evaluation::ACCURACY_FILE {
            if let Err(d) = self.load_scores(root, path) {
                out.push(d);
            }
            return;
        }
        if SIDE_FILES.iter().any(|s| name.ends_with(s)) && !name.ends_with(MANIFEST_SUFFIX) {
            return;
        }
        let (key, number, repeat) = match self.run_key(root, path) {
            Ok(found) => found,
            Err(message) => return out.push(Diagnostic::new(path, 0, 0, message)),
        };
        let attempt = attempts.entry(key).or_default().entry(number).or_insert(Attempt {
            number,
            run: None,
            repeats: BTreeMap::new(),
            manifest: None,
        });
        if name.ends_with(MANIFEST_SUFFIX) {
            match Manifest::read_placed(path) {
                Ok(m) => attempt.manifest = Some(m),
                Err(d) => out.push(d),
            }
            return;
        }
        let taken = if repeat > 1 { attempt.repeats.get(&repeat) } else { attempt.run.as_ref() };
        if let Some(other) = taken {
            let message = format!("a second result of the same run beside '{}'; keep one", other.path.display());
            return out.push(Diagnostic::new(path, 0, 0, message));
        }
        match read_run(path) {
            Err(d) => out.push(d),
            Ok(run) if repeat > 1 => {
                attempt.repeats.insert(repeat, run);
            }
            Ok(run) => attempt.run = Some(run),
        }
    }

    /// Makes `chosen` the attempt that stands for a run: its result and its manifest.
    pub(super) fn stand(&mut self, key: &RunKey, chosen: &Attempt) {
        self.runs.remove(key);
        self.manifests.remove(key);
        // A manifest that says failed beside an attempt-0 result is of a later failed
        // measurement, not of the result.
        if let Some(m) = &chosen.manifest
            && (chosen.failure().is_some() || m.state == RunState::Done)
        {
            self.manifests.insert(key.clone(), m.clone());
        }
        self.starts.remove(key);
        if let (true, Some(run)) = (chosen.succeeded(), &chosen.run) {
            self.runs.insert(key.clone(), run.clone());
            let list = self.attempts.get(key).map_or(&[][..], Vec::as_slice);
            let series = Attempt::series(list, chosen);
            let mut starts = Vec::new();
            let mut repeats: Vec<Run> = Vec::new();
            // A result placed by hand (attempt 0) says nothing of the start it was taken in:
            // each of its measurements counts as a start of its own.
            let start = |a: &Attempt| (a.number > 0).then_some(a.number);
            starts.push(start(chosen));
            for a in &series {
                for r in a.run.iter().filter(|_| a.number != chosen.number).chain(a.repeats.values()) {
                    repeats.push(r.clone());
                    starts.push(start(a));
                }
                if let Some(most) = a.manifest.as_ref().and_then(|m| m.planned_starts) {
                    let design = self.designs.entry(key.stage.clone()).or_insert(most);
                    *design = (*design).max(most);
                }
            }
            self.starts.insert(key.clone(), starts);
            if repeats.is_empty() {
                self.repeats.remove(key);
            } else {
                self.repeats.insert(key.clone(), repeats);
            }
        }
    }

    /// `runs/<stage>/<variant>/<profile>.<ext>` (attempt 0) or
    /// `runs/<stage>/<variant>/attempts/<n>/<profile>.<ext>` → its key, attempt and repeat (1 for
    /// `<profile>.<ext>`, k for `<profile>.r<k>.<ext>`), or why the file is out of place.
    fn run_key(&self, root: &Path, path: &Path) -> Result<(RunKey, u32, u32), String> {
        let rel = path.strip_prefix(root).map_err(|e| e.to_string())?;
        let parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        let (stage, variant, file, number) = match parts.as_slice() {
            [stage, variant, file] => (stage, variant, file, 0),
            [stage, variant, dir, n, file] if dir == ATTEMPTS_DIR => match n.parse::<u32>() {
                Ok(number) if number > 0 && *n == number.to_string() => (stage, variant, file, number),
                _ => return Err(format!("`{n}` is not an attempt number (1, 2, ...)")),
            },
            _ => {
                return Err(format!(
                    "a run file belongs at runs/<stage>/<variant>/<profile>.txt or runs/<stage>/<variant>/{ATTEMPTS_DIR}/<n>/<profile>.txt"
                ));
            }
        };
        let (profile, ext) = match file.strip_suffix(MANIFEST_SUFFIX) {
            Some(profile) => (profile, "txt"),
            None => file.rsplit_once('.').unwrap_or((file.as_str(), "")),
        };
        if !RESULT_EXTENSIONS.contains(&ext) {
            return Err(format!("unexpected file: a raw result ends in {}", RESULT_EXTENSIONS.join(", ")));
        }
        if self.stage(stage).is_none() {
            return Err(format!("no stage `{stage}` in {SPEC_FILE}"));
        }
        if self.variant_of(&VariantRef::new(stage, variant)).is_none() {
            return Err(format!("stage `{stage}` has no variant `{variant}` in {SPEC_FILE}"));
        }
        // `<profile>.r<k>.txt` is the k-th measurement (k ≥ 2) of an engine start; a profile whose
        // id ends that way keeps its own name.
        let (profile, repeat) = match profile.rsplit_once(".r") {
            Some((p, k))
                if self.profile(profile).is_none()
                    && (self.profile(p).is_some() || crate::curve::split_point(p).is_some()) =>
            {
                match k.parse::<u32>() {
                    Ok(n) if n >= 2 && k == n.to_string() => (p, n),
                    _ => return Err(format!("`.r{k}` is not a repeat number (.r2, .r3, ...)")),
                }
            }
            _ => (profile, 1),
        };
        if let Some((curve, load)) = crate::curve::split_point(profile) {
            match self.curve(curve) {
                None => {
                    return Err(format!("`{profile}`: profile `{curve}` in {SPEC_FILE} has no `load`, so no points"));
                }
                Some((_, spec)) if !spec.loads().allows(load) => {
                    return Err(format!("`{profile}`: {load} is not a load profile `{curve}` measures"));
                }
                Some(_) => {}
            }
        } else if self.profile(profile).is_none() {
            return Err(format!("no profile `{profile}` in {SPEC_FILE}"));
        }
        Ok((RunKey::new(stage, variant, profile), number, repeat))
    }
}

/// A run file: the one result it holds.
fn read_run(path: &Path) -> Result<Run, Diagnostic> {
    let text = read_text(path)?;
    let mut blocks = parse::parse_str(&text).map_err(|e| Diagnostic::new(path, e.line, e.col, e.message))?;
    if blocks.len() > 1 {
        let message = format!("a run file holds one result; this one holds {}", blocks.len());
        return Err(Diagnostic::new(path, blocks[1].line, 1, message));
    }
    Ok(Run { path: path.to_path_buf(), text, block: blocks.remove(0) })
}

/// A run file's text. A run file is evidence kept byte for byte, so bytes that are not UTF-8 are
/// an error at their position rather than replaced.
fn read_text(path: &Path) -> Result<String, Diagnostic> {
    let bytes = std::fs::read(path).map_err(|e| Diagnostic::new(path, 0, 0, format!("cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let valid = String::from_utf8_lossy(&e.as_bytes()[..at]).into_owned();
        let (line, col) = crate::diag::line_col(&valid, at);
        Diagnostic::new(path, line, col, "bytes that are not UTF-8 (a run file is kept verbatim; fix or re-save it)")
    })
}
