//! The samples a transport hands a controller.

use mpcc_core::Nanos;

/// One processed ACK on one subflow.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckEvent {
    pub now: Nanos,
    /// Segments newly delivered by this ACK: newly cumulatively acknowledged
    /// (not previously SACKed) plus newly SACKed.
    pub acked: f64,
    /// The RTT sample this ACK carries (every ACK carries one, from the echoed
    /// timestamp of the data segment that triggered it).
    pub rtt: Nanos,
    /// Smoothed RTT (RFC 6298) after this sample.
    pub srtt: Nanos,
    /// Minimum RTT seen on this subflow so far.
    pub min_rtt: Nanos,
    /// Forward (one-way) delay of the data segment that triggered this ACK, from
    /// its send timestamp to its arrival at the receiver (0 if unknown).
    pub owd: Nanos,
    /// Segments in flight (RFC 6675 pipe) after processing this ACK: a count, left
    /// for a controller to convert (none reads it per ACK today).
    pub in_flight: u64,
    /// True while the subflow is in loss recovery: controllers must not grow cwnd.
    pub in_recovery: bool,
    /// True on the first ACK of a new round trip (the ACK covers the data that was
    /// the highest sent when the previous round began), as Vegas counts rounds.
    pub round_start: bool,
    /// True when the sender has not been using its window (Linux's
    /// `!tcp_is_cwnd_limited`: the application or the receive window limited it
    /// over the last window of data): controllers do not grow cwnd. Set only
    /// with `tcp.cwnd_validation`; estimators still take their samples.
    pub app_limited: bool,
    /// Segments newly delivered (cumulatively acknowledged, not SACKed before, plus
    /// newly SACKed), whatever `acked` counts for growth (ns-3's per-ACK counting
    /// makes `acked` at most 1): what a bandwidth estimate counts.
    pub delivered: u64,
    /// The cumulative acknowledgement and the next new segment to send, in
    /// segments, after this ACK (the ns-3 variants keep their rounds by them, as
    /// ns-3's TcpVegas keeps `m_begSndNxt`).
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// True until the cumulative ACK passes what was outstanding when the last
    /// timeout fired (ns-3's CA_LOSS state).
    pub after_timeout: bool,
}

/// The kind of congestion signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongestionKind {
    /// Loss detected by SACK/dup-ACKs: fast retransmit, once per recovery epoch.
    Loss,
    /// An ECN echo (once per round trip).
    Ecn,
    /// Retransmission timeout.
    Timeout,
}

/// A congestion signal on one subflow.
#[derive(Clone, Copy, Debug)]
pub struct CongestionEvent {
    pub now: Nanos,
    pub kind: CongestionKind,
    /// Segments in flight when the signal was raised.
    pub in_flight: f64,
    pub srtt: Nanos,
    pub min_rtt: Nanos,
    /// The most recent RTT sample.
    pub rtt: Nanos,
    /// Reduce from the segments in flight (`in_flight`), not from cwnd: RFC 5681's
    /// FlightSize / 2, as ns-3's TcpNewReno::GetSsThresh (the transport's
    /// `tcp.ssthresh_from_flight`). Honoured by `reno`; other controllers keep
    /// their own rule.
    pub from_flight: bool,
}
