//! A flow: one MPTCP connection. It has one congestion controller, N subflows
//! (each a TCP sender and receiver on its own forward and reverse route, subflow
//! id = its index), a data-level sequence space shared by the subflows
//! (`conn.rs`), a packet scheduler choosing the subflow of every new segment, its
//! application and its statistics. A single-path flow is a connection with one
//! subflow, and then every DSN equals its subflow sequence number.

mod data_rtx;
pub use data_rtx::DataRtx;

use crate::app::Application;
use crate::conn::{AppTiming, DataReceiver, DataSender};
use crate::ids::LinkId;
use crate::metrics::RttStats;
use crate::packet::{AckInFlight, Packet};
use crate::tcp::receiver::AckAction;
use crate::tcp::sender::Timer;
use crate::tcp::{Receiver, Sender};
use mpcc_algo::receiver::{AppView, Arrival, RxAction, RxController};
use mpcc_algo::sched::{AckSample, AnyScheduler, AppState, ConnState, Scheduler, SubflowDetail, SubflowState, Wake};
use mpcc_algo::Controller;
use mpcc_core::Nanos;
use std::collections::VecDeque;

/// How ACKs travel back.
#[derive(Clone, Debug)]
pub enum ReverseRoute {
    /// An uncongested path of this total propagation delay.
    Delay(Nanos),
    /// Through these links (queueing, serialisation, loss).
    Links(Vec<LinkId>),
}

/// A summary counter: its name and what it reads from a subflow.
pub type Counter = (&'static str, fn(&Subflow) -> u64);

/// The counts the summary reports for every flow (summed over its subflows) and
/// every subflow, since the warm-up (docs/metrics.md): each is named with what it
/// reads, so adding one is one line here.
pub const COUNTERS: &[Counter] = &[
    ("sent_packets", |s| s.snd.stats.sent_packets),
    ("retransmissions", |s| s.snd.stats.retransmissions),
    ("losses", |s| s.snd.stats.losses),
    ("timeouts", |s| s.snd.stats.timeouts),
    ("drops", |s| s.drops),
    ("reinjections", |s| s.snd.stats.reinjections),
    // Loss recovery beyond RFC 6675 (docs/tcp-recovery.md).
    ("rack_losses", |s| s.snd.stats.rack_losses),
    ("lost_retransmissions", |s| s.snd.stats.lost_retransmissions),
    ("tlp_probes", |s| s.snd.stats.tlp_probes),
    ("spurious_timeouts", |s| s.snd.stats.spurious_timeouts),
    ("undone_recoveries", |s| s.snd.stats.undone_recoveries),
    ("fast_recoveries", |s| s.snd.stats.recoveries),
    ("dsacks", |s| s.snd.stats.dsacks),
    ("rescues", |s| s.snd.stats.rescues),
    // MPTCP's stale subflows (`tcp.data_rtx`, flow/data_rtx.rs; Linux's MPTcpExtSubflowStale).
    ("stale_marks", |s| s.stale_marks),
];

/// Counters snapshotted at the end of the warm-up, so summaries cover [warmup, end].
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowCounters {
    pub delivered_bytes: u64,
    pub received_bytes: u64,
    /// Wire bytes sent (headers and retransmissions included).
    pub sent_bytes: u64,
    /// The reported counts, in [`COUNTERS`]' order.
    pub counts: [u64; COUNTERS.len()],
}

/// One subflow: a TCP sender and receiver and the routes between them.
pub struct Subflow {
    /// The sending host's NIC and local queue, when the profile models one (host.rs).
    pub nic: Option<crate::host::Nic>,
    pub snd: Sender,
    pub rcv: Receiver,
    pub fwd: Vec<LinkId>,
    pub rev: ReverseRoute,
    /// ACKs on a delay-only reverse route, oldest first, with their arrival times.
    pub ack_pipe: VecDeque<AckInFlight>,
    /// Joins the connection at this time.
    pub start: Nanos,
    /// Leaves at this time (None = never).
    pub stop: Option<Nanos>,
    /// Between its start and its stop (and the flow has started); set with `set_active`.
    pub active: bool,
    /// Active and not stale: what the scheduler may use (kept with the two, so
    /// that a scheduler's look at a subflow reads one flag).
    pub(crate) usable: bool,
    /// Congestion window in whole segments, read from the controller once per `push`.
    pub cwnd: u64,
    /// RTT sample of every ACK.
    pub rtt: RttStats,
    /// Packets of this subflow dropped in the network (queues and loss models).
    pub drops: u64,
    /// Cost per Mbit sent (`subflows.<k>.cost_per_mbit`).
    pub cost_per_mbit: f64,
    /// When its last data segment reached the receiver: the end of the window its
    /// counters cover once it has stopped (segments in flight still arrive).
    pub last_arrival: Nanos,
    /// Marked stale by the connection's retransmission timer (flow/data_rtx.rs): the
    /// scheduler leaves it alone until an ACK arrives on it (`set_stale`); and how often.
    pub stale: bool,
    /// Its ACKs may be read where its receiver built them (`Event::AckBuilt`): a
    /// zero-delay reverse path, no ACK clock, and a run with no log or capture,
    /// which want a copy (`Sim::new`); decided once, tested per ACK.
    pub(crate) acks_in_place: bool,
    pub stale_marks: u64,
    /// With a receiver controller: when this subflow's delayed ACKs left, for the
    /// RTT the receiver measures (tcp/ack_clock.rs).
    pub ack_clock: Option<crate::tcp::AckClock>,
    /// Its three-way handshake, when the connection makes them (handshake.rs).
    pub hs: crate::handshake::Handshake,
    pub base: FlowCounters,
}

impl Subflow {
    /// What a scheduler sees of this subflow, with window `cwnd` in segments.
    #[inline]
    fn sched_state(&self, cwnd: u64) -> SubflowState {
        SubflowState {
            srtt: self.snd.rtt.srtt,
            rttvar: self.snd.rtt.rttvar,
            pipe: self.snd.pipe,
            unacked: self.snd.nxt - self.snd.una,
            cwnd,
            usable: self.usable,
        }
    }

    /// Takes the send window as it is now and sends lost segments into it (the start
    /// of a round without a NIC).
    #[inline(always)]
    fn refresh_window(&mut self, cc: &Controller, now: Nanos, out: &mut Vec<Packet>) {
        self.cwnd = self.snd.send_window(cc);
        self.snd.send_lost(now, self.cwnd, out);
    }

    /// The subflow's start: active at once, or waiting for its handshake.
    pub fn start_or_wait(&mut self, handshake: bool) {
        if handshake {
            self.hs.phase = crate::handshake::Phase::Waiting;
        } else {
            self.set_active(true);
        }
    }

    pub fn set_active(&mut self, on: bool) {
        self.active = on;
        self.usable = on && !self.stale;
    }

    pub fn set_stale(&mut self, on: bool) {
        self.stale = on;
        self.usable = self.active && !on;
    }

    pub fn counters(&self) -> FlowCounters {
        FlowCounters {
            delivered_bytes: 0,
            received_bytes: self.rcv.received_bytes,
            sent_bytes: self.snd.stats.sent_bytes,
            counts: std::array::from_fn(|k| COUNTERS[k].1(self)),
        }
    }
}

pub struct Flow {
    pub name: String,
    pub cc_name: String,
    pub cc: Controller,
    pub subs: Vec<Subflow>,
    pub sched: AnyScheduler,
    /// The wake-up event pending for the connection: the scheduler's
    /// (`Scheduler::poll_at`) or a scheduler-paced subflow's next pacing time (`pace_at`).
    pub sched_wake: Wake,
    /// While data waits: when the first scheduler-paced subflow with window space
    /// may send again (host.rs).
    pub pace_at: Option<Nanos>,
    /// Some subflow validates its window (`tcp.cwnd_validation`): the send round
    /// then notes each subflow's window use (`Sender::note_window_use`, which does
    /// nothing without it).
    pub window_validation: bool,
    /// An ACK changes only its own subflow's send window (`Controller::windows_own`),
    /// no subflow has a NIC (whose room changes without an ACK) and nothing penalizes
    /// (which halves another subflow's window in the send round); fixed when built.
    /// The send round after an ACK then evaluates only that subflow's window (and
    /// those that move with their own sending, `Sender::window_moves`): every other
    /// subflow's `cwnd` is still what the round before found (every change of a
    /// sender or the controller outside an ACK is followed by a whole round).
    pub own_windows: bool,
    /// The last send round ended because the scheduler found no subflow with space.
    /// With `own_windows`, the round after an ACK then finds every other subflow
    /// still full (its window and pipe change only on its own events, each followed
    /// by a whole round), unless its window moves with its sending
    /// (`Sender::window_moves`); only a reinjection could then go on another one.
    pub none_had_space: bool,
    /// The application may ask for a timer (`AnyApp::has_timers`, fixed when built):
    /// without, its `poll_at` is not asked after every arrival.
    pub app_timers: bool,
    /// Opportunistic retransmission and penalization (scheduler options, NSDI 2012).
    pub opportunistic: bool,
    pub penalize: bool,
    /// The DSN last re-sent opportunistically (once each), and when each subflow
    /// was last penalized.
    pub opp_dsn: Option<u64>,
    pub penalized_at: Vec<Nanos>,
    /// MPTCP's connection-level retransmission timer (`tcp.data_rtx`, flow/data_rtx.rs).
    pub data_rtx: Option<DataRtx>,
    pub data: DataSender,
    pub rx: DataReceiver,
    pub start: Nanos,
    pub stop: Option<Nanos>,
    /// Bytes the application offers (u64::MAX: bulk).
    pub app_bytes: u64,
    /// Payload bytes delivered in order to the application.
    pub delivered_bytes: u64,
    /// Flow completion time for finite transfers.
    pub completed_at: Option<Nanos>,
    /// Application-level delay of every segment: hand-over to in-order delivery.
    pub timing: AppTiming,
    /// Streams, Web pages and on-off sources (`app/`); bulk and file: nothing.
    pub app: crate::app::AnyApp,
    /// The receiver controller (`mpcc_algo::receiver`) and the ACKs it asked
    /// to send outside the usual flow (turning a subflow on), for the simulator to send.
    pub rctl: RxController,
    pub rx_acks: Vec<Packet>,
    /// With the event log on: the controller's decisions since the simulator last
    /// took them, as (subflow, its next expected segment, action).
    pub rx_decisions: Option<Vec<(u16, u64, RxAction)>>,
    pub app_delay: RttStats,
    /// Segments held at the receiver waiting for in-order delivery: in the
    /// subflows' reordering buffers plus the connection's.
    pub held: u64,
    pub held_peak: u64,
    /// Integral of `held` over time (segment-nanoseconds) since `held_from`, up to `held_at`.
    pub held_area: u128,
    pub held_at: Nanos,
    pub header: u32,

    /// Linux's pacing ratios in percent (slow start, congestion avoidance).
    pub pacing_ratios: (u32, u32),
    /// The subflows' handshakes, connection side (`tcp.handshake`, handshake.rs).
    pub hs: crate::handshake::ConnHandshake,
    pub base: FlowCounters,
}

impl Flow {
    /// Counters summed over the subflows.
    pub fn counters(&self) -> FlowCounters {
        let mut c = FlowCounters { delivered_bytes: self.delivered_bytes, ..Default::default() };
        for s in &self.subs {
            let k = s.counters();
            c.received_bytes += k.received_bytes;
            c.sent_bytes += k.sent_bytes;
            for (sum, n) in c.counts.iter_mut().zip(k.counts) {
                *sum += n;
            }
        }
        c
    }

    /// The application starts: subflows that start with the flow become active,
    /// or, with handshakes, wait for theirs (`Sim::open_subflows` sends the SYNs).
    pub fn start_app(&mut self) {
        self.data.set_app_bytes(self.app_bytes);
        self.app.start(self.start, &mut self.data, &mut self.timing);
        for s in self.subs.iter_mut() {
            if s.start <= self.start && s.stop.is_none_or(|t| t > self.start) {
                s.start_or_wait(self.hs.on);
            }
        }
    }

    /// Sends what the windows allow: first every subflow's lost segments on that
    /// subflow (RFC 6675 NextSeg rule 1, as MPTCP keeps retransmissions on their
    /// subflow), then data-level reinjections and new data, each segment on the
    /// subflow the scheduler picks.
    #[inline]
    pub fn push(&mut self, now: Nanos, out: &mut Vec<Packet>) {
        self.round(now, None, out);
    }

    /// `push`; `acked`: after an ACK of that subflow, when it is the only subflow
    /// whose window can have changed since the last round (`own_windows`, `on_ack`).
    #[inline]
    fn round(&mut self, now: Nanos, acked: Option<usize>, out: &mut Vec<Packet>) {
        let Flow { cc, subs, sched, data, timing, .. } = self;
        // The scheduler's once-per-round work (a slot, a token refill), with the
        // subflows in detail; the closures run only if the scheduler calls them.
        sched.prepare(
            now,
            || AppState {
                written: data.sizes.as_ref().map(|z| z.written),
                backlog: data.unsent_written().unwrap_or(0),
            },
            |i| {
                let s: &Subflow = &subs[i];
                let sf = s.snd.sf;
                SubflowDetail {
                    state: s.sched_state(s.snd.cwnd_segs(cc)),
                    acked_segs: s.snd.una,
                    min_rtt: s.snd.rtt.min_rtt,
                    slow_start: mpcc_algo::CongestionControl::cwnd(&*cc, sf)
                        < mpcc_algo::CongestionControl::ssthresh(&*cc, sf),
                }
            },
        );
        let mut pace_at: Option<Nanos> = None;
        // Whether the round ended for want of space (no subflow had any) rather than of
        // new data, when the loop after an ACK below was the round's.
        let mut ended_full = None;
        if let Some(k) = acked {
            // Without a NIC (`own_windows`): the window as it is, lost segments first,
            // for the acked subflow and any whose send window follows its own sending
            // (`Sender::window_moves`: PRR, F-RTO). Every other subflow's window is
            // the controller's as the last round found it, and its `send_lost` would
            // stop where it stopped then.
            // In index order, as every round sends: the moving ones before `k`, `k`, the
            // moving ones after it (no index test for `k` in the loops).
            let (before, rest) = subs.split_at_mut(k);
            let (own, after) = rest.split_first_mut().expect("the acked subflow exists");
            let mut others_moved = false;
            for s in before.iter_mut().filter(|s| s.active && s.snd.window_moves()) {
                others_moved = true;
                s.refresh_window(cc, now, out);
            }
            if own.active {
                own.refresh_window(cc, now, out);
            }
            for s in after.iter_mut().filter(|s| s.active && s.snd.window_moves()) {
                others_moved = true;
                s.refresh_window(cc, now, out);
            }
            if self.none_had_space
                && !others_moved
                && data.reinject.is_empty()
                && sched.picks_the_only_subflow_with_space()
            {
                // `k` is the one subflow that may have space (`none_had_space`), for a
                // scheduler that then picks it (never a copying one): `k`, as long as it
                // has some.
                debug_assert!(!sched.copies());
                ended_full = Some(loop {
                    if !data.has_new() {
                        break false;
                    }
                    if !own.sched_state(own.cwnd).has_space() {
                        break true;
                    }
                    let dsn = take_new(data, timing, now);
                    own.snd.emit_new(now, dsn, data.seg_bytes(dsn), false, out);
                });
            }
        } else {
            for (i, s) in subs.iter_mut().enumerate().filter(|(_, s)| s.active) {
                s.cwnd = s.snd.send_window(cc);
                // A scheduler-paced subflow takes a segment only at its pacing time (host.rs).
                let at = s.nic.as_ref().filter(|nic| nic.sched_paced).map(|nic| {
                    let full = s.snd.mss() + self.header;
                    nic.paced_at(pacing_rate(cc, sched, &s.snd, i, full, self.pacing_ratios, nic.linux_pacing))
                });
                if let Some(nic) = &mut s.nic {
                    // TCP Small Queues: no more than the local queue may hold.
                    let mut room = nic.room();
                    if let Some(t) = at.filter(|&t| t > now) {
                        if s.cwnd > s.snd.pipe {
                            pace_at = Some(pace_at.map_or(t, |p: Nanos| p.min(t)));
                        }
                        room = 0;
                    }
                    s.cwnd = s.cwnd.min(s.snd.pipe + room);
                }
                s.snd.send_lost(now, s.cwnd, out);
            }
        }
        let n = subs.len();
        // Each loop's value: whether it ended for want of space (no subflow had any)
        // rather than of new data.
        let none_had_space = match ended_full {
            Some(full) => full,
            None => {
                if sched.copies() {
                    // A copying scheduler: each subflow with space sends the DSN the
                    // scheduler names (new data when it is the next new DSN), round after
                    // round until none sends; the copies make reinjection needless.
                    data.reinject.clear();
                    let mut sent = true;
                    while sent {
                        sent = false;
                        for (i, s) in subs.iter_mut().enumerate() {
                            if !(s.active && s.snd.pipe < s.cwnd) {
                                continue;
                            }
                            let Some(dsn) = sched.copy(i, data.una, data.nxt, data.has_new()) else { continue };
                            if dsn == data.nxt {
                                take_new(data, timing, now);
                            }
                            s.snd.emit_new(now, dsn, data.seg_bytes(dsn), false, out);
                            sent = true;
                        }
                    }
                }
                // Reinjections first, then new data, each on the subflow the scheduler picks.
                loop {
                    let state = |i: usize| subs[i].sched_state(subs[i].cwnd);
                    // The connection as the round finds it (before `next_reinjection` drops the
                    // reinjections already acknowledged), computed only for a scheduler that reads it.
                    let reinjections = data.reinject.len();
                    let conn =
                        |data: &DataSender| ConnState { queued: data.queued_with(reinjections), window: data.window() };
                    // A reinjection goes first, on a subflow other than the one it is stuck on.
                    if let Some((dsn, from)) = data.next_reinjection() {
                        if let Some(i) = sched.pick_lazy(n, Some(from as usize), || conn(data), state) {
                            data.reinject.pop_front();
                            subs[i].snd.emit_new(now, dsn, data.seg_bytes(dsn), true, out);
                            continue;
                        }
                    }
                    if !data.has_new() {
                        break false;
                    }
                    let Some(i) = sched.pick_lazy(n, None, || conn(data), state) else { break true };
                    let dsn = take_new(data, timing, now);
                    subs[i].snd.emit_new(now, dsn, data.seg_bytes(dsn), false, out);
                }
            }
        };
        if !none_had_space {
            // RFC 6675 NextSeg rules 3 and 4: only once no new data can go.
            for s in subs.iter_mut().filter(|s| s.active) {
                s.snd.send_beyond_new_data(now, s.cwnd, out);
            }
        }
        if self.opportunistic && n > 1 {
            self.opportunistic_retransmission(now, out);
        }
        self.none_had_space = none_had_space;
        let Flow { subs, sched, data, .. } = self;
        self.pace_at = pace_at.filter(|_| data.has_new() || data.next_reinjection().is_some());
        sched.sent(now, || data.has_new() || data.next_reinjection().is_some(), |i| subs[i].sched_state(subs[i].cwnd));
        if self.window_validation {
            for s in subs.iter_mut().filter(|s| s.active) {
                s.snd.note_window_use(s.cwnd);
            }
        }
        if self.data_rtx.is_some() {
            self.data_rtx_after_push(now);
        }
    }

    /// Raiciu et al. (NSDI 2012, 4.2): the receive window blocks new data while the
    /// data at its left edge waits on another subflow: a subflow with space sends it
    /// again (once per DSN) and, with `penalize`, the subflow that held it halves its
    /// window, at most once per its smoothed RTT.
    #[cold]
    fn opportunistic_retransmission(&mut self, now: Nanos, out: &mut Vec<Packet>) {
        let data = &self.data;
        let blocked = data.nxt >= data.wnd_edge && data.nxt < data.app_limit && data.una < data.nxt;
        if !blocked || self.opp_dsn == Some(data.una) {
            return;
        }
        let dsn = data.una;
        let Some(holder) = self.subs.iter().position(|s| s.active && s.snd.holds(dsn)) else { return };
        let n = self.subs.len();
        let conn = ConnState { queued: 1, window: data.window() };
        let subs = &self.subs;
        let Some(i) = self.sched.pick(n, Some(holder), conn, |i| subs[i].sched_state(subs[i].cwnd)) else { return };
        self.opp_dsn = Some(dsn);
        let bytes = self.data.seg_bytes(dsn);
        self.subs[i].snd.emit_new(now, dsn, bytes, true, out);
        if self.penalize {
            let h = &self.subs[holder].snd;
            if now.saturating_sub(self.penalized_at[holder]) >= h.rtt.srtt {
                self.penalized_at[holder] = now;
                h.penalize(now, &mut self.cc);
            }
        }
    }

    /// An ACK of subflow `sub` reached the sender: `given`, or with None the one the
    /// subflow's receiver just built (`Receiver::built`), read where it is: a copy
    /// made right after the receiver's stores of its fields would wait for them (its
    /// wide loads straddle them). One body for both, so that the sender's processing
    /// is inlined once.
    #[inline]
    pub fn on_ack(&mut self, now: Nanos, sub: usize, given: Option<&Packet>, out: &mut Vec<Packet>) {
        let ack = given.unwrap_or(&self.subs[sub].rcv.built);
        let (dsn, rwnd) = (ack.dsn, ack.rwnd());
        self.data_ack(now, sub, dsn, rwnd);
        let Flow { subs, cc, sched, .. } = self;
        let Subflow { snd, rcv, rtt, active, .. } = &mut subs[sub];
        let ack = given.unwrap_or(&rcv.built);
        if *active {
            rtt.add(now - ack.ts);
            snd.process_ack(now, ack, cc, out);
            sched.on_ack(&AckSample { sub, owd: ack.owd, rtt: now - ack.ts });
        }
        let acked = self.own_windows.then_some(sub);
        self.round(now, acked, out);
    }

    /// The connection-level part of an ACK of subflow `sub`: its DATA_ACK and window.
    #[inline]
    fn data_ack(&mut self, now: Nanos, sub: usize, dsn: u64, rwnd: u64) {
        let una = self.data.una;
        self.data.on_data_ack(dsn, rwnd);
        if self.data_rtx.is_some() {
            self.data_rtx_on_ack(now, sub, una);
        }
        self.app.on_data_ack(now, &mut self.data, &mut self.timing);
    }

    /// The retransmission timer of subflow `sub` expired. With other subflows to
    /// carry it, the data stuck on it is queued for reinjection (unless the
    /// connection's own timer decides that, `tcp.data_rtx`).
    pub fn on_timeout(&mut self, now: Nanos, sub: usize, out: &mut Vec<Packet>) {
        let multipath = self.subs.len() > 1 && self.data_rtx.is_none();
        let s = &mut self.subs[sub];
        match s.snd.on_timer(now, &mut self.cc, out) {
            Timer::Rto if multipath => self.queue_reinjection(sub, false),
            Timer::Probe => {
                // The tail loss probe: new data if the connection has some for this
                // subflow, else the subflow's last segment again (RFC 8985 7.3).
                let data = &mut self.data;
                if data.has_new() {
                    let dsn = take_new(data, &mut self.timing, now);
                    s.snd.emit_new(now, dsn, data.seg_bytes(dsn), false, out);
                } else {
                    s.snd.retransmit_tail(now, out);
                }
                s.snd.probe_sent(now);
            }
            _ => {}
        }
        self.push(now, out);
    }

    /// Subflow `sub` closed: everything outstanding on it, SACKed or not, is
    /// reinjected (its receiver will never deliver what it holds).
    pub fn close_subflow(&mut self, sub: usize) {
        self.queue_reinjection(sub, true);
        self.sched.on_subflow_removed(sub);
    }

    /// Queues for reinjection the data outstanding on subflow `sub` (SACKed data
    /// too when the subflow closes).
    fn queue_reinjection(&mut self, sub: usize, closing: bool) {
        let (data, s) = (&mut self.data, &mut self.subs[sub]);
        let una = data.una;
        s.snd.take_for_reinjection(closing, |dsn| {
            if dsn >= una {
                data.reinject.push_back((dsn, sub as u16));
            }
        });
    }

    /// A data segment reached subflow `pkt.sub`'s receiver: subflow-level
    /// acknowledgement, then the DSNs it releases go through the connection's
    /// reordering buffer to the application.
    #[inline]
    pub fn on_data(&mut self, now: Nanos, pkt: &Packet) -> AckAction {
        if !self.rctl.is_none() {
            self.receiver_control(now, pkt);
        }
        let payload = pkt.bytes - self.header;
        let s = &mut self.subs[pkt.sub as usize];
        s.last_arrival = now;
        let held_before = s.rcv.ooo_segs + self.rx.ooo.len;
        let before = self.rx.nxt;
        let (rx, data) = (&mut self.rx, &self.data);
        // PSH: the segment ends an application's write (the sender's marks, read
        // here rather than carried in the packet; they never change once sent),
        // asked only by a delayed ACK.
        let pushed = || data.pushed(pkt.dsn);
        let (action, _) = s.rcv.on_data_to(now, pkt, payload, pushed, &mut |lo, hi| {
            rx.on_run(lo, hi);
        });
        let held_after = s.rcv.ooo_segs + self.rx.ooo.len;
        // Unchanged (in order on every level), nothing to count or store.
        if held_after != held_before {
            // `held_at` is an earlier event's time (or the warm-up's end, reset at its
            // own time): the difference does not underflow.
            self.held_area += self.held as u128 * (now - self.held_at) as u128;
            self.held_at = now;
            self.held = self.held + held_after - held_before;
            // A test, not `max`: below the peak nothing is stored.
            if self.held > self.held_peak {
                self.held_peak = self.held;
            }
        }
        let after = self.rx.nxt;
        if after > before {
            self.delivered_bytes += self.data.range_bytes(before, after);
            self.timing.delivered(after, now, &mut self.app_delay);
            if self.completed_at.is_none() && self.app_bytes != u64::MAX && self.delivered_bytes >= self.app_bytes {
                self.completed_at = Some(now);
            }
            self.app.on_delivered(now, self.delivered_bytes);
        }
        action
    }

    /// The receiver controller sees each arrival before the subflow receiver
    /// acknowledges it, so a decision about the segment's own subflow already
    /// shapes its ACK (thesis Algorithm 1: the ACK of the segment that finds the
    /// window above its threshold is the first duplicate). Out of line: most flows
    /// have no receiver controller, and inlined it grew the delivery path.
    #[inline(never)]
    fn receiver_control(&mut self, now: Nanos, pkt: &Packet) {
        let Flow { rctl, subs, rx_acks, rx, rx_decisions, .. } = self;
        let a = {
            let s = &mut subs[pkt.sub as usize];
            // RFC 7323: now minus the echoed TSval, the time the echoed ACK left
            // (not when its first segment arrived: a delayed ACK's wait is no part of it).
            let echo = pkt.owd;
            let tsval = match &mut s.ack_clock {
                Some(c) if echo > 0 => c.tsval(echo),
                _ => echo,
            };
            let r = &s.rcv;
            Arrival {
                now,
                sub: pkt.sub as usize,
                dsn: pkt.dsn,
                seq: pkt.seq,
                retransmission: pkt.seq < r.highest(),
                in_order: pkt.seq == r.rcv_nxt,
                rtt: if echo > 0 { now.saturating_sub(tsval) } else { 0 },
            }
        };
        let app = AppView { delivered: rx.nxt, playback: 0 };
        rctl.on_arrival(&a, &app, &mut |i, action| {
            let rcv = &mut subs[i].rcv;
            if let Some(d) = rx_decisions {
                d.push((i as u16, rcv.rcv_nxt, action));
            }
            match action {
                RxAction::DupAck => rcv.start_hold(),
                RxAction::Off => rcv.off = true,
                RxAction::On => {
                    if rcv.off {
                        rx_acks.push(rcv.turn_on(now));
                    }
                }
            }
        });
    }

    /// Mean of `held` over [from, to], counting from the last `reset_held_mean`.
    pub fn held_mean(&self, from: Nanos, to: Nanos) -> f64 {
        let area = self.held_area + self.held as u128 * to.saturating_sub(self.held_at) as u128;
        area as f64 / to.saturating_sub(from) as f64
    }

    /// Starts the time average of `held` afresh at `now` (end of the warm-up).
    pub fn reset_held_mean(&mut self, now: Nanos) {
        self.held_area = 0;
        self.held_at = now;
    }

    /// Stamps an ACK of a subflow with the connection's DATA_ACK and window.
    #[inline]
    pub fn stamp(&self, ack: &mut Packet) {
        ack.dsn = self.rx.nxt;
        ack.set_rwnd(self.rx.window());
    }

    /// Gives back the spare capacity of the flow's buffers (`mem::trim_deque`):
    /// called for a few flows at each periodic check of the run, never per packet.
    pub fn trim(&mut self) {
        self.data.trim();
        self.rx.ooo.trim();
        self.timing.trim();
        crate::mem::trim_vec(&mut self.rx_acks, 4);
        for s in &mut self.subs {
            s.snd.trim();
            s.rcv.trim();
            crate::mem::trim_deque(&mut s.ack_pipe, 8);
            if let Some(c) = &mut s.ack_clock {
                c.trim();
            }
            if let Some(nic) = &mut s.nic {
                crate::mem::trim_deque(&mut nic.queue, 8);
            }
        }
    }

    /// RTT samples of all subflows together.
    pub fn rtt(&self) -> RttStats {
        if self.subs.len() == 1 {
            return self.subs[0].rtt.clone();
        }
        let mut r = RttStats::default();
        for s in &self.subs {
            r.merge(&s.rtt);
        }
        r
    }
}

/// The next new DSN, taken for a subflow to send now: its application delay starts
/// here (`AppTiming::handed`).
#[inline(always)]
fn take_new(data: &mut DataSender, timing: &mut AppTiming, now: Nanos) -> u64 {
    let dsn = data.nxt;
    data.nxt += 1;
    timing.handed(dsn, now);
    dsn
}

/// The rate subflow `sub` is paced at for packets of `bytes`, bytes per second: the
/// controller's own (`pacing_rate`) or Linux's rule (tcp_update_pacing_rate) with the
/// pacing ratios `ratios`, capped by the scheduler's (`host::paced_rate`: the lower
/// applies). None before an RTT sample when the scheduler asks for nothing. `linux`
/// (`linux_pacing`): Linux's rule on the larger of the window and the segments
/// outstanding (`max(cwnd, packets_out)`), which differ in recovery.
/// Generic over the controller so that a test can give one that sets its own rate
/// (no built-in controller does yet); the simulator calls it with its `Controller`.
#[inline]
pub fn pacing_rate<C: mpcc_algo::CongestionControl>(
    cc: &C, sched: &AnyScheduler, snd: &Sender, sub: usize, bytes: u32, ratios: (u32, u32), linux: bool,
) -> Option<f64> {
    let sf = snd.sf;
    let own = match cc.pacing_rate(sf) {
        Some(segs) => Some(segs * bytes as f64),
        None => {
            let outstanding = if linux { (snd.nxt - snd.una) as f64 } else { 0.0 };
            crate::host::pacing_rate(
                cc.cwnd(sf),
                outstanding,
                cc.ssthresh(sf),
                snd.rtt.srtt,
                snd.mss(),
                ratios.0,
                ratios.1,
            )
        }
    };
    let cap = sched.pacing_rate(sub).map(|segs| segs * bytes as f64);
    crate::host::paced_rate(own, cap)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TcpConfig;
    use mpcc_algo::{AckEvent, CongestionControl, CongestionEvent};
    use std::collections::BTreeMap;

    /// A rate-based controller's share of the interface: a fixed window and, when
    /// `rate` is set, its own pacing rate. (A scheduler's cap on top of either is
    /// `host::tests` and `tsc::tests::the_host_paces_tscs_subflows_at_their_allocation`.)
    struct RateCc {
        rate: Option<f64>,
    }

    impl CongestionControl for RateCc {
        fn add_subflow(&mut self, _now: Nanos) -> usize {
            0
        }
        fn on_ack(&mut self, _sf: usize, _ev: &AckEvent) {}
        fn on_congestion(&mut self, _sf: usize, _ev: &CongestionEvent) {}
        fn cwnd(&self, _sf: usize) -> f64 {
            10.0
        }
        fn ssthresh(&self, _sf: usize) -> f64 {
            100.0
        }
        fn set_ssthresh(&mut self, _sf: usize, _v: f64) {}
        fn undo(&mut self, _sf: usize, _now: Nanos) {}
        fn remove_subflow(&mut self, _sf: usize, _now: Nanos) {}
        fn pacing_rate(&self, _sf: usize) -> Option<f64> {
            self.rate
        }
    }

    #[test]
    fn a_controllers_own_pacing_rate_replaces_the_transports_rule() {
        let tcp = TcpConfig::default();
        let mut snd = Sender::new(0, 0, &tcp);
        snd.rtt.srtt = 100_000_000;
        let mss = snd.mss();
        let setup = mpcc_algo::sched::Setup { n: 2, costs: &[0.0, 0.0], hops: &[1, 1], mss, count_from: 0 };
        let minrtt = mpcc_algo::sched::build("minrtt", &BTreeMap::new(), &setup).unwrap();
        let ratios = (200, 120);
        // Without a rate of its own: Linux's rule, 10 segments per 100 ms x 2.0
        // (cwnd below ssthresh / 2).
        let linux_rule = pacing_rate(&RateCc { rate: None }, &minrtt, &snd, 0, mss, ratios, false);
        assert_eq!(linux_rule, Some(10.0 * mss as f64 / 0.1 * 2.0));
        // The controller's 50 segments per second, whatever the window and RTT.
        let own = pacing_rate(&RateCc { rate: Some(50.0) }, &minrtt, &snd, 0, mss, ratios, false);
        assert_eq!(own, Some(50.0 * mss as f64));
    }
}
