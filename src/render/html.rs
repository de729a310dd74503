//! Markdown → HTML with pulldown-cmark. Charts referenced as images are put inline, tables get a
//! scrolling wrapper for narrow screens. Study text reaches this point already made safe by the
//! view ([`super::markdown`]); as a second line of defence, raw HTML other than the page's own
//! tags (`<details>`, `<summary>`, `<span class>`, `<br>`, `lang` on `<span>` and `<div>`) is shown as text, and links to
//! addresses that are not allowed lose their link.

use super::markdown;
use pulldown_cmark::{CowStr, Event, Parser, Tag, TagEnd, html};

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

/// Renders `markdown`; an image whose source `inline` resolves to SVG text is replaced by it.
pub fn render(markdown: &str, inline: &dyn Fn(&str) -> Option<String>) -> String {
    let mut events = Vec::new();
    let mut skipping = false;
    // Open links and images whose address is refused: whether each one's end is dropped too.
    let mut refused: Vec<bool> = Vec::new();
    for event in Parser::new_ext(markdown, markdown::options()) {
        match event {
            Event::End(TagEnd::Image) if skipping => skipping = false,
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
                    events.push(Event::Html(CowStr::from(format!("<figure class=\"chart\">{svg}</figure>"))));
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
