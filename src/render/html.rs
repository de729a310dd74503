//! Markdown → HTML with pulldown-cmark. Charts referenced as images are put inline, tables get a
//! scrolling wrapper for narrow screens. Study text reaches this point already made safe by the
//! view ([`super::markdown`]); as a second line of defence, raw HTML other than the page's own
//! tags (`<details>`, `<summary>`, `<span class>`, `<br>`, `lang` on `<span>` and `<div>`) is shown as text, and links to
//! addresses that are not allowed lose their link.

use super::markdown;
pub use super::markdown::escape;
use pulldown_cmark::{CowStr, Event, HeadingLevel, Parser, Tag, TagEnd, html};

/// Whether raw HTML in a page's Markdown is made only of the tags the page templates write.
fn own_html(raw: &str) -> bool {
    let mut rest = raw;
    while let Some(start) = rest.find('<') {
        let Some(len) = rest[start..].find('>') else { return false };
        let tag = &rest[start..start + len + 1];
        let attribute = |open: &str| {
            tag.starts_with(open)
                && tag.ends_with("\">")
                && tag[open.len()..tag.len() - 2].chars().all(|c| c.is_ascii_lowercase() || c == '-')
        };
        let allowed =
            matches!(tag, "<details>" | "</details>" | "<summary>" | "</summary>" | "<br>" | "</span>" | "</div>")
                || attribute("<span class=\"")
                || attribute("<span lang=\"")
                || attribute("<div lang=\"");
        if !allowed {
            return false;
        }
        rest = &rest[start + len + 1..];
    }
    true
}

/// A heading of a page, for its table of contents.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Heading {
    pub level: u8,
    pub id: String,
    pub text: String,
}

/// A lower-case letter or digit as ASCII: Turkish and other Latin letters lose their marks
/// (`ç` → `c`, `ı` → `i`), other scripts are left out.
fn ascii(c: char) -> Option<char> {
    if c.is_ascii_alphanumeric() {
        return Some(c);
    }
    let plain = match c {
        'ç' => 'c',
        'ğ' => 'g',
        'ı' | 'i' | 'î' | 'í' | 'ì' | 'ï' => 'i',
        'ö' | 'ô' | 'ó' | 'ò' => 'o',
        'ş' => 's',
        'ü' | 'û' | 'ú' | 'ù' => 'u',
        'â' | 'à' | 'á' | 'ä' => 'a',
        'é' | 'è' | 'ê' | 'ë' => 'e',
        _ => return None,
    };
    Some(plain)
}

/// An id for a heading: its words in lower case and ASCII, joined by `-`, made unique on the
/// page with a number.
fn slug(text: &str, taken: &mut Vec<String>) -> String {
    let mut out = String::new();
    for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push('-');
        }
        out.extend(word.chars().flat_map(char::to_lowercase).filter_map(ascii));
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert_str(0, "s-");
    }
    let mut id = out.clone();
    let mut n = 2;
    while taken.contains(&id) {
        id = format!("{out}-{n}");
        n += 1;
    }
    taken.push(id.clone());
    id
}

/// The level and id of each heading of `markdown`, as [`render_page`] gives them: what a page
/// in another language borrows ([`render_page_borrowing`]).
pub fn heading_ids(markdown: &str) -> Vec<(u8, String)> {
    let (events, _) = anchor_headings(Parser::new_ext(markdown, markdown::options()).collect(), &[]);
    events
        .iter()
        .filter_map(|e| match e {
            Event::Start(Tag::Heading { level, id: Some(id), .. }) => Some((*level as u8, id.to_string())),
            _ => None,
        })
        .collect()
}

/// Gives every heading an id (the one `ids` holds at its place, if any, otherwise one from its
/// words) and a link to itself, and lists the second and third levels.
fn anchor_headings<'a>(events: Vec<Event<'a>>, ids: &[String]) -> (Vec<Event<'a>>, Vec<Heading>) {
    let mut out = Vec::with_capacity(events.len());
    let mut toc = Vec::new();
    let mut taken = Vec::new();
    // The heading being read: where its start is in `out`, and its level.
    let mut open: Option<(usize, HeadingLevel)> = None;
    for event in events {
        match event {
            Event::Start(Tag::Heading { level, id: None, .. }) if open.is_none() => {
                open = Some((out.len(), level));
                out.push(event);
            }
            Event::End(TagEnd::Heading(_)) => {
                let Some((start, level)) = open.take() else {
                    out.push(event);
                    continue;
                };
                let text: String = out[start + 1..]
                    .iter()
                    .filter_map(|e| match e {
                        Event::Text(t) | Event::Code(t) => Some(t.as_ref()),
                        _ => None,
                    })
                    .collect();
                let id = match ids.get(taken.len()) {
                    Some(id) => {
                        taken.push(id.clone());
                        id.clone()
                    }
                    None => slug(&text, &mut taken),
                };
                let n = level as u8;
                if let Event::Start(Tag::Heading { id: slot, .. }) = &mut out[start] {
                    *slot = Some(CowStr::from(id.clone()));
                }
                if n > 1 {
                    out.push(Event::InlineHtml(CowStr::from(format!(" <a class=\"anchor\" href=\"#{id}\">#</a>"))));
                }
                if (2..=3).contains(&n) {
                    toc.push(Heading { level: n, id, text });
                }
                out.push(event);
            }
            other => out.push(other),
        }
    }
    (out, toc)
}

/// Gives every body cell of a table its column's heading as `data-label`, so that on a phone the
/// style sheet can lay a row out as a card (each value under its heading) instead of a table
/// wider than the screen.
fn label_cells(events: Vec<Event<'_>>) -> Vec<Event<'_>> {
    let mut out = Vec::with_capacity(events.len());
    let mut headings: Vec<String> = Vec::new();
    let (mut in_head, mut column) = (false, 0);
    let mut align = Vec::new();
    for event in events {
        match &event {
            Event::Start(Tag::Table(a)) => {
                align = a.clone();
                headings.clear();
            }
            Event::Start(Tag::TableHead) => in_head = true,
            Event::End(TagEnd::TableHead) => in_head = false,
            Event::Start(Tag::TableRow) => column = 0,
            Event::Start(Tag::TableCell) if in_head => headings.push(String::new()),
            Event::Text(t) | Event::Code(t) if in_head => {
                if let Some(h) = headings.last_mut() {
                    h.push_str(t);
                }
            }
            Event::Start(Tag::TableCell) => {
                let style = match align.get(column) {
                    Some(pulldown_cmark::Alignment::Left) => " style=\"text-align: left\"",
                    Some(pulldown_cmark::Alignment::Center) => " style=\"text-align: center\"",
                    Some(pulldown_cmark::Alignment::Right) => " style=\"text-align: right\"",
                    _ => "",
                };
                let label = headings.get(column).map(|h| escape(h)).unwrap_or_default();
                out.push(Event::Html(CowStr::from(format!("<td data-label=\"{label}\"{style}>"))));
                continue;
            }
            Event::End(TagEnd::TableCell) if !in_head => {
                column += 1;
                out.push(Event::Html(CowStr::from("</td>")));
                continue;
            }
            _ => {}
        }
        out.push(event);
    }
    out
}

/// A page's HTML and its table of contents.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub body: String,
    pub toc: Vec<Heading>,
}

/// Renders `markdown`; an image whose source `inline` resolves to SVG text is replaced by it.
pub fn render(markdown: &str, inline: &dyn Fn(&str) -> Option<String>) -> String {
    render_page(markdown, inline).body
}

/// Renders `markdown` as [`render`] does, with heading anchors and a table of contents.
pub fn render_page(markdown: &str, inline: &dyn Fn(&str) -> Option<String>) -> Rendered {
    render_page_from(markdown, None, inline)
}

/// [`render_page`], the headings' ids taken from `source` (the same page in the source
/// language) as [`markdown::borrowed_ids`] takes them, when it is given.
pub fn render_page_from(markdown: &str, source: Option<&str>, inline: &dyn Fn(&str) -> Option<String>) -> Rendered {
    render_page_borrowing(markdown, source.map(heading_ids).as_deref(), inline)
}

/// [`render_page_from`] with the source page's headings already read ([`heading_ids`]), so that
/// the pages of every language can share them.
pub fn render_page_borrowing(
    markdown: &str,
    source: Option<&[(u8, String)]>,
    inline: &dyn Fn(&str) -> Option<String>,
) -> Rendered {
    render_page_relinked(markdown, source, &|_| Target::Same, inline)
}

/// Where a link or an image of a page's Markdown points in its HTML.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Where it points in the Markdown.
    Same,
    /// At this address instead.
    At(String),
    /// Nowhere: a link's text stays, an image is left out (with a paragraph it leaves empty).
    Left,
}

/// [`render_page_borrowing`], each link's and image's address first replaced as `relink` says.
pub fn render_page_relinked(
    markdown: &str,
    source: Option<&[(u8, String)]>,
    relink: &dyn Fn(&str) -> Target,
    inline: &dyn Fn(&str) -> Option<String>,
) -> Rendered {
    let mut events = Vec::new();
    let mut skipping = false;
    // The inlined chart whose image is being read, and its alternative text (the caption).
    let mut chart: Option<(String, String)> = None;
    // Open links and images whose address is refused: whether each one's end is dropped too.
    let mut refused: Vec<bool> = Vec::new();
    for event in Parser::new_ext(markdown, markdown::options()) {
        let event = if skipping { Some(event) } else { relinked(event, relink, &mut refused, &mut skipping) };
        let Some(event) = event else { continue };
        match event {
            Event::End(TagEnd::Image) if skipping => {
                skipping = false;
                // The chart's title is drawn in it and is its accessible name: no caption repeats it.
                if let Some((svg, _)) = chart.take() {
                    events.push(Event::Html(CowStr::from(format!("<figure class=\"chart\">{svg}</figure>"))));
                }
            }
            Event::Text(ref t) | Event::Code(ref t) if skipping => {
                if let Some((_, alt)) = chart.as_mut() {
                    alt.push_str(t);
                }
            }
            _ if skipping => {}
            Event::Html(ref raw) | Event::InlineHtml(ref raw) if !own_html(raw) => {
                events.push(Event::Text(CowStr::from(raw.to_string())));
            }
            Event::Start(Tag::Link { ref dest_url, .. }) => {
                let ok = markdown::link_allowed(dest_url);
                refused.push(!ok);
                if ok {
                    events.push(event);
                }
            }
            Event::End(TagEnd::Link) => {
                if !refused.pop().unwrap_or(false) {
                    events.push(event);
                }
            }
            Event::Start(Tag::Image { ref dest_url, .. }) if !markdown::link_allowed(dest_url) => {
                refused.push(true);
            }
            Event::End(TagEnd::Image) => {
                if !refused.pop().unwrap_or(false) {
                    events.push(event);
                }
            }
            Event::Start(Tag::Image { ref dest_url, .. }) => match inline(dest_url) {
                Some(svg) => {
                    chart = Some((svg, String::new()));
                    skipping = true;
                }
                None => {
                    refused.push(false);
                    events.push(event)
                }
            },
            Event::Start(Tag::Table(_)) => {
                events.push(Event::Html(CowStr::from("<div class=\"table\">")));
                events.push(event);
            }
            Event::End(TagEnd::Table) => {
                events.push(event);
                events.push(Event::Html(CowStr::from("</div>")));
            }
            other => events.push(other),
        }
    }
    let kept = unwrap_figures(events);
    let ids = source.map_or_else(Vec::new, |source| ids_from_source(&kept, source));
    let (kept, toc) = anchor_headings(label_cells(kept), &ids);
    let mut out = String::with_capacity(markdown.len() * 2);
    html::push_html(&mut out, kept.into_iter());
    Rendered { body: out, toc }
}

/// `event` with its address replaced as `relink` says; None for the start of a link or an image
/// left out ([`Target::Left`]). A link left out is `refused`, so that its end goes too and its
/// text stays; an image left out sets `skipping`, so that its text goes too.
fn relinked<'a>(
    event: Event<'a>,
    relink: &dyn Fn(&str) -> Target,
    refused: &mut Vec<bool>,
    skipping: &mut bool,
) -> Option<Event<'a>> {
    let event = match event {
        Event::Start(Tag::Link { link_type, dest_url, title, id }) => match relink(&dest_url) {
            Target::Same => Event::Start(Tag::Link { link_type, dest_url, title, id }),
            Target::At(url) => Event::Start(Tag::Link { link_type, dest_url: url.into(), title, id }),
            Target::Left => {
                refused.push(true);
                return None;
            }
        },
        Event::Start(Tag::Image { link_type, dest_url, title, id }) => match relink(&dest_url) {
            Target::Same => Event::Start(Tag::Image { link_type, dest_url, title, id }),
            Target::At(url) => Event::Start(Tag::Image { link_type, dest_url: url.into(), title, id }),
            Target::Left => {
                *skipping = true;
                return None;
            }
        },
        other => other,
    };
    Some(event)
}

/// The ids a page's headings take from the source language's headings, matched by level.
fn ids_from_source(events: &[Event<'_>], source: &[(u8, String)]) -> Vec<String> {
    let levels: Vec<u8> = events
        .iter()
        .filter_map(|e| match e {
            Event::Start(Tag::Heading { level, .. }) => Some(*level as u8),
            _ => None,
        })
        .collect();
    markdown::borrowed_ids(&levels, source)
}

/// A figure is not phrasing content: a paragraph that holds only a chart is the figure.
/// A paragraph left empty by an image left out ([`Target::Left`]) goes too.
fn unwrap_figures(events: Vec<Event<'_>>) -> Vec<Event<'_>> {
    let is_figure = |e: &Event| matches!(e, Event::Html(h) if h.starts_with("<figure class=\"chart\">"));
    let mut kept: Vec<Event<'_>> = Vec::with_capacity(events.len());
    for event in events {
        let n = kept.len();
        if matches!(event, Event::End(TagEnd::Paragraph)) && matches!(kept.last(), Some(Event::Start(Tag::Paragraph))) {
            kept.pop();
            continue;
        }
        // `<p>`, the figure, `</p>`: the figure takes the paragraph's place.
        if matches!(event, Event::End(TagEnd::Paragraph))
            && n >= 2
            && matches!(kept[n - 2], Event::Start(Tag::Paragraph))
            && is_figure(&kept[n - 1])
        {
            kept.swap_remove(n - 2);
            continue;
        }
        kept.push(event);
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relinked_addresses_change_and_a_left_image_takes_its_paragraph() {
        let md = "# T\n\n![sum](a/s.png)\n\nSee [data](a/d.csv) and [x](b/x).\n\n![c](a/c.svg)\n";
        let relink = |url: &str| match url {
            "a/s.png" => Target::Left,
            "a/d.csv" => Target::At("../data/d.csv".to_string()),
            "b/x" => Target::Left,
            _ => Target::Same,
        };
        let out = render_page_relinked(md, None, &relink, &|_| None).body;
        assert!(!out.contains("s.png") && !out.contains("sum") && !out.contains("<p></p>"), "{out}");
        assert!(out.contains("<a href=\"../data/d.csv\">data</a>"), "{out}");
        // A link left out keeps its text.
        assert!(out.contains("and x.") && !out.contains("b/x"), "{out}");
        assert!(out.contains("src=\"a/c.svg\""), "{out}");
    }

    #[test]
    fn charts_go_inline_and_tables_scroll() {
        let md = "![a chart](c/x.svg)\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n";
        let out = render(md, &|src| (src == "c/x.svg").then(|| "<svg></svg>".to_string()));
        assert!(out.contains("<figure class=\"chart\"><svg></svg></figure>"), "{out}");
        assert!(!out.contains("<p><figure"), "a figure is never inside a paragraph: {out}");
        assert!(out.contains("<div class=\"table\"><table>"), "{out}");
        assert!(out.contains("<td data-label=\"a\">1</td><td data-label=\"b\">2</td>"), "{out}");
    }

    #[test]
    fn headings_get_unique_ids_links_and_a_table_of_contents() {
        let out = render_page("# T\n\n## Çıkarım motoru\n\n### 1. A\n\n### 1. A\n", &|_| None);
        assert!(
            out.body.contains(
                r##"<h2 id="cikarim-motoru">Çıkarım motoru <a class="anchor" href="#cikarim-motoru">#</a></h2>"##
            ),
            "{}",
            out.body
        );
        let ids: Vec<&str> = out.toc.iter().map(|h| h.id.as_str()).collect();
        assert_eq!(ids, ["cikarim-motoru", "s-1-a", "s-1-a-2"]);
        assert_eq!(out.toc[1].text, "1. A");
    }

    #[test]
    fn cjk_headings_take_the_ids_of_the_source_page() {
        let en = "# Title\n\n## Conclusion\n\n### 1. A\n";
        let out = render_page_from("# 标题\n\n## 结论\n\n### 1. 甲\n", Some(en), &|_| None);
        assert!(out.body.contains(r##"<h2 id="conclusion">结论 <a class="anchor" href="#conclusion">#</a></h2>"##));
        let ids: Vec<&str> = out.toc.iter().map(|h| h.id.as_str()).collect();
        assert_eq!(ids, ["conclusion", "s-1-a"]);
        let other = render_page_from("# 标题\n\n## 结论\n\n## 乙\n", Some(en), &|_| None);
        let ids: Vec<&str> = other.toc.iter().map(|h| h.id.as_str()).collect();
        assert_eq!(ids, ["s-1-1", "s-1-2"]);
    }

    #[test]
    fn escaped_study_text_stays_text() {
        let out = render("a &lt;script&gt;alert(1)&lt;/script&gt;", &|_| None);
        assert!(out.contains("&lt;script&gt;"), "{out}");
        assert!(!out.contains("<script>"));
    }
}
