//! Rules shared by many controllers.

/// Smallest window any built-in controller lets cwnd fall to, in segments
/// (Linux floors ssthresh at 2 and cwnd at 1 after a timeout).
pub const MIN_CWND: f64 = 1.0;
/// Floor for ssthresh after a multiplicative decrease, as in Linux.
pub const MIN_SSTHRESH: f64 = 2.0;

/// True when an ACK may grow the window: not in recovery, delivered something,
/// and the sender has been using its window (Linux checks tcp_is_cwnd_limited
/// inside each cong_avoid; estimators still sample such ACKs).
#[inline]
pub fn may_grow(ev: &crate::AckEvent) -> bool {
    !ev.in_recovery && !ev.app_limited && ev.acked > 0.0
}

/// Slow start (RFC 5681 with appropriate byte counting): grows `cwnd` by the
/// delivered segments up to `ssthresh`; returns the segments left over for
/// congestion avoidance.
#[inline]
pub fn slow_start(cwnd: &mut f64, ssthresh: f64, acked: f64) -> f64 {
    if *cwnd >= ssthresh {
        return acked;
    }
    let room = ssthresh - *cwnd;
    if acked <= room {
        *cwnd += acked;
        0.0
    } else {
        *cwnd = ssthresh;
        acked - room
    }
}

/// Seconds of a nanosecond duration, for the equations (the core's conversion).
pub use mpcc_core::time::to_secs as secs;

/// The first non-zero of `a` and `b` (a duration sample may be 0 = "none").
#[inline]
pub fn nonzero_or(a: mpcc_core::Nanos, b: mpcc_core::Nanos) -> mpcc_core::Nanos {
    if a > 0 {
        a
    } else {
        b
    }
}

/// ns-3 3.44's `TcpNewReno::IncreaseWindow`, for the ns-3 variants of delay-based
/// controllers: below ssthresh one segment for an ACK of one or more segments
/// (`SlowStart`, not capped at ssthresh), then, at or above it, `1 / cwnd` for any
/// segments left (`CongestionAvoidance`; ns-3 adds whole bytes, at least one).
#[inline]
pub fn newreno_ns3(cwnd: &mut f64, ssthresh: f64, acked: f64) {
    let mut left = acked;
    if *cwnd < ssthresh && left >= 1.0 {
        *cwnd += 1.0;
        left -= 1.0;
    }
    if *cwnd >= ssthresh && left > 0.0 {
        *cwnd += 1.0 / *cwnd;
    }
}

/// Reno's congestion-avoidance step: `acked / cwnd` (one segment per RTT).
#[inline]
pub fn reno_increase(cwnd: &mut f64, acked: f64) {
    if acked > 0.0 {
        *cwnd += acked / *cwnd;
    }
}

/// A multiplicative-decrease result for ssthresh: `w`, floored at [`MIN_SSTHRESH`]
/// (NaN maps to the floor, so a bad input can never poison the window).
#[inline]
pub fn ssthresh_floor(w: f64) -> f64 {
    if w >= MIN_SSTHRESH {
        w
    } else {
        MIN_SSTHRESH
    }
}

/// The window after a congestion event, given the new ssthresh: ssthresh on a loss
/// or ECN (recovery entered at the reduced window), [`MIN_CWND`] on a timeout.
#[inline]
pub fn window_after(kind: crate::CongestionKind, ssthresh: f64) -> f64 {
    match kind {
        crate::CongestionKind::Timeout => MIN_CWND,
        crate::CongestionKind::Loss | crate::CongestionKind::Ecn => ssthresh,
    }
}
