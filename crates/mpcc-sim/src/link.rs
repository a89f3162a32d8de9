//! A link at run time: a queue discipline feeding a serialiser whose rate may
//! vary over time, random loss on the wire, then propagation delay.

use crate::metrics::Quantiles;
use crate::packet::Packet;
use mpcc_core::Nanos;
use mpcc_net::{Capacity, LossModel, Queue};
use std::collections::VecDeque;

/// Counters of one link.
#[derive(Clone, Copy, Debug, Default)]
pub struct LinkStats {
    pub tx_packets: u64,
    pub tx_bytes: u64,
    /// Packets lost on the wire (loss model).
    pub loss_drops: u64,
}

pub struct Link {
    pub name: String,
    pub queue: Queue<Packet>,
    pub capacity: Capacity,
    pub loss: LossModel,
    pub delay: Nanos,
    /// The packet being serialised, if any, and when its serialisation started and ends.
    pub in_tx: Option<Packet>,
    pub tx_from: Nanos,
    pub tx_until: Nanos,
    /// Packets propagating over the link, oldest first, with their arrival times.
    pub pipe: VecDeque<(Nanos, Packet)>,
    pub stats: LinkStats,
    /// Sojourn time of every packet dequeued since the warm-up, for percentiles.
    pub queue_delay: Quantiles,
}

impl Link {
    /// Bytes put on the wire by time `t`: the finished packets plus, pro rata, the
    /// one being serialised (a trace serves a packet at one instant: nothing pro
    /// rata), so that a measurement window starting or ending in
    /// the middle of a packet counts only the part sent inside it.
    pub fn tx_bytes_at(&self, t: Nanos) -> f64 {
        let done = self.stats.tx_bytes as f64;
        match self.in_tx {
            Some(p) if t > self.tx_from && self.tx_until > self.tx_from && !self.capacity.serves_at_instants() => {
                let part = (t.min(self.tx_until) - self.tx_from) as f64 / (self.tx_until - self.tx_from) as f64;
                done + p.bytes as f64 * part
            }
            _ => done,
        }
    }

    /// Bytes queued plus the packet in transmission.
    pub fn backlog_bytes(&self) -> u64 {
        self.queue.len_bytes() + self.in_tx.map_or(0, |p| p.bytes as u64)
    }
}
