//! LIA, Linked Increases (RFC 6356), with the phi family of its original design.
//!
//! Per acked segment on subflow r in congestion avoidance the window grows by
//! `min(w_r^(1-phi) * max_s(w_s^phi / rtt_s^2) / (sum_i w_i/rtt_i)^2, 1 / w_r)`.
//! With phi = 1 this is RFC 6356's `min(alpha / w_total, 1 / w_r)` with
//! `alpha = w_total * max_s(w_s/rtt_s^2) / (sum_i w_i/rtt_i)^2`. The decrease is
//! Reno's halving. See docs/algorithms/lia.md for the derivation of the phi form.
//!
//! Computed as a denominator `N_r` (increase `acked / max(N_r, w_r)`) through
//! `s = sum_i w_i rtt_b / rtt_i` where b is the best path: one subflow then gives
//! `N = w` exactly, i.e. Reno bit for bit.

use super::base::{argmax, scaled_sum, Path};
use super::window::{Coupled, CouplingRule};
use crate::params::{param, Info, INIT_CWND};
use crate::Controller;
use crate::{AckEvent, CongestionEvent};

// ---- registry entry and builder (listed in mod.rs) ----

pub const INFO: Info = Info::new(
    "lia",
    "Linked Increases (RFC 6356) with the phi family of Raiciu/Wischik; Reno halving",
    "docs/algorithms/lia.md",
    &[
        INIT_CWND,
        param(
            "phi",
            1.0,
            0.0,
            2.0,
            "family parameter: 1 = RFC 6356, 0 = fully coupled direction, 2 = weighted uncoupled",
        ),
    ],
);

pub fn build(p: &dyn Fn(&str) -> f64) -> Controller {
    Controller::Lia(Lia::new(p("init_cwnd"), p("phi")))
}

/// LIA's coupling rule.
#[derive(Clone, Debug)]
pub struct LiaRule {
    /// Family parameter in [0, 2]; 1 is RFC 6356.
    pub phi: f64,
    /// Per subflow, the quotients of the last `increase` (phi = 1), reused while
    /// their operands are unchanged (`Quotients`).
    memo: Vec<Quotients>,
    /// The best path the last full evaluation of `rfc_denominator` found (and
    /// `Seen` in `memo` the operands it found it with), while `kept_denominator`
    /// may reuse it.
    best: Option<usize>,
}

impl LiaRule {
    pub fn new(phi: f64) -> LiaRule {
        LiaRule { phi, memo: Vec::new(), best: None }
    }
}

/// A quotient of two doubles `a`, `b` (`a / b`, or `a / (b * b)`), kept with their
/// bits. The same operations on the same doubles give the same bits (IEEE 754
/// arithmetic is correctly rounded), so while neither operand changed the stored
/// value is exactly what computing it again would give.
#[derive(Clone, Copy, Debug)]
struct Quotient {
    a: u64,
    b: u64,
    q: f64,
}

impl Quotient {
    /// 1 / 1 = 1 / (1 * 1) = 1: a true entry to start from.
    const ONE: Quotient = Quotient { a: 0x3ff0_0000_0000_0000, b: 0x3ff0_0000_0000_0000, q: 1.0 };

    #[inline]
    fn get(&mut self, a: f64, b: f64, f: impl FnOnce(f64, f64) -> f64) -> f64 {
        if a.to_bits() != self.a || b.to_bits() != self.b {
            *self = Quotient { a: a.to_bits(), b: b.to_bits(), q: f(a, b) };
        }
        self.q
    }
}

/// A subflow's two quotients in `denominator`: its key `w / (rtt * rtt)` and its
/// ratio `rtt_b / rtt`. When the ACKs come mostly on one subflow, the others'
/// are found unchanged.
#[derive(Clone, Copy, Debug)]
struct Quotients {
    key: Quotient,
    ratio: Quotient,
    seen: Seen,
}

impl Quotients {
    const ONE: Quotients = Quotients { key: Quotient::ONE, ratio: Quotient::ONE, seen: Seen::NONE };
}

/// A subflow's window and RTT as the last full evaluation of `rfc_denominator`
/// read them, and its term `w * rtt_b / rtt` of the sum then (not the best path's).
#[derive(Clone, Copy, Debug)]
struct Seen {
    cwnd: f64,
    srtt: u64,
    term: f64,
}

impl Seen {
    /// Matches no eligible subflow (srtt 0).
    const NONE: Seen = Seen { cwnd: 0.0, srtt: 0, term: 0.0 };
}

/// LIA: its rule over the shared per-subflow driver.
pub type Lia = Coupled<LiaRule>;

impl Lia {
    pub fn new(init_cwnd: f64, phi: f64) -> Lia {
        Coupled::with_rule(init_cwnd, LiaRule::new(phi))
    }

    /// `N_r`: the subflow grows by `acked / N_r` in congestion avoidance.
    pub fn denominator(&self, r: usize) -> f64 {
        denominator(&self.paths, self.rule.phi, r)
    }

    /// RFC 6356's alpha (phi = 1 form), for tests and traces.
    pub fn alpha(&self) -> f64 {
        alpha(&self.paths)
    }
}

/// `N_r` over the table `paths` (see the module comment).
#[inline]
pub fn denominator(paths: &[Path], phi: f64, r: usize) -> f64 {
    let me = &paths[r];
    if !me.eligible() {
        return me.cwnd; // no RTT yet: uncoupled Reno increase
    }
    let b = if phi == 1.0 {
        argmax(paths.iter(), |p| p.cwnd / (p.srtt * p.srtt))
    } else {
        argmax(paths.iter(), |p| p.cwnd.powf(phi) / (p.srtt * p.srtt))
    };
    let Some(b) = b else { return me.cwnd };
    let pb = &paths[b];
    let s = scaled_sum(pb.srtt, paths.iter());
    // numerator w_r^(1-phi) * w_b^phi (just w_b when phi = 1)
    let num = if phi == 1.0 { pb.cwnd } else { me.cwnd.powf(1.0 - phi) * pb.cwnd.powf(phi) };
    let n = s * (s / num);
    if n.is_finite() && n > me.cwnd {
        n
    } else {
        me.cwnd
    }
}

/// `denominator` for phi other than 1, out of line: inlined, its powers cost the
/// usual increase (`kept_denominator`) registers.
#[inline(never)]
fn family_denominator(paths: &[Path], phi: f64, r: usize) -> f64 {
    denominator(paths, phi, r)
}

/// `denominator` for phi = 1 where `kept_denominator` does not apply (out of line:
/// the ACKs that take it are few), with the quotients of subflows whose window and RTT
/// did not change since the last call taken from `memo` (one per subflow): the same
/// operations on the same operands in the same order, so the same bits. And the
/// best path's own ratio `rtt_b / rtt_b` is 1 exactly (x / x = 1 for every finite
/// x > 0, which an eligible subflow's RTT is), so `w_b` enters the sum as it is.
#[inline(never)]
fn rfc_denominator(paths: &[Path], memo: &mut [Quotients], last_best: &mut Option<usize>, r: usize) -> f64 {
    let me = &paths[r];
    if !me.eligible() {
        return me.cwnd;
    }
    // The best path kept for `r` is most often still the best (`r`'s RTT moved): its
    // key against the others' then decides, without the scan's orders.
    let best =
        if last_best.take() == Some(r) && still_best(paths, memo, r) { Some(r) } else { argmax_key(paths, memo) };
    let Some(b) = best else { return me.cwnd };
    *last_best = Some(b);
    let pb = &paths[b];
    // `scaled_sum(pb.srtt, paths)`.
    let mut s = 0.0;
    for (i, (p, m)) in paths.iter().zip(memo.iter_mut()).enumerate() {
        // An ineligible subflow's term is +0, and s + 0 = s (s is never -0).
        let term = if !p.eligible() {
            0.0
        } else if i == b {
            p.cwnd
        } else {
            p.cwnd * m.ratio.get(pb.srtt, p.srtt, |x, y| x / y)
        };
        s += term;
        m.seen = Seen { cwnd: p.cwnd, srtt: p.srtt.to_bits(), term };
    }
    capped(s * (s / pb.cwnd), me.cwnd)
}

/// `rfc_denominator`'s argmax of w / rtt^2 over the eligible subflows, ties to the
/// first (`argmax`), with the kept keys.
#[inline]
fn argmax_key(paths: &[Path], memo: &mut [Quotients]) -> Option<usize> {
    let mut best: Option<Key> = None;
    for (i, p) in paths.iter().enumerate() {
        if !p.eligible() {
            continue;
        }
        let mut k = Key::new(i, p, &memo[i]);
        let Some(bk) = &mut best else {
            best = Some(k);
            continue;
        };
        let greater = match (k.q, bk.q) {
            (Some(x), Some(y)) => x > y,
            (Some(x), None) => above(x, bk).unwrap_or_else(|| x > bk.value(memo)),
            (None, Some(y)) => above(y, &k).map_or_else(|| k.value(memo) > y, |y_above| !y_above),
            (None, None) => k.value(memo) > bk.value(memo),
        };
        if greater {
            best = Some(k);
        }
    }
    best.map(|k| k.i)
}

/// Whether eligible subflow `r` is `argmax_key`'s answer, the first eligible one with
/// the greatest key `w / (rtt * rtt)`, from the keys themselves (kept in `memo`, else
/// computed and kept): every eligible subflow before `r` has a smaller key, every one
/// after it none greater. False when a key is NaN (no order to answer from).
#[inline]
fn still_best(paths: &[Path], memo: &mut [Quotients], r: usize) -> bool {
    let key = |p: &Path, m: &mut Quotients| m.key.get(p.cwnd, p.srtt, |w, rtt| w / (rtt * rtt));
    let kr = key(&paths[r], &mut memo[r]);
    for (i, (p, m)) in paths.iter().zip(memo.iter_mut()).enumerate() {
        if i == r || !p.eligible() {
            continue;
        }
        let k = key(p, m);
        if !(if i < r { k < kr } else { k <= kr }) {
            return false;
        }
    }
    true
}

/// `N_r` from the denominator `n` before its cap: `w_r` when `n` is not a finite
/// number above it.
#[inline]
fn capped(n: f64, w: f64) -> f64 {
    if n.is_finite() && n > w {
        n
    } else {
        w
    }
}

/// `rfc_denominator` without the argmax, when the last full evaluation's best
/// path `b` is `r`, whose window did not shrink since (`seen`), and no other input
/// changed (every other subflow's window and RTT, `r`'s RTT: the same bits, so `r` is
/// still eligible). Then
/// `b` is still the argmax: `w_b / rtt_b^2` did not decrease (a rounded division
/// is monotone in its numerator, for a finite positive one) and the other keys are
/// the same, so the scan for the first greatest key ends on `b` again. And every
/// other term of the sum is the one kept, added in the same order: the same bits.
/// None when it does not apply.
#[inline]
fn kept_denominator(paths: &[Path], memo: &mut [Quotients], last_best: Option<usize>, r: usize) -> Option<f64> {
    if last_best != Some(r) || memo.len() != paths.len() {
        return None;
    }
    let me = &paths[r];
    let seen = &memo[r].seen;
    let grew = me.cwnd >= seen.cwnd && seen.cwnd > 0.0 && me.cwnd <= f64::MAX;
    if !grew || me.srtt.to_bits() != seen.srtt {
        return None;
    }
    let mut s = 0.0;
    for (i, (p, m)) in paths.iter().zip(memo.iter()).enumerate() {
        if i == r {
            s += p.cwnd;
        } else if p.cwnd.to_bits() != m.seen.cwnd.to_bits() || p.srtt.to_bits() != m.seen.srtt {
            return None;
        } else if p.eligible() {
            s += m.seen.term;
        }
    }
    memo[r].seen.cwnd = me.cwnd;
    Some(capped(s * (s / me.cwnd), me.cwnd))
}

/// A subflow's key `w / (rtt * rtt)` in `rfc_denominator`'s argmax: the kept
/// quotient when its operands did not change, else its operands, divided only when
/// a comparison cannot do without (`above`). The subflow that just took an ACK has
/// a new window, and its key is then rarely needed for more than an order.
#[derive(Clone, Copy)]
struct Key {
    i: usize,
    w: f64,
    rtt: f64,
    q: Option<f64>,
}

impl Key {
    #[inline]
    fn new(i: usize, p: &Path, m: &Quotients) -> Key {
        let kept = p.cwnd.to_bits() == m.key.a && p.srtt.to_bits() == m.key.b;
        Key { i, w: p.cwnd, rtt: p.srtt, q: kept.then_some(m.key.q) }
    }

    /// The quotient, computed (and kept) on first need.
    #[inline]
    fn value(&mut self, memo: &mut [Quotients]) -> f64 {
        let (w, rtt) = (self.w, self.rtt);
        *self.q.get_or_insert_with(|| memo[self.i].key.get(w, rtt, |w, rtt| w / (rtt * rtt)))
    }
}

/// Whether `x > w / (rtt * rtt)` (the rounded quotient), when the product
/// `x * rtt * rtt` against `w` decides it: apart by more than a relative 1e-9, far
/// beyond the roundings on either side (of `rtt * rtt` as the quotient rounds it too,
/// of the product and of the quotient: 2^-53 each), the order of the exact values is
/// that of the rounded ones. None when too close, or for operands that are not
/// positive normal numbers (zeros, subnormals, infinities, NaN).
#[inline]
fn above(x: f64, k: &Key) -> Option<bool> {
    let rr = k.rtt * k.rtt;
    let p = x * rr;
    // A positive normal number, as two comparisons (`is_normal` masks the exponent).
    let normal = |v: f64| (f64::MIN_POSITIVE..=f64::MAX).contains(&v);
    if !(normal(x) && normal(rr) && normal(p) && normal(k.w)) {
        return None;
    }
    if p > k.w * (1.0 + 1e-9) {
        Some(true)
    } else if p < k.w * (1.0 - 1e-9) {
        Some(false)
    } else {
        None
    }
}

/// RFC 6356's alpha over the eligible subflows (NaN while none has an RTT).
pub fn alpha(paths: &[Path]) -> f64 {
    let mut best: f64 = 0.0;
    let (mut sum_x, mut w_total) = (0.0, 0.0);
    for p in paths.iter().filter(|p| p.eligible()) {
        best = best.max(p.cwnd / (p.srtt * p.srtt));
        sum_x += p.rate();
        w_total += p.cwnd;
    }
    w_total * best / (sum_x * sum_x)
}

impl CouplingRule for LiaRule {
    type Sub = Path;
    fn new_subflow(&mut self, init_cwnd: f64) -> Path {
        self.memo.push(Quotients::ONE);
        self.best = None;
        Path::new(init_cwnd)
    }
    #[inline]
    fn increase(&mut self, subs: &mut [Path], sf: usize, left: f64, _ev: &AckEvent) {
        // A best path is kept only for phi = 1 (`rfc_denominator` keeps it).
        let n = match kept_denominator(subs, &mut self.memo, self.best, sf) {
            Some(n) => n,
            None if self.phi == 1.0 && self.memo.len() == subs.len() => {
                rfc_denominator(subs, &mut self.memo, &mut self.best, sf)
            }
            None => family_denominator(subs, self.phi, sf),
        };
        subs[sf].cwnd += left / n;
    }
    fn decrease(&mut self, subs: &mut [Path], sf: usize, ev: &CongestionEvent) {
        subs[sf].halve(ev.kind);
    }
    /// `alpha` (connection) and `increase`, the per-segment increase 1/N_r.
    fn metrics(&self, subs: &[Path], sf: usize, out: &mut dyn FnMut(&'static str, f64)) {
        out("alpha", alpha(subs));
        out("increase", 1.0 / denominator(subs, self.phi, sf));
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;
    use crate::CongestionControl;

    /// Two (or more) subflows with set windows and RTTs (ms), in CA.
    fn lia(phi: f64, flows: &[(f64, f64)]) -> Lia {
        let mut c = Lia::new(10.0, phi);
        for &(w, rtt) in flows {
            let i = c.add_subflow(0);
            c.paths[i] = path(w, rtt);
        }
        c
    }

    #[test]
    fn one_subflow_is_reno() {
        assert_reno_equivalent(|| Box::new(Lia::new(10.0, 1.0)), 1);
    }

    #[test]
    fn alpha_two_subflows_hand_computed() {
        // w = (10, 20), rtt = (100 ms, 200 ms): x = (100, 100), w/rtt^2 = (1000, 500).
        // alpha = 30 * 1000 / 200^2 = 0.75; per-segment increase alpha/30 = 1/40.
        let c = lia(1.0, &[(10.0, 100.0), (20.0, 200.0)]);
        assert!((c.alpha() - 0.75).abs() < 1e-12);
        assert!((c.denominator(0) - 40.0).abs() < 1e-9);
        assert!((c.denominator(1) - 40.0).abs() < 1e-9);
        // Capped by 1/w_r: a big window on a slow path next to a fast one.
        // w/rtt^2 = (1e5, 50), sum x = 1050: alpha/w_total = 1e5/1050^2 = 0.0907 > 1/50,
        // so subflow 1 grows by 1/50 (Reno) while subflow 0 gets 1/11.025.
        let c = lia(1.0, &[(10.0, 10.0), (50.0, 1000.0)]);
        assert_eq!(c.denominator(1), 50.0);
        assert!((c.denominator(0) - 11.025).abs() < 1e-9);
    }

    #[test]
    fn kernel_vectors_precise_form() {
        // Kernel test vectors L1-L4 (an integer model of the out-of-tree Linux MPTCP
        // mptcp_coupled.c), "ideal" column: per-segment 1/N.
        // srtt_us raw 800000 = 100 ms etc. (raw is 8x microseconds).
        let cases: &[(&[(f64, f64)], f64)] = &[
            (&[(10.0, 100.0), (10.0, 100.0)], 40.0), // L1 (kernel: +1 per 41 ACKs)
            (&[(40.0, 10.0), (20.0, 50.0)], 48.40),  // L2 (kernel N 48)
            (&[(10.0, 100.0), (10.0, 200.0)], 22.5), // L3 (kernel 91: best-path quirk)
            (&[(10.0, 200.0), (10.0, 100.0)], 22.5), // L3' (kernel 22)
            (&[(100.0, 100.0)], 100.0),              // L4 (kernel 102)
        ];
        for (flows, n) in cases {
            let c = lia(1.0, flows);
            for r in 0..flows.len() {
                let got = c.denominator(r);
                assert!((got - n).abs() < 0.01, "{flows:?} r={r}: {got} vs {n}");
            }
        }
    }

    #[test]
    fn phi_family_endpoints() {
        // Equal paths, equal windows w: phi in {0, 1, 2} all give 1/(n^2 w) ... per
        // segment, n = 2: the family agrees when the paths are symmetric.
        for phi in [0.0, 0.5, 1.0, 1.5, 2.0] {
            let c = lia(phi, &[(10.0, 50.0), (10.0, 50.0)]);
            assert!((c.denominator(0) - 40.0).abs() < 1e-9, "phi {phi}");
        }
        // Asymmetric windows, same RTT: phi = 2 gives w_r^-1 max(w_s^2)/(sum w)^2,
        // phi = 0 gives w_r / (sum w)^2 (the fully coupled direction).
        let c = lia(2.0, &[(10.0, 50.0), (30.0, 50.0)]);
        // r = 0: 1/10 * 900 / 1600 = 0.05625 -> N = 17.78; r = 1: 1/30*900/1600 -> 53.3
        assert!((c.denominator(0) - 1600.0 / 90.0).abs() < 1e-9);
        assert!((c.denominator(1) - 1600.0 / 30.0).abs() < 1e-9);
        let c = lia(0.0, &[(10.0, 50.0), (30.0, 50.0)]);
        assert!((c.denominator(0) - 160.0).abs() < 1e-9);
        assert!((c.denominator(1) - 1600.0 / 30.0).abs() < 1e-9);
    }

    #[test]
    fn total_increase_at_most_one_reno_on_best_path() {
        // RFC 6356 goal: per unit time the connection's total window grows by at
        // most 1/rtt_min (one Reno on the fastest path) and its throughput by at most
        // 1/rtt_min^2. Random states, phi = 1.
        let mut rng = mpcc_core::Rng::stream(7, 1);
        for _ in 0..2000 {
            let n = 1 + (rng.next_u64() % 4) as usize;
            let flows: Vec<(f64, f64)> =
                (0..n).map(|_| (1.0 + 200.0 * rng.uniform(), 5.0 + 400.0 * rng.uniform())).collect();
            let c = lia(1.0, &flows);
            let rmin = flows.iter().map(|f| f.1 / 1e3).fold(f64::INFINITY, f64::min);
            let (mut dw, mut dx) = (0.0, 0.0);
            for (r, &(w, rtt)) in flows.iter().enumerate() {
                let acks_per_s = w / (rtt / 1e3);
                dw += acks_per_s / c.denominator(r);
                dx += acks_per_s / c.denominator(r) / (rtt / 1e3);
            }
            assert!(dw <= 1.0 / rmin * (1.0 + 1e-9), "{flows:?}: {dw} > {}", 1.0 / rmin);
            assert!(dx <= 1.0 / (rmin * rmin) * (1.0 + 1e-9), "{flows:?}");
        }
        // And it is tight for one subflow: exactly Reno's one segment per RTT.
        let c = lia(1.0, &[(37.0, 80.0)]);
        assert!(((37.0 / 0.08) / c.denominator(0) - 1.0 / 0.08).abs() < 1e-9);
    }

    /// What `increase` computes for phi = 1.
    fn lia_denominator(paths: &[Path], memo: &mut [Quotients], best: &mut Option<usize>, r: usize) -> f64 {
        kept_denominator(paths, memo, *best, r).unwrap_or_else(|| rfc_denominator(paths, memo, best, r))
    }

    /// The increase's denominator with the kept quotients and best path
    /// (`rfc_denominator`, `kept_denominator`) is bit for bit `denominator`'s, over
    /// a walk of states where one subflow's window or RTT changes at a time
    /// (sometimes none, sometimes to equal RTTs or out of the sums), as ACKs change
    /// them.
    #[test]
    fn kept_quotients_give_the_same_bits() {
        let mut rng = mpcc_core::Rng::stream(11, 3);
        for n in 1..=4 {
            let mut paths: Vec<Path> = (0..n).map(|i| path(10.0 + i as f64, 20.0 + 30.0 * i as f64)).collect();
            let mut memo = vec![Quotients::ONE; n];
            let mut best = None;
            for _ in 0..20_000 {
                let i = (rng.next_u64() % n as u64) as usize;
                match rng.next_u64() % 9 {
                    0 => {}
                    1 => paths[i].srtt = paths[(i + 1) % n].srtt,
                    2 => paths[i].srtt = if rng.uniform() < 0.5 { 0.0 } else { 0.01 },
                    3 | 4 => paths[i].srtt = 0.001 + 0.5 * rng.uniform(),
                    // A key equal to another's, or within a few ulps (`above` cannot
                    // decide: the quotients are compared).
                    5 if paths[(i + 1) % n].eligible() => {
                        let o = &paths[(i + 1) % n];
                        let near = 1.0 + (rng.next_u64() % 5) as f64 * f64::EPSILON - 2.0 * f64::EPSILON;
                        paths[i].cwnd = o.cwnd / (o.srtt * o.srtt) * (paths[i].srtt * paths[i].srtt) * near;
                    }
                    _ => paths[i].cwnd += rng.uniform() * 3.0 - 1.0,
                }
                let r = (rng.next_u64() % n as u64) as usize;
                // Runs of ACKs on one subflow, each growing it as `increase` does
                // (`kept_denominator`'s case), between the changes above.
                for _ in 0..rng.next_u64() % 4 {
                    let (kept, plain) = (lia_denominator(&paths, &mut memo, &mut best, r), denominator(&paths, 1.0, r));
                    assert_eq!(kept.to_bits(), plain.to_bits(), "{paths:?} r={r}");
                    paths[r].cwnd += 1.0 / kept;
                }
                let (kept, plain) = (lia_denominator(&paths, &mut memo, &mut best, r), denominator(&paths, 1.0, r));
                assert_eq!(kept.to_bits(), plain.to_bits(), "{paths:?} r={r}");
            }
        }
    }
    #[test]
    fn halves_on_loss() {
        let mut c = lia(1.0, &[(20.0, 50.0), (10.0, 50.0)]);
        c.on_congestion(0, &cong(crate::CongestionKind::Loss));
        assert_eq!((c.cwnd(0), c.ssthresh(0), c.cwnd(1)), (10.0, 10.0, 10.0));
        c.on_congestion(1, &cong(crate::CongestionKind::Timeout));
        assert_eq!((c.cwnd(1), c.ssthresh(1)), (1.0, 5.0));
    }

    #[test]
    fn metrics_are_alpha_and_the_increase() {
        let c = lia(1.0, &[(10.0, 100.0), (20.0, 200.0)]);
        let m = crate::metrics_of(&c, 1);
        assert_eq!(m.iter().map(|x| x.0).collect::<Vec<_>>(), ["alpha", "increase"]);
        assert!((m[0].1 - 0.75).abs() < 1e-12 && (m[1].1 - 1.0 / 40.0).abs() < 1e-12, "{m:?}");
    }
}
