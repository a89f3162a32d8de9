//! wrr: weighted round-robin (Katevenis et al., "Weighted Round-Robin Cell
//! Multiplexing in a General-Purpose ATM Switch Chip", IEEE JSAC 9(8), 1991).
//! Each round, subflow i may send up to w_i segments, one subflow's turn after the
//! other; a subflow without window space passes its turn. A new round starts when
//! every subflow with space has spent its credit, at once, or, with `round` > 0,
//! not before `round` seconds after the last one: the connection then sends at
//! most sum(w) segments per round, and the scheduler asks to be woken
//! (`poll_at`) when the next round starts.

use super::{AppState, ConnState, Scheduler, Setup, SubflowDetail, SubflowState, OPPORTUNISTIC, PENALIZE};
use crate::ParamInfo;
use mpcc_core::params::Info;
use mpcc_core::Nanos;

const fn weight(name: &'static str, help: &'static str) -> ParamInfo {
    ParamInfo { name, default: 1.0, min: 1.0, max: 1000.0, help, open_min: false }
}

/// Weights of the first four subflows (segments per round; later subflows weigh 1).
pub const WEIGHTS: [ParamInfo; 4] = [
    weight("w0", "wrr's weight of subflow 0: segments per round"),
    weight("w1", "wrr's weight of subflow 1: segments per round"),
    weight("w2", "wrr's weight of subflow 2: segments per round"),
    weight("w3", "wrr's weight of subflow 3: segments per round"),
];

pub const ROUND: ParamInfo = ParamInfo {
    name: "round",
    default: 0.0,
    min: 0.0,
    max: 100.0,
    help: "wrr's shortest round, s; 0 (default): a new round as soon as the credits are spent",
    open_min: false,
};

pub const INFO: Info = Info::new(
    "wrr",
    "weighted round-robin: subflow i sends up to w_i segments per round, rounds at most every `round` s (Katevenis et al. 1991)",
    "docs/schedulers.md#wrr",
    &[WEIGHTS[0], WEIGHTS[1], WEIGHTS[2], WEIGHTS[3], ROUND, OPPORTUNISTIC, PENALIZE],
);

#[derive(Clone, Debug, PartialEq)]
pub struct Wrr {
    weights: Vec<u64>,
    /// Segments each subflow may still send this round.
    credit: Vec<u64>,
    /// The subflow whose turn it is.
    turn: usize,
    round: Nanos,
    /// The current round started at `started`; `now` is the send round's time.
    started: Nanos,
    now: Nanos,
    /// A pick waited for the next round: the wake-up it wants.
    wake: Option<Nanos>,
    blocked: bool,
}

impl Wrr {
    pub fn from_params(get: &impl Fn(&ParamInfo) -> f64, setup: &Setup) -> Wrr {
        let weights: Vec<u64> = (0..setup.n).map(|i| WEIGHTS.get(i).map_or(1, |p| get(p) as u64)).collect();
        Wrr {
            credit: weights.clone(),
            weights,
            turn: 0,
            round: (get(&ROUND) * 1e9).round() as Nanos,
            started: 0,
            now: 0,
            wake: None,
            blocked: false,
        }
    }

    /// The subflow whose turn it is or the next one with space and credit left.
    #[inline]
    fn next(&self, n: usize, ok: &impl Fn(usize) -> bool) -> Option<usize> {
        (0..n).map(|k| (self.turn + k) % n).find(|&i| self.credit[i] > 0 && ok(i))
    }
}

impl Scheduler for Wrr {
    #[inline]
    fn prepare(&mut self, now: Nanos, _app: impl Fn() -> AppState, _sub: impl Fn(usize) -> SubflowDetail) {
        self.now = now;
        self.blocked = false;
    }

    #[inline]
    fn pick(
        &mut self, n: usize, exclude: Option<usize>, _conn: ConnState, state: impl Fn(usize) -> SubflowState,
    ) -> Option<usize> {
        let ok = |i: usize| Some(i) != exclude && state(i).has_space();
        let i = match self.next(n, &ok) {
            Some(i) => i,
            // Every subflow with space has spent its credit: a new round, if due.
            None if (0..n).any(ok) => {
                if self.now < self.started + self.round {
                    self.blocked = true;
                    return None;
                }
                self.credit.copy_from_slice(&self.weights);
                self.started = self.now;
                self.next(n, &ok)?
            }
            None => return None,
        };
        self.credit[i] -= 1;
        // The turn stays until the credit is spent, then passes on.
        self.turn = if self.credit[i] == 0 { (i + 1) % n } else { i };
        Some(i)
    }

    #[inline]
    fn sent(&mut self, _now: Nanos, waiting: impl FnOnce() -> bool, _state: impl Fn(usize) -> SubflowState) {
        self.wake = (self.blocked && waiting()).then_some(self.started + self.round);
    }

    #[inline]
    fn poll_at(&self) -> Option<Nanos> {
        self.wake
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

    /// One send round at `now` of up to `k` segments; the subflows picked.
    fn round(s: &mut AnyScheduler, now: Nanos, k: usize, subs: &[SubflowState]) -> Vec<usize> {
        s.prepare(now, AppState::default, |i| SubflowDetail { state: subs[i], ..Default::default() });
        let picks: Vec<usize> = (0..k).map_while(|_| s.pick(subs.len(), None, ANY, |i| subs[i])).collect();
        s.sent(now, || picks.len() < k, |i| subs[i]);
        picks
    }

    #[test]
    fn weights_share_the_segments() {
        let subs = [st(10, 0, 100), st(50, 0, 100), st(20, 0, 100)];
        let mut s = build("wrr", &[("w0", 3.0), ("w1", 1.0), ("w2", 2.0)], 3).unwrap();
        assert_eq!(round(&mut s, 0, 12, &subs), vec![0, 0, 0, 1, 2, 2, 0, 0, 0, 1, 2, 2]);
        assert_eq!(s.poll_at(), None, "no timer without `round`");
        // A subflow without space passes its turn; the others keep their weights.
        let full = [subs[0], st(50, 100, 100), subs[2]];
        let mut s = build("wrr", &[("w0", 2.0)], 3).unwrap();
        assert_eq!(round(&mut s, 0, 6, &full), vec![0, 0, 2, 0, 0, 2]);
        // Excluded (a reinjection stuck on it) counts as no space.
        assert_eq!(s.pick(3, Some(0), ANY, |i| full[i]), Some(2));
        // Defaults: plain round-robin; a fifth subflow weighs 1.
        let five = [st(10, 0, 9); 5];
        assert_eq!(round(&mut build("wrr", NONE, 5).unwrap(), 0, 6, &five), vec![0, 1, 2, 3, 4, 0]);
    }

    #[test]
    fn a_round_waits_for_its_time_and_asks_to_be_woken() {
        let subs = [st(10, 0, 100), st(50, 0, 100)];
        let mut s = build("wrr", &[("w0", 2.0), ("round", 0.01)], 2).unwrap();
        // Three segments per 10 ms round: the rest waits for a wake-up at 10 ms.
        assert_eq!(round(&mut s, 0, 5, &subs), vec![0, 0, 1]);
        assert_eq!(s.poll_at(), Some(10 * MS));
        assert_eq!(round(&mut s, 4 * MS, 5, &subs), vec![], "an ACK before the round");
        assert_eq!(s.poll_at(), Some(10 * MS));
        assert_eq!(round(&mut s, 10 * MS, 2, &subs), vec![0, 0]);
        assert_eq!(s.poll_at(), None, "nothing left waiting");
        assert_eq!(round(&mut s, 12 * MS, 3, &subs), vec![1]);
        assert_eq!(s.poll_at(), Some(20 * MS));
        // Without window space no timer: an ACK brings the next send round.
        let full = [st(10, 100, 100), st(50, 100, 100)];
        assert_eq!(round(&mut s, 13 * MS, 3, &full), vec![]);
        assert_eq!(s.poll_at(), None);
    }
}
