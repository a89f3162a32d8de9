//! MPTCP packet schedulers: which subflow carries the next data segment.
//!
//! Sans-IO: a scheduler sees a snapshot of each subflow (smoothed RTT and its
//! variation, pipe, unacknowledged segments, whole-segment cwnd, whether it may
//! send) and of the connection (segments waiting to be sent, send window), and
//! answers with a subflow index or "wait". It runs once per segment, so the
//! family is an enum ([`AnyScheduler`], no dynamic dispatch), reads the subflows
//! through a closure and keeps any per-subflow state in a table sized when the
//! connection is built (no allocation, no hashing on the per-packet path).
//!
//! One file per scheduler, holding its registry entry (`INFO`), its builder
//! (`from_params`), its rule and its unit tests. Adding one: the file, one line in
//! `schedulers!` below, a section in docs/schedulers.md. A scheduler that wants
//! to be woken (a slot, a round) answers [`Scheduler::poll_at`]; one that paces its
//! subflows answers [`Scheduler::pacing_rate`] (the host paces); figures for the summary
//! come from [`Scheduler::metrics`]. The simulator names no scheduler.

pub mod state;

pub mod blest;
pub mod cdd;
pub mod ecf;
pub mod linger;
pub mod minrtt;
pub mod redundant;
pub mod roundrobin;
pub mod tsc;
pub mod wrr;

use crate::ParamInfo;
use mpcc_core::params::{Info, Params};
use mpcc_core::Nanos;
use std::collections::BTreeMap;

pub use state::{AckSample, AppState, ConnState, Setup, SubflowDetail, SubflowState};

/// A named figure of a scheduler for the run's summary.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Metric {
    /// A count (reported as an integer).
    Count(u64),
    Value(f64),
    /// The fraction of the connection's application delays at most this many
    /// seconds (the simulator holds the samples).
    AppDelayWithin(f64),
    /// Per subflow: the fraction of its RTT samples at most this many seconds.
    RttWithin(f64),
}

/// A packet scheduler. Everything but `pick` is optional; the connection calls,
/// per send round: `prepare`, then `pick` per segment (or `copy` per subflow when
/// `copies`), then `sent`, and schedules a wake-up at `poll_at`.
pub trait Scheduler {
    /// An ACK of subflow `a.sub` reached the sender.
    #[inline]
    fn on_ack(&mut self, _a: &AckSample) {}

    /// Before a send round, with the subflows in detail and the application's
    /// side of the send buffer (both read only if the scheduler calls them).
    #[inline]
    fn prepare(&mut self, _now: Nanos, _app: impl Fn() -> AppState, _sub: impl Fn(usize) -> SubflowDetail) {}

    /// The subflow among `0..n` (never `exclude`) that sends the next segment, or
    /// None if no eligible subflow has window space or the scheduler chooses to
    /// wait. Called with `n >= 2` ([`AnyScheduler::pick`] answers a single path).
    fn pick(
        &mut self, n: usize, exclude: Option<usize>, conn: ConnState, state: impl Fn(usize) -> SubflowState,
    ) -> Option<usize>;

    /// Whether the scheduler sends copies rather than splitting: each subflow
    /// with space then carries the DSN `copy` answers, instead of `pick` choosing
    /// one subflow per segment, and nothing needs reinjecting.
    #[inline]
    fn copies(&self) -> bool {
        false
    }

    /// With `copies`: the DSN subflow `i` sends next, given the DATA_ACK `una`,
    /// the next new DSN `nxt` and whether new data may be sent; None: nothing.
    /// The scheduler counts it as sent.
    #[inline]
    fn copy(&mut self, _i: usize, _una: u64, _nxt: u64, _has_new: bool) -> Option<u64> {
        None
    }

    /// After a send round; `waiting()`: data is still waiting to be sent (call it
    /// only when needed: it drops acknowledged reinjections from the queue).
    #[inline]
    fn sent(&mut self, _now: Nanos, _waiting: impl FnOnce() -> bool, _state: impl Fn(usize) -> SubflowState) {}

    /// When the scheduler next wants the connection to try sending (a slot or a
    /// round), None: only when an ACK, the host or the application brings something.
    #[inline]
    fn poll_at(&self) -> Option<Nanos> {
        None
    }

    /// Whether the scheduler, when one subflow alone has space, gives it every
    /// segment it can take, keeping no state of its choices (minrtt). The send round
    /// after an ACK may then give them to the acked subflow without asking while no
    /// other can have space (mpcc-sim's `Flow::push`).
    #[inline]
    fn picks_the_only_subflow_with_space(&self) -> bool {
        false
    }

    /// Whether the scheduler sets its subflows' pacing rates (`pacing_rate`): the
    /// connection then sends through the host's pacing (mpcc-sim's host.rs), as a
    /// socket with SO_MAX_PACING_RATE does. Asked once, when the connection is built.
    #[inline]
    fn paces(&self) -> bool {
        false
    }

    /// The pacing rate the scheduler asks for on subflow `sub`, segments per second
    /// (None: none). The host paces at the lower of this and the transport's own rate.
    #[inline]
    fn pacing_rate(&self, _sub: usize) -> Option<f64> {
        None
    }

    /// Subflow `sub` left the connection; it stays unusable in every snapshot.
    #[inline]
    fn on_subflow_removed(&mut self, _sub: usize) {}

    /// Figures for the run's summary, by name (names carry the scheduler's
    /// prefix), handed to `out` as the controllers' `metrics` do.
    fn metrics(&self, _out: &mut dyn FnMut(&'static str, Metric)) {}
}

/// The one wake-up event a connection keeps pending for its scheduler: after a
/// send round the simulator arms `poll_at()`, and an event that fires is acted on
/// only if it is still the pending one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wake {
    pending: Option<Nanos>,
}

impl Wake {
    /// The event to schedule for the wake-up `at`; None if one at or before it is
    /// already pending (it will ask again then).
    #[inline]
    pub fn arm(&mut self, at: Option<Nanos>) -> Option<Nanos> {
        let t = at?;
        if self.pending.is_some_and(|p| p <= t) {
            return None;
        }
        self.pending = Some(t);
        Some(t)
    }

    /// An event fired at `now`: whether it is the pending one (not superseded).
    #[inline]
    pub fn fire(&mut self, now: Nanos) -> bool {
        let due = self.pending == Some(now);
        if due {
            self.pending = None;
        }
        due
    }
}

/// Opportunistic retransmission (Raiciu et al., "How Hard Can It Be? Designing and
/// Implementing a Deployable Multipath TCP", NSDI 2012, section 4.2): when the
/// receive window blocks new data, the subflow with space re-sends the data at the
/// window's left edge that a slower subflow holds. Applied by the connection,
/// whatever the scheduler.
pub const OPPORTUNISTIC: ParamInfo = ParamInfo {
    name: "opportunistic",
    default: 0.0,
    min: 0.0,
    max: 1.0,
    help: "1: re-send the data blocking the receive window on a subflow with space (Raiciu et al. 2012)",
    open_min: false,
};

/// Penalization (same paper): the subflow that held the blocking data halves its
/// window, at most once per its RTT.
pub const PENALIZE: ParamInfo = ParamInfo {
    name: "penalize",
    default: 0.0,
    min: 0.0,
    max: 1.0,
    help: "1: halve the window of the subflow that held the data blocking the receive window, once per RTT",
    open_min: false,
};

/// A member's type in the enum: itself, or the type given (a `Box` keeps a large
/// member from growing every connection's enum).
macro_rules! member_ty {
    ($m:ident::$t:ident) => {
        $m::$t
    };
    ($m:ident::$t:ident, $ty:ty) => {
        $ty
    };
}

macro_rules! schedulers {
    ($($m:ident::$t:ident $(=> $ty:ty)?),* $(,)?) => {
        /// Every built-in scheduler; dispatch is a `match`, not a trait object.
        #[derive(Clone, Debug, PartialEq)]
        pub enum AnyScheduler {
            $($t(member_ty!($m::$t $(, $ty)?)),)*
        }

        /// Every registered scheduler; the first is the default.
        pub const REGISTRY: &[Info] = &[$($m::INFO,)*];

        fn build_member(name: &str, get: &impl Fn(&ParamInfo) -> f64, setup: &Setup) -> Option<AnyScheduler> {
            $(if name == $m::INFO.name {
                return Some(AnyScheduler::$t($m::$t::from_params(get, setup).into()));
            })*
            None
        }

        impl AnyScheduler {
            pub fn name(&self) -> &'static str {
                match self {
                    $(AnyScheduler::$t(_) => $m::INFO.name,)*
                }
            }

            /// `pick` with the connection's state computed only by the members that
            /// read it (`conn` is evaluated in their arms alone; minrtt, the default,
            /// ignores it, and a send round asked for it twice per segment).
            #[inline(always)]
            pub fn pick_lazy(
                &mut self, n: usize, exclude: Option<usize>, conn: impl FnOnce() -> ConnState,
                state: impl Fn(usize) -> SubflowState,
            ) -> Option<usize> {
                if n == 1 {
                    return (exclude != Some(0) && state(0).has_space()).then_some(0);
                }
                match self { $(AnyScheduler::$t(s) => s.pick(n, exclude, conn(), state),)* }
            }
        }

        impl Scheduler for AnyScheduler {
            #[inline]
            fn on_ack(&mut self, a: &AckSample) {
                match self { $(AnyScheduler::$t(s) => s.on_ack(a),)* }
            }
            #[inline]
            fn prepare(&mut self, now: Nanos, app: impl Fn() -> AppState, sub: impl Fn(usize) -> SubflowDetail) {
                match self { $(AnyScheduler::$t(s) => s.prepare(now, app, sub),)* }
            }
            /// A single path has nothing to choose: subflow 0 if it has space.
            #[inline(always)]
            fn pick(&mut self, n: usize, exclude: Option<usize>, conn: ConnState, state: impl Fn(usize) -> SubflowState) -> Option<usize> {
                self.pick_lazy(n, exclude, || conn, state)
            }
            #[inline]
            fn copies(&self) -> bool {
                match self { $(AnyScheduler::$t(s) => s.copies(),)* }
            }
            #[inline]
            fn copy(&mut self, i: usize, una: u64, nxt: u64, has_new: bool) -> Option<u64> {
                match self { $(AnyScheduler::$t(s) => s.copy(i, una, nxt, has_new),)* }
            }
            #[inline]
            fn sent(&mut self, now: Nanos, waiting: impl FnOnce() -> bool, state: impl Fn(usize) -> SubflowState) {
                match self { $(AnyScheduler::$t(s) => s.sent(now, waiting, state),)* }
            }
            #[inline]
            fn poll_at(&self) -> Option<Nanos> {
                match self { $(AnyScheduler::$t(s) => s.poll_at(),)* }
            }
            #[inline]
            fn picks_the_only_subflow_with_space(&self) -> bool {
                match self { $(AnyScheduler::$t(s) => s.picks_the_only_subflow_with_space(),)* }
            }
            #[inline]
            fn paces(&self) -> bool {
                match self { $(AnyScheduler::$t(s) => s.paces(),)* }
            }
            #[inline]
            fn pacing_rate(&self, sub: usize) -> Option<f64> {
                match self { $(AnyScheduler::$t(s) => s.pacing_rate(sub),)* }
            }
            #[inline]
            fn on_subflow_removed(&mut self, sub: usize) {
                match self { $(AnyScheduler::$t(s) => s.on_subflow_removed(sub),)* }
            }
            fn metrics(&self, out: &mut dyn FnMut(&'static str, Metric)) {
                match self { $(AnyScheduler::$t(s) => s.metrics(out),)* }
            }
        }
    };
}

// One line per scheduler, in registry order (the first is the default). Members
// larger than a `Vec` are boxed, so every connection's enum stays 32 bytes.
schedulers! {
    minrtt::MinRtt,
    roundrobin::RoundRobin,
    redundant::Redundant,
    blest::Blest,
    ecf::Ecf,
    cdd::Cdd,
    tsc::Tsc => Box<tsc::Tsc>,
    wrr::Wrr => Box<wrr::Wrr>,
    linger::Linger,
}

/// The default scheduler's name.
pub const DEFAULT: &str = "minrtt";

/// The scheduler registered as `name` with `params`, for the connection `setup`
/// describes. Errors start with the field they concern (`scheduler` or
/// `scheduler_params.<name>`) and list what is allowed.
pub fn build(name: &str, params: &BTreeMap<String, f64>, setup: &Setup) -> Result<AnyScheduler, String> {
    let Some(info) = REGISTRY.iter().find(|s| s.name == name) else {
        let names: Vec<&str> = REGISTRY.iter().map(|s| s.name).collect();
        return Err(format!("scheduler: unknown scheduler '{name}'; allowed: {}", names.join(", ")));
    };
    info.check("scheduler", &Params(params.clone())).map_err(|e| e.line("scheduler_params"))?;
    let get = |p: &ParamInfo| params.get(p.name).copied().unwrap_or(p.default);
    Ok(build_member(name, &get, setup).expect("every registered scheduler has a builder"))
}

/// The subflow with space and the lowest smoothed RTT (ties to the lowest index,
/// so a subflow without an RTT sample yet, srtt 0, is tried first and gets measured).
#[inline]
pub fn min_rtt(n: usize, exclude: Option<usize>, state: &impl Fn(usize) -> SubflowState) -> Option<usize> {
    let mut best: Option<(usize, Nanos)> = None;
    for i in 0..n {
        if Some(i) != exclude && state(i).has_space() {
            let r = state(i).srtt;
            if best.is_none_or(|(_, b)| r < b) {
                best = Some((i, r));
            }
        }
    }
    best.map(|(i, _)| i)
}

/// The usable subflow (space or not, never `exclude`) with the lowest smoothed RTT.
#[inline]
pub fn fastest(n: usize, exclude: Option<usize>, state: &impl Fn(usize) -> SubflowState) -> Option<usize> {
    let mut best: Option<(usize, Nanos)> = None;
    for i in 0..n {
        let s = state(i);
        if s.usable && Some(i) != exclude && best.is_none_or(|(_, b)| s.srtt < b) {
            best = Some((i, s.srtt));
        }
    }
    best.map(|(i, _)| i)
}

/// Helpers for the members' unit tests.
#[cfg(test)]
pub(crate) mod testing {
    pub use super::*;

    pub const MS: Nanos = 1_000_000;
    pub const NONE: &[(&str, f64)] = &[];
    pub const ANY: ConnState = ConnState { queued: 1, window: u64::MAX / 4 };

    pub fn st(srtt: Nanos, pipe: u64, cwnd: u64) -> SubflowState {
        SubflowState { srtt, rttvar: 0, pipe, unacked: pipe, cwnd, usable: true }
    }

    /// `name` with `params` for `n` subflows of equal cost, one hop each.
    pub fn build(name: &str, params: &[(&str, f64)], n: usize) -> Result<AnyScheduler, String> {
        let costs = vec![1.0; n];
        let hops = vec![1; n];
        let setup = Setup { n, costs: &costs, hops: &hops, mss: 1448, count_from: 0 };
        super::build(name, &params.iter().map(|&(k, v)| (k.to_string(), v)).collect(), &setup)
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;

    #[test]
    fn unknown_name_or_parameter_lists_allowed() {
        let e = build("lowest", NONE, 2).unwrap_err();
        assert!(
            e.starts_with(
                "scheduler: unknown scheduler 'lowest'; allowed: minrtt, roundrobin, redundant, blest, ecf, cdd, tsc"
            ),
            "{e}"
        );
        let e = build("ecf", &[("lambda", 1.0)], 2).unwrap_err();
        assert_eq!(
            e,
            "scheduler_params.lambda: unknown parameter of scheduler 'ecf'; allowed: beta, opportunistic, penalize"
        );
        let e = build("minrtt", &[("beta", 1.0)], 2).unwrap_err();
        assert_eq!(
            e,
            "scheduler_params.beta: unknown parameter of scheduler 'minrtt'; allowed: opportunistic, penalize"
        );
        let e = build("redundant", &[("beta", 1.0)], 2).unwrap_err();
        assert_eq!(e, "scheduler_params.beta: unknown parameter of scheduler 'redundant'; allowed: none");
        let e = build("blest", &[("lambda", -1.0)], 2).unwrap_err();
        assert_eq!(e, "scheduler_params.lambda: -1; allowed: 0 to 100");
        assert!(build("blest", &[("lambda", f64::NAN)], 2).is_err());
        for info in REGISTRY {
            assert_eq!(build(info.name, NONE, 2).unwrap().name(), info.name);
            assert!(info.doc.starts_with("docs/"), "{}: {}", info.name, info.doc);
        }
    }

    #[test]
    fn metric_names_carry_the_scheduler_name() {
        for info in REGISTRY {
            let mut names = Vec::new();
            build(info.name, NONE, 2).unwrap().metrics(&mut |k, _| names.push(k));
            assert!(names.iter().all(|k| k.starts_with(&format!("{}_", info.name))), "{}: {names:?}", info.name);
        }
        let mut tsc = Vec::new();
        build("tsc", &[("d_net", 0.3)], 2).unwrap().metrics(&mut |k, v| tsc.push((k, v)));
        assert_eq!(tsc[0], ("tsc_delay_bound_s", Metric::Value(0.1 + 0.3)));
        assert_eq!(tsc[2], ("tsc_slots", Metric::Count(0)));
        assert_eq!(tsc[5], ("tsc_rtt_within_2dnet", Metric::RttWithin(0.6)));
    }

    #[test]
    fn the_enum_stays_small() {
        assert!(std::mem::size_of::<AnyScheduler>() <= 32, "{}", std::mem::size_of::<AnyScheduler>());
    }

    #[test]
    fn a_single_path_takes_subflow_0_whatever_the_scheduler() {
        let one = [st(10, 0, 10)];
        for info in REGISTRY {
            let mut s = build(info.name, NONE, 1).unwrap();
            assert_eq!(s.pick(1, None, ANY, |i| one[i]), Some(0), "{}", info.name);
            assert_eq!(s.pick(1, Some(0), ANY, |i| one[i]), None, "{}", info.name);
            assert!(!s.copies(), "{}: one subflow is plain TCP", info.name);
        }
    }

    #[test]
    fn a_wake_up_is_scheduled_once_until_it_fires() {
        let mut w = Wake::default();
        assert_eq!(w.arm(None), None);
        assert_eq!(w.arm(Some(100)), Some(100));
        assert_eq!(w.arm(Some(120)), None, "a later request waits for the pending one");
        assert_eq!(w.arm(Some(90)), Some(90), "an earlier one supersedes it");
        assert!(!w.fire(100), "superseded");
        assert!(w.fire(90));
        assert_eq!(w.arm(Some(120)), Some(120));
    }
}
