//! No input makes the parser panic: arbitrary text, and every prefix and line-level mutation of
//! real outputs (the fixtures and the bundled studies' runs).

use perflab::parse_str;
use proptest::prelude::*;
use std::path::PathBuf;

fn corpus() -> Vec<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut texts = Vec::new();
    for dir in ["tests/fixtures/parse", "results"] {
        for entry in walkdir::WalkDir::new(root.join(dir)).sort_by_file_name() {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type().is_file() && !name.ends_with(".toml") {
                texts.push(std::fs::read_to_string(entry.path()).unwrap());
            }
        }
    }
    texts.sort();
    texts.dedup();
    texts
}

#[test]
fn every_prefix_of_every_real_output_parses_or_errors() {
    for text in corpus().iter().take(40) {
        for (i, _) in text.char_indices() {
            let prefix = &text[..i];
            if let Ok(blocks) = parse_str(prefix) {
                for b in &blocks {
                    assert!(b.line >= 1);
                }
            }
        }
    }
}

#[test]
fn a_truncated_text_block_is_never_complete() {
    let text =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/parse/vllm-old.txt"))
            .unwrap();
    let end = text.trim_end().rfind('\n').unwrap();
    for (i, _) in text[..end].char_indices().skip(1) {
        if let Ok(blocks) = parse_str(&text[..i]) {
            assert!(blocks.iter().all(|b| !b.complete), "prefix of {i} bytes taken as complete");
        }
    }
}

fn line_edits() -> impl Strategy<Value = (usize, Vec<(usize, u8, String)>)> {
    (0usize..1000, prop::collection::vec((0usize..200, 0u8..4, "[ -~ğüşıöçĞÜŞİÖÇ\t=:-]{0,60}"), 0..8))
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(s in "\\PC*") {
        let _ = parse_str(&s);
    }

    #[test]
    fn mutated_real_output_never_panics((pick, edits) in line_edits()) {
        let texts = corpus();
        let text = &texts[pick % texts.len()];
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        for (at, op, s) in edits {
            if lines.is_empty() { break; }
            let at = at % lines.len();
            match op {
                0 => { lines.remove(at); }
                1 => lines.insert(at, s),
                2 => { let l = lines[at].clone(); lines.insert(at, l); }
                _ => { let l = &mut lines[at]; let cut = l.char_indices().nth(s.len() % (l.len() + 1)).map_or(l.len(), |c| c.0); l.truncate(cut); l.push_str(&s); }
            }
        }
        let _ = parse_str(&lines.join("\n"));
    }
}
