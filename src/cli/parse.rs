//! `perflab parse FILE...`

use crate::parse::{self, Block};
use serde::Serialize;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Serialize)]
struct Found<'a> {
    file: String,
    #[serde(flatten)]
    block: &'a Block,
}

/// Lines listed one by one in a remark about undecodable bytes; more are counted.
const LISTED_LINES: usize = 10;

fn line_list(lines: &[usize]) -> String {
    let shown: Vec<String> = lines.iter().take(LISTED_LINES).map(usize::to_string).collect();
    match lines.len().saturating_sub(LISTED_LINES) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

pub fn run(files: &[PathBuf]) -> anyhow::Result<ExitCode> {
    let mut found = Vec::new();
    let mut unreadable = false;
    let mut spoiled = false;
    for path in files {
        let name = path.display().to_string();
        let bytes = if name == "-" {
            let mut b = Vec::new();
            std::io::stdin().read_to_end(&mut b).map(|_| b)
        } else {
            std::fs::read(path)
        };
        let bytes = match bytes {
            Ok(b) => b,
            Err(e) => {
                eprintln!("{name}: cannot read: {e}");
                unreadable = true;
                continue;
            }
        };
        let (text, replaced) = parse::decode(&bytes);
        if !replaced.is_empty() {
            eprintln!(
                "{name}:{}:1: warning: bytes that are not UTF-8 replaced by U+FFFD on line {}",
                replaced[0],
                line_list(&replaced)
            );
        }
        let parsed = parse::parse_text(&text);
        for e in &parsed.errors {
            eprintln!("{name}:{e} (this result is left out)");
        }
        spoiled |= !parsed.errors.is_empty();
        if parsed.blocks.is_empty() && parsed.errors.is_empty() {
            eprintln!("{name}:{}", parse::no_result());
            unreadable = true;
        }
        let mut blocks = parsed.blocks;
        // Each block is told about the replaced bytes among its lines (up to the next block).
        let starts: Vec<usize> = blocks.iter().map(|b| b.line).collect();
        for (i, b) in blocks.iter_mut().enumerate() {
            let end = starts.get(i + 1).copied().unwrap_or(usize::MAX);
            let inside: Vec<usize> = replaced.iter().copied().filter(|l| (b.line..end).contains(l)).collect();
            if !inside.is_empty() {
                b.remarks.push(format!("bytes that are not UTF-8 replaced by U+FFFD on line {}", line_list(&inside)));
            }
        }
        found.extend(blocks.into_iter().map(|b| (name.clone(), b)));
    }
    let out: Vec<Found> = found.iter().map(|(file, block)| Found { file: file.clone(), block }).collect();
    let code = if unreadable {
        ExitCode::from(2)
    } else if spoiled || found.iter().any(|(_, b)| !b.complete) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    let mut stdout = std::io::stdout().lock();
    let written = serde_json::to_writer_pretty(&mut stdout, &out)
        .map_err(std::io::Error::from)
        .and_then(|_| writeln!(stdout))
        .and_then(|_| stdout.flush());
    match written {
        // The reader stopped reading (`perflab parse ... | head`): nothing is wrong.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(code),
        Err(e) => Err(e.into()),
        Ok(()) => Ok(code),
    }
}
