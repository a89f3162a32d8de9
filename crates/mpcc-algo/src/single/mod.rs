//! Single-path (per-subflow) congestion rules.

pub mod reno;
