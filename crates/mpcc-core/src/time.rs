//! Simulation time: a `u64` count of nanoseconds. No floating-point clock.

/// Nanoseconds since the start of a run.
pub type Nanos = u64;

pub const NS_PER_US: Nanos = 1_000;
pub const NS_PER_MS: Nanos = 1_000_000;
pub const NS_PER_SEC: Nanos = 1_000_000_000;

/// Seconds as `f64`, for reporting and for the equations of the algorithms.
#[inline]
pub fn to_secs(t: Nanos) -> f64 {
    t as f64 * 1e-9
}

/// Rounds a duration in seconds to nanoseconds (negative values clamp to 0).
#[inline]
pub fn from_secs(s: f64) -> Nanos {
    if s <= 0.0 {
        0
    } else {
        (s * 1e9).round() as Nanos
    }
}

/// Time to serialise `bytes` at `bps` bits per second, rounded up to a whole nanosecond.
#[inline]
pub fn tx_time(bytes: u32, bps: f64) -> Nanos {
    ((bytes as f64 * 8e9) / bps).ceil() as Nanos
}
