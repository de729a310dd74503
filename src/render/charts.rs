//! SVG charts, written by hand so that every byte depends on the input alone. Each chart comes
//! in two layouts: a wide one (760 px, labels beside the bars) and a narrow one (360 px, labels
//! above the bars) that a phone shows at its natural size, so no text is drawn below 12 px.
//! Text widths are estimated from the font size (browsers draw with their own sans-serif).
//! Every chart is an image to assistive technology (`role="img"`) with a title and a
//! description that name its numbers.

use std::fmt::Write;

const FAMILY: &str = "sans-serif";
pub const WIDE: f64 = 760.0;
pub const NARROW: f64 = 360.0;
const MARGIN: f64 = 10.0;
const FONT: f64 = 12.0;
const TITLE_FONT: f64 = 15.0;

const PLAIN: &str = "#7a8ca6";
const ADOPTED: &str = "#1f7a36";
const DOUBTFUL: &str = "#b5780f";
const FAILED: &str = "#b42318";
const OPTIMIZED: &str = "#1f5fa8";
const BASE: &str = "#5b6670";
const TEXT: &str = "#1d2329";
const GRID: &str = "#d8dee4";

/// How a bar is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarKind {
    Plain,
    /// The configuration the stage builds on: outlined and dashed.
    Base,
    /// The variant the stage adopted.
    Adopted,
    /// The optimized configuration (beside the baseline on the comparison chart).
    Optimized,
    /// Measured, but not to be trusted (lost requests, cut off).
    Doubtful,
    /// Not measured: no bar, the note says why.
    Failed,
}

#[derive(Debug, Clone)]
pub struct Bar {
    pub label: String,
    pub value: Option<f64>,
    pub kind: BarKind,
    /// Printed at the end of the bar (the value and its mark, or why there is none).
    pub note: String,
    /// The value's 95% confidence interval (low, high), drawn as an error bar.
    pub interval: Option<(f64, f64)>,
    /// Worse than the bar it is compared with: its note (with the ▼ change) is written after
    /// the bar, in the colour of a failure.
    pub loss: bool,
}

/// A chart in both layouts.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    pub wide: String,
    pub narrow: String,
}

/// The fonts a chart in `locale` asks for: where the language is written in CJK characters,
/// the system's interface font first, then fonts that have the language's own forms of them on
/// macOS, Windows and Linux, so that a Japanese chart does not borrow Chinese glyphs.
pub fn font_family(locale: &str) -> &'static str {
    let lower = locale.to_ascii_lowercase();
    let mut parts = lower.split(['-', '_']);
    match (parts.next(), parts.next()) {
        (Some("zh"), Some("tw" | "hk" | "mo" | "hant")) => {
            "system-ui, 'PingFang TC', 'Microsoft JhengHei', 'Noto Sans CJK TC', 'Source Han Sans TC', sans-serif"
        }
        (Some("zh"), _) => {
            "system-ui, 'PingFang SC', 'Microsoft YaHei', 'Noto Sans CJK SC', 'Source Han Sans SC', sans-serif"
        }
        (Some("ja"), _) => {
            "system-ui, 'Hiragino Sans', 'Hiragino Kaku Gothic ProN', 'Yu Gothic', Meiryo, 'Noto Sans CJK JP', sans-serif"
        }
        (Some("ko"), _) => "system-ui, 'Apple SD Gothic Neo', 'Malgun Gothic', 'Noto Sans CJK KR', sans-serif",
        _ => FAMILY,
    }
}

impl Chart {
    /// The chart for a page in `locale`, its text in [`font_family`]'s fonts.
    pub fn localized(self, locale: &str) -> Chart {
        let family = font_family(locale);
        if family == FAMILY {
            return self;
        }
        let (from, to) = (format!("style=\"font-family: {FAMILY};"), format!("style=\"font-family: {family};"));
        Chart { wide: self.wide.replacen(&from, &to, 1), narrow: self.narrow.replacen(&from, &to, 1) }
    }
}

/// Text for SVG: `&`, `<`, `>` and `"` as entities.
fn esc(text: &str) -> String {
    super::html::escape(text)
}

/// Whether `c` is drawn about a square wide and a line may break beside it without a space:
/// CJK ideographs and punctuation, kana, Hangul and full-width forms.
fn wide(c: char) -> bool {
    matches!(
        c as u32,
        0x1100..=0x115F
            | 0x2E80..=0x303E
            | 0x3041..=0x33FF
            | 0x3400..=0x4DBF
            | 0x4E00..=0x9FFF
            | 0xA000..=0xA4CF
            | 0xAC00..=0xD7A3
            | 0xF900..=0xFAFF
            | 0xFE30..=0xFE4F
            | 0xFF00..=0xFF60
            | 0xFFE0..=0xFFE6
    )
}

/// The estimated width of `c` at `size` px: a square for CJK, a little more than half of one
/// for everything else.
fn char_width(c: char, size: f64) -> f64 {
    if wide(c) { size } else { size * 0.58 }
}

/// The estimated width of `text` at `size` px.
fn text_width(text: &str, size: f64) -> f64 {
    Glyphs::of(text).width(size)
}

/// How many characters of a text are drawn a square wide ([`wide`]) and how many narrower:
/// all its width depends on.
#[derive(Debug, Clone, Copy, Default)]
struct Glyphs {
    squares: usize,
    others: usize,
}

impl Glyphs {
    fn of(text: &str) -> Glyphs {
        let squares = text.chars().filter(|&c| wide(c)).count();
        Glyphs { squares, others: text.chars().count() - squares }
    }

    fn plus(self, other: Glyphs) -> Glyphs {
        Glyphs { squares: self.squares + other.squares, others: self.others + other.others }
    }

    fn width(self, size: f64) -> f64 {
        self.squares as f64 * size + self.others as f64 * size * 0.58
    }
}

/// `text` cut to `width` px at `size`, with an ellipsis when cut.
fn fit(text: &str, width: f64, size: f64) -> String {
    if text_width(text, size) <= width {
        return text.to_string();
    }
    let unit = size * 0.58;
    let budget = ((width / unit).floor() as usize).saturating_sub(1).max(1) as f64 * unit;
    let mut out = String::new();
    let mut used = 0.0;
    for c in text.chars() {
        let w = char_width(c, size);
        if !out.is_empty() && used + w > budget + 1e-9 {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}

/// The pieces a line may break between, each with whether a space came before it: words
/// between spaces, and within a word, each character of a script written without spaces
/// (Chinese, Japanese), never before closing or after opening punctuation.
fn break_units(text: &str) -> Vec<(bool, String)> {
    const NO_START: &str = "、。，．：；！？）」』】〕〉》〗ー・…％,.:;!?)]}%";
    const NO_END: &str = "（「『【〔〈《〖([{";
    let mut units = Vec::new();
    for (i, word) in text.split_whitespace().enumerate() {
        let mut unit = String::new();
        let mut space = i > 0;
        let mut previous: Option<char> = None;
        for c in word.chars() {
            if let Some(p) = previous
                && (wide(p) || wide(c))
                && !NO_START.contains(c)
                && !NO_END.contains(p)
            {
                units.push((space, std::mem::take(&mut unit)));
                space = false;
            }
            unit.push(c);
            previous = Some(c);
        }
        units.push((space, unit));
    }
    units
}

/// `text` broken into lines of at most `width` px at `size`, at spaces and between the
/// characters of scripts written without them; at most `max` lines, the last one cut with an
/// ellipsis.
fn wrap(text: &str, width: f64, size: f64, max: usize) -> Vec<String> {
    // Each line, and whether a space separated it from the line before.
    let mut lines: Vec<(bool, String)> = Vec::new();
    let mut line = String::new();
    // What the line holds, measured as it grows rather than again for each piece.
    let mut glyphs = Glyphs::default();
    let mut line_space = false;
    for (space, unit) in break_units(text) {
        let unit_glyphs = Glyphs::of(&unit);
        let joined = if line.is_empty() {
            unit_glyphs
        } else {
            glyphs.plus(unit_glyphs).plus(Glyphs { squares: 0, others: usize::from(space) })
        };
        if joined.width(size) <= width || line.is_empty() {
            if space && !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&unit);
            glyphs = joined;
        } else {
            lines.push((line_space, std::mem::take(&mut line)));
            line = unit;
            glyphs = unit_glyphs;
            line_space = space;
        }
    }
    if !line.is_empty() {
        lines.push((line_space, line));
    }
    if lines.len() > max {
        let mut rest = String::new();
        for (space, l) in lines.drain(max - 1..) {
            if space && !rest.is_empty() {
                rest.push(' ');
            }
            rest.push_str(&l);
        }
        lines.push((false, rest));
    }
    lines.into_iter().map(|(_, l)| fit(&l, width, size)).collect()
}

/// The decimals a tick's number needs to be shown exactly (0.5 with one, 2.25 with two): at
/// most three.
pub fn tick_decimals(v: f64) -> usize {
    (0..3).find(|&d| ((v * 10f64.powi(d as i32)).round() - v * 10f64.powi(d as i32)).abs() < 1e-6).unwrap_or(3)
}

/// The smallest "nice" number (1, 2, 2.5 or 5 times a power of ten) at or above `x`.
fn nice(x: f64) -> f64 {
    if x <= 0.0 || !x.is_finite() {
        return 1.0;
    }
    let power = 10f64.powf(x.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * power).find(|v| *v >= x * (1.0 - 1e-12)).unwrap_or(10.0 * power)
}

/// The axis for values up to `max`: its end and its tick step, about five ticks, the end the
/// first tick at or above the largest value (so that the axis never runs a step past it).
fn axis(max: f64) -> (f64, f64) {
    let step = nice(max.max(f64::MIN_POSITIVE) / 5.0);
    let end = (max / step - 1e-9).ceil() * step;
    (end.max(step), step)
}

fn open(out: &mut String, width: f64, height: f64, title: &str, desc: &str, class: &str) {
    let _ = write!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" class="{class}" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" style="font-family: {FAMILY}; font-size: {FONT}px"><title>{}</title><desc>{}</desc><rect width="{width}" height="{height}" fill="#ffffff"/>"##,
        esc(title),
        esc(desc)
    );
}

fn title_lines(out: &mut String, lines: &[String], width: f64) -> f64 {
    let mut y = MARGIN;
    for l in lines {
        y += TITLE_FONT + 4.0;
        let _ = write!(
            out,
            r#"<text x="{}" y="{y}" text-anchor="middle" font-size="{TITLE_FONT}" fill="{TEXT}">{}</text>"#,
            width / 2.0,
            esc(l)
        );
    }
    y + 10.0
}

fn color(kind: BarKind) -> &'static str {
    match kind {
        BarKind::Plain => PLAIN,
        BarKind::Base => BASE,
        BarKind::Adopted => ADOPTED,
        BarKind::Optimized => OPTIMIZED,
        BarKind::Doubtful => DOUBTFUL,
        BarKind::Failed => FAILED,
    }
}

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
    y_grid(&mut wide, (x0, x0 + plot_w), (end, step), &y_of, ticks);
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
        // The value goes where the line is not: above its point when neither neighbour is
        // higher, below on the side the line does not come from otherwise. A white halo keeps
        // it legible where a steep line passes close.
        let higher = |j: Option<usize>| j.and_then(|j| points.get(j)).is_some_and(|p| p.1 > *v);
        let (tx, ty, anchor) = match (higher(i.checked_sub(1)), higher(Some(i + 1))) {
            (false, false) => (x, y - 10.0, "middle"),
            (false, true) => (x + 6.0, y + 18.0, "start"),
            (true, false) => (x - 6.0, y + 18.0, "end"),
            (true, true) => (x, y + 20.0, "middle"),
        };
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

/// One line of an [`xy`] chart.
#[derive(Debug, Clone)]
pub struct Series {
    pub name: String,
    /// (x, y), drawn in this order.
    pub points: Vec<(f64, f64)>,
    /// Optimized (blue, solid) or not (grey, dashed).
    pub optimized: bool,
    /// Joins the points with a line (a curve) or leaves them apart (a scatter).
    pub line: bool,
    /// The point drawn as a ring and labelled: a boundary, or the recommended configuration.
    pub marked: Option<(usize, String)>,
}

/// Points on two axes from zero: load curves (a line a configuration, the SLO as a red
/// horizontal line) and the Pareto chart (a scatter and its frontier). `x_ticks` and `y_ticks`
/// print tick values; the description lists every point.
#[allow(clippy::too_many_arguments)]
pub fn xy(
    title: &str,
    x_name: &str,
    y_name: &str,
    series: &[Series],
    limit: Option<(f64, &str)>,
    x_ticks: &dyn Fn(f64) -> String,
    y_ticks: &dyn Fn(f64) -> String,
) -> Chart {
    let desc = series
        .iter()
        .map(|s| {
            let pts: Vec<String> = s.points.iter().map(|(x, y)| format!("{} → {}", x_ticks(*x), y_ticks(*y))).collect();
            format!("{}: {}", s.name, pts.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ");
    let draw = |width: f64, class: &str| {
        xy_layout(title, &desc, (x_name, y_name), series, limit, (x_ticks, y_ticks), width, class)
    };
    Chart { wide: draw(WIDE, "wide"), narrow: draw(NARROW, "narrow") }
}

#[allow(clippy::too_many_arguments)]
fn xy_layout(
    title: &str,
    desc: &str,
    (x_name, y_name): (&str, &str),
    series: &[Series],
    limit: Option<(f64, &str)>,
    (x_ticks, y_ticks): (&dyn Fn(f64) -> String, &dyn Fn(f64) -> String),
    width: f64,
    class: &str,
) -> String {
    let mut out = String::new();
    let titles = wrap(title, width - 2.0 * MARGIN, TITLE_FONT, 3);
    let legend = legend_rows(series, width);
    let x_max = series.iter().flat_map(|s| s.points.iter().map(|p| p.0)).fold(0.0, f64::max);
    let y_max = series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).chain(limit.map(|l| l.0)).fold(0.0, f64::max);
    let (x_end, x_step) = axis(x_max);
    let (y_end, y_step) = axis(y_max);
    let label_w = text_width(&y_ticks(y_end), FONT).max(text_width(&y_ticks(y_step), FONT));
    let x0 = MARGIN + FONT + 8.0 + label_w + 6.0;
    let plot_w = width - x0 - MARGIN - text_width(&x_ticks(x_end), FONT) / 2.0;
    let plot_h = if width >= WIDE { 260.0 } else { 200.0 };
    let top0 = MARGIN + titles.len() as f64 * (TITLE_FONT + 4.0) + 10.0 + legend.len() as f64 * (FONT + 8.0);
    let height = top0 + plot_h + 2.0 * (FONT + 6.0) + 12.0;
    open(&mut out, width, height, title, desc, class);
    let top = title_lines(&mut out, &titles, width);
    draw_legend(&mut out, &legend, series, top);
    let plot = Plot { x0, width: plot_w, top: top0, bottom: top0 + plot_h, x_end, y_end };
    y_grid(&mut out, (x0, x0 + plot_w), (y_end, y_step), &|y| plot.y(y), y_ticks);
    plot.x_axis(&mut out, x_step, x_ticks, x_name);
    let _ = write!(
        out,
        r#"<text transform="translate({MARGIN} {:.1}) rotate(-90)" x="0" y="{FONT}" text-anchor="middle" fill="{TEXT}">{}</text>"#,
        (plot.top + plot.bottom) / 2.0,
        esc(&fit(y_name, plot_h, FONT))
    );
    if let Some((v, name)) = limit {
        plot.limit(&mut out, v, name);
    }
    for s in series {
        plot.series(&mut out, s);
    }
    let (top, bottom) = (plot.top, plot.bottom);
    let _ = write!(
        out,
        r#"<line x1="{x0:.1}" y1="{bottom:.1}" x2="{:.1}" y2="{bottom:.1}" stroke="{TEXT}"/><line x1="{x0:.1}" y1="{top:.1}" x2="{x0:.1}" y2="{bottom:.1}" stroke="{TEXT}"/></svg>"#,
        x0 + plot_w
    );
    out
}

/// The legend: a swatch and a name a series, wrapped onto as many rows as it needs.
fn legend_rows(series: &[Series], width: f64) -> Vec<Vec<(usize, String)>> {
    let mut legend: Vec<Vec<(usize, String)>> = vec![Vec::new()];
    let mut used = 0.0;
    for (i, s) in series.iter().enumerate() {
        let name = fit(&s.name, width - 2.0 * MARGIN - 24.0, FONT);
        let w = text_width(&name, FONT) + 34.0;
        if used + w > width - 2.0 * MARGIN && !legend.last().is_some_and(Vec::is_empty) {
            legend.push(Vec::new());
            used = 0.0;
        }
        used += w;
        if let Some(row) = legend.last_mut() {
            row.push((i, name));
        }
    }
    legend
}

fn draw_legend(out: &mut String, legend: &[Vec<(usize, String)>], series: &[Series], top: f64) {
    for (r, row) in legend.iter().enumerate() {
        let y = top + r as f64 * (FONT + 8.0) + FONT * 0.5;
        let mut x = MARGIN;
        for (i, name) in row {
            let (stroke, dash) = series_style(&series[*i]);
            let _ = write!(
                out,
                r#"<line x1="{x:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{stroke}" stroke-width="2"{dash}/><circle cx="{:.1}" cy="{y:.1}" r="3" fill="{stroke}"/>"#,
                x + 20.0,
                x + 10.0
            );
            let _ = write!(
                out,
                r#"<text x="{:.1}" y="{:.1}" fill="{TEXT}">{}</text>"#,
                x + 24.0,
                y + FONT * 0.35,
                esc(name)
            );
            x += text_width(name, FONT) + 34.0;
        }
    }
}

/// An x/y chart's plotting area: where a value is drawn.
struct Plot {
    x0: f64,
    width: f64,
    top: f64,
    bottom: f64,
    x_end: f64,
    y_end: f64,
}

impl Plot {
    fn x(&self, x: f64) -> f64 {
        self.x0 + x / self.x_end * self.width
    }

    fn y(&self, y: f64) -> f64 {
        self.bottom - y / self.y_end * (self.bottom - self.top)
    }

    /// The horizontal axis's ticks and its name.
    fn x_axis(&self, out: &mut String, step: f64, ticks: &dyn Fn(f64) -> String, name: &str) {
        let mut t = 0.0;
        while t <= self.x_end + step * 1e-9 {
            let _ = write!(
                out,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="{TEXT}">{}</text>"#,
                self.x(t),
                self.bottom + FONT + 4.0,
                esc(&ticks(t))
            );
            t += step;
        }
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="{TEXT}">{}</text>"#,
            self.x0 + self.width / 2.0,
            self.bottom + 2.0 * FONT + 10.0,
            esc(&fit(name, self.width, FONT))
        );
    }

    /// A limit (an SLO) as a dashed line with its name.
    fn limit(&self, out: &mut String, v: f64, name: &str) {
        let (x0, y) = (self.x0, self.y(v));
        let _ = write!(
            out,
            r#"<line x1="{x0:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{FAILED}" stroke-width="1.5" stroke-dasharray="6 3"/>"#,
            x0 + self.width
        );
        let _ = write!(
            out,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="end" fill="{FAILED}" stroke="#ffffff" stroke-width="4" paint-order="stroke">{}</text>"##,
            x0 + self.width - 4.0,
            y + FONT + 3.0,
            esc(&fit(name, self.width * 0.9, FONT))
        );
    }

    /// One series: its line, its points, its marked point with a label.
    fn series(&self, out: &mut String, s: &Series) {
        let (stroke, dash) = series_style(s);
        if s.line && s.points.len() > 1 {
            let path: Vec<String> =
                s.points.iter().map(|(x, y)| format!("{:.1},{:.1}", self.x(*x), self.y(*y))).collect();
            let _ = write!(
                out,
                r#"<polyline points="{}" fill="none" stroke="{stroke}" stroke-width="2"{dash}/>"#,
                path.join(" ")
            );
        }
        for (x, y) in &s.points {
            let _ = write!(out, r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{stroke}"/>"#, self.x(*x), self.y(*y));
        }
        if let Some((i, label)) = &s.marked
            && let Some((x, y)) = s.points.get(*i)
        {
            let (cx, cy) = (self.x(*x), self.y(*y));
            let _ = write!(
                out,
                r#"<circle cx="{cx:.1}" cy="{cy:.1}" r="7" fill="none" stroke="{stroke}" stroke-width="2"/>"#
            );
            let room = self.width / 2.0;
            let anchor = if cx > self.x0 + self.width / 2.0 { "end" } else { "start" };
            let tx = if anchor == "end" { cx - 10.0 } else { cx + 10.0 };
            let _ = write!(
                out,
                r##"<text x="{tx:.1}" y="{:.1}" text-anchor="{anchor}" fill="{TEXT}" stroke="#ffffff" stroke-width="4" paint-order="stroke">{}</text>"##,
                (cy - 10.0).max(self.top + FONT),
                esc(&fit(label, room, FONT))
            );
        }
    }
}

/// The horizontal grid lines of a vertical axis from 0 to `end` in `step`s, each with its tick
/// value left of `x0`.
fn y_grid(
    out: &mut String,
    (x0, x1): (f64, f64),
    (end, step): (f64, f64),
    y_of: &dyn Fn(f64) -> f64,
    ticks: &dyn Fn(f64) -> String,
) {
    let mut t = 0.0;
    while t <= end + step * 1e-9 {
        let y = y_of(t);
        let _ = write!(out, r#"<line x1="{x0}" y1="{y:.1}" x2="{x1:.1}" y2="{y:.1}" stroke="{GRID}"/>"#);
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end" fill="{TEXT}">{}</text>"#,
            x0 - 6.0,
            y + FONT * 0.35,
            esc(&ticks(t))
        );
        t += step;
    }
}

fn series_style(s: &Series) -> (&'static str, &'static str) {
    if s.optimized { (OPTIMIZED, "") } else { (BASE, r#" stroke-dasharray="5 3""#) }
}

#[cfg(test)]
mod tests {
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
                svg.contains(
                    "<desc>base: 8.00 (base); a: 8968.00 (adopted); b &lt;x&gt;: failed: out of memory</desc>"
                )
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
        for values in
            [[5481.9, 6487.5, 7011.2, 13761.0, 14451.1, 17525.8], [9000.0, 3000.0, 9000.0, 3000.0, 9000.0, 100.0]]
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
                        let (px, py) =
                            (pair[0].0 + (pair[1].0 - pair[0].0) * t, pair[0].1 + (pair[1].1 - pair[0].1) * t);
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
}
