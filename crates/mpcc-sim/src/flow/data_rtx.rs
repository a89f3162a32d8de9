//! MPTCP's connection-level retransmission timer and stale subflows, as upstream
//! Linux has them (net/mptcp: `mptcp_retransmit_timer`, `__mptcp_retrans`,
//! `mptcp_subflow_get_retrans`, `mptcp_pm_subflow_chk_stale`), switched on by
//! `tcp.data_rtx`. Without it a subflow's retransmission timeout queues the data
//! outstanding on it for reinjection, as the out-of-tree multipath-tcp.org kernel did.
//!
//! - The timer runs while data is unacknowledged at the data level. It is set to the
//!   latest pending retransmission deadline among the subflows not suspected stale,
//!   or 200 ms (`TCP_RTO_MIN`) when none is pending (`mptcp_set_timeout`), and
//!   restarted whenever the DATA_ACK advances.
//! - When it fires, every subflow with data outstanding at the TCP level is checked
//!   for progress: a subflow that received no ACK since the previous expiry counts one
//!   more period without progress. If some subflow has nothing outstanding, the data
//!   at the DATA_ACK (up to one data fragment, `FRAGMENT_BYTES`) is sent again on
//!   another subflow, through the reinjection queue.
//! - A subflow that went more than `stale_loss_cnt` periods without progress, while
//!   another subflow is usable and has gone fewer than `max(stale_loss_cnt - 1, 1)`,
//!   is marked stale: the scheduler leaves it alone until an ACK arrives on it, and
//!   all data unacknowledged at the data level is reinjected
//!   (`__mptcp_retransmit_pending_data`).

use super::Flow;
use mpcc_algo::sched::Wake;
use mpcc_core::Nanos;

/// Linux's TCP_RTO_MIN: the timer's period when no subflow timer is pending.
const RTO_MIN: Nanos = 200_000_000;
/// What one expiry re-sends: a data fragment of the MPTCP socket's send queue
/// (bulk writes fill 32 KB page fragments).
const FRAGMENT_BYTES: u64 = 32 * 1024;

/// The timer's state for one connection, and each subflow's count of expiries
/// without progress.
pub struct DataRtx {
    /// When the timer expires (None: stopped).
    pub at: Option<Nanos>,
    /// The event pending for it.
    pub wake: Wake,
    stale_loss_cnt: u32,
    subs: Vec<Progress>,
}

#[derive(Clone, Copy, Default)]
struct Progress {
    /// Expiries without an ACK on the subflow (`stale_count`).
    count: u32,
    /// When the subflow's latest ACK had arrived at the first of them (`stale_rcv_tstamp`).
    ack_at: Nanos,
    /// When its latest ACK arrived (`rcv_tstamp`).
    last_ack: Nanos,
}

impl DataRtx {
    pub fn new(subflows: usize, stale_loss_cnt: u32) -> DataRtx {
        DataRtx { at: None, wake: Wake::default(), stale_loss_cnt, subs: vec![Progress::default(); subflows] }
    }
}

impl Flow {
    /// The timer's period from now: the latest pending subflow deadline among the
    /// subflows with no expiry counted against them, else `RTO_MIN`.
    fn data_rtx_period(&self, now: Nanos, d: &DataRtx) -> Nanos {
        let latest = (self.subs.iter().zip(&d.subs))
            .filter(|(s, p)| s.active && p.count == 0)
            .filter_map(|(s, _)| s.snd.rto_deadline)
            .map(|t| t.saturating_sub(now))
            .max()
            .unwrap_or(0);
        if latest > 0 {
            latest
        } else {
            RTO_MIN
        }
    }

    /// An ACK of subflow `sub` arrived and the DATA_ACK moved from `una_before`:
    /// the subflow is usable again, and progress restarts the timer.
    pub(crate) fn data_rtx_on_ack(&mut self, now: Nanos, sub: usize, una_before: u64) {
        let Some(mut d) = self.data_rtx.take() else { return };
        d.subs[sub].last_ack = now;
        self.subs[sub].set_stale(false);
        if self.data.una != una_before {
            d.at = (self.data.una < self.data.nxt).then(|| now + self.data_rtx_period(now, &d));
        }
        self.data_rtx = Some(d);
    }

    /// After sending: the timer starts if data is outstanding and it is not running.
    pub(crate) fn data_rtx_after_push(&mut self, now: Nanos) {
        let Some(mut d) = self.data_rtx.take() else { return };
        if d.at.is_none() && self.data.una < self.data.nxt {
            d.at = Some(now + self.data_rtx_period(now, &d));
        }
        self.data_rtx = Some(d);
    }

    /// The timer's event fired at `now`; acts only if the timer expires now (a
    /// DATA_ACK may have moved it later since the event was scheduled).
    pub(crate) fn data_rtx_expired(&mut self, now: Nanos) {
        let Some(mut d) = self.data_rtx.take() else { return };
        if d.at.is_some_and(|t| t <= now) {
            d.at = None;
            if self.data.una < self.data.nxt {
                self.data_retransmit(&mut d);
                d.at = Some(now + self.data_rtx_period(now, &d));
            }
        }
        self.data_rtx = Some(d);
    }

    /// `__mptcp_retrans`: progress checks, then the fragment at the DATA_ACK on an
    /// idle subflow if there is one.
    fn data_retransmit(&mut self, d: &mut DataRtx) {
        let mut idle = false;
        for i in 0..self.subs.len() {
            let s = &self.subs[i];
            if !s.active {
                continue;
            }
            if s.snd.nxt > s.snd.una {
                let p = &mut d.subs[i];
                if p.count == 0 {
                    p.ack_at = p.last_ack;
                    p.count = 1;
                } else if p.ack_at == p.last_ack {
                    p.count = p.count.saturating_add(1);
                    self.check_stale(d, i);
                } else {
                    p.count = 0;
                    self.subs[i].set_stale(false);
                }
            } else {
                idle = true;
            }
        }
        if idle {
            let (una, nxt) = (self.data.una, self.data.nxt);
            let holder = self.subs.iter().position(|s| s.active && s.snd.holds(una)).unwrap_or(0) as u16;
            let mut bytes = 0;
            let mut dsn = una;
            while dsn < nxt && bytes < FRAGMENT_BYTES {
                bytes += u64::from(self.data.seg_bytes(dsn));
                self.data.reinject.push_back((dsn, holder));
                dsn += 1;
            }
        }
    }

    /// `mptcp_pm_subflows_chk_stale`: subflow `i` goes stale if it has gone more
    /// than `stale_loss_cnt` expiries without progress and another subflow can
    /// carry the data; then everything unacknowledged is reinjected.
    fn check_stale(&mut self, d: &DataRtx, i: usize) {
        let limit = d.stale_loss_cnt;
        if self.subs[i].stale || limit == 0 || d.subs[i].count <= limit {
            return;
        }
        let alive = limit.saturating_sub(1).max(1);
        let other = (0..self.subs.len())
            .any(|j| j != i && self.subs[j].active && !self.subs[j].stale && d.subs[j].count < alive);
        if !other {
            return;
        }
        self.subs[i].set_stale(true);
        self.subs[i].stale_marks += 1;
        for dsn in self.data.una..self.data.nxt {
            self.data.reinject.push_back((dsn, i as u16));
        }
    }
}
