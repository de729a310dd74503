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

/// An axis over `min`–`max` only, not from zero: (start, end, step) on round ticks, with the
/// values inside it. A single value gets the step around it that its size asks for.
fn zoomed_axis(min: f64, max: f64) -> (f64, f64, f64) {
    let spread = if max > min { max - min } else { max.abs().max(1.0) };
    let step = nice(spread / 4.0);
    let start = ((min / step + 1e-9).floor() * step).max(if min >= 0.0 { 0.0 } else { f64::MIN });
    let end = (max / step - 1e-9).ceil() * step;
    (start, if end > start { end } else { start + step }, step)
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

/// The horizontal grid lines of a vertical axis from 0 to `end` in `step`s, each with its tick
/// value left of `x0`.
fn y_grid(
    out: &mut String,
    (x0, x1): (f64, f64),
    (start, end, step): (f64, f64, f64),
    y_of: &dyn Fn(f64) -> f64,
    ticks: &dyn Fn(f64) -> String,
) {
    let mut t = start;
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

mod bars;
mod xy;
pub use bars::{Group, bars, grouped, pairs, progression};
pub use xy::{AxisLabels, Mark, Series, xy};

#[cfg(test)]
mod tests;
