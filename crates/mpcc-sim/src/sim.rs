//! The simulator: builds the world from a [`Config`], runs the event loop, and
//! reports.

use crate::app::Application;
use crate::config::Config;
use crate::engine::{Event, EventQueue};
use crate::event_log::{Event as Logged, EventLog, SenderMark};
use crate::flow::{Flow, ReverseRoute};
use crate::handshake::{Phase, Step};
use crate::ids::{Arena, FlowId, LinkId};
use crate::link::{Link, TxDone};
use crate::metrics::Columns;
use crate::packet::{AckInFlight, Kind, Packet};
use crate::pcap::Pcap;
use crate::series;
use crate::tcp::receiver::AckAction;
use mpcc_algo::sched::Scheduler;
use mpcc_algo::CongestionControl;
use mpcc_core::Nanos;

pub struct Sim {
    pub now: Nanos,
    pub end: Nanos,
    pub warmup: Nanos,
    pub sample_interval: Nanos,
    pub seed: u64,
    pub events: EventQueue,
    pub links: Arena<LinkId, Link>,
    pub flows: Arena<FlowId, Flow>,
    /// Events processed.
    pub processed: u64,
    /// Data packets that reached their receiver.
    pub delivered_packets: u64,
    /// Reused buffer for the packets a sender emits (no allocation per ACK).
    out: Vec<Packet>,
    pub flow_series: Columns,
    pub link_series: Columns,
    /// The controllers' and schedulers' figures, when asked (`metric_series`).
    pub metric_series: Option<series::MetricSeries>,
    /// Per link, its counters at the end of the warm-up.
    pub link_base: Vec<LinkBase>,
    /// Per link at the previous sample: (dequeued, sojourn sum).
    link_last: Vec<(u64, u128)>,
    /// Why the run ended before its configured duration, if it did.
    pub stopped_early: Option<String>,
    /// The per-event log, when the configuration asks for it.
    pub log: Option<EventLog>,
    /// Packet captures, when the configuration asks for them.
    pub pcap: Option<Pcap>,
    /// The next flow whose buffers `trim_some` trims.
    trim_next: usize,
    /// Per flow, the time of its pending `Event::App` (at most one).
    app_at: Vec<Option<Nanos>>,
}

/// Events between two checks of a run's interruption and memory (a few milliseconds).
pub const CHECK_EVERY: u64 = 1 << 16;
/// Flows whose buffers are trimmed at each check (`Flow::trim`): every flow once per
/// (flows / 64) x 65 536 events, a few microseconds per check. (Trimming 16 times
/// less often left more resident memory, not less: 1000 Reno flows, 600 s.)
pub const TRIM_FLOWS: usize = 64;

/// Why a run stopped before its end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stop {
    Interrupted,
    /// The heap passed this many bytes.
    MemoryLimit(u64),
}

/// A link's counters at the end of the warm-up, subtracted from the final ones.
#[derive(Clone, Copy, Debug, Default)]
pub struct LinkBase {
    /// Bytes of the packets finished.
    pub tx_bytes: u64,
    /// The same with the packet then being serialised counted pro rata.
    pub tx_sent: f64,
    pub queue_drops: u64,
    pub loss_drops: u64,
    pub dequeued: u64,
    pub sojourn_sum: u128,
}

impl Sim {
    pub fn new(cfg: &Config) -> Result<Sim, String> {
        crate::limits::check(cfg)?;
        let links = crate::build::links(cfg)?;
        let flows = crate::build::flows(cfg, &links)?;
        let (n_links, n_flows) = (links.len(), flows.len());
        let mut sim = Sim {
            now: 0,
            end: cfg.duration_ns,
            warmup: cfg.warmup_ns,
            sample_interval: cfg.sample_interval_ns,
            seed: cfg.seed,
            events: EventQueue::for_flows(flows.len()),
            links: links.into(),
            flows: flows.into(),
            processed: 0,
            delivered_packets: 0,
            out: Vec::with_capacity(64),
            flow_series: series::table(series::FLOW_COLUMNS),
            link_series: series::table(series::LINK_COLUMNS),
            link_base: vec![LinkBase::default(); n_links],
            link_last: vec![(0, 0); n_links],
            stopped_early: None,
            log: None,
            metric_series: None,
            pcap: None,
            trim_next: 0,
            app_at: vec![None; n_flows],
        };
        sim.allow_deferred_tx_done();
        if cfg.event_log {
            sim.log = Some(EventLog::new(sim.flows.len()));
            for f in sim.flows.iter_mut().filter(|f| !f.rctl.is_none()) {
                f.rx_decisions = Some(Vec::new());
            }
        }
        if cfg.metric_series && sim.sample_interval > 0 {
            sim.metric_series = Some(series::MetricSeries::new());
        }
        if let Some(p) = &cfg.pcap {
            sim.pcap = Some(Pcap::configure(cfg, p, |i| sim.flows[crate::ids::FlowId(i as u32)].subs.len() > 1)?);
        }
        for (flow, f) in sim.flows.entries() {
            sim.events.schedule(f.start, Event::FlowStart { flow });
            if let Some(stop) = f.stop {
                sim.events.schedule(stop, Event::FlowStop { flow });
            }
            for (j, s) in f.subs.iter().enumerate() {
                let sub = j as u16;
                if s.start > f.start {
                    sim.events.schedule(s.start, Event::SubflowStart { flow, sub });
                }
                if let Some(stop) = s.stop {
                    sim.events.schedule(stop, Event::SubflowStop { flow, sub });
                }
            }
        }
        sim.set_acks_in_place(sim.log.is_none() && sim.pcap.is_none());
        if sim.warmup > 0 {
            sim.events.schedule(sim.warmup, Event::WarmupEnd);
        }
        if sim.sample_interval > 0 {
            sim.events.schedule(0, Event::Sample);
        }
        Ok(sim)
    }

    /// Whether ACKs due at once may be read where their receivers built them
    /// (`Subflow::acks_in_place`): `allowed` and a subflow whose ACKs cross a
    /// zero-delay reverse path without an ACK clock. Off only in a run with a log
    /// or capture, or to test that this changes nothing.
    fn set_acks_in_place(&mut self, allowed: bool) {
        for s in self.flows.iter_mut().flat_map(|f| f.subs.iter_mut()) {
            s.acks_in_place = allowed && matches!(s.rev, ReverseRoute::Delay(0)) && s.ack_clock.is_none();
        }
    }

    /// Lets eligible links keep a `TxDone` out of the event queue (`Link::can_defer`).
    /// Not in a run with a zero delay anywhere: there `EventQueue::more_now` decides
    /// whether a packet waits for an event, and it sees only queued events. Nor with
    /// the radix heap, which takes events in the order of their sequence numbers.
    fn allow_deferred_tx_done(&mut self) {
        let zero_delay = self.links.iter().any(|l| l.delay == 0)
            || self.flows.iter().flat_map(|f| &f.subs).any(|s| matches!(s.rev, ReverseRoute::Delay(0)));
        let allowed = self.events.reserves() && !zero_delay;
        for l in self.links.iter_mut() {
            l.may_defer = allowed && l.loss.is_lossless() && l.queue.is_plain_fifo();
        }
    }

    /// Applies every link's deferred `TxDone` that would have run by now, before the
    /// links are read as a whole (samples, the warm-up's end, the summary).
    fn settle_links(&mut self) {
        let events = &self.events;
        for l in self.links.iter_mut() {
            l.settle(|t, seq| events.is_past(t, seq));
        }
    }

    /// Runs until the configured duration.
    pub fn run(&mut self) {
        self.run_until(|| None);
    }

    /// Runs until the configured duration, or until `check` (asked every
    /// [`CHECK_EVERY`] events) gives a reason to stop. A run stopped for its
    /// memory ends at that time, and its summary covers what it simulated.
    pub fn run_until(&mut self, mut check: impl FnMut() -> Option<Stop>) -> Option<Stop> {
        loop {
            // An ACK due at the current instant first, as `EventQueue::pop` gives it,
            // handled without packing it into an `Event` (it is not after the end:
            // the event that sent it was not).
            if let Some(ack) = self.events.pop_now() {
                self.processed += 1;
                if ack.built {
                    self.ack_built(ack.flow, ack.sub);
                } else {
                    self.ack_pipe(ack.flow, ack.sub);
                }
            } else {
                let Some((t, ev)) = self.events.pop_queued() else { break };
                if t > self.end {
                    break;
                }
                self.now = t;
                self.processed += 1;
                self.handle(ev);
            }
            if self.processed.is_multiple_of(CHECK_EVERY) {
                self.trim_some();
                if let Some(stop) = check() {
                    if let Stop::MemoryLimit(limit) = stop {
                        self.stopped_early = Some(format!(
                            "stopped at {:.3} s of {:.3} s: the simulator's memory passed the limit of {limit} bytes",
                            self.now as f64 * 1e-9,
                            self.end as f64 * 1e-9
                        ));
                        self.end = self.now;
                    }
                    self.settle_links();
                    return Some(stop);
                }
            }
        }
        self.now = self.end;
        // Every deferred TxDone up to the end would have run.
        let end = self.end;
        for l in self.links.iter_mut() {
            l.settle(|t, _| t <= end);
        }
        None
    }

    /// Trims the buffers of the next TRIM_FLOWS flows (and the links' propagation
    /// queues when the sweep starts over), so that the memory follows the current
    /// windows and queues rather than the largest they ever were (`mem::trim_deque`).
    /// Capacities only: results cannot change.
    fn trim_some(&mut self) {
        let n = self.flows.len();
        if self.trim_next == 0 {
            for l in self.links.iter_mut() {
                crate::mem::trim_deque(&mut l.pipe, 64);
            }
        }
        let end = (self.trim_next + TRIM_FLOWS).min(n);
        for f in &mut self.flows.iter_mut().skip(self.trim_next).take(end - self.trim_next) {
            f.trim();
        }
        self.trim_next = if end >= n { 0 } else { end };
        if self.trim_next == 0 {
            crate::mem::release_free_pages();
        }
    }

    #[inline]
    fn handle(&mut self, ev: Event) {
        match ev {
            Event::TxDone { link } => self.tx_done(link),
            Event::NicDone { flow, sub } => self.nic_done(flow, sub),
            Event::LinkPipe { link } => self.link_pipe(link),
            Event::AckPipe { flow, sub } => self.ack_pipe(flow, sub),
            Event::AckBuilt { flow, sub } => self.ack_built(flow, sub),
            Event::Rto { flow, sub } => self.rto(flow, sub),
            Event::DelAck { flow, sub } => {
                let r = &mut self.flows[flow].subs[sub as usize].rcv;
                let pending = r.delack_event_at.take();
                let ack = r.on_delack_event(self.now);
                // With SACK compression the other of its two timers (delayed ACK,
                // compressed SACK) may still be armed, and no event may be pending for it.
                if let Some(t) = r.poll_at().filter(|&t| r.compresses() && t > self.now && pending != Some(t)) {
                    r.delack_event_at = Some(t);
                    self.events.schedule(t, Event::DelAck { flow, sub });
                }
                if let Some(ack) = ack {
                    self.send_ack(ack);
                }
            }
            Event::FlowStart { flow } => self.start_flow(flow),
            Event::FlowStop { flow } => {
                let (now, f) = (self.now, &mut self.flows[flow]);
                f.app.stop(now, &mut f.data);
            }
            Event::App { flow } => self.app_timer(flow),
            Event::Pace { flow } => {
                let (now, f) = (self.now, &mut self.flows[flow]);
                if f.sched_wake.fire(now) {
                    f.push(now, &mut self.out);
                    self.flush(flow);
                }
            }
            Event::DataRtx { flow } => {
                let (now, f) = (self.now, &mut self.flows[flow]);
                if f.data_rtx.as_mut().is_some_and(|d| d.wake.fire(now)) {
                    f.data_rtx_expired(now);
                    f.push(now, &mut self.out);
                    self.flush(flow);
                }
            }
            Event::Handshake { flow, sub } => self.handshake_event(flow, sub),
            Event::SubflowStart { flow, sub } => self.start_subflow(flow, sub),
            Event::SubflowStop { flow, sub } => self.stop_subflow(flow, sub),
            Event::Sample => self.sample(),
            Event::WarmupEnd => self.end_warmup(),
        }
    }

    /// The oldest ACK on a subflow's delay-only reverse path reaches the sender.
    #[inline]
    fn ack_pipe(&mut self, flow: FlowId, sub: u16) {
        let s = &mut self.flows[flow].subs[sub as usize];
        let ack = s.ack_pipe.pop_front().expect("AckPipe event without an ACK").packet(flow.0, sub);
        if let Some(next) = s.ack_pipe.front() {
            self.events.schedule_maybe_now(next.at, Event::AckPipe { flow, sub });
        }
        self.ack_at_sender(ack);
    }

    /// The ACK a subflow's receiver just built reaches the sender, read where it is.
    #[inline]
    fn ack_built(&mut self, flow: FlowId, sub: u16) {
        let f = &mut self.flows[flow];
        f.on_ack(self.now, sub as usize, None, &mut self.out);
        let awaiting_full = f.hs.awaiting_full;
        self.after_ack(flow, awaiting_full);
    }

    fn start_flow(&mut self, flow: FlowId) {
        let f = &mut self.flows[flow];
        f.start_app();
        if let Some(log) = &mut self.log {
            for (j, s) in f.subs.iter().enumerate().filter(|(_, s)| s.active) {
                log.subflow(self.now, s.snd.flow, j as u16, true);
            }
        }
        f.push(self.now, &mut self.out);
        self.flush(flow);
        if self.flows[flow].hs.on {
            self.open_subflows(flow);
        }
        self.app_wake(flow);
    }

    /// Schedules the flow's `Event::App` at the time its application asks for
    /// (`poll_at`), unless it is already pending for that time.
    #[inline]
    fn app_wake(&mut self, flow: FlowId) {
        if let Some(t) = self.flows[flow].app.poll_at() {
            Self::wake_app_at(&mut self.app_at, &mut self.events, flow, t);
        }
    }

    /// `app_wake` for an application that wants its timer at `t`.
    #[inline]
    fn wake_app_at(app_at: &mut [Option<Nanos>], events: &mut EventQueue, flow: FlowId, t: Nanos) {
        let at = &mut app_at[flow.0 as usize];
        if *at != Some(t) {
            *at = Some(t);
            events.schedule(t, Event::App { flow });
        }
    }

    fn app_timer(&mut self, flow: FlowId) {
        let now = self.now;
        let at = &mut self.app_at[flow.0 as usize];
        if *at != Some(now) {
            return; // superseded by another time
        }
        *at = None;
        let f = &mut self.flows[flow];
        if f.app.poll_at().is_some_and(|t| t <= now) {
            f.app.on_timer(now, &mut f.data, &mut f.timing);
        }
        f.push(now, &mut self.out);
        self.flush(flow);
        self.app_wake(flow);
    }

    /// A subflow joins after its connection started.
    fn start_subflow(&mut self, flow: FlowId, sub: u16) {
        let now = self.now;
        let f = &mut self.flows[flow];
        if now < f.start {
            return; // joins when the flow starts
        }
        f.subs[sub as usize].start_or_wait(f.hs.on);
        if f.hs.on {
            return self.open_subflows(flow);
        }
        if let Some(log) = &mut self.log {
            log.subflow(now, flow.0, sub, true);
        }
        f.push(now, &mut self.out);
        self.flush(flow);
    }

    /// A subflow leaves: it sends nothing more, every segment still outstanding
    /// on it is reinjected on the others, and the controller removes it from its
    /// coupling (`CongestionControl::remove_subflow`).
    fn stop_subflow(&mut self, flow: FlowId, sub: u16) {
        let now = self.now;
        let f = &mut self.flows[flow];
        let s = &mut f.subs[sub as usize];
        if !s.active {
            s.hs.stop();
            return;
        }
        s.set_active(false);
        s.snd.stop_timers();
        if let Some(log) = &mut self.log {
            log.subflow(now, flow.0, sub, false);
        }
        // The controller forgets it: it no longer weighs in any coupling term.
        f.cc.remove_subflow(sub as usize, now);
        f.close_subflow(sub as usize);
        f.push(now, &mut self.out);
        self.flush(flow);
    }

    /// Puts the packets the subflows emitted onto their forward routes and
    /// re-arms their timers.
    #[inline]
    fn flush(&mut self, flow: FlowId) {
        let mut nic_handed = false;
        // The segments are read where the sender put them, beside the fields the
        // link needs (taking `out` out of `self` and putting it back cost a dozen
        // instructions per round).
        let Sim { now, out, links, flows, log, events, pcap, .. } = self;
        let now = *now;
        for emitted in out.iter() {
            // The subflow read on its own, and the packet handed on in place: the
            // link copies it once, into its queue or pipe (a copy here, just after
            // the sender wrote it field by field, waited for those stores: its wide
            // loads straddle them).
            let sub = emitted.sub;
            if let Some(log) = log {
                log.packet(now, Logged::Send, emitted, None);
            }
            // Captured as it leaves the host (tcpdump sees a packet after the qdisc
            // and TCP's pacing): here without a NIC, in `nic_done` with one.
            if let Some(pc) = pcap.as_mut().filter(|_| flows[flow].subs[sub as usize].nic.is_none()) {
                capture_at_sender(pc, flows, now, emitted);
            }
            let s = &mut flows[flow].subs[sub as usize];
            if let Some(nic) = &mut s.nic {
                nic.push(*emitted, now);
                nic_handed = true;
                continue;
            }
            let first = s.fwd[0];
            if Self::arrive_at(links, flows, log, events, now, first, emitted) {
                if let Some(pc) = pcap {
                    capture_on_link(pc, links, flows, now, first);
                }
            }
        }
        out.clear();
        // A host starts sending once the sender has handed over everything this
        // event lets it send (a paced burst is formed from what waits then).
        if nic_handed {
            for sub in 0..self.flows[flow].subs.len() {
                if self.flows[flow].subs[sub].nic.as_ref().is_some_and(|n| !n.busy && !n.queue.is_empty()) {
                    self.nic_start(flow, sub as u16);
                }
            }
        }
        self.arm_rtos(flow);
        let f = &mut self.flows[flow];
        let wake = match (f.sched.poll_at(), f.pace_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some(t) = f.sched_wake.arm(wake) {
            self.events.schedule(t, Event::Pace { flow });
        }
        if f.data_rtx.is_some() {
            self.arm_data_rtx(flow);
        }
    }

    /// The connection's retransmission timer (`tcp.data_rtx`): out of line, so that
    /// the loop does not grow by it when it is off.
    #[inline(never)]
    fn arm_data_rtx(&mut self, flow: FlowId) {
        if let Some(t) = self.flows[flow].data_rtx.as_mut().and_then(|d| d.wake.arm(d.at)) {
            self.events.schedule(t, Event::DataRtx { flow });
        }
    }

    /// A subflow's NIC starts sending the packet at the head of its local queue:
    /// at once, or when pacing allows (host.rs). Kept out of line: without a NIC
    /// the event loop should not grow by it.
    #[inline(never)]
    fn nic_start(&mut self, flow: FlowId, sub: u16) {
        let now = self.now;
        let f = &mut self.flows[flow];
        let s = &mut f.subs[sub as usize];
        let Some(nic) = &mut s.nic else { return };
        let Some(head) = nic.queue.front() else {
            nic.busy = false;
            return;
        };
        let (bytes, timed) = (head.bytes, nic.timed(head.bytes));
        // The rate TSQ and pacing use: the controller's own, or Linux's rule,
        // capped by the scheduler's (host.rs: the lower applies).
        let rate =
            crate::flow::pacing_rate(&f.cc, &f.sched, &s.snd, sub as usize, timed, f.pacing_ratios, nic.linux_pacing);
        nic.set_rate(rate.unwrap_or(f64::INFINITY), timed);
        // A scheduler-paced segment was let in at its time (`Flow::push`).
        let (mss, min_rtt) = (s.snd.mss(), s.snd.rtt.min_rtt);
        let start = nic.paced_start(nic.ready_at(now), rate, timed, |r| crate::host::tso_segments(r, mss, min_rtt));
        if let Some(departure) = nic.departure {
            // A segment whose burst waited for its pacing time carries that time as
            // its timestamp, as Linux stamps each skb with its departure time (EDT,
            // `tcp_wstamp_ns` in __tcp_transmit_skb, since 4.20): the wait is not
            // part of its RTT sample, which would otherwise lower the rate it is
            // paced at and lengthen the wait again.
            if let Some(head) = nic.queue.front_mut() {
                if head.kind == Kind::Data {
                    s.snd.departed(head.seq, head.ts, departure);
                }
                head.ts = head.ts.max(departure);
            }
        }
        nic.last = (start, bytes);
        nic.busy = true;
        let done = if nic.serialises() { start + nic.tx_time(bytes) } else { start };
        self.events.schedule(done, Event::NicDone { flow, sub });
    }

    /// The NIC sent a packet: it enters the first link; the next one starts; a
    /// sender the full local queue held back may send again.
    #[inline(never)]
    fn nic_done(&mut self, flow: FlowId, sub: u16) {
        let s = &mut self.flows[flow].subs[sub as usize];
        let Some(nic) = &mut s.nic else { return };
        let p = nic.pop().expect("NicDone without a packet");
        // A scheduler-paced subflow has room again each time its segment leaves.
        let wake = std::mem::take(&mut nic.blocked) || nic.sched_paced;
        let first = s.fwd[0];
        if self.pcap.is_some() {
            self.capture_sender(&p);
        }
        self.arrive(first, &p);
        self.nic_start(flow, sub);
        if wake {
            self.flows[flow].push(self.now, &mut self.out);
            self.flush(flow);
        }
    }

    /// Keeps at most one pending Rto event per subflow of the flow, no later than its
    /// deadline; one walk over the subflows (through `self` each lookup reloaded and
    /// rechecked the flow and the subflow).
    #[inline]
    fn arm_rtos(&mut self, flow: FlowId) {
        for (sub, s) in self.flows[flow].subs.iter_mut().enumerate() {
            let s = &mut s.snd;
            if let Some(d) = s.poll_at() {
                if s.rto_event_at.is_none_or(|at| at > d) {
                    s.rto_event_at = Some(d);
                    self.events.schedule(d, Event::Rto { flow, sub: sub as u16 });
                }
            }
        }
    }

    fn rto(&mut self, flow: FlowId, sub: u16) {
        let now = self.now;
        let f = &mut self.flows[flow];
        let s = &mut f.subs[sub as usize].snd;
        if s.rto_event_at != Some(now) {
            return; // superseded by an earlier event
        }
        s.rto_event_at = None;
        match s.rto_deadline {
            None => return,
            Some(d) if d > now => {}
            Some(_) => {
                let mark = SenderMark::of(&f.subs[sub as usize].snd);
                f.on_timeout(now, sub as usize, &mut self.out);
                if let Some(log) = &mut self.log {
                    log.sender(now, flow.0, sub, mark, &f.subs[sub as usize].snd);
                }
            }
        }
        self.flush(flow);
    }

    /// A packet enters a link (`Link::arrive`). A deferred `TxDone` of the link is
    /// applied first if past, and queued if the packet has to wait for it. The link
    /// is looked up once for all of it.
    #[inline]
    fn arrive(&mut self, link: LinkId, pkt: &Packet) {
        let started =
            Self::arrive_at(&mut self.links, &mut self.flows, &mut self.log, &mut self.events, self.now, link, pkt);
        if started && self.pcap.is_some() {
            self.capture_link(link);
        }
    }

    /// `arrive` on the fields it needs, for a caller that holds others (`flush`);
    /// whether a serialisation started (the caller captures it).
    #[inline]
    fn arrive_at(
        links: &mut Arena<LinkId, Link>, flows: &mut Arena<FlowId, Flow>, log: &mut Option<EventLog>,
        events: &mut EventQueue, now: Nanos, link: LinkId, pkt: &Packet,
    ) -> bool {
        let l = &mut links[link];
        l.settle(|t, seq| events.is_past(t, seq));
        let done = l.arrive(now, pkt, &mut |p| dropped(flows, log, now, link, &p));
        let started = Self::tx_started(l, events, link, done);
        if let Some(seq) = l.deferred.filter(|_| l.queue.len_packets() > 0) {
            l.deferred = None;
            events.schedule_reserved(l.tx_until, seq, Event::TxDone { link });
        }
        started
    }

    #[inline]
    fn start_tx(&mut self, link: LinkId) {
        let (now, flows, log, events) = (self.now, &mut self.flows, &mut self.log, &mut self.events);
        let l = &mut self.links[link];
        let done = l.start_tx(now, &mut |p| dropped(flows, log, now, link, &p));
        if Self::tx_started(l, events, link, done) && self.pcap.is_some() {
            self.capture_link(link);
        }
    }

    /// Link `l` (`link`) started serialising a packet that ends at `done`, if it did:
    /// its `TxDone` is queued or deferred. Whether it did (the caller captures it).
    #[inline(always)]
    fn tx_started(l: &mut Link, events: &mut EventQueue, link: LinkId, done: Option<Nanos>) -> bool {
        let Some(done) = done else { return false };
        if l.can_defer() {
            l.deferred = Some(events.reserve());
        } else {
            events.schedule_soon(done, Event::TxDone { link });
        }
        true
    }

    /// A packet leaving or reaching its flow's sender goes into its capture, if any.
    fn capture_sender(&mut self, pkt: &Packet) {
        if let Some(pc) = &mut self.pcap {
            capture_at_sender(pc, &self.flows, self.now, pkt);
        }
    }

    /// The packet that just started crossing `link` goes into its capture, if any.
    fn capture_link(&mut self, link: LinkId) {
        if let Some(pc) = &mut self.pcap {
            capture_on_link(pc, &self.links, &self.flows, self.now, link);
        }
    }

    #[inline]
    fn tx_done(&mut self, link: LinkId) {
        let (now, events) = (self.now, &self.events);
        match self.links[link].tx_done(now, || events.more_now()) {
            TxDone::Lost(pkt) => dropped(&mut self.flows, &mut self.log, now, link, &pkt),
            TxDone::Through(pkt) => {
                self.start_tx(link);
                return self.next_hop(pkt);
            }
            TxDone::Propagating(Some(t)) => self.events.schedule(t, Event::LinkPipe { link }),
            TxDone::Propagating(None) => {}
        }
        self.start_tx(link);
    }

    /// The oldest packet propagating over `link` reaches its far end: the next
    /// link of its route, or its endpoint.
    #[inline]
    fn link_pipe(&mut self, link: LinkId) {
        let (events, l) = (&self.events, &mut self.links[link]);
        l.settle(|t, seq| events.is_past(t, seq));
        let (pkt, next) = l.propagated();
        if let Some(t) = next {
            self.events.schedule(t, Event::LinkPipe { link });
        }
        self.next_hop(pkt);
    }

    /// A packet at the far end of a link goes on: to the next link of its route, or
    /// to its endpoint.
    #[inline]
    fn next_hop(&mut self, mut pkt: Packet) {
        pkt.hop += 1;
        let f = &self.flows[pkt.flow_id()].subs[pkt.sub as usize];
        let route: &[LinkId] = match (pkt.kind, &f.rev) {
            (Kind::Data, _) => &f.fwd,
            (Kind::Ack, ReverseRoute::Links(r)) => r,
            (Kind::Ack, ReverseRoute::Delay(_)) => unreachable!("ACK on a link of a delay-only reverse path"),
            (Kind::Handshake, _) => return self.handshake_hop(pkt),
        };
        match (route.get(pkt.hop as usize), pkt.kind) {
            (Some(&next), _) => self.arrive(next, &pkt),
            (None, Kind::Data) => self.data_at_receiver(&pkt),
            (None, Kind::Ack) => self.ack_at_sender(pkt),
            (None, Kind::Handshake) => unreachable!("handshake packets take handshake_hop"),
        }
    }

    /// A data segment at its receiver; with an event log, out of line.
    #[inline(always)]
    fn data_at_receiver(&mut self, pkt: &Packet) {
        if self.log.is_some() {
            return self.data_at_receiver_logged(pkt);
        }
        self.receive_data::<false>(pkt)
    }

    #[cold]
    #[inline(never)]
    fn data_at_receiver_logged(&mut self, pkt: &Packet) {
        self.receive_data::<true>(pkt)
    }

    /// `data_at_receiver`; `LOGGED`: the run keeps an event log (without one the
    /// log's tests compile away).
    #[inline(always)]
    fn receive_data<const LOGGED: bool>(&mut self, pkt: &Packet) {
        let now = self.now;
        self.delivered_packets += 1;
        if let Some(log) = self.log.as_mut().filter(|_| LOGGED) {
            log.packet(now, Logged::Receive, pkt, None);
        }
        // One lookup of the flow for all of it (through `self` each step looked it
        // up and checked it again).
        let (flow, sub) = (pkt.flow_id(), pkt.sub);
        let f = &mut self.flows[flow];
        let action = f.on_data(now, pkt);
        if let (Some(log), Some(decisions)) = (self.log.as_mut().filter(|_| LOGGED), &mut f.rx_decisions) {
            for (sub, seq, a) in decisions.drain(..) {
                log.receiver(now, pkt.flow, sub, seq, a);
            }
        }
        if f.app_timers {
            if let Some(t) = f.app.poll_at() {
                Self::wake_app_at(&mut self.app_at, &mut self.events, flow, t);
            }
        }
        let sent = match action {
            AckAction::Now => Self::send_built_ack(f, (flow, sub), now, &mut self.events),
            AckAction::Withhold => true,
            AckAction::Delay => {
                // One pending DelAck event per subflow, at the receiver's `poll_at()`.
                let r = &mut f.subs[sub as usize].rcv;
                if let Some(t) = r.poll_at().filter(|&t| r.delack_event_at != Some(t)) {
                    r.delack_event_at = Some(t);
                    self.events.schedule(t, Event::DelAck { flow, sub });
                }
                true
            }
        };
        let more = !f.rx_acks.is_empty();
        if !sent {
            let ack = self.flows[flow].subs[sub as usize].rcv.built;
            self.send_ack(ack);
        }
        if more {
            // ACKs a receiver controller sent to turn subflows back on.
            while let Some(ack) = self.flows[flow].rx_acks.pop() {
                self.send_ack(ack);
            }
        }
    }

    /// Sends the ACK that subflow `sub` of flow `f` just built (`Receiver::built`)
    /// over a delay-only reverse path: from the receiver into the ACK pipe, stamped
    /// on the way (`Flow::stamp`; a stamped copy in between was read back right after
    /// its narrow stores), or, due now with nothing before it and allowed
    /// (`Subflow::acks_in_place`), read where it is by the sender. False, with
    /// nothing sent, when it is the caller's to `send_ack`: a reverse path over
    /// links, or a receiver's ACK clock.
    #[inline]
    fn send_built_ack(f: &mut Flow, (flow, sub): (FlowId, u16), now: Nanos, events: &mut EventQueue) -> bool {
        let (dsn, rwnd) = (f.rx.nxt, f.rx.window());
        let s = &mut f.subs[sub as usize];
        let ReverseRoute::Delay(d) = s.rev else { return false };
        // Due now, and nothing before it: the sender reads it where it was built,
        // stamped there (`Flow::stamp`), as the event popped next (`AckBuilt`).
        if s.acks_in_place && s.ack_pipe.is_empty() && events.schedule_next(Event::AckBuilt { flow, sub }) {
            s.rcv.built.dsn = dsn;
            s.rcv.built.set_rwnd(rwnd);
            return true;
        }
        if s.ack_clock.is_some() {
            return false;
        }
        let t = now + d;
        if s.ack_pipe.is_empty() {
            events.schedule_maybe_now(t, Event::AckPipe { flow, sub });
        }
        s.ack_pipe.push_back(AckInFlight::stamped(t, &s.rcv.built, dsn, rwnd));
        true
    }

    /// Sends a subflow's ACK, stamped with the connection's DATA_ACK and window.
    #[inline]
    fn send_ack(&mut self, mut ack: Packet) {
        let f = &mut self.flows[ack.flow_id()];
        f.stamp(&mut ack);
        let s = &mut f.subs[ack.sub as usize];
        if let Some(c) = &mut s.ack_clock {
            c.sent(ack.ts + ack.owd, self.now);
        }
        match &s.rev {
            ReverseRoute::Delay(d) => {
                let t = self.now + d;
                if s.ack_pipe.is_empty() {
                    self.events.schedule_maybe_now(t, Event::AckPipe { flow: ack.flow_id(), sub: ack.sub });
                }
                s.ack_pipe.push_back(AckInFlight::new(t, &ack));
            }
            ReverseRoute::Links(r) => {
                let first = r[0];
                self.arrive(first, &ack);
            }
        }
    }

    fn ack_at_sender(&mut self, ack: Packet) {
        let now = self.now;
        if self.pcap.is_some() {
            self.capture_sender(&ack);
        }
        if self.log.is_some() {
            return self.ack_at_sender_logged(ack);
        }
        let f = &mut self.flows[ack.flow_id()];
        f.on_ack(now, ack.sub as usize, Some(&ack), &mut self.out);
        let awaiting_full = f.hs.awaiting_full;
        self.after_ack(ack.flow_id(), awaiting_full);
    }

    /// What every ACK at the sender ends with: the packets it let go out, and, the
    /// first time after the first subflow's handshake, the joins of a connection now
    /// fully established (handshake.rs). `awaiting_full`: the flow's flag as the ACK
    /// left it, read by the caller with the flow at hand (`flush` does not change it).
    #[inline]
    fn after_ack(&mut self, flow: FlowId, awaiting_full: bool) {
        self.flush(flow);
        if awaiting_full {
            self.fully_established(flow);
        }
    }

    /// `ack_at_sender` with the sender's changes written to the event log.
    #[cold]
    fn ack_at_sender_logged(&mut self, ack: Packet) {
        let (now, f) = (self.now, &mut self.flows[ack.flow_id()]);
        let mark = SenderMark::of(&f.subs[ack.sub as usize].snd);
        f.on_ack(now, ack.sub as usize, Some(&ack), &mut self.out);
        if let Some(log) = &mut self.log {
            log.sender(now, ack.flow, ack.sub, mark, &f.subs[ack.sub as usize].snd);
        }
        let awaiting_full = f.hs.awaiting_full;
        self.after_ack(ack.flow_id(), awaiting_full);
    }

    fn end_warmup(&mut self) {
        self.settle_links();
        for f in self.flows.iter_mut() {
            f.base = f.counters();
            // Segments held for reordering reached the receiver before the window:
            // their delivery after it is not counted, so a hole filled just after
            // the warm-up does not credit the window with data that crossed the
            // network before it (goodput would exceed the capacity).
            f.base.delivered_bytes += f.held * f.subs[0].snd.mss() as u64;
            f.app_delay.reset();
            f.reset_held_mean(self.warmup);
            f.rctl.reset_averages(self.warmup);
            for s in f.subs.iter_mut() {
                s.base = s.counters();
                s.rtt.reset();
            }
        }
        for (i, l) in self.links.iter_mut().enumerate() {
            l.queue_delay.reset();
            let q = l.queue.stats();
            self.link_base[i] = LinkBase {
                tx_bytes: l.stats.tx_bytes,
                tx_sent: l.tx_bytes_at(self.warmup),
                queue_drops: q.drops,
                loss_drops: l.stats.loss_drops,
                dequeued: q.dequeued,
                sojourn_sum: q.sojourn_sum,
            };
        }
    }

    /// One row of every time series. Out of line: once per sample interval, and
    /// inlined into the event loop it cost the per-packet events registers.
    #[inline(never)]
    fn sample(&mut self) {
        self.settle_links();
        series::sample_flows(&mut self.flow_series, self.now, &self.flows);
        series::sample_links(&mut self.link_series, self.now, &mut self.links, &mut self.link_last);
        if let Some(m) = &mut self.metric_series {
            m.sample(self.now, &self.flows);
        }
        let next = self.now + self.sample_interval;
        if next <= self.end {
            self.events.schedule(next, Event::Sample);
        }
    }
}

/// The three-way handshakes (handshake.rs): once per subflow, so out of line.
impl Sim {
    /// Sends the SYN of every subflow of `flow` that waits for its handshake and may open.
    #[cold]
    #[inline(never)]
    fn open_subflows(&mut self, flow: FlowId) {
        for sub in 0..self.flows[flow].subs.len() {
            let f = &self.flows[flow];
            if f.subs[sub].hs.phase == Phase::Waiting && f.hs.may_open(sub) {
                self.send_syn(flow, sub as u16);
            }
        }
    }

    /// A SYN of subflow `sub` leaves, and its timer is set.
    fn send_syn(&mut self, flow: FlowId, sub: u16) {
        let (now, f) = (self.now, &mut self.flows[flow]);
        let conn = f.hs;
        let at = f.subs[sub as usize].hs.syn_sent(now, &conn);
        self.out.push(Packet::handshake(flow.0, sub, Step::Syn, f.header, now));
        self.events.schedule(at, Event::Handshake { flow, sub });
        self.flush(flow);
    }

    /// A handshake packet at the far end of a link goes on, or reaches its end.
    #[cold]
    #[inline(never)]
    fn handshake_hop(&mut self, pkt: Packet) {
        let step = Step::of(pkt.seq);
        let s = &self.flows[pkt.flow_id()].subs[pkt.sub as usize];
        let next = match (step, &s.rev) {
            (Step::SynAck, ReverseRoute::Links(r)) => r.get(pkt.hop as usize).copied(),
            (Step::SynAck, ReverseRoute::Delay(_)) => unreachable!("SYN-ACK on a link of a delay-only reverse path"),
            _ => s.fwd.get(pkt.hop as usize).copied(),
        };
        match (next, step) {
            (Some(link), _) => self.arrive(link, &pkt),
            (None, Step::Syn) => self.syn_at_receiver(pkt),
            (None, Step::SynAck) => self.synack_at_sender(pkt.flow_id(), pkt.sub, pkt.ts),
            (None, Step::Ack) => {} // the receiver needs nothing of it
        }
    }

    /// A SYN reached the receiver: its SYN-ACK, echoing the SYN's timestamp, goes back at once.
    fn syn_at_receiver(&mut self, syn: Packet) {
        let (now, f) = (self.now, &mut self.flows[syn.flow_id()]);
        let synack = Packet::handshake(syn.flow, syn.sub, Step::SynAck, f.header, syn.ts);
        let s = &mut f.subs[syn.sub as usize];
        match &s.rev {
            ReverseRoute::Delay(d) => {
                let at = now + d;
                s.hs.synacks.push_back((at, syn.ts));
                self.events.schedule(at, Event::Handshake { flow: syn.flow_id(), sub: syn.sub });
            }
            ReverseRoute::Links(r) => {
                let first = r[0];
                self.arrive(first, &synack);
            }
        }
    }

    /// A subflow's SYN timer, or a SYN-ACK over its delay-only reverse route.
    fn handshake_event(&mut self, flow: FlowId, sub: u16) {
        let (now, hs) = (self.now, &mut self.flows[flow].subs[sub as usize].hs);
        if let Some(echo) = hs.due_synack(now) {
            self.synack_at_sender(flow, sub, echo);
        } else if hs.timer_fired(now) {
            self.send_syn(flow, sub);
        }
    }

    /// A SYN-ACK echoing the SYN sent at `echo` reached the sender: the subflow
    /// opens with the RTT sample it gives, sends the third ACK, then data.
    fn synack_at_sender(&mut self, flow: FlowId, sub: u16, echo: Nanos) {
        let now = self.now;
        if self.pcap.is_some() {
            let header = self.flows[flow].header;
            self.capture_sender(&Packet::handshake(flow.0, sub, Step::SynAck, header, echo));
        }
        let f = &mut self.flows[flow];
        let s = &mut f.subs[sub as usize];
        let Some(rtt) = s.hs.synack(now, echo) else { return };
        s.snd.rtt.sample(rtt, s.snd.una, s.snd.nxt);
        s.set_active(true);
        // The first subflow opened the connection; the next ACK makes it fully
        // established, and the others may join.
        f.hs.awaiting_full = sub == 0 && f.subs.len() > 1 && !f.hs.fully_established;
        if let Some(log) = &mut self.log {
            log.subflow(now, flow.0, sub, true);
        }
        self.out.push(Packet::handshake(flow.0, sub, Step::Ack, f.header, now));
        f.push(now, &mut self.out);
        self.flush(flow);
    }

    /// An ACK reached the sender after the first subflow's handshake: the
    /// connection is fully established, and the waiting subflows send their MP_JOIN SYNs.
    #[cold]
    #[inline(never)]
    fn fully_established(&mut self, flow: FlowId) {
        let hs = &mut self.flows[flow].hs;
        hs.awaiting_full = false;
        hs.fully_established = true;
        self.open_subflows(flow);
    }
}

/// `pkt`, leaving or reaching its flow's sender, into the capture.
#[cold]
#[inline(never)]
fn capture_at_sender(pc: &mut Pcap, flows: &Arena<FlowId, Flow>, now: Nanos, pkt: &Packet) {
    let pushed = pkt.kind == Kind::Data && flows[pkt.flow_id()].data.pushed(pkt.dsn);
    pc.at_sender(now, pkt.flow_id(), pkt, pushed);
}

/// The packet that just started crossing `link` into the capture.
#[cold]
#[inline(never)]
fn capture_on_link(pc: &mut Pcap, links: &Arena<LinkId, Link>, flows: &Arena<FlowId, Flow>, now: Nanos, link: LinkId) {
    if let Some(pkt) = links[link].in_tx() {
        let pushed = pkt.kind == Kind::Data && flows[pkt.flow_id()].data.pushed(pkt.dsn);
        pc.on_link(now, link, pkt, pushed);
    }
}

/// A packet of `flows` dropped on `link` (queue or wire): counted against its
/// subflow and logged.
#[inline]
fn dropped(flows: &mut Arena<FlowId, Flow>, log: &mut Option<EventLog>, now: Nanos, link: LinkId, p: &Packet) {
    flows[p.flow_id()].subs[p.sub as usize].drops += 1;
    if let Some(log) = log {
        log.packet(now, Logged::Drop, p, Some(link));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A dumbbell whose flows have access links of their own (idle queues, a
    /// packet often still propagating: the deferred `TxDone`'s case), with samples
    /// and a warm-up that read the links mid-run.
    fn dumbbell() -> Config {
        let link = |name: &str, bps: f64, ms: u64| {
            json!({"name": name, "capacity": {"kind": "constant", "bps": bps}, "delay_ns": ms * 1_000_000,
                   "queue": {"kind": "droptail", "packets": 40}})
        };
        let mut links = vec![link("b", 20e6, 10), link("b_back", 20e6, 10)];
        let mut flows = Vec::new();
        for i in 0..4u64 {
            let n = links.len() as u64;
            for dir in ["in", "out", "out_back", "in_back"] {
                links.push(link(&format!("{dir}_{i}"), 1e9, 1 + i % 2));
            }
            flows.push(json!({"name": format!("f{i}"), "cc": "reno", "app": {"kind": "bulk"},
                              "path": [n, 0, n + 1], "reverse_path": [n + 2, 1, n + 3], "start_ns": i * 3_000_000}));
        }
        serde_json::from_value(json!({"duration_ns": 4_000_000_000u64, "seed": 3, "warmup_ns": 1_000_000_000u64,
            "sample_interval_ns": 10_000_000u64, "links": links, "flows": flows}))
        .unwrap()
    }

    /// The summary (without the simulator's own figures) and every series.
    fn results(defer: bool) -> (String, String, u64) {
        let mut sim = Sim::new(&dumbbell()).unwrap();
        if !defer {
            sim.links.iter_mut().for_each(|l| l.may_defer = false);
        }
        sim.run();
        let mut summary = crate::report::summary(&mut sim, 0.0);
        let events = summary["sim"]["events"].take().as_u64().unwrap();
        let series = format!("{:?} {:?}", sim.flow_series, sim.link_series);
        (summary.to_string(), series, events)
    }

    /// A two-path LIA connection, one path without delay (its ACKs are due at once);
    /// `rcv_buf`: its receive buffer's bytes.
    fn zero_delay_lia(rcv_buf: Option<u64>) -> Config {
        let link = |name: &str, bps: f64, ms: u64, packets: u64| {
            json!({"name": name, "capacity": {"kind": "constant", "bps": bps}, "delay_ns": ms * 1_000_000,
                   "queue": {"kind": "droptail", "packets": packets}})
        };
        serde_json::from_value(json!({"duration_ns": 2_000_000_000u64, "seed": 5, "sample_interval_ns": 50_000_000u64,
            "links": [link("fast", 1e9, 0, 200), link("slow", 2e6, 10, 50)],
            "flows": [{"name": "mp", "cc": "lia", "app": {"kind": "bulk"}, "tcp": {"rcv_buf_bytes": rcv_buf},
                       "subflows": [{"path": [0]}, {"path": [1]}]}]}))
        .unwrap()
    }

    /// ACKs read where their receiver built them (`Event::AckBuilt`) give the results
    /// of ACKs copied through the reverse path's pipe, bit for bit, with as many events;
    /// with a receive buffer, whose window and DATA_ACK limit the sender, too (both
    /// stamped on every way out: a reused plain ACK keeps the last ones,
    /// `Packet::reuse_ack`).
    #[test]
    fn acks_read_in_place_change_no_result() {
        for rcv_buf in [None, Some(60_000)] {
            let run = |in_place: bool| {
                let mut sim = Sim::new(&zero_delay_lia(rcv_buf)).unwrap();
                sim.set_acks_in_place(in_place);
                sim.run();
                let summary = crate::report::summary(&mut sim, 0.0);
                (summary.to_string(), format!("{:?}", sim.flow_series), sim.processed)
            };
            let (with, without) = (run(true), run(false));
            assert!(with.0.contains("\"packets\""), "{}", with.0);
            assert_eq!(with, without, "{rcv_buf:?}");
        }
    }

    /// A send round after an ACK that evaluates only the acked subflow's window
    /// (`Flow::own_windows`), and picks it alone when no subflow had space after
    /// the round before (`Flow::none_had_space`), gives the results of rounds that
    /// evaluate every subflow's, bit for bit: LIA and uncoupled CUBIC in Linux's
    /// profile (PRR, F-RTO, RACK) over three subflows, two of them lossy.
    #[test]
    fn send_rounds_after_an_ack_change_no_result() {
        let link = |name: &str, bps: f64, ms: u64, packets: u64, p: f64| {
            json!({"name": name, "capacity": {"kind": "constant", "bps": bps}, "delay_ns": ms * 1_000_000,
                   "queue": {"kind": "droptail", "packets": packets}, "loss": {"kind": "bernoulli", "p": p}})
        };
        // A receive buffer of 100 segments: rounds that end for want of data in the
        // connection's window, not of space (`Flow::none_had_space`).
        let cases = [("lia", "rfc", None), ("lia", "linux", None), ("cubic", "linux", None), ("reno", "ns3", None)];
        for (cc, profile, rcv_buf) in cases.into_iter().chain([("lia", "rfc", Some(150_000u64))]) {
            let cfg: Config = serde_json::from_value(json!({"duration_ns": 4_000_000_000u64, "seed": 11,
                "sample_interval_ns": 50_000_000u64,
                "links": [link("a", 50e6, 5, 60, 0.01), link("b", 10e6, 20, 30, 0.03), link("c", 2e6, 40, 20, 0.0)],
                "flows": [{"name": "mp", "cc": cc, "app": {"kind": "bulk"},
                           "tcp": {"profile": profile, "rcv_buf_bytes": rcv_buf},
                           "subflows": [{"path": [0]}, {"path": [1]}, {"path": [2]}]}]}))
            .unwrap();
            let run = |own: bool| {
                let mut sim = Sim::new(&cfg).unwrap();
                assert!(sim.flows.iter().all(|f| f.own_windows), "{cc} {profile}");
                sim.flows.iter_mut().for_each(|f| f.own_windows = own);
                sim.run();
                let summary = crate::report::summary(&mut sim, 0.0);
                (summary.to_string(), format!("{:?} {:?}", sim.flow_series, sim.link_series), sim.processed)
            };
            let (with, without) = (run(true), run(false));
            assert!(with.0.contains("\"timeouts\""), "{}", with.0);
            assert_eq!(with, without, "{cc} {profile}");
        }
    }

    /// Links that keep their `TxDone` out of the event queue give the results of
    /// links that queue every one, bit for bit, with fewer events.
    #[test]
    fn deferred_tx_dones_change_no_result() {
        let (with, without) = (results(true), results(false));
        assert_eq!(with.0, without.0);
        assert_eq!(with.1, without.1);
        assert!(with.2 < without.2 * 9 / 10, "{} events against {}", with.2, without.2);
    }
}
