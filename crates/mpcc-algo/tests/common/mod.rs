//! What the controller integration tests share.

use mpcc_algo::AckEvent;

pub const MS: u64 = 1_000_000;

/// One segment acknowledged at `now` on a path whose RTT is `rtt_ms` (smoothed the
/// same; minimum 20 ms; one-way delay half the RTT), outside recovery, with a round
/// starting every 10 ms.
pub fn ack(now: u64, rtt_ms: u64) -> AckEvent {
    AckEvent {
        now,
        acked: 1.0,
        rtt: rtt_ms * MS,
        srtt: rtt_ms * MS,
        min_rtt: 20 * MS,
        owd: rtt_ms * MS / 2,
        in_flight: 10,
        in_recovery: false,
        round_start: now.is_multiple_of(10 * MS),
        app_limited: false,
        delivered: 1,
        ..AckEvent::default()
    }
}
