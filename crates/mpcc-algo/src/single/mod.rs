//! Single-path (per-subflow) congestion rules, their registry entries and builder.

pub mod reno;

use crate::registry::{AlgoInfo, ParamInfo, INIT_CWND};
use crate::{Controller, Uncoupled};

pub static REGISTRY: &[AlgoInfo] = &[AlgoInfo {
    name: "reno",
    kind: "single",
    summary: "NewReno AIMD: +1 segment per RTT, halve on loss (RFC 5681/6582)",
    doc: "docs/algorithms/reno.md",
    params: &[
        INIT_CWND,
        ParamInfo { name: "beta", default: 0.5, min: 0.01, max: 0.99, help: "multiplicative decrease fraction" },
    ],
}];

/// Builds a registered single-path controller; `p` yields a parameter's value or default.
pub fn build(name: &str, p: &dyn Fn(&str) -> f64) -> Option<Controller> {
    Some(match name {
        "reno" => Controller::Reno(Uncoupled::new(reno::Reno::new(p("init_cwnd"), p("beta")))),
        _ => return None,
    })
}
