//! A link at run time: a queue discipline feeding a serialiser whose rate may
//! vary over time, random loss on the wire, then propagation delay.

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
    /// The packet being serialised, if any.
    pub in_tx: Option<Packet>,
    /// Packets propagating over the link, oldest first, with their arrival times.
    pub pipe: VecDeque<(Nanos, Packet)>,
    pub stats: LinkStats,
}

impl Link {
    /// Bytes queued plus the packet in transmission.
    pub fn backlog_bytes(&self) -> u64 {
        self.queue.len_bytes() + self.in_tx.map_or(0, |p| p.bytes as u64)
    }
}
