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

/// `n as f64`, through `u32` when it fits (a duration below 4.3 s, a count): one
/// conversion instruction where baseline x86-64's unsigned 64-bit one takes six.
/// The same value (both are exact below 2^32).
#[inline(always)]
pub fn u64_to_f64(n: u64) -> f64 {
    if n <= u32::MAX as u64 {
        n as u32 as f64
    } else {
        n as f64
    }
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
    ceil_ns((bytes as f64 * 8e9) / bps)
}

/// `x.ceil() as Nanos`, to the bit (NaN and negatives 0, saturating above), without
/// the call to libm's `ceil` that baseline x86-64 makes (no SSE4.1 `roundsd`): it was
/// 5.7 % of a dumbbell run, once per packet serialised.
#[inline]
pub fn ceil_ns(x: f64) -> Nanos {
    let t = x as Nanos; // truncates; saturates; NaN gives 0
    if (t as f64) < x {
        t.saturating_add(1)
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceil_ns_is_ceil_to_the_bit() {
        let mut xs =
            vec![0.0, -0.0, -0.5, -3.0, 0.5, 1.0, 1.0 + f64::EPSILON, 2.5, 4503599627370495.5, 9007199254740993.0];
        xs.extend([
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1.8446744073709552e19,
            3e19,
            f64::MAX,
            f64::MIN_POSITIVE,
        ]);
        let mut bits = 0x1234_5678_9abc_def1u64;
        for _ in 0..100_000 {
            bits ^= bits << 13;
            bits ^= bits >> 7;
            bits ^= bits << 17;
            xs.push(f64::from_bits(bits));
            xs.push((bits >> 11) as f64 * 8e9 / ((bits & 0xffff_ffff) as f64 + 1.0));
        }
        for x in xs {
            assert_eq!(ceil_ns(x), x.ceil() as Nanos, "{x:e}");
        }
    }
}
