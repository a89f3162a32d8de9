//! A registered member given as a table `{ kind, ...params }`, the canonical
//! configuration's form of queues, loss models, capacity models and
//! applications: its entry and its parameters as the one parameter check
//! (`mpcc_core::params`) sees them. A leaf module.

use mpcc_core::params::{find, Info, Params, Problem, Unit};
use serde_json::{Map, Value};

/// The parameters of `table` for `info`, as numbers: null left out (unset), true
/// 1 and false 0, a choice's word its index, and a structured parameter (a file,
/// list, distribution, steps) 1, given; its value is for the member's own checks.
pub fn params(info: &Info, table: &Map<String, Value>) -> Result<Params, Problem> {
    let mut out = Params::new();
    for (k, v) in table.iter().filter(|(k, _)| *k != "kind") {
        let unit = info.unit(k);
        let x = match (v, unit) {
            (Value::Null, _) => continue,
            (Value::Bool(b), _) => f64::from(u8::from(*b)),
            (Value::Number(n), u) if u.is_number() => n.as_f64().unwrap_or(f64::NAN),
            (Value::String(s), Unit::Choice(words)) => match words.iter().position(|w| w == s) {
                Some(i) => i as f64,
                None => return Err(Problem::at(k, format!("{s:?}; allowed: {}", words.join(", ")))),
            },
            (_, u) if !u.is_number() => 1.0,
            _ => return Err(Problem::at(k, "allowed: a number or true/false")),
        };
        out.0.insert(k.clone(), x);
    }
    Ok(out)
}

/// Finds the member `table` names in `list` (`what`: "application") and checks
/// its parameters against its entry: names, ranges, units, rules.
pub fn check<'a>(list: &'a [Info], what: &str, table: &Map<String, Value>) -> Result<&'a Info, Problem> {
    let kind = table.get("kind").and_then(Value::as_str).ok_or_else(|| Problem::whole("missing `kind`"))?;
    let info = find(list, what, kind).map_err(Problem::whole)?;
    info.check(what, &params(info, table)?)?;
    Ok(info)
}
