//! `perflab parse FILE...`

use super::Exit;
use perflab::parse::stream::{self, Failure, JsonList};
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

pub fn run(files: &[PathBuf]) -> anyhow::Result<ExitCode> {
    // Blocks are printed as they are read: the output is never held whole, and it leaves in
    // large writes rather than a line at a time.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut list = JsonList::default();
    let (mut unreadable, mut spoiled, mut incomplete) = (false, false, false);
    for path in files {
        let name = path.display().to_string();
        let reader: std::io::Result<Box<dyn BufRead>> = if name == "-" {
            Ok(Box::new(std::io::stdin().lock()))
        } else {
            std::fs::File::open(path)
                .map(|f| Box::new(std::io::BufReader::with_capacity(1 << 16, f)) as Box<dyn BufRead>)
        };
        let read = reader.map_err(Failure::Read).and_then(|r| stream::read(r, &mut |b| list.push(&mut out, &name, &b)));
        let summary = match read {
            Ok(s) => s,
            Err(Failure::Read(e)) => {
                eprintln!("{name}: cannot read: {e}");
                unreadable = true;
                continue;
            }
            Err(Failure::Write(e)) => return finished(Err(e), exit_code(unreadable, spoiled || incomplete)),
        };
        if let Some(first) = summary.replaced.first() {
            eprintln!(
                "{name}:{first}:1: warning: {}",
                stream::replaced_remark(&summary.replaced, summary.replaced_lines)
            );
        }
        for e in &summary.errors {
            eprintln!("{name}:{e} (this result is left out)");
        }
        spoiled |= !summary.errors.is_empty();
        incomplete |= summary.incomplete;
        if summary.blocks == 0 && summary.errors.is_empty() {
            eprintln!("{name}:{}", perflab::parse::no_result());
            unreadable = true;
        }
    }
    let code = exit_code(unreadable, spoiled || incomplete);
    let written = list.end(&mut out).and_then(|_| writeln!(out)).and_then(|_| out.flush());
    finished(written, code)
}

fn exit_code(unreadable: bool, doubtful: bool) -> ExitCode {
    if unreadable {
        ExitCode::from(Exit::Failed)
    } else if doubtful {
        ExitCode::from(Exit::Attention)
    } else {
        ExitCode::SUCCESS
    }
}

fn finished(written: std::io::Result<()>, code: ExitCode) -> anyhow::Result<ExitCode> {
    match written {
        // The reader stopped reading (`perflab parse ... | head`): nothing is wrong.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(code),
        Err(e) => Err(e.into()),
        Ok(()) => Ok(code),
    }
}
