//! Congestion controllers, sans-IO.
//!
//! A controller never owns a clock, a socket or a random generator. The transport
//! measures (RTT, delivered segments, loss) and hands the controller plain events;
//! the controller owns cwnd, ssthresh and any coupling term, and answers with
//! windows. One [`Controller`] value serves a whole connection: it keeps the state
//! of all its subflows in a table indexed by a dense subflow id (`usize`). A
//! single-path flow is a connection with one subflow.
//!
//! Windows are in segments (MSS units) as `f64`, since the papers define
//! fractional increments.
//!
//! Adding an algorithm: one file under `single/` (per-subflow rule, implements
//! [`SubflowCc`], run by [`Uncoupled`]) or `multi/` (a coupling rule, implements
//! [`multi::window::CouplingRule`], run by [`multi::window::Coupled`]), holding its
//! `INFO` entry and `build` function, one variant in [`Controller`], one line in
//! `single::MEMBERS` or `multi::MEMBERS`.

pub mod common;
pub mod estimators;
pub mod event;
pub mod multi;
pub mod params;
pub mod receiver;
pub mod registry;
pub mod sched;
pub mod single;
pub mod uncoupled;

pub use event::{AckEvent, CongestionEvent, CongestionKind};
pub use params::Params;
pub use params::{Info, ParamInfo};
pub use registry::{build, registry};
pub use uncoupled::Uncoupled;

/// A per-subflow congestion rule with no coupling (Reno, CUBIC, Vegas, ...).
pub trait SubflowCc {
    /// Every ACK that the transport processes, in or out of recovery.
    fn on_ack(&mut self, ev: &AckEvent);
    /// A congestion signal: fast-retransmit loss (once per recovery epoch), ECN or RTO.
    fn on_congestion(&mut self, ev: &CongestionEvent);
    /// The recovery epoch that began with a `Loss` signal ended (cumulative ACK
    /// passed the recovery point).
    fn on_recovery_exit(&mut self, _now: mpcc_core::Nanos) {}
    /// Congestion window in segments.
    fn cwnd(&self) -> f64;
    /// Slow-start threshold in segments.
    fn ssthresh(&self) -> f64;
    /// Sets the slow-start threshold (the transport's initial ssthresh).
    fn set_ssthresh(&mut self, v: f64);
    /// Named internal values (CUBIC's W_max and K, ...); see
    /// [`CongestionControl::metrics`]. Default: none.
    fn metrics(&self, _out: &mut dyn FnMut(&'static str, f64)) {}
}

/// A connection-wide controller over a table of subflows.
pub trait CongestionControl {
    /// Registers a new subflow and returns its dense id (0, 1, 2, ...).
    fn add_subflow(&mut self, now: mpcc_core::Nanos) -> usize;
    fn on_ack(&mut self, sf: usize, ev: &AckEvent);
    fn on_congestion(&mut self, sf: usize, ev: &CongestionEvent);
    /// The recovery epoch of subflow `sf` ended (most controllers ignore it).
    fn on_recovery_exit(&mut self, _sf: usize, _now: mpcc_core::Nanos) {}
    fn cwnd(&self, sf: usize) -> f64;
    fn ssthresh(&self, sf: usize) -> f64;
    /// Sets subflow `sf`'s slow-start threshold in segments (the transport's
    /// initial ssthresh, applied right after `add_subflow`).
    fn set_ssthresh(&mut self, sf: usize, v: f64);
    /// The last `on_congestion` of subflow `sf` was spurious (F-RTO or
    /// timestamps showed nothing was lost; Linux's tcp_try_undo_*): the subflow's
    /// state comes back exactly as it was just before that reduction (growth
    /// since is discarded). A second undo without a new reduction does nothing.
    fn undo(&mut self, sf: usize, now: mpcc_core::Nanos);
    /// Subflow `sf` left the connection: it no longer counts in any coupling.
    /// Its id is not reused, and it gets no more events.
    fn remove_subflow(&mut self, sf: usize, now: mpcc_core::Nanos);
    /// The pacing rate this controller asks for on subflow `sf`, in segments per
    /// second (None: the transport's own rule, if pacing is on).
    fn pacing_rate(&self, _sf: usize) -> Option<f64> {
        None
    }
    /// Named internal values of subflow `sf`: its coupling terms (LIA's alpha,
    /// OLIA's sets, ...), with connection-wide terms repeated on every subflow.
    /// `out` is called once per value, in a fixed order, and nothing is allocated:
    /// read at sampling intervals, never on the per-packet path. Default: none.
    fn metrics(&self, _sf: usize, _out: &mut dyn FnMut(&'static str, f64)) {}
}

/// The metrics of subflow `sf` as a list (for tests and one-off reads).
pub fn metrics_of(cc: &(impl CongestionControl + ?Sized), sf: usize) -> Vec<(&'static str, f64)> {
    let mut v = Vec::new();
    cc.metrics(sf, &mut |k, x| v.push((k, x)));
    v
}

macro_rules! define_controllers {
    (single: [$($sv:ident($st:ty)),* $(,)?], multi: [$($mv:ident($mt:ty)),* $(,)?] $(,)?) => {
        /// Every built-in controller. The hot path dispatches through this enum (a
        /// `match`), not through a trait object.
        pub enum Controller {
            $($sv($st),)*
            $($mv($mt),)*
        }

        macro_rules! dispatch {
            ($self:expr, $c:ident => $body:expr) => {
                match $self {
                    $(Controller::$sv($c) => $body,)*
                    $(Controller::$mv($c) => $body,)*
                }
            };
        }
    };
}

// One line per controller. Single-path rules run uncoupled on every subflow.
define_controllers! {
    single: [
        Reno(Uncoupled<single::reno::Reno>),
        Cubic(Uncoupled<single::cubic::Cubic>),
        Vegas(Uncoupled<single::vegas::Vegas>),
        Veno(Uncoupled<single::veno::Veno>),
        Westwood(Uncoupled<single::westwood::Westwood>),
        Binomial(Uncoupled<single::binomial::Binomial>),
    ],
    multi: [
        Lia(multi::lia::Lia),
        Olia(multi::olia::Olia),
        Balia(multi::balia::Balia),
        Wvegas(multi::wvegas::WVegas),
        Ewtcp(multi::ewtcp::Ewtcp),
        Coupled(multi::coupled::Coupled),
        NodaIto(multi::noda_ito::NodaIto),
        Mpveno(multi::mpveno::MpVeno),
        Mptcpw(multi::mptcpw::Mptcpw),
        Wmptcpw(multi::wmptcpw::WMptcpw),
        Mpcubic(multi::mpcubic::MpCubic),
        Mpsqrt(multi::binomial::Binomial),
        Mpiad(multi::binomial::Binomial),
        Cdd(multi::cdd::Cdd),
        Mpmtp(multi::mpmtp::MpMtp),
    ],
}

impl Controller {
    /// An event of subflow `sf` (an ACK, a congestion signal, an undo, a removal)
    /// changes only subflow `sf`'s window and threshold: true for the single-path
    /// rules (uncoupled) and for LIA, whose coupling reads the other subflows but
    /// writes only the one that took the event. The send round then need not read
    /// again the windows of the subflows an ACK did not touch (`Flow::own_windows`).
    /// False for every rule not checked for it.
    #[inline]
    pub fn windows_own(&self) -> bool {
        matches!(
            self,
            Controller::Reno(_)
                | Controller::Cubic(_)
                | Controller::Vegas(_)
                | Controller::Veno(_)
                | Controller::Westwood(_)
                | Controller::Binomial(_)
                | Controller::Lia(_)
        )
    }
}

impl CongestionControl for Controller {
    #[inline]
    fn add_subflow(&mut self, now: mpcc_core::Nanos) -> usize {
        dispatch!(self, c => c.add_subflow(now))
    }
    // Once per ACK, from the sender's two instances of its ACK processing: inlined,
    // where the controller's own step follows at once.
    #[inline(always)]
    fn on_ack(&mut self, sf: usize, ev: &AckEvent) {
        dispatch!(self, c => c.on_ack(sf, ev))
    }
    #[inline]
    fn on_congestion(&mut self, sf: usize, ev: &CongestionEvent) {
        dispatch!(self, c => c.on_congestion(sf, ev))
    }
    #[inline]
    fn on_recovery_exit(&mut self, sf: usize, now: mpcc_core::Nanos) {
        dispatch!(self, c => c.on_recovery_exit(sf, now))
    }
    // Read twice per ACK (every subflow's window in a send round): inlined, the
    // match is a jump to a load.
    #[inline(always)]
    fn cwnd(&self, sf: usize) -> f64 {
        dispatch!(self, c => c.cwnd(sf))
    }
    #[inline]
    fn ssthresh(&self, sf: usize) -> f64 {
        dispatch!(self, c => c.ssthresh(sf))
    }
    fn set_ssthresh(&mut self, sf: usize, v: f64) {
        dispatch!(self, c => c.set_ssthresh(sf, v))
    }
    fn undo(&mut self, sf: usize, now: mpcc_core::Nanos) {
        dispatch!(self, c => c.undo(sf, now))
    }
    fn remove_subflow(&mut self, sf: usize, now: mpcc_core::Nanos) {
        dispatch!(self, c => c.remove_subflow(sf, now))
    }
    #[inline]
    fn pacing_rate(&self, sf: usize) -> Option<f64> {
        dispatch!(self, c => c.pacing_rate(sf))
    }
    fn metrics(&self, sf: usize, out: &mut dyn FnMut(&'static str, f64)) {
        dispatch!(self, c => c.metrics(sf, out))
    }
}
