//! The charts' layout and text, checked on their SVG.

use super::*;

fn list() -> Vec<Bar> {
    vec![
        Bar {
            label: "base".into(),
            value: Some(8.0),
            kind: BarKind::Base,
            note: "8.00 (base)".into(),
            interval: None,
            loss: false,
        },
        Bar {
            label: "a".into(),
            value: Some(8968.0),
            kind: BarKind::Adopted,
            note: "8968.00 (adopted)".into(),
            interval: None,
            loss: false,
        },
        Bar {
            label: "b <x>".into(),
            value: None,
            kind: BarKind::Failed,
            note: "failed: out of memory".into(),
            interval: None,
            loss: false,
        },
    ]
}

#[test]
fn charts_are_deterministic_accessible_and_mark_failures_as_text() {
    let ticks = |v: f64| format!("{v:.0}");
    let one = bars("t", "tok/s", &list(), &ticks);
    assert_eq!(one, bars("t", "tok/s", &list(), &ticks));
    for svg in [&one.wide, &one.narrow] {
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert!(svg.contains(r#"role="img""#) && svg.contains("<title>t</title>"), "{svg}");
        assert!(
            svg.contains("<desc>base: 8.00 (base); a: 8968.00 (adopted); b &lt;x&gt;: failed: out of memory</desc>")
        );
        assert!(svg.contains("failed: out of memory"));
        assert!(!svg.contains("<x>"), "study text is escaped");
        // One filled bar for the adopted variant, one dashed for the base.
        assert_eq!(svg.matches(&format!(r#"fill="{ADOPTED}""#)).count(), 1, "{svg}");
        assert_eq!(svg.matches("stroke-dasharray").count(), 1, "{svg}");
    }
}

#[test]
fn the_axis_is_fitted_to_the_largest_value() {
    let ticks = |v: f64| format!("{v:.0}");
    let chart = bars("t", "tok/s", &list(), &ticks);
    // 8968 ends on a tick of 10000 at most, not three times the bar.
    assert!(chart.wide.contains(">10000</text>") || chart.wide.contains(">9500</text>"), "{}", chart.wide);
    assert!(!chart.wide.contains(">12000</text>") && !chart.wide.contains(">27000</text>"));
    assert_eq!(axis(8968.0), (10000.0, 2000.0));
    // No axis runs a step past its top bar (14451 once ended at 20000).
    assert_eq!(axis(14451.05), (15000.0, 5000.0));
    assert_eq!(axis(10000.0), (10000.0, 2000.0));
    for max in [1.28, 7.0, 14451.05, 26433.15, 10001.0, 99.0] {
        let (end, step) = axis(max);
        assert!(end >= max && end - step < max, "{max}: {end} {step}");
    }
    assert_eq!([0.0, 0.5, 1.0, 1.5, 2.25].map(tick_decimals), [0, 1, 0, 1, 2]);
}

fn bar(label: &str, value: f64, kind: BarKind, note: &str, loss: bool) -> Bar {
    Bar { label: label.into(), value: Some(value), kind, note: note.into(), interval: None, loss }
}

#[test]
fn paired_bars_have_a_legend_whole_labels_and_a_marked_loss() {
    let ticks = |v: f64| format!("{v:.0}");
    let long = "Generation-heavy (1K input / 2K output) with a name longer than its column";
    let groups = [
        Group {
            label: long.into(),
            bars: vec![
                bar("Baseline", 2268.18, BarKind::Plain, "2268.18", false),
                bar("Optimized", 2267.33, BarKind::Optimized, "2267.33 (▼ −0.04%)", false),
            ],
        },
        Group {
            label: "ShareGPT".into(),
            bars: vec![
                bar("Baseline", 6040.94, BarKind::Plain, "6040.94", false),
                bar("Optimized", 2845.48, BarKind::Optimized, "2845.48 (▼ −52.90%)", true),
            ],
        },
    ];
    let chart = pairs("t", "Total TPS (tok/s)", ("Baseline", "Optimized"), &groups, &ticks);
    for svg in [&chart.wide, &chart.narrow] {
        // The legend names each bar once, and no row label is cut.
        assert_eq!(svg.matches(">Baseline</text>").count(), 1, "{svg}");
        assert_eq!(svg.matches(">Optimized</text>").count(), 1, "{svg}");
        assert!(!svg.contains('…'), "{svg}");
        // The loss is written after its bar, in red.
        assert!(svg.contains(&format!(r#"fill="{FAILED}">2845.48 (▼ −52.90%)</text>"#)), "{svg}");
        // The description still tells the bars apart.
        assert!(svg.contains("ShareGPT · Optimized: 2845.48 (▼ −52.90%)"), "{svg}");
    }
}

/// The number of an attribute of an SVG element's text.
fn attr(tag: &str, name: &str) -> f64 {
    let start = tag.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
    tag[start..start + tag[start..].find('"').unwrap()].parse().unwrap()
}

#[test]
fn the_progression_line_never_crosses_a_value() {
    let f = |v: f64| format!("{v:.2}");
    for values in [[5481.9, 6487.5, 7011.2, 13761.0, 14451.1, 17525.8], [9000.0, 3000.0, 9000.0, 3000.0, 9000.0, 100.0]]
    {
        let points: Vec<(String, f64)> = values.iter().enumerate().map(|(i, v)| (format!("s{i}"), *v)).collect();
        let wide = progression("p", "tok/s", &points, &[], &f, &f).wide;
        let line = &wide[wide.find("<polyline points=\"").unwrap() + 18..];
        let line: Vec<(f64, f64)> = line[..line.find('"').unwrap()]
            .split(' ')
            .map(|p| p.split_once(',').map(|(x, y)| (x.parse().unwrap(), y.parse().unwrap())).unwrap())
            .collect();
        for tag in wide.split("<text").filter(|t| t.contains("paint-order")) {
            let (x, y) = (attr(tag, "x"), attr(tag, "y"));
            let text = &tag[tag.find('>').unwrap() + 1..tag.find("</text>").unwrap()];
            let w = text_width(text, FONT);
            let left = if tag.contains("\"start\"") {
                x
            } else if tag.contains("\"end\"") {
                x - w
            } else {
                x - w / 2.0
            };
            for pair in line.windows(2) {
                for k in 0..=200 {
                    let t = k as f64 / 200.0;
                    let (px, py) = (pair[0].0 + (pair[1].0 - pair[0].0) * t, pair[0].1 + (pair[1].1 - pair[0].1) * t);
                    let inside = px > left && px < left + w && py > y - FONT && py < y + 2.0;
                    assert!(!inside, "the line crosses {text} at ({px:.0}, {py:.0})");
                }
            }
        }
    }
}

#[test]
fn cjk_text_is_measured_square_and_wraps_between_characters() {
    assert_eq!(text_width("吞吐量", 12.0), 36.0);
    assert!((text_width("TP 8", 12.0) - 4.0 * 12.0 * 0.58).abs() < 1e-9);
    // Between characters, never before a closing mark or after an opening one.
    let lines = wrap("各阶段以相同的提示词测量（并发数固定），结果见下表。", 7.0 * 12.0, 12.0, 5);
    assert!(lines.len() > 2, "{lines:?}");
    for l in &lines {
        assert!(text_width(l, 12.0) <= 7.0 * 12.0, "{l} is too wide");
        assert!(!l.starts_with(['，', '）', '。']) && !l.ends_with('（'), "{lines:?}");
        assert!(!l.contains('…'), "{lines:?}");
    }
    assert_eq!(lines.concat(), "各阶段以相同的提示词测量（并发数固定），结果见下表。");
    // Latin words inside keep their spaces and are not broken.
    let lines = wrap("SGLang 中 CUDA Graph 的最大批大小", 8.0 * 12.0, 12.0, 3);
    assert_eq!(lines.join("|"), "SGLang 中 CUDA|Graph 的最大批|大小", "{lines:?}");
    let lines = wrap("a b c d e f", 3.0 * 12.0 * 0.58, 12.0, 2);
    assert_eq!(lines, ["a b", "c …"]);
    let cut = fit("推理服务优化指南推理服务优化指南", 5.0 * 12.0, 12.0);
    assert!(cut.ends_with('…') && text_width(&cut, 12.0) <= 5.0 * 12.0, "{cut}");
}

#[test]
fn cjk_charts_name_fonts_with_their_glyphs() {
    let chart = bars("t", "tok/s", &list(), &|v: f64| format!("{v:.0}"));
    assert_eq!(chart.clone().localized("en"), chart);
    let zh = chart.clone().localized("zh");
    assert!(zh.wide.contains("font-family: system-ui, 'PingFang SC', 'Microsoft YaHei', 'Noto Sans CJK SC'"));
    assert!(zh.narrow.contains("'Noto Sans CJK SC'"));
    let ja = chart.localized("ja");
    assert!(
        ja.wide.contains("'Hiragino Sans'")
            && ja.wide.contains("'Yu Gothic'")
            && ja.wide.contains("'Noto Sans CJK JP'")
    );
    assert!(!ja.wide.contains("SC'"));
}

#[test]
fn progression_labels_wrap_within_their_slot() {
    let points: Vec<(String, f64)> =
        (0..8).map(|i| (format!("A rather long stage title number {i}"), 1000.0 * (i + 1) as f64)).collect();
    let f = |v: f64| format!("{v:.2}");
    let chart = progression("p", "tok/s", &points, &[], &f, &f);
    let slot = (WIDE - MARGIN - (MARGIN + 70.0) - 10.0) / 8.0;
    for line in chart.wide.split("<text").skip(1) {
        let text = &line[line.find('>').unwrap() + 1..line.find("</text>").unwrap()];
        if text.starts_with("A rather") || text.starts_with("title") || text.starts_with("long") {
            assert!(text_width(text, FONT) <= slot, "{text} is wider than its slot");
        }
    }
    assert!(chart.narrow.contains("<desc>"));
}

/// The boxes of the labels of `svg` whose text starts with `prefix`, from their position, anchor
/// and the width perflab measures text with.
fn label_boxes(svg: &str, prefix: &str) -> Vec<(f64, f64, f64, f64)> {
    svg.split("<text ")
        .skip(1)
        .filter_map(|t| {
            let (tag, rest) = t.split_once('>')?;
            let text = rest.split("</text>").next()?;
            if !text.starts_with(prefix) {
                return None;
            }
            let (x, y) = (attr(&format!(" {tag}"), "x"), attr(&format!(" {tag}"), "y"));
            let w = text_width(text, FONT);
            let left = if tag.contains("text-anchor=\"end\"") { x - w } else { x };
            Some((left, left + w, y - FONT, y))
        })
        .collect()
}

#[test]
fn the_labels_of_two_rings_at_one_height_do_not_overprint_each_other_nor_the_limit() {
    let ticks = |v: f64| format!("{v}");
    let series = |optimized: bool, points: Vec<(f64, f64)>, index: usize, load: u32| xy::Series {
        name: if optimized { "Optimized" } else { "Baseline" }.into(),
        points,
        optimized,
        line: true,
        marked: Some(xy::Mark { index, label: format!("boundary: {load}"), bound: false }),
        labels: Vec::new(),
    };
    // A baseline ring left of the middle and an optimized one right of it, at the same height,
    // under a limit close above them: the left one's label runs right, the right one's left.
    let drawn = [
        series(false, vec![(4.0, 3.0), (16.0, 6.0), (32.0, 5.9)], 1, 16),
        series(true, vec![(4.0, 2.3), (65.0, 6.1), (96.0, 5.9)], 1, 65),
    ];
    let x = xy::AxisLabels { name: "Requests at once", ticks: &ticks, from_zero: true };
    let y = xy::AxisLabels { name: "mean TPOT (ms)", ticks: &ticks, from_zero: true };
    let chart = xy::xy("mean TPOT against load", x, y, &drawn, Some((7.0, "SLO: mean TPOT 7 ms")));
    for svg in [&chart.wide, &chart.narrow] {
        let mut boxes = label_boxes(svg, "boundary: ");
        assert_eq!(boxes.len(), 2, "{svg}");
        boxes.extend(label_boxes(svg, "SLO: "));
        for (i, a) in boxes.iter().enumerate() {
            for b in &boxes[i + 1..] {
                let overlap = a.0 < b.1 && b.0 < a.1 && a.2 < b.3 && b.2 < a.3;
                assert!(!overlap, "{a:?} and {b:?} overprint each other in {svg}");
            }
        }
    }
}
