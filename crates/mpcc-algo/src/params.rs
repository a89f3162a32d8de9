//! Named numeric parameters of a controller, and what the registry says of them
//! (a leaf module: the registry and every family's entries build on it).

use std::collections::BTreeMap;

/// Parameters as given by the scenario (`cc_params = { phi = 1.0 }`).
#[derive(Clone, Debug, Default)]
pub struct Params(pub BTreeMap<String, f64>);

impl Params {
    pub fn new() -> Params {
        Params(BTreeMap::new())
    }
    pub fn with(mut self, k: &str, v: f64) -> Params {
        self.0.insert(k.to_string(), v);
        self
    }
    /// The value of `name`, or its default. Call only after [`crate::build`] validated.
    pub fn get(&self, name: &str, default: f64) -> f64 {
        self.0.get(name).copied().unwrap_or(default)
    }
}

/// A tunable parameter: name, default, allowed closed range, meaning.
#[derive(Clone, Copy, Debug)]
pub struct ParamInfo {
    pub name: &'static str,
    pub default: f64,
    pub min: f64,
    pub max: f64,
    pub help: &'static str,
}

/// A `ParamInfo` in one line, for the registry tables.
pub const fn param(name: &'static str, default: f64, min: f64, max: f64, help: &'static str) -> ParamInfo {
    ParamInfo { name, default, min, max, help }
}

/// One registered controller.
#[derive(Clone, Copy, Debug)]
pub struct AlgoInfo {
    pub name: &'static str,
    /// "single" (per-subflow rule, usable uncoupled) or "multi" (coupled).
    pub kind: &'static str,
    pub summary: &'static str,
    /// The doc page under docs/algorithms/.
    pub doc: &'static str,
    pub params: &'static [ParamInfo],
    /// A rule across parameters that their ranges cannot state (given each
    /// parameter's value or default); None for most controllers.
    pub rule: Option<fn(&dyn Fn(&str) -> f64) -> Result<(), String>>,
}

/// Initial window, a parameter of every controller.
pub const INIT_CWND: ParamInfo = ParamInfo {
    name: "init_cwnd",
    default: 10.0,
    min: 1.0,
    max: 1000.0,
    help: "initial congestion window in segments (RFC 6928)",
};
