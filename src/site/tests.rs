//! The site's own rules: which files belong to a study, URLs, cards and links.

use super::card_hardware;
use super::folder::link_same;
use super::url::SiteUrl;
use std::os::unix::fs::MetadataExt;

/// What a browser would take as a site's address, and what it would not.
#[test]
fn a_site_address_is_one_a_browser_takes() {
    let kept = [
        ("https://guides.example.org/perf", "https://guides.example.org/perf/"),
        ("HTTPS://Guides.Example.org/", "https://guides.example.org/"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080/"),
        ("http://[::1]:3000/docs/", "http://[::1]:3000/docs/"),
        ("https://a-b.example/x%20y/v1.2", "https://a-b.example/x%20y/v1.2/"),
        ("https://localhost", "https://localhost/"),
    ];
    for (text, url) in kept {
        assert_eq!(text.parse::<SiteUrl>().map(|u| u.0), Ok(url.to_string()), "{text}");
    }
    let refused = [
        ("https://user:pass@host/", "user or password"),
        ("https://host/a/../b", "`.` or `..`"),
        ("https://host/./b", "`.` or `..`"),
        ("https://host:99999999/", "port"),
        ("https://host:0/", "port"),
        ("https://host:/", "port"),
        ("https://-/", "no valid host"),
        ("https://a..b/", "no valid host"),
        ("https://host-.example/", "no valid host"),
        ("https://host/%", "`%`"),
        ("https://host/%zz", "`%`"),
        ("https://256.1.1.1/", "IPv4"),
        ("https://[::g]/", "IPv6"),
        ("https://[::1/", "IPv6"),
        ("https:///x", "no host"),
        ("https://host/?q=1", "`?`"),
        ("https://host/a\"b", "`\"`"),
        ("ftp://host/", "http:// or https://"),
        ("javascript:alert(1)", "http:// or https://"),
    ];
    for (text, why) in refused {
        let e = text.parse::<SiteUrl>().unwrap_err();
        assert!(e.contains(why), "{text}: {e}");
    }
}

#[test]
fn a_file_the_old_site_holds_as_it_is_gets_a_second_name() {
    let tmp = tempfile::tempdir().unwrap();
    let (old, new) = (tmp.path().join("old"), tmp.path().join("new"));
    std::fs::write(&old, "page").unwrap();
    assert!(link_same(&old, &new, b"page"));
    let inode = |p: &std::path::Path| std::fs::metadata(p).unwrap().ino();
    assert_eq!(inode(&old), inode(&new));
    // Other bytes, other length, a link or nothing at all: the caller writes the file.
    assert!(!link_same(&old, &tmp.path().join("a"), b"pagf"));
    assert!(!link_same(&old, &tmp.path().join("b"), b"pages"));
    assert!(!link_same(&old, &tmp.path().join("c"), b""));
    std::os::unix::fs::symlink(&old, tmp.path().join("link")).unwrap();
    assert!(!link_same(&tmp.path().join("link"), &tmp.path().join("d"), b"page"));
    assert!(!link_same(&tmp.path().join("none"), &tmp.path().join("e"), b"page"));
    for name in ["a", "b", "c", "d", "e"] {
        assert!(!tmp.path().join(name).exists(), "{name}");
    }
}

#[test]
fn hardware_is_written_count_first_on_every_card() {
    assert_eq!(card_hardware("8 × NVIDIA H200 SXM (one node)"), "8 × NVIDIA H200 SXM");
    assert_eq!(card_hardware("NVIDIA H100 SXM ×4 (one node)"), "4 × NVIDIA H100 SXM");
    assert_eq!(card_hardware("NVIDIA H200 ×8"), "8 × NVIDIA H200");
    assert_eq!(card_hardware("8 × NVIDIA H200 SXM（单节点）"), "8 × NVIDIA H200 SXM");
    assert_eq!(card_hardware("Huawei Ascend 910B NPU"), "Huawei Ascend 910B NPU");
    // A "×" that is not a count stays as written.
    assert_eq!(card_hardware("NVIDIA H200 × many"), "NVIDIA H200 × many");
    assert_eq!(card_hardware("×8"), "×8");
}
