//! Charts on two axes: load curves (from zero) and the Pareto chart (zoomed on its points).

use super::*;

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
    pub marked: Option<Mark>,
    /// A label beside each point, in the order of `points` (none when empty).
    pub labels: Vec<String>,
}

/// A series' marked point: its index in the points, its label, and whether it is only a bound
/// (the search's limit, which the configuration may exceed): a dashed ring with an arrow.
#[derive(Debug, Clone)]
pub struct Mark {
    pub index: usize,
    pub label: String,
    pub bound: bool,
}

/// One axis of an [`xy`] chart: its name, and how a tick's value is written.
#[derive(Clone, Copy)]
pub struct AxisLabels<'a> {
    pub name: &'a str,
    pub ticks: &'a dyn Fn(f64) -> String,
    /// The axis starts at zero; otherwise it spans the values drawn on it, zoomed.
    pub from_zero: bool,
}

/// What an [`xy`] chart draws, at any width: its title, the description that lists every
/// point, its two axes, its series and an optional limit (a value and its name).
struct Drawing<'a> {
    title: &'a str,
    desc: String,
    x: AxisLabels<'a>,
    y: AxisLabels<'a>,
    series: &'a [Series],
    limit: Option<(f64, &'a str)>,
}

/// Points on two axes: load curves (a line a configuration, the SLO as a red horizontal line)
/// and the Pareto chart (a scatter and its frontier). Each axis starts at zero or spans its
/// values, as its [`AxisLabels`] say. The description lists every point, written as the axes
/// write their ticks, with its label where it has one.
pub fn xy(title: &str, x: AxisLabels, y: AxisLabels, series: &[Series], limit: Option<(f64, &str)>) -> Chart {
    let desc = series
        .iter()
        .map(|s| {
            let pts: Vec<String> = s
                .points
                .iter()
                .enumerate()
                .map(|(i, (a, b))| {
                    let at = format!("{} → {}", (x.ticks)(*a), (y.ticks)(*b));
                    s.labels.get(i).map_or(at.clone(), |l| format!("{l} ({at})"))
                })
                .collect();
            format!("{}: {}", s.name, pts.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ");
    let d = Drawing { title, desc, x, y, series, limit };
    Chart { wide: xy_layout(&d, WIDE, "wide"), narrow: xy_layout(&d, NARROW, "narrow") }
}

fn xy_layout(d: &Drawing, width: f64, class: &str) -> String {
    let Drawing { title, ref desc, series, limit, .. } = *d;
    let (x_name, y_name, x_ticks, y_ticks) = (d.x.name, d.y.name, d.x.ticks, d.y.ticks);
    let mut out = String::new();
    let titles = wrap(title, width - 2.0 * MARGIN, TITLE_FONT, 3);
    let legend = legend_rows(series, width);
    let xs: Vec<f64> = series.iter().flat_map(|s| s.points.iter().map(|p| p.0)).collect();
    let ys: Vec<f64> = series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).chain(limit.map(|l| l.0)).collect();
    let (x_start, x_end, x_step) = span(&xs, d.x.from_zero);
    let (y_start, y_end, y_step) = span(&ys, d.y.from_zero);
    let label_w = text_width(&y_ticks(y_end), FONT).max(text_width(&y_ticks(y_step), FONT));
    let plot_h = if width >= WIDE { 260.0 } else { 200.0 };
    // The vertical axis's name, on a second line where it is longer than the plot is high.
    let y_names = wrap(y_name, plot_h, FONT, 2);
    let x0 = MARGIN + y_names.len() as f64 * (FONT + 2.0) - 2.0 + 8.0 + label_w + 6.0;
    let plot_w = width - x0 - MARGIN - text_width(&x_ticks(x_end), FONT) / 2.0;
    let top0 = MARGIN + titles.len() as f64 * (TITLE_FONT + 4.0) + 10.0 + legend.len() as f64 * (FONT + 8.0);
    let height = top0 + plot_h + 2.0 * (FONT + 6.0) + 12.0;
    open(&mut out, width, height, title, desc, class);
    let top = title_lines(&mut out, &titles, width);
    draw_legend(&mut out, &legend, series, top);
    let plot = Plot { x0, width: plot_w, top: top0, bottom: top0 + plot_h, x_start, x_end, y_start, y_end };
    y_grid(&mut out, (x0, x0 + plot_w), (y_start, y_end, y_step), &|y| plot.y(y), y_ticks);
    plot.x_axis(&mut out, x_step, x_ticks, x_name);
    for (i, line) in y_names.iter().enumerate() {
        let _ = write!(
            out,
            r#"<text transform="translate({:.1} {:.1}) rotate(-90)" x="0" y="{FONT}" text-anchor="middle" fill="{TEXT}">{}</text>"#,
            MARGIN + i as f64 * (FONT + 2.0),
            (plot.top + plot.bottom) / 2.0,
            esc(line)
        );
    }
    // The boxes of the labels drawn so far, so that a ring's label is set where it clears them.
    let mut taken = Vec::new();
    if let Some((v, name)) = limit {
        taken.push(plot.limit(&mut out, v, name));
    }
    for s in series {
        plot.series(&mut out, s, &mut taken);
    }
    let (top, bottom) = (plot.top, plot.bottom);
    let _ = write!(
        out,
        r#"<line x1="{x0:.1}" y1="{bottom:.1}" x2="{:.1}" y2="{bottom:.1}" stroke="{TEXT}"/><line x1="{x0:.1}" y1="{top:.1}" x2="{x0:.1}" y2="{bottom:.1}" stroke="{TEXT}"/></svg>"#,
        x0 + plot_w
    );
    out
}

/// An axis over `values`: (start, end, step), from zero or zoomed on them.
fn span(values: &[f64], from_zero: bool) -> (f64, f64, f64) {
    let max = values.iter().copied().fold(0.0, f64::max);
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    if from_zero || !min.is_finite() {
        let (end, step) = axis(max);
        return (0.0, end, step);
    }
    zoomed_axis(min, max)
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
    x_start: f64,
    x_end: f64,
    y_start: f64,
    y_end: f64,
}

impl Plot {
    fn x(&self, x: f64) -> f64 {
        self.x0 + (x - self.x_start) / (self.x_end - self.x_start) * self.width
    }

    fn y(&self, y: f64) -> f64 {
        self.bottom - (y - self.y_start) / (self.y_end - self.y_start) * (self.bottom - self.top)
    }

    /// The horizontal axis's ticks and its name.
    fn x_axis(&self, out: &mut String, step: f64, ticks: &dyn Fn(f64) -> String, name: &str) {
        let mut t = self.x_start;
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

    /// A limit (an SLO) as a dashed line with its name; the name's box.
    fn limit(&self, out: &mut String, v: f64, name: &str) -> Boxed {
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
        let w = text_width(&fit(name, self.width * 0.9, FONT), FONT);
        Boxed { left: x0 + self.width - 4.0 - w, right: x0 + self.width - 4.0, top: y + 3.0, bottom: y + FONT + 6.0 }
    }

    /// One series: its line, its points, its marked point with a label set clear of the labels
    /// in `taken` (above the ring, else below it, else on its other side), which it joins.
    fn series(&self, out: &mut String, s: &Series, taken: &mut Vec<Boxed>) {
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
        for (i, (x, y)) in s.points.iter().enumerate() {
            let (px, py) = (self.x(*x), self.y(*y));
            let _ = write!(out, r#"<circle cx="{px:.1}" cy="{py:.1}" r="3" fill="{stroke}"/>"#);
            if let Some(label) = s.labels.get(i).filter(|_| s.marked.as_ref().is_none_or(|m| m.index != i)) {
                self.point_label(out, (px, py), label, i);
            }
        }
        if let Some(Mark { index, label, bound }) = &s.marked
            && let Some((x, y)) = s.points.get(*index)
        {
            let (cx, cy) = (self.x(*x), self.y(*y));
            let ring = if *bound { r#" stroke-dasharray="3 2""# } else { "" };
            let _ = write!(
                out,
                r#"<circle cx="{cx:.1}" cy="{cy:.1}" r="7" fill="none" stroke="{stroke}" stroke-width="2"{ring}/>"#
            );
            if *bound {
                // More load may fit: an arrow out of the ring, along the load axis.
                let _ = write!(
                    out,
                    r#"<path d="M{:.1} {cy:.1} h12 m-4 -4 l4 4 l-4 4" fill="none" stroke="{stroke}" stroke-width="2"/>"#,
                    cx + 7.0
                );
            }
            let right_half = cx > self.x0 + self.width / 2.0;
            let above = (cy - 10.0).max(self.top + FONT);
            let below = (cy + 10.0 + FONT).min(self.bottom - 4.0);
            let tries = [(right_half, above), (right_half, below), (!right_half, above), (!right_half, below)];
            let placed: Vec<(Boxed, String, bool)> =
                tries.iter().map(|&(end, y)| self.label_box(label, (cx, y), end)).collect();
            let clear = placed.iter().position(|(b, ..)| !taken.iter().any(|t| t.overlaps(b)));
            let (at, text, end) = placed.into_iter().nth(clear.unwrap_or(0)).unwrap_or_default();
            let (anchor, tx) = if end { ("end", at.right) } else { ("start", at.left) };
            let _ = write!(
                out,
                r##"<text x="{tx:.1}" y="{:.1}" text-anchor="{anchor}" fill="{TEXT}" stroke="#ffffff" stroke-width="4" paint-order="stroke">{}</text>"##,
                at.bottom,
                esc(&text)
            );
            taken.push(at);
        }
    }

    /// The box of a ring's label at baseline `y`, left of the ring (`end`) or right of it, cut to
    /// the room the plot has on that side; with the text that fits.
    fn label_box(&self, label: &str, (cx, y): (f64, f64), end: bool) -> (Boxed, String, bool) {
        let (edge, room) =
            if end { (cx - 10.0, cx - 10.0 - self.x0) } else { (cx + 10.0, self.x0 + self.width - cx - 10.0) };
        let text = fit(label, room.max(FONT * 4.0), FONT);
        let w = text_width(&text, FONT);
        let (left, right) = if end { (edge - w, edge) } else { (edge, edge + w) };
        (Boxed { left, right, top: y - FONT, bottom: y }, text, end)
    }
}

/// A label's box on the chart.
#[derive(Debug, Clone, Copy, Default)]
struct Boxed {
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

impl Boxed {
    fn overlaps(&self, other: &Boxed) -> bool {
        self.left < other.right && other.left < self.right && self.top < other.bottom && other.top < self.bottom
    }
}

impl Plot {
    /// A point's label in a smaller type, right of the point (left of it in the plot's right
    /// half), above it for even points and below for odd ones, so that neighbours do not
    /// overprint each other.
    fn point_label(&self, out: &mut String, (px, py): (f64, f64), label: &str, i: usize) {
        // Still 10 px or more where a phone shows the narrow chart a little smaller than drawn.
        let small = FONT - 1.0;
        let anchor = if px > self.x0 + self.width / 2.0 { "end" } else { "start" };
        let tx = if anchor == "end" { px - 6.0 } else { px + 6.0 };
        let ty = if i.is_multiple_of(2) {
            (py - 6.0).max(self.top + small)
        } else {
            (py + small + 4.0).min(self.bottom - 2.0)
        };
        let _ = write!(
            out,
            r##"<text x="{tx:.1}" y="{ty:.1}" text-anchor="{anchor}" font-size="{small}" fill="{TEXT}" stroke="#ffffff" stroke-width="3" paint-order="stroke">{}</text>"##,
            esc(&fit(label, self.width / 2.0, small))
        );
    }
}

fn series_style(s: &Series) -> (&'static str, &'static str) {
    if s.optimized { (OPTIMIZED, "") } else { (BASE, r#" stroke-dasharray="5 3""#) }
}
