//! The per-event log (`event_log = true` in a scenario, `mpcc run --event-log`):
//! one row per packet sent, received or dropped, per loss the sender detects, per
//! retransmission timeout, recovery episode entered or left, undo, tail loss
//! probe, subflow switched on or off, and receiver controller decision, with the
//! subflow and data sequence numbers (in segments). Off by default; when off the
//! simulator pays one predictable branch per hook.
//!
//! The log watches the senders from outside: it compares a subflow's loss and
//! timeout counters and recovery state before and after the simulator drives it,
//! so the TCP code carries no logging.

use crate::ids::LinkId;
use crate::packet::{Kind as PacketKind, Packet};
use crate::tcp::Sender;
use crate::Table;
use mpcc_algo::receiver::RxAction;
use mpcc_core::Nanos;

/// What happened; the names are the log's `kind` column (docs/metrics.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A data segment left its sender (first transmissions, retransmissions and reinjections).
    Send = 0,
    /// A data segment reached its receiver.
    Receive = 1,
    /// A packet (data or ACK) was dropped by a queue or lost on a link.
    Drop = 2,
    /// The sender marked segments lost (SACK evidence or a timeout): `count` of them.
    Loss = 3,
    /// A retransmission timeout.
    Rto = 4,
    /// Fast recovery entered (the sender's first loss episode since recovery last ended).
    RecoveryEnter = 5,
    RecoveryExit = 6,
    /// A subflow starts or stops carrying data.
    SubflowOn = 7,
    SubflowOff = 8,
    /// A timeout or fast recovery found spurious and undone (docs/tcp-recovery.md).
    Undo = 9,
    /// A tail loss probe sent.
    Probe = 10,
    /// A receiver controller's decisions (mpcc_algo::receiver::RxAction): hold
    /// the subflow's cumulative ACK for intentional duplicate ACKs, withhold every
    /// ACK (the subflow is turned off and goes to RTO by design), acknowledge again.
    ReceiverDupAck = 11,
    ReceiverOff = 12,
    ReceiverOn = 13,
}

pub const EVENT_NAMES: [&str; 14] = [
    "send",
    "receive",
    "drop",
    "loss",
    "rto",
    "recovery_enter",
    "recovery_exit",
    "subflow_on",
    "subflow_off",
    "undo",
    "probe",
    "receiver_dupack",
    "receiver_off",
    "receiver_on",
];

/// What the log compares of a sender before and after the simulator drives it.
#[derive(Clone, Copy, Debug)]
pub struct SenderMark {
    losses: u64,
    timeouts: u64,
    in_recovery: bool,
    undos: u64,
    probes: u64,
}

impl SenderMark {
    pub fn of(s: &Sender) -> SenderMark {
        SenderMark {
            losses: s.stats.losses,
            timeouts: s.stats.timeouts,
            in_recovery: s.in_recovery,
            undos: s.stats.spurious_timeouts + s.stats.undone_recoveries,
            probes: s.stats.tlp_probes,
        }
    }
}

/// The log's columns, one entry per event.
#[derive(Default)]
pub struct EventLog {
    t: Vec<Nanos>,
    kind: Vec<u8>,
    flow: Vec<u32>,
    sub: Vec<u16>,
    seq: Vec<u64>,
    dsn: Vec<u64>,
    /// The link of a drop (-1: none).
    link: Vec<i64>,
    /// 1 for an ACK (drops), 0 for data.
    ack: Vec<u8>,
    /// Send: 1 if its data was never sent before (the scheduler's choice of a
    /// subflow for new data). Loss: segments marked lost. Otherwise 1.
    count: Vec<u64>,
    /// Per flow, the next data sequence number never sent.
    fresh: Vec<u64>,
}

impl EventLog {
    pub fn new(flows: usize) -> EventLog {
        EventLog { fresh: vec![0; flows], ..Default::default() }
    }

    #[allow(clippy::too_many_arguments)] // one argument per column of the log
    fn push(
        &mut self, t: Nanos, event: Event, flow: u32, sub: u16, seq: u64, dsn: u64, link: i64, ack: bool, count: u64,
    ) {
        self.t.push(t);
        self.kind.push(event as u8);
        self.flow.push(flow);
        self.sub.push(sub);
        self.seq.push(seq);
        self.dsn.push(dsn);
        self.link.push(link);
        self.ack.push(ack as u8);
        self.count.push(count);
    }

    /// A packet sent, received or dropped (on `link`, for a drop).
    pub fn packet(&mut self, t: Nanos, event: Event, p: &Packet, link: Option<LinkId>) {
        if p.kind == PacketKind::Handshake {
            return; // not data or its ACKs: the log's subflow rows say when each opened
        }
        let ack = p.kind == PacketKind::Ack;
        let mut count = 1;
        if event == Event::Send {
            let fresh = &mut self.fresh[p.flow as usize];
            count = (p.dsn >= *fresh) as u64;
            *fresh = (*fresh).max(p.dsn + 1);
        }
        self.push(t, event, p.flow, p.sub, p.seq, p.dsn, link.map_or(-1, |l| l.0 as i64), ack, count);
    }

    /// What changed in a sender the simulator just drove: losses detected, a
    /// timeout, recovery entered or left.
    pub fn sender(&mut self, t: Nanos, flow: u32, sub: u16, before: SenderMark, s: &Sender) {
        let after = SenderMark::of(s);
        let mut note = |event, count| self.push(t, event, flow, sub, s.una, 0, -1, false, count);
        if after.timeouts > before.timeouts {
            note(Event::Rto, after.timeouts - before.timeouts);
        }
        if after.losses > before.losses {
            note(Event::Loss, after.losses - before.losses);
        }
        match (before.in_recovery, after.in_recovery) {
            (false, true) => note(Event::RecoveryEnter, 1),
            (true, false) => note(Event::RecoveryExit, 1),
            _ => {}
        }
        if after.undos > before.undos {
            note(Event::Undo, after.undos - before.undos);
        }
        if after.probes > before.probes {
            note(Event::Probe, after.probes - before.probes);
        }
    }

    /// A subflow switched on or off.
    pub fn subflow(&mut self, t: Nanos, flow: u32, sub: u16, on: bool) {
        let event = if on { Event::SubflowOn } else { Event::SubflowOff };
        self.push(t, event, flow, sub, 0, 0, -1, false, 1);
    }

    /// A receiver controller's decision on subflow `sub`, whose next expected
    /// segment is `seq` (for a duplicate-ACK hold: the held segment).
    pub fn receiver(&mut self, t: Nanos, flow: u32, sub: u16, seq: u64, action: RxAction) {
        let event = match action {
            RxAction::DupAck => Event::ReceiverDupAck,
            RxAction::Off => Event::ReceiverOff,
            RxAction::On => Event::ReceiverOn,
        };
        self.push(t, event, flow, sub, seq, 0, -1, false, 1);
    }

    pub fn len(&self) -> usize {
        self.t.len()
    }

    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }

    /// The log as a result table (every column as numbers; `kind` indexes EVENT_NAMES).
    pub fn table(&self) -> Table {
        let col = |v: Vec<f64>| v;
        let mut t = Table::new();
        t.insert("t_s".into(), col(self.t.iter().map(|&x| x as f64 * 1e-9).collect()));
        t.insert("kind".into(), col(self.kind.iter().map(|&x| x as f64).collect()));
        t.insert("flow".into(), col(self.flow.iter().map(|&x| x as f64).collect()));
        t.insert("subflow".into(), col(self.sub.iter().map(|&x| x as f64).collect()));
        t.insert("seq".into(), col(self.seq.iter().map(|&x| x as f64).collect()));
        t.insert("dsn".into(), col(self.dsn.iter().map(|&x| x as f64).collect()));
        t.insert("link".into(), col(self.link.iter().map(|&x| x as f64).collect()));
        t.insert("ack".into(), col(self.ack.iter().map(|&x| x as f64).collect()));
        t.insert("count".into(), col(self.count.iter().map(|&x| x as f64).collect()));
        t
    }
}
