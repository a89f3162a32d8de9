//! Queue disciplines. A queue holds packets of any `Copy` type `P` together with
//! their size in bytes and enqueue time.
//!
//! Each discipline decides admission (`enqueue`) and, for CoDel, drops at the
//! head (`dequeue`); the `Queue` enum adds the bookkeeping every discipline shares
//! (counters, sojourn times) so that no discipline can forget it.
//!
//! Adding a discipline: its file (the discipline, its `INFO` entry and `build`
//! function, its tests), and here one `mod` line, one list line in [`members`],
//! one variant of [`Queue`] and its arms in the dispatching methods. The
//! configuration (`{ kind, ...params }`), the Python schema and `mpcc list` read
//! the entry; nothing else changes.

pub mod codel;
pub mod droptail;
pub mod pie;
pub mod red;

use mpcc_core::params::{find, Info, Member, Params, Problem};
use mpcc_core::{Nanos, Rng};
use std::collections::VecDeque;

pub use codel::Codel;
pub use droptail::{DropTail, Limit};
pub use red::{Red, RedParams};

/// Counters every discipline keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QueueStats {
    pub enqueued: u64,
    pub dequeued: u64,
    /// Drops at enqueue (full buffer, RED early drop) and at dequeue (CoDel).
    pub drops: u64,
    pub dropped_bytes: u64,
    /// The part of `drops` decided by the AQM (RED early/forced-by-average drops,
    /// CoDel control-law drops), as opposed to buffer overflow.
    pub aqm_drops: u64,
    /// Sum of sojourn times of dequeued packets, nanoseconds.
    pub sojourn_sum: u128,
    /// Sojourn time of the most recently dequeued packet (a per-packet probe can
    /// read it right after each `dequeue`).
    pub last_sojourn: Nanos,
    /// Largest sojourn time of any dequeued packet.
    pub max_sojourn: Nanos,
}

impl QueueStats {
    #[inline]
    pub(crate) fn record_drop(&mut self, bytes: u32) {
        self.drops += 1;
        self.dropped_bytes += bytes as u64;
    }
    #[inline]
    fn record_dequeue(&mut self, sojourn: Nanos) {
        self.dequeued += 1;
        self.sojourn_sum += sojourn as u128;
        self.last_sojourn = sojourn;
        if sojourn > self.max_sojourn {
            self.max_sojourn = sojourn;
        }
    }
    /// Mean sojourn time of dequeued packets (0 if none), nanoseconds.
    pub fn mean_sojourn(&self) -> f64 {
        if self.dequeued == 0 {
            0.0
        } else {
            self.sojourn_sum as f64 / self.dequeued as f64
        }
    }
}

/// A queued packet.
#[derive(Clone, Copy, Debug)]
pub struct Entry<P> {
    pub pkt: P,
    pub bytes: u32,
    pub enqueued_at: Nanos,
}

/// FIFO storage shared by all disciplines.
#[derive(Clone, Debug)]
pub struct Fifo<P> {
    pub items: VecDeque<Entry<P>>,
    pub bytes: u64,
}

impl<P: Copy> Fifo<P> {
    pub fn new() -> Self {
        Fifo { items: VecDeque::with_capacity(64), bytes: 0 }
    }
    #[inline]
    pub fn push(&mut self, e: Entry<P>) {
        self.bytes += e.bytes as u64;
        self.items.push_back(e);
    }
    #[inline]
    pub fn pop(&mut self) -> Option<Entry<P>> {
        let e = self.items.pop_front()?;
        self.bytes -= e.bytes as u64;
        Some(e)
    }
    #[inline]
    pub fn len(&self) -> usize {
        self.items.len()
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

impl<P: Copy> Default for Fifo<P> {
    fn default() -> Self {
        Self::new()
    }
}

/// Largest whole number a parameter may hold exactly (2^53 - 1, as JSON numbers).
pub const MAX_WHOLE: f64 = 9_007_199_254_740_991.0;
/// Longest duration a parameter may hold, ns (10^6 s, the scenario's ceiling).
pub const MAX_DURATION: f64 = 1e15;

/// What a discipline's builder gets besides its parameters.
pub struct QueueEnv {
    /// Nominal rate of the link the queue feeds (RED's idle-time correction).
    pub link_bps: f64,
    /// The queue's own random stream.
    pub rng: Rng,
}

/// A discipline's builder: checked parameter values (NaN: unset), environment.
pub type Build<P> = fn(&dyn Fn(&str) -> f64, QueueEnv) -> Result<Queue<P>, Problem>;

/// Every queue discipline, one line each; the first is the default kind.
pub fn members<P: Copy + 'static>() -> Vec<Member<Build<P>>> {
    vec![
        Member { info: &droptail::INFO, build: droptail::build::<P> },
        Member { info: &red::INFO, build: red::build::<P> },
        Member { info: &codel::INFO, build: codel::build::<P> },
        Member { info: &pie::INFO, build: pie::build::<P> },
    ]
}

/// Every queue discipline's entry.
pub fn registry() -> Vec<&'static Info> {
    members::<()>().into_iter().map(|m| m.info).collect()
}

/// The discipline `kind` with `params`, checked against its entry. Errors: an
/// unknown kind as `Err(None-param problem)`, naming what is allowed.
pub fn build<P: Copy + 'static>(kind: &str, params: &Params, env: QueueEnv) -> Result<Queue<P>, Problem> {
    let list = members::<P>();
    let info = find(list.iter().map(|m| m.info), "queue kind", kind).map_err(Problem::whole)?;
    info.check("queue", params)?;
    let m = list.iter().find(|m| m.info.name == kind).expect("found");
    (m.build)(&|k: &str| info.get(params, k), env)
}

/// Every queue discipline; the simulator dispatches through this enum.
#[derive(Clone, Debug)]
pub enum Queue<P> {
    DropTail(DropTail<P>),
    Red(Red<P>),
    Codel(Codel<P>),
    Pie(pie::Pie<P>),
}

impl<P: Copy> Queue<P> {
    /// DropTail with a packet limit, a byte limit, or both (a packet is refused
    /// if it would exceed either).
    pub fn droptail(packets: Option<u64>, bytes: Option<u64>) -> Result<Self, String> {
        Ok(Queue::DropTail(DropTail::new(Limit::from_options(packets, bytes)?)))
    }

    /// RED; `link_bps` is the nominal rate of the link it feeds (idle-time
    /// correction of the average), `rng` its own random stream.
    pub fn red(params: RedParams, link_bps: f64, rng: Rng) -> Result<Self, String> {
        Ok(Queue::Red(Red::new(params, link_bps, rng)?))
    }

    /// CoDel (RFC 8289).
    pub fn codel(target_ns: Nanos, interval_ns: Nanos, limit: u64, mtu: u32) -> Result<Self, String> {
        Ok(Queue::Codel(Codel::new(target_ns, interval_ns, limit, mtu)?))
    }

    /// Offers a packet at time `now`. Returns false if it was dropped.
    #[inline]
    pub fn enqueue(&mut self, pkt: P, bytes: u32, now: Nanos) -> bool {
        // DropTail on a path of its own: sharing the tail with the others, its
        // push went through field offsets chosen by the discipline.
        if let Queue::DropTail(q) = self {
            let ok = q.enqueue(pkt, bytes, now);
            if ok {
                q.stats.enqueued += 1;
            } else {
                q.stats.record_drop(bytes);
            }
            return ok;
        }
        self.enqueue_managed(pkt, bytes, now)
    }

    /// `enqueue` for the AQMs.
    #[inline(never)]
    fn enqueue_managed(&mut self, pkt: P, bytes: u32, now: Nanos) -> bool {
        let (ok, st) = match self {
            Queue::DropTail(q) => (q.enqueue(pkt, bytes, now), &mut q.stats),
            Queue::Red(q) => (q.enqueue(pkt, bytes, now), &mut q.stats),
            Queue::Codel(q) => (q.enqueue(pkt, bytes, now), &mut q.stats),
            Queue::Pie(q) => (q.enqueue(pkt, bytes, now), &mut q.stats),
        };
        if ok {
            st.enqueued += 1;
        } else {
            st.record_drop(bytes);
        }
        ok
    }

    /// Takes the next packet to transmit at time `now`. Disciplines that drop at
    /// dequeue (CoDel) report each dropped packet through `on_drop`.
    /// A packet of `bytes` offered to an empty DropTail queue whose link is idle:
    /// the counters move as `enqueue` then `dequeue` at the same instant would move
    /// them (admitted and served with a sojourn of 0, or dropped), without the packet
    /// being stored and copied out again. Some(admitted); None when the queue is not
    /// an empty DropTail (the AQMs keep state on both sides: use enqueue, dequeue).
    #[inline]
    pub fn pass_through(&mut self, bytes: u32) -> Option<bool> {
        let Queue::DropTail(q) = self else { return None };
        if !q.fifo.is_empty() {
            return None;
        }
        if !q.admits(bytes) {
            q.stats.record_drop(bytes);
            return Some(false);
        }
        q.stats.enqueued += 1;
        q.stats.record_dequeue(0);
        Some(true)
    }

    /// Whether this discipline keeps no state beyond its packets: a dequeue from it
    /// empty changes nothing, so a link may leave the end of a serialisation that
    /// finds it empty out of its event queue (mpcc-sim's `Link::can_defer`).
    #[inline]
    pub fn is_plain_fifo(&self) -> bool {
        matches!(self, Queue::DropTail(_))
    }

    #[inline]
    pub fn dequeue(&mut self, now: Nanos, on_drop: &mut impl FnMut(P)) -> Option<(P, u32)> {
        let (e, st) = match self {
            Queue::DropTail(q) => (q.fifo.pop(), &mut q.stats),
            Queue::Red(q) => (q.dequeue(now), &mut q.stats),
            Queue::Codel(q) => (q.dequeue(now, on_drop), &mut q.stats),
            Queue::Pie(q) => (q.dequeue(now), &mut q.stats),
        };
        let e = e?;
        st.record_dequeue(now.saturating_sub(e.enqueued_at));
        Some((e.pkt, e.bytes))
    }

    /// `dequeue` for DropTail (None for the other disciplines): the entry is
    /// handed to `take` where it lies, so that the caller copies the packet once,
    /// from its slot (moved out through `dequeue`'s `Option`, it went field by field
    /// through the stack). Some(None) when the queue is empty.
    #[inline]
    pub fn dequeue_plain<R>(&mut self, now: Nanos, take: impl FnOnce(&Entry<P>, Nanos) -> R) -> Option<Option<R>> {
        let Queue::DropTail(q) = self else { return None };
        let Some(e) = q.fifo.items.front() else { return Some(None) };
        let sojourn = now.saturating_sub(e.enqueued_at);
        let r = take(e, sojourn);
        q.fifo.bytes -= e.bytes as u64;
        q.fifo.items.pop_front();
        q.stats.record_dequeue(sojourn);
        Some(Some(r))
    }

    pub fn len_packets(&self) -> usize {
        match self {
            Queue::DropTail(q) => q.fifo.len(),
            Queue::Red(q) => q.fifo.len(),
            Queue::Codel(q) => q.fifo.len(),
            Queue::Pie(q) => q.fifo.len(),
        }
    }
    pub fn len_bytes(&self) -> u64 {
        match self {
            Queue::DropTail(q) => q.fifo.bytes,
            Queue::Red(q) => q.fifo.bytes,
            Queue::Codel(q) => q.fifo.bytes,
            Queue::Pie(q) => q.fifo.bytes,
        }
    }
    pub fn stats(&self) -> &QueueStats {
        match self {
            Queue::DropTail(q) => &q.stats,
            Queue::Red(q) => &q.stats,
            Queue::Codel(q) => &q.stats,
            Queue::Pie(q) => &q.stats,
        }
    }
}
