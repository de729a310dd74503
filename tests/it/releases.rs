//! A study kept across three releases of its engine (the bundled `examples/sim-trend`, made by
//! its `make.sh`): its page shows the answer across them in every locale, with a chart, a table
//! and what each release changed, and `analyze` carries the same.

use crate::common;

use common::{perflab, root};

fn example() -> String {
    root().join("examples/sim-trend").display().to_string()
}

#[test]
fn the_trend_example_s_page_shows_its_three_releases_in_every_locale() {
    let dir = example();
    let (code, page, err) = perflab(&["report", &dir]);
    assert_eq!(code, 0, "{err}");
    let section = &page[page.find("## Across engine releases").unwrap_or_else(|| panic!("{page}"))..];
    let section = &section[..section.find("## Experimental setup").unwrap()];
    assert!(section.contains("measured on 3 releases of its engines"), "{section}");
    assert!(section.contains("| Release | Measured | Baseline | Optimized | Gain |"), "{section}");
    for release in ["Sim 1.0", "Sim 1.1", "Sim 1.2"] {
        assert!(section.contains(&format!("| {release} | 20")), "{release}: {section}");
    }
    assert!(section.contains("### What Sim 1.1 changed") && section.contains("### What Sim 1.2 changed"), "{section}");
    assert!(!section.contains("### What Sim 1.0 changed"), "the first release changed nothing: {section}");
    for (locale, heading) in
        [("tr", "Motor sürümleri boyunca"), ("zh", "各引擎版本间的变化"), ("ja", "エンジンのリリースごとの推移")]
    {
        let (code, page, err) = perflab(&["report", &dir, "--locale", locale]);
        assert_eq!(code, 0, "{err}");
        assert!(page.contains(&format!("## {heading}")) && page.contains("| Sim 1.2 |"), "{locale}: {page}");
    }

    // The chart lies beside a page written with --out, a line a side, a point a release.
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("page");
    let (code, _, err) = perflab(&["report", &dir, "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(out.join("sim-trend.md")).unwrap();
    assert!(page.contains("sim-trend/releases.svg"), "{page}");
    let svg = std::fs::read_to_string(out.join("sim-trend/releases.svg")).unwrap();
    assert!(svg.contains("<desc>Baseline: Sim 1.0 → ") && svg.contains("; Optimized: Sim 1.0 → "), "{svg}");

    // analyze: the releases oldest first, each figure the analysis of the study as it stood then.
    let (code, json, _) = perflab(&["analyze", &dir]);
    assert_eq!(code, 0);
    let analysis: serde_json::Value = serde_json::from_str(&json).unwrap();
    let releases = analysis["releases"]["releases"].as_array().unwrap();
    let versions: Vec<&str> = releases.iter().map(|r| r["versions"][0]["version"].as_str().unwrap()).collect();
    assert_eq!(versions, ["1.0", "1.1", "1.2"]);
    assert!(releases[0]["changes"].is_null() && releases[2]["changes"]["stages"].is_array());
    assert_eq!(releases[2]["optimized"], analysis["optimized_measure"]["value"], "the last release is the page's own");
    // Each upgrade made the engine faster: the figures follow.
    let optimized: Vec<f64> = releases.iter().map(|r| r["optimized"].as_f64().unwrap()).collect();
    assert!(optimized.windows(2).all(|w| w[1] > w[0]), "{optimized:?}");
}

/// One release as its raw runs recorded it: the version, the baseline's (`batch/seqs-8`) total
/// throughput as the benchmark printed it, the optimized configuration's (the FP8 cache's when it
/// beats the batch stage's winner by more than the study's 5% noise threshold, else that winner's),
/// the variant the KV stage left in force, and the optimized run's engine command and
/// environment.
struct Raw {
    version: String,
    baseline: String,
    optimized: String,
    kv: &'static str,
    command: Vec<String>,
    env: serde_json::Value,
}

fn raw_releases() -> Vec<Raw> {
    let runs = root().join("examples/sim-trend/runs");
    let read = |variant: &str, attempt: u32| {
        let dir = runs.join(variant).join("attempts").join(attempt.to_string());
        let text = std::fs::read_to_string(dir.join("chat.txt")).unwrap();
        let line = text.lines().find(|l| l.starts_with("Total token throughput (tok/s):")).unwrap();
        let figure = line.rsplit(':').next().unwrap().trim().to_string();
        let manifest: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("chat.manifest.json")).unwrap()).unwrap();
        (figure, manifest)
    };
    (1..=3)
        .map(|attempt| {
            let (baseline, base) = read("batch/seqs-8", attempt);
            let (batch, batch_run) = read("batch/seqs-32", attempt);
            let (fp8, fp8_run) = read("kv/fp8", attempt);
            for m in [&batch_run, &fp8_run] {
                assert_eq!(base["engine_version"], m["engine_version"]);
            }
            let fp8_wins = fp8.parse::<f64>().unwrap() > batch.parse::<f64>().unwrap() * 1.05;
            let (optimized, manifest, kv) =
                if fp8_wins { (fp8, fp8_run, "kv/fp8") } else { (batch, batch_run, "batch/seqs-32") };
            Raw {
                version: manifest["engine_version"].as_str().unwrap().to_string(),
                baseline,
                optimized,
                kv,
                command: manifest["command"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|w| w.as_str().unwrap().to_string())
                    .collect(),
                env: manifest["env"].clone(),
            }
        })
        .collect()
}

/// `figure` (as the benchmark printed it, two decimals) as `locale` writes a number.
fn number(locale: &str, figure: &str) -> String {
    let (int, frac) = figure.split_once('.').unwrap();
    let (group, point) = match locale {
        "tr" => (".", ","),
        "en" => ("", "."),
        _ => (",", "."),
    };
    let digits: Vec<char> = int.chars().collect();
    let mut grouped = String::new();
    for (i, d) in digits.iter().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push_str(group);
        }
        grouped.push(*d);
    }
    format!("{grouped}{point}{frac}")
}

/// A gain in percent as `locale` writes it in a table (`+210.79%`, Turkish `+%210,79`).
fn percent(locale: &str, after: &str, before: &str) -> String {
    let p = (after.parse::<f64>().unwrap() / before.parse::<f64>().unwrap() - 1.0) * 100.0;
    let text = number(locale, &format!("{p:.2}"));
    if locale == "tr" { format!("+%{text}") } else { format!("+{text}%") }
}

/// The batch stage's title in `locale`.
fn cells_stage(locale: &str) -> &'static str {
    if locale == "tr" { "Toplu iş boyutu" } else { "Batch size" }
}

#[test]
fn diff_releases_shows_each_release_as_its_runs_measured_it() {
    let dir = example();
    let raw = raw_releases();
    assert_eq!(raw.iter().map(|r| r.version.as_str()).collect::<Vec<_>>(), ["1.0", "1.1", "1.2"]);
    // The history the example was made to show: the FP8 cache wins its stage on 1.2 alone.
    assert_eq!(raw.iter().map(|r| r.kv).collect::<Vec<_>>(), ["batch/seqs-32", "batch/seqs-32", "kv/fp8"]);

    // JSON: each figure the raw run's, the winners those the raw figures give, each command as
    // recorded; the same numbers as `analyze` carries (one place decides them).
    let (code, json, err) = perflab(&["diff", &dir, "--releases", "--json"]);
    assert_eq!(code, 0, "{err}");
    let view: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!((view["study"].as_str(), view["history"].as_u64()), (Some("sim-trend"), Some(3)), "{json}");
    let (code, analysis, _) = perflab(&["analyze", &dir]);
    assert_eq!(code, 0);
    let analysis: serde_json::Value = serde_json::from_str(&analysis).unwrap();
    let releases = view["releases"].as_array().unwrap();
    assert_eq!(releases.len(), 3);
    for (i, (r, raw)) in releases.iter().zip(&raw).enumerate() {
        assert_eq!(r["versions"][0]["version"], raw.version.as_str());
        assert_eq!(r["baseline"].as_f64().unwrap(), raw.baseline.parse::<f64>().unwrap(), "{}", raw.version);
        assert_eq!(r["optimized"].as_f64().unwrap(), raw.optimized.parse::<f64>().unwrap(), "{}", raw.version);
        let gain = (raw.optimized.parse::<f64>().unwrap() / raw.baseline.parse::<f64>().unwrap() - 1.0) * 100.0;
        assert!((r["gain"].as_f64().unwrap() - gain).abs() < 1e-9, "{}", raw.version);
        assert_eq!(r["winners"][0]["adopted"], "batch/seqs-32", "{}", raw.version);
        assert_eq!(r["winners"][1]["adopted"], raw.kv, "{}", raw.version);
        assert_eq!(r["ran"]["run"], format!("{}/chat", raw.kv));
        assert_eq!(r["ran"]["engine"], serde_json::json!(raw.command));
        assert_eq!(r["ran"]["env"], raw.env);
        for key in ["baseline", "optimized", "gain", "winners", "changes"] {
            assert_eq!(r[key], analysis["releases"]["releases"][i][key], "{key} of {}", raw.version);
        }
    }
    assert!(releases[0]["changes"].is_null() && releases[1]["changes"]["profiles"].is_array());

    // The text, in two locales: every figure of the table and of each release's changes is the
    // raw runs' as the locale writes it, and each release's command is the one its run started.
    for (locale, changed, ran, batch, fp8) in [
        (
            "en",
            "## What Sim {} changed",
            "The optimized configuration on Sim {} ran:",
            "32 sequences",
            "added `--kv-cache-dtype fp8`",
        ),
        (
            "tr",
            "## Sim {} sürümünün getirdikleri",
            "Sim {} sürümünde optimize edilmiş yapılandırmanın çalıştırdığı komut:",
            "32 dizi",
            "eklenen: `--kv-cache-dtype fp8`",
        ),
    ] {
        let (code, text, err) = perflab(&["diff", &dir, "--releases", "--locale", locale]);
        assert_eq!(code, 0, "{err}");
        // For a terminal: the gains keep their marks, not the page's markup.
        assert!(text.contains("▲ +") && !text.contains("<span"), "{text}");
        for (i, r) in raw.iter().enumerate() {
            let row = text
                .lines()
                .find(|l| l.starts_with(&format!("| Sim {} |", r.version)))
                .unwrap_or_else(|| panic!("{text}"));
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            assert_eq!(cells[3], number(locale, &r.baseline), "{locale}: {row}");
            assert_eq!(cells[4], number(locale, &r.optimized), "{locale}: {row}");
            assert!(cells[5].contains(&percent(locale, &r.optimized, &r.baseline)), "{locale}: {row}");
            assert_eq!(cells[6], batch, "{locale}: {row}");
            let kv = if r.kv == "kv/fp8" { "FP8".to_string() } else { format!("{} › {batch}", cells_stage(locale)) };
            assert_eq!(cells[7], kv, "{locale}: {row}");
            let label = ran.replace("{}", &r.version);
            let at = text.find(&label).unwrap_or_else(|| panic!("{locale}: no {label}: {text}"));
            let block = &text[at..][..text[at..].find("\n```\n").unwrap()];
            let flags = r.command[5..].join(" ");
            assert!(flags.contains("--sim-fp8-kv-overhead") && flags.contains("--max-num-seqs 32"), "{flags}");
            assert!(
                block.contains(&format!("export PERFLAB_SIM_VERSION={}", r.version)) && block.contains(&flags),
                "{locale}: {block}"
            );
            let heading = changed.replace("{}", &r.version);
            if i == 0 {
                assert!(!text.contains(&heading), "{locale}: the first release changed nothing: {text}");
                continue;
            }
            let section = &text[text.find(&heading).unwrap_or_else(|| panic!("{locale}: {text}"))..];
            let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
            let before = &raw[i - 1];
            // The engine's flags the optimized runs started with, as their records have them.
            let value = |cmd: &[String], flag: &str| cmd[cmd.iter().position(|w| w == flag).unwrap() + 1].clone();
            let decode = |cmd: &[String]| format!("`--sim-decode-ms {}`", value(cmd, "--sim-decode-ms"));
            let moved = format!("{} → {}", decode(&before.command), decode(&r.command));
            assert!(section.contains(&moved), "{locale}: {moved}: {section}");
            // The release that made the FP8 cache win says that the command gained its flag.
            assert_eq!(section.contains(fp8), r.kv == "kv/fp8", "{locale}: {section}");
            for (b, a) in [(&before.baseline, &r.baseline), (&before.optimized, &r.optimized)] {
                let unit = if locale == "tr" { "token/sn" } else { "tok/s" };
                let moved = format!("{} {unit} → {} {unit}", number(locale, b), number(locale, a));
                assert!(section.contains(&moved), "{locale}: {moved}: {section}");
                assert!(section.contains(&percent(locale, a, b)), "{locale}: {section}");
            }
        }
    }

    // A span: the releases from 1.1 on, the first of them with what it changed from 1.0.
    let (code, text, err) = perflab(&["diff", &dir, "--releases=1.1..", "--locale", "zh"]);
    assert_eq!(code, 0, "{err}");
    assert!(!text.contains("| Sim 1.0 |") && text.contains("| Sim 1.1 |") && text.contains("| Sim 1.2 |"), "{text}");
    assert!(text.contains("此处列出：Sim 1.1、Sim 1.2。") || text.contains("此处列出：Sim 1.1 和 Sim 1.2。"), "{text}");
    let moved = format!("{} tok/s → {} tok/s", number("zh", &raw[0].optimized), number("zh", &raw[1].optimized));
    assert!(text.contains("## Sim 1.1 带来的变化") && text.contains(&moved), "{moved}: {text}");
}

#[test]
fn diff_releases_refuses_a_single_release_and_an_unknown_version() {
    let dir = example();
    for (range, says) in [
        (
            "--releases=1.5",
            "no release of the study's history was measured with version `1.5`; its releases are 1.0, 1.1, 1.2",
        ),
        ("--releases=1.2..1.0", "version `1.2` was measured after `1.0`"),
    ] {
        let (code, out, err) = perflab(&["diff", &dir, range]);
        assert_eq!(code, 2, "{range}: {out}{err}");
        assert!(out.is_empty() && err.contains(says), "{range}: {err}");
    }
    // A study measured on one release only has nothing to compare: exit 1, as plain `diff`.
    let (code, out, err) = perflab(&["diff", "results/qwen3-30b-a3b-910b", "--releases", "--json"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.is_empty() && err.contains("its history holds one engine release"), "{err}");
    let (code, _, err) = perflab(&["diff", &dir, "--releases", "--since", "HEAD"]);
    assert_eq!(code, 2, "{err}");
    // Plain `diff` on a history of three releases points to the view.
    let (code, _, err) = perflab(&["diff", &dir]);
    assert_eq!(code, 0);
    assert!(err.contains("--releases` shows the answer across all of them"), "{err}");
}
