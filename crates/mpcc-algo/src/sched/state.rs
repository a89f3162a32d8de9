//! What a packet scheduler may know of the connection and its subflows: copies the
//! connection hands every scheduler, never the controller itself. A leaf module,
//! so that the schedulers depend on it and not on each other.

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

/// One subflow in more detail, read once per send round (`Scheduler::prepare`),
/// not per segment.
#[derive(Clone, Copy, Debug, Default)]
pub struct SubflowDetail {
    /// The snapshot with the controller's whole-segment window.
    pub state: SubflowState,
    /// Segments cumulatively acknowledged so far (the subflow's snd.una).
    pub acked_segs: u64,
    /// Minimum RTT seen (Nanos::MAX before a sample).
    pub min_rtt: Nanos,
    /// The controller's window is below its slow-start threshold.
    pub slow_start: bool,
}

/// The application's side of the send buffer, read once per send round.
#[derive(Clone, Copy, Debug, Default)]
pub struct AppState {
    /// Bytes the application has written so far (None: a bulk or file sender,
    /// whose demand is unbounded).
    pub written: Option<u64>,
    /// Bytes written and not yet sent.
    pub backlog: u64,
}

/// What an ACK tells the scheduler of its subflow.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckSample {
    pub sub: usize,
    /// One-way delay of the data segment that triggered the ACK (receiver's
    /// timestamp minus the sender's, so a delayed ACK's holding time is not in it).
    pub owd: Nanos,
    /// The ACK's RTT sample.
    pub rtt: Nanos,
}

/// What the connection knows when it builds its scheduler.
#[derive(Clone, Copy, Debug)]
pub struct Setup<'a> {
    /// Subflows of the connection.
    pub n: usize,
    /// Per subflow: cost per Mbit sent and hops of the forward route.
    pub costs: &'a [f64],
    pub hops: &'a [usize],
    pub mss: u32,
    /// Summary counters start here (the end of the warm-up).
    pub count_from: Nanos,
}
