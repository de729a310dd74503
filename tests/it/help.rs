//! `perflab --help`: every command listed once, in the README's order, with its own description.

use crate::common;

use common::perflab;

#[test]
fn each_command_has_its_own_help_in_the_readme_order() {
    let (code, out, err) = perflab(&["--help"]);
    assert_eq!(code, 0, "{err}");
    let described = |name: &str| {
        let line = out
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no `{name}` in:\n{out}"));
        line.trim_start()[name.len()..].trim().to_string()
    };
    assert!(described("analyze").starts_with("Print a study's analysis as JSON"), "{out}");
    assert!(described("diff").starts_with("Show what changed"), "{out}");
    let order = ["parse", "check", "analyze", "plan", "run", "bench", "translations", "report", "diff", "build"];
    let at: Vec<usize> = order.iter().map(|name| out.find(&format!("\n  {name} ")).unwrap()).collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "commands out of the README's order:\n{out}");
    let (_, diff, _) = perflab(&["diff", "--help"]);
    assert!(diff.starts_with("Show what changed"), "{diff}");
    let (_, analyze, _) = perflab(&["analyze", "--help"]);
    assert!(analyze.starts_with("Print a study's analysis as JSON"), "{analyze}");
}
