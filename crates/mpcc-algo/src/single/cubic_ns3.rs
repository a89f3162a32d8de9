//! CUBIC's congestion avoidance as ns-3 3.44's `TcpCubic` computes it
//! (`IncreaseWindow`, `Update`), for the `ns3` profile (`cubic`'s `whole_segments`;
//! docs/algorithms/cubic.md). The same curve as RFC 9438's, in the integer
//! arithmetic of Linux's `bictcp_update` that ns-3 ported: the target window and
//! its distance in whole segments, a count `cnt` of segments to acknowledge per
//! one-segment increase, and a counter of acknowledged segments against it. Its time
//! is measured from the stage's start plus the smallest smoothed RTT seen (ns-3's
//! `m_delayMin`), not one RTT ahead as RFC 9438's target is.

use mpcc_core::Nanos;

/// `cnt` while no loss has set W_max: at least cwnd / 20 per round trip (ns-3's
/// `CntClamp`, Linux's 20).
const CNT_CLAMP: u32 = 20;
/// After a stage starts, RTT samples are ignored this long (ns-3's `CubicDelta`).
const CUBIC_DELTA: Nanos = 10_000_000;

/// ns-3's counters, in segments, and the curve's constants.
#[derive(Clone, Debug, Default)]
pub struct Ns3Avoidance {
    /// C (segments / s^3) and beta_cubic.
    c: f64,
    beta: f64,
    /// Segments acknowledged towards the next one-segment increase (`m_cWndCnt`).
    cwnd_cnt: u32,
    /// Segments acknowledged in this stage, for the Reno estimate (`m_ackCnt`).
    ack_cnt: u32,
    /// The Reno-friendly window estimate (`m_tcpCwnd`).
    tcp_cwnd: u32,
    /// The curve's plateau, W_max or the stage's start window (`m_bicOriginPoint`).
    origin: u32,
    /// K in seconds (`m_bicK`).
    k: f64,
    /// Smallest smoothed RTT since the last timeout (`m_delayMin`); 0: none yet.
    pub delay_min: Nanos,
}

impl Ns3Avoidance {
    pub fn new(c: f64, beta: f64) -> Ns3Avoidance {
        Ns3Avoidance { c, beta, ..Ns3Avoidance::default() }
    }

    /// ns-3's `PktsAcked`: the smoothed RTT it is given lowers `delay_min`, except
    /// within `CubicDelta` of a stage's start.
    pub fn sample(&mut self, now: Nanos, epoch: Option<Nanos>, srtt: Nanos) {
        if epoch.is_some_and(|t0| now.saturating_sub(t0) < CUBIC_DELTA) || srtt == 0 {
            return;
        }
        if self.delay_min == 0 || srtt < self.delay_min {
            self.delay_min = srtt;
        }
    }

    /// A timeout (`CubicReset` in `CA_LOSS`): the stage's counters and `delay_min`
    /// go; W_max stays (ns-3's `GetSsThresh` set it).
    pub fn reset(&mut self) {
        *self = Ns3Avoidance { cwnd_cnt: self.cwnd_cnt, ..Ns3Avoidance::new(self.c, self.beta) };
    }

    /// `acked` segments acknowledged at `now` in congestion avoidance with window
    /// `cwnd` (segments) and W_max `w_max` (whole segments, 0 before any loss); the
    /// stage started at `*epoch` (set here if none). Returns the new window.
    pub fn grow(&mut self, now: Nanos, epoch: &mut Option<Nanos>, cwnd: f64, w_max: f64, acked: u32) -> f64 {
        let seg_cwnd = cwnd.max(0.0) as u32;
        self.cwnd_cnt = self.cwnd_cnt.saturating_add(acked);
        let cnt = self.cnt(now, epoch, seg_cwnd, w_max as u32, acked);
        if self.cwnd_cnt >= cnt {
            self.cwnd_cnt -= cnt;
            return cwnd + 1.0;
        }
        cwnd
    }

    /// ns-3's `Update`: segments to acknowledge per one-segment increase.
    fn cnt(&mut self, now: Nanos, epoch: &mut Option<Nanos>, seg_cwnd: u32, last_max: u32, acked: u32) -> u32 {
        let (c, beta) = (self.c, self.beta);
        self.ack_cnt = self.ack_cnt.saturating_add(acked);
        let t0 = match *epoch {
            Some(t0) => t0,
            None => {
                *epoch = Some(now);
                self.ack_cnt = acked;
                self.tcp_cwnd = seg_cwnd;
                if last_max <= seg_cwnd {
                    self.k = 0.0;
                    self.origin = seg_cwnd;
                } else {
                    self.k = ((last_max - seg_cwnd) as f64 / c).cbrt();
                    self.origin = last_max;
                }
                now
            }
        };
        let t = (now + self.delay_min).saturating_sub(t0) as f64 * 1e-9;
        let offs = (t - self.k).abs();
        let delta = (c * offs * offs * offs) as u32; // truncated, as ns-3's uint32_t
        let target = if t < self.k { self.origin.wrapping_sub(delta) } else { self.origin.wrapping_add(delta) };
        let mut cnt = if target > seg_cwnd { seg_cwnd / (target - seg_cwnd) } else { 100 * seg_cwnd };
        if last_max == 0 && cnt > CNT_CLAMP {
            cnt = CNT_CLAMP;
        }
        // TCP friendliness: the Reno estimate grows one segment per `seg_cwnd x
        // scale / 8` acknowledged; where it is ahead, at least its pace.
        let scale = (8.0 * (1024.0 + beta * 1024.0) / 3.0 / (1024.0 - beta * 1024.0)) as u32;
        let per = ((seg_cwnd * scale) >> 3).max(1);
        while self.ack_cnt > per {
            self.ack_cnt -= per;
            self.tcp_cwnd += 1;
        }
        if self.tcp_cwnd > seg_cwnd {
            cnt = cnt.min(seg_cwnd / (self.tcp_cwnd - seg_cwnd));
        }
        cnt.max(2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = 1_000_000;

    /// Hand-computed from ns-3's Update: W_max 100, a stage starting at 70 segments,
    /// C 0.4: K = cbrt(30 / 0.4) = 4.217 s. With delay_min 100 ms, 1 s into the stage
    /// t = 1.1 s, offs 3.117 s, delta = floor(0.4 x 30.29) = 12, target 100 - 12 = 88,
    /// cnt = 70 / (88 - 70) = 3; so the window grows by one every 3 segments.
    #[test]
    fn cnt_follows_ns3s_integer_update() {
        let mut a = Ns3Avoidance { delay_min: 100 * MS, ..Ns3Avoidance::new(0.4, 0.7) };
        let mut epoch = None;
        // At the stage's start t = 0.1 s: offs 4.117, delta 27, target 73, cnt 70 / 3 = 23.
        assert_eq!(a.cnt(0, &mut epoch, 70, 100, 1), 23);
        assert_eq!(epoch, Some(0));
        assert!((a.k - 75f64.cbrt()).abs() < 1e-12);
        assert_eq!(a.cnt(1000 * MS, &mut epoch, 70, 100, 1), 3);
        // Past K the curve rises again: t = 5.1 s, offs 0.883, delta 0: target 100,
        // cnt = 99 / 1 = 99; the Reno estimate, far behind, does not lower it.
        assert_eq!(a.cnt(5000 * MS, &mut epoch, 99, 100, 1), 99);
        // Before any loss the clamp keeps cnt at 20: 5 % a round trip at least.
        let mut b = Ns3Avoidance::new(0.4, 0.7);
        let mut e = None;
        assert_eq!(b.cnt(0, &mut e, 50, 0, 1), 20);
    }

    /// One increase per `cnt` acknowledged segments, the remainder kept; an ACK of
    /// many segments still adds at most one. The stage starts at 0 (W_max 100, 70
    /// segments, delay_min 100 ms); 1 s later cnt is 70 / (88 - 70) = 3, then at 71
    /// segments 71 / 17 = 4, at 72 72 / 16 = 4.
    #[test]
    fn the_counter_adds_one_segment_per_cnt() {
        let mut a = Ns3Avoidance { delay_min: 100 * MS, ..Ns3Avoidance::new(0.4, 0.7) };
        let mut epoch = None;
        let mut w = a.grow(0, &mut epoch, 70.0, 100.0, 0);
        let mut grown = vec![];
        for i in 0..9 {
            let before = w;
            w = a.grow(1000 * MS + i, &mut epoch, w, 100.0, 1);
            if w > before {
                grown.push(i);
            }
        }
        assert_eq!((grown, w), (vec![2, 6], 72.0));
        assert_eq!(a.grow(1000 * MS + 20, &mut epoch, w, 100.0, 50), 73.0);
    }

    /// The Reno estimate: with scale 15 (beta 0.7), one segment per 70 x 15 / 8 = 131
    /// acknowledged at 70 segments; once it is ahead of cwnd, cnt is at most
    /// cwnd / (estimate - cwnd).
    #[test]
    fn tcp_friendliness_caps_cnt() {
        let mut a = Ns3Avoidance::new(0.4, 0.7);
        let mut epoch = None;
        // Plateau: W_max = cwnd, so the curve's target is flat (cnt 100 x cwnd).
        assert_eq!(a.cnt(0, &mut epoch, 70, 70, 1), 7000);
        a.tcp_cwnd = 75; // the estimate 5 ahead
        assert_eq!(a.cnt(MS, &mut epoch, 70, 70, 1), 14);
    }
}
