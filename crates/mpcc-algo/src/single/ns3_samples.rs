//! The bookkeeping ns-3 3.44's `TcpVegas` and `TcpVeno` share: `PktsAcked` counts
//! the smoothed RTTs it is handed (on every ACK, duplicates included) and keeps the
//! smallest, and `CongestionStateSet` switches the delay rule off outside CA_OPEN and
//! on again when the sender returns to it (vegas_ns3.rs, veno_ns3.rs).

use crate::AckEvent;
use mpcc_core::Nanos;

#[derive(Clone, Debug)]
pub struct Ns3Samples {
    /// The delay rule is on (`m_doingVegasNow`, `m_doingVenoNow`): ns-3's CA_OPEN.
    pub doing: bool,
    /// Samples (`m_cntRtt`) and the smallest smoothed RTT (`m_minRtt`) since the
    /// controller last cleared them.
    pub cnt_rtt: u32,
    pub min_rtt: Nanos,
}

impl Default for Ns3Samples {
    /// ns-3's constructors: the rule on, no sample.
    fn default() -> Ns3Samples {
        Ns3Samples { doing: true, cnt_rtt: 0, min_rtt: Nanos::MAX }
    }
}

impl Ns3Samples {
    /// `PktsAcked(tcb, segments, m_srtt)`: BaseRTT is the smallest smoothed RTT too.
    pub fn pkts_acked(&mut self, base_rtt: &mut Nanos, srtt: Nanos) {
        if srtt > 0 {
            self.min_rtt = self.min_rtt.min(srtt);
            *base_rtt = (*base_rtt).min(srtt);
            self.cnt_rtt += 1;
        }
    }

    /// `CongestionStateSet` as the ACK shows it: out of CA_OPEN in fast recovery, in
    /// a timeout's recovery and on a duplicate ACK (CA_DISORDER; ns-3 grows nothing on
    /// those, `acked` is 0). True when this ACK brings the sender back to CA_OPEN
    /// (`EnableVegas`, `EnableVeno`: the caller resets what its class resets).
    pub fn reopens(&mut self, ev: &AckEvent) -> bool {
        let open = !ev.in_recovery && !ev.after_timeout && ev.acked > 0.0;
        let back = open && !self.doing;
        self.doing = open;
        back
    }

    /// Whether ns-3 calls `IncreaseWindow` on this ACK.
    pub fn grows(ev: &AckEvent) -> bool {
        ev.acked > 0.0 && !ev.in_recovery && !ev.app_limited
    }

    /// The samples are cleared (each class's `IncreaseWindow`).
    pub fn clear(&mut self) {
        self.cnt_rtt = 0;
        self.min_rtt = Nanos::MAX;
    }
}
