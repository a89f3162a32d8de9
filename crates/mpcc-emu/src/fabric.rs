//! The emulated network: the scenario's links (queue, capacity, loss, delay, built
//! by the simulator's own `link_models`) and each subflow's routes over them. Pure
//! logic over times in nanoseconds, with no I/O: the event loop in main.rs feeds it
//! packets read from TUN devices and writes out what it delivers, and the tests
//! drive it with synthetic times.
//!
//! Times are ideal: a packet read at `t` is processed at `t`, and every later step
//! (end of serialisation, arrival after the propagation delay) at the time the
//! model gives, whatever the loop's wake-up latency. So a late wake-up delays a
//! packet's delivery but never shifts the model's clock.

use crate::packet::{tcp_view, Pool, Slot};
use crate::plan::{Plan, RouteSpec};
use crate::rtt::RttMeter;
use mpcc_core::Nanos;
use mpcc_net::{Capacity, LossModel, Queue};
use mpcc_sim::build::{link_models, LinkModels};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Which way a packet goes: data from a client to the server, or ACKs back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Forward,
    Reverse,
}

/// A packet inside the fabric: its buffer, its subflow, direction and hop.
#[derive(Clone, Copy, Debug)]
pub struct InFlight {
    pub slot: Slot,
    pub sub: u32,
    pub dir: Dir,
    pub hop: u16,
}

pub struct Link {
    pub name: String,
    queue: Queue<InFlight>,
    capacity: Capacity,
    loss: LossModel,
    delay: Nanos,
    in_tx: Option<InFlight>,
    /// Packets propagating, with their arrival times (FIFO: constant delay).
    pipe: VecDeque<(Nanos, InFlight)>,
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub loss_drops: u64,
}

/// A route: links in order, then a fixed delay (a reverse path given only as a
/// delay has no links).
#[derive(Clone, Debug)]
pub struct Route {
    pub links: Vec<usize>,
    pub delay: Nanos,
}

/// Counters of one subflow, in each direction.
#[derive(Clone, Copy, Debug, Default)]
pub struct SubCounters {
    pub packets: [u64; 2],
    pub bytes: [u64; 2],
    pub drops: [u64; 2],
    pub delivered: [u64; 2],
    /// TCP payload bytes delivered (retransmissions included).
    pub payload: [u64; 2],
}

pub struct Subflow {
    pub fwd: Route,
    pub rev: Route,
    /// The TUN ports its packets leave through: to the server, to its client.
    pub server_port: usize,
    pub client_port: usize,
    pub counters: SubCounters,
    pub rtt: RttMeter,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    TxDone(u32),
    PipeOut(u32),
    /// The head of a subflow's delay-only stretch (after its last link) arrives.
    DelayOut(u32, u8),
}

/// What the fabric hands back: a packet to write to a port at an ideal time.
#[derive(Clone, Copy, Debug)]
pub struct Delivery {
    pub port: usize,
    pub slot: Slot,
    pub at: Nanos,
}

pub struct Fabric {
    pub links: Vec<Link>,
    pub subs: Vec<Subflow>,
    pub pool: Pool,
    events: BinaryHeap<Reverse<(Nanos, u64, Ev)>>,
    seq: u64,
    /// Per subflow and direction: packets in the fixed-delay stretch of their route.
    delay_lines: Vec<[VecDeque<(Nanos, InFlight)>; 2]>,
    pub out: Vec<Delivery>,
}

fn route(spec: &RouteSpec) -> Route {
    Route { links: spec.links.clone(), delay: spec.delay_ns }
}

impl Fabric {
    pub fn new(plan: &Plan) -> Result<Fabric, String> {
        let cfg = &plan.config;
        let mut links = Vec::with_capacity(cfg.links.len());
        for (i, lc) in cfg.links.iter().enumerate() {
            let LinkModels { capacity, queue, loss } = link_models(cfg, i)?;
            links.push(Link {
                name: lc.name.clone(),
                queue,
                capacity,
                loss,
                delay: lc.delay_ns,
                in_tx: None,
                pipe: VecDeque::new(),
                tx_packets: 0,
                tx_bytes: 0,
                loss_drops: 0,
            });
        }
        let mut subs = Vec::with_capacity(plan.subflows.len());
        for (i, s) in plan.subflows.iter().enumerate() {
            for &l in s.fwd.links.iter().chain(&s.rev.links) {
                if l >= links.len() {
                    return Err(format!("subflows[{i}]: link index {l} out of range"));
                }
            }
            for p in [s.server_port, s.client_port] {
                if p >= plan.ports.len() {
                    return Err(format!("subflows[{i}]: port {p} out of range"));
                }
            }
            subs.push(Subflow {
                fwd: route(&s.fwd),
                rev: route(&s.rev),
                server_port: s.server_port,
                client_port: s.client_port,
                counters: SubCounters::default(),
                rtt: RttMeter::new(),
            });
        }
        let delay_lines = (0..subs.len()).map(|_| [VecDeque::new(), VecDeque::new()]).collect();
        Ok(Fabric {
            links,
            subs,
            pool: Pool::new(plan.max_packets),
            events: BinaryHeap::new(),
            seq: 0,
            delay_lines,
            out: Vec::new(),
        })
    }

    fn schedule(&mut self, at: Nanos, ev: Ev) {
        self.seq += 1;
        self.events.push(Reverse((at, self.seq, ev)));
    }

    /// The time of the next event, if any.
    pub fn next_event(&self) -> Option<Nanos> {
        self.events.peek().map(|Reverse((t, _, _))| *t)
    }

    /// A packet of subflow `sub` read at `now` enters its route.
    pub fn inject(&mut self, now: Nanos, slot: Slot, sub: u32, dir: Dir) {
        let s = &mut self.subs[sub as usize];
        let d = dir as usize;
        let len = self.pool.len(slot) as u64;
        s.counters.packets[d] += 1;
        s.counters.bytes[d] += len;
        if dir == Dir::Forward {
            s.rtt.on_data(self.pool.bytes(slot), now);
        }
        self.advance(now, InFlight { slot, sub, dir, hop: 0 });
    }

    fn route_of(&self, p: &InFlight) -> &Route {
        let s = &self.subs[p.sub as usize];
        match p.dir {
            Dir::Forward => &s.fwd,
            Dir::Reverse => &s.rev,
        }
    }

    /// A packet is at hop `p.hop` of its route at time `now`: the next link, the
    /// fixed-delay stretch, or its destination port.
    fn advance(&mut self, now: Nanos, p: InFlight) {
        let r = self.route_of(&p);
        if let Some(&l) = r.links.get(p.hop as usize) {
            self.arrive(now, l, p);
        } else if r.delay > 0 && p.hop as usize == r.links.len() {
            let at = now + r.delay;
            let line = &mut self.delay_lines[p.sub as usize][p.dir as usize];
            line.push_back((at, InFlight { hop: p.hop + 1, ..p }));
            if line.len() == 1 {
                self.schedule(at, Ev::DelayOut(p.sub, p.dir as u8));
            }
        } else {
            self.deliver(now, p);
        }
    }

    fn deliver(&mut self, now: Nanos, p: InFlight) {
        let s = &mut self.subs[p.sub as usize];
        s.counters.delivered[p.dir as usize] += 1;
        if let Some(v) = tcp_view(self.pool.bytes(p.slot)) {
            s.counters.payload[p.dir as usize] += v.payload as u64;
        }
        let port = match p.dir {
            Dir::Forward => s.server_port,
            Dir::Reverse => {
                s.rtt.on_ack(self.pool.bytes(p.slot), now);
                s.client_port
            }
        };
        self.out.push(Delivery { port, slot: p.slot, at: now });
    }

    fn drop_packet(&mut self, p: InFlight) {
        self.subs[p.sub as usize].counters.drops[p.dir as usize] += 1;
        self.pool.free(p.slot);
    }

    fn arrive(&mut self, now: Nanos, l: usize, p: InFlight) {
        let bytes = self.pool.len(p.slot);
        if !self.links[l].queue.enqueue(p, bytes, now) {
            self.drop_packet(p);
            return;
        }
        if self.links[l].in_tx.is_none() {
            self.start_tx(now, l);
        }
    }

    fn start_tx(&mut self, now: Nanos, l: usize) {
        let mut dropped = Vec::new();
        let link = &mut self.links[l];
        let next = link.queue.dequeue(now, &mut |p: InFlight| dropped.push(p));
        for p in dropped {
            self.drop_packet(p);
        }
        if let Some((p, bytes)) = next {
            let link = &mut self.links[l];
            link.in_tx = Some(p);
            let done = link.capacity.tx_end(now, bytes);
            self.schedule(done, Ev::TxDone(l as u32));
        }
    }

    fn tx_done(&mut self, now: Nanos, l: usize) {
        let link = &mut self.links[l];
        let p = link.in_tx.take().expect("TxDone without a packet");
        link.tx_packets += 1;
        link.tx_bytes += self.pool.len(p.slot) as u64;
        if link.loss.lose() {
            link.loss_drops += 1;
            self.drop_packet(p);
        } else {
            let at = now + link.delay;
            link.pipe.push_back((at, p));
            if link.pipe.len() == 1 {
                self.schedule(at, Ev::PipeOut(l as u32));
            }
        }
        self.start_tx(now, l);
    }

    fn pipe_out(&mut self, now: Nanos, l: usize) {
        let link = &mut self.links[l];
        let (_, p) = link.pipe.pop_front().expect("PipeOut without a packet");
        if let Some(&(t, _)) = link.pipe.front() {
            self.schedule(t, Ev::PipeOut(l as u32));
        }
        self.advance(now, InFlight { hop: p.hop + 1, ..p });
    }

    fn delay_out(&mut self, now: Nanos, sub: u32, dir: u8) {
        let line = &mut self.delay_lines[sub as usize][dir as usize];
        let (_, p) = line.pop_front().expect("DelayOut without a packet");
        if let Some(&(t, _)) = line.front() {
            self.schedule(t, Ev::DelayOut(sub, dir));
        }
        self.deliver(now, p);
    }

    /// Runs every event due at or before `until`; deliveries collect in `out`.
    pub fn run_until(&mut self, until: Nanos) {
        while let Some(&Reverse((t, _, ev))) = self.events.peek() {
            if t > until {
                break;
            }
            self.events.pop();
            match ev {
                Ev::TxDone(l) => self.tx_done(t, l as usize),
                Ev::PipeOut(l) => self.pipe_out(t, l as usize),
                Ev::DelayOut(s, d) => self.delay_out(t, s, d),
            }
        }
    }

    /// The state of link `l` at `t` for the time series.
    pub fn link_state(&mut self, l: usize, t: Nanos) -> LinkState {
        let link = &mut self.links[l];
        let st = link.queue.stats();
        LinkState {
            capacity_bps: link.capacity.rate_at(t),
            queue_packets: link.queue.len_packets() as u64,
            queue_bytes: link.queue.len_bytes(),
            tx_bytes: link.tx_bytes,
            queue_drops: st.drops,
            loss_drops: link.loss_drops,
            dequeued: st.dequeued,
            sojourn_sum_ns: st.sojourn_sum as f64,
        }
    }

    /// Bits link `l` could carry in [t0, t1) (utilization).
    pub fn capacity_bits(&mut self, l: usize, t0: Nanos, t1: Nanos) -> f64 {
        self.links[l].capacity.bits_between(t0, t1)
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub struct LinkState {
    pub capacity_bps: f64,
    pub queue_packets: u64,
    pub queue_bytes: u64,
    pub tx_bytes: u64,
    pub queue_drops: u64,
    pub loss_drops: u64,
    pub dequeued: u64,
    pub sojourn_sum_ns: f64,
}
