//! Receiver controllers, sans-IO: state machines at an MPTCP connection's
//! receiver that shape the unmodified sender's subflows through the ACKs they
//! return (Se-Yong Park's thesis, chapters 3 and 4).
//!
//! The transport (simulator or real stack) measures and acts; the controller
//! decides. On every arriving data segment it gets an [`Arrival`] (subflow,
//! DSN, subflow sequence number, time, whether the segment is a
//! retransmission, the subflow's RTT as the receiver measures it from TCP
//! timestamps) and an [`AppView`] (what the application consumed and what waits
//! in its play-back buffer), and it answers through a callback with zero or
//! more [`RxAction`]s on any subflow:
//!
//! - [`RxAction::DupAck`]: from the next in-order segment on, do not advance
//!   the subflow's cumulative ACK (the segments above are SACKed), so the
//!   sender sees three duplicate ACKs, retransmits and halves its window; the
//!   data itself is delivered at once, so nothing waits for the retransmission.
//!   The hold ends when the retransmission arrives.
//! - [`RxAction::Off`]: send no ACK at all on the subflow: its sender times out
//!   and backs off (the subflow is "turned off").
//! - [`RxAction::On`]: acknowledge again, starting with an ACK sent at once.
//!
//! Built-in controllers dispatch through the [`RxController`] enum (no trait
//! objects, no allocation and no hashing per packet); [`MEMBERS`] lists them by
//! name, each with its entry and builder from its own file.

pub mod model;
pub mod popctl;
pub mod rtsc;

use crate::params::{Info, Member, Params};
use mpcc_core::Nanos;
use std::collections::BTreeMap;

/// One data segment reaching the connection's receiver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Arrival {
    pub now: Nanos,
    /// Subflow index (dense, 0..n).
    pub sub: usize,
    /// Data sequence number (segments).
    pub dsn: u64,
    /// Subflow sequence number (segments).
    pub seq: u64,
    /// The segment lies below the highest one already received on its subflow
    /// (it fills a hole or is a duplicate): what a receiver can tell of a
    /// retransmission.
    pub retransmission: bool,
    /// It is the next segment the subflow expected.
    pub in_order: bool,
    /// RTT measured at the receiver from the echoed timestamp (RFC 7323: now
    /// minus the TSecr the segment carries); 0 when there is none yet.
    pub rtt: Nanos,
}

/// The application side of the receiver, in segments.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AppView {
    /// Segments delivered in order to the connection's application side so far.
    pub delivered: u64,
    /// Of those, segments still waiting in the application's play-back buffer
    /// (0 for an application that reads at once).
    pub playback: u64,
}

impl AppView {
    /// Segments the application has consumed (played back).
    #[inline]
    pub fn consumed(&self) -> u64 {
        self.delivered.saturating_sub(self.playback)
    }
}

/// What a receiver controller asks of one subflow's receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxAction {
    /// Intentional duplicate ACKs: hold the cumulative ACK at the next in-order segment.
    DupAck,
    /// Withhold every ACK (the subflow goes to RTO).
    Off,
    /// Acknowledge again, with an ACK at once.
    On,
}

/// Counters every controller keeps, for the summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxStats {
    pub dupacks: u64,
    pub offs: u64,
    pub ons: u64,
}

/// The conventional receiver's entry (it has no file of its own).
pub const NONE: Info =
    Info::new("none", "a conventional receiver: every segment acknowledged as TCP does", "docs/mptcp.md", &[]);

fn build_none(_: &dyn Fn(&str) -> f64, _: usize) -> RxController {
    RxController::None
}

/// A receiver controller's builder: checked parameter values, subflow count.
pub type Build = fn(&dyn Fn(&str) -> f64, usize) -> RxController;

/// Every registered receiver controller, one line each; the first is the default.
pub static MEMBERS: &[Member<Build>] = &[
    Member { info: &NONE, build: build_none },
    Member { info: &popctl::INFO, build: popctl::build },
    Member { info: &rtsc::INFO, build: rtsc::build },
];

/// Every registered receiver controller's entry.
pub fn registry() -> impl Iterator<Item = &'static Info> + Clone {
    MEMBERS.iter().map(|m| m.info)
}

/// The default receiver controller's name.
pub const DEFAULT: &str = "none";

/// Every built-in receiver controller. PopCtl's state is larger than the others', but a
/// connection holds one controller, so boxing it would only add an indirection.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)]
pub enum RxController {
    None,
    PopCtl(popctl::PopCtl),
    Rtsc(rtsc::Rtsc),
}

impl RxController {
    /// The controller registered as `name` with `params`, for a connection of
    /// `n` subflows. Errors start with the field they concern (`receiver` or
    /// `receiver_params.<name>`) and list what is allowed.
    pub fn build(name: &str, params: &BTreeMap<String, f64>, n: usize) -> Result<RxController, String> {
        let info =
            crate::params::find(registry(), "receiver controller", name).map_err(|e| format!("receiver: {e}"))?;
        let params = Params(params.clone());
        info.check("receiver", &params).map_err(|e| e.line("receiver_params"))?;
        let m = MEMBERS.iter().find(|m| m.info.name == name).expect("found");
        Ok((m.build)(&|k: &str| info.get(&params, k), n))
    }

    pub fn name(&self) -> &'static str {
        match self {
            RxController::None => "none",
            RxController::PopCtl(_) => "popctl",
            RxController::Rtsc(_) => "rtsc",
        }
    }

    /// True for the conventional receiver (the transport may skip the call).
    #[inline]
    pub fn is_none(&self) -> bool {
        matches!(self, RxController::None)
    }

    /// A data segment arrived; `act(sub, action)` carries out the decisions.
    #[inline]
    pub fn on_arrival(&mut self, a: &Arrival, app: &AppView, act: &mut impl FnMut(usize, RxAction)) {
        match self {
            RxController::None => {}
            RxController::PopCtl(c) => c.on_arrival(a, act),
            RxController::Rtsc(c) => c.on_arrival(a, app, act),
        }
    }

    pub fn stats(&self) -> RxStats {
        match self {
            RxController::None => RxStats::default(),
            RxController::PopCtl(c) => c.stats,
            RxController::Rtsc(c) => c.stats,
        }
    }

    /// Controller-specific summary figures (name, value).
    pub fn metrics(&self, now: Nanos) -> Vec<(String, f64)> {
        match self {
            RxController::None => Vec::new(),
            RxController::PopCtl(c) => c.metrics(now),
            RxController::Rtsc(c) => c.metrics(),
        }
    }

    /// Restarts counters and time averages at `now` (end of the warm-up).
    pub fn reset_averages(&mut self, now: Nanos) {
        match self {
            RxController::None => {}
            RxController::PopCtl(c) => c.reset_averages(now),
            RxController::Rtsc(c) => c.stats = RxStats::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(name: &str, params: &[(&str, f64)]) -> Result<RxController, String> {
        RxController::build(name, &params.iter().map(|&(k, v)| (k.to_string(), v)).collect(), 3)
    }

    #[test]
    fn registry_builds_every_name_and_errors_name_the_field() {
        for info in registry() {
            assert_eq!(build(info.name, &[]).unwrap().name(), info.name);
        }
        let e = build("codel", &[]).unwrap_err();
        assert_eq!(e, "receiver: unknown receiver controller 'codel'; allowed: none, popctl, rtsc");
        let e = build("none", &[("interval_s", 0.1)]).unwrap_err();
        assert_eq!(e, "receiver_params.interval_s: unknown parameter of receiver 'none'; allowed: none");
        let e = build("popctl", &[("interval_s", 0.0)]).unwrap_err();
        assert!(e.starts_with("receiver_params.interval_s: 0; allowed: "), "{e}");
        assert!(build("rtsc", &[("alpha", f64::NAN)]).is_err());
    }
}
