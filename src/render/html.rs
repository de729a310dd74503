//! Markdown → HTML with pulldown-cmark. Charts referenced as images are put inline, tables get a
//! scrolling wrapper for narrow screens. Study text reaches this point already escaped by the
//! view, so the only raw HTML passed through is the page's own (`<details>`, `<span>`, `<br>`).

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd, html};

/// Renders `markdown`; an image whose source `inline` resolves to SVG text is replaced by it.
pub fn render(markdown: &str, inline: &dyn Fn(&str) -> Option<String>) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let mut events = Vec::new();
    let mut skipping = false;
    for event in Parser::new_ext(markdown, options) {
        match event {
            Event::Start(Tag::Image { ref dest_url, .. }) => match inline(dest_url) {
                Some(svg) => {
                    events.push(Event::Html(CowStr::from(format!("<figure class=\"chart\">{svg}</figure>"))));
                    skipping = true;
                }
                None => events.push(event),
            },
            Event::End(TagEnd::Image) if skipping => skipping = false,
            _ if skipping => {}
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
    let mut out = String::with_capacity(markdown.len() * 2);
    html::push_html(&mut out, events.into_iter());
    out
}

/// Text for HTML: `&`, `<`, `>` and `"` as entities.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charts_go_inline_and_tables_scroll() {
        let md = "![a chart](c/x.svg)\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n";
        let out = render(md, &|src| (src == "c/x.svg").then(|| "<svg></svg>".to_string()));
        assert!(out.contains("<figure class=\"chart\"><svg></svg></figure>"), "{out}");
        assert!(!out.contains("a chart"));
        assert!(out.contains("<div class=\"table\"><table>"), "{out}");
    }

    #[test]
    fn escaped_study_text_stays_text() {
        let out = render("a &lt;script&gt;alert(1)&lt;/script&gt;", &|_| None);
        assert!(out.contains("&lt;script&gt;"), "{out}");
        assert!(!out.contains("<script>"));
    }
}
