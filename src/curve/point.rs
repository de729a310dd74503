//! The name of a curve's point run: profile `chat` at load 16 is `chat@16`.

/// The separator of a point run's profile: `chat@16` is profile `chat` at load 16.
pub const POINT_SEPARATOR: char = '@';

/// The run name of a curve's point.
pub fn point_id(profile: &str, load: u64) -> String {
    format!("{profile}{POINT_SEPARATOR}{load}")
}

/// `chat@16` → (`chat`, 16).
pub fn split_point(id: &str) -> Option<(&str, u64)> {
    let (profile, load) = id.split_once(POINT_SEPARATOR)?;
    let n: u64 = load.parse().ok()?;
    (n.to_string() == load).then_some((profile, n))
}
