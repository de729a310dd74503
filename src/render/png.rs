//! The summary chart as a PNG image: the baseline against the optimized configuration on every
//! profile, the picture a drop-in page (mkdocs, mdBook), a README or a link preview opens with.
//!
//! A layout places the chart's bars, legend swatches and lines of text; they are drawn here into
//! palette indices, one byte a pixel: the chart has white, two bar colours and four inks, and
//! each ink's anti-aliased edge fits in 63 shades. Text is set glyph by glyph with ab_glyph in
//! the two fonts shipped in `assets/fonts/` (loaded from the binary's own bytes, never from the
//! system), Turkish in DejaVu Sans beside Chinese and Japanese in Noto Sans CJK, each glyph
//! drawn once for a size and a quarter-pixel position and then set from a cache. `png` encodes
//! the pixels with fixed settings: the same inputs give the same bytes on every machine. The
//! page's SVG charts are drawn by [`super::charts`].

use ab_glyph::{Font, FontRef, GlyphId, PxScale, ScaleFont, point};

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

/// The chart's colours. Its pixels are indices into one palette: white, the two bars' colours,
/// then each ink of its text in [`SHADES`] shades from the faintest to the ink itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Paint {
    Baseline,
    Optimized,
}

/// The colours text is set in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ink {
    Text,
    Muted,
    Gain,
    Loss,
}

const WHITE: [u8; 3] = [0xff, 0xff, 0xff];
const PAINTS: [[u8; 3]; 2] = [[0x9a, 0xa4, 0xae], [0x1f, 0x6f, 0xeb]];
const INKS: [[u8; 3]; 4] = [[0x1f, 0x23, 0x28], [0x59, 0x63, 0x6e], [0x1a, 0x7f, 0x37], [0xcf, 0x22, 0x2e]];

/// How many shades of an ink a glyph's edge is drawn in: 63 for each of the four inks, with
/// white and the two bar colours, take 255 of a palette's 256 colours. The eye tells no more
/// steps apart at a glyph's edge.
const SHADES: u8 = 63;

/// The palette, in index order: white, the paints, each ink's shades.
fn palette() -> Vec<u8> {
    let mut out = Vec::with_capacity(3 * 256);
    out.extend(WHITE);
    PAINTS.iter().for_each(|p| out.extend(p));
    for ink in INKS {
        for q in 1..=u32::from(SHADES) {
            let l = u32::from(SHADES);
            out.extend(ink.map(|c| ((u32::from(c) * q + 255 * (l - q) + l / 2) / l) as u8));
        }
    }
    out
}

impl Paint {
    fn index(self) -> u8 {
        1 + self as u8
    }
}

impl Ink {
    /// The palette index of this ink at `shade` (1 to [`SHADES`]).
    fn index(self, shade: u8) -> u8 {
        1 + PAINTS.len() as u8 + self as u8 * SHADES + (shade - 1)
    }
}

/// How strongly a pixel is covered: white not at all, a bar fully (text never covers a bar),
/// a shade of ink by its step.
fn strength(index: u8) -> u8 {
    match index {
        0 => 0,
        i if i <= PAINTS.len() as u8 => u8::MAX,
        i => (i - 1 - PAINTS.len() as u8) % SHADES + 1,
    }
}

/// The fonts in the order a character is looked up: for Chinese and Japanese the CJK font
/// first, else the Latin one first.
struct Fonts {
    order: [(FontRef<'static>, Face); 2],
}

/// Which shipped font a glyph is drawn from: part of a cached glyph's key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Face {
    Latin,
    Cjk,
}

/// A glyph's pen position is rounded to a quarter of a pixel across the line, so that a glyph
/// drawn once serves every later place with the same quarter (the rounding moves it by at most
/// an eighth of a pixel, which the eye cannot see).
const SUBPIXELS: f32 = 4.0;

/// A glyph as drawn: its coverage (0 to 255) in a box whose corner lies at `left`, `top` from
/// the whole pixel of its pen position and baseline.
struct Coverage {
    left: i32,
    top: i32,
    width: usize,
    alpha: Vec<u8>,
}

/// A drawn glyph: its font, its id, its size and where it lies within a pixel (the pen's
/// quarter across, the baseline's fraction down, as bits).
type GlyphKey = (Face, u16, u32, u8, u32);

/// How many drawn glyphs a thread keeps; past this the cache starts again (a chart uses a few
/// hundred, a title set smaller to fit adds its own size).
const CACHED_GLYPHS: usize = 8192;

thread_local! {
    /// The pixel buffer of the last chart this thread drew.
    static PIXELS: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
    static GLYPHS: std::cell::RefCell<std::collections::HashMap<GlyphKey, std::rc::Rc<Coverage>>> =
        std::cell::RefCell::default();
}

impl Fonts {
    fn new(locale: &str) -> Result<Fonts, PngError> {
        let latin = (FontRef::try_from_slice(LATIN_FONT).map_err(|_| PngError::Font)?, Face::Latin);
        let cjk = (FontRef::try_from_slice(CJK_FONT).map_err(|_| PngError::Font)?, Face::Cjk);
        let cjk_first = matches!(locale.split(['-', '_']).next(), Some("zh" | "ja"));
        Ok(Fonts { order: if cjk_first { [cjk, latin] } else { [latin, cjk] } })
    }

    /// The font that has `c` and its glyph; a character neither font has is drawn as the first
    /// font's empty box (see [`missing`]).
    fn glyph(&self, c: char) -> Option<(&(FontRef<'static>, Face), GlyphId)> {
        self.order.iter().map(|f| (f, f.0.glyph_id(c))).find(|(_, g)| g.0 != 0)
    }

    fn glyphs(&self, text: &str) -> Vec<(&(FontRef<'static>, Face), GlyphId)> {
        text.chars().map(|c| self.glyph(c).unwrap_or((&self.order[0], GlyphId(0)))).collect()
    }

    /// The width of `text` in pixels at `size`.
    fn width(&self, text: &str, size: f32) -> i32 {
        let glyphs = self.glyphs(text);
        glyphs.iter().map(|((f, _), g)| f.as_scaled(PxScale::from(size)).h_advance(*g)).sum::<f32>().ceil() as i32
    }

    /// Draws `text` with its top at `(x, y)`: each glyph's coverage blended into the pixels.
    fn write(&self, canvas: &mut Canvas, text: &str, (x, y): (i32, i32), size: f32, ink: Ink) {
        let scale = PxScale::from(size);
        let baseline = y as f32 + self.order[0].0.as_scaled(scale).ascent();
        let (row, down) = (baseline.floor(), baseline - baseline.floor());
        let mut pen = x as f32;
        for ((font, face), id) in self.glyphs(text) {
            let quarter = (pen * SUBPIXELS).round() / SUBPIXELS;
            let column = quarter.floor();
            let across = ((quarter - column) * SUBPIXELS) as u8;
            pen += font.as_scaled(scale).h_advance(id);
            let key = (*face, id.0, size.to_bits(), across, down.to_bits());
            let glyph = GLYPHS.with(|cache| {
                let mut cache = cache.borrow_mut();
                if let Some(g) = cache.get(&key) {
                    return g.clone();
                }
                if cache.len() >= CACHED_GLYPHS {
                    cache.clear();
                }
                let at = point(f32::from(across) / SUBPIXELS, down);
                let g = std::rc::Rc::new(rasterize(font, id.with_scale_and_position(scale, at)));
                cache.insert(key, g.clone());
                g
            });
            canvas.blend(&glyph, (column as i32, row as i32), ink);
        }
    }
}

/// A glyph's coverage, drawn at its position within the pixel at the origin.
fn rasterize(font: &FontRef<'static>, glyph: ab_glyph::Glyph) -> Coverage {
    let Some(outline) = font.outline_glyph(glyph) else {
        return Coverage { left: 0, top: 0, width: 0, alpha: Vec::new() };
    };
    let bounds = outline.px_bounds();
    let width = bounds.width() as usize;
    let mut alpha = vec![0u8; width * bounds.height() as usize];
    outline.draw(|gx, gy, coverage| {
        if let Some(a) = alpha.get_mut(gy as usize * width + gx as usize) {
            *a = (coverage.clamp(0.0, 1.0) * 255.0).round() as u8;
        }
    });
    Coverage { left: bounds.min.x as i32, top: bounds.min.y as i32, width, alpha }
}

/// The chart's pixels: one palette index a pixel, row by row.
struct Canvas {
    pixels: Vec<u8>,
    width: i32,
    height: i32,
}

impl Canvas {
    /// A white canvas in `pixels`' memory (a chart's buffer is reused by the next, rather than
    /// taken fresh from the system and zeroed page by page).
    fn new(mut pixels: Vec<u8>, width: u32, height: u32) -> Canvas {
        pixels.clear();
        pixels.resize((width * height) as usize, 0);
        Canvas { pixels, width: width as i32, height: height as i32 }
    }

    /// Fills the rectangle from `from` up to, not including, `to` (clipped to the image).
    fn fill(&mut self, from: (i32, i32), to: (i32, i32), paint: Paint) {
        let (x0, x1) = (from.0.clamp(0, self.width) as usize, to.0.clamp(0, self.width) as usize);
        for y in from.1.clamp(0, self.height)..to.1.clamp(0, self.height) {
            let row = y as usize * self.width as usize;
            if x0 < x1 {
                self.pixels[row + x0..row + x1].fill(paint.index());
            }
        }
    }

    /// Sets a glyph in `ink`, its box's corner at `origin` plus the glyph's own offset: each
    /// pixel takes the shade of its coverage unless something covers it more (a neighbouring
    /// glyph's edge, a bar), so the result does not depend on the order glyphs are set in. What
    /// falls outside the image is left out.
    fn blend(&mut self, glyph: &Coverage, origin: (i32, i32), ink: Ink) {
        if glyph.width == 0 {
            return;
        }
        for (gy, line) in glyph.alpha.chunks_exact(glyph.width).enumerate() {
            let y = origin.1 + glyph.top + gy as i32;
            if !(0..self.height).contains(&y) {
                continue;
            }
            for (gx, &a) in line.iter().enumerate() {
                let x = origin.0 + glyph.left + gx as i32;
                let shade = ((u32::from(a) * u32::from(SHADES) + 127) / 255) as u8;
                if shade == 0 || !(0..self.width).contains(&x) {
                    continue;
                }
                let pixel = &mut self.pixels[y as usize * self.width as usize + x as usize];
                if shade > strength(*pixel) {
                    *pixel = ink.index(shade);
                }
            }
        }
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

/// The summary chart as PNG bytes.
pub fn summary(s: &Summary) -> Result<Vec<u8>, PngError> {
    let fonts = Fonts::new(&s.locale)?;
    let height = (HEAD + GROUP * s.pairs.len().max(1) as i32 + MARGIN) as u32;
    let mut canvas = Canvas::new(PIXELS.take(), WIDTH, height);
    for mark in layout(&fonts, s) {
        match mark {
            Mark::Shape { from, to, paint } => canvas.fill(from, to, paint),
            Mark::Text { text, at, size, ink } => fonts.write(&mut canvas, text, at, size, ink),
        }
    }
    let png = encode(&canvas.pixels, WIDTH, height);
    PIXELS.set(canvas.pixels);
    png
}

/// What the chart shows and where: filled rectangles (bars, legend swatches) and lines of text
/// with their top-left corner.
#[derive(Debug, Clone, Copy)]
enum Mark<'a> {
    Shape { from: (i32, i32), to: (i32, i32), paint: Paint },
    Text { text: &'a str, at: (i32, i32), size: f32, ink: Ink },
}

/// Where everything of the chart goes.
fn layout<'a>(fonts: &Fonts, s: &'a Summary) -> Vec<Mark<'a>> {
    let mut marks = Vec::new();
    let write = |text: &'a str, x: i32, y: i32, size: f32, ink: Ink| Mark::Text { text, at: (x, y), size, ink };
    let rect = |from: (i32, i32), to: (i32, i32), paint: Paint| Mark::Shape { from, to, paint };
    // A long title is set smaller rather than cut.
    let room = (WIDTH as i32 - 2 * MARGIN) as f32;
    let title = TITLE * (room / fonts.width(&s.title, TITLE).max(1) as f32).min(1.0);
    marks.push(write(&s.title, MARGIN, MARGIN - 6, title, Ink::Text));
    // The legend: a swatch and the name of each bar.
    let mut x = MARGIN;
    for (name, paint) in [(&s.legend.0, Paint::Baseline), (&s.legend.1, Paint::Optimized)] {
        marks.push(rect((x, 80), (x + 18, 98), paint));
        marks.push(write(name, x + 26, 76, TEXT, Ink::Text));
        x += 26 + fonts.width(name, TEXT) + 32;
    }
    // The bars share one scale, so that profiles compare at a glance; the longest leaves room
    // for its value and the change.
    let mut widest_value = 0;
    let mut widest_change = 0;
    for p in &s.pairs {
        widest_value = widest_value.max(fonts.width(&p.baseline_text, TEXT)).max(fonts.width(&p.optimized_text, TEXT));
        widest_change = widest_change.max(fonts.width(&p.change, TEXT));
    }
    let room = (WIDTH as i32 - 2 * MARGIN - widest_value - widest_change - 40).max(1);
    let top = s.pairs.iter().flat_map(|p| [p.baseline, p.optimized]).flatten().fold(0.0_f64, f64::max);
    let length = |v: Option<f64>| match v {
        Some(v) if top > 0.0 && v.is_finite() && v > 0.0 => ((v / top) * f64::from(room)).round() as i32,
        _ => 0,
    };
    for (k, p) in s.pairs.iter().enumerate() {
        let y = HEAD + GROUP * k as i32;
        marks.push(write(&p.label, MARGIN, y, TEXT, Ink::Text));
        let rows = [
            (p.baseline, &p.baseline_text, Paint::Baseline, Ink::Muted),
            (p.optimized, &p.optimized_text, Paint::Optimized, Ink::Text),
        ];
        for (row, (value, text, paint, ink)) in rows.into_iter().enumerate() {
            let bar_top = y + 34 + row as i32 * (BAR + 6);
            let end = MARGIN + length(value);
            if end > MARGIN {
                marks.push(rect((MARGIN, bar_top), (end, bar_top + BAR), paint));
            }
            marks.push(write(text, end + 10, bar_top, TEXT, ink));
        }
        let ink = match p.trend {
            crate::analysis::Trend::Higher => Ink::Gain,
            crate::analysis::Trend::Lower => Ink::Loss,
            crate::analysis::Trend::Same => Ink::Muted,
        };
        let right = WIDTH as i32 - MARGIN - fonts.width(&p.change, TEXT);
        marks.push(write(&p.change, right, y + 34 + (BAR + 6) / 2, TEXT, ink));
    }
    marks
}

/// Palette indices as a PNG: the same palette, filter and compression every time.
///
/// One byte a pixel instead of three, so there is a third as much to filter and compress. Over
/// the 24 bundled charts (1200 pixels wide), with fast compression and each row filtered
/// against the one above (`Up`): 0.6 ms and 42 KB a chart on average, where the same pixels
/// in RGB took 1.4 ms for 104 KB with Paeth's filter, 2.7 ms for 99 KB trying every filter on
/// each row, and `High` compression more than 50 ms. A site of 200 studies draws 800 of these
/// charts, so these settings are what keep a build at seconds rather than most of a minute.
fn encode(pixels: &[u8], width: u32, height: u32) -> Result<Vec<u8>, PngError> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Indexed);
        encoder.set_palette(palette());
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Fast);
        encoder.set_filter(png::Filter::Up);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(pixels)?;
        writer.finish()?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(locale: &str, title: &str) -> Summary {
        let pair = |label: &str, b: f64, o: f64, trend| Pair {
            label: label.to_string(),
            baseline: Some(b),
            optimized: Some(o),
            baseline_text: format!("{b:.2} tok/s"),
            optimized_text: format!("{o:.2} tok/s"),
            change: format!("{:+.2}%", (o / b - 1.0) * 100.0),
            trend,
        };
        Summary {
            locale: locale.to_string(),
            title: title.to_string(),
            legend: ("Baseline".to_string(), "Optimized".to_string()),
            pairs: vec![
                pair("Balanced 8K/1K", 5481.9, 17525.76, crate::analysis::Trend::Higher),
                pair("Kısa bağlam", 13196.9, 12276.6, crate::analysis::Trend::Lower),
            ],
        }
    }

    #[test]
    fn the_palette_has_white_the_bars_and_every_shade_of_every_ink() {
        let p = palette();
        assert_eq!(p.len(), 3 * (1 + PAINTS.len() + INKS.len() * usize::from(SHADES)));
        assert!(p.len() <= 3 * 256);
        assert_eq!(&p[..3], &WHITE);
        assert_eq!(&p[3..9], &[PAINTS[0], PAINTS[1]].concat()[..]);
        // The last shade of each ink is the ink itself.
        for (k, ink) in INKS.iter().enumerate() {
            let at = 3 * usize::from(Ink::index([Ink::Text, Ink::Muted, Ink::Gain, Ink::Loss][k], SHADES));
            assert_eq!(&p[at..at + 3], ink);
        }
        for i in 0..=u8::MAX {
            assert!(strength(i) <= SHADES || i == Paint::Baseline.index() || i == Paint::Optimized.index());
        }
    }

    #[test]
    fn a_chart_is_the_same_bytes_whether_its_glyphs_were_cached_or_not() {
        let draw = |charts: Vec<Summary>| {
            std::thread::spawn(move || charts.iter().map(|c| summary(c).unwrap()).collect::<Vec<_>>()).join().unwrap()
        };
        let (en, zh) = (chart("en", "Total TPS by profile"), chart("zh", "各场景下的总 token 吞吐量"));
        // A thread of its own starts with an empty cache; the second and third drawings of the
        // same chart in one thread find their glyphs drawn.
        let cold = draw(vec![en.clone()]);
        let warm = draw(vec![zh.clone(), en.clone(), en.clone()]);
        assert_eq!(cold[0], warm[1]);
        assert_eq!(warm[1], warm[2]);
        assert_eq!(draw(vec![zh])[0], warm[0]);
        assert_ne!(warm[0], warm[1]);
    }
}
