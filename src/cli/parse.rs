//! `perflab parse FILE...`

use crate::parse::{Block, parse_str};
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

pub fn run(files: &[PathBuf]) -> anyhow::Result<ExitCode> {
    let mut found = Vec::new();
    let mut unreadable = false;
    for path in files {
        let name = path.display().to_string();
        let text = if name == "-" {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s).map(|_| s)
        } else {
            std::fs::read_to_string(path)
        };
        let text = match text {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{name}: cannot read: {e}");
                unreadable = true;
                continue;
            }
        };
        match parse_str(&text) {
            Ok(blocks) => found.extend(blocks.into_iter().map(|b| (name.clone(), b))),
            Err(e) => {
                eprintln!("{name}:{e}");
                unreadable = true;
            }
        }
    }
    let out: Vec<Found> = found.iter().map(|(file, block)| Found { file: file.clone(), block }).collect();
    let mut stdout = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut stdout, &out)?;
    writeln!(stdout)?;
    Ok(if unreadable {
        ExitCode::from(2)
    } else if found.iter().any(|(_, b)| !b.complete) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
