//! Charts on two axes from zero: load curves and the Pareto chart.

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
    pub marked: Option<(usize, String)>,
}

/// One axis of an [`xy`] chart: its name, and how a tick's value is written.
#[derive(Clone, Copy)]
pub struct AxisLabels<'a> {
    pub name: &'a str,
    pub ticks: &'a dyn Fn(f64) -> String,
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

/// Points on two axes from zero: load curves (a line a configuration, the SLO as a red
/// horizontal line) and the Pareto chart (a scatter and its frontier). The description lists
/// every point, written as the axes write their ticks.
pub fn xy(title: &str, x: AxisLabels, y: AxisLabels, series: &[Series], limit: Option<(f64, &str)>) -> Chart {
    let desc = series
        .iter()
        .map(|s| {
            let pts: Vec<String> =
                s.points.iter().map(|(a, b)| format!("{} → {}", (x.ticks)(*a), (y.ticks)(*b))).collect();
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

fn series_style(s: &Series) -> (&'static str, &'static str) {
    if s.optimized { (OPTIMIZED, "") } else { (BASE, r#" stroke-dasharray="5 3""#) }
}
