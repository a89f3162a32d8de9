//! A flow: one connection (its controller, sender and receiver), the routes its
//! data and ACKs take, its application and its statistics.

use crate::metrics::RttStats;
use crate::tcp::{Receiver, Sender};
use mpcc_algo::Controller;
use mpcc_core::Nanos;
use crate::packet::Packet;
use std::collections::VecDeque;

/// How ACKs travel back.
#[derive(Clone, Debug)]
pub enum ReverseRoute {
    /// An uncongested path of this total propagation delay.
    Delay(Nanos),
    /// Through these links (queueing, serialisation, loss).
    Links(Vec<u32>),
}

/// Counters snapshotted at the end of the warm-up, so summaries cover [warmup, end].
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowCounters {
    pub delivered_bytes: u64,
    pub received_bytes: u64,
    pub sent_packets: u64,
    pub retransmissions: u64,
    pub losses: u64,
    pub timeouts: u64,
    pub drops: u64,
}

pub struct Flow {
    pub name: String,
    pub cc_name: String,
    pub cc: Controller,
    pub snd: Sender,
    pub rcv: Receiver,
    pub fwd: Vec<u32>,
    pub rev: ReverseRoute,
    /// ACKs on a delay-only reverse path, oldest first, with their arrival times.
    pub ack_pipe: VecDeque<(Nanos, Packet)>,
    pub start: Nanos,
    pub stop: Option<Nanos>,
    /// Bytes the application offers (u64::MAX: bulk).
    pub app_bytes: u64,
    /// Payload bytes delivered in order to the application.
    pub delivered_bytes: u64,
    /// Flow completion time for finite transfers.
    pub completed_at: Option<Nanos>,
    /// Packets of this flow dropped in the network (queues and loss models).
    pub drops: u64,
    pub rtt: RttStats,
    pub delack_timeout: Nanos,
    pub base: FlowCounters,
}

impl Flow {
    pub fn counters(&self) -> FlowCounters {
        FlowCounters {
            delivered_bytes: self.delivered_bytes,
            received_bytes: self.rcv.received_bytes,
            sent_packets: self.snd.stats.sent_packets,
            retransmissions: self.snd.stats.retransmissions,
            losses: self.snd.stats.losses,
            timeouts: self.snd.stats.timeouts,
            drops: self.drops,
        }
    }
}
