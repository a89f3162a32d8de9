//! CUBIC's congestion avoidance as Linux 6.x's `tcp_cubic.c` computes it, for the
//! `linux` profile (`cubic`'s `linux_integer`; docs/algorithms/cubic.md): the window
//! in whole segments, time in jiffies scaled to 2^-10 s, the curve's constant 410 / 2^10,
//! a count `cnt` of acknowledged segments per one-segment increase that
//! `tcp_cong_avoid_ai` applies (several segments at once if an ACK covers several
//! `cnt`s), the Reno-friendly estimate in whole segments at the fixed alpha of
//! `beta_scale` = 15, and the minimum RTT sample as the curve's look-ahead
//! (`delay_min`). The cube root is exact (Linux's table-and-Newton root is within
//! about 0.2 % of it).

use mpcc_core::Nanos;

/// The kernel's tick rate: `tcp_jiffies32` counts 1 / HZ s. 250 is the Debian and
/// Ubuntu default (CONFIG_HZ) and that of the testbed's kernel.
pub const HZ: u64 = 250;
/// Time in the curve is in 2^-BICTCP_HZ s.
const BICTCP_HZ: u32 = 10;
/// C = 410 / 2^10 segments / s^3 (`bic_scale` 41 x 10).
const CUBE_RTT_SCALE: u64 = 410;
/// K = cbrt(CUBE_FACTOR x (W_max - cwnd)) in 2^-10 s.
const CUBE_FACTOR: u64 = (1 << (10 + 3 * BICTCP_HZ)) / CUBE_RTT_SCALE;
/// beta = 717 / 1024.
const BETA: u64 = 717;
const BETA_SCALE: u64 = 1024;
/// The Reno estimate grows one segment per `cwnd x 15 / 8` acknowledged segments:
/// 8 (1024 + 717) / 3 / (1024 - 717), in integers.
const FRIENDLY_SCALE: u32 = 15;

/// Linux's `struct bictcp` besides HyStart, and the socket's `snd_cwnd_cnt`.
#[derive(Clone, Debug, Default)]
pub struct LinuxAvoidance {
    /// Segments to acknowledge per one-segment increase.
    cnt: u32,
    /// W_max (`last_max_cwnd`; 0: unknown, before the first loss and after a timeout).
    pub last_max: u32,
    /// The window and jiffy of the last `cnt` computation (its once-a-jiffy and
    /// 1/32 s rules).
    last_cwnd: u32,
    last_time: u64,
    /// The curve's plateau and K, in 2^-10 s.
    origin: u32,
    pub k: u64,
    /// Smallest RTT sample, microseconds (0: none yet).
    delay_min_us: u64,
    /// The jiffy the stage began (None: Linux's epoch_start 0).
    epoch_start: Option<u64>,
    /// Acknowledged segments towards the Reno estimate, and the estimate.
    ack_cnt: u32,
    tcp_cwnd: u32,
    /// `tcp_cong_avoid_ai`'s counter of acknowledged segments.
    cwnd_cnt: u32,
}

fn jiffies(now: Nanos) -> u64 {
    now / (1_000_000_000 / HZ)
}

/// The integer cube root, rounded down.
fn icbrt(x: u64) -> u64 {
    let mut r = (x as f64).cbrt() as u64;
    while r * r * r > x {
        r -= 1;
    }
    while (r + 1) * (r + 1) * (r + 1) <= x {
        r += 1;
    }
    r
}

impl LinuxAvoidance {
    /// `cubictcp_acked`: an RTT sample lowers `delay_min`, except within one second of a
    /// stage's start (samples right after a recovery are discarded).
    pub fn sample(&mut self, now: Nanos, rtt: Nanos) {
        if self.epoch_start.is_some_and(|e| jiffies(now).saturating_sub(e) < HZ) {
            return;
        }
        let us = (rtt / 1000).max(1);
        if self.delay_min_us == 0 || us < self.delay_min_us {
            self.delay_min_us = us;
        }
    }

    /// Congestion avoidance: `acked` segments acknowledged at `now` with the window at
    /// `cwnd` segments (whole). Returns the new window (`bictcp_update`, then
    /// `tcp_cong_avoid_ai`).
    pub fn grow(&mut self, now: Nanos, cwnd: u32, acked: u32) -> u32 {
        self.update(jiffies(now), cwnd, acked);
        let w = self.cnt.max(1);
        let mut cwnd = cwnd;
        if self.cwnd_cnt >= w {
            self.cwnd_cnt = 0;
            cwnd += 1;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= w {
            let delta = self.cwnd_cnt / w;
            self.cwnd_cnt -= delta * w;
            cwnd += delta;
        }
        cwnd
    }

    /// `bictcp_update`: `cnt` from the curve, the Reno estimate and the floor of 2.
    fn update(&mut self, now: u64, cwnd: u32, acked: u32) {
        self.ack_cnt = self.ack_cnt.saturating_add(acked);
        // The last computation stands while the window and 1/32 s have not moved.
        if self.last_cwnd == cwnd && now.saturating_sub(self.last_time) <= HZ / 32 {
            return;
        }
        // The curve at most once a jiffy; the Reno estimate every time.
        if !(self.epoch_start.is_some() && now == self.last_time) {
            self.last_cwnd = cwnd;
            self.last_time = now;
            let start = match self.epoch_start {
                Some(e) => e,
                None => {
                    self.epoch_start = Some(now);
                    self.ack_cnt = acked;
                    self.tcp_cwnd = cwnd;
                    if self.last_max <= cwnd {
                        self.k = 0;
                        self.origin = cwnd;
                    } else {
                        self.k = icbrt(CUBE_FACTOR * (self.last_max - cwnd) as u64);
                        self.origin = self.last_max;
                    }
                    now
                }
            };
            let delay_jiffies = (self.delay_min_us * HZ).div_ceil(1_000_000);
            let t = ((now - start + delay_jiffies) << BICTCP_HZ) / HZ;
            let offs = t.abs_diff(self.k);
            let delta = ((CUBE_RTT_SCALE as u128 * (offs as u128).pow(3)) >> (10 + 3 * BICTCP_HZ)) as u64;
            let target =
                if t < self.k { (self.origin as u64).saturating_sub(delta) } else { self.origin as u64 + delta };
            self.cnt = if target > cwnd as u64 { (cwnd as u64 / (target - cwnd as u64)) as u32 } else { 100 * cwnd };
            // While W_max is unknown, at least 5 % a round trip.
            if self.last_max == 0 && self.cnt > 20 {
                self.cnt = 20;
            }
        }
        let per = ((cwnd * FRIENDLY_SCALE) >> 3).max(1);
        while self.ack_cnt > per {
            self.ack_cnt -= per;
            self.tcp_cwnd += 1;
        }
        if self.tcp_cwnd > cwnd {
            self.cnt = self.cnt.min(cwnd / (self.tcp_cwnd - cwnd));
        }
        self.cnt = self.cnt.max(2);
    }

    /// `cubictcp_recalc_ssthresh` at a loss with the window at `cwnd` (whole): the
    /// stage ends, W_max with fast convergence; returns ssthresh.
    pub fn on_loss(&mut self, cwnd: u32, fast_convergence: bool) -> u32 {
        self.epoch_start = None;
        self.cwnd_cnt = 0;
        self.last_max = if cwnd < self.last_max && fast_convergence {
            (cwnd as u64 * (BETA_SCALE + BETA) / (2 * BETA_SCALE)) as u32
        } else {
            cwnd
        };
        ((cwnd as u64 * BETA / BETA_SCALE) as u32).max(2)
    }

    /// A timeout (`cubictcp_state` entering CA_Loss): everything is forgotten, W_max too.
    pub fn reset(&mut self) {
        *self = LinuxAvoidance::default();
    }

    /// K in seconds, for the metrics.
    pub fn k_seconds(&self) -> f64 {
        self.k as f64 / (1u64 << BICTCP_HZ) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = 1_000_000;

    /// A stage that began at jiffy 0 with `cwnd`, W_max `last_max`, delay_min `dmin_ms`.
    fn stage(cwnd: u32, last_max: u32, dmin_ms: u64) -> LinuxAvoidance {
        let mut a = LinuxAvoidance { last_max, delay_min_us: dmin_ms * 1000, ..Default::default() };
        a.update(0, cwnd, 0);
        a
    }

    /// The kernel's vectors (docs/algorithms/cubic.md): K for W_max - cwnd = 30 is 4316
    /// (4.215 s); then, 1 s into the stage at 70 segments with W_max 100 and delay_min
    /// 100 ms, cnt 3; at 3 s and 95 segments cnt 19; at 5 s and 101 the plateau, 10100.
    /// Time here is in jiffies of HZ 250, so t = 1.1 s is 1126 as at HZ 1000.
    #[test]
    fn kernel_vectors_c0_to_c3() {
        assert_eq!(icbrt(CUBE_FACTOR * 30), 4316);
        let mut a = stage(70, 100, 100);
        assert_eq!(a.k, 4316);
        a.update(HZ, 70, 0);
        assert_eq!(a.cnt, 3);
        a.update(3 * HZ, 95, 0);
        assert_eq!(a.cnt, 19);
        a.update(5 * HZ, 101, 0);
        assert_eq!(a.cnt, 10100);
    }

    /// C4: W_max 20, a stage at 14 segments, delay_min 50 ms, 250 ms in and 90 segments
    /// acknowledged: the curve says cnt 7, the Reno estimate (one segment per 26) is 3
    /// ahead, so cnt 14 / 3 = 4; with 20 acknowledged it stays 7. C5: W_max unknown,
    /// cnt at most 20.
    #[test]
    fn kernel_vectors_c4_and_c5() {
        let mut a = stage(14, 20, 50);
        a.update(HZ / 4, 14, 90);
        assert_eq!((a.tcp_cwnd, a.cnt), (17, 4));
        let mut b = stage(14, 20, 50);
        b.update(HZ / 4, 14, 20);
        assert_eq!((b.tcp_cwnd, b.cnt), (14, 7));
        let mut c = stage(50, 0, 50);
        c.update(HZ, 50, 0);
        assert_eq!(c.cnt, 20);
    }

    /// C1 and C6: a first loss at 100 keeps 70 and W_max 100; a loss at 90 below W_max
    /// 100 keeps 63 and W_max 76 (fast convergence). A timeout forgets W_max.
    #[test]
    fn loss_and_timeout() {
        let mut a = LinuxAvoidance::default();
        assert_eq!((a.on_loss(100, true), a.last_max), (70, 100));
        assert_eq!((a.on_loss(90, true), a.last_max), (63, 76));
        a.reset();
        assert_eq!(a.last_max, 0);
    }

    /// tcp_cong_avoid_ai: one segment per `cnt` acknowledged, the remainder kept, and an
    /// ACK covering several `cnt`s adds several segments.
    #[test]
    fn increase_by_whole_cnts() {
        let mut a = stage(70, 100, 100);
        let mut w = 70;
        for i in 0..6 {
            w = a.grow(HZ * 4_000_000 + i, w, 1); // 1 s in (4 ms jiffies): cnt 3
        }
        assert_eq!(w, 72);
        let w2 = a.grow(HZ * 4_000_000 + 10, w, 9);
        assert!(w2 >= 74, "{w2}");
    }

    /// Samples within a second of a stage's start do not lower delay_min.
    #[test]
    fn delay_min_skips_the_first_second() {
        let mut a = LinuxAvoidance::default();
        a.sample(0, 80 * MS);
        assert_eq!(a.delay_min_us, 80_000);
        a.update(0, 10, 0); // a stage starts at jiffy 0
        a.sample(500 * MS, 60 * MS);
        assert_eq!(a.delay_min_us, 80_000);
        a.sample(1100 * MS, 60 * MS);
        assert_eq!(a.delay_min_us, 60_000);
    }
}
