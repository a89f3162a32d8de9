//! What a packet scheduler may know of the connection and its subflows: copies the
//! connection hands every scheduler (`scheduler.rs`, `tsc.rs`), never the
//! controller itself. A leaf module, so that the schedulers depend on it and not
//! on each other.

use mpcc_core::Nanos;

/// What a scheduler may know about one subflow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SubflowState {
    /// Smoothed RTT (0 before the first sample).
    pub srtt: Nanos,
    /// RTT variation (RFC 6298 RTTVAR).
    pub rttvar: Nanos,
    /// Segments in flight (RFC 6675 pipe).
    pub pipe: u64,
    /// Segments sent and not cumulatively acknowledged (SACKed and lost ones
    /// included): what the subflow holds of the connection window.
    pub unacked: u64,
    /// Congestion window in whole segments.
    pub cwnd: u64,
    /// Established and not closed.
    pub usable: bool,
}

impl SubflowState {
    /// May send a segment now.
    #[inline]
    pub fn has_space(&self) -> bool {
        self.usable && self.pipe < self.cwnd
    }
}

/// What a scheduler may know about the connection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConnState {
    /// Segments waiting to be sent now: queued reinjections plus new data the
    /// application has supplied that lies inside the receive window.
    pub queued: u64,
    /// The connection send window (the peer's receive window), in segments.
    pub window: u64,
}
