//! Named numeric parameters of a controller, checked against its registry entry.

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
