//! Helpers shared by the integration tests: run a canonical configuration, read a
//! number out of its summary.
#![allow(dead_code)]

use serde_json::Value;

pub const MS: u64 = 1_000_000;
pub const S: u64 = 1_000_000_000;

/// Runs `cfg` (crates/mpcc-sim/src/config.rs) and returns its summary.
pub fn run(cfg: &Value) -> Value {
    let out = mpcc_sim::run_json(&cfg.to_string()).unwrap_or_else(|e| panic!("run fails: {e}"));
    serde_json::from_str(&out.summary_json).unwrap()
}

/// The number at a JSON pointer such as "/flows/mp/goodput_bps".
pub fn num(v: &Value, pointer: &str) -> f64 {
    let x = v.pointer(pointer).unwrap_or_else(|| panic!("{pointer} missing"));
    x.as_f64().unwrap_or_else(|| panic!("{pointer} is not a number: {x}"))
}
