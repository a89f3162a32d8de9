//! The simulator: builds the world from a [`Config`], runs the event loop, and
//! reports.

use crate::config::{AppConfig, Config};
use crate::engine::{Event, EventQueue};
use crate::flow::{Flow, ReverseRoute};
use crate::link::Link;
use crate::metrics::Columns;
use crate::packet::{Kind, Packet};
use crate::tcp::receiver::AckAction;
use mpcc_algo::CongestionControl;
use mpcc_core::Nanos;

pub struct Sim {
    pub now: Nanos,
    pub end: Nanos,
    pub warmup: Nanos,
    pub sample_interval: Nanos,
    pub seed: u64,
    pub events: EventQueue,
    pub links: Vec<Link>,
    pub flows: Vec<Flow>,
    /// Events processed.
    pub processed: u64,
    /// Data packets that reached their receiver.
    pub delivered_packets: u64,
    /// Reused buffer for the packets a sender emits (no allocation per ACK).
    out: Vec<Packet>,
    pub flow_series: Columns,
    pub link_series: Columns,
    /// Per link at the warm-up: (tx bytes, queue drops, loss drops, dequeued, sojourn sum).
    pub link_base: Vec<(u64, u64, u64, u64, u128)>,
    /// Per link at the previous sample: (dequeued, sojourn sum).
    link_last: Vec<(u64, u128)>,
}

pub const FLOW_COLUMNS: &[&str] = &[
    "t_s", "flow", "cwnd", "ssthresh", "srtt_s", "rtt_s", "in_flight_bytes", "sent_bytes", "delivered_bytes",
    "received_bytes", "retransmissions", "losses", "timeouts", "ooo_segments",
];
pub const LINK_COLUMNS: &[&str] =
    &["t_s", "link", "queue_packets", "queue_bytes", "tx_bytes", "drops", "sojourn_mean_s", "capacity_bps"];

impl Sim {
    pub fn new(cfg: &Config) -> Result<Sim, String> {
        let links = crate::build::links(cfg)?;
        let flows = crate::build::flows(cfg, &links)?;
        let n_links = links.len();
        let mut sim = Sim {
            now: 0,
            end: cfg.duration_ns,
            warmup: cfg.warmup_ns,
            sample_interval: cfg.sample_interval_ns,
            seed: cfg.seed,
            events: EventQueue::new(),
            links,
            flows,
            processed: 0,
            delivered_packets: 0,
            out: Vec::with_capacity(64),
            flow_series: Columns::new(FLOW_COLUMNS),
            link_series: Columns::new(LINK_COLUMNS),
            link_base: vec![(0, 0, 0, 0, 0); n_links],
            link_last: vec![(0, 0); n_links],
        };
        for (i, f) in sim.flows.iter().enumerate() {
            sim.events.schedule(f.start, Event::FlowStart { flow: i as u32 });
            if let Some(stop) = f.stop {
                sim.events.schedule(stop, Event::FlowStop { flow: i as u32 });
            }
        }
        if sim.warmup > 0 {
            sim.events.schedule(sim.warmup, Event::WarmupEnd);
        }
        if sim.sample_interval > 0 {
            sim.events.schedule(0, Event::Sample);
        }
        Ok(sim)
    }

    /// Runs until the configured duration.
    pub fn run(&mut self) {
        while let Some((t, ev)) = self.events.pop() {
            if t > self.end {
                break;
            }
            self.now = t;
            self.processed += 1;
            self.handle(ev);
        }
        self.now = self.end;
    }

    #[inline]
    fn handle(&mut self, ev: Event) {
        match ev {
            Event::TxDone { link } => self.tx_done(link),
            Event::LinkPipe { link } => self.link_pipe(link),
            Event::AckPipe { flow } => {
                let f = &mut self.flows[flow as usize];
                let (_, ack) = f.ack_pipe.pop_front().expect("AckPipe event without an ACK");
                if let Some(&(t, _)) = f.ack_pipe.front() {
                    self.events.schedule(t, Event::AckPipe { flow });
                }
                self.ack_at_sender(ack);
            }
            Event::Rto { flow } => self.rto(flow),
            Event::DelAck { flow } => {
                if let Some(ack) = self.flows[flow as usize].rcv.on_delack_timer() {
                    self.send_ack(ack);
                }
            }
            Event::FlowStart { flow } => self.start_flow(flow),
            Event::FlowStop { flow } => self.flows[flow as usize].snd.stop_app(),
            Event::Sample => self.sample(),
            Event::WarmupEnd => self.end_warmup(),
        }
    }

    fn start_flow(&mut self, flow: u32) {
        let f = &mut self.flows[flow as usize];
        f.snd.set_app_bytes(f.app_bytes);
        f.snd.send(self.now, &f.cc, &mut self.out);
        self.flush(flow);
    }

    /// Puts the packets a sender emitted onto the forward route and re-arms its timer.
    #[inline]
    fn flush(&mut self, flow: u32) {
        let first = self.flows[flow as usize].fwd[0];
        let mut out = std::mem::take(&mut self.out);
        for p in out.drain(..) {
            self.arrive(first, p);
        }
        self.out = out;
        self.arm_rto(flow);
    }

    /// Keeps at most one pending Rto event per flow, no later than the deadline.
    #[inline]
    fn arm_rto(&mut self, flow: u32) {
        let s = &mut self.flows[flow as usize].snd;
        if let Some(d) = s.rto_deadline {
            if s.rto_event_at.is_none_or(|at| at > d) {
                s.rto_event_at = Some(d);
                self.events.schedule(d, Event::Rto { flow });
            }
        }
    }

    fn rto(&mut self, flow: u32) {
        let now = self.now;
        let f = &mut self.flows[flow as usize];
        if f.snd.rto_event_at != Some(now) {
            return; // superseded by an earlier event
        }
        f.snd.rto_event_at = None;
        match f.snd.rto_deadline {
            None => return,
            Some(d) if d > now => {}
            Some(_) => f.snd.on_timeout(now, &mut f.cc, &mut self.out),
        }
        self.flush(flow);
    }

    /// A packet enters a link: queue it, start serialising if the link is idle.
    #[inline]
    fn arrive(&mut self, link: u32, pkt: Packet) {
        let l = &mut self.links[link as usize];
        if !l.queue.enqueue(pkt, pkt.bytes, self.now) {
            self.flows[pkt.flow as usize].drops += 1;
            return;
        }
        if l.in_tx.is_none() {
            self.start_tx(link);
        }
    }

    #[inline]
    fn start_tx(&mut self, link: u32) {
        let now = self.now;
        let l = &mut self.links[link as usize];
        let flows = &mut self.flows;
        let next = l.queue.dequeue(now, &mut |p: Packet| flows[p.flow as usize].drops += 1);
        if let Some((pkt, bytes)) = next {
            l.in_tx = Some(pkt);
            let done = l.capacity.tx_end(now, bytes);
            self.events.schedule(done, Event::TxDone { link });
        }
    }

    #[inline]
    fn tx_done(&mut self, link: u32) {
        let now = self.now;
        let l = &mut self.links[link as usize];
        let pkt = l.in_tx.take().expect("TxDone without a packet in transmission");
        l.stats.tx_packets += 1;
        l.stats.tx_bytes += pkt.bytes as u64;
        if l.loss.lose() {
            l.stats.loss_drops += 1;
            self.flows[pkt.flow as usize].drops += 1;
        } else {
            let arrival = now + l.delay;
            if l.pipe.is_empty() {
                self.events.schedule(arrival, Event::LinkPipe { link });
            }
            l.pipe.push_back((arrival, pkt));
        }
        self.start_tx(link);
    }

    /// The oldest packet propagating over `link` reaches its far end: the next
    /// link of its route, or its endpoint.
    #[inline]
    fn link_pipe(&mut self, link: u32) {
        let l = &mut self.links[link as usize];
        let (_, mut pkt) = l.pipe.pop_front().expect("LinkPipe event without a packet");
        if let Some(&(t, _)) = l.pipe.front() {
            self.events.schedule(t, Event::LinkPipe { link });
        }
        pkt.hop += 1;
        let f = &self.flows[pkt.flow as usize];
        let route: &[u32] = match (pkt.kind, &f.rev) {
            (Kind::Data, _) => &f.fwd,
            (Kind::Ack, ReverseRoute::Links(r)) => r,
            (Kind::Ack, ReverseRoute::Delay(_)) => unreachable!("ACK on a link of a delay-only reverse path"),
        };
        match (route.get(pkt.hop as usize), pkt.kind) {
            (Some(&next), _) => self.arrive(next, pkt),
            (None, Kind::Data) => self.data_at_receiver(pkt),
            (None, Kind::Ack) => self.ack_at_sender(pkt),
        }
    }

    fn data_at_receiver(&mut self, pkt: Packet) {
        let now = self.now;
        self.delivered_packets += 1;
        let flow = pkt.flow;
        let f = &mut self.flows[flow as usize];
        let payload = f.snd.seg_bytes(pkt.seq);
        let (action, delivered_segs) = f.rcv.on_data(now, &pkt, payload);
        if delivered_segs > 0 {
            // In-order delivery: whole segments from rcv_nxt - delivered_segs.
            let hi = f.rcv.rcv_nxt;
            let bytes: u64 = if f.app_bytes == u64::MAX {
                delivered_segs * f.snd.mss() as u64
            } else {
                (hi - delivered_segs..hi).map(|s| f.snd.seg_bytes(s) as u64).sum()
            };
            f.delivered_bytes += bytes;
            if f.completed_at.is_none() && f.app_bytes != u64::MAX && f.delivered_bytes >= f.app_bytes {
                f.completed_at = Some(now);
            }
        }
        match action {
            AckAction::Now(ack) => self.send_ack(ack),
            AckAction::Delay => {
                if !f.rcv.delack_armed {
                    f.rcv.delack_armed = true;
                    let t = now + f.delack_timeout;
                    self.events.schedule(t, Event::DelAck { flow });
                }
            }
        }
    }

    #[inline]
    fn send_ack(&mut self, ack: Packet) {
        match &self.flows[ack.flow as usize].rev {
            ReverseRoute::Delay(d) => {
                let t = self.now + d;
                let f = &mut self.flows[ack.flow as usize];
                if f.ack_pipe.is_empty() {
                    self.events.schedule(t, Event::AckPipe { flow: ack.flow });
                }
                f.ack_pipe.push_back((t, ack));
            }
            ReverseRoute::Links(r) => {
                let first = r[0];
                self.arrive(first, ack);
            }
        }
    }

    fn ack_at_sender(&mut self, ack: Packet) {
        let now = self.now;
        let flow = ack.flow;
        let f = &mut self.flows[flow as usize];
        f.rtt.add(now - ack.ts);
        f.snd.on_ack(now, &ack, &mut f.cc, &mut self.out);
        self.flush(flow);
    }

    fn end_warmup(&mut self) {
        for f in self.flows.iter_mut() {
            f.base = f.counters();
            f.rtt.reset();
        }
        for (i, l) in self.links.iter().enumerate() {
            let q = l.queue.stats();
            self.link_base[i] = (l.stats.tx_bytes, q.drops, l.stats.loss_drops, q.dequeued, q.sojourn_sum);
        }
    }

    fn sample(&mut self) {
        let t = self.now as f64 * 1e-9;
        for (i, f) in self.flows.iter().enumerate() {
            if self.now < f.start {
                continue; // nothing to plot before the flow exists
            }
            let mss = f.snd.mss() as f64;
            self.flow_series.push(&[
                t,
                i as f64,
                f.cc.cwnd(0),
                f.cc.ssthresh(0),
                f.snd.rtt.srtt as f64 * 1e-9,
                f.snd.rtt.latest as f64 * 1e-9,
                f.snd.pipe as f64 * mss,
                f.snd.stats.sent_bytes as f64,
                f.delivered_bytes as f64,
                f.rcv.received_bytes as f64,
                f.snd.stats.retransmissions as f64,
                f.snd.stats.losses as f64,
                f.snd.stats.timeouts as f64,
                f.rcv.ooo_segs as f64,
            ]);
        }
        let now = self.now;
        for (i, l) in self.links.iter_mut().enumerate() {
            let q = *l.queue.stats();
            let (d0, s0) = self.link_last[i];
            let sojourn = if q.dequeued > d0 { (q.sojourn_sum - s0) as f64 * 1e-9 / (q.dequeued - d0) as f64 } else { 0.0 };
            self.link_last[i] = (q.dequeued, q.sojourn_sum);
            self.link_series.push(&[
                t,
                i as f64,
                l.queue.len_packets() as f64,
                l.queue.len_bytes() as f64,
                l.stats.tx_bytes as f64,
                (q.drops + l.stats.loss_drops) as f64,
                sojourn,
                l.capacity.rate_at(now),
            ]);
        }
        let next = self.now + self.sample_interval;
        if next <= self.end {
            self.events.schedule(next, Event::Sample);
        }
    }
}

/// Whether the app of a flow config is finite.
pub fn app_bytes(app: &AppConfig) -> u64 {
    match app {
        AppConfig::Bulk => u64::MAX,
        AppConfig::File { bytes } => *bytes,
    }
}
