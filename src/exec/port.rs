//! Where an engine listens and whether it answers: a port picked for each start (never one that
//! another start of this process holds, never in the kernel's range for outgoing connections),
//! and the readiness probe.

use crate::study::command::HOST;
use std::io::{Read, Write};
use std::process::Child;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Ports handed to the engines this process has in flight: a port one slot picked is never
/// another's, even before its engine binds it.
static LEASED: std::sync::Mutex<std::collections::BTreeSet<u16>> =
    std::sync::Mutex::new(std::collections::BTreeSet::new());

/// A port picked for one engine start, given back when dropped.
#[derive(Debug)]
pub(super) struct PortLease(pub(super) u16);

impl Drop for PortLease {
    fn drop(&mut self) {
        LEASED.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.0);
    }
}

/// The ports the kernel gives outgoing connections (`ip_local_port_range`): a benchmark's
/// connections come from there, so a port picked there could be taken before a slow engine
/// binds it.
pub(super) fn ephemeral_range() -> (u16, u16) {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|text| {
            let mut words = text.split_whitespace().map(|w| w.parse::<u16>().ok());
            Some((words.next()??, words.next()??))
        })
        .filter(|(low, high)| low <= high)
        .unwrap_or((32768, 60999))
}

/// The ports an engine may be given, in the order they are tried: the unprivileged ones outside
/// the ephemeral range, from a place that `seed` sets (so that runs on one machine start apart),
/// wrapping round. All unprivileged ports when the ephemeral range leaves none.
pub(super) fn port_candidates(ephemeral: (u16, u16), seed: u32) -> Vec<u16> {
    let (low, high) = ephemeral;
    let mut ports: Vec<u16> = (1024..=u16::MAX).filter(|p| *p < low || *p > high).collect();
    if ports.is_empty() {
        ports = (1024..=u16::MAX).collect();
    }
    let start = seed as usize % ports.len();
    ports.rotate_left(start);
    ports
}

/// Whether no socket is bound to `port`, on any address.
pub(super) fn port_free(port: u16) -> bool {
    std::net::TcpListener::bind(("0.0.0.0", port)).is_ok() && std::net::TcpListener::bind((HOST, port)).is_ok()
}

/// A free port outside the ephemeral range that no other engine of this process holds, held
/// until the lease is dropped.
pub(super) fn pick_port(free: impl Fn(u16) -> bool) -> Option<PortLease> {
    let mut leased = LEASED.lock().unwrap_or_else(|e| e.into_inner());
    // Each pick starts past the one before, so that a port just given back rests a while.
    static PICKS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let seed = std::process::id().wrapping_mul(7919).wrapping_add(PICKS.fetch_add(1, Ordering::Relaxed));
    let port = port_candidates(ephemeral_range(), seed).into_iter().find(|p| !leased.contains(p) && free(*p))?;
    leased.insert(port);
    Some(PortLease(port))
}

/// Whether something already accepts connections on `port`.
/// Why this machine does not let a process bind `port` (a privileged port without the right to
/// it, an address the machine does not have); `None` when it may, or when the port is only in
/// use (which [`port_taken`] tells).
pub(super) fn port_refused(port: u16) -> Option<String> {
    match std::net::TcpListener::bind(("0.0.0.0", port)) {
        Err(e) if matches!(e.kind(), std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::AddrNotAvailable) => {
            Some(e.to_string())
        }
        _ => None,
    }
}

pub(super) fn port_taken(port: u16) -> bool {
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(2)).is_ok()
}

pub(super) fn fill_port(argv: &[String], port: u16) -> Vec<String> {
    argv.iter().map(|a| a.replace("{port}", &port.to_string())).collect()
}

/// The pauses between readiness checks: 1 ms, doubling up to [`Backoff::CAP`]. A check is a
/// connection on loopback (refused at once while nothing listens), so an engine that answers is
/// noticed within a few milliseconds without a busy loop.
#[derive(Debug, Default)]
pub struct Backoff {
    next: Duration,
}

impl Backoff {
    pub const FIRST: Duration = Duration::from_millis(1);
    pub const CAP: Duration = Duration::from_millis(5);

    /// The next pause.
    pub fn pause(&mut self) -> Duration {
        self.next = (self.next * 2).clamp(Self::FIRST, Self::CAP);
        self.next
    }
}

/// Whether an engine still serves after a benchmark: it has not exited, and its readiness URL
/// answers 200 within a few tries over about three seconds. One check that an engine busy with
/// the last requests answers late is not a death.
pub(super) fn still_serving(url: &str, engine: &mut Child) -> bool {
    for pause in [0, 250, 750, 2000] {
        std::thread::sleep(Duration::from_millis(pause));
        if engine.try_wait().ok().flatten().is_some() {
            return false;
        }
        if ready(url) {
            return true;
        }
    }
    false
}

/// True when `GET url` answers 200 (plain HTTP on this machine).
pub fn ready(url: &str) -> bool {
    get(url, 0).is_some()
}

/// The first `limit` bytes of what `GET url` answers (with its headers) when it answers 200,
/// within two seconds to connect and two a read (plain HTTP on this machine).
pub(super) fn get(url: &str, limit: u64) -> Option<Vec<u8>> {
    let rest = url.strip_prefix("http://")?;
    let (authority, path) = rest.split_once('/').map_or((rest, "/".to_string()), |(a, p)| (a, format!("/{p}")));
    use std::net::ToSocketAddrs;
    let addr = authority.to_socket_addrs().ok().and_then(|mut a| a.next())?;
    let mut stream = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(2)).ok()?;
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let request = format!("GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).ok()?;
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).ok()?;
    if !(head.starts_with(b"HTTP/1.1 200") || head.starts_with(b"HTTP/1.0 200")) {
        return None;
    }
    let mut rest = Vec::new();
    let _ = stream.take(limit).read_to_end(&mut rest);
    Some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readiness_checks_start_at_a_millisecond_and_stay_under_ten() {
        let mut poll = Backoff::default();
        let pauses: Vec<u128> = (0..6).map(|_| poll.pause().as_millis()).collect();
        assert_eq!(pauses, [1, 2, 4, 5, 5, 5]);
        // A check after the engine answers comes within one pause and one check's time.
        assert!(Backoff::CAP < Duration::from_millis(10));
    }

    #[test]
    fn ports_are_picked_outside_the_ephemeral_range_and_never_twice_while_held() {
        let ports = port_candidates((32768, 60999), 5);
        assert!(ports.iter().all(|p| *p >= 1024 && !(32768..=60999).contains(p)));
        assert_eq!(ports.len(), (32768 - 1024) + (65535 - 60999));
        assert_eq!(port_candidates((32768, 60999), 0)[5], ports[0], "the seed only sets where to begin");
        // A range that leaves nothing: every unprivileged port.
        assert_eq!(port_candidates((1024, 65535), 0).len(), 65535 - 1024 + 1);

        // A held port looks free (its engine has not bound it yet): it is still not picked again,
        // until its lease is dropped.
        let first = pick_port(|_| true).unwrap();
        let held = first.0;
        assert!(pick_port(|p| p == held).is_none());
        drop(first);
        assert_eq!(pick_port(|p| p == held).map(|l| l.0), Some(held), "a dropped lease gives the port back");
        // A port that is not free is passed over.
        let third = pick_port(|p| p % 2 == 0).unwrap();
        assert_eq!(third.0 % 2, 0);
        assert!(pick_port(|_| false).is_none());
    }
}
