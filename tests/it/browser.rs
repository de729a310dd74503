//! The committed site in a real browser: headless Chromium lays out the index and a study page,
//! the tables and charts take up space on a laptop and a phone, and the language switch leads to
//! the same study in Turkish. Chromium comes from Debian's `chromium` package: the test is
//! ignored by a plain `cargo test` (its summary counts it), and `.ci/run` installs Chromium and
//! runs it with `--include-ignored`, where a missing browser fails it.

use crate::common;

use common::root;
use std::process::Command;

fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser"]
        .into_iter()
        .find(|c| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()))
}

/// Loads `harness` (an HTML file) and returns the `data-result` JSON its script left in the DOM.
fn run(browser: &str, harness: &std::path::Path, width: u32) -> serde_json::Value {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--allow-file-access-from-files",
            "--virtual-time-budget=10000",
            &format!("--window-size={width},900"),
            &format!("--user-data-dir={}", profile.path().display()),
            "--dump-dom",
            &format!("file://{}", harness.display()),
        ])
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    let start = dom.find("data-result=\"").unwrap_or_else(|| panic!("no result in DOM:\n{dom}")) + 13;
    let end = start + dom[start..].find('"').unwrap();
    let json = dom[start..end].replace("&quot;", "\"").replace("&amp;", "&");
    serde_json::from_str(&json).unwrap()
}

/// A page that loads `target` in a frame of `width` pixels, measures it, follows the Turkish
/// link and reports what it found.
fn harness(dir: &std::path::Path, target: &std::path::Path, width: u32) -> std::path::PathBuf {
    let html = format!(
        r#"<!DOCTYPE html><html><body><iframe id="f" style="width:{width}px;height:800px" src="file://{target}"></iframe>
<script>
let loads = 0, first = null;
const frame = document.getElementById('f');
frame.onload = () => {{
  const d = frame.contentDocument;
  loads += 1;
  if (loads === 1) {{
    const visible = (el) => {{ const r = el.getBoundingClientRect(); return r.width > 50 && r.height > 20; }};
    const tables = [...d.querySelectorAll('table')];
    first = {{
      lang: d.documentElement.lang,
      tables: tables.length,
      visibleTables: tables.filter(visible).length,
      charts: d.querySelectorAll('figure.chart').length,
      visibleCharts: [...d.querySelectorAll('figure.chart svg')].filter(visible).length,
      chartWidth: Math.max(0, ...[...d.querySelectorAll('figure.chart svg')].map(s => s.getBoundingClientRect().width)),
      pageWidth: d.documentElement.scrollWidth,
      gains: d.querySelectorAll('.gain').length,
      gainColor: d.querySelector('.gain') ? getComputedStyle(d.querySelector('.gain')).color : '',
      lossColor: d.querySelector('.loss') ? getComputedStyle(d.querySelector('.loss')).color : '',
      details: d.querySelectorAll('details').length,
    }};
    const tr = d.querySelector('a[hreflang="tr"]');
    if (tr) {{ tr.click(); }} else {{ document.body.setAttribute('data-result', JSON.stringify({{first}})); }}
  }} else {{
    const after = {{ lang: d.documentElement.lang, h1: (d.querySelector('h1') || {{}}).textContent, path: d.location.pathname }};
    document.body.setAttribute('data-result', JSON.stringify({{first, after}}));
  }}
}};
</script></body></html>"#,
        target = target.display()
    );
    let path = dir.join(format!("harness-{width}.html"));
    std::fs::write(&path, html).unwrap();
    path
}

#[test]
#[ignore = "needs Chromium (.ci/run installs it): run with --include-ignored"]
fn chromium_study_page_renders_and_switches_language() {
    let browser = chromium().expect("chromium is not installed (apt-get install chromium)");
    let tmp = tempfile::tempdir().unwrap();
    let page = root().join("site/en/glm-5.2-fp8-h200.html");
    for width in [1280, 390] {
        let result = run(browser, &harness(tmp.path(), &page, width), width);
        let first = &result["first"];
        assert_eq!(first["lang"], "en", "{result}");
        // Before/after, summary of options, accuracy and the runs behind the data warnings,
        // every one laid out.
        assert_eq!(first["tables"], 4, "{result}");
        assert_eq!(first["visibleTables"], 4, "{result}");
        // Comparison, progression and one chart a stage, every one drawn in one of its layouts.
        assert_eq!(first["charts"], 9, "{result}");
        assert_eq!(first["visibleCharts"], 9, "{result}");
        assert!(first["chartWidth"].as_f64().unwrap() <= f64::from(width), "charts fit the screen: {result}");
        assert!(first["pageWidth"].as_f64().unwrap() <= f64::from(width) + 1.0, "nothing overflows the page: {result}");
        assert_eq!(first["gainColor"], "rgb(31, 122, 54)", "gains are green: {result}");
        assert_eq!(first["lossColor"], "rgb(180, 35, 24)", "losses are red: {result}");
        assert!(first["details"].as_u64().unwrap() > 20, "raw blocks stay collapsed: {result}");
        let after = &result["after"];
        assert_eq!(after["lang"], "tr", "{result}");
        assert_eq!(after["h1"], "8×H200 üzerinde GLM-5.2 işlem hacmi optimizasyonu", "{result}");
        assert!(after["path"].as_str().unwrap().ends_with("/site/tr/glm-5.2-fp8-h200.html"), "{result}");
    }
    // The index lists both studies and its switch leads to the Turkish index.
    let result = run(browser, &harness(tmp.path(), &root().join("site/en/index.html"), 1280), 1280);
    assert_eq!(result["first"]["lang"], "en", "{result}");
    assert_eq!(result["after"]["h1"], "Model sunumu optimizasyon rehberleri", "{result}");
}

/// The pages of the committed site: (path under `site/`, whether it is a study's page).
fn site_pages() -> Vec<(String, bool)> {
    let list = std::fs::read_to_string(root().join("site/.perflab-files")).unwrap();
    list.lines()
        .filter(|l| l.ends_with(".html"))
        .map(|l| (l.to_string(), l.contains('/') && !l.ends_with("/index.html")))
        .collect()
}

/// What a reader sees of the page in `frame` (a JavaScript function, `measure(frame)`):
/// elements wider than the frame outside a scroll box, the smallest chart text as drawn and the
/// chart texts cut short (`cut`), chart text outside its chart or over another, the table of
/// contents and the language switch's links.
const MEASURE: &str = r#"function measure(frame) {
  const d = frame.contentDocument, w = frame.contentWindow;
    const view = d.documentElement.clientWidth;
    const scrolls = (el) => {
      for (let p = el.parentElement; p; p = p.parentElement) {
        const o = w.getComputedStyle(p).overflowX;
        if ((o === 'auto' || o === 'scroll' || o === 'hidden') && p.getBoundingClientRect().right <= view + 1) return true;
      }
      return false;
    };
    const wide = [...d.body.querySelectorAll('*')].filter(el => {
      const r = el.getBoundingClientRect();
      // Entirely off screen on purpose (the skip link until focused) is not wider.
      return r.width > 0 && r.right > 0 && r.right > view + 1 && !scrolls(el);
    }).map(el => el.tagName + '.' + el.className + ' ' + Math.round(el.getBoundingClientRect().right));
    let smallest = 1000, texts = 0;
    for (const svg of d.querySelectorAll('figure.chart svg')) {
      const box = svg.getBoundingClientRect();
      if (box.width === 0) continue;
      const scale = box.width / svg.viewBox.baseVal.width;
      for (const t of svg.querySelectorAll('text')) {
        texts += 1;
        smallest = Math.min(smallest, parseFloat(w.getComputedStyle(t).fontSize) * scale);
      }
    }
    // Chart text as drawn: outside its chart, or over another text of it. A text's box is its
    // glyph cell (the font's ascent and descent), so boxes of lines that only touch overlap by a
    // sliver; a text is over another where the boxes share more than 30% of the lower one's height.
    const svgProblems = [];
    for (const svg of d.querySelectorAll('figure.chart svg')) {
      const box = svg.getBoundingClientRect();
      if (box.width === 0) continue;
      const drawn = [...svg.querySelectorAll('text')].map(t => [t, t.getBoundingClientRect()]).filter(p => p[1].width > 0);
      for (const [t, r] of drawn) {
        if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
          svgProblems.push('outside ' + svg.getAttribute('class') + ': ' + t.textContent);
      }
      for (let i = 0; i < drawn.length; i++) for (let j = i + 1; j < drawn.length; j++) {
        const [a, ra] = drawn[i], [b, rb] = drawn[j];
        const wide = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
        const high = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
        if (wide > 2 && high > 0.3 * Math.min(ra.height, rb.height))
          svgProblems.push('over ' + svg.getAttribute('class') + ': ' + a.textContent + ' / ' + b.textContent);
      }
    }
    const toc = d.querySelector('nav.toc');
    return {
      svgProblems: svgProblems.slice(0, 10),
      languages: [...d.querySelectorAll('nav.languages a[hreflang]')].map(a => [a.getAttribute('hreflang'), a.getAttribute('href')]),
      lang: d.documentElement.lang,
      view,
      pageWidth: d.documentElement.scrollWidth,
      wide: wide.slice(0, 10),
      smallest, texts,
      cut: [...d.querySelectorAll('figure.chart svg text')].map(t => t.textContent).filter(t => t.includes('…')).slice(0, 10),
      toc: toc ? toc.querySelectorAll('a').length : 0,
      tocFixed: toc ? w.getComputedStyle(toc).position : '',
    };
}
"#;

/// A page that loads `target` in a frame of `width` pixels and measures what a reader sees
/// ([`MEASURE`]), then follows the link to the other language.
fn measuring_harness(dir: &std::path::Path, target: &std::path::Path, width: u32, name: &str) -> std::path::PathBuf {
    let html = format!(
        r#"<!DOCTYPE html><html><body style="margin:0"><iframe id="f" style="width:{width}px;height:900px;border:0" src="file://{target}"></iframe>
<script>
{MEASURE}
let loads = 0, first = null;
const frame = document.getElementById('f');
frame.onload = () => {{
  const d = frame.contentDocument;
  loads += 1;
  if (loads === 1) {{
    first = measure(frame);
    const other = [...d.querySelectorAll('nav.languages a[hreflang]')].find(a => a.getAttribute('hreflang') !== d.documentElement.lang);
    if (other) {{ first.other = other.getAttribute('hreflang'); other.click(); }} else {{ document.body.setAttribute('data-result', JSON.stringify({{first}})); }}
  }} else {{
    const after = {{ lang: d.documentElement.lang, path: d.location.pathname }};
    document.body.setAttribute('data-result', JSON.stringify({{first, after}}));
  }}
}};
</script></body></html>"#,
        target = target.display()
    );
    let path = dir.join(format!("measure-{name}-{width}.html"));
    std::fs::write(&path, html).unwrap();
    path
}

/// A screenshot of `page` at `width`, kept under `target/browser/` for a reader of the test.
fn screenshot(browser: &str, page: &std::path::Path, width: u32, out: &std::path::Path) {
    shoot(browser, page, (width, 2000), out);
}

/// A screenshot of `page` in a window of `size` (width, height) into `out`.
fn shoot(browser: &str, page: &std::path::Path, (width, height): (u32, u32), out: &std::path::Path) {
    let profile = tempfile::tempdir().unwrap();
    let status = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--allow-file-access-from-files",
            &format!("--window-size={width},{height}"),
            &format!("--user-data-dir={}", profile.path().display()),
            &format!("--screenshot={}", out.display()),
            &format!("file://{}", page.display()),
        ])
        .output()
        .unwrap();
    assert!(status.status.success() && out.is_file(), "no screenshot of {}", page.display());
}

#[test]
#[ignore = "needs Chromium (.ci/run installs it): run with --include-ignored"]
fn chromium_every_page_fits_a_phone_and_a_laptop() {
    let browser = chromium().expect("chromium is not installed (apt-get install chromium)");
    let tmp = tempfile::tempdir().unwrap();
    let shots = root().join("target/browser");
    std::fs::create_dir_all(&shots).unwrap();
    let pages = site_pages();
    assert!(pages.iter().filter(|p| p.1).count() >= 24, "{pages:?}");
    for (rel, study) in &pages {
        let page = root().join("site").join(rel);
        let name = rel.replace('/', "-").trim_end_matches(".html").to_string();
        for width in [390, 1280] {
            let result = run(browser, &measuring_harness(tmp.path(), &page, width, &name), width);
            assert_fits(rel, *study, width, &result);
            // Pictures of DeepSeek's page and of the indexes in every language, for a reader.
            if name.contains("deepseek") || !*study {
                screenshot(browser, &page, width, &shots.join(format!("{name}-{width}.png")));
            }
        }
    }
}

/// What every page must hold in a browser at `width` (its measuring harness's `result`): nothing
/// wider than the screen; for a study's page, charts drawn with text of 10 px or more and every
/// label inside its chart and clear of the others, and a table of contents; a language switch
/// that links every language, each to this page in it, and leads to the same page in another.
fn assert_fits(rel: &str, study: bool, width: u32, result: &serde_json::Value) {
    let first = &result["first"];
    assert!(first["wide"].as_array().unwrap().is_empty(), "{rel} at {width} px: wider than the screen: {result}");
    assert!(
        first["pageWidth"].as_f64().unwrap() <= first["view"].as_f64().unwrap() + 1.0,
        "{rel} at {width}: {result}"
    );
    if study {
        assert!(first["texts"].as_u64().unwrap() > 20, "{rel}: charts drawn: {result}");
        assert!(first["smallest"].as_f64().unwrap() >= 10.0, "{rel} at {width} px: chart text below 10 px: {result}");
        assert!(first["toc"].as_u64().unwrap() >= 8, "{rel}: a table of contents: {result}");
        let sticky = if width >= 1024 { "sticky" } else { "static" };
        assert_eq!(first["tocFixed"], sticky, "{rel} at {width}: {result}");
    }
    // Every chart label (Chinese and Japanese ones included) inside its chart and clear
    // of the others.
    if study {
        assert!(
            first["svgProblems"].as_array().unwrap().is_empty(),
            "{rel} at {width} px: chart text misplaced: {result}"
        );
    }
    // The switch links every language, each to this page in it.
    let file = rel.rsplit('/').next().unwrap();
    let links: Vec<(String, String)> = first["languages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l[0].as_str().unwrap().to_string(), l[1].as_str().unwrap().to_string()))
        .collect();
    for l in ["en", "tr", "zh", "ja"] {
        assert!(
            links.iter().any(|(lang, href)| {
                lang == perflab::render::i18n::language_tag(l) && href.ends_with(&format!("{l}/{file}"))
            }),
            "{rel} at {width}: no link to {l}/{file}: {links:?}"
        );
    }
    // The language switch leads to the same page in the other language.
    if rel != "index.html" {
        let other = first["other"].as_str().unwrap_or_else(|| panic!("{rel}: no other language: {result}"));
        let after = &result["after"];
        assert_eq!(after["lang"], other, "{rel}: {result}");
        let file = rel.split_once('/').unwrap().1;
        let folder = ["en", "tr", "zh", "ja"]
            .into_iter()
            .find(|l| perflab::render::i18n::language_tag(l) == other)
            .unwrap_or_else(|| panic!("{rel}: {other} is no language of the site"));
        assert!(after["path"].as_str().unwrap().ends_with(&format!("/site/{folder}/{file}")), "{rel}: {result}");
    }
}

/// The page of a study that searches load curves under an SLO (`examples/sim-slo`, measured here
/// on the simulated engine with a shorter search) holds in every language at both widths as a
/// committed page does; its pictures are kept under `target/browser/`.
#[test]
#[ignore = "needs Chromium (.ci/run installs it): run with --include-ignored"]
fn chromium_the_slo_page_fits_a_phone_and_a_laptop() {
    let browser = chromium().expect("chromium is not installed (apt-get install chromium)");
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("results");
    let study = results.join("sim-slo");
    common::copy_dir(&root().join("examples/sim-slo"), &study);
    let spec = study.join("study.toml");
    let text = std::fs::read_to_string(&spec)
        .unwrap()
        .replace("max = 96, points = 24, confirm = 3", "max = 48, points = 6, confirm = 1")
        .replace("total_requests = 128", "total_requests = 48");
    assert!(text.contains("points = 6") && text.contains("total_requests = 48"), "{text}");
    std::fs::write(&spec, text).unwrap();
    let (code, out, err) = common::perflab(&["run", study.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let site = tmp.path().join("site");
    let (code, _, err) =
        common::perflab(&["build", "--results", results.to_str().unwrap(), "--out", site.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let shots = root().join("target/browser");
    std::fs::create_dir_all(&shots).unwrap();
    for locale in ["en", "tr", "zh", "ja"] {
        let rel = format!("{locale}/sim-slo.html");
        let page = site.join(&rel);
        let name = format!("slo-{locale}");
        for width in [390, 1280] {
            let result = run(browser, &measuring_harness(tmp.path(), &page, width, &name), width);
            assert_fits(&rel, true, width, &result);
            screenshot(browser, &page, width, &shots.join(format!("{name}-{width}.png")));
        }
    }
}

/// The Markdown drop-in built by mdBook puts the answer first: the recommended command's first
/// line is on the first screen of a phone (390 × 844) and of a laptop (1280 × 900), in English and
/// Turkish; pictures of both are kept under `target/browser/`.
#[test]
#[ignore = "needs mdBook and Chromium (.ci/run installs both): run with --include-ignored"]
fn mdbook_chromium_the_book_shows_the_command_on_its_first_screen() {
    let browser = chromium().expect("chromium is not installed (apt-get install chromium)");
    let tmp = tempfile::tempdir().unwrap();
    let (code, _, err) = common::perflab(&["build", "--out", tmp.path().join("site").to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let shots = root().join("target/browser");
    std::fs::create_dir_all(&shots).unwrap();
    for locale in ["en", "tr"] {
        let dir = tmp.path().join("site/md").join(locale);
        let out = Command::new("mdbook").arg("build").current_dir(&dir).output().expect("mdbook is not installed");
        assert!(out.status.success(), "{locale}: {}", String::from_utf8_lossy(&out.stderr));
        let page = dir.join("book/deepseek-v3.2-h200.html");
        for (width, height) in [(390, 844), (1280, 900)] {
            let harness = tmp.path().join(format!("book-{locale}-{width}.html"));
            let html = format!(
                r#"<!DOCTYPE html><html><body style="margin:0"><iframe id="f" style="width:{width}px;height:{height}px;border:0" src="file://{page}"></iframe>
<script>
const frame = document.getElementById('f');
frame.onload = () => {{
  const code = frame.contentDocument.querySelector('main pre code');
  const out = {{ found: !!code }};
  if (code) out.command = code.getBoundingClientRect().top + 24;
  out.text = code ? code.textContent.slice(0, 40) : '';
  document.body.setAttribute('data-result', JSON.stringify(out));
}};
</script></body></html>"#,
                page = page.display()
            );
            std::fs::write(&harness, html).unwrap();
            let r = run(browser, &harness, width);
            assert_eq!(r["found"], true, "{locale} at {width}: {r}");
            assert!(
                r["text"].as_str().unwrap().contains("sglang"),
                "{locale} at {width}: the first code is the command: {r}"
            );
            let line = r["command"].as_f64().unwrap();
            assert!(
                line <= height as f64,
                "{locale} at {width}: the command starts below the first screen ({line} px): {r}"
            );
            screenshot(browser, &page, width, &shots.join(format!("mdbook-{locale}-deepseek-{width}.png")));
        }
    }
}

fn tidy() -> Option<&'static str> {
    Command::new("tidy").arg("-version").output().is_ok_and(|o| o.status.success()).then_some("tidy")
}

#[test]
#[ignore = "needs tidy (.ci/run installs it): run with --include-ignored"]
fn tidy_every_page_is_valid_html() {
    let tidy = tidy().expect("tidy is not installed (apt-get install tidy)");
    let pages = site_pages();
    assert!(pages.len() >= 15, "{pages:?}");
    for (rel, _) in pages {
        let out = Command::new(tidy).args(["-errors", "-quiet"]).arg(root().join("site").join(&rel)).output().unwrap();
        let report = String::from_utf8_lossy(&out.stderr);
        // tidy does not know ARIA's `aria-current`: its one known false alarm here.
        let problems: Vec<&str> = report
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.contains(r#"proprietary attribute "aria-current""#))
            .collect();
        assert!(problems.is_empty(), "{rel}:\n{}", problems.join("\n"));
    }
}

/// A page that loads `target` in a frame of `width` × 844 pixels (a phone's first screen at 390)
/// and reports where the answer is: the header's height, the first line of the recommended
/// command, the first gain or loss, the change column of the before/after table (its second
/// column), and whether the table of contents takes room.
fn first_screen_harness(dir: &std::path::Path, target: &std::path::Path, width: u32, name: &str) -> std::path::PathBuf {
    let html = format!(
        r#"<!DOCTYPE html><html><body style="margin:0"><iframe id="f" style="width:{width}px;height:844px;border:0" src="file://{target}"></iframe>
<script>
const frame = document.getElementById('f');
frame.onload = () => {{
  const d = frame.contentDocument;
  const view = d.documentElement.clientWidth;
  const header = d.querySelector('header').getBoundingClientRect();
  const out = {{ view, header: header.height }};
  const code = d.querySelector('main pre code');
  if (code) {{
    const range = d.createRange();
    range.setStart(code.firstChild, 0);
    range.setEnd(code.firstChild, Math.min(code.firstChild.length, 20));
    out.command = range.getClientRects()[0].bottom;
  }}
  const gain = d.querySelector('main .gain, main .loss');
  if (gain) out.gain = gain.getBoundingClientRect().bottom;
  const row = d.querySelector('main table tbody tr');
  if (row) {{
    const change = row.children[1].getBoundingClientRect();
    out.change = [Math.round(change.left), Math.round(change.right), Math.round(change.width)];
  }}
  const toc = d.querySelector('nav.toc');
  if (toc) out.toc = toc.getBoundingClientRect().height;
  document.body.setAttribute('data-result', JSON.stringify(out));
}};
</script></body></html>"#,
        target = target.display()
    );
    let path = dir.join(format!("first-{name}-{width}.html"));
    std::fs::write(&path, html).unwrap();
    path
}

#[test]
#[ignore = "needs Chromium (.ci/run installs it): run with --include-ignored"]
fn chromium_the_answer_comes_first_on_a_phone() {
    let browser = chromium().expect("chromium is not installed (apt-get install chromium)");
    let tmp = tempfile::tempdir().unwrap();
    let pages: Vec<String> = site_pages().into_iter().filter(|p| p.1).map(|p| p.0).collect();
    assert!(pages.len() >= 24, "{pages:?}");
    let mut headers = std::collections::BTreeMap::new();
    for rel in &pages {
        let name = rel.replace('/', "-").trim_end_matches(".html").to_string();
        for width in [390, 1280] {
            let page = root().join("site").join(rel);
            let r = run(browser, &first_screen_harness(tmp.path(), &page, width, &name), width);
            let at = |key: &str| r[key].as_f64().unwrap_or_else(|| panic!("{rel} at {width}: no {key}: {r}"));
            // The change column of the before/after table is on screen, not behind a scroll.
            let change = &r["change"];
            assert!(change[2].as_f64().unwrap() > 0.0, "{rel} at {width}: {r}");
            assert!(
                change[0].as_f64().unwrap() >= 0.0 && change[1].as_f64().unwrap() <= at("view"),
                "{rel} at {width}: {r}"
            );
            if width == 390 {
                assert!(at("command") <= 844.0, "{rel}: the command's first line is below the first screen: {r}");
                assert!(at("gain") <= 844.0, "{rel}: the gain is below the first screen: {r}");
                assert_eq!(at("toc"), 0.0, "{rel}: the table of contents takes room before the answer: {r}");
            }
            headers.insert((rel.split('/').next().unwrap().to_string(), width), at("header"));
        }
    }
    // A site of 40 guides has the same header as the site of 6: it does not list them.
    let results = tmp.path().join("results");
    for i in 1..=40 {
        common::copy_dir(&root().join("results/qwen3-30b-a3b-910b"), &results.join(format!("guide-{i:02}")));
    }
    let out = tmp.path().join("site");
    let (code, _, err) =
        common::perflab(&["build", "--results", results.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    for lang in ["en", "tr"] {
        for width in [390, 1280] {
            let page = out.join(format!("{lang}/guide-07.html"));
            let r = run(browser, &first_screen_harness(tmp.path(), &page, width, &format!("forty-{lang}")), width);
            let six = headers[&(lang.to_string(), width)];
            assert_eq!(r["header"].as_f64().unwrap(), six, "{lang} at {width}: 40 guides against 6: {r}");
        }
    }
}

/// The bundled history of three engine releases (`examples/sim-trend`), built as a site of its
/// own: its page in every language fits a phone and a laptop, its charts (the releases' one
/// among them) drawn with their text in place and none cut short. All eight pages are measured
/// in one browser start and pictured in another (a start costs seconds on two cores), each
/// picture scrolled to the releases' section: `target/browser/sim-trend-{locale}-{width}.png`.
#[test]
#[ignore = "needs Chromium (.ci/run installs it): run with --include-ignored"]
fn chromium_the_release_history_example_fits_a_phone_and_a_laptop() {
    let browser = chromium().expect("chromium is not installed (apt-get install chromium)");
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("results");
    common::copy_dir(&root().join("examples/sim-trend"), &results.join("sim-trend"));
    let out = tmp.path().join("site");
    let status = common::site_build(&results, &out).status().unwrap();
    assert!(status.success());
    let mut pages = Vec::new();
    for locale in ["en", "tr", "zh", "ja"] {
        let page = out.join(locale).join("sim-trend.html");
        let html = std::fs::read_to_string(&page).unwrap();
        // The releases' chart is drawn inline, a point a release on each side.
        assert!(html.contains("Sim 1.0 → ") && html.contains("Sim 1.2 → "), "{locale}: the releases' chart");
        pages.extend([390, 1280].map(|width| (locale, width, page.clone())));
    }
    let frames: Vec<(std::path::PathBuf, u32)> = pages.iter().map(|(_, w, p)| (p.clone(), *w)).collect();
    let results = run(browser, &frames_harness(tmp.path(), &frames, "sim-trend"), 1280);
    for ((locale, width, _), result) in pages.iter().zip(results.as_array().unwrap()) {
        let first = &result["first"];
        // Each frame is as wide as asked, less its scroll bar.
        let view = first["view"].as_f64().unwrap();
        assert!(view <= f64::from(*width) && view > f64::from(*width) - 20.0, "{locale} at {width} px: {result}");
        assert!(first["wide"].as_array().unwrap().is_empty(), "{locale} at {width} px: {result}");
        assert!(first["pageWidth"].as_f64().unwrap() <= f64::from(*width) + 1.0, "{locale} at {width} px: {result}");
        assert!(first["texts"].as_u64().unwrap() > 20, "{locale} at {width} px: charts drawn: {result}");
        assert!(first["smallest"].as_f64().unwrap() >= 10.0, "{locale} at {width} px: {result}");
        assert!(first["svgProblems"].as_array().unwrap().is_empty(), "{locale} at {width} px: {result}");
        assert!(first["cut"].as_array().unwrap().is_empty(), "{locale} at {width} px: chart text cut: {result}");
    }
    let shots = root().join("target/browser");
    std::fs::create_dir_all(&shots).unwrap();
    let named: Vec<_> =
        pages.iter().map(|(l, w, p)| (p.clone(), *w, shots.join(format!("sim-trend-{l}-{w}.png")))).collect();
    screenshots(browser, tmp.path(), &named, "Sim 1.0 → ");
}

/// A page that loads each of `frames` (a page and a width) in a frame of its own, side by side,
/// and measures each as [`measuring_harness`] does (without following the language switch);
/// its result is a list of `{first}`, in the order of `frames`.
fn frames_harness(dir: &std::path::Path, frames: &[(std::path::PathBuf, u32)], name: &str) -> std::path::PathBuf {
    let iframes: String = frames
        .iter()
        .map(|(page, width)| {
            format!(
                r#"<iframe style="width:{width}px;height:900px;border:0" src="file://{}"></iframe>"#,
                page.display()
            )
        })
        .collect();
    let html = format!(
        r#"<!DOCTYPE html><html><body style="margin:0;white-space:nowrap">{iframes}
<script>
{MEASURE}
const frames = [...document.querySelectorAll('iframe')];
const results = [];
let left = frames.length;
frames.forEach((frame, i) => frame.onload = () => {{
  results[i] = {{ first: measure(frame) }};
  if (--left === 0) document.body.setAttribute('data-result', JSON.stringify(results));
}});
</script></body></html>"#
    );
    let path = dir.join(format!("frames-{name}.html"));
    std::fs::write(&path, html).unwrap();
    path
}

/// Pictures of several pages, each at its width, in one browser start: the pages side by side
/// in frames 2000 px high, each scrolled to the `h2` before the chart whose description holds
/// `scroll_to`, the one picture cut into a PNG a page (`frames`: page, width, PNG).
fn screenshots(
    browser: &str,
    dir: &std::path::Path,
    frames: &[(std::path::PathBuf, u32, std::path::PathBuf)],
    scroll_to: &str,
) {
    const HIGH: u32 = 2000;
    let mut x = 0;
    let mut iframes = String::new();
    for (page, width, _) in frames {
        iframes += &format!(
            r#"<iframe style="position:absolute;top:0;left:{x}px;width:{width}px;height:{HIGH}px;border:0" src="file://{}"></iframe>"#,
            page.display()
        );
        x += width;
    }
    let html = format!(
        r#"<!DOCTYPE html><html><body style="margin:0">{iframes}
<script>
for (const frame of document.querySelectorAll('iframe')) frame.onload = () => {{
  const d = frame.contentDocument;
  const svg = [...d.querySelectorAll('figure.chart svg')].find(s => (s.querySelector('desc') || {{}}).textContent.includes({scroll_to:?}));
  let h = svg && svg.closest('figure');
  while (h && h.tagName !== 'H2') h = h.previousElementSibling;
  if (h) frame.contentWindow.scrollTo(0, h.getBoundingClientRect().top + frame.contentWindow.scrollY);
}};
</script></body></html>"#
    );
    let harness = dir.join("screenshots.html");
    std::fs::write(&harness, html).unwrap();
    let all = dir.join("screenshots.png");
    shoot(browser, &harness, (x, HIGH), &all);
    let mut reader =
        png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&all).unwrap())).read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    let bytes = info.line_size / info.width as usize;
    assert!(info.width >= x && info.height >= HIGH, "{info:?}");
    let mut left = 0;
    for (_, width, png_path) in frames {
        let mut part = Vec::new();
        for row in pixels.chunks(info.line_size).take(HIGH as usize) {
            part.extend_from_slice(&row[left as usize * bytes..(left + width) as usize * bytes]);
        }
        let file = std::io::BufWriter::new(std::fs::File::create(png_path).unwrap());
        let mut encoder = png::Encoder::new(file, *width, HIGH);
        encoder.set_color(info.color_type);
        encoder.set_depth(info.bit_depth);
        encoder.write_header().unwrap().write_image_data(&part).unwrap();
        left += width;
    }
}
