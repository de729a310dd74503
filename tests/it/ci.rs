//! `.ci/run`'s last line: whether every test that needs an outside tool ran, or which were
//! left out and why.

use crate::common::root;

/// The line `.ci/tool-tests.sh` prints after `setup` (bash) has set what `.ci/run` knows.
fn tool_tests_line(setup: &str) -> String {
    let script =
        format!("set -euo pipefail; source .ci/tool-tests.sh; skipped=(); tests_done=''; {setup}; tool_tests_line");
    let out = std::process::Command::new("bash").arg("-c").arg(script).current_dir(root()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn ci_ends_saying_whether_every_tool_test_ran_or_which_did_not_and_why() {
    let all = tool_tests_line("tests_done=1");
    assert!(all.contains("every one ran, none was left out"), "{all}");
    let some = tool_tests_line(
        "skipped=('slurm (Slurm could not be installed)' 'tidy_ (tidy could not be installed)'); tests_done=1",
    );
    assert!(!some.contains("none was left out"), "{some}");
    assert!(some.contains("slurm (Slurm could not be installed); tidy_ (tidy could not be installed)"), "{some}");
    let stopped = tool_tests_line("skipped=('mdbook_ (mdbook could not be installed)')");
    assert!(stopped.contains("none ran") && stopped.contains("mdbook_ (mdbook could not be installed)"), "{stopped}");
    assert_eq!([&all, &some, &stopped].map(|l| l.lines().count()), [1, 1, 1]);
    // `.ci/run` prints it at its end, whichever way it ends, and says when the tests returned.
    let run = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    assert!(run.contains("source .ci/tool-tests.sh"), "{run}");
    assert!(run.lines().any(|l| l.starts_with("trap ") && l.contains("tool_tests_line") && l.ends_with("EXIT")));
    assert!(run.contains("tests_done=1"));
}
