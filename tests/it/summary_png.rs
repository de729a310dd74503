//! The summary PNG of every study in every language: drawn to scale from the analysis, every
//! character in the shipped fonts, the same bytes on every build, and opening every drop-in page
//! (but not the site's HTML page, which opens with its answer).

use crate::common;

use common::root;
use perflab::analysis::analyze;
use perflab::render::{Flavor, Renderer};
use perflab::site::Site;
use perflab::study::Study;

fn studies() -> Vec<Study> {
    perflab::study::discover(&root().join("results")).unwrap().iter().map(|d| Study::load(d).unwrap()).collect()
}

/// A decoded PNG: (width, height, RGB pixels).
fn decode(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    // The chart is stored as palette indices; expanded, they are the colours a viewer shows.
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().unwrap();
    assert_eq!(reader.info().color_type, png::ColorType::Indexed);
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.color_type, info.bit_depth), (png::ColorType::Rgb, png::BitDepth::Eight));
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

/// The bars of one colour, top to bottom: the length in pixels of each run of rows whose pixel at
/// the bars' left edge has that colour.
fn bars(png: &(u32, u32, Vec<u8>), colour: [u8; 3]) -> Vec<u32> {
    let (w, h, px) = png;
    let at = |x: u32, y: u32| {
        let i = ((y * w + x) * 3) as usize;
        [px[i], px[i + 1], px[i + 2]]
    };
    let left = 33;
    let mut out = Vec::new();
    // Below the title and the legend's swatches.
    let mut y = 110;
    while y < *h {
        if at(left, y) == colour {
            let mid = y + 10;
            out.push((left..*w).take_while(|&x| at(x, mid) == colour).count() as u32);
            while y < *h && at(left, y) == colour {
                y += 1;
            }
        }
        y += 1;
    }
    out
}

#[test]
fn the_bars_are_drawn_to_scale_from_the_analysis() {
    let renderer = Renderer::new(None).unwrap();
    for study in studies() {
        let analysis = analyze(&study);
        let summary = perflab::render::view::summary_chart(&study, &analysis, renderer.catalog("en").unwrap()).unwrap();
        let png = decode(&perflab::render::png::summary(&summary).unwrap());
        assert_eq!(png.0, 1200);
        let (base, best) = (bars(&png, [0x9a, 0xa4, 0xae]), bars(&png, [0x1f, 0x6f, 0xeb]));
        let values: Vec<(Option<f64>, Option<f64>)> = analysis
            .scenarios
            .iter()
            .map(|s| {
                // The recommended command's own figure where stages are left out of it.
                let beside = if s.recommended_change.is_some() { &s.recommended } else { &s.optimized };
                (s.baseline.as_ref().and_then(|m| m.value), beside.as_ref().and_then(|m| m.value))
            })
            .collect();
        let top = values.iter().flat_map(|(a, b)| [*a, *b]).flatten().fold(0.0, f64::max);
        let longest = *base.iter().chain(&best).max().unwrap() as f64;
        let drawn: Vec<f64> = values.iter().flat_map(|(a, b)| [*a, *b]).flatten().collect();
        let measured: Vec<f64> = base.iter().zip(&best).flat_map(|(a, b)| [*a as f64, *b as f64]).collect();
        assert_eq!(drawn.len(), measured.len(), "{}: one bar a measured value", study.id);
        for (value, length) in drawn.iter().zip(&measured) {
            let expected = value / top * longest;
            assert!(
                (expected - length).abs() <= 1.5,
                "{}: {value} drawn {length} px, expected {expected:.1}",
                study.id
            );
        }
    }
}

#[test]
fn every_character_of_every_language_is_in_the_shipped_fonts() {
    let renderer = Renderer::new(None).unwrap();
    for study in studies() {
        let analysis = analyze(&study);
        for locale in renderer.locales() {
            let c = renderer.catalog(&locale).unwrap();
            let summary = perflab::render::view::summary_chart(&study, &analysis, c).unwrap();
            let missing = perflab::render::png::missing(&summary).unwrap();
            assert!(missing.is_empty(), "{} ({locale}): no glyph for {missing:?}", study.id);
        }
    }
    // The check can fail: a character of neither font is reported.
    let mut summary =
        perflab::render::view::summary_chart(&studies()[0], &analyze(&studies()[0]), renderer.catalog("en").unwrap())
            .unwrap();
    summary.title.push('\u{10FFFD}');
    assert_eq!(perflab::render::png::missing(&summary).unwrap(), ['\u{10FFFD}']);
}

#[test]
fn the_png_is_the_same_bytes_on_every_build_and_opens_every_drop_in_page() {
    let renderer = Renderer::new(None).unwrap();
    let sites = [Flavor::Commonmark, Flavor::Mkdocs].map(|f| Site::build(&studies(), &renderer, f).unwrap());
    let pngs: Vec<&String> = sites[0].files.keys().filter(|k| k.ends_with("/summary.png")).collect();
    assert_eq!(pngs.len(), studies().len() * renderer.locales().len());
    for path in &pngs {
        assert_eq!(sites[0].files[*path], sites[1].files[*path], "{path}");
        assert!(sites[0].files[*path].starts_with(b"\x89PNG\r\n\x1a\n"), "{path}");
    }
    let files = &sites[0].files;
    let en = &files["md/en/glm-5.2-fp8-h200/summary.png"];
    assert_ne!(en, &files["md/tr/glm-5.2-fp8-h200/summary.png"], "each language has its own labels");
    assert_ne!(en, &files["md/zh/glm-5.2-fp8-h200/summary.png"]);
    for site in &sites {
        opens_every_drop_in_page(site);
    }
}

/// Every Markdown page shows its summary PNG once, right after the recommended command (the
/// answer comes first, and the picture sums it up); no HTML page shows it.
fn opens_every_drop_in_page(site: &Site) {
    let mut pages = 0;
    for (path, bytes) in &site.files {
        let Some(rest) = path.strip_prefix("md/") else {
            if path.ends_with(".html") {
                assert!(!String::from_utf8_lossy(bytes).contains("summary.png"), "{path} shows the PNG");
            }
            continue;
        };
        let Some((locale, file)) = rest.split_once('/') else { continue };
        let Some(id) = file.strip_suffix(".md").filter(|id| !id.contains('/') && *id != "SUMMARY") else {
            continue;
        };
        pages += 1;
        assert!(site.files.contains_key(&format!("md/{locale}/{id}/summary.png")), "{path}");
        let text = String::from_utf8_lossy(bytes);
        let body: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with("<div")).collect();
        assert!(body[0].starts_with("# "), "{path}: {:?}", body[0]);
        assert!(body[1].starts_with("## "), "{path}: the conclusion follows the title: {}", body[1]);
        let picture = format!("]({id}/summary.png)");
        let at: Vec<usize> = body
            .iter()
            .enumerate()
            .filter(|(_, l)| l.starts_with("![") && l.ends_with(&picture))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(at.len(), 1, "{path}: the picture once");
        let command = body.iter().position(|l| *l == "```bash").unwrap_or_else(|| panic!("{path}: no command"));
        let end =
            command + body[command..].iter().position(|l| *l == "```").unwrap_or_else(|| panic!("{path}: open fence"));
        assert!(at[0] > end, "{path}: the picture comes before the command");
        let heading = body[end..].iter().position(|l| l.starts_with("### ")).map_or(usize::MAX, |i| end + i);
        assert!(at[0] < heading, "{path}: the picture belongs to the conclusion");
    }
    assert_eq!(pages, studies().len() * 4);
}
