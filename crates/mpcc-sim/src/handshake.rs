//! The three-way handshake before a subflow carries data (`tcp.handshake`;
//! RFC 9293 section 3.5), with MPTCP's order of subflows (RFC 8684 sections 3.1
//! and 3.2): the first subflow opens the connection (MP_CAPABLE) and the others
//! send their MP_JOIN SYN only once the connection is fully established.
//!
//! Both stacks the profiles model do it: Linux (`tcp_v4_connect`,
//! `tcp_rcv_synsent_state_process`) and ns-3 (`TcpSocketBase::Connect`,
//! `ProcessSynSent`). A flow's `start` is the application's connect(): data leaves
//! one round trip later, after queues the SYN and SYN-ACK met; a lost SYN waits
//! for its timer. The SYN-ACK gives the sender its first RTT sample (both stacks
//! measure it, through the echoed timestamp), so the first data segments are
//! timed by an RTO from that sample rather than the initial one.
//!
//! The data sender opens the connection, as an iperf client does (captures name it
//! the client). Each handshake packet is one header long (`tcp.header_bytes`):
//! SYN options differ from a data segment's by a few bytes.
//!
//! This module is the state machine; `Sim` moves its packets (sim.rs).

use mpcc_core::Nanos;
use std::collections::VecDeque;

/// SYN retransmissions before a connection attempt fails: Linux's
/// `net.ipv4.tcp_syn_retries` and ns-3's `SynRetries`, both 6 by default.
pub const SYN_RETRIES: u32 = 6;

/// The packets of a handshake, in `Packet::seq` of a `Kind::Handshake` packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Sender to receiver.
    Syn = 0,
    /// Receiver to sender, over the reverse route.
    SynAck = 1,
    /// Sender to receiver: the third ACK, which the receiver needs no further.
    Ack = 2,
}

impl Step {
    pub fn of(seq: u64) -> Step {
        match seq {
            0 => Step::Syn,
            1 => Step::SynAck,
            _ => Step::Ack,
        }
    }
}

/// Where a subflow is in its handshake.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Not started, or no handshake is modelled.
    Idle,
    /// Started; an MP_JOIN waiting for the connection to be fully established.
    Waiting,
    /// `tries` SYNs sent; the next goes at `timer_at` unless a SYN-ACK comes first.
    SynSent { tries: u32, timer_at: Nanos },
    /// Open: data may flow.
    Done,
    /// Stopped before it opened, or every SYN went unanswered.
    Failed,
}

/// A subflow's handshake.
#[derive(Clone, Debug)]
pub struct Handshake {
    pub phase: Phase,
    /// SYN-ACKs on a delay-only reverse route, oldest first: (arrival time, the
    /// send time of the SYN each echoes).
    pub synacks: VecDeque<(Nanos, Nanos)>,
}

impl Default for Handshake {
    fn default() -> Self {
        Handshake { phase: Phase::Idle, synacks: VecDeque::new() }
    }
}

/// A connection's side of the handshakes.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConnHandshake {
    /// Subflows make a handshake before data (`tcp.handshake`).
    pub on: bool,
    /// The first SYN's timeout; doubled for each retransmission (Linux's
    /// TCP_TIMEOUT_INIT, 1 s; ns-3's `ConnTimeout`, 3 s) and capped at `max_rto`.
    pub syn_rto: Nanos,
    pub max_rto: Nanos,
    /// The first subflow has opened; the connection becomes fully established with
    /// the next ACK it receives (below).
    pub awaiting_full: bool,
    /// MP_JOINs may go. Linux's client is fully established when a packet from the
    /// server follows its third ACK (`check_fully_established`, then the path
    /// manager's `mptcp_pm_fully_established` creates the other subflows): in a
    /// transfer, the ACK of its first data.
    pub fully_established: bool,
}

impl ConnHandshake {
    /// The timeout after the `tries`-th SYN.
    pub fn timeout(&self, tries: u32) -> Nanos {
        let backoff = 1u64.checked_shl(tries.saturating_sub(1)).unwrap_or(u64::MAX);
        self.syn_rto.saturating_mul(backoff).min(self.max_rto)
    }

    /// Whether subflow `sub` may send its SYN now.
    pub fn may_open(&self, sub: usize) -> bool {
        sub == 0 || self.fully_established
    }
}

impl Handshake {
    /// A SYN (the first, or a retransmission) left at `now`; returns when its timer fires.
    pub fn syn_sent(&mut self, now: Nanos, conn: &ConnHandshake) -> Nanos {
        let tries = match self.phase {
            Phase::SynSent { tries, .. } => tries + 1,
            _ => 1,
        };
        let timer_at = now.saturating_add(conn.timeout(tries));
        self.phase = Phase::SynSent { tries, timer_at };
        timer_at
    }

    /// The SYN timer's event at `now`: true if a SYN is to be sent again; the
    /// attempt fails once `SYN_RETRIES` retransmissions went unanswered.
    pub fn timer_fired(&mut self, now: Nanos) -> bool {
        match self.phase {
            Phase::SynSent { tries, timer_at } if timer_at <= now => {
                if tries > SYN_RETRIES {
                    self.phase = Phase::Failed;
                    false
                } else {
                    true
                }
            }
            _ => false,
        }
    }

    /// A SYN-ACK echoing a SYN sent at `echo` reached the sender at `now`: the
    /// RTT sample it gives, if it opens the subflow (later ones are duplicates).
    pub fn synack(&mut self, now: Nanos, echo: Nanos) -> Option<Nanos> {
        if !matches!(self.phase, Phase::SynSent { .. }) {
            return None;
        }
        self.phase = Phase::Done;
        Some(now.saturating_sub(echo))
    }

    /// The subflow stops: a handshake under way ends.
    pub fn stop(&mut self) {
        if self.phase != Phase::Done {
            self.phase = Phase::Failed;
        }
    }

    /// The earliest SYN-ACK of a delay-only route due by `now`, if any.
    pub fn due_synack(&mut self, now: Nanos) -> Option<Nanos> {
        match self.synacks.front() {
            Some(&(at, echo)) if at <= now => {
                self.synacks.pop_front();
                Some(echo)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Nanos = 1_000_000_000;

    fn conn(syn_rto: Nanos) -> ConnHandshake {
        ConnHandshake { on: true, syn_rto, max_rto: 60 * S, ..Default::default() }
    }

    /// Linux: SYNs at 0, 1, 3, 7, 15, 31, 63 s (TCP_TIMEOUT_INIT doubled), then the
    /// attempt fails at 127 s (TCP_RTO_MAX is 120 s); ns-3's 3 s ConnTimeout doubles the same way.
    #[test]
    fn syn_timer_doubles_and_gives_up_after_six_retries() {
        let c = ConnHandshake { max_rto: 120 * S, ..conn(S) };
        let mut h = Handshake::default();
        let mut now = 0;
        let mut sent = vec![];
        loop {
            sent.push(now / S);
            now = h.syn_sent(now, &c);
            if !h.timer_fired(now) {
                break;
            }
        }
        assert_eq!(sent, [0, 1, 3, 7, 15, 31, 63]);
        assert_eq!((now / S, h.phase), (127, Phase::Failed));
        assert_eq!(conn(3 * S).timeout(3), 12 * S);
        assert_eq!(ConnHandshake { max_rto: 5 * S, ..conn(3 * S) }.timeout(2), 5 * S);
    }

    #[test]
    fn the_first_synack_opens_and_gives_the_rtt_of_the_syn_it_echoes() {
        let c = conn(S);
        let mut h = Handshake::default();
        h.syn_sent(0, &c);
        assert!(!h.timer_fired(S / 2), "not before its time");
        assert!(h.timer_fired(S));
        h.syn_sent(S, &c);
        // The first SYN's answer arrives late: the sample is of the SYN it echoes.
        assert_eq!(h.synack(S + 300, 0), Some(S + 300));
        assert_eq!(h.phase, Phase::Done);
        assert_eq!(h.synack(S + 400, S), None, "a duplicate SYN-ACK opens nothing");
        assert!(!h.timer_fired(3 * S), "no timer once open");
    }

    #[test]
    fn joins_wait_for_the_connection_and_a_stop_ends_the_attempt() {
        let mut c = conn(S);
        assert!(c.may_open(0) && !c.may_open(1));
        c.fully_established = true;
        assert!(c.may_open(1));
        let mut h = Handshake::default();
        h.syn_sent(0, &c);
        h.stop();
        assert_eq!(h.phase, Phase::Failed);
        assert_eq!(h.synack(10, 0), None);
        h.synacks.extend([(5, 0), (9, 1)]);
        assert_eq!((h.due_synack(4), h.due_synack(5), h.due_synack(8)), (None, Some(0), None));
    }
}
