//! The one registry of controller names, read by the simulator, the CLI
//! (`mpcc list`), the Python API (`_core.kinds()`) and the docs. Each entry
//! and its builder live in the controller's file; `single/mod.rs` and
//! `multi/mod.rs` list them.

use crate::params::{Build, Info, Member};
use crate::{multi, single, Controller, Params};

fn members() -> impl Iterator<Item = &'static Member<Build>> + Clone {
    single::MEMBERS.iter().chain(multi::MEMBERS.iter())
}

/// Every registered controller, single-path first.
pub fn registry() -> impl Iterator<Item = &'static Info> + Clone {
    members().map(|m| m.info)
}

/// "single" (a per-subflow rule, run uncoupled on every subflow) or "multi"
/// (coupled), for a registered name.
pub fn kind(name: &str) -> Option<&'static str> {
    if single::MEMBERS.iter().any(|m| m.info.name == name) {
        Some("single")
    } else if multi::MEMBERS.iter().any(|m| m.info.name == name) {
        Some("multi")
    } else {
        None
    }
}

/// Checks `params` against the registry entry `name`; returns the entry.
pub fn check(name: &str, params: &Params) -> Result<&'static Info, String> {
    let info = crate::params::find(registry(), "congestion controller", name)?;
    info.check("controller", params).map_err(|e| match e.param {
        // Worded as before the families shared one check (`cc: ...` in the simulator).
        Some(k) if info.param(&k).is_none() => {
            let names: Vec<&str> = info.params.iter().map(|p| p.name).collect();
            format!("unknown parameter '{k}' for '{name}'; allowed: {}", names.join(", "))
        }
        Some(k) => format!("parameter '{k}' of '{name}' is {}", e.msg),
        None => format!("parameters of '{name}': {}", e.msg),
    })?;
    Ok(info)
}

/// Builds the controller `name` with `params` (unknown names and out-of-range
/// values are errors naming what is allowed).
pub fn build(name: &str, params: &Params) -> Result<Controller, String> {
    let info = check(name, params)?;
    let m = members().find(|m| std::ptr::eq(m.info, info)).expect("checked");
    Ok((m.build)(&|k: &str| info.get(params, k)))
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
