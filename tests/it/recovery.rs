//! Starting engines on a machine that other work shares: the ports perflab picks.

use crate::common;

use common::{example, manifests, run, serial};
use perflab::study::RunState;

/// The kernel's range for the source ports of outgoing connections.
fn ephemeral_range() -> (u16, u16) {
    let text = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range").unwrap();
    let mut words = text.split_whitespace().map(|w| w.parse::<u16>().unwrap());
    (words.next().unwrap(), words.next().unwrap())
}

#[test]
fn picked_ports_are_outside_the_ephemeral_range_and_never_shared_by_engines_in_flight() {
    let _serial = serial();
    let (_tmp, dir) = example(Some(1));
    // Both engines of the first stage start at once and bind their port only once loaded: a
    // port is the first engine's from the moment it is picked, not from when it binds.
    let spec = dir.join("study.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, text.replace("--sim-startup-seconds 0.3", "--sim-startup-seconds 0.6 --sim-bind-late"))
        .unwrap();
    let (code, _, err) = run(&dir, &["--jobs", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("; in flight: engine/sim-a, engine/sim-b"), "{err}");
    let (low, high) = ephemeral_range();
    let all = manifests(&dir);
    assert!(all.iter().all(|m| m.state == RunState::Done), "{err}");
    for m in &all {
        let port = m.port.unwrap();
        assert!(port >= 1024 && !(low..=high).contains(&port), "port {port} is in {low}-{high}");
    }
    // Starts whose lives overlapped had other ports (a start's profiles share its port).
    let lives: Vec<(&str, &str, u16)> =
        all.iter().map(|m| (m.started_at.as_str(), m.engine_stopped_at.as_deref().unwrap(), m.port.unwrap())).collect();
    let mut overlapping = 0;
    for (i, a) in lives.iter().enumerate() {
        for b in lives[i + 1..].iter().filter(|b| b.0 != a.0) {
            // The times are RFC 3339 in one layout: as strings they sort as times.
            if a.0 < b.1 && b.0 < a.1 {
                overlapping += 1;
                assert_ne!(a.2, b.2, "two engines in flight on one port: {lives:?}");
            }
        }
    }
    assert!(overlapping > 0, "{lives:?}");
}
