//! The layout's rule, read from the source: the pipeline's lower layers (`study`, `metric`,
//! `analysis`, `render`, and the leaves under them) never import the executor.

use crate::common::root;
use std::path::Path;

/// The `.rs` files under `dir`, with their text.
fn sources(dir: &Path) -> Vec<(String, String)> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .map(|e| (e.path().display().to_string(), std::fs::read_to_string(e.path()).unwrap()))
        .collect()
}

/// The places in `text` that name the module `exec` of this crate (comments left out).
fn exec_uses(text: &str) -> Vec<String> {
    let code = text.lines().filter(|l| !l.trim_start().starts_with("//"));
    code.filter(|l| l.contains("crate::exec") || l.contains("super::exec") || l.contains("perflab::exec"))
        .map(|l| l.trim().to_string())
        .collect()
}

#[test]
fn nothing_below_the_executor_imports_it() {
    let src = root().join("src");
    let mut found = Vec::new();
    let lower = ["study", "curve", "metric", "analysis", "render", "parse"];
    let leaves = ["text.rs", "diag.rs", "durable.rs"];
    let files = lower.iter().flat_map(|d| sources(&src.join(d))).chain(leaves.iter().map(|f| {
        let path = src.join(f);
        (path.display().to_string(), std::fs::read_to_string(&path).unwrap())
    }));
    for (path, text) in files {
        found.extend(exec_uses(&text).into_iter().map(|l| format!("{path}: {l}")));
    }
    assert!(found.is_empty(), "imports of exec from below it:\n{}", found.join("\n"));
}

#[test]
fn the_check_sees_an_import_of_the_executor() {
    // The rule above is only as good as its reading of a file.
    assert_eq!(exec_uses("use crate::exec::Stale;\n"), ["use crate::exec::Stale;"]);
    assert_eq!(exec_uses("    let x = crate::exec::command::split(a);"), ["let x = crate::exec::command::split(a);"]);
    assert!(exec_uses("// exec runs what crate::exec::plan says\nuse crate::study;").is_empty());
}

#[test]
fn clap_stays_on_the_command_line_side() {
    let src = root().join("src");
    let mut found = Vec::new();
    for (path, text) in sources(&src) {
        let relative = Path::new(&path).strip_prefix(&src).unwrap().display().to_string();
        let command_line = relative.starts_with("cli/") || relative.starts_with("bin/") || relative == "main.rs";
        let named = text.lines().any(|l| !l.trim_start().starts_with("//") && l.contains("clap"));
        if named && !command_line {
            found.push(relative);
        }
    }
    assert!(found.is_empty(), "clap in library files: {found:?}");
}

#[test]
fn exit_codes_come_from_one_rule() {
    // Every command's exit code is an `Exit` (src/cli/mod.rs), so that the rule the README
    // gives holds; only the simulated engine, a test tool, has codes of its own.
    let src = root().join("src");
    let mut found = Vec::new();
    for (path, text) in sources(&src) {
        let relative = Path::new(&path).strip_prefix(&src).unwrap().display().to_string();
        if relative == "cli/mod.rs" || relative.starts_with("bin/") {
            continue;
        }
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            if line.contains("ExitCode::from(") && !line.contains("ExitCode::from(Exit::") {
                found.push(format!("{relative}: {}", line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "exit codes outside the rule: {found:?}");
}

/// The tests that take `common::serial()` under `cargo test` are the ones `.ci/run`'s nextest
/// runs one at a time (its `wall-clock` group), name for name.
#[test]
fn the_wall_clock_tests_are_the_same_under_cargo_test_and_nextest() {
    let taking = regex::Regex::new(r"fn (\w+)\(\) \{\n\s+let _serial = (?:common::)?serial\(\);").unwrap();
    let mut serial = std::collections::BTreeSet::new();
    for (path, text) in sources(&root().join("tests/it")) {
        let module = Path::new(&path).file_stem().unwrap().to_string_lossy().into_owned();
        for c in taking.captures_iter(&text) {
            serial.insert(format!("{module}::{}", &c[1]));
        }
        // A test that takes the lock anywhere but its first line would be missed here.
        let lines = text.matches("serial()").count();
        let first = taking.captures_iter(&text).count();
        if !path.ends_with("common/mod.rs") && !path.ends_with("architecture.rs") {
            assert_eq!(lines, first, "{path}: `serial()` is taken as a test's first line, or not at all");
        }
    }
    let config = std::fs::read_to_string(root().join(".config/nextest.toml")).unwrap();
    // The filter of the override that puts tests into the `wall-clock` group.
    let group = regex::Regex::new(r"(?s)filter = '''([^']*)'''\ntest-group = 'wall-clock'").unwrap();
    let filter = group.captures(&config).map(|c| c[1].to_string()).expect("a wall-clock override");
    let named = regex::Regex::new(r"test\(=([\w:]+)\)").unwrap();
    let grouped: std::collections::BTreeSet<String> = named.captures_iter(&filter).map(|c| c[1].to_string()).collect();
    assert!(!serial.is_empty());
    assert_eq!(serial, grouped, "the `serial()` tests and the `wall-clock` group of .config/nextest.toml differ");
}

/// Load curves are a leaf: `src/curve/` imports no module of perflab but `parse` (and itself),
/// so the study, the runner and the analysis all stand on the same search.
#[test]
fn the_load_curves_are_a_leaf() {
    let uses = regex::Regex::new(r"crate::(\w+)").unwrap();
    let mut found = Vec::new();
    for (path, text) in sources(&root().join("src/curve")) {
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for c in uses.captures_iter(line) {
                if !["curve", "parse"].contains(&&c[1]) {
                    found.push(format!("{path}: {line}"));
                }
            }
        }
    }
    assert!(found.is_empty(), "src/curve/ imports from above it:\n{}", found.join("\n"));
}

/// Each line of the question table in `docs/architecture.md` names a file that exists and, in
/// it, a function, type or message that is defined there.
#[test]
fn the_architecture_table_names_what_exists() {
    let doc = std::fs::read_to_string(root().join("docs/architecture.md")).unwrap();
    let table = doc.split("| question | file | where |").nth(1).expect("the question table");
    let row = regex::Regex::new(r"^\| (.+?) \| `([^`]+)` \| `([^`]+)` \|$").unwrap();
    let mut rows = 0;
    for line in table.lines().skip(2).take_while(|l| l.starts_with('|')) {
        let c = row.captures(line).unwrap_or_else(|| panic!("a row of three cells: {line}"));
        let (file, name) = (&c[2], &c[3]);
        let text = std::fs::read_to_string(root().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let defined = if file.ends_with(".ftl") {
            format!(r"(?m)^{} =", regex::escape(name))
        } else {
            format!(r"\b(fn|struct|enum|type|trait|const) {}\b", regex::escape(name))
        };
        assert!(regex::Regex::new(&defined).unwrap().is_match(&text), "{file} defines no `{name}`: {line}");
        rows += 1;
    }
    assert!(rows >= 7, "{rows} rows");
}
