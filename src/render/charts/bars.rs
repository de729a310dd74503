//! Bar charts: one bar a configuration, bars in groups (a profile's configurations, a pair
//! before and after), and the progression of a search stage by stage.

use super::*;

/// One bar from `x0` over `len` px at `y`, `h` px high, with its note inside its end when it
/// fits there, otherwise after it, moved left (over the bar's end, on a white halo) where it
/// would pass `right`.
fn bar(out: &mut String, b: &Bar, x0: f64, len: f64, y: f64, h: f64, right: f64) {
    let c = color(b.kind);
    if b.value.is_some() {
        if b.kind == BarKind::Base {
            let _ = write!(
                out,
                r##"<rect x="{x0}" y="{y}" width="{:.1}" height="{h}" fill="#eef1f4" stroke="{c}" stroke-width="1.5" stroke-dasharray="5 3"/>"##,
                len.max(1.0)
            );
        } else {
            let _ = write!(out, r#"<rect x="{x0}" y="{y}" width="{:.1}" height="{h}" fill="{c}"/>"#, len.max(1.0));
        }
    }
    if let (Some(v), Some((low, high))) = (b.value, b.interval)
        && v > 0.0
    {
        error_bar(out, (x0 + len * low.max(0.0) / v, x0 + len * high.max(0.0) / v), y + h / 2.0, false);
    }
    let base_line = y + h / 2.0 + FONT * 0.35;
    let inside = b.value.is_some() && b.kind != BarKind::Base && !b.loss && text_width(&b.note, FONT) + 10.0 <= len;
    if inside {
        let _ = write!(
            out,
            r##"<text x="{:.1}" y="{base_line:.1}" text-anchor="end" fill="#ffffff">{}</text>"##,
            x0 + len - 5.0,
            esc(&b.note)
        );
    } else {
        let fill = if b.kind == BarKind::Failed || b.loss { FAILED } else { TEXT };
        let width = text_width(&b.note, FONT);
        let start = if b.kind == BarKind::Base && width + 10.0 <= len { x0 + 5.0 } else { x0 + len + 5.0 };
        if start + width > right {
            let start = (right - width).max(x0);
            let _ = write!(
                out,
                r##"<text x="{start:.1}" y="{base_line:.1}" fill="{fill}" stroke="#ffffff" stroke-width="4" paint-order="stroke">{}</text>"##,
                esc(&b.note)
            );
        } else {
            let _ = write!(out, r#"<text x="{start:.1}" y="{base_line:.1}" fill="{fill}">{}</text>"#, esc(&b.note));
        }
    }
}

/// An error bar from `ends.0` to `ends.1` at `at` (horizontal: along x at height `at`;
/// vertical: along y at `at`), with caps.
fn error_bar(out: &mut String, ends: (f64, f64), at: f64, vertical: bool) {
    let (a, b) = (ends.0.min(ends.1), ends.0.max(ends.1));
    let line = |out: &mut String, (x1, y1, x2, y2): (f64, f64, f64, f64)| {
        let _ = write!(out, r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}"/>"#);
    };
    let _ = write!(out, r#"<g class="error-bar" stroke="{TEXT}" stroke-width="1.5">"#);
    if vertical {
        line(out, (at, a, at, b));
        line(out, (at - 4.0, a, at + 4.0, a));
        line(out, (at - 4.0, b, at + 4.0, b));
    } else {
        line(out, (a, at, b, at));
        line(out, (a, at - 4.0, a, at + 4.0));
        line(out, (b, at - 4.0, b, at + 4.0));
    }
    out.push_str("</g>");
}

/// A description naming every bar and its note.
fn describe(bars: &[Bar]) -> String {
    bars.iter().map(|b| format!("{}: {}", b.label, b.note)).collect::<Vec<_>>().join("; ")
}

/// Bars under one label: one configuration, or a profile's baseline and optimized bars (told
/// apart by the chart's legend, so that no row label is cut to fit).
#[derive(Debug, Clone)]
pub struct Group {
    pub label: String,
    pub bars: Vec<Bar>,
}

/// The legend's entries: a bar kind's colour and its name.
type Legend<'a> = &'a [(&'a str, BarKind)];

/// Horizontal bars, one a configuration, on an axis from zero fitted to the largest value.
pub fn bars(title: &str, axis_name: &str, bars: &[Bar], ticks: &dyn Fn(f64) -> String) -> Chart {
    let groups: Vec<Group> = bars.iter().map(|b| Group { label: b.label.clone(), bars: vec![b.clone()] }).collect();
    grouped(title, axis_name, &groups, &[], ticks)
}

/// The legend's swatches and names from `x`, `y` (the top of the line), breaking to a new line
/// before an entry that would pass `right`; returns the bottom of the last line.
fn legend_lines(out: &mut String, legend: Legend, x: f64, y: f64, right: f64) -> f64 {
    if legend.is_empty() {
        return y;
    }
    let (mut cx, mut cy) = (x, y);
    for (name, kind) in legend {
        let w = 16.0 + text_width(name, FONT) + 14.0;
        if cx > x && cx + w > right {
            (cx, cy) = (x, cy + FONT + 8.0);
        }
        let _ = write!(
            out,
            r#"<rect x="{cx:.1}" y="{:.1}" width="11" height="11" fill="{}"/><text x="{:.1}" y="{:.1}" fill="{TEXT}">{}</text>"#,
            cy + 1.0,
            color(*kind),
            cx + 16.0,
            cy + FONT - 1.0,
            esc(name)
        );
        cx += w;
    }
    cy + FONT + 10.0
}

/// The wrapped lines of a group's label in `width`: at most two, or as many as it has bars.
fn group_label(g: &Group, width: f64) -> Vec<String> {
    wrap(&g.label, width, FONT, g.bars.len().max(2))
}

/// The height of a group in the wide layout: a row a bar, more where its label takes more lines.
fn group_height(g: &Group, lines: usize, row: f64) -> f64 {
    (row * g.bars.len().max(1) as f64).max(lines as f64 * (FONT + 3.0) + 8.0)
}

/// Groups of horizontal bars on an axis from zero fitted to the largest value, with a legend
/// when `legend` names the bars' kinds.
pub fn grouped(title: &str, axis_name: &str, groups: &[Group], legend: Legend, ticks: &dyn Fn(f64) -> String) -> Chart {
    let all: Vec<Bar> = groups
        .iter()
        .flat_map(|g| {
            g.bars.iter().map(move |b| {
                let label = if g.bars.len() > 1 { format!("{} · {}", g.label, b.label) } else { b.label.clone() };
                Bar { label, ..b.clone() }
            })
        })
        .collect();
    let desc = describe(&all);
    let max = all.iter().filter_map(|b| b.value).chain(all.iter().filter_map(|b| b.interval.map(|i| i.1)));
    let (end, step) = axis(max.fold(0.0, f64::max));
    let wide = grouped_wide(title, axis_name, groups, legend, (end, step), ticks, &desc);
    let narrow = grouped_narrow(title, axis_name, groups, legend, end, ticks, &desc);
    Chart { wide, narrow }
}

/// The wide layout: labels in a column left of the bars, the axis with its ticks under them.
fn grouped_wide(
    title: &str,
    axis_name: &str,
    groups: &[Group],
    legend: Legend,
    (end, step): (f64, f64),
    ticks: &dyn Fn(f64) -> String,
    desc: &str,
) -> String {
    let mut wide = String::new();
    let titles = wrap(title, WIDE - 2.0 * MARGIN, TITLE_FONT, 2);
    let label_w = groups.iter().map(|g| text_width(&g.label, FONT)).fold(30.0, f64::max).min(WIDE * 0.45);
    let x0 = MARGIN + label_w + 8.0;
    let plot = WIDE - MARGIN - x0 - 8.0;
    let row = 28.0;
    // Groups of more than one bar stand apart.
    let gap = if groups.iter().any(|g| g.bars.len() > 1) { 8.0 } else { 0.0 };
    let labels: Vec<Vec<String>> = groups.iter().map(|g| group_label(g, label_w)).collect();
    let rows: f64 = groups.iter().zip(&labels).map(|(g, l)| group_height(g, l.len(), row) + gap).sum::<f64>().max(row);
    let legend_h = if legend.is_empty() { 0.0 } else { FONT + 10.0 };
    let top0 = MARGIN + titles.len() as f64 * (TITLE_FONT + 4.0) + 10.0 + legend_h;
    let height = top0 + rows + 46.0;
    open(&mut wide, WIDE, height, title, desc, "wide");
    let top = title_lines(&mut wide, &titles, WIDE);
    let top = legend_lines(&mut wide, legend, x0, top - 4.0, WIDE - MARGIN).max(top);
    let bottom = top + rows;
    let scale = |v: f64| v / end * plot;
    let mut t = 0.0;
    while t <= end + step * 1e-9 {
        let x = x0 + scale(t);
        let _ = write!(wide, r#"<line x1="{x:.1}" y1="{top}" x2="{x:.1}" y2="{bottom}" stroke="{GRID}"/>"#);
        // The last tick's number ends at the chart's edge rather than passing it.
        let label = ticks(t);
        let (tx, anchor) =
            if x + text_width(&label, FONT) / 2.0 > WIDE - MARGIN { (WIDE - 2.0, "end") } else { (x, "middle") };
        let _ = write!(
            wide,
            r#"<text x="{tx:.1}" y="{}" text-anchor="{anchor}" fill="{TEXT}">{}</text>"#,
            bottom + 16.0,
            esc(&label)
        );
        t += step;
    }
    let _ = write!(
        wide,
        r#"<text x="{:.1}" y="{}" text-anchor="middle" fill="{TEXT}">{}</text>"#,
        x0 + plot / 2.0,
        bottom + 34.0,
        esc(axis_name)
    );
    let mut y = top;
    for (g, lines) in groups.iter().zip(&labels) {
        let h = group_height(g, lines.len(), row);
        let first = y + h / 2.0 - (lines.len() as f64 - 1.0) * (FONT + 3.0) / 2.0 + FONT * 0.35;
        for (k, line) in lines.iter().enumerate() {
            let _ = write!(
                wide,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="end" fill="{TEXT}">{}</text>"#,
                x0 - 8.0,
                first + k as f64 * (FONT + 3.0),
                esc(line)
            );
        }
        // The bars centred in the group's height.
        let bars_top = y + (h - row * g.bars.len() as f64) / 2.0;
        for (i, b) in g.bars.iter().enumerate() {
            let len = b.value.map_or(0.0, scale);
            bar(&mut wide, b, x0, len, bars_top + row * i as f64 + 5.0, row - 10.0, WIDE - MARGIN);
        }
        y += h + gap;
    }
    let _ = write!(wide, r#"<line x1="{x0}" y1="{top}" x2="{x0}" y2="{bottom}" stroke="{TEXT}"/></svg>"#);
    wide
}

/// The narrow layout: each group's label on its own lines above its bars, the axis's range
/// in words under them.
fn grouped_narrow(
    title: &str,
    axis_name: &str,
    groups: &[Group],
    legend: Legend,
    end: f64,
    ticks: &dyn Fn(f64) -> String,
    desc: &str,
) -> String {
    let mut narrow = String::new();
    let titles = wrap(title, NARROW - 2.0 * MARGIN, TITLE_FONT, 3);
    let plot = NARROW - 2.0 * MARGIN;
    let (line_h, bar_h, bar_step) = (FONT + 3.0, 20.0, 24.0);
    let labels: Vec<Vec<String>> = groups.iter().map(|g| group_label(g, plot)).collect();
    let group_h = |lines: usize, bars: usize| lines as f64 * line_h + 3.0 + bar_step * bars.max(1) as f64 + 2.0;
    let rows: f64 = groups.iter().zip(&labels).map(|(g, l)| group_h(l.len(), g.bars.len())).sum::<f64>().max(44.0);
    // The legend's height, drawn into a scratch buffer to count its lines.
    let legend_h = legend_lines(&mut String::new(), legend, MARGIN, 0.0, NARROW - MARGIN);
    let top0 = MARGIN + titles.len() as f64 * (TITLE_FONT + 4.0) + 10.0 + legend_h;
    let height = top0 + rows + 24.0;
    open(&mut narrow, NARROW, height, title, desc, "narrow");
    let top = title_lines(&mut narrow, &titles, NARROW);
    let mut y = legend_lines(&mut narrow, legend, MARGIN, top - 4.0, NARROW - MARGIN).max(top);
    for (g, lines) in groups.iter().zip(&labels) {
        for (k, line) in lines.iter().enumerate() {
            let _ = write!(
                narrow,
                r#"<text x="{MARGIN}" y="{:.1}" fill="{TEXT}">{}</text>"#,
                y + FONT + k as f64 * line_h,
                esc(line)
            );
        }
        let bars_top = y + lines.len() as f64 * line_h + 3.0;
        for (i, b) in g.bars.iter().enumerate() {
            let len = b.value.map_or(0.0, |v| v / end * plot);
            bar(&mut narrow, b, MARGIN, len, bars_top + bar_step * i as f64, bar_h, NARROW - MARGIN);
        }
        y += group_h(lines.len(), g.bars.len());
    }
    let _ = write!(
        narrow,
        r#"<text x="{MARGIN}" y="{:.1}" fill="{TEXT}">{}</text></svg>"#,
        y + 10.0,
        esc(&format!("{axis_name}: 0 – {}", ticks(end)))
    );
    narrow
}

/// Two bars a group (baseline and optimized), one group a profile, told apart by a legend.
pub fn pairs(title: &str, axis: &str, legend: (&str, &str), groups: &[Group], ticks: &dyn Fn(f64) -> String) -> Chart {
    grouped(title, axis, groups, &[(legend.0, BarKind::Plain), (legend.1, BarKind::Optimized)], ticks)
}

/// Where the value of point `i` of a progression goes, drawn at `(x, y)` in a plot whose top is
/// `top`: where the line is not, above its point when neither neighbour is higher and there is
/// room under the title, below on the side the line does not come from otherwise. The text's
/// position and anchor.
fn value_place(points: &[(String, f64)], i: usize, (x, y): (f64, f64), top: f64) -> (f64, f64, &'static str) {
    let v = points[i].1;
    let higher = |j: Option<usize>| j.and_then(|j| points.get(j)).is_some_and(|p| p.1 > v);
    let (first, last) = (i == 0, i + 1 == points.len());
    match (higher(i.checked_sub(1)), higher(Some(i + 1))) {
        (false, false) if y - 10.0 - FONT >= top - 4.0 => (x, y - 10.0, "middle"),
        // A peak at the top of the plot: below it, away from the line.
        (false, false) if last && !first => (x + 6.0, y + 18.0, "start"),
        (false, false) if first && !last => (x - 6.0, y + 18.0, "end"),
        (false, false) => (x, y + 20.0, "middle"),
        (false, true) => (x + 6.0, y + 18.0, "start"),
        (true, false) => (x - 6.0, y + 18.0, "end"),
        (true, true) => (x, y + 20.0, "middle"),
    }
}

/// A line through the objective after each adopted stage, from the baseline to the final
/// configuration (wide); the same steps as bars (narrow).
pub fn progression(
    title: &str,
    axis_name: &str,
    points: &[(String, f64)],
    intervals: &[Option<(f64, f64)>],
    format: &dyn Fn(f64) -> String,
    ticks: &dyn Fn(f64) -> String,
) -> Chart {
    let interval = |i: usize| intervals.get(i).copied().flatten();
    let list: Vec<Bar> = points
        .iter()
        .enumerate()
        .map(|(i, (label, v))| Bar {
            label: label.clone(),
            value: Some(*v),
            kind: if i == 0 { BarKind::Plain } else { BarKind::Optimized },
            note: format(*v),
            interval: interval(i),
            loss: false,
        })
        .collect();
    let narrow = bars(title, axis_name, &list, ticks).narrow;
    let desc = describe(&list);

    let mut wide = String::new();
    let titles = wrap(title, WIDE - 2.0 * MARGIN, TITLE_FONT, 2);
    let n = points.len().max(1);
    let highest = points.iter().map(|p| p.1).chain((0..points.len()).filter_map(|i| interval(i).map(|x| x.1)));
    let (end, step) = axis(highest.fold(0.0, f64::max));
    let x0 = MARGIN + 70.0;
    let plot_w = WIDE - MARGIN - x0 - 10.0;
    let slot = plot_w / n as f64;
    let top0 = MARGIN + titles.len() as f64 * (TITLE_FONT + 4.0) + 10.0;
    let plot_h = 260.0;
    let height = top0 + plot_h + 3.0 * (FONT + 3.0) + 14.0;
    open(&mut wide, WIDE, height, title, &desc, "wide");
    let top = title_lines(&mut wide, &titles, WIDE);
    let bottom = top + plot_h;
    let y_of = |v: f64| bottom - v / end * plot_h;
    let x_of = |i: usize| x0 + slot * (i as f64 + 0.5);
    y_grid(&mut wide, (x0, x0 + plot_w), (0.0, end, step), &y_of, ticks);
    let _ = write!(
        wide,
        r#"<text transform="translate({MARGIN} {:.1}) rotate(-90)" x="0" y="{FONT}" text-anchor="middle" fill="{TEXT}">{}</text>"#,
        (top + bottom) / 2.0,
        esc(axis_name)
    );
    let path: Vec<String> =
        points.iter().enumerate().map(|(i, p)| format!("{:.1},{:.1}", x_of(i), y_of(p.1))).collect();
    let _ =
        write!(wide, r#"<polyline points="{}" fill="none" stroke="{OPTIMIZED}" stroke-width="2"/>"#, path.join(" "));
    for (i, (label, v)) in points.iter().enumerate() {
        let (x, y) = (x_of(i), y_of(*v));
        if let Some((low, high)) = interval(i) {
            error_bar(&mut wide, (y_of(low.max(0.0)), y_of(high.max(0.0))), x, true);
        }
        let _ = write!(wide, r#"<circle cx="{x:.1}" cy="{y:.1}" r="4" fill="{OPTIMIZED}"/>"#);
        // A white halo keeps the value legible where a steep line passes close.
        let (tx, ty, anchor) = value_place(points, i, (x, y), top);
        let _ = write!(
            wide,
            r##"<text x="{tx:.1}" y="{ty:.1}" text-anchor="{anchor}" fill="{TEXT}" stroke="#ffffff" stroke-width="4" paint-order="stroke">{}</text>"##,
            esc(&format(*v))
        );
        for (k, line) in wrap(label, slot - 6.0, FONT, 3).iter().enumerate() {
            let _ = write!(
                wide,
                r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle" fill="{TEXT}">{}</text>"#,
                bottom + 16.0 + k as f64 * (FONT + 3.0),
                esc(line)
            );
        }
    }
    let _ =
        write!(wide, r#"<line x1="{x0}" y1="{bottom}" x2="{:.1}" y2="{bottom}" stroke="{TEXT}"/></svg>"#, x0 + plot_w);
    Chart { wide, narrow }
}
