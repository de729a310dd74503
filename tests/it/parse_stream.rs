//! `perflab parse` reads its input one line at a time and prints each block as it is read; its
//! output is byte for byte what the parser that read whole files printed (recorded in
//! tests/fixtures/parse-stream from every parse fixture, every sample, every run file of the
//! bundled studies, a file of edge cases (CRLF, a BOM, bytes that are not UTF-8, spoiled,
//! headless and legacy blocks, a last line without its newline) and the twelve published
//! pages of tests/fixtures/import, whose 216 blocks sit between their Markdown).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn golden(name: &str) -> Vec<u8> {
    std::fs::read(root().join("tests/fixtures/parse-stream").join(name)).unwrap()
}

fn files() -> Vec<String> {
    String::from_utf8(golden("files.txt")).unwrap().lines().map(str::to_string).collect()
}

fn parse(args: &[String], stdin: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_perflab"));
    cmd.current_dir(root()).arg("parse").args(args);
    if let Some(path) = stdin {
        cmd.stdin(std::fs::File::open(path).unwrap());
    }
    cmd.output().unwrap()
}

#[test]
fn every_fixture_and_bundled_run_prints_what_it_printed_before() {
    let files = files();
    assert!(files.len() > 100, "the recorded list covers the bundled runs");
    let out = parse(&files, None);
    assert_eq!(String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&golden("all.json")));
    assert_eq!(String::from_utf8_lossy(&out.stderr), String::from_utf8_lossy(&golden("all.stderr")));
    let code: i32 = String::from_utf8(golden("all.code")).unwrap().trim().parse().unwrap();
    assert_eq!(out.status.code(), Some(code));
}

#[test]
fn each_file_alone_exits_as_before() {
    for line in String::from_utf8(golden("codes.txt")).unwrap().lines() {
        let (code, file) = line.split_once(' ').unwrap();
        let out = parse(&[file.to_string()], None);
        assert_eq!(out.status.code(), Some(code.parse().unwrap()), "{file}");
    }
}

#[test]
fn standard_input_reads_like_a_file() {
    let edges = "tests/fixtures/parse-stream/edges.log";
    let from_file = parse(&[edges.to_string()], None);
    let from_stdin = parse(&["-".to_string()], Some(&root().join(edges)));
    let text = |o: &Output| String::from_utf8_lossy(&o.stdout).replace(edges, "-");
    assert_eq!(text(&from_stdin), text(&from_file));
    assert_eq!(from_stdin.status.code(), from_file.status.code());
}

#[test]
fn the_streamed_blocks_are_the_whole_text_blocks() {
    // The library's two ways in agree on every recorded file: a string, and a reader.
    for file in files() {
        let bytes = std::fs::read(root().join(&file)).unwrap();
        let (text, _) = perflab::parse::decode(&bytes);
        let whole = perflab::parse_text(&text);
        let mut streamed = Vec::new();
        let summary = perflab::parse::stream::read(&bytes[..], &mut |b| {
            streamed.push(b);
            Ok(())
        })
        .unwrap();
        let strip = |mut b: perflab::Block| {
            b.remarks.retain(|r| !r.starts_with("bytes that are not UTF-8"));
            b
        };
        let streamed: Vec<_> = streamed.into_iter().map(strip).collect();
        assert_eq!(streamed, whole.blocks, "{file}");
        assert_eq!(summary.errors, whole.errors, "{file}");
    }
}

#[test]
fn a_small_read_buffer_reads_the_same_blocks() {
    // Lines cut by the end of the reader's buffer are completed before they are read, and a
    // buffer holding bytes that are not UTF-8 is read line by line.
    let read = |bytes: &[u8], capacity: usize| {
        let mut blocks = Vec::new();
        let reader = std::io::BufReader::with_capacity(capacity, bytes);
        let summary = perflab::parse::stream::read(reader, &mut |b| {
            blocks.push(b);
            Ok(())
        })
        .unwrap();
        (blocks, summary.errors, summary.replaced, summary.replaced_lines)
    };
    for file in files() {
        let bytes = std::fs::read(root().join(&file)).unwrap();
        let expected = read(&bytes, 1 << 16);
        for capacity in [7, 100] {
            assert_eq!(read(&bytes, capacity), expected, "{file}, a buffer of {capacity} bytes");
        }
    }
}
