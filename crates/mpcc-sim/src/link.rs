//! A link at run time: a queue discipline feeding a serialiser whose rate may
//! vary over time, random loss on the wire, then propagation delay. The link's
//! behaviour (a packet arrives, serialisation starts and ends, propagation) is
//! here; the simulator schedules the events it asks for, routes what comes out
//! and counts drops against their flows.

use crate::metrics::Quantiles;
use crate::packet::Packet;
use mpcc_core::Nanos;
use mpcc_net::{Capacity, LossModel, Queue};
use std::collections::VecDeque;

/// Counters of one link. (`tx_packets` and `tx_bytes`, which every packet moves
/// together, are not neighbours: side by side LLVM added them as one vector, five
/// instructions for two.)
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct LinkStats {
    pub tx_packets: u64,
    /// Packets lost on the wire (loss model).
    pub loss_drops: u64,
    pub tx_bytes: u64,
}

/// The fields every packet touches come first, in this order (`repr(C)`), so that
/// a hop reads two or three cache lines of its link rather than one in each part
/// of a 750-byte struct.
#[repr(C)]
pub struct Link {
    /// Whether a packet is being serialised, and when its serialisation started and ends.
    pub busy: bool,
    /// Whether this link may leave the `TxDone` of a packet out of the event queue
    /// (`deferred`): a DropTail queue, no loss model, a delay, in a run whose event
    /// queue allows it (`Sim::new`).
    pub may_defer: bool,
    /// Whether `loss` is a loss model (not `LossModel::None`), fixed when built: a
    /// lossless link's `tx_done` tests this instead of dispatching on the model.
    pub lossy: bool,
    /// The sequence number reserved for the `TxDone` of the packet in transmission
    /// when that event is not queued (`can_defer`); `settle` applies it once past.
    pub deferred: Option<u64>,
    pub tx_from: Nanos,
    pub tx_until: Nanos,
    pub delay: Nanos,
    /// Packets propagating over the link, oldest first, with their arrival times;
    /// while `busy`, the last is the packet being serialised (`in_tx`), written
    /// here when it starts so that it is not copied again when it ends.
    pub pipe: VecDeque<(Nanos, Packet)>,
    pub stats: LinkStats,
    pub queue: Queue<Packet>,
    pub capacity: Capacity,
    /// Sojourn time of every packet dequeued since the warm-up, for percentiles.
    pub queue_delay: Quantiles,
    pub loss: LossModel,
    pub name: String,
}

/// `Link::serialise` on the link's fields, for a caller holding its queue: the
/// sojourn into the statistics, the serialisation's times (`tx_from`, `tx_until`,
/// `busy`, as `wire`); returns its end. `sojourn` None: a packet that found the
/// link idle, whose sojourn of 0 is counted without `Quantiles::add`'s tests.
#[inline(always)]
fn start_serialising(
    now: Nanos, bytes: u32, sojourn: Option<Nanos>, queue_delay: &mut Quantiles, capacity: &mut Capacity,
    wire: (&mut Nanos, &mut Nanos, &mut bool),
) -> Nanos {
    match sojourn {
        Some(s) => queue_delay.add(s),
        None => queue_delay.add_zero(),
    }
    let done = capacity.tx_end(now, bytes);
    (*wire.0, *wire.1, *wire.2) = (now, done, true);
    done
}

/// What became of the packet whose serialisation ended (`Link::tx_done`).
pub enum TxDone {
    /// Lost on the wire (the loss model).
    Lost(Packet),
    /// A link without delay, with nothing else due at this instant: the packet
    /// goes on at once, after the next serialisation starts.
    Through(Packet),
    /// Propagating; `Some(t)`: the pipe was empty, so its `LinkPipe` event is due at `t`.
    Propagating(Option<Nanos>),
}

impl Link {
    /// Bytes put on the wire by time `t`: the finished packets plus, pro rata, the
    /// one being serialised (a trace serves a packet at one instant: nothing pro
    /// rata), so that a measurement window starting or ending in
    /// the middle of a packet counts only the part sent inside it.
    pub fn tx_bytes_at(&self, t: Nanos) -> f64 {
        let done = self.stats.tx_bytes as f64;
        match self.in_tx() {
            Some(p) if t > self.tx_from && self.tx_until > self.tx_from && !self.capacity.serves_at_instants() => {
                let part = (t.min(self.tx_until) - self.tx_from) as f64 / (self.tx_until - self.tx_from) as f64;
                done + p.bytes as f64 * part
            }
            _ => done,
        }
    }

    /// Bytes queued plus the packet in transmission.
    pub fn backlog_bytes(&self) -> u64 {
        self.queue.len_bytes() + self.in_tx().map_or(0, |p| p.bytes as u64)
    }

    /// The packet being serialised, if any.
    #[inline]
    pub fn in_tx(&self) -> Option<&Packet> {
        self.pipe.back().filter(|_| self.busy).map(|(_, p)| p)
    }

    /// Packets propagating (the pipe without the packet in transmission).
    #[inline]
    fn propagating(&self) -> usize {
        self.pipe.len() - self.busy as usize
    }

    /// A packet arrives at `now`: it is queued (or dropped, through `on_drop`), and
    /// serialisation starts if the link is idle. Returns when that serialisation
    /// ends, if one started.
    #[inline]
    pub fn arrive(&mut self, now: Nanos, pkt: &Packet, on_drop: &mut impl FnMut(Packet)) -> Option<Nanos> {
        let admitted = if !self.busy { self.queue.pass_through(pkt.bytes) } else { None };
        if admitted == Some(true) {
            return Some(self.begin_tx(now, *pkt, pkt.bytes, None)); // an idle link: no queueing
        }
        if admitted == Some(false) || !self.queue.enqueue(*pkt, pkt.bytes, now) {
            on_drop(*pkt);
            return None;
        }
        if !self.busy {
            return self.start_tx(now, on_drop);
        }
        None
    }

    /// Serialises the next packet its queue gives (which may drop some, through
    /// `on_drop`); returns when it ends, if there was one.
    #[inline]
    pub fn start_tx(&mut self, now: Nanos, on_drop: &mut impl FnMut(Packet)) -> Option<Nanos> {
        // DropTail: the packet is copied once, from its queue slot into the pipe.
        let Link { queue, pipe, queue_delay, capacity, tx_from, tx_until, busy, delay, .. } = self;
        let wire = (tx_from, tx_until, busy);
        let plain = queue.dequeue_plain(now, |e, sojourn| {
            let done = start_serialising(now, e.bytes, Some(sojourn), queue_delay, capacity, wire);
            pipe.push_back((done + *delay, e.pkt));
            done
        });
        if let Some(done) = plain {
            return done;
        }
        let (pkt, bytes) = self.queue.dequeue(now, on_drop)?;
        Some(self.begin_tx(now, pkt, bytes, Some(self.queue.stats().last_sojourn)))
    }

    /// Starts serialising `pkt`, just taken from the queue after `sojourn`; returns
    /// when it ends. (The sojourn is the queue's `last_sojourn`, passed rather than
    /// read: at an idle link it is 0 without three dependent loads; None there.)
    #[inline(always)]
    fn begin_tx(&mut self, now: Nanos, pkt: Packet, bytes: u32, sojourn: Option<Nanos>) -> Nanos {
        debug_assert_eq!(sojourn.unwrap_or(0), self.queue.stats().last_sojourn);
        let done = self.serialise(now, bytes, sojourn);
        self.pipe.push_back((done + self.delay, pkt));
        done
    }

    /// What starting a serialisation does but putting the packet into the pipe.
    #[inline(always)]
    fn serialise(&mut self, now: Nanos, bytes: u32, sojourn: Option<Nanos>) -> Nanos {
        let wire = (&mut self.tx_from, &mut self.tx_until, &mut self.busy);
        start_serialising(now, bytes, sojourn, &mut self.queue_delay, &mut self.capacity, wire)
    }

    /// Whether the `TxDone` of the packet just started (ending at `tx_until`) may
    /// stay out of the event queue. It would do nothing another event could see
    /// at its instant: with nothing queued behind the packet, no loss model and a
    /// packet still propagating past `tx_until` (so that the pipe does not need its
    /// `LinkPipe` event scheduled), it only moves the packet into the pipe and the
    /// counters, which `settle` does before anyone reads them. A packet queued
    /// behind it queues the event (`Sim::arrive`).
    #[inline]
    pub fn can_defer(&self) -> bool {
        self.may_defer
            && self.queue.len_packets() == 0
            && self.propagating() > 0
            && self.pipe[self.pipe.len() - 2].0 > self.tx_until
    }

    /// Applies the deferred `TxDone`, if `is_past` says it would have run by now:
    /// what `tx_done` does for it (no loss, a pipe not empty), at its time.
    #[inline]
    pub fn settle(&mut self, is_past: impl FnOnce(Nanos, u64) -> bool) {
        if let Some(seq) = self.deferred {
            if is_past(self.tx_until, seq) {
                self.deferred = None;
                self.busy = false;
                let bytes = self.pipe.back().expect("a deferred TxDone without a packet").1.bytes;
                self.stats.tx_packets += 1;
                self.stats.tx_bytes += bytes as u64;
            }
        }
    }

    /// The packet in transmission is on the wire at `now`: lost, or propagating.
    /// `more_now`: whether other events are due at this instant (asked only for a
    /// link without delay). The caller starts the next serialisation.
    #[inline]
    pub fn tx_done(&mut self, now: Nanos, more_now: impl FnOnce() -> bool) -> TxDone {
        debug_assert!(self.busy && self.tx_until == now);
        self.busy = false;
        let &(arrival, ref pkt) = self.pipe.back().expect("TxDone without a packet in transmission");
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += pkt.bytes as u64;
        if self.lossy && self.loss.lose() {
            self.stats.loss_drops += 1;
            return TxDone::Lost(self.pipe.pop_back().expect("the packet").1);
        }
        let first = self.pipe.len() == 1;
        if self.delay == 0 && first && !more_now() {
            // Its propagation event would run next (after the serialisation start
            // the caller makes, whatever that schedules): no event needed.
            return TxDone::Through(self.pipe.pop_back().expect("the packet").1);
        }
        TxDone::Propagating(first.then_some(arrival))
    }

    /// The oldest propagating packet reaches the far end; with the arrival time
    /// of the next one, if any (its `LinkPipe` event).
    #[inline]
    pub fn propagated(&mut self) -> (Packet, Option<Nanos>) {
        let (_, pkt) = self.pipe.pop_front().expect("LinkPipe event without a packet");
        (pkt, self.pipe.front().filter(|_| self.propagating() > 0).map(|&(t, _)| t))
    }
}
