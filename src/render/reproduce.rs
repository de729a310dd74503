//! A run's recipe (see [`crate::analysis::reproduce`]) as a script a reader pastes: the engine's
//! command, then the benchmark's, each after a comment that says what it is, and comments that
//! name the dataset, the machine and the figure. `perflab reproduce` prints it; a page shows it
//! under each result it measured.

use crate::analysis::reproduce::Reproduction;
use crate::study::command::{HOST, join, quote};

/// The recipe as a script, the engine's port filled in as `port`.
pub fn script(r: &Reproduction, port: u16) -> String {
    let fill = |argv: &[String]| -> Vec<String> {
        argv.iter().map(|w| w.replace("{port}", &port.to_string()).replace("{host}", HOST)).collect()
    };
    let mut lines = vec![match (&r.date, r.attempt) {
        (_, 0) => format!("# {}: a result placed by hand", r.run),
        (Some(date), n) => format!("# {}: attempt {n}, measured {date}", r.run),
        (None, n) => format!("# {}: attempt {n}", r.run),
    }];
    let env: Vec<String> = r.env.iter().map(|(k, v)| format!("{k}={}", quote(v))).collect();
    let prefix = if env.is_empty() { String::new() } else { format!("env {} ", env.join(" ")) };
    lines.push("# engine:".to_string());
    lines.push(format!("{prefix}{}", join(&fill(&r.engine))));
    let seed = r.seed.map_or("no seed".to_string(), |s| format!("seed {s}"));
    let fingerprint = r.dataset_fingerprint.as_ref().map_or(String::new(), |f| format!(", fingerprint {f}"));
    lines.push(format!("# benchmark, once the engine serves: dataset {} ({seed}{fingerprint})", r.dataset));
    match &r.benchmark {
        Some(argv) => lines.push(join(&fill(argv))),
        None => lines.push("# not recorded: the result was placed by hand".to_string()),
    }
    match &r.machine {
        Some(m) => {
            for (name, fact) in m.facts() {
                lines.push(format!("# machine: {name} = {} (from {})", fact.value, fact.source));
            }
            for (package, fact) in &m.packages {
                lines.push(format!("# machine: package {package} = {}", fact.value));
            }
        }
        None => lines.push("# machine: not recorded".to_string()),
    }
    lines.push(match r.figure.as_ref().and_then(|f| f.value.map(|v| (f, v))) {
        Some((f, value)) => match &f.interval {
            Some(i) => format!(
                "# figure: {} = {value:.2} (95% interval {:.2} to {:.2}, {} measurements)",
                r.metric, i.low, i.high, f.repeats
            ),
            None => format!("# figure: {} = {value:.2} (one measurement)", r.metric),
        },
        None => format!("# figure: {} not measured", r.metric),
    });
    let mut text = lines.join("\n");
    text.push('\n');
    text
}
