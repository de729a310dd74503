//! SVG charts drawn with plotters. Text is measured with a font built into the binary, so the
//! bytes depend on nothing but the input; browsers draw the text with their own sans-serif.

use plotters::prelude::*;
use plotters::style::FontStyle;
use std::sync::Once;

const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
const FAMILY: &str = "sans-serif";
const WIDTH: u32 = 760;

const PLAIN: RGBColor = RGBColor(0x7a, 0x8c, 0xa6);
const WINNER: RGBColor = RGBColor(0x1f, 0x8a, 0x3b);
const DOUBTFUL: RGBColor = RGBColor(0xc9, 0x8b, 0x1c);
const FAILED: RGBColor = RGBColor(0xb4, 0x23, 0x18);
const BASELINE: RGBColor = RGBColor(0x7a, 0x8c, 0xa6);
const OPTIMIZED: RGBColor = RGBColor(0x1f, 0x5f, 0xa8);

fn font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The font is part of the binary; failing to read it is a build defect, not an input error.
        let _ = plotters::style::register_font(FAMILY, FontStyle::Normal, FONT);
    });
}

/// How a bar is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarKind {
    Plain,
    /// The stage's best variant.
    Winner,
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
    /// Printed after the bar (the value, or why there is none).
    pub note: String,
}

type DrawResult<T> = Result<T, Box<dyn std::error::Error>>;

fn svg_or_empty(result: DrawResult<()>, svg: String) -> String {
    match result {
        Ok(()) => svg,
        // Drawing in memory only fails on a plotters defect; an empty chart is better than none.
        Err(_) => String::new(),
    }
}

/// Horizontal bars, one a variant, on a shared axis starting at zero.
pub fn bars(title: &str, axis: &str, bars: &[Bar], ticks: &dyn Fn(f64) -> String) -> String {
    font();
    let height = 70 + 34 * bars.len().max(1) as u32;
    let mut svg = String::new();
    let result = (|| -> DrawResult<()> {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let n = bars.len().max(1);
        let label_width = bars.iter().map(|b| b.label.chars().count()).max().unwrap_or(4).clamp(4, 40) as u32 * 7 + 10;
        // Room right of the longest bar for its note.
        let plot = f64::from(WIDTH.saturating_sub(label_width + 30)).max(100.0);
        let note = bars.iter().map(|b| b.note.chars().count()).max().unwrap_or(0) as f64 * 6.0 + 12.0;
        let room = (note / plot).min(0.7);
        let max = bars.iter().filter_map(|b| b.value).fold(0.0, f64::max).max(1.0) / (1.0 - room);
        let mut chart = ChartBuilder::on(&root)
            .caption(title, (FAMILY, 16))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(label_width)
            .build_cartesian_2d(0.0..max, 0.0..n as f64)?;
        let labels: Vec<String> = bars.iter().map(|b| b.label.clone()).collect();
        chart
            .configure_mesh()
            .disable_y_mesh()
            .x_desc(axis)
            .x_labels(6)
            .x_label_formatter(&|v| ticks(*v))
            .y_labels(n * 2 + 1)
            .y_label_formatter(&|y| {
                let i = (n as f64 - y - 0.5).round();
                if (n as f64 - y - 0.5 - i).abs() < 1e-6 && i >= 0.0 {
                    labels.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .label_style((FAMILY, 12))
            .draw()?;
        for (i, bar) in bars.iter().enumerate() {
            let top = n as f64 - i as f64 - 0.2;
            let bottom = n as f64 - i as f64 - 0.8;
            let color = match bar.kind {
                BarKind::Plain => PLAIN,
                BarKind::Winner => WINNER,
                BarKind::Doubtful => DOUBTFUL,
                BarKind::Failed => FAILED,
            };
            let end = bar.value.unwrap_or(0.0);
            if bar.value.is_some() {
                chart.draw_series(std::iter::once(Rectangle::new([(0.0, bottom), (end, top)], color.filled())))?;
            }
            chart.draw_series(std::iter::once(Text::new(
                bar.note.clone(),
                (end + max * 0.01, top - 0.15),
                (FAMILY, 12).into_font().color(&color),
            )))?;
        }
        root.present()?;
        Ok(())
    })();
    svg_or_empty(result, svg)
}

/// Two bars a group (baseline and optimized), one group a profile.
pub fn pairs(
    title: &str,
    axis: &str,
    legend: (&str, &str),
    groups: &[(String, Option<f64>, Option<f64>)],
    format: &dyn Fn(f64) -> String,
    ticks: &dyn Fn(f64) -> String,
) -> String {
    let mut list = Vec::new();
    for (label, base, opt) in groups {
        let bar = |v: &Option<f64>, kind| Bar {
            label: String::new(),
            value: *v,
            kind,
            note: v.map(format).unwrap_or_default(),
        };
        list.push(Bar { label: format!("{label} · {}", legend.0), ..bar(base, BarKind::Plain) });
        list.push(Bar { label: format!("{label} · {}", legend.1), ..bar(opt, BarKind::Winner) });
    }
    let mut svg = bars(title, axis, &list, ticks);
    // Recolour the optimized bars so the pair reads at a glance.
    let winner = format!("#{:02X}{:02X}{:02X}", WINNER.0, WINNER.1, WINNER.2);
    let optimized = format!("#{:02X}{:02X}{:02X}", OPTIMIZED.0, OPTIMIZED.1, OPTIMIZED.2);
    svg = svg.replace(&winner, &optimized);
    let _ = BASELINE;
    svg
}

/// A line through the objective after each adopted stage, from the baseline to the final configuration.
pub fn progression(
    title: &str,
    axis: &str,
    points: &[(String, f64)],
    format: &dyn Fn(f64) -> String,
    ticks: &dyn Fn(f64) -> String,
) -> String {
    font();
    let height = 380;
    let mut svg = String::new();
    let result =
        (|| -> DrawResult<()> {
            let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
            root.fill(&WHITE)?;
            let max = points.iter().map(|p| p.1).fold(0.0, f64::max).max(1.0) * 1.2;
            let n = points.len().max(1);
            let labels: Vec<String> = points.iter().map(|p| p.0.clone()).collect();
            let mut chart = ChartBuilder::on(&root)
                .caption(title, (FAMILY, 16))
                .margin(14)
                .x_label_area_size(60)
                .y_label_area_size(70)
                .build_cartesian_2d(-0.5..(n as f64 - 0.5), 0.0..max)?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .y_desc(axis)
                .y_label_formatter(&|v| ticks(*v))
                .x_labels(n)
                .x_label_formatter(&|x| {
                    let i = x.round();
                    if (x - i).abs() < 1e-6 && i >= 0.0 {
                        labels.get(i as usize).cloned().unwrap_or_default()
                    } else {
                        String::new()
                    }
                })
                .label_style((FAMILY, 11))
                .draw()?;
            let series: Vec<(f64, f64)> = points.iter().enumerate().map(|(i, p)| (i as f64, p.1)).collect();
            chart.draw_series(LineSeries::new(series.clone(), OPTIMIZED.stroke_width(2)))?;
            chart.draw_series(series.iter().map(|&(x, y)| Circle::new((x, y), 4, OPTIMIZED.filled())))?;
            chart.draw_series(series.iter().map(|&(x, y)| {
                Text::new(format(y), (x - 0.2, y + max * 0.04), (FAMILY, 11).into_font().color(&BLACK))
            }))?;
            root.present()?;
            Ok(())
        })();
    svg_or_empty(result, svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charts_are_deterministic_and_mark_failures_as_text() {
        let list = vec![
            Bar { label: "a".into(), value: Some(10.0), kind: BarKind::Winner, note: "10.00".into() },
            Bar { label: "b".into(), value: None, kind: BarKind::Failed, note: "failed: out of memory".into() },
        ];
        let ticks = |v: f64| format!("{v:.0}");
        let one = bars("t", "tok/s", &list, &ticks);
        assert_eq!(one, bars("t", "tok/s", &list, &ticks));
        assert!(one.starts_with("<svg"));
        assert!(one.contains("failed: out of memory"));
        // One filled rectangle for the one measured variant, besides the background and frame.
        let filled_bars = one.lines().filter(|l| l.starts_with("<rect") && l.contains("fill=\"#1F8A3B\"")).count();
        assert_eq!(filled_bars, 1, "{one}");
    }
}
