//! Link capacity over time.

use mpcc_core::time::tx_time;
use mpcc_core::Nanos;

#[derive(Clone, Debug)]
pub enum Capacity {
    /// A fixed rate in bits per second.
    Constant { bps: f64 },
}

impl Capacity {
    /// When a packet of `bytes` whose transmission starts at `start` has been
    /// fully serialised.
    #[inline]
    pub fn tx_end(&mut self, start: Nanos, bytes: u32) -> Nanos {
        match self {
            Capacity::Constant { bps } => start + tx_time(bytes, *bps),
        }
    }

    /// Bits the link could have carried in [t0, t1), for utilization.
    pub fn bits_between(&mut self, t0: Nanos, t1: Nanos) -> f64 {
        match self {
            Capacity::Constant { bps } => *bps * (t1.saturating_sub(t0)) as f64 * 1e-9,
        }
    }

    /// The rate at time `t`, bits per second (for plots and the bandwidth-delay product).
    pub fn rate_at(&mut self, _t: Nanos) -> f64 {
        match self {
            Capacity::Constant { bps } => *bps,
        }
    }
}
