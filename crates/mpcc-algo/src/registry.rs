//! The one registry of controller names, read by the simulator, the CLI
//! (`mpcc list`), the Python API and the docs.

use crate::params::AlgoInfo;
use crate::{multi, single, Controller, Params};

/// Every registered controller, single-path first.
pub fn registry() -> impl Iterator<Item = &'static AlgoInfo> {
    single::REGISTRY.iter().chain(multi::REGISTRY.iter())
}

/// Checks `params` against the registry entry `name`; returns the entry.
pub fn check(name: &str, params: &Params) -> Result<&'static AlgoInfo, String> {
    let info = registry().find(|a| a.name == name).ok_or_else(|| {
        let names: Vec<&str> = registry().map(|a| a.name).collect();
        format!("unknown congestion controller '{name}'; allowed: {}", names.join(", "))
    })?;
    for (k, v) in &params.0 {
        let p = info.params.iter().find(|p| p.name == k).ok_or_else(|| {
            let names: Vec<&str> = info.params.iter().map(|p| p.name).collect();
            format!("unknown parameter '{k}' for '{name}'; allowed: {}", names.join(", "))
        })?;
        if !v.is_finite() || *v < p.min || *v > p.max {
            return Err(format!("parameter '{k}' of '{name}' is {v}; allowed: {} to {}", p.min, p.max));
        }
    }
    if let Some(rule) = info.rule {
        rule(&|k: &str| params.get(k, info.params.iter().find(|p| p.name == k).map_or(f64::NAN, |p| p.default)))
            .map_err(|e| format!("parameters of '{name}': {e}"))?;
    }
    Ok(info)
}

/// Builds the controller `name` with `params` (unknown names and out-of-range
/// values are errors naming what is allowed).
pub fn build(name: &str, params: &Params) -> Result<Controller, String> {
    let info = check(name, params)?;
    let p = |k: &str| {
        let d = info.params.iter().find(|p| p.name == k).map(|p| p.default).unwrap_or(f64::NAN);
        params.get(k, d)
    };
    single::build(name, &p)
        .or_else(|| multi::build(name, &p))
        .ok_or_else(|| format!("controller '{name}' is registered but has no builder"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_name_lists_allowed() {
        let e = build("nope", &Params::new()).err().unwrap();
        assert!(e.contains("unknown congestion controller 'nope'") && e.contains("reno"), "{e}");
    }

    #[test]
    fn out_of_range_parameter() {
        let e = build("reno", &Params::new().with("beta", 2.0)).err().unwrap();
        assert!(e.contains("beta") && e.contains("allowed"), "{e}");
        let e = build("reno", &Params::new().with("gamma", 1.0)).err().unwrap();
        assert!(e.contains("unknown parameter 'gamma'"), "{e}");
    }

    #[test]
    fn every_registered_name_builds_with_defaults() {
        for a in registry() {
            assert!(build(a.name, &Params::new()).is_ok(), "{}", a.name);
        }
    }
}
