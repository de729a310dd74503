//! The summary chart as a PNG image: the baseline against the optimized configuration on every
//! profile, the picture a drop-in page (mkdocs, mdBook), a README or a link preview opens with.
//!
//! Drawn with plotters' bitmap backend. Its text is set here, glyph by glyph with ab_glyph, in
//! the two fonts shipped in `assets/fonts/` (loaded from the binary's own bytes, never from the
//! system): plotters' own text drops each glyph's side bearing and cannot fall back from one
//! font to another, which Turkish (DejaVu Sans) beside Chinese and Japanese (Noto Sans CJK)
//! needs. `png` encodes the pixels with fixed settings: the same inputs give the same bytes on
//! every machine. The page's SVG charts are drawn by [`super::charts`].

use ab_glyph::{Font, FontRef, GlyphId, PxScale, ScaleFont, point};
use plotters::prelude::*;

/// The fonts the PNG charts are drawn in, subset by `assets/fonts/subset.py`: DejaVu Sans for
/// Latin (and every Turkish letter), Noto Sans CJK SC for Chinese and Japanese (licences in
/// `assets/fonts/`).
pub static LATIN_FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-perflab.ttf");
pub static CJK_FONT: &[u8] = include_bytes!("../../assets/fonts/NotoSansCJK-perflab.otf");

/// The file name of a study's summary chart, beside its SVG charts.
pub const SUMMARY_PNG: &str = "summary.png";

/// One profile's pair of bars.
#[derive(Debug, Clone)]
pub struct Pair {
    /// The profile's name.
    pub label: String,
    pub baseline: Option<f64>,
    pub optimized: Option<f64>,
    /// The values as the page writes them (localized, with their unit).
    pub baseline_text: String,
    pub optimized_text: String,
    /// The change as the page writes it, without markup, and whether it is a gain, a loss or
    /// neither (its colour).
    pub change: String,
    pub trend: crate::analysis::Trend,
}

/// Everything the summary chart says, already localized.
#[derive(Debug, Clone)]
pub struct Summary {
    /// The page's language: Chinese and Japanese text is set in the CJK font first, so that
    /// its Latin letters and digits match its characters.
    pub locale: String,
    pub title: String,
    /// The names of the two bars, for the legend.
    pub legend: (String, String),
    pub pairs: Vec<Pair>,
}

#[derive(Debug, thiserror::Error)]
pub enum PngError {
    #[error("the chart's font cannot be read")]
    Font,
    #[error("cannot draw the chart: {0}")]
    Draw(String),
    #[error("cannot encode the chart as PNG: {0}")]
    Encode(#[from] png::EncodingError),
}

const WIDTH: u32 = 1200;
const MARGIN: i32 = 32;
const TITLE: f32 = 30.0;
const TEXT: f32 = 22.0;
const BAR: i32 = 26;
/// A profile's height: its name, then its two bars.
const GROUP: i32 = 3 * BAR + 30;
const HEAD: i32 = 112;
const INK: RGBColor = RGBColor(0x1f, 0x23, 0x28);
const MUTED: RGBColor = RGBColor(0x59, 0x63, 0x6e);
const BASE_BAR: RGBColor = RGBColor(0x9a, 0xa4, 0xae);
const BEST_BAR: RGBColor = RGBColor(0x1f, 0x6f, 0xeb);
const GAIN: RGBColor = RGBColor(0x1a, 0x7f, 0x37);
const LOSS: RGBColor = RGBColor(0xcf, 0x22, 0x2e);

/// The fonts in the order a character is looked up: for Chinese and Japanese the CJK font
/// first, else the Latin one first.
struct Fonts {
    order: [FontRef<'static>; 2],
}

impl Fonts {
    fn new(locale: &str) -> Result<Fonts, PngError> {
        let latin = FontRef::try_from_slice(LATIN_FONT).map_err(|_| PngError::Font)?;
        let cjk = FontRef::try_from_slice(CJK_FONT).map_err(|_| PngError::Font)?;
        let cjk_first = matches!(locale.split(['-', '_']).next(), Some("zh" | "ja"));
        Ok(Fonts { order: if cjk_first { [cjk, latin] } else { [latin, cjk] } })
    }

    /// The font that has `c` and its glyph; a character neither font has is drawn as the first
    /// font's empty box (see [`missing`]).
    fn glyph(&self, c: char) -> Option<(&FontRef<'static>, GlyphId)> {
        self.order.iter().map(|f| (f, f.glyph_id(c))).find(|(_, g)| g.0 != 0)
    }

    fn glyphs(&self, text: &str) -> Result<Vec<(&FontRef<'static>, GlyphId)>, PngError> {
        Ok(text.chars().map(|c| self.glyph(c).unwrap_or((&self.order[0], GlyphId(0)))).collect())
    }

    /// The width of `text` in pixels at `size`.
    fn width(&self, text: &str, size: f32) -> Result<i32, PngError> {
        let glyphs = self.glyphs(text)?;
        Ok(glyphs.iter().map(|(f, g)| f.as_scaled(PxScale::from(size)).h_advance(*g)).sum::<f32>().ceil() as i32)
    }

    /// Draws `text` with its top at `(x, y)`: each glyph's coverage blended into the pixels.
    fn write(
        &self,
        area: &Area<'_>,
        text: &str,
        (x, y): (i32, i32),
        size: f32,
        color: RGBColor,
    ) -> Result<(), PngError> {
        let scale = PxScale::from(size);
        let baseline = y as f32 + self.order[0].as_scaled(scale).ascent();
        let mut pen = x as f32;
        for (font, id) in self.glyphs(text)? {
            let scaled = font.as_scaled(scale);
            let glyph = id.with_scale_and_position(scale, point(pen, baseline));
            pen += scaled.h_advance(id);
            let Some(outline) = font.outline_glyph(glyph) else { continue };
            let bounds = outline.px_bounds();
            let mut pixels = Vec::new();
            outline.draw(|gx, gy, coverage| pixels.push((gx, gy, coverage)));
            for (gx, gy, coverage) in pixels {
                let at = (bounds.min.x as i32 + gx as i32, bounds.min.y as i32 + gy as i32);
                area.draw_pixel(at, &color.mix(f64::from(coverage.min(1.0)))).map_err(draw_err)?;
            }
        }
        Ok(())
    }
}

/// The characters of a chart that neither font has.
pub fn missing(s: &Summary) -> Result<Vec<char>, PngError> {
    let fonts = Fonts::new(&s.locale)?;
    let texts = [&s.title, &s.legend.0, &s.legend.1]
        .into_iter()
        .chain(s.pairs.iter().flat_map(|p| [&p.label, &p.baseline_text, &p.optimized_text, &p.change]));
    let mut out: Vec<char> = texts.flat_map(|t| t.chars()).filter(|&c| fonts.glyph(c).is_none()).collect();
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

fn draw_err<E: std::fmt::Debug>(e: E) -> PngError {
    PngError::Draw(format!("{e:?}"))
}

/// The summary chart as PNG bytes.
pub fn summary(s: &Summary) -> Result<Vec<u8>, PngError> {
    let fonts = Fonts::new(&s.locale)?;
    let height = (HEAD + GROUP * s.pairs.len().max(1) as i32 + MARGIN) as u32;
    let mut pixels = vec![0u8; (WIDTH * height * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        draw(&root, &fonts, s)?;
        root.present().map_err(draw_err)?;
    }
    encode(&pixels, WIDTH, height)
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;

fn draw(root: &Area<'_>, fonts: &Fonts, s: &Summary) -> Result<(), PngError> {
    let write = |text: &str, x: i32, y: i32, size: f32, color: RGBColor| fonts.write(root, text, (x, y), size, color);
    let rect = |from: (i32, i32), to: (i32, i32), color: RGBColor| {
        root.draw(&Rectangle::new([from, to], color.filled())).map_err(draw_err)
    };
    // A long title is set smaller rather than cut.
    let room = (WIDTH as i32 - 2 * MARGIN) as f32;
    let title = TITLE * (room / fonts.width(&s.title, TITLE)?.max(1) as f32).min(1.0);
    write(&s.title, MARGIN, MARGIN - 6, title, INK)?;
    // The legend: a swatch and the name of each bar.
    let mut x = MARGIN;
    for (name, color) in [(&s.legend.0, BASE_BAR), (&s.legend.1, BEST_BAR)] {
        rect((x, 80), (x + 18, 98), color)?;
        write(name, x + 26, 76, TEXT, INK)?;
        x += 26 + fonts.width(name, TEXT)? + 32;
    }
    // The bars share one scale, so that profiles compare at a glance; the longest leaves room
    // for its value and the change.
    let mut widest_value = 0;
    let mut widest_change = 0;
    for p in &s.pairs {
        widest_value =
            widest_value.max(fonts.width(&p.baseline_text, TEXT)?).max(fonts.width(&p.optimized_text, TEXT)?);
        widest_change = widest_change.max(fonts.width(&p.change, TEXT)?);
    }
    let room = (WIDTH as i32 - 2 * MARGIN - widest_value - widest_change - 40).max(1);
    let top = s.pairs.iter().flat_map(|p| [p.baseline, p.optimized]).flatten().fold(0.0_f64, f64::max);
    let length = |v: Option<f64>| match v {
        Some(v) if top > 0.0 && v.is_finite() && v > 0.0 => ((v / top) * f64::from(room)).round() as i32,
        _ => 0,
    };
    for (k, p) in s.pairs.iter().enumerate() {
        let y = HEAD + GROUP * k as i32;
        write(&p.label, MARGIN, y, TEXT, INK)?;
        let rows = [(p.baseline, &p.baseline_text, BASE_BAR, MUTED), (p.optimized, &p.optimized_text, BEST_BAR, INK)];
        for (row, (value, text, color, ink)) in rows.into_iter().enumerate() {
            let bar_top = y + 34 + row as i32 * (BAR + 6);
            let end = MARGIN + length(value);
            if end > MARGIN {
                rect((MARGIN, bar_top), (end, bar_top + BAR), color)?;
            }
            write(text, end + 10, bar_top, TEXT, ink)?;
        }
        let color = match p.trend {
            crate::analysis::Trend::Higher => GAIN,
            crate::analysis::Trend::Lower => LOSS,
            crate::analysis::Trend::Same => MUTED,
        };
        let right = WIDTH as i32 - MARGIN - fonts.width(&p.change, TEXT)?;
        write(&p.change, right, y + 34 + (BAR + 6) / 2, TEXT, color)?;
    }
    Ok(())
}

/// RGB pixels as a PNG: 8 bits a channel, the same filter and compression every time.
///
/// Fast compression with adaptive filters: on the largest bundled chart (1200 × 684) it takes
/// about 1.7 ms and writes 120 KB, where `High` took 55 ms for 90 KB and `Balanced` 17 ms for
/// 90 KB. A site of 200 studies draws 800 of these charts, so the faster setting is what keeps
/// a build at seconds rather than most of a minute, for images a third larger.
fn encode(pixels: &[u8], width: u32, height: u32) -> Result<Vec<u8>, PngError> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Fast);
        encoder.set_filter(png::Filter::Adaptive);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(pixels)?;
        writer.finish()?;
    }
    Ok(out)
}
