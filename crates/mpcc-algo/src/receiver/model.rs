//! The parts of the thesis's chapter 3 model that R-TSC evaluates at run time,
//! ported from `python/mpcc/model/` (optimize.py, lia.py, delay.py): the
//! delay-minimising split (3.10) and the LIA window thresholds that realise it
//! (3.11-3.20). No allocation beyond small scratch vectors; called once per
//! estimation interval, never per packet.
//!
//! Units: rates in packets/s, T_p in seconds, windows in packets.

/// Eq. 3.1 (Kingman's bound on the send-buffer wait), (f/S)/(S-f) (1+C_a^2)/2.
pub fn send_buffer_delay(f: f64, s: f64, ca: f64) -> f64 {
    (f / s) / (s - f) * (1.0 + ca * ca) / 2.0
}

/// The split giving every subflow the forward delay `d` of (3.2),
/// x_r = c_r (1 - T_p,r / (d + T_p,r / 2)), 0 where even an idle subflow's T_p/2 exceeds d.
#[inline]
fn rate_at_delay(d: f64, c: f64, tp: f64) -> f64 {
    (c * (1.0 - tp / (d + tp / 2.0))).max(0.0)
}

/// The common forward delay at which the water-filling split sums to `s`.
fn delay_for_sum(s: f64, c: &[f64], tp: &[f64]) -> f64 {
    let sum = |d: f64| c.iter().zip(tp).map(|(&c, &t)| rate_at_delay(d, c, t)).sum::<f64>();
    let mut lo = tp.iter().cloned().fold(f64::INFINITY, f64::min) / 2.0;
    let mut hi = lo.max(1e-6) * 2.0;
    while sum(hi) < s && hi < 1e9 {
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if sum(mid) < s {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-13 * hi {
            break;
        }
    }
    0.5 * (lo + hi)
}

/// Eq. 3.10: the subflow rates minimising the delay bound (3.4),
/// `(f/S)/(S-f) (1+C_a^2)/2 + max_r (c_r T_p,r / (c_r - x_r) - T_p,r/2)` over
/// `f < S = sum x_r < sum c_r`, `0 <= x_r <= c_r`. For a given S the maximum is
/// least when every used subflow has the same forward delay (water-filling), so
/// the problem is one-dimensional and convex in S: a golden-section search (the
/// Python model uses Brent's bounded method on the same function). Writes x*
/// into `out` and returns the minimised bound, or None when f >= sum c (infeasible).
#[allow(clippy::neg_cmp_op_on_partial_ord)] // `!(f < cap)` also rejects NaN
pub fn minimize_delay(f: f64, c: &[f64], tp: &[f64], ca: f64, out: &mut [f64]) -> Option<f64> {
    let cap: f64 = c.iter().sum();
    if !(f < cap) || f <= 0.0 {
        return None;
    }
    let obj = |s: f64| send_buffer_delay(f, s, ca) + delay_for_sum(s, c, tp);
    let gap = cap - f;
    let (mut a, mut b) = (f + 1e-9 * gap, cap - 1e-9 * gap);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let (mut x1, mut x2) = (b - g * (b - a), a + g * (b - a));
    let (mut f1, mut f2) = (obj(x1), obj(x2));
    for _ in 0..200 {
        if b - a <= 1e-11 * cap {
            break;
        }
        if f1 < f2 {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - g * (b - a);
            f1 = obj(x1);
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + g * (b - a);
            f2 = obj(x2);
        }
    }
    let s = 0.5 * (a + b);
    let d = delay_for_sum(s, c, tp);
    for (o, (&c, &t)) in out.iter_mut().zip(c.iter().zip(tp)) {
        *o = rate_at_delay(d, c, t);
    }
    Some(send_buffer_delay(f, s, ca) + d)
}

/// Composite Gauss-Legendre rule on [0, 1]: `PANELS` panels of `ORDER` nodes,
/// as the Python model integrates (3.18)-(3.19).
#[derive(Clone, Debug)]
pub struct Quadrature {
    pub nodes: Vec<f64>,
    pub weights: Vec<f64>,
}

const PANELS: usize = 8;
const ORDER: usize = 16;

impl Quadrature {
    pub fn new() -> Quadrature {
        // Legendre nodes on [-1, 1] by Newton's method from Chebyshev guesses.
        let n = ORDER;
        let mut g = vec![0.0; n];
        let mut gw = vec![0.0; n];
        for i in 0..n {
            let mut x = (std::f64::consts::PI * (i as f64 + 0.75) / (n as f64 + 0.5)).cos();
            let mut dp = 0.0;
            for _ in 0..100 {
                let (mut p0, mut p1) = (1.0, x);
                for k in 2..=n {
                    let p2 = ((2 * k - 1) as f64 * x * p1 - (k - 1) as f64 * p0) / k as f64;
                    p0 = p1;
                    p1 = p2;
                }
                dp = n as f64 * (x * p1 - p0) / (x * x - 1.0);
                let dx = p1 / dp;
                x -= dx;
                if dx.abs() < 1e-16 {
                    break;
                }
            }
            g[i] = x;
            gw[i] = 2.0 / ((1.0 - x * x) * dp * dp);
        }
        let mut nodes = Vec::with_capacity(PANELS * ORDER);
        let mut weights = Vec::with_capacity(PANELS * ORDER);
        for p in 0..PANELS {
            for i in 0..n {
                nodes.push((p as f64 + (g[i] + 1.0) / 2.0) / PANELS as f64);
                weights.push(gw[i] / (2.0 * PANELS as f64));
            }
        }
        Quadrature { nodes, weights }
    }
}

impl Default for Quadrature {
    fn default() -> Self {
        Self::new()
    }
}

/// Mean rate and time-averaged RTT of one subflow over its loss cycle under LIA
/// (3.13-3.19, lia.py's `_subflow_cycle` with the pointwise maximum): window
/// from `beta w_loss` to `w_loss`, RTT max(T_p, w/c) (3.5), increase per RTT
/// alpha(w) = min(1, w max(w/T(w)^2, K) / (w/T(w) + X)^2) with the other
/// subflows held at total rate X and largest x_i/T_i equal to K.
pub fn lia_cycle(q: &Quadrature, c: f64, tp: f64, w_loss: f64, beta: f64, others: f64, k_others: f64) -> (f64, f64) {
    let alpha = |w: f64, inst: f64| {
        let k_own = inst * inst / w;
        (w * k_own.max(k_others) / ((inst + others) * (inst + others))).min(1.0)
    };
    let w_bdp = c * tp;
    let lo = beta * w_loss;
    let (mut tau1, mut sent1, mut tau2, mut rtt2) = (0.0, 0.0, 0.0, 0.0);
    if w_loss.min(w_bdp) > lo {
        let (a, b) = (lo, w_loss.min(w_bdp));
        for (u, wt) in q.nodes.iter().zip(&q.weights) {
            let w = a + (b - a) * u;
            let inv = (b - a) * wt / alpha(w, w / tp);
            tau1 += tp * inv;
            sent1 += w * inv;
        }
    }
    if w_loss > lo.max(w_bdp) {
        let (a, b) = (lo.max(w_bdp), w_loss);
        for (u, wt) in q.nodes.iter().zip(&q.weights) {
            let w = a + (b - a) * u;
            let inv = (b - a) * wt / alpha(w, c);
            tau2 += w / c * inv;
            rtt2 += (w / c) * (w / c) * inv;
        }
    }
    let total = tau1 + tau2;
    ((sent1 + c * tau2) / total, (tp * tau1 + rtt2) / total)
}

/// Eq. 3.20: window thresholds W_bar_r in [W_BDP,r, 2 W_BDP,r] at which LIA's
/// rates (3.11-3.19) equal the targets. The thesis searches all combinations
/// exhaustively; this solves the same fixed point directly: with the other
/// subflows at their target rates (the thesis's own decoupling, 3.15), each
/// subflow's rate is a function of its own threshold alone, found by bisection,
/// and the others' mean RTTs (which enter LIA's alpha) are refined by a few
/// Gauss-Seidel passes. When the targets are reachable, the thresholds make the
/// targets a fixed point of the LIA analysis, which is what (3.20) asks with
/// eps -> 0; when a target lies outside what the range gives, the threshold
/// stops at the end of the range (as the exhaustive search's best point does).
/// Writes W_bar into `out`.
pub fn window_thresholds(q: &Quadrature, target: &[f64], c: &[f64], tp: &[f64], beta: f64, out: &mut [f64]) {
    let n = c.len();
    let mut rtt: Vec<f64> = (0..n).map(|r| lia_cycle(q, c[r], tp[r], 1.5 * c[r] * tp[r], beta, 0.0, 0.0).1).collect();
    let total: f64 = target.iter().sum();
    for r in 0..n {
        out[r] = 1.5 * c[r] * tp[r];
    }
    for _pass in 0..4 {
        for r in 0..n {
            let others = total - target[r];
            let k_others = (0..n).filter(|&i| i != r).map(|i| target[i] / rtt[i]).fold(0.0, f64::max);
            let rate = |w: f64| lia_cycle(q, c[r], tp[r], w, beta, others, k_others);
            let (mut lo, mut hi) = (c[r] * tp[r], 2.0 * c[r] * tp[r]);
            if rate(lo).0 >= target[r] {
                out[r] = lo;
            } else if rate(hi).0 <= target[r] {
                out[r] = hi;
            } else {
                for _ in 0..50 {
                    let mid = 0.5 * (lo + hi);
                    if rate(mid).0 < target[r] {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                out[r] = 0.5 * (lo + hi);
            }
            rtt[r] = rate(out[r]).1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS_BITS: f64 = 1500.0 * 8.0;

    #[test]
    fn quadrature_integrates_polynomials_exactly() {
        let q = Quadrature::new();
        let s: f64 = q.nodes.iter().zip(&q.weights).map(|(x, w)| w * x.powi(7)).sum();
        assert!((s - 1.0 / 8.0).abs() < 1e-14, "{s}");
        assert!((q.weights.iter().sum::<f64>() - 1.0).abs() < 1e-14);
    }

    #[test]
    fn one_subflow_cycle_is_equation_3_9() {
        // alpha = 1 with one subflow: (3/4) c / (1 - r + r^2), r = W_BDP / W_loss.
        let q = Quadrature::new();
        let (c, tp) = (1000.0, 0.05);
        for w_loss in [60.0, 80.0, 99.0] {
            let r = c * tp / w_loss;
            let want = 0.75 * c / (1.0 - r + r * r);
            let (got, _) = lia_cycle(&q, c, tp, w_loss, 0.5, 0.0, 0.0);
            assert!((got - want).abs() < 1e-9 * c, "{w_loss}: {got} vs {want}");
        }
    }

    #[test]
    fn delay_optimum_matches_the_python_model() {
        // python/mpcc/model/optimize.py minimize_delay, (c0, c1) = (40, 12) Mbit/s,
        // T_p = 30 / 15 ms, f = 35.85 Mbit/s, in 1500-byte packets:
        // x* = [2274.74809529, 827.51821384] packets/s, bound 0.08785671778322912 s.
        let c = [40e6 / MSS_BITS, 12e6 / MSS_BITS];
        let mut x = [0.0; 2];
        let d = minimize_delay(35.85e6 / MSS_BITS, &c, &[0.03, 0.015], 1.0, &mut x).unwrap();
        assert!((x[0] - 2274.74809529).abs() < 1e-3, "{x:?}");
        assert!((x[1] - 827.51821384).abs() < 1e-3, "{x:?}");
        assert!((d - 0.08785671778322912).abs() < 1e-9, "{d}");
        assert!(minimize_delay(60e6 / MSS_BITS, &c, &[0.03, 0.015], 1.0, &mut x).is_none());
    }

    #[test]
    fn thresholds_match_the_python_exhaustive_search() {
        // optimize.window_thresholds(target, c, t_p, eps=1e-3 c, points=11,
        // refinements=6), which lia_rates confirms to 1e-6 relative.
        let q = Quadrature::new();
        let cases = [
            ([3333.33333333, 1000.0], [0.03, 0.015], [2833.33333333, 900.0], [118.08192, 19.61376]),
            ([1666.66666667, 416.66666667], [0.05, 0.05], [1500.0, 333.33333333], [107.05493333, 22.98146667]),
        ];
        for (c, tp, target, want) in cases {
            let mut w = [0.0; 2];
            window_thresholds(&q, &target, &c, &tp, 0.5, &mut w);
            for r in 0..2 {
                assert!((w[r] - want[r]).abs() < 0.003 * want[r], "{c:?}: {w:?} vs {want:?}");
            }
        }
        // Targets below what W_BDP gives clamp at W_BDP (the (40, 12) testbed optimum).
        let (c, tp) = ([40e6 / MSS_BITS, 12e6 / MSS_BITS], [0.03, 0.015]);
        let mut w = [0.0; 2];
        window_thresholds(&q, &[2274.748, 827.518], &c, &tp, 0.5, &mut w);
        assert!((w[0] - 100.0).abs() < 1e-9, "{w:?}");
        assert!(w[1] >= 15.0 && w[1] < 20.0, "{w:?}");
    }
}
