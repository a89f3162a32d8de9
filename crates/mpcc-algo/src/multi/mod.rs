//! Coupled multipath congestion controllers, their registry entries and builder.

use crate::registry::AlgoInfo;
use crate::Controller;

pub static REGISTRY: &[AlgoInfo] = &[];

/// Builds a registered multipath controller; `p` yields a parameter's value or default.
pub fn build(name: &str, _p: &dyn Fn(&str) -> f64) -> Option<Controller> {
    match name {
        _ => None,
    }
}
