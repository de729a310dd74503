//! `--site-url`: the address a site is published at, checked before anything is written.

use crate::render::markdown::url_path;

/// Where a site will be served (`perflab build --site-url`): an `http` or `https` address,
/// kept with a closing `/`. Open Graph wants absolute addresses, so a page names its own and
/// its summary image's only when the build knows this one. It takes what a browser takes as a
/// site's address, written plainly: the scheme in any case, a host name, an IPv4 address or a
/// bracketed IPv6 one, a port from 1 to 65535, and a path without `.` or `..` segments; no user
/// or password, query or fragment. Scheme and host are kept in lowercase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteUrl(pub(super) String);

impl std::str::FromStr for SiteUrl {
    type Err = String;

    fn from_str(text: &str) -> Result<SiteUrl, String> {
        let refuse = |why: &str| Err(format!("`{text}` {why}"));
        let Some((scheme, rest)) = text.split_once("://") else {
            return refuse("is not an http:// or https:// address");
        };
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return refuse("is not an http:// or https:// address");
        }
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        if authority.contains('@') {
            return refuse("holds a user or password; a site's address names none");
        }
        let (host, port) = match authority.strip_prefix('[') {
            Some(v6) => match v6.split_once(']') {
                Some((inside, after)) if inside.parse::<std::net::Ipv6Addr>().is_ok() => (format!("[{inside}]"), after),
                _ => return refuse("holds no valid bracketed IPv6 address"),
            },
            None => {
                let (host, after) = authority.split_at(authority.find(':').unwrap_or(authority.len()));
                match host_problem(host) {
                    Some(why) => return refuse(&why),
                    None => (host.to_ascii_lowercase(), after),
                }
            }
        };
        let port = match port {
            "" => String::new(),
            p => match p.strip_prefix(':').map(|n| (n, n.parse::<u16>())) {
                Some((n, Ok(v))) if v > 0 && n.bytes().all(|b| b.is_ascii_digit()) => format!(":{v}"),
                _ => return refuse("has a port that is not a number from 1 to 65535"),
            },
        };
        for segment in path.split('/').skip(1) {
            if segment == "." || segment == ".." {
                return refuse("has a `.` or `..` in its path");
            }
            // An address a page prints as it is: no query, fragment, quote, space or markup.
            if let Some(c) = segment.chars().find(|c| !(c.is_ascii_alphanumeric() || "-._~%+".contains(*c))) {
                return refuse(&format!("holds `{c}`, which a site's address here may not"));
            }
            let bytes = segment.as_bytes();
            let hex = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_hexdigit);
            if (0..bytes.len()).any(|i| bytes[i] == b'%' && !(hex(i + 1) && hex(i + 2))) {
                return refuse("has a `%` that is not followed by two hexadecimal digits");
            }
        }
        let slash = if path.ends_with('/') { "" } else { "/" };
        Ok(SiteUrl(format!("{scheme}://{host}{port}{path}{slash}")))
    }
}

/// Why `host` is no host name or IPv4 address a site may be served at, or `None` when it is one:
/// dot-separated labels of letters, digits and `-` (not at a label's ends), 1 to 63 characters
/// each and 253 in all; four numbers from 0 to 255 when every label is a number.
fn host_problem(host: &str) -> Option<String> {
    if host.is_empty() {
        return Some("names no host".to_string());
    }
    let labels: Vec<&str> = host.split('.').collect();
    if labels.iter().all(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit())) {
        return host.parse::<std::net::Ipv4Addr>().is_err().then(|| "has an IPv4 address out of range".to_string());
    }
    let label_ok = |l: &&str| {
        (1..=63).contains(&l.len())
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    (host.len() > 253 || !labels.iter().all(label_ok)).then(|| "names no valid host".to_string())
}

impl SiteUrl {
    /// The absolute address of `path` in the site.
    pub fn join(&self, path: &str) -> String {
        format!("{}{}", self.0, url_path(path))
    }
}
