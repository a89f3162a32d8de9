//! The shared registry vocabulary (`mpcc_core::params`) and what every controller
//! has in common: a leaf module, so that `registry` and the `single`/`multi`
//! members build on it without importing each other.

pub use mpcc_core::params::{find, param, Args, Info, Member, ParamInfo, Params, Problem, Unit};

/// Initial window, a parameter of every controller.
pub const INIT_CWND: ParamInfo = ParamInfo {
    name: "init_cwnd",
    default: 10.0,
    min: 1.0,
    max: 1000.0,
    help: "initial congestion window in segments (RFC 6928)",
    open_min: false,
};

/// A controller's builder: `p` yields a parameter's value or default (checked).
pub type Build = fn(&dyn Fn(&str) -> f64) -> crate::Controller;
